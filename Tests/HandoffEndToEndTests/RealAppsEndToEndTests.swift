import Foundation
import HandoffCore
import HandoffProcesses
import HandoffTestSupport
import Testing

/// A public Mac app and its iOS app, from their real files: NetNewsWire's `Mac/Resources/Info.plist`
/// and `iOS/Resources/Info.plist` with their entitlements (demos/netnewswire, copied unchanged;
/// the build settings Xcode would resolve are written out beside them). Two headless devices
/// install them with `--app`, and for every pair tried here the doctor's verdict on the same
/// files is what the devices do: a ReadArticle continues from the Mac into the iOS app by its
/// real bundle identifier; another team, a type the receiver does not claim and a payload past
/// 4611's limit do not.
@Suite(
    "Real apps: NetNewsWire's Mac and iOS apps", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil))
struct RealAppsEndToEndTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("demos/netnewswire")
    static let mac = folder.appendingPathComponent("Mac").path
    static let iOS = folder.appendingPathComponent("iOS").path
    static let readArticle = folder.appendingPathComponent("read-article.plist").path

    /// The doctor on the same files and options as the devices; its exit status and output.
    static func doctor(_ arguments: String...) throws -> (status: Int32, output: String) {
        let result = try DoctorRun.handoff(["doctor"] + arguments)
        return (result.status, result.output + result.error)
    }

    /// The offer `device` holds from `origin`, once it has one.
    static func offer(on device: HeadlessProcess, from origin: String) throws -> [String: JSONValue] {
        _ = try #require(
            device.waitForMessage(timeout: 15) { $0["event"] == "lifecycle" && $0["kind"] == "offerReceived" },
            "no offer from \(origin): \(device.lastRawLines(10).joined(separator: "\n"))")
        let mark = device.receivedMessages.count
        try device.send(["cmd": "peers", "id": "peers"])
        let answer = try #require(device.waitForMessage(after: mark, timeout: 10) { $0["id"] == "peers" })
        let peers = answer["peers"]?.arrayValue ?? []
        return try #require(peers.first { $0["name"] == .string(origin) }?.objectValue, "\(peers)")
    }

    /// Starts the origin, then the receiver, and checks that the receiver's offer from the origin
    /// leads to no app, for a reason that mentions `reason`.
    static func expectNothingOffered(
        origin: (name: String, kind: String, options: [String]),
        receiver: (name: String, kind: String, options: [String]), because reason: String
    ) throws {
        let world = try HeadlessProcessWorld(fetchTimeout: 5)
        _ = try world.start(origin.name, kind: origin.kind, extra: ["--apps", "browser"] + origin.options)
        let device = try world.start(
            receiver.name, kind: receiver.kind, extra: ["--apps", "browser"] + receiver.options)
        let offer = try Self.offer(on: device, from: origin.name)
        #expect(offer["routeKind"] == "unavailable", "\(offer)")
        #expect(offer["continuable"] == false)
        #expect(offer["reason"]?.stringValue?.contains(reason) == true, "\(offer)")
    }

    @Test func aReadArticleContinuesFromTheMacAppIntoTheIOSAppAsTheDoctorSays() throws {
        let verdict = try Self.doctor(
            "--origin", Self.mac, "--receiver", Self.iOS, "--activity", Self.readArticle)
        #expect(verdict.status == 0, "\(verdict.output)")
        #expect(verdict.output.contains("Origin:   com.ranchero.NetNewsWire-Evergreen (team M8L2WTLA8W)"))
        #expect(verdict.output.contains("Verdict: continues in com.ranchero.NetNewsWire.iOS"), "\(verdict.output)")

        let world = try HeadlessProcessWorld(fetchTimeout: 5)
        let mac = try world.start(
            "Mac", kind: "laptop", extra: ["--apps", "browser", "--app", Self.mac, "--activity", Self.readArticle])
        let made = try #require(mac.waitForMessage(timeout: 10) { $0["event"] == "activity-file" })
        #expect(made["app"] == "com.ranchero.NetNewsWire-Evergreen")
        #expect(made["type"] == "ReadArticle")
        let phone = try world.start("iPhone", extra: ["--apps", "browser", "--app", Self.iOS])
        let offer = try Self.offer(on: phone, from: "Mac")
        #expect(offer["routeKind"] == "app")
        #expect(offer["app"] == "com.ranchero.NetNewsWire.iOS")

        let mark = phone.receivedMessages.count
        try phone.send(["cmd": "status", "id": "s"])
        let status = try #require(phone.waitForMessage(after: mark, timeout: 10) { $0["id"] == "s" })
        let app = try #require(
            (status["apps"]?.arrayValue ?? []).first { $0["bundle"] == "com.ranchero.NetNewsWire.iOS" })
        // Its Info.plist declares a scene manifest, and the team comes from DEVELOPMENT_TEAM.
        #expect(app["usesScenes"] == true)
        #expect(app["team"] == "M8L2WTLA8W")
        #expect(app["name"] == "NetNewsWire")

        let macID = try #require(world.id(of: mac))
        try phone.send(["cmd": "continue", "peer": macID])
        let restored = try #require(
            phone.waitForMessage(after: mark, timeout: 20) { $0["event"] == "restored" },
            "not restored: \(phone.lastRawLines(20).joined(separator: "\n"))")
        #expect(restored["app"] == "com.ranchero.NetNewsWire.iOS")
        #expect(restored["type"] == "ReadArticle")
        #expect(restored["title"] == "Handoff, explained")
        let info = try #require(restored["userInfo"])
        #expect(info["accountID"] == "OnMyMac")
        #expect(info["accountName"] == "On My Mac")
        #expect(info["feedID"] == "https://example.org/feed.xml")
        #expect(info["articleID"] == "https://example.org/2026/11/handoff-explained")
        #expect(info.objectValue?.count == 4)
        _ = try #require(
            mac.waitForMessage(timeout: 10) { $0["event"] == "continued-elsewhere" },
            "the Mac was not told: \(mac.lastRawLines(10).joined(separator: "\n"))")
    }

    @Test func anIOSAppOfAnotherTeamIsOfferedNothingAsTheDoctorSays() throws {
        let verdict = try Self.doctor(
            "--origin", Self.mac, "--receiver", Self.iOS, "--receiver-team", "ZYXWV98765", "--activity",
            Self.readArticle)
        #expect(verdict.status == 1, "\(verdict.output)")
        #expect(verdict.output.contains("1. error same-team: "), "\(verdict.output)")

        try Self.expectNothingOffered(
            origin: ("Mac", "laptop", ["--app", Self.mac, "--activity", Self.readArticle]),
            receiver: ("iPhone", "phone", ["--app", Self.iOS, "--team", "ZYXWV98765"]), because: "team")
    }

    @Test func aTypeTheMacAppDoesNotClaimIsOfferedNothingAsTheDoctorSays() throws {
        // The iOS app's NextUnread: the Mac app claims ReadArticle only.
        let scratch = try DoctorTemporaryFolder()
        let nextUnread = scratch.url.appendingPathComponent("next-unread.json")
        try Data(#"{"activityType": "NextUnread", "title": "See first unread article"}"#.utf8).write(to: nextUnread)
        let verdict = try Self.doctor(
            "--origin", Self.iOS, "--receiver", Self.mac, "--activity", nextUnread.path)
        #expect(verdict.status == 1, "\(verdict.output)")
        #expect(verdict.output.contains("1. error type-claimed: "), "\(verdict.output)")
        #expect(verdict.output.contains("NSUserActivityTypes: ReadArticle"), "\(verdict.output)")

        try Self.expectNothingOffered(
            origin: ("iPhone", "phone", ["--app", Self.iOS, "--activity", nextUnread.path]),
            receiver: ("Mac", "laptop", ["--app", Self.mac]), because: "claims")
    }

    @Test func aPayloadPastTheLimitFailsWith4611AsTheDoctorSays() throws {
        let scratch = try DoctorTemporaryFolder()
        let big = scratch.url.appendingPathComponent("big-article.json")
        let body = String(repeating: "x", count: 600_000)
        try Data(
            #"{"activityType": "ReadArticle", "title": "A long article", "userInfo": {"articleID": "1", "body": "\#(body)"}}"#
                .utf8
        ).write(to: big)
        let verdict = try Self.doctor("--origin", Self.mac, "--receiver", Self.iOS, "--activity", big.path)
        #expect(verdict.status == 1, "\(verdict.output)")
        #expect(verdict.output.contains("error payload-within-limit: "), "\(verdict.output)")
        #expect(verdict.output.contains("4611"), "\(verdict.output)")

        let world = try HeadlessProcessWorld(fetchTimeout: 5)
        let mac = try world.start(
            "Mac", kind: "laptop", extra: ["--apps", "browser", "--app", Self.mac, "--activity", big.path])
        let phone = try world.start("iPhone", extra: ["--apps", "browser", "--app", Self.iOS])
        let offer = try Self.offer(on: phone, from: "Mac")
        #expect(offer["routeKind"] == "app", "\(offer)")
        let mark = phone.receivedMessages.count
        try phone.send(["cmd": "continue", "peer": try #require(world.id(of: mac))])
        let failed = try #require(
            phone.waitForMessage(after: mark, timeout: 20) { $0["event"] == "continue-failed" },
            "no failure: \(phone.lastRawLines(20).joined(separator: "\n"))")
        #expect(failed["code"] == 4611)
        #expect(failed["app"] == "com.ranchero.NetNewsWire.iOS")
        #expect(failed["type"] == "ReadArticle")
    }
}
