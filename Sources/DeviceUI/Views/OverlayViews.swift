import Foundation
import HandoffCore
import TerminalCells

/// The "loading" panel of a continuation in progress.
enum LoadingPanel {
    static let spinner: [Character] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    /// How often the spinner moves.
    static let frameInterval: TimeInterval = 0.1

    static func spinnerFrame(at now: Date, since start: Date) -> Character {
        let step = Int((max(0, now.timeIntervalSince(start)) / frameInterval).rounded(.down))
        return spinner[step % spinner.count]
    }
}

extension ScreenView {
    /// The continuing app shows that it is loading, with the key to cancel. Paused in step mode,
    /// it says what comes next, and its clock stands still: the time left before the fetch gives
    /// up is the time left when the device paused, as the deadline moves by the time paused.
    func drawLoading(into grid: inout Grid, area: Rect, pending: DeviceSnapshot.PendingInfo) {
        let width = min(area.width, 40)
        let textWidth = max(1, width - 4)
        let app = device.app(pending.bundleIdentifier)
        let name = app.map { "\($0.glyph) \($0.name)" } ?? "↩ web page"
        let paused = device.pausedAt
        // While paused, time stands still for the continuation.
        let now = paused != nil ? (device.pausedSince ?? state.now) : state.now
        var lines: [(String, Style)] = [
            (TextWidth.truncate("\(name) from \(pending.peer.name)", to: textWidth), Style(.title))
        ]
        if let paused {
            for line in TextWidth.wrap("⏸ Next: \(paused)", width: textWidth) { lines.append((line, Style(.accent))) }
        } else {
            let elapsed = now.timeIntervalSince(pending.chosenAt)
            let spinner = LoadingPanel.spinnerFrame(at: now, since: pending.chosenAt)
            switch pending.phase {
            case .askingApp:
                lines.append(("\(spinner) asking the app (willContinue)", Style(.normal)))
            case .fetching:
                lines.append(("\(spinner) fetching the activity… \(Format.seconds(elapsed))", Style(.normal)))
            case .restoring:
                lines.append(("\(spinner) restoring (continue)", Style(.normal)))
            }
        }
        if case .fetching(let deadline) = pending.phase {
            let left = "gives up in \(Format.seconds(deadline.timeIntervalSince(now)))"
            lines.append((paused != nil ? left + " · frozen" : left, Style(.dim)))
        } else if paused != nil {
            lines.append(("timeouts frozen while paused", Style(.dim)))
        }
        let panel = area.centered(Size(width: width, height: min(area.height, lines.count + 3)))
        guard panel.height >= 3 else { return }
        grid.fill(panel, style: Style(.normal))
        grid.box(
            panel, style: Style(.accent), title: paused != nil ? "Continuing · paused" : "Continuing",
            titleStyle: Style(.title),
            lines: .rounded)
        let inside = panel.inset(top: 1, left: 2, bottom: 1, right: 2)
        for (index, line) in lines.prefix(max(0, inside.height - 1)).enumerated() {
            grid.write(line.0, in: inside, row: index, style: line.1)
        }
        var keys: [(String, Style)] = []
        if paused != nil { keys += [("F7", Style(.accent)), (" go on  ", Style(.dim))] }
        keys += [("Esc", Style(.accent)), (" cancel", Style(.dim))]
        grid.write(keys, in: inside, row: inside.height - 1)
    }

    /// Step mode paused the device with no continuation box to show it in (the origin, before
    /// its save or its payload leaving): what comes next, whole, at the bottom of the screen,
    /// for as long as it is paused.
    func drawStepPanel(into grid: inout Grid, area: Rect, phase: StepPhase) {
        let width = min(area.width, 60)
        let textWidth = max(1, width - 4)
        var lines: [(String, Style)] = TextWidth.wrap("⏸ Next: \(phase)", width: textWidth).map { ($0, Style(.accent)) }
        lines.append(("timeouts frozen while paused", Style(.dim)))
        let height = min(area.height, lines.count + 3)
        guard height >= 3 else { return }
        let panel = Rect(
            x: area.x + (area.width - width) / 2, y: area.y + area.height - height, width: width, height: height)
        grid.fill(panel, style: Style(.normal))
        grid.box(panel, style: Style(.accent), title: "Step mode · paused", titleStyle: Style(.title), lines: .rounded)
        let inside = panel.inset(top: 1, left: 2, bottom: 1, right: 2)
        for (index, line) in lines.prefix(max(0, inside.height - 1)).enumerated() {
            grid.write(line.0, in: inside, row: index, style: line.1)
        }
        grid.write([("F7", Style(.accent)), (" go on", Style(.dim))], in: inside, row: inside.height - 1)
    }

