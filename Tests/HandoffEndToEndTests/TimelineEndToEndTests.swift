import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// The timeline view (F9) on a real terminal device: two `handoff device` processes sharing
/// their lifecycle (`--share-lifecycle`), a document continued from one to the other, and the
/// continuing device's timeline showing the origin's lane with the origin's events and the
/// arrows for what crossed the network.
@Suite(
    "Timeline end to end", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct TimelineEndToEndTests {
    @Test func theContinuingDeviceShowsTheOriginsLaneAndTheArrows() throws {
        let world = try TerminalDevicesWorld()
        let flows = DeviceEndToEndTests()
        let alpha = try world.start("Alpha", kind: "laptop", extra: ["--share-lifecycle"])
        let beta = try world.start("Beta", kind: "phone", width: 130, height: 40, extra: ["--share-lifecycle"])
        try beta.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }
        try flows.readPageThree(on: alpha)
        try beta.waitFor("the offer on Beta", timeout: .seconds(10)) { $0.contains("Reader from Alpha") }
        try beta.sendKeys("C-o")
        _ = try flows.continuation(from: alpha, to: beta, showing: "page 3 of")

        try beta.sendKeys("F9")
        // The whole outcome: Alpha's lane by name with Alpha's own events (shared over the
        // session), Beta's lane, and every arrow of the continuation.
        let expected = [
            "│Alpha", "│Beta (here)", "●payloadRequested", "●payloadSent", "wasContinued", "●continueChosen",
            "beacon #", "payload request", "payload ", "was continued",
        ]
        let screen = try beta.waitFor("Alpha's lane and the arrows on Beta's timeline", timeout: .seconds(15)) {
            screen in
            expected.allSatisfy(screen.contains)
        }
        #expect(screen.contains("Timeline · continuation"))
        // The lanes are in time order: Alpha, which advertised first, on the left.
        let header = try #require(screen.split(separator: "\n").first { $0.contains("│Alpha") })
        #expect(header.range(of: "│Alpha")!.lowerBound < header.range(of: "│Beta")!.lowerBound)

        // The selected event's detail is beside the lanes (DeviceUI's panel, the replay's too).
        // Up to the payload Alpha sent: where it went, the event it paired with on Beta, the
        // continuation's whole identifier and the userInfo it carried.
        var title = Self.panel(of: screen).first ?? ""
        for _ in 0..<40 where title != "payloadSent on Alpha" {
            try beta.sendKeys("Up")
            let next = try beta.waitFor("the event above selected", timeout: .seconds(5)) {
                Self.panel(of: $0).first != title
            }
            title = Self.panel(of: next).first ?? ""
        }
        #expect(title == "payloadSent on Alpha")
        let panel = Self.panel(of: try beta.capture()).joined(separator: " ")
        #expect(panel.contains("→ payload ") && panel.contains("to Beta (payloadReceived)"), "\(panel)")
        #expect(panel.contains(/continuation [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/), "\(panel)")
        #expect(panel.contains("userInfo ("), "\(panel)")

        // Esc closes it; the Reader is still there at page 3.
        try beta.sendKeys("Escape")
        try beta.waitFor("the Reader again on Beta", timeout: .seconds(10)) {
            !$0.contains("Timeline ·") && $0.contains("page 3 of")
        }
    }

    /// The detail panel's lines on a 130-column timeline: right of its rule, inside the box.
    static func panel(of screen: String, width: Int = 130) -> [String] {
        let inside = width - 2
        let rule = 1 + inside - min(66, inside * 2 / 5)
        return screen.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            let cells = Array(line)
            guard cells.count == width, cells[rule] == "│", cells.last == "║" else { return nil }
            return String(cells[(rule + 1)..<(width - 1)]).trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
    }
}
