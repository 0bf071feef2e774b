import Foundation
import HandoffCore
import TerminalCells

extension ScreenView {
    /// The device: its frame and bars (which differ by kind), and its screen.
    func drawDevice(
        into grid: inout Grid, frame: DeviceFrameLayout,
        drawApp: (String, inout Grid, Rect) -> Void
    ) {
        let info = device.info
        let lines: Grid.Lines = info.kind == .laptop ? .light : .rounded
        grid.box(
            frame.frame, style: Style(.frame), title: "\(info.name) · \(info.kind.rawValue) · \(state.account)",
            titleStyle: Style(.title), lines: lines)
        if let base = frame.base {
            // The laptop's keyboard deck, a little wider than its screen.
            grid.put(String(repeating: "▀", count: base.width), at: base.origin, style: Style(.frame), clip: base)
        }
        drawStatusBar(into: &grid, area: frame.statusBar)
        drawScreen(into: &grid, frame: frame, drawApp: drawApp)
        drawBottomBar(into: &grid, area: frame.bottomBar)
    }

    // MARK: Status bar

    func drawStatusBar(into grid: inout Grid, area: Rect) {
        grid.fill(area, style: Style(.statusBar))
        let now = state.now
        let zone = state.timeZone
        let network = state.network.label
        let nearby = "\(state.nearbyRows(device: device).count) nearby"
        let lock = state.isLocked ? "locked" : "unlocked"
        var left: String
        var right: [String]
        if device.info.kind == .laptop {
            // A menu bar: the app in front on the left, the clock on the right.
            left = state.isLocked ? "" : (device.app(state.foregroundApp)?.name ?? "Desktop")
            right = [network, nearby, lock, Format.shortDayAndClock(now, zone)]
        } else {
            left = Format.clock(now, zone)
            right = [network, nearby, lock]
        }
        // What the lab has armed, first: a demo-giver must see it.
        if !device.armedFaults.isEmpty {
            right.insert("⚠ " + device.armedFaults.keys.map(\.rawValue).sorted().joined(separator: ","), at: 0)
        }
        if device.isStepping { right.insert(device.pausedAt == nil ? "⏸ step" : "⏸ paused", at: 0) }
        // Drop the least important parts when the bar is short: nearby first, then the lock state.
        var text = right.joined(separator: " · ")
        let room = area.width - 2 - TextWidth.of(left) - 2
        if TextWidth.of(text) > room, let index = right.firstIndex(of: nearby) {
            right.remove(at: index)
            text = right.joined(separator: " · ")
        }
        if TextWidth.of(text) > room, device.info.kind == .laptop {
            // The menu bar's clock without the day.
            right[right.count - 1] = Format.clock(now, zone)
            text = right.joined(separator: " · ")
        }
        if TextWidth.of(text) > room, let index = right.firstIndex(of: lock) {
            right.remove(at: index)
            text = right.joined(separator: " · ")
        }
        if TextWidth.of(text) > room { text = TextWidth.truncate(text, to: max(0, room)) }
        left = TextWidth.truncate(left, to: max(0, area.width - 2))
        grid.write(left, in: area, column: 1, style: Style(.statusBar, bold: true))
        grid.write(text + " ", in: area, style: Style(.statusBar), alignment: .trailing)
    }

    // MARK: The screen

    func drawScreen(into grid: inout Grid, frame: DeviceFrameLayout, drawApp: (String, inout Grid, Rect) -> Void) {
        let screen = frame.screen
        if state.isLocked {
            if device.info.kind == .laptop {
                drawLoginWindow(into: &grid, area: screen)
            } else {
                drawLockScreen(into: &grid, area: screen)
            }
        } else if let app = device.app(state.foregroundApp) {
            drawAppBar(into: &grid, area: frame.appBar, app: app)
            var appGrid = Grid(size: frame.appArea.size)
            drawApp(app.bundleIdentifier, &appGrid, Rect(origin: .zero, size: frame.appArea.size))
            grid.paste(appGrid, at: frame.appArea.origin)
        } else {
            drawHome(into: &grid, area: screen)
        }
        // The system's progress box, unless the app said it shows its own (willContinue returned
        // true: Apple's system then shows nothing). Step mode's pause is the lab's, drawn anyway.
        if let pending = device.pending, !state.isLocked, !pending.appShowsProgress || device.pausedAt != nil {
            drawLoading(into: &grid, area: frame.appArea, pending: pending)
        } else if let phase = device.pausedAt, !state.isLocked {
            drawStepPanel(into: &grid, area: screen, phase: phase)
        }
        if let notice = state.notice, notice.expires > state.now {
            grid.fill(frame.appBar, style: Style(notice.role))
            let mark = notice.role == .success ? "✓ " : notice.role == .warning ? "! " : ""
            grid.write(
                notice.wording(width: frame.appBar.width, mark: mark), in: frame.appBar, style: Style(notice.role),
                alignment: .center)
        }
        if case .switcher(let selection) = state.overlay, state.hasAppSwitcher, !state.isLocked {
            drawSwitcher(into: &grid, area: screen, selection: selection)
        }
        switch state.overlay {
        case .faults(let selection): drawFaults(into: &grid, area: screen, selection: selection)
        case .alert(let alert): drawAlert(into: &grid, area: screen, alert: alert)
        case .explanation(let explanation): drawExplanation(into: &grid, area: screen, explanation: explanation)
        default: break
        }
    }

