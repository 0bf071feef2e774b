import Foundation
import HandoffCore
import HandoffTestSupport
import TerminalCells
import Testing

@testable import ReaderApp

@Suite("Handing off a document")
struct HandoffTests {
    @Test func openingADocumentCreatesTheDocumentActivity() throws {
        let world = try ReaderWorld()
        let laptop = world.laptop
        laptop.open("harrow-point.txt")
        let activity = try #require(laptop.activity)
        let url = world.cloudFolder.appendingPathComponent("harrow-point.txt")
        #expect(activity.activityType == "com.handoffsim.reader.document")
        #expect(activity.title == "The Clock at Harrow Point")
        #expect(activity.userInfo[UserActivity.documentURLKey]?.urlValue?.path == url.path)
        #expect(laptop.reader.readingView.userActivity === activity, "the reading view shares the document's activity")
        #expect(laptop.device.currentActivity === activity)
    }

    @Test func savingWritesTheDocumentAndThePosition() throws {
        let world = try ReaderWorld()
        let laptop = world.laptop
        laptop.open("night-markets.txt")
        _ = laptop.render(width: 60, height: 18)
        laptop.press(.pageDown, .pageDown, .down, .down, .down)
        let activity = try #require(laptop.activity)
        let position = try #require(laptop.reader.session?.position)
        #expect(position.page == 3)
        #expect(activity.needsSave)
        world.hood.advance(by: 61)  // the coalesced save
        #expect(!activity.needsSave)
        let url = try #require(laptop.reader.session?.url)
        #expect(
            activity.userInfo == [
                UserActivity.documentURLKey: .url(url),
                "handoffVersion": 2,
                "documentName": "night-markets.txt",
                "page": 3,
                "line": .integer(Int64(position.line)),
                "character": .integer(Int64(position.character)),
            ])
        #expect(
            laptop.device.lifecycle.contains {
                if case .updateUserActivityState(_, responders: 2, _) = $0.occurrence { true } else { false }
            })
    }

    @Test func thePositionSurvivesThePayloadEncoding() throws {
        let world = try ReaderWorld()
        let laptop = world.laptop
        laptop.open("handoff-guide.txt")
        _ = laptop.render(width: 50, height: 14)
        laptop.press(.pageDown, .pageDown, .pageDown, .down, .down, .down, .down)
        world.hood.advance(by: 61)
        let activity = try #require(laptop.activity)
        let data = activity.makePayload().encoded()
        let payload = try ActivityPayload(decoding: data)
        #expect(payload.activityType == "com.handoffsim.reader.document")
        #expect(payload.bundleIdentifier == "com.handoffsim.reader")
        #expect(payload.teamIdentifier == "SIMTEAM001")
        let state = try ReadingState(userInfo: payload.userInfo)
        #expect(state == laptop.reader.session?.state)
        #expect(state.position.page == 4)
        #expect(state.position.line > 0 || state.position.character > 0, "scrolled into the page")
    }

    @Test func theOtherDeviceContinuesAtTheSamePlaceOnADifferentScreen() throws {
        let world = try ReaderWorld()
        let (laptop, phone) = (world.laptop, world.phone)
        laptop.open("harrow-point.txt")
        _ = laptop.render(width: 60, height: 18)
        laptop.press(.character(" "), .character(" "), .down, .down, .down, .down, .down)
        while laptop.render(width: 60, height: 18).line(2).isEmpty { laptop.press(.down) }  // start on a line of text
        let origin = try #require(laptop.reader.session?.position)
        #expect(origin.page == 3)
        world.hood.settle()
        let offer = try #require(phone.device.system.offers[laptop.device.info.id])
        #expect(
            offer.route
                == .app(bundleIdentifier: "com.handoffsim.reader", activityType: "com.handoffsim.reader.document"))

        phone.device.chooseOffer(from: laptop.device.info.id)
        #expect(phone.reader.isContinuing, "willContinue shows that something is coming")
        #expect(phone.render(width: 60, height: 18).text().contains("Opening a document from another device…"))
        world.hood.settle()

        #expect(!phone.reader.isContinuing)
        #expect(phone.reader.message == nil)
        let session = try #require(phone.reader.session)
        #expect(session.url.path == world.cloudFolder.appendingPathComponent("harrow-point.txt").path)
        #expect(session.position == origin)
        #expect(phone.reader.title == "The Clock at Harrow Point")
        #expect(phone.device.lifecycle.contains { $0.kind == .restoreUserActivityState })
        // The phone now has the document open: its own activity, current there.
        #expect(phone.activity?.isCurrent == true)
        #expect(phone.activity?.identifier != laptop.activity?.identifier)
        // The laptop keeps its state.
        #expect(laptop.reader.session?.position == origin)
        #expect(laptop.activity?.isValid == true)

        // On another screen the view starts with the row that holds the same character.
        let small = laptop.render(width: 60, height: 18)
        let other = phone.render(width: 90, height: 12)
        #expect(small.line(0).hasSuffix("page 3 of 6"))
        #expect(other.line(0).hasSuffix("page 3 of 6"))
        let layout = session.layout(width: phone.reader.viewport.width)
        let top = layout.rows[session.topRow(in: phone.reader.viewport)]
        #expect(top.line == origin.line)
        #expect(top.character <= origin.character && origin.character < top.character + top.text.count)
        #expect(other.line(2).trimmingCharacters(in: .whitespaces) == top.text)
        let source = session.text.lines(ofPage: 3)[origin.line]
        let words = String(Array(source)[origin.character...].prefix(8))
        #expect(small.line(2).contains(words), "the laptop's view starts with “\(words)”")
        #expect(other.line(2).contains(words) || other.line(3).contains(words.prefix(4)), "so does the phone's")
        // A screen that holds the whole page shows it from its top.
        let big = phone.render(width: 150, height: 44)
        #expect(big.line(2).contains(session.text.lines(ofPage: 3)[0].prefix(30)))
        #expect(big.text().contains(words))
    }

    // A document missing on the continuing device now arrives over streams: StreamFlowTests.

    @Test func aBadKeyKeepsTheStateAndSaysWhich() throws {
        let world = try ReaderWorld()
        let (laptop, phone) = (world.laptop, world.phone)
        // An activity of the Reader's type whose page is not a number.
        let activity = try UserActivity(activityType: "com.handoffsim.reader.document", application: laptop.application)
        activity.addUserInfoEntries(from: ["documentName": "harrow-point.txt", "page": "three"])
        activity.becomeCurrent()
        world.hood.settle()
        phone.device.chooseOffer(from: laptop.device.info.id)
        world.hood.settle()
        #expect(phone.reader.session == nil)
        #expect(phone.reader.message?.kind == .error)
        #expect(
            phone.reader.message?.text
                == "The activity's \"page\" is \"three\" (String), not a whole number from 1. Nothing changed here.")
        expectRefused(phone: phone, laptop: laptop)
    }

    @Test func aFailedContinuationIsShownInTheApp() throws {
        let world = try ReaderWorld()
        let (laptop, phone) = (world.laptop, world.phone)
        laptop.open("handoff-guide.txt")
        world.hood.settle()
        phone.device.chooseOffer(from: laptop.device.info.id)
        world.hood.remove(laptop.device)  // gone before it answers
        world.hood.advance(by: 10)
        #expect(!phone.reader.isContinuing)
        #expect(phone.reader.session == nil)
        #expect(phone.reader.message?.kind == .error)
        #expect(phone.reader.message?.text.hasPrefix("Could not continue: ") == true)
        #expect(phone.device.systemAlerts.isEmpty, "the app showed the error itself")
    }

    @Test func cancellingIsQuiet() throws {
        let world = try ReaderWorld()
        let (laptop, phone) = (world.laptop, world.phone)
        laptop.open("handoff-guide.txt")
        world.hood.settle()
        phone.device.chooseOffer(from: laptop.device.info.id)
        #expect(phone.reader.isContinuing)
        phone.device.cancelContinuation()
        world.hood.settle()
        #expect(!phone.reader.isContinuing)
        #expect(phone.reader.message == nil)
        #expect(phone.reader.session == nil)
    }

    @Test func continuingTheDocumentAlreadyOpenMovesWithinIt() throws {
        let world = try ReaderWorld()
        let (laptop, phone) = (world.laptop, world.phone)
        phone.open("harrow-point.txt")
        let document = try #require(phone.reader.session?.document)
        laptop.open("harrow-point.txt")
        laptop.press(.end)
        world.hood.settle()
        phone.device.chooseOffer(from: laptop.device.info.id)
        world.hood.settle()
        #expect(phone.reader.session?.document === document, "the same document stays open")
        #expect(phone.reader.session?.position == laptop.reader.session?.position)
        #expect(phone.application.openDocuments.count == 1)
    }
}

