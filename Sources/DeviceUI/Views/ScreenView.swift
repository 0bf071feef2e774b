import Foundation
import HandoffCore
import TerminalCells

/// Draws the whole screen for a state and a picture of the device (the Elm view): pure, except
/// that the app in front draws itself through `drawApp`.
package struct ScreenView {
    package let state: ScreenState
    package let device: DeviceSnapshot

    package init(state: ScreenState, device: DeviceSnapshot) {
        self.state = state
        self.device = device
    }

    /// Draws everything into a grid of `state.size`. `drawApp` draws the app with this bundle
    /// identifier into the given area of a grid of its own (so it can never draw over the chrome).
    package func render(
        drawApp: (_ bundleIdentifier: String, _ grid: inout Grid, _ area: Rect) -> Void = { _, _, _ in }
    ) -> Grid {
        var grid = Grid(size: state.size)
        let layout = state.layout
        if layout.isTooSmall {
            drawTooSmall(into: &grid)
            return grid
        }
        if layout.showsDevice {
            drawDevice(
                into: &grid, frame: DeviceFrameLayout(kind: state.device.kind, in: layout.device), drawApp: drawApp)
        }
        if let nearby = layout.nearby { drawNearby(into: &grid, area: nearby) }
        if let badge = layout.nearbyBadge { drawNearbyBadge(into: &grid, area: badge) }
        if let log = layout.log {
            drawLog(into: &grid, area: log)
            // A failure must be seen even while the log covers the device.
            if !layout.showsDevice {
                switch state.overlay {
                case .alert(let alert): drawAlert(into: &grid, area: log, alert: alert)
                case .explanation(let explanation): drawExplanation(into: &grid, area: log, explanation: explanation)
                default: break
                }
            }
        }
        if layout.nearby == nil, state.focus == .nearby, !state.isLocked, state.overlay == nil {
            // The collapsed sidebar, shown over the screen while it has the focus.
            grid.fill(layout.nearbyOverlay, style: Style(.normal))
            drawNearby(into: &grid, area: layout.nearbyOverlay)
        }
        drawFooter(into: &grid, area: layout.footer, isNearbyCollapsed: layout.nearby == nil)
        if case .timeline(let cursor) = state.overlay {
            drawTimeline(into: &grid, cursor: cursor)
        }
        if case .inspector(let inspector) = state.overlay {
            drawInspector(into: &grid, inspector: inspector)
        }
        if case .help(let scroll) = state.overlay {
            drawHelp(into: &grid, scroll: scroll)
        }
        return grid
    }

    /// Where the clock, ages and spinners next change (or a notice goes away), after `state.now`.
    package var nextChange: Date {
        let now = state.now
        var dates = [
            Date(timeIntervalSinceReferenceDate: ((now.timeIntervalSinceReferenceDate / 60).rounded(.down) + 1) * 60)
        ]
        if let notice = state.notice { dates.append(notice.expires) }
        for row in state.nearbyRows(device: device) {
            dates.append(Format.nextAgeChange(since: row.lastSeen, now: now))
            if let offer = row.offer { dates.append(Format.nextAgeChange(since: offer.firstSeen, now: now)) }
        }
        if device.pending != nil { dates.append(now.addingTimeInterval(LoadingPanel.frameInterval)) }
        return dates.min() ?? now.addingTimeInterval(60)
    }

    // MARK: Too small

    func drawTooSmall(into grid: inout Grid) {
        let lines = Self.tooSmallLines(kind: device.info.kind, size: state.size)
        let area = grid.bounds.centered(Size(width: state.size.width, height: lines.count))
        for (index, line) in lines.enumerated() {
            grid.write(line, in: area, row: index, style: Style(index == 0 ? .warning : .dim), alignment: .center)
        }
    }

    /// What a terminal below the kind's minimum says: each line whole on one row, the longest
    /// wording that fits (never wrapped), and how to go on when there is a row for it.
    static func tooSmallLines(kind: PeerInfo.Kind, size: Size) -> [String] {
        let need = ScreenLayout.minimumSize(for: kind)
        let needed = "\(need.width)x\(need.height)"
        let have = "\(size.width)x\(size.height)"
        let wordings = [
            "terminal too small for a \(kind.rawValue): need \(needed), have \(have)",
            "too small: need \(needed), have \(have)",
            "need \(needed), have \(have)",
            "need \(needed)",
            "too small",
        ]
        let width = max(1, size.width)
        let first = wordings.first { TextWidth.of($0) <= width } ?? TextWidth.truncate("small", to: width)
        var lines = [first]
        let hints = ["Enlarge the window · Ctrl-Q quits", "Ctrl-Q quits"]
        if size.height >= 3, let hint = hints.first(where: { TextWidth.of($0) <= width }) {
            lines += ["", hint]
        }
        return lines
    }

    // MARK: Footer

    private var isShowingHelp: Bool {
        if case .help = state.overlay { true } else { false }
    }

    func drawFooter(into grid: inout Grid, area: Rect, isNearbyCollapsed: Bool) {
        grid.fill(area, style: Style(.normal))
        var hints: [(keys: String, action: String)] = []
        let switcher = state.hasAppSwitcher ? "apps" : "dock"
        switch state.overlay {
        case .help:
            hints = [("↑↓ PgUp PgDn", "scroll"), ("Esc", "close help")]
        case .alert, .explanation:
            hints = [("Enter", "OK")]
        case .inspector:
            hints = [("←→", "tab"), ("↑↓", "scroll"), ("Esc", "close")]
        case .timeline:
            hints = [("↑↓", "event"), ("←→", "continuation"), ("Esc", "close")]
        case .faults:
            hints = [("↑↓", "choose"), ("Enter", "arm once"), ("s", "keep armed"), ("x", "disarm"), ("Esc", "close")]
        case .switcher:
            hints = [
                ("←→", "choose"), ("Enter", state.hasAppSwitcher ? "switch" : "open"), ("x", "quit app"),
                ("Esc", "close"),
            ]
        case nil:
            if state.isLocked {
                if state.promptsOnLockScreen, device.featuredOffer != nil {
                    hints = [("Enter", "continue"), ("Space", "unlock")]
                } else {
                    hints = [("Enter", "unlock")]
                }
            } else {
                if device.pausedAt != nil { hints.append(("F7", "go on")) }
                if device.pending != nil { hints.append(("Esc", "cancel continuation")) }
                switch state.focus {
                case .nearby:
                    hints += [("↑↓", "choose"), ("Enter", "continue"), ("Esc", "back")]
                case .log:
                    hints += [("↑↓ PgUp PgDn", "scroll"), ("End", "follow"), ("Esc", "back")]
                case .main:
                    if let app = device.app(state.foregroundApp) {
                        let appHints = app.keyHints.prefix(3).map { (keys: $0.keys, action: $0.action) }
                        hints += appHints
                        // The app's own Esc (e.g. closing a document) comes first; home is next.
                        if !appHints.contains(where: { $0.keys == "Esc" }) { hints.append(("Esc", "home")) }
                    } else {
                        hints += [("←→", "choose"), ("Enter", "open"), ("q", "quit")]
                    }
                }
                if device.featuredOffer != nil { hints.append(("Ctrl-O", "continue")) }
                let tab = isNearbyCollapsed && state.focus == .main ? "nearby" : "focus"
                hints += [("Tab", tab), ("F4", switcher), ("F3", "lock"), ("F2", "log")]
            }
        }
        if !isShowingHelp { hints.append(("F1", "help")) }
        hints.append(("Ctrl-Q", "quit"))
        // Keep the always-useful ones: help and quit go first when room is short.
        var pieces = hintPieces(hints, width: area.width - 1)
        if !pieces.contains(where: { $0.0 == "Ctrl-Q" }) {
            let tail: [(keys: String, action: String)] =
                isShowingHelp ? [("Ctrl-Q", "quit")] : [("F1", "help"), ("Ctrl-Q", "quit")]
            let tailWidth = TextWidth.of(tail.map { "\($0.keys) \($0.action)" }.joined(separator: "  ")) + 2
            pieces = hintPieces(Array(hints.dropLast(tail.count)), width: area.width - 1 - tailWidth)
            pieces.append(("  ", Style(.dim)))
            pieces += hintPieces(tail, width: tailWidth)
        }
        grid.write(pieces, in: area, column: 1)
    }
}
