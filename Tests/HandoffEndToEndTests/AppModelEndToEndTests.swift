import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Real terminal devices (`handoff device` in private tmux servers) and the app models: a phone's
/// Reader with scenes (the phone's default), quit from the app switcher, continues a laptop's
/// document on a cold launch.
@Suite(
    "App models end to end", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct AppModelEndToEndTests {
    /// Starts `handoff device` named `name` in a new tmux server of `world` and waits for its
    /// whole home screen (its last row ends with the key hints' "Ctrl-Q quit").
    func start(
        _ name: String, in world: TerminalDevicesWorld, kind: String, width: Int, height: Int,
        extra: [String] = []
    ) throws -> TmuxSession {
        let command = try world.deviceCommand(name, kind: kind, extra: extra) + "; exec sleep 120"
        let session = try #require(try TmuxSession(width: width, height: height, command: command))
        world.sessions.append(session)
        try session.waitFor("\(name)'s home screen", timeout: .seconds(30)) { screen in
            screen.contains("\(name) · \(kind)") && screen.contains("Reader")
                && screen.split(separator: "\n").last { !$0.allSatisfy(\.isWhitespace) }?.hasSuffix("Ctrl-Q quit")
                    == true
        }
        return session
    }

    @Test func aSceneReaderQuitFromTheSwitcherContinuesALaptopsDocumentOnAColdLaunch() throws {
        let world = try TerminalDevicesWorld()
        let laptop = try start("Alpha", in: world, kind: "laptop", width: 100, height: 30, extra: ["--apps", "reader"])
        let phone = try start("Beta", in: world, kind: "phone", width: 80, height: 24, extra: ["--apps", "reader"])
        try phone.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }

        // The phone's Reader runs with scenes (the phone's default): opening it connects a scene.
        try phone.sendKeys("Enter")
        try phone.waitFor("the Reader's list on Beta") {
            $0.contains("A Short Guide to Handoff") && $0.contains("In the cloud")
        }
        try world.waitForLog(of: "Beta", containing: ["lifecycle sceneWillConnect Reader-1 of com.handoffsim.reader"])

        // Quit it from the app switcher: F4, choose the Reader's card (the first), x.
        try phone.sendKeys("F4")
        try phone.waitFor("the app switcher") { $0.contains("App Switcher") && $0.contains("x quit app") }
        try phone.sendKeys("Up")
        try phone.waitFor("the Reader's card chosen") { $0.contains("▸ ▤ Reader") }
        try phone.sendKeys("x")
        try phone.waitFor("the Reader quit") { $0.contains("Quit Reader") && !$0.contains("▤ Reader —") }
        try world.waitForLog(of: "Beta", containing: ["lifecycle applicationTerminated com.handoffsim.reader quit"])
        try phone.sendKeys("Escape")

        // The laptop reads page 3 of the first document.
        try laptop.sendKeys("Enter")
        try laptop.waitFor("the document list on Alpha") {
            $0.contains("A Short Guide to Handoff") && $0.contains("In the cloud")
        }
        try laptop.sendKeys("Enter")
        try laptop.waitFor("page 1") { $0.contains("page 1 of") }
        try laptop.sendKeys("PageDown")
        try laptop.waitFor("page 2") { $0.contains("page 2 of") }
        try laptop.sendKeys("PageDown")
        try laptop.waitFor("page 3") { $0.contains("page 3 of") }

        // The phone continues it: a cold launch, a new scene told the type only, then the page.
        try phone.waitFor("the offer on Beta", timeout: .seconds(10)) { $0.contains("Reader from Alpha") }
        try phone.sendKeys("C-o")
        try TmuxSession.waitUntilSeen(
            [
                .init("page 3 and the notice on Beta", on: phone) {
                    $0.contains("page 3 of") && $0.contains("Continued from Alpha")
                },
                .init("Alpha saying it was continued", on: laptop) { $0.contains("Continued on Beta") },
            ], timeout: .seconds(15))
        let log = try world.waitForLog(
            of: "Beta",
            containing: [
                "lifecycle applicationLaunched com.handoffsim.reader launched (cold: it was not running)",
                "lifecycle sceneWillConnect Reader-2 of com.handoffsim.reader · handoffUserActivityType com.handoffsim.reader.document",
                "lifecycle sceneContinue Reader-2 “Documents” of com.handoffsim.reader · com.handoffsim.reader.document",
                "lifecycle continued",
            ])
        let order = [
            "lifecycle applicationTerminated", "lifecycle applicationLaunched", "lifecycle sceneWillConnect Reader-2",
            "lifecycle sceneWillContinue", "lifecycle sceneContinue", "lifecycle continued",
        ]
        let positions = order.compactMap { log.range(of: $0)?.lowerBound }
        #expect(positions.count == order.count && positions == positions.sorted(), "in Apple's order")
        #expect(!log.contains("continueCalled"), "the app delegate is not asked with scenes")
    }
}