    /// The app switcher of a phone or tablet: recent apps, home, and the Handoff item at the bottom.
    func drawSwitcher(into grid: inout Grid, area: Rect, selection: Int) {
        let items = state.switcherItems(device: device)
        let height = min(area.height, items.count + (items.contains(where: \.isHandoff) ? 1 : 0) + 2)
        let panel = area.centered(Size(width: min(area.width - 2, 40), height: height))
        guard panel.height >= 3 else { return }
        grid.fill(panel, style: Style(.normal))
        grid.box(panel, style: Style(.accent), title: "App Switcher", titleStyle: Style(.title), lines: .rounded)
        let inside = panel.inset(top: 1, left: 1, bottom: 1, right: 1)
        var row = 0
        for (index, item) in items.enumerated() {
            let isSelected = index == selection
            var text: String
            var style: Style
            switch item {
            case .app(let bundle):
                let app = device.app(bundle)
                text = "\(app?.glyph ?? "◇") \(app?.name ?? bundle)"
                if let title = app?.title, !title.isEmpty { text += " — \(title)" }
                style = Style(.normal)
            case .home:
                text = "⌂ Home"
                style = Style(.normal)
            case .handoff(let offer):
                grid.write(String(repeating: "─", count: inside.width), in: inside, row: row, style: Style(.frame))
                row += 1
                text = "↩ \(targetLabel(for: offer)) from \(offer.peer.name)"
                style = Style(.badge)
            }
            if isSelected { style = Style(.selection) }
            let line = inside.row(row)
            if isSelected || style.role == .badge { grid.fill(line, style: style) }
            grid.write((isSelected ? "▸ " : "  ") + text, in: line, style: style)
            row += 1
        }
    }

    /// A continuation failed: what happened in one sentence naming the devices, what to try, and
    /// the error's code and Apple's constant. Transport details stay in the lifecycle log and the
    /// log file.
    func drawAlert(into grid: inout Grid, area: Rect, alert: ContinuationAlert) {
        let width = min(area.width - 2, 48)
        let textWidth = width - 4
        var head: [(String, Style)] = []
        let appName = device.app(alert.bundleIdentifier)?.name
        var headline = "Couldn't continue"
        if let appName { headline += " in \(appName)" }
        if let peer = alert.peer { headline += " from \(peer)" }
        for line in TextWidth.wrap(headline + ".", width: textWidth) { head.append((line, Style(.normal, bold: true))) }
        var body: [(String, Style)] = []
        for line in TextWidth.wrap(alert.explanation, width: textWidth) { body.append((line, Style(.normal))) }
        if alert.shownBySystem {
            for line in TextWidth.wrap("Shown by the system: the app does not handle this failure.", width: textWidth) {
                body.append((line, Style(.dim)))
            }
        }
        var tail: [(String, Style)] = [("", .normal), ("Error \(alert.code.rawValue)", Style(.error))]
        // Apple's constant whole, broken before a capital when the panel is narrow.
        for line in TextWidth.wrap(alert.code.constantName, width: textWidth) { tail.append((line, Style(.dim))) }
        // On a short screen the explanation gives way (ending in "…"), never the code.
        let room = area.height - 3
        if head.count + body.count + tail.count > room {
            if tail.count > 2 { tail.removeFirst() }
            let keep = max(0, room - head.count - tail.count)
            if keep < body.count {
                body = Array(body.prefix(keep))
                if let last = body.last {
                    body[body.count - 1] = (TextWidth.truncate(last.0 + " …", to: textWidth), last.1)
                }
            }
        }
        drawPanel(into: &grid, area: area, width: width, title: "Handoff", role: .error, lines: head + body + tail)
    }

