import CursesTerminal
import DeviceUI
import Foundation
import HandoffCore
import HandoffRecordings
import TerminalCells

/// `handoff timeline FILE…` on a terminal: the recorded timeline replayed event by event, two
/// (or more) lanes with the arrows of what crossed the network (DeviceUI's ``TimelineWidget``,
/// as on the device's F9), and the shown event's detail. Draws only what it is given: the
/// timeline, its lanes and where the replay is.
struct TimelineReplayView {
    let timeline: Timeline
    /// The timeline's lanes, made once (``lanes(of:)``); each frame draws as many as are played.
    let lanes: TimelineWidget
    let replay: TimelineReplay

    /// The width of the time column.
    static let timeWidth = 13

    /// The keys, for the bottom line.
    static let hints: [(keys: String, action: String)] = [
        ("→", "step"), ("←", "back"), ("Space", "play/pause"), ("PgUp PgDn", "page"), ("Home End", "first/last"),
        ("q", "quit"),
    ]

    func render(size: Size) -> Grid {
        var grid = Grid(size: size)
        guard size.width >= 40, size.height >= 10 else {
            grid.put(
                TextWidth.truncate(
                    "handoff timeline: the terminal is too small (need 40x10) · q quits", to: size.width),
                at: Point(x: 0, y: 0), style: Style(.warning))
            return grid
        }
        let bounds = Rect(x: 0, y: 0, width: size.width, height: size.height)
        let (title, rest) = bounds.splitTop(1)
        let (body, footer) = rest.splitBottom(1)
        drawTitle(into: &grid, area: title)
        drawFooter(into: &grid, area: footer)
        // Wide terminals: the detail beside the diagram; otherwise below it.
        let diagram: Rect
        let detail: Rect
        if size.width >= 140 {
            (diagram, detail) = body.splitRight(min(60, size.width / 3))
        } else {
            let detailHeight = min(max(6, body.height / 3), 10)
            (diagram, detail) = body.splitBottom(detailHeight)
        }
        var lanes = self.lanes
        lanes.selected = replay.selected
        lanes.drawnCount = replay.played
        lanes.render(in: diagram, into: &grid)
        drawDetail(into: &grid, area: detail, beside: size.width >= 140)
        return grid
    }

    // MARK: Title and keys

    func drawTitle(into grid: inout Grid, area: Rect) {
        grid.fill(area, style: Style(.statusBar))
        let names = timeline.lanes.map(\.name).joined(separator: " ↔ ")
        let position = replay.eventCount == 0 ? "no events" : "event \(replay.played) of \(replay.eventCount)"
        let state = replay.isPlaying ? "▶ playing" : (replay.isAtEnd ? "■ end" : "⏸ paused")
        let text = " handoff timeline · \(names) · \(position) · \(state)"
        grid.put(TextWidth.truncate(text, to: area.width), at: area.origin, style: Style(.statusBar), clip: area)
    }

    func drawFooter(into grid: inout Grid, area: Rect) {
        var x = area.x + 1
        for (index, hint) in Self.hints.enumerated() {
            let cost = TextWidth.of(hint.keys) + 1 + TextWidth.of(hint.action) + (index == 0 ? 0 : 2)
            guard x + cost <= area.maxX else { break }
            if index > 0 { x = grid.put("  ", at: Point(x: x, y: area.y), clip: area) }
            x = grid.put(hint.keys, at: Point(x: x, y: area.y), style: Style(.accent), clip: area)
            x = grid.put(" " + hint.action, at: Point(x: x, y: area.y), style: Style(.dim), clip: area)
        }
    }

    // MARK: The lanes

    /// The timeline's lanes, named with their device's kind, times as the recordings' clocks.
    /// Recordings are files anyone may hand over: what they say is drawn with its control and
    /// invisible characters shown as code points (`\u{1b}`), never acting and never dropped unseen.
    static func lanes(of timeline: Timeline) -> TimelineWidget {
        TimelineWidget(
            lanes: timeline.lanes.map {
                TimelineWidget.Lane(name: TerminalText.sanitized("\($0.name) (\($0.kind))"))
            },
            events: timeline.rows.map { row in
                TimelineWidget.Event(
                    lane: row.lane, time: clock(row.event.time), kind: row.event.kind,
                    kindName: row.event.kind.rawValue, detail: TerminalText.sanitized(row.event.detail))
            },
            arrows: timeline.arrows, lost: timeline.lost, timeWidth: timeWidth,
            emptyText: "These recordings hold no events.")
    }

