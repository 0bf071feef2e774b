import Foundation
import HandoffCore
import HandoffTestSupport
import TerminalCells
import Testing

@testable import ReaderApp

@Suite("Continuing a document over streams")
struct StreamFlowTests {
    /// The laptop reads `name` at page 3, a few rows in; returns the position.
    func readOnLaptop(_ world: ReaderWorld, _ name: String) throws -> ReadingPosition {
        world.laptop.open(name)
        _ = world.laptop.render(width: 60, height: 18)
        world.laptop.press(.character(" "), .character(" "), .down, .down)
        world.hood.settle()
        return try #require(world.laptop.reader.session?.position)
    }

    /// A world whose phone has no cloud folder: it starts with no documents at all.
    func worldWithoutCloud() throws -> ReaderWorld {
        let world = try ReaderWorld(phoneHasCloud: false)
        #expect(
            world.phone.reader.documents.isEmpty,
            "the samples are cloud documents: a device without the cloud lacks them")
        #expect(
            !FileManager.default.fileExists(atPath: world.phone.localFolder.path),
            "nothing was copied into its local folder")
        return world
    }

    @Test func aDeviceWithoutCloudReceivesTheDocumentAndOpensItAtThePlace() async throws {
        let world = try worldWithoutCloud()
        let (laptop, phone) = (world.laptop, world.phone)
        let origin = try readOnLaptop(world, "harrow-point.txt")
        #expect(origin.page == 3)
        #expect(laptop.activity?.supportsContinuationStreams == true)

        phone.device.chooseOffer(from: laptop.device.info.id)
        try await world.run { phone.reader.transfer != nil || phone.reader.session != nil }
        try await world.run { phone.reader.session != nil }

        let stored = phone.localFolder.appendingPathComponent("harrow-point.txt")
        let session = try #require(phone.reader.session)
        #expect(session.url.path == stored.path)
        #expect(
            try Data(contentsOf: stored)
                == Data(contentsOf: world.cloudFolder.appendingPathComponent("harrow-point.txt")))
        #expect(session.position == origin)
        #expect(phone.reader.transfer == nil)
        #expect(phone.reader.message?.kind == .info)
        let size = try Data(contentsOf: stored).count
        let received = try #require(phone.reader.message?.text)
        #expect(
            received.hasPrefix(
                "Received “harrow-point.txt” from Laptop over continuation streams · \(ByteCount.text(size)) in "),
            "\(received)")
        #expect(received.hasSuffix(", saved on this device."))
        #expect(received.contains("B/s), saved"), "how fast it came: \(received)")
        #expect(phone.reader.documents.map(\.name) == ["harrow-point.txt"], "listed on this device")
        #expect(phone.device.lifecycle.contains { $0.kind == .streamsOpened })
        try await world.run { laptop.reader.message != nil }
        // The origin says what it sent, to whom, how much and how fast.
        let sent = try #require(laptop.reader.message)
        #expect(sent.kind == .info)
        #expect(
            sent.text.hasPrefix(
                "Sent “The Clock at Harrow Point” to Phone over continuation streams · \(ByteCount.text(size)) in "),
            "\(sent.text)")
        #expect(sent.text.hasSuffix("B/s)"), "how fast it left: \(sent.text)")
        #expect(
            laptop.render(width: 60, height: 18).text().contains("Sent “The Clock at Harrow Point” to Phone"),
            "shown on its screen")
        #expect(
            laptop.logLines.contains {
                $0.hasPrefix("Reader: sent “harrow-point.txt” (\(size) bytes) to Phone over continuation streams in ")
            })
        #expect(laptop.reader.session?.position == origin, "the origin keeps its state")

        // Continuing again reuses the identical file instead of making a copy.
        phone.device.chooseOffer(from: laptop.device.info.id)
        try await world.run { phone.reader.transfer == nil && phone.reader.message?.text.hasPrefix("Received") == true }
        #expect(try FileManager.default.contentsOfDirectory(atPath: phone.localFolder.path) == ["harrow-point.txt"])
    }

    @Test func aLocalOnlyDocumentArrivesWithoutOverwritingADifferentOne() async throws {
        let world = try ReaderWorld()
        let (laptop, phone) = (world.laptop, world.phone)
        try FileManager.default.createDirectory(at: laptop.localFolder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: phone.localFolder, withIntermediateDirectories: true)
        try "Private notes\n\nOnly on the laptop.".write(
            to: laptop.localFolder.appendingPathComponent("private.txt"),
            atomically: true, encoding: .utf8)
        try "The phone's own private notes.".write(
            to: phone.localFolder.appendingPathComponent("private.txt"),
            atomically: true, encoding: .utf8)
        laptop.press(.character("r"))
        laptop.open("private.txt")
        world.hood.settle()
        // Not in iCloud: no automatic activity; the Reader's own, with streams, is offered.
        let activity = try #require(laptop.activity)
        #expect(activity.activityType == "com.handoffsim.reader.reading")
        #expect(activity.supportsContinuationStreams)
        #expect(activity.isCurrent)
        #expect(laptop.device.lifecycle.last { $0.kind == .documentOpened }?.activityType == nil)
        #expect(
            !laptop.device.lifecycle.contains {
                $0.kind == .activityCreated && $0.activityType == "com.handoffsim.reader.document"
            },
            "no automatic activity for a local document")

        phone.device.chooseOffer(from: laptop.device.info.id)
        try await world.run { phone.reader.session != nil }
        let session = try #require(phone.reader.session)
        #expect(session.url.lastPathComponent == "private (2).txt")
        #expect(session.title == "Private notes")
        #expect(
            try String(contentsOf: phone.localFolder.appendingPathComponent("private.txt"), encoding: .utf8)
                == "The phone's own private notes.", "the different file stays as it was")
        #expect(phone.reader.message?.text.contains("saved on this device as “private (2).txt”") == true)
    }

    @Test func aRefusalKeepsTheStateAndSaysWhy() async throws {
        let world = try ReaderWorld(phoneHasCloud: false)
        let (laptop, phone) = (world.laptop, world.phone)
        try FileManager.default.createDirectory(at: phone.localFolder, withIntermediateDirectories: true)
        try "Phone notes\n\nA page.\n\u{0C}\nAnother page.".write(
            to: phone.localFolder.appendingPathComponent("mine.txt"),
            atomically: true, encoding: .utf8)
        phone.press(.character("r"))
        phone.open("mine.txt")
        let before = try #require(phone.reader.session)
        _ = try readOnLaptop(world, "night-markets.txt")
        // The document disappears from the origin after it was opened.
        try FileManager.default.removeItem(at: world.cloudFolder.appendingPathComponent("night-markets.txt"))

        phone.device.chooseOffer(from: laptop.device.info.id)
        try await world.run { phone.reader.message != nil }
        #expect(phone.reader.session === before)
        #expect(
            phone.reader.message
                == ReaderMessage(
                    .error,
                    "Could not receive “night-markets.txt”: the other device refused: “night-markets.txt” is no longer there. Nothing changed here."
                ))
        #expect(phone.render(width: 60, height: 18).text().contains("Could not receive"))
    }

    @Test func anOriginThatVanishesEndsTheWaitWithAMessage() async throws {
        let world = try worldWithoutCloud()
        let (laptop, phone) = (world.laptop, world.phone)
        phone.reader.transferIdleTimeout = .milliseconds(300)
        _ = try readOnLaptop(world, "harrow-point.txt")
        phone.device.chooseOffer(from: laptop.device.info.id)
        // Step until the phone asks for the streams, then the laptop dies.
        for _ in 0..<200 where phone.reader.transfer == nil { world.hood.advance(by: 0.001) }
        #expect(phone.reader.transfer?.documentName == "harrow-point.txt")
        world.hood.remove(laptop.device)
        try await world.run { phone.reader.transfer == nil }
        #expect(phone.reader.session == nil)
        #expect(phone.reader.message?.kind == .error)
        #expect(
            phone.reader.message?.text
                == "Could not receive “harrow-point.txt”: the other device did not answer for 300 ms. Nothing changed here."
        )
        #expect(!FileManager.default.fileExists(atPath: phone.localFolder.path), "nothing was stored")
    }

    @Test func anActivityWithoutStreamsSaysTheDocumentIsMissing() throws {
        let world = try ReaderWorld()
        let (laptop, phone) = (world.laptop, world.phone)
        let activity = try UserActivity(activityType: "com.handoffsim.reader.document", application: laptop.application)
        activity.addUserInfoEntries(from: ["documentName": "elsewhere.txt", "page": 2])
        activity.becomeCurrent()
        world.hood.settle()
        phone.device.chooseOffer(from: laptop.device.info.id)
        world.hood.settle()
        #expect(phone.reader.transfer == nil)
        #expect(
            phone.reader.message
                == ReaderMessage(
                    .error, "“elsewhere.txt” is not in this device's cloud folder, so it cannot be opened here."))
        expectRefused(phone: phone, laptop: laptop)
    }

    @Test func theProgressIsShownOverTheReadingView() throws {
        let world = try ReaderWorld()
        let phone = world.phone
        phone.open("harrow-point.txt")
        phone.reader.transfer = TransferProgress(
            documentName: "atlas.txt", senderName: "Alpha",
            receivedBytes: 1_200_000, totalBytes: 5_000_000)
        let grid = phone.render(width: 60, height: 18)
        #expect(grid.text().contains("Receiving “atlas.txt” from Alpha… 1.2 MB of 5.0 MB"))
        expectSnapshot(grid, named: "receiving-60x18")
        phone.reader.transfer = TransferProgress(documentName: "atlas.txt")
        #expect(phone.render(width: 60, height: 18).text().contains("Asking the other device for “atlas.txt”…"))
        #expect(phone.reader.handle(.escape))
        #expect(phone.reader.transfer == nil)
        #expect(phone.reader.session != nil, "Esc stops the transfer, not the reading")
    }
}