    func drawAppBar(into grid: inout Grid, area: Rect, app: DeviceSnapshot.App) {
        let focused = state.focus == .main
        let style = Style(focused ? .title : .dim)
        let title = Self.title(app.title, without: app.name)
        var text = "\(app.glyph) \(app.name)"
        if device.info.kind == .laptop, !title.isEmpty {
            // The menu bar already names the app: the window's title bar shows its title.
            text = "\(app.glyph) \(title)"
        } else if !title.isEmpty {
            text += " — \(title)"
        }
        grid.write(text, in: area.inset(right: 1), column: 1, style: style)
    }

    /// An app's title without its own name in front ("Map · Lisbon" in the Map is "Lisbon"),
    /// so the bar never says the name twice.
    static func title(_ title: String, without name: String) -> String {
        let trimmed = title.trimmingCharacters(in: .whitespaces)
        if trimmed == name { return "" }
        for separator in [" · ", " — ", " - ", ": "] where trimmed.hasPrefix(name + separator) {
            return String(trimmed.dropFirst(name.count + separator.count))
        }
        return trimmed
    }

    // MARK: Bottom bar

    func drawBottomBar(into grid: inout Grid, area: Rect) {
        switch device.info.kind {
        case .phone:
            if !state.isLocked, let offer = device.featuredOffer {
                // The Handoff badge where the home indicator is.
                let text = " ↩ \(targetLabel(for: offer)) from \(offer.peer.name) · Ctrl-O "
                grid.write(text, in: area, style: Style(.badge), alignment: .center)
            } else {
                let width = min(12, area.width)
                grid.write(String(repeating: "━", count: width), in: area, style: Style(.dim), alignment: .center)
            }
        case .tablet, .laptop:
            if !state.isLocked { drawDock(into: &grid, area: area) }
        }
    }

    /// The dock: apps, and the Handoff item (at the right end on a tablet, as iPadOS shows it
    /// among the recent apps; at the left end on a laptop, as macOS does).
    func drawDock(into grid: inout Grid, area: Rect) {
        let items = state.switcherItems(device: device)
        var selected: Int?
        if case .switcher(let selection) = state.overlay, !state.hasAppSwitcher { selected = selection }
        var appPieces: [(String, Style)] = []
        var handoffPiece: (String, Style)?
        let apps: [DeviceSnapshot.App] = device.apps.filter(\.canOpen)
        let dockItems: [SwitcherItem] =
            state.hasAppSwitcher
            ? apps.map { .app(bundleIdentifier: $0.bundleIdentifier) }
                + (device.featuredOffer.map { [.handoff($0)] } ?? [])
            : items
        for item in dockItems {
            let isSelected = selected.map { items.indices.contains($0) && items[$0] == item } ?? false
            switch item {
            case .handoff(let offer):
                let text =
                    isUndecidedWebPage(offer) ? " ↩ \(offer.peer.name) " : " ↩ \(glyph(for: offer)) \(offer.peer.name) "
                handoffPiece = (text, isSelected ? Style(.selection) : Style(.badge))
            case .app(let bundle):
                guard let app = device.app(bundle) else { continue }
                let running = state.recentApps.contains(bundle) ? "•" : " "
                let front = bundle == state.foregroundApp
                let style = isSelected ? Style(.selection) : Style(front ? .accent : .normal)
                appPieces.append((" \(app.glyph) \(app.name)\(running)", style))
            case .home:
                continue
            }
        }
        var pieces: [(String, Style)] = []
        if state.hasAppSwitcher {
            pieces = appPieces
            if let handoffPiece { pieces += [(" │", Style(.frame)), handoffPiece] }
        } else {
            if let handoffPiece { pieces = [handoffPiece, ("│", Style(.frame))] }
            pieces += appPieces
        }
        let width = pieces.reduce(0) { $0 + TextWidth.of($1.0) }
        let column = max(0, (area.width - width) / 2)
        grid.write(pieces, in: area, column: column)
    }

    // MARK: Names and glyphs for offers

    /// The glyph of the app that would continue `offer`, "↩" for a web page whose app is not
    /// known yet, "?" when nothing here can.
    func glyph(for offer: DeviceSnapshot.OfferInfo) -> Character {
        if isUndecidedWebPage(offer) { return "↩" }
        if let app = device.app(offer.targetBundleIdentifier) { return app.glyph }
        return offer.route.isContinuable ? "↩" : "?"
    }

    /// The name of the app that would continue `offer`; "web page" for a browsing-web offer
    /// while an app here has an approved domain (its host, known only once the payload arrives,
    /// decides between that app and the browser).
    func targetName(for offer: DeviceSnapshot.OfferInfo) -> String {
        if isUndecidedWebPage(offer) { return "web page" }
        return switch offer.route {
        case .app(let bundle, _), .browser(let bundle, _): device.app(bundle)?.name ?? bundle
        case .web(let browser): browser.flatMap { device.app($0)?.name } ?? "a web page"
        case .unavailable: "unknown activity"
        }
    }

    /// The glyph and name of what would continue `offer` ("✎ Notes"), or "web page" alone when
    /// the page's app is not known yet.
    func targetLabel(for offer: DeviceSnapshot.OfferInfo) -> String {
        isUndecidedWebPage(offer) ? "web page" : "\(glyph(for: offer)) \(targetName(for: offer))"
    }

    /// A browsing-web offer that an app here may take instead of the browser: some app's domain
    /// is approved, so only the page's host (in the payload) says which.
    func isUndecidedWebPage(_ offer: DeviceSnapshot.OfferInfo) -> Bool {
        guard case .web = offer.route else { return false }
        return device.siteAssociations.contains(where: \.isApproved)
    }
}