    // MARK: The detail

    func drawDetail(into grid: inout Grid, area: Rect, beside: Bool) {
        if beside {
            for y in area.y..<area.maxY { grid.put("│", at: Point(x: area.x, y: y), style: Style(.frame)) }
        } else {
            grid.put(String(repeating: "─", count: area.width), at: area.origin, style: Style(.frame), clip: area)
        }
        let inside = beside ? area.inset(left: 2) : area.inset(top: 1, left: 1)
        guard inside.height > 0, let index = replay.selected else { return }
        var lines: [(String, Style)] = []
        let event = timeline.rows[index].event
        lines.append(("\(Self.clock(event.time))  \(event.device)  \(event.kind.rawValue)", Style(.title)))
        if !event.detail.isEmpty {
            for line in TextWidth.wrap(event.detail, width: inside.width) { lines.append((line, Style(.normal))) }
        }
        for arrow in timeline.arrows where arrow.from == index || arrow.to == index {
            let other = timeline.rows[arrow.from == index ? arrow.to : arrow.from].event.device
            lines.append(
                (
                    arrow.from == index ? "→ \(arrow.label) to \(other)" : "← \(arrow.label) from \(other)",
                    Style(.accent)
                ))
        }
        for message in timeline.lost where message.from == index {
            lines.append(("→ \(message.label) to \(timeline.lanes[message.toLane].name): lost", Style(.warning)))
        }
        for line in TextWidth.wrap(event.explanation, width: inside.width) { lines.append((line, Style(.dim))) }
        let shown: Set<String> = ["time", "device", "kind", "detail", "explanation"]
        for key in event.fields.keys.sorted() where !shown.contains(key) {
            let value = event.fields[key].map { $0.stringValue ?? $0.jsonText } ?? ""
            lines.append((TextWidth.truncate("\(key): \(value)", to: inside.width), Style(.normal)))
        }
        for (row, line) in lines.prefix(inside.height).enumerated() {
            grid.put(
                TextWidth.truncate(line.0, to: inside.width), at: Point(x: inside.x, y: inside.y + row), style: line.1,
                clip: inside)
        }
    }

    // MARK: Helpers

    /// HH:mm:ss.SSS in UTC, as recordings write their times.
    static func clock(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true).time(includingFractionalSeconds: true))
    }

    /// What a key does in the replay; nil for keys it does not use.
    static func command(for key: Key) -> TimelineReplay.Command? {
        switch key {
        case .right, .down, .character("n"), .character("j"), .enter: .step
        case .left, .up, .character("p"), .character("k"), .backspace: .back
        case .pageDown: .pageForward
        case .pageUp: .pageBack
        case .home, .character("g"): .start
        case .end, .character("G"): .end
        case .character(" "): .togglePlay
        default: nil
        }
    }

    static func isQuit(_ key: Key) -> Bool {
        key == .character("q") || key == .escape || key == .control("q") || key == .control("c")
    }
}

/// The replay's terminal loop: draws, waits for a key (or the play interval), applies it.
enum TimelineReplayTerminal {
    static func run(_ timeline: Timeline) throws {
        try CursesTerminal.withTerminal { terminal in
            let runLoop = try TerminalRunLoop(terminal: terminal)
            var replay = TimelineReplay(eventCount: timeline.rows.count)
            let lanes = TimelineReplayView.lanes(of: timeline)
            while true {
                terminal.draw(
                    TimelineReplayView(timeline: timeline, lanes: lanes, replay: replay).render(size: terminal.size))
                let until =
                    replay.isPlaying
                    ? ContinuousClock.now + .milliseconds(Int(TimelineReplay.playInterval * 1000)) : nil
                switch runLoop.nextEvent(until: until) {
                case .key(.control("l")):
                    terminal.redrawAll()
                case .key(let key):
                    if TimelineReplayView.isQuit(key) { return }
                    if let command = TimelineReplayView.command(for: key) { replay.apply(command) }
                case .deadline:
                    replay.apply(.tick)
                case .signal:
                    return
                case .resize, .wake, .resumed:
                    break
                }
            }
        }
    }
}