@Suite("Handoff versions and the web page")
struct VersionTests {
    @Test func aVersionOneReaderWritesTheOlderKeysAndTheCurrentOneRestoresThem() async throws {
        let world = try ReaderWorld(laptopVersion: 1)
        let (laptop, phone) = (world.laptop, world.phone)
        laptop.open("night-markets.txt")
        _ = laptop.render(width: 60, height: 18)
        laptop.press(.pageDown, .down, .down)
        world.hood.advance(by: 61)
        let activity = try #require(laptop.activity)
        let position = try #require(laptop.reader.session?.position)
        #expect(
            activity.userInfo == [
                UserActivity.documentURLKey: .url(world.cloudFolder.appendingPathComponent("night-markets.txt")),
                "handoffVersion": 1, "name": "night-markets.txt", "pageNumber": 2,
                "offset": .integer(Int64(position.line)),
            ])
        phone.device.chooseOffer(from: laptop.device.info.id)
        world.hood.settle()
        #expect(phone.reader.message == nil)
        #expect(phone.reader.session?.position == ReadingPosition(page: 2, line: position.line))
        // The phone, a current Reader, writes version 2 for its own activity.
        world.hood.advance(by: 61)
        #expect(phone.activity?.userInfo["handoffVersion"] == 2)
        #expect(phone.activity?.userInfo["page"] == 2)
    }

    @Test func stateReadsEveryKnownVersion() throws {
        let v1 = try ReadingState(userInfo: ["handoffVersion": 1, "name": "a.txt", "pageNumber": 4, "offset": 3])
        #expect(v1 == ReadingState(documentName: "a.txt", position: ReadingPosition(page: 4, line: 3)))
        let unversioned = try ReadingState(userInfo: ["name": "a.txt", "pageNumber": 4])
        #expect(unversioned.position == ReadingPosition(page: 4))
        let v2 = try ReadingState(userInfo: [
            "handoffVersion": 2, "documentName": "a.txt", "page": 4, "line": 3, "character": 9,
        ])
        #expect(v2.position == ReadingPosition(page: 4, line: 3, character: 9))
        #expect(throws: ReadingRestoreError.missingKey("pageNumber")) {
            try ReadingState(userInfo: ["handoffVersion": 1, "name": "a.txt", "page": 4])
        }
        #expect(
            throws: ReadingRestoreError.badValue(key: "handoffVersion", found: "two", expected: "a whole number from 1")
        ) {
            try ReadingState(userInfo: ["handoffVersion": "two", "documentName": "a.txt", "page": 4])
        }
        let state = ReadingState(documentName: "a.txt", position: ReadingPosition(page: 4, line: 3, character: 9))
        #expect(try ReadingState(userInfo: state.userInfo(version: 1)).position == ReadingPosition(page: 4, line: 3))
        #expect(throws: ReaderError.unsupportedVersion(4)) { try ReaderApp(version: 4) }
        #expect(throws: ReaderError.unsupportedVersion(0)) { try ReaderApp(version: 0) }
        #expect(
            ReaderError.unsupportedVersion(4).description
                == "the Reader cannot write handoff version 4; it writes versions 1 to 3 (2 is the current one, 3 stands in for a newer Reader)"
        )
        // A newer version is refused before any key is read; a Reader of that version reads it.
        let v3: UserInfo = ["handoffVersion": 3, "documentName": "a.txt", "page": 4]
        #expect(throws: ReadingRestoreError.newerVersion(3, newest: 2)) { try ReadingState(userInfo: v3) }
        #expect(throws: ReadingRestoreError.newerVersion(3, newest: 2)) { try ReadingState.checkVersion(of: v3) }
        #expect(
            try ReadingState(userInfo: v3, readable: ReadingState.readableVersions(writing: 3)).position
                == ReadingPosition(page: 4))
        #expect(try ReadingState.checkVersion(of: ["name": "a.txt", "pageNumber": 1]) == 1)
    }

    @Test func aNewerVersionFailsGracefully() throws {
        let world = try ReaderWorld()
        let (laptop, phone) = (world.laptop, world.phone)
        phone.open("night-markets.txt")
        phone.press(.pageDown)
        let before = try #require(phone.reader.session)
        // A future Reader: version 3 with keys this one does not know (and a "page" it must not trust).
        let activity = try UserActivity(activityType: "com.handoffsim.reader.document", application: laptop.application)
        activity.addUserInfoEntries(from: ["handoffVersion": 3, "doc": "harrow-point.txt", "page": 5, "anchor": "x"])
        activity.becomeCurrent()
        world.hood.settle()
        phone.device.chooseOffer(from: laptop.device.info.id)
        world.hood.settle()
        #expect(phone.reader.session === before)
        #expect(before.position == ReadingPosition(page: 2))
        #expect(
            phone.reader.message
                == ReaderMessage(
                    .error,
                    "This activity comes from a newer Reader (version 3); this Reader "
                        + "understands versions 1 to 2. Update the Reader here to continue it. Nothing changed here."))
        expectRefused(phone: phone, laptop: laptop)
    }

    @Test func aVersionThreeReaderIsRefusedByTheCurrentOneAndTheOriginIsNotToldItWasContinued() throws {
        let world = try ReaderWorld(laptopVersion: 3)
        let (laptop, phone) = (world.laptop, world.phone)
        let newer = try ReaderDevice(
            "Tablet", kind: .tablet, in: world.hood, cloudFolder: world.cloudFolder,
            localFolder: world.folder.folder("tablet"), version: 3)
        laptop.open("night-markets.txt")
        laptop.press(.pageDown)
        world.hood.advance(by: 61)
        let activity = try #require(laptop.activity)
        // The keys the current Reader reads, under a version it does not know yet.
        #expect(activity.userInfo["handoffVersion"] == 3)
        #expect(activity.userInfo["documentName"] == "night-markets.txt")
        #expect(activity.userInfo["page"] == 2)

        phone.device.chooseOffer(from: laptop.device.info.id)
        world.hood.settle()
        #expect(phone.reader.session == nil, "nothing was opened")
        #expect(
            phone.reader.message
                == ReaderMessage(
                    .error,
                    "This activity comes from a newer Reader (version 3); this Reader "
                        + "understands versions 1 to 2. Update the Reader here to continue it. Nothing changed here."))
        #expect(
            phone.render(width: 60, height: 18).text().contains("newer Reader (version 3)"),
            "the message is on the screen")
        #expect(
            phone.logLines.contains {
                $0.hasPrefix("Reader: continuation of com.handoffsim.reader.document failed: refused: ")
            })
        expectRefused(phone: phone, laptop: laptop)
        #expect(laptop.reader.session?.position.page == 2, "the origin keeps its state")

        // A Reader of version 3 reads its own version.
        newer.device.chooseOffer(from: laptop.device.info.id)
        world.hood.settle()
        #expect(newer.reader.message == nil)
        #expect(newer.reader.session?.position.page == 2)
        #expect(laptop.device.lifecycle.contains { $0.kind == .wasContinued })
    }

    @Test func theWebPageFollowsTheDocumentAndThePage() throws {
        let world = try ReaderWorld()
        let laptop = world.laptop
        laptop.open("night-markets.txt")
        #expect(laptop.activity?.webpageURL?.absoluteString == "https://reader.handoffsim.example/night-markets?page=1")
        laptop.press(.pageDown, .pageDown)
        #expect(laptop.activity?.webpageURL?.absoluteString == "https://reader.handoffsim.example/night-markets?page=3")
        let spaced = ReadingState(documentName: "Notes & ideas/ü.txt", position: ReadingPosition(page: 7))
        #expect(
            ReaderApp.webpageURL(for: spaced).absoluteString
                == "https://reader.handoffsim.example/Notes%20%26%20ideas%2F%C3%BC?page=7")
        world.hood.settle()
        let offer = try #require(world.phone.device.system.offers[laptop.device.info.id])
        #expect(offer.advertisement.options.contains(.hasWebpageURL))
    }
}

/// The phone refused the laptop's activity: its Reader returned false from `continue` and
/// restored nothing, the system did not count it as continued, and the laptop was not told it
/// was continued (no `userActivityWasContinued`, no "Continued on" there).
func expectRefused(phone: ReaderDevice, laptop: ReaderDevice, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!phone.reader.isContinuing, sourceLocation: sourceLocation)
    #expect(
        phone.device.lifecycle.contains { $0.kind == .notHandled }, "continue returned false",
        sourceLocation: sourceLocation)
    #expect(!phone.device.lifecycle.contains { $0.kind == .restoreUserActivityState }, sourceLocation: sourceLocation)
    #expect(
        !phone.device.lifecycle.contains { $0.kind == .continued }, "never counted as continued",
        sourceLocation: sourceLocation)
    #expect(
        !laptop.device.lifecycle.contains { $0.kind == .wasContinued }, "the origin was not told",
        sourceLocation: sourceLocation)
    #expect(laptop.reader.message == nil, sourceLocation: sourceLocation)
}