@Suite("Reading state in userInfo")
struct ReadingStateTests {
    let url = URL(fileURLWithPath: "/cloud/story.txt")

    @Test func writesPlainValuesAndReadsThemBack() throws {
        let state = ReadingState(
            documentName: "story.txt", documentURL: url,
            position: ReadingPosition(page: 3, line: 4, character: 17))
        #expect(state.userInfo == ["documentName": "story.txt", "page": 3, "line": 4, "character": 17])
        var info = state.userInfo
        info[UserActivity.documentURLKey] = .url(url)
        #expect(try ReadingState(userInfo: info) == state)
    }

    @Test func lineAndCharacterDefaultToTheTopOfThePage() throws {
        let state = try ReadingState(userInfo: ["documentName": "story.txt", "page": 2])
        #expect(state.position == ReadingPosition(page: 2))
        #expect(state.documentURL == nil)
    }

    @Test func theURLNamesTheDocumentWhenTheNameIsMissing() throws {
        let state = try ReadingState(userInfo: [UserActivity.documentURLKey: .url(url), "page": 1])
        #expect(state.documentName == "story.txt")
    }

    @Test func missingAndBadKeysAreNamed() {
        let cases: [(UserInfo, ReadingRestoreError)] = [
            (["page": 1], .missingKey("documentName")),
            (["documentName": "story.txt"], .missingKey("page")),
            (
                ["documentName": "story.txt", "page": 0],
                .badValue(key: "page", found: 0, expected: "a whole number from 1")
            ),
            (
                ["documentName": "story.txt", "page": 2.5],
                .badValue(key: "page", found: 2.5, expected: "a whole number from 1")
            ),
            (
                ["documentName": "story.txt", "page": 1, "line": -1],
                .badValue(key: "line", found: -1, expected: "a whole number from 0")
            ),
            (
                ["documentName": "story.txt", "page": 1, "character": "x"],
                .badValue(key: "character", found: "x", expected: "a whole number from 0")
            ),
            (
                ["documentName": "../story.txt", "page": 1],
                .badValue(key: "documentName", found: "../story.txt", expected: "a file name")
            ),
            (
                [UserActivity.documentURLKey: .url(URL(string: "https://example.com/story.txt")!), "page": 1],
                .badValue(
                    key: UserActivity.documentURLKey, found: .url(URL(string: "https://example.com/story.txt")!),
                    expected: "a file URL")
            ),
        ]
        for (info, error) in cases {
            #expect(throws: error) { try ReadingState(userInfo: info) }
        }
        #expect(
            ReadingRestoreError.missingKey("page").description
                == "The activity has no \"page\", so there is nothing to open. Nothing changed here.")
    }
}
