import Foundation
import HandoffCore
import TerminalCells

extension ScreenView {
    /// The lifecycle log: every event of this device in order, with its time and the one-line
    /// explanation for learners; the newest at the bottom unless scrolled back.
    func drawLog(into grid: inout Grid, area: Rect) {
        let focused = state.focus == .log && !state.isLocked && state.overlay == nil
        let events = device.lifecycle
        let scroll = min(max(0, state.logScroll), max(0, events.count - 1))
        var title = "Lifecycle log · \(events.count) event\(events.count == 1 ? "" : "s")"
        // Shown by room, not by a key: say which key hides it.
        if state.logMode == .whenRoom {
            title = "Lifecycle log · F2 hides · \(events.count) event\(events.count == 1 ? "" : "s")"
        }
        title += scroll > 0 ? " · \(scroll) newer below ↓" : " · following"
        grid.box(
            area, style: Style(focused ? .accent : .frame), title: title,
            titleStyle: Style(focused ? .accent : .title), lines: focused ? .heavy : .light)
        let inside = area.inset(top: 1, left: 1, bottom: 1, right: 1)
        guard !events.isEmpty else {
            grid.write("No events yet.", in: inside, style: Style(.dim))
            return
        }
        // Lay out events from the newest shown upwards until the pane is full.
        var lines: [[(String, Style)]] = []
        var index = events.count - 1 - scroll
        while index >= 0, lines.count < inside.height {
            lines.insert(contentsOf: logLines(events[index], width: inside.width), at: 0)
            index -= 1
        }
        let visible = lines.suffix(inside.height)
        for (row, line) in visible.enumerated() {
            grid.write(line, in: inside, row: row)
        }
    }

    /// One event: its time, kind and what happened, then the explanation (both wrapped).
    private func logLines(_ event: LifecycleEvent, width: Int) -> [[(String, Style)]] {
        let time = Format.timestamp(event.time, state.timeZone)
        let kind = event.kind.rawValue
        let kindRole: Role =
            switch event.occurrence {
            case .continuationFailed, .systemShowedError, .payloadRefused, .streamsRefused: .error
            case .payloadSizeWarning, .notHandled, .choiceIgnored, .latePayloadIgnored, .saveSkipped,
                .sceneDidFailToContinue:
                .warning
            case .continued, .wasContinued: .success
            default: .accent
            }
        var result: [[(String, Style)]] = []
        let head = time + " " + event.logLine
        for (index, line) in TextWidth.wrap(head, width: width).enumerated() {
            if index == 0 {
                let rest = String(line.dropFirst(min(line.count, time.count + 1 + kind.count)))
                result.append([(time + " ", Style(.dim)), (kind, Style(kindRole)), (rest, Style(.normal))])
            } else {
                result.append([("  " + line, Style(.normal))])
            }
        }
        for line in TextWidth.wrap("↳ " + event.explanation, width: width - 2) {
            result.append([("  " + line, Style(.dim))])
        }
        return result
    }
}
