import DeviceUI
import Foundation
import HandoffCore
import TerminalCells
import Testing

/// Every kind at the sizes people have, the smallest each kind takes, and what collapses.
@Suite("Layouts by kind and size")
struct LayoutTests {
    static let sizes = [
        Size(width: 80, height: 24), Size(width: 100, height: 30), Size(width: 120, height: 40),
        Size(width: 160, height: 45), Size(width: 200, height: 50),
    ]
    static let kinds: [PeerInfo] = [Fixture.phone, Fixture.tablet, Fixture.laptop]

    /// The device an app is open on, with offers and a log, at each common size (snapshots).
    @Test(arguments: kinds)
    func eachKindAtTheCommonSizes(_ info: PeerInfo) {
        for size in Self.sizes {
            var state = Fixture.state(info, size: size)
            state.foregroundApp = "com.example.notes"
            state.recentApps = ["com.example.notes"]
            let offers =
                info.kind == .phone
                ? [Fixture.laptopOffer, Fixture.tabletOffer] : [Fixture.phoneOffer, Fixture.tabletOffer]
            let device = Fixture.device(info, offers: offers, lifecycle: Fixture.events())
            let grid = Fixture.render(state, device)
            assertSnapshot(grid, named: "layout-\(info.kind.rawValue)-\(size.width)x\(size.height)")
            #expect(!grid.text().contains("too small"))
            state.isLogVisible = true
            assertSnapshot(
                Fixture.render(state, device), named: "layout-\(info.kind.rawValue)-log-\(size.width)x\(size.height)")
        }
    }

