import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// The inspector (F10) on two real terminal devices after a continuation: each side shows what
/// it knows, read off the screens.
@Suite(
    "Inspector end to end", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct InspectorEndToEndTests {
    /// Starts `handoff device` with the Map named `name` in a new tmux server of `world` and
    /// waits for its home screen.
    func start(
        _ name: String, in world: TerminalDevicesWorld, kind: String, width: Int, height: Int,
        extra: [String] = []
    ) throws -> TmuxSession {
        let command = try world.deviceCommand(name, kind: kind, extra: ["--apps", "map"] + extra) + "; exec sleep 120"
        let session = try #require(try TmuxSession(width: width, height: height, command: command))
        world.sessions.append(session)
        try session.waitFor("\(name)'s home screen", timeout: .seconds(30)) {
            $0.contains("\(name) · \(kind)") && $0.contains("Map")
        }
        return session
    }

    /// Waits until every one of `texts` is on the screen at once; returns that screen.
    @discardableResult
    func waitForAll(
        _ texts: [String], on session: TmuxSession, _ description: String, timeout: Duration = .seconds(10)
    ) throws -> String {
        try session.waitFor(description, timeout: timeout) { screen in texts.allSatisfy(screen.contains) }
    }

    /// Alpha (a laptop) shows Lisbon on the Map; Beta (a phone) continues it.
    func continueTheMap(from alpha: TmuxSession, to beta: TmuxSession) throws {
        try beta.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) {
            $0.contains("Alpha") && $0.contains("laptop")
        }

        // Alpha shows Lisbon on the Map; Beta continues it.
        try alpha.sendKeys("Enter")
        try alpha.waitFor("the map") { $0.contains("zoom") }
        try alpha.sendKeys("/")
        try alpha.sendText("Lisbon")
        try alpha.sendKeys("Enter")
        try alpha.waitFor("Lisbon") { $0.contains("38.73°N 9.15°W") }
        try beta.waitFor("the map offer on Beta", timeout: .seconds(10)) { $0.contains("Map from Alpha") }
        try beta.sendKeys("C-o")
        try TmuxSession.waitUntilSeen(
            [
                .init("Beta continued from Alpha", on: beta) {
                    $0.contains("Continued from Alpha") && $0.contains("38.73°N 9.15°W")
                },
                .init("Alpha continued on Beta", on: alpha) { $0.contains("Continued on Beta") },
            ], timeout: .seconds(15))
    }

    @Test func afterAContinuationBothSidesInspectWhatTravelled() throws {
        let world = try TerminalDevicesWorld()
        let alpha = try start("Alpha", in: world, kind: "laptop", width: 100, height: 30)
        let beta = try start("Beta", in: world, kind: "phone", width: 200, height: 50)
        try continueTheMap(from: alpha, to: beta)

        // The receiver: what it restored, the meter, then the payload's and the beacon's fields.
        try beta.sendKeys("F10")
        try waitForAll(
            [
                "Inspector · Continuation", "Alpha → Beta", "Receiver Beta", "given to the app (continue)",
                "Origin: not known here", "Apple's guidance 3 KB", "limit 512 KB", "latitude",
            ],
            on: beta, "the receiver's userInfo tab")
        try beta.sendKeys("Right")
        try waitForAll(
            [
                "Payload received from Alpha", "48 4f 50 4c", "magic", "activityType", "userInfo count",
                "bundleIdentifier", "streamToken length",
            ],
            on: beta, "the receiver's payload bytes")
        try beta.sendKeys("Right")
        try waitForAll(
            [
                "Last beacon from Alpha", "Datagram (128 bytes", "nonce", "ciphertext", "tag",
                "Plaintext (99 bytes", "bootIdentifier", "sessionPort", "padding",
            ],
            on: beta, "the receiver's beacon bytes")
        try beta.sendKeys("Escape")
        try beta.waitFor("the inspector closed") { !$0.contains("Inspector ·") && $0.contains("Beta · phone") }

        // The origin: what it saved and the payload it sent.
        try alpha.sendKeys("F10")
        try waitForAll(
            ["Inspector · Continuation", "Alpha → Beta", "Origin Alpha", "saved by the origin", "latitude"],
            on: alpha, "the origin's userInfo tab")
        try alpha.sendKeys("Right")
        try waitForAll(["Payload sent to Beta", "48 4f 50 4c", "magic"], on: alpha, "the origin's payload bytes")
    }

    @Test func withLifecycleSharingTheReceiverSeesBothSidesAt80x24() throws {
        let world = try TerminalDevicesWorld()
        let alpha = try start("Alpha", in: world, kind: "laptop", width: 100, height: 30, extra: ["--share-lifecycle"])
        let beta = try start("Beta", in: world, kind: "phone", width: 80, height: 24, extra: ["--share-lifecycle"])
        try continueTheMap(from: alpha, to: beta)
        try beta.sendKeys("F10")
        try waitForAll(
            [
                "Inspector · Continuation", "Origin Alpha", "saved by the origin (shared)", "Receiver Beta",
                "guidance 3 KB", "latitude",
            ],
            on: beta, "both sides on the receiver", timeout: .seconds(15))
        try beta.sendKeys("End")
        try waitForAll(["Both sides hold the same userInfo."], on: beta, "the comparison")
    }
}