    /// The lab's faults: each with where it is armed and, for the chosen one, what follows.
    func drawFaults(into grid: inout Grid, area: Rect, selection: Int) {
        let width = min(area.width - 2, 60)
        let faults = Fault.allCases
        let chosen = faults[min(max(0, selection), faults.count - 1)]
        let expectation = TextWidth.wrap("Expect: " + chosen.expectedOutcome, width: width - 4)
        // The list scrolls to keep the chosen fault in sight when the panel is short (a phone's
        // screen at 80x24): the expectation gets every line it needs while the list keeps five
        // rows (it is what a QA engineer arms the fault for), and at least two lines below that.
        let available = area.height - 5
        let listRows = min(faults.count, 5)
        let expectationRows = min(expectation.count, max(2, available - listRows))
        let rows = max(3, min(faults.count, available - expectationRows))
        let first = min(max(0, selection - rows / 2), faults.count - rows)
        var lines: [(String, Style)] = []
        for (index, fault) in faults.enumerated() where index >= first && index < first + rows {
            let armed = device.armedFaults[fault].map { $0 ? "⚠ kept" : "⚠ once" } ?? ""
            let mark = index == selection ? "▸ " : "  "
            let text = TextWidth.truncate("\(mark)\(fault.rawValue) (\(fault.side))", to: width - 6 - armed.count)
            let padding = String(repeating: " ", count: max(1, width - 4 - TextWidth.of(text) - armed.count))
            let more =
                (index == first && first > 0)
                ? " ↑" : (index == first + rows - 1 && first + rows < faults.count ? " ↓" : "")
            lines.append(
                (
                    text + String(padding.dropLast(more.count)) + more + armed,
                    Style(index == selection ? .selection : (armed.isEmpty ? .normal : .warning))
                ))
        }
        // The other keys, where the blank line under the list was (Enter is at the bottom).
        lines.append((TextWidth.truncate("s keep armed · x disarm · Esc close", to: width - 4), Style(.accent)))
        for line in expectation { lines.append((line, Style(.dim))) }
        drawPanel(
            into: &grid, area: area, width: width, title: "Faults (F8)", role: .warning, lines: lines,
            action: "arm once")
    }

    /// Why an offer cannot be continued here.
    func drawExplanation(into grid: inout Grid, area: Rect, explanation: Explanation) {
        let width = min(area.width - 2, 48)
        var lines: [(String, Style)] = []
        for line in TextWidth.wrap(explanation.text, width: width - 4) { lines.append((line, Style(.normal))) }
        if let rule = explanation.rule {
            lines.append(("", Style(.normal)))
            for line in TextWidth.wrap(rule, width: width - 4) { lines.append((line, Style(.dim))) }
        }
        drawPanel(into: &grid, area: area, width: width, title: explanation.title, role: .warning, lines: lines)
    }

    /// A boxed panel centred in `area` with `lines` and "Enter OK" at the bottom right; when the
    /// lines do not fit, the last one shown ends with "…".
    private func drawPanel(
        into grid: inout Grid, area: Rect, width: Int, title: String, role: Role,
        lines: [(String, Style)], action: String = "OK"
    ) {
        let panel = area.centered(Size(width: width, height: min(area.height, lines.count + 4)))
        guard panel.height >= 3, panel.width >= 8 else { return }
        grid.fill(panel, style: Style(.normal))
        grid.box(panel, style: Style(role), title: title, titleStyle: Style(role), lines: .double)
        let inside = panel.inset(top: 1, left: 2, bottom: 1, right: 2)
        let room = max(0, inside.height - 1)
        for (index, line) in lines.prefix(room).enumerated() {
            var text = line.0
            if index == room - 1, lines.count > room { text = TextWidth.truncate(text + " …", to: inside.width) }
            grid.write(text, in: inside, row: index, style: line.1)
        }
        let hint = " " + action
        grid.write(
            [("Enter", Style(.accent)), (hint, Style(.normal))], in: inside, row: inside.height - 1,
            column: max(0, inside.width - 5 - TextWidth.of(hint)))
    }
}

extension SwitcherItem {
    var isHandoff: Bool {
        if case .handoff = self { true } else { false }
    }
}