    /// Down to its minimum a kind draws its frame and the app; one cell less says it is too small.
    @Test(arguments: kinds)
    func eachKindWorksDownToItsMinimum(_ info: PeerInfo) {
        let minimum = ScreenLayout.minimumSize(for: info.kind)
        var state = Fixture.state(info, size: minimum)
        state.foregroundApp = "com.example.notes"
        let text = Fixture.render(state, Fixture.device(info)).text()
        #expect(text.contains("Notes is drawn here"))
        #expect(text.contains("\(info.name) · \(info.kind.rawValue)"))
        let layout = ScreenLayout(kind: info.kind, size: minimum, isLogVisible: false)
        let app = DeviceFrameLayout(kind: info.kind, in: layout.device).appArea
        #expect(
            app.width >= ScreenLayout.minimumAppArea.width && app.height >= ScreenLayout.minimumAppArea.height,
            "\(info.kind) at its minimum gives the app \(app.width)x\(app.height)")
        for smaller in [
            Size(width: minimum.width - 1, height: minimum.height),
            Size(width: minimum.width, height: minimum.height - 1),
        ] {
            state.size = smaller
            #expect(Fixture.render(state, Fixture.device(info)).text().contains("too small"))
        }
    }

    @Test func theIssuesSizesFitTheirKinds() {
        // A phone is usable at 40x20 (and draws its frame at 50x24), a tablet at 60x24, a laptop at 80x24;
        // both halves of an 80x24 or 120x40 demo (tmux's status line takes a row) fit either kind.
        let fits: [(PeerInfo.Kind, Size)] = [
            (.phone, Size(width: 40, height: 20)), (.phone, Size(width: 50, height: 24)),
            (.tablet, Size(width: 60, height: 24)),
            (.laptop, Size(width: 80, height: 24)), (.laptop, Size(width: 39, height: 23)),
            (.phone, Size(width: 39, height: 23)),
            (.laptop, Size(width: 59, height: 39)), (.phone, Size(width: 59, height: 39)),
        ]
        for (kind, size) in fits {
            #expect(
                !ScreenLayout(kind: kind, size: size, isLogVisible: false).isTooSmall,
                "\(kind) at \(size.width)x\(size.height)")
        }
        var state = Fixture.state(size: Size(width: 50, height: 24))
        state.foregroundApp = "com.example.notes"
        assertSnapshot(Fixture.render(state, Fixture.device()), named: "layout-phone-50x24")
    }

    /// Every part is inside the terminal, nothing overlaps, and the sidebar collapses only when
    /// the device would lose its comfortable width.
    @Test func partsNeverOverlapAndStayInside() {
        for kind in [PeerInfo.Kind.phone, .tablet, .laptop] {
            let minimum = ScreenLayout.minimumSize(for: kind)
            for width in stride(from: minimum.width, through: 220, by: 3) {
                for height in stride(from: minimum.height, through: 70, by: 4) {
                    for logVisible in [false, true] {
                        let size = Size(width: width, height: height)
                        let layout = ScreenLayout(kind: kind, size: size, isLogVisible: logVisible)
                        let bounds = Rect(origin: .zero, size: size)
                        let parts = [layout.device, layout.nearby, layout.nearbyBadge, layout.log, layout.footer]
                            .compactMap { $0 }.filter { !$0.isEmpty }
                        for part in parts {
                            #expect(bounds.intersection(part) == part, "\(kind) \(width)x\(height): \(part) is outside")
                        }
                        for (i, a) in parts.enumerated() {
                            for b in parts[(i + 1)...] {
                                #expect(
                                    a.intersection(b).isEmpty,
                                    "\(kind) \(width)x\(height) log \(logVisible): \(a) overlaps \(b)")
                            }
                        }
                        if layout.showsDevice {
                            #expect(
                                layout.device.height >= minimum.height - 2,
                                "\(kind) \(width)x\(height): the device is \(layout.device.height) rows")
                        }
                        if let nearby = layout.nearby {
                            #expect(layout.device.width >= ScreenLayout.comfortableDeviceWidth(for: kind))
                            #expect(nearby.width >= 26)
                        } else {
                            #expect(layout.nearbyBadge?.height == 1)
                        }
                    }
                }
            }
        }
    }

    @Test func aNarrowPhoneHasABadgeAndTabShowsTheSidebarOverTheScreen() {
        var state = Fixture.state(size: Size(width: 40, height: 23))
        state.foregroundApp = "com.example.notes"
        let device = Fixture.device()
        let collapsed = Fixture.render(state, device).text()
        #expect(collapsed.contains("◉ Nearby 3 · ↩ ✎ Laptop"))
        #expect(collapsed.contains("Tab"))
        _ = state.update(.keyPressed(.tab), device: device)
        #expect(state.focus == .nearby)
        let shown = Fixture.render(state, device)
        assertSnapshot(shown, named: "layout-phone-nearby-over-40x23")
        #expect(shown.text().contains("✓ continuable: Enter"))
        _ = state.update(.keyPressed(.escape), device: device)
        #expect(state.focus == .main)
        #expect(!Fixture.render(state, device).text().contains("✓ continuable: Enter"))
        // With room, the sidebar comes back as a column of its own.
        state.size = Size(width: 80, height: 24)
        #expect(Fixture.render(state, device).text().contains("Nearby · 3"))
    }

    @Test func theLogCoversTheDeviceWhenThereIsNoRoomForBoth() {
        var state = Fixture.state(Fixture.laptop, size: Size(width: 40, height: 23))
        state.isLogVisible = true
        state.foregroundApp = "com.example.notes"
        let grid = Fixture.render(
            state, Fixture.device(Fixture.laptop, offers: [Fixture.phoneOffer], lifecycle: Fixture.events()))
        assertSnapshot(grid, named: "layout-laptop-log-covering-40x23")
        #expect(grid.text().contains("Lifecycle log"))
        #expect(!grid.text().contains("Notes is drawn here"))
        #expect(state.layout.logPlacement == .covering)
        // An alert still shows over the log.
        state.overlay = .alert(ContinuationAlert(code: .connectionUnavailable, reason: "x", peer: "Phone"))
        #expect(Fixture.render(state, Fixture.device(Fixture.laptop)).text().contains("Error 4609"))
    }

    /// "Too small" is always one whole line: the longest wording that fits, never wrapped.
    @Test func tooSmallIsOneLineAtEveryWidth() {
        for kind in [PeerInfo.Kind.phone, .tablet, .laptop] {
            for width in 1...90 {
                for height in [1, 2, 3, 10] {
                    let size = Size(width: width, height: height)
                    guard ScreenLayout(kind: kind, size: size, isLogVisible: false).isTooSmall else { continue }
                    let info = PeerInfo(id: "x", name: "X", kind: kind)
                    let lines = Fixture.render(Fixture.state(info, size: size), Fixture.device(info)).text()
                        .split(separator: "\n", omittingEmptySubsequences: true)
                        .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                    #expect(lines.count <= 2, "\(kind) \(width)x\(height): \(lines)")
                    let first = lines.first ?? ""
                    #expect(
                        first.hasPrefix("terminal too small") || first.hasPrefix("too small") || first.hasPrefix("need")
                            || first == "small" || first.count <= 5, "\(kind) \(width)x\(height): \(first)")
                }
            }
        }
        let wide = Fixture.render(
            Fixture.state(Fixture.laptop, size: Size(width: 79, height: 12)), Fixture.device(Fixture.laptop)
        ).text()
        #expect(wide.contains("terminal too small for a laptop: need 36x19, have 79x12"))
    }
}
