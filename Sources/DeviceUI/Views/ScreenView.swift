import Foundation
import HandoffCore
import TerminalCells

/// Draws the whole screen for a state and a picture of the device (the Elm view): pure, except
/// that the app in front draws itself through `drawApp`.
public struct ScreenView {
    public let state: ScreenState
    public let device: DeviceSnapshot

    public init(state: ScreenState, device: DeviceSnapshot) {
        self.state = state
        self.device = device
    }

    /// Draws everything into a grid of `state.size`. `drawApp` draws the app with this bundle
    /// identifier into the given area of a grid of its own (so it can never draw over the chrome).
    public func render(drawApp: (_ bundleIdentifier: String, _ grid: inout Grid, _ area: Rect) -> Void = { _, _, _ in }) -> Grid {
        var grid = Grid(size: state.size)
        let layout = state.layout
        if layout.isTooSmall {
            drawTooSmall(into: &grid)
            return grid
        }
        drawDevice(into: &grid, frame: state.frameLayout, drawApp: drawApp)
        drawNearby(into: &grid, area: layout.nearby)
        if let log = layout.log { drawLog(into: &grid, area: log) }
        drawFooter(into: &grid, area: layout.footer)
        if case .help(let scroll) = state.overlay {
            drawHelp(into: &grid, scroll: scroll)
        }
        return grid
    }

    /// Where the clock, ages and spinners next change (or a notice goes away), after `state.now`.
    public var nextChange: Date {
        let now = state.now
        var dates = [Date(timeIntervalSinceReferenceDate: ((now.timeIntervalSinceReferenceDate / 60).rounded(.down) + 1) * 60)]
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
        let need = ScreenLayout.minimumSize
        let message = "terminal too small (need \(need.width)x\(need.height), have \(state.size.width)x\(state.size.height))"
        let lines = TextWidth.wrap(message, width: max(1, state.size.width)) + [""] + TextWidth.wrap("Enlarge the window · Ctrl-Q quits", width: max(1, state.size.width))
        let area = grid.bounds.centered(Size(width: state.size.width, height: lines.count))
        for (index, line) in lines.enumerated() {
            grid.write(line, in: area, row: index, style: Style(index < lines.count - 2 ? .warning : .dim), alignment: .center)
        }
    }

    // MARK: Footer

    private var isShowingHelp: Bool {
        if case .help = state.overlay { true } else { false }
    }

    func drawFooter(into grid: inout Grid, area: Rect) {
        grid.fill(area, style: Style(.normal))
        var hints: [(keys: String, action: String)] = []
        let switcher = state.hasAppSwitcher ? "apps" : "dock"
        switch state.overlay {
        case .help:
            hints = [("↑↓ PgUp PgDn", "scroll"), ("Esc", "close help")]
        case .alert:
            hints = [("Enter", "OK")]
        case .switcher:
            hints = [("←→", "choose"), ("Enter", state.hasAppSwitcher ? "switch" : "open"), ("Esc", "close")]
        case nil:
            if state.isLocked {
                if state.promptsOnLockScreen, device.featuredOffer != nil {
                    hints = [("Enter", "continue"), ("Space", "unlock")]
                } else {
                    hints = [("Enter", "unlock")]
                }
            } else {
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
                hints += [("Tab", "focus"), ("F4", switcher), ("F3", "lock"), ("F2", "log")]
            }
        }
        if !isShowingHelp { hints.append(("F1", "help")) }
        hints.append(("Ctrl-Q", "quit"))
        // Keep the always-useful ones: help and quit go first when room is short.
        var pieces = hintPieces(hints, width: area.width - 1)
        if !pieces.contains(where: { $0.0 == "Ctrl-Q" }) {
            let tail: [(keys: String, action: String)] = isShowingHelp ? [("Ctrl-Q", "quit")] : [("F1", "help"), ("Ctrl-Q", "quit")]
            let tailWidth = TextWidth.of(tail.map { "\($0.keys) \($0.action)" }.joined(separator: "  ")) + 2
            pieces = hintPieces(Array(hints.dropLast(tail.count)), width: area.width - 1 - tailWidth)
            pieces.append(("  ", Style(.dim)))
            pieces += hintPieces(tail, width: tailWidth)
        }
        grid.write(pieces, in: area, column: 1)
    }
}
