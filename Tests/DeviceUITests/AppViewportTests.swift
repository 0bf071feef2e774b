import DeviceAppKit
import DeviceUI
import Foundation
import HandoffCore
import HandoffTestSupport
import TerminalCells
import Testing

/// An app that records the sizes it is told and the areas it is drawn in.
final class ViewportRecorder: TerminalApp, ApplicationDelegate {
    let manifest: AppManifest
    let glyph: Character = "▦"
    let title = "Recorder"
    let keyHints: [KeyHint] = []
    private(set) var told: [Size] = []
    private(set) var drawnIn: [Size] = []

    init(bundleIdentifier: String = "com.example.recorder") {
        manifest = AppManifest(
            bundleIdentifier: bundleIdentifier, teamIdentifier: "ABCDE12345", displayName: "Recorder",
            activityTypes: ["\(bundleIdentifier).viewing"])
    }

    func launch(application: Application, environment: AppEnvironment) {}
    func viewportChanged(to size: Size) { told.append(size) }
    func render(into grid: inout Grid, area: Rect) { drawnIn.append(area.size) }
    func handle(_ key: Key) -> Bool { false }
}

@Suite("Apps are told their area's size")
struct AppViewportTests {
    let hood = Neighbourhood()

    func screen(_ apps: [any TerminalApp], kind: PeerInfo.Kind = .phone) -> DeviceScreen {
        let device = hood.addDevice("Phone", kind: kind)
        return DeviceScreen(
            device: device, account: "demo", apps: apps,
            environment: AppEnvironment(
                deviceName: "Phone", cloudFolder: nil,
                localFolder: URL(fileURLWithPath: "/nonexistent")),
            timeZone: Fixture.gmt, now: hood.clock.now)
    }

    @Test func everyAppIsToldAtLaunchAndOnEveryChangeOnly() {
        let front = ViewportRecorder()
        let back = ViewportRecorder(bundleIdentifier: "com.example.other")
        let screen = screen([front, back])
        let initial = screen.state.frameLayout.appArea.size
        #expect(front.told == [initial], "told once, at launch, before any frame")
        #expect(back.told == [initial])

        screen.handle(.character("1"))
        _ = screen.render(size: screen.state.size, now: hood.clock.now)
        #expect(front.told == [initial], "the same size is not told again")
        #expect(front.drawnIn == [initial], "drawn in an area of the size it was told")

        // A resize: told before the frame is drawn, in the background too.
        _ = screen.render(size: Size(width: 100, height: 30), now: hood.clock.now)
        let resized = screen.state.frameLayout.appArea.size
        #expect(resized != initial)
        #expect(front.told == [initial, resized])
        #expect(back.told == [initial, resized])
        #expect(front.drawnIn.last == resized)
        #expect(back.drawnIn.isEmpty, "a background app is told, not drawn")
    }

    @Test func theLogPaneTakingRoomIsAChangeOfSize() {
        let app = ViewportRecorder()
        let screen = screen([app])
        screen.handle(.character("1"))
        _ = screen.render(size: Size(width: 80, height: 50), now: hood.clock.now)
        let alone = screen.state.frameLayout.appArea.size
        screen.handle(.function(2))
        #expect(screen.state.layout.logPlacement == .below)
        let withLog = screen.state.frameLayout.appArea.size
        #expect(withLog.height < alone.height)
        #expect(app.told.suffix(2) == [alone, withLog], "told when the key is handled, with no frame drawn")
        screen.handle(.function(2))
        #expect(app.told.last == alone)
    }

    @Test func whileTheDeviceIsNotDrawnAppsKeepTheirSize() {
        let app = ViewportRecorder()
        let screen = screen([app])
        _ = screen.render(size: Size(width: 80, height: 24), now: hood.clock.now)
        let shown = app.told
        _ = screen.render(size: Size(width: 20, height: 10), now: hood.clock.now)
        #expect(screen.state.layout.isTooSmall)
        screen.handle(.function(2))
        _ = screen.render(size: Size(width: 80, height: 24), now: hood.clock.now)
        #expect(screen.state.layout.logPlacement == .covering)
        #expect(app.told == shown, "too small, then covered by the log: nothing to tell")
    }

    @Test func aCompositeAppTellsItsPartsTheAreaBelowItsBar() throws {
        let first = ViewportRecorder()
        let second = ViewportRecorder(bundleIdentifier: "com.example.other")
        let studio = try CompositeApp(
            bundleIdentifier: "com.example.studio", displayName: "Studio", glyph: "◎",
            parts: [first, second])
        let screen = screen([studio])
        let area = screen.state.frameLayout.appArea.size
        let below = Size(width: area.width, height: area.height - 1)
        #expect(first.told == [below])
        #expect(second.told == [below], "the part not shown is told too")
        screen.handle(.character("1"))
        _ = screen.render(size: screen.state.size, now: hood.clock.now)
        #expect(first.drawnIn == [below])
    }
}
