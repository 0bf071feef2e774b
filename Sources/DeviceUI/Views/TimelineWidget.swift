import Foundation
import HandoffCore
import TerminalCells

/// Lifecycle events as a sequence diagram: one lane per device (named on the first row), time
/// going down, each event on its lane with its time in the left column, and under each event
/// the arrows it sent, for what crossed the network. The selected event is marked, and the lines
/// scroll so that it shows.
///
/// A widget in ratatui's sense: a value that draws itself into the area of a grid it is given
/// (``render(in:into:)``), and does nothing else. The device's timeline screen (F9),
/// `handoff timeline`'s replay and its `--print` text all draw their lanes with it, each from its
/// own events: one drawing code and one style table (HandoffCore's ``TimelineTone``). `--print`
/// wraps each event's text within its lane (``wraps``) so that nothing is cut; a screen, which
/// has the selected event's whole text in its detail, gives each event one line.
package struct TimelineWidget: Sendable, Hashable {
    package struct Lane: Sendable, Hashable {
        /// The name on the lane's first row ("Phone (here)", "Laptop (laptop)").
        package var name: String

        package init(name: String) { self.name = name }
    }

    package struct Event: Sendable, Hashable {
        package var lane: Int
        /// What the time column says for it ("+0.042s", "06:13:16.799").
        package var time: String
        /// Nil for a kind this build does not know (drawn plainly).
        package var kind: LifecycleEvent.Kind?
        package var kindName: String
        package var detail: String

        package init(lane: Int, time: String, kind: LifecycleEvent.Kind?, kindName: String, detail: String) {
            self.lane = lane
            self.time = time
            self.kind = kind
            self.kindName = kindName
            self.detail = detail
        }
    }

    package var lanes: [Lane]
    /// Every event, in the order drawn (time order).
    package var events: [Event]
    /// Arrows between events (indices into ``events``).
    package var arrows: [TimelineArrow]
    /// Messages sent whose receipt no lane recorded, drawn as lost under the event that sent them.
    package var lost: [TimelineLostMessage]
    /// The event marked (and kept in view); nil: none.
    package var selected: Int?
    /// How many events are drawn, from the first (a replay draws those played so far), with the
    /// arrows between them; nil: all.
    package var drawnCount: Int?
    /// The width of the time column.
    package var timeWidth: Int
    /// What the diagram says when there are no events.
    package var emptyText: String
    /// Whether an event's text wraps within its lane (as many lines as it needs) rather than being
    /// cut at the lane's edge.
    package var wraps = false
    /// Whether the names' row says which lines show when they do not all fit (a page of a longer
    /// timeline, whose title says where it is, does not).
    package var showsPosition = true

    package init(
        lanes: [Lane], events: [Event], arrows: [TimelineArrow], lost: [TimelineLostMessage] = [],
        selected: Int? = nil, drawnCount: Int? = nil, timeWidth: Int = 8,
        emptyText: String = "No lifecycle events yet."
    ) {
        self.lanes = lanes
        self.events = events
        self.arrows = arrows
        self.lost = lost
        self.selected = selected
        self.drawnCount = drawnCount
        self.timeWidth = timeWidth
        self.emptyText = emptyText
    }

    /// One line of the diagram: an event (`part` 0, and its wrapped text's further lines), an
    /// arrow under the event that sent it, or a message lost.
    enum Line: Hashable {
        case event(Int, part: Int)
        case arrow(Int)
        case lost(Int)
    }

    /// The text of an event's lane cell, as drawn after its marker.
    func text(of event: Event) -> String { event.detail.isEmpty ? event.kindName : event.kindName + " " + event.detail }

    /// An event's text in lines of at most `width` cells (one line, to be cut, unless ``wraps``).
    func parts(of event: Event, width: Int) -> [String] {
        guard wraps else { return [text(of: event)] }
        let wrapped = TextWidth.wrap(text(of: event), width: max(1, width))
        return wrapped.isEmpty ? [""] : wrapped
    }

    /// The width of an event's cell after its marker: to the next lane, or to the area's edge.
    func cellWidth(lane: Int, laneWidth: Int, areaWidth: Int) -> Int {
        lane == lanes.count - 1 ? areaWidth - timeWidth - lane * laneWidth - 2 : laneWidth - 2
    }

    /// The drawn events in order, each followed by the arrows it sent to another drawn event and
    /// the messages it sent that were lost.
    func lines(laneWidth: Int = 0, areaWidth: Int = 0) -> [Line] {
        let drawn = min(events.count, max(0, drawnCount ?? events.count))
        let arrowsFrom = Dictionary(grouping: arrows.indices, by: { arrows[$0].from })
        let lostFrom = Dictionary(grouping: lost.indices, by: { lost[$0].from })
        var lines: [Line] = []
        for index in 0..<drawn {
            let count =
                wraps
                ? parts(
                    of: events[index],
                    width: cellWidth(lane: events[index].lane, laneWidth: laneWidth, areaWidth: areaWidth)
                ).count
                : 1
            for part in 0..<count { lines.append(.event(index, part: part)) }
            for arrow in arrowsFrom[index] ?? [] where arrows[arrow].to < drawn { lines.append(.arrow(arrow)) }
            for message in lostFrom[index] ?? [] where lost[message].toLane < lanes.count {
                lines.append(.lost(message))
            }
        }
        return lines
    }

    /// The lane width the area gives.
    func laneWidth(in area: Rect) -> Int { max(8, (area.width - timeWidth) / max(1, lanes.count)) }

    /// The whole diagram as plain text, each lane `laneWidth` columns wide (widened to fit the
    /// longest arrow label), every event's text wrapped within its lane: `handoff timeline --print`.
    package func text(laneWidth: Int) -> String {
        var widget = self
        widget.wraps = true
        widget.selected = nil
        widget.drawnCount = nil
        let labels = arrows.map { TextWidth.of($0.label) } + lost.map { TextWidth.of($0.label + " lost") }
        let width = max(laneWidth, (labels.max() ?? 0) + 8)
        let areaWidth = timeWidth + lanes.count * width + 1
        let lines = widget.lines(laneWidth: width, areaWidth: areaWidth)
        let height = max(2, lines.count + 1)
        var grid = Grid(size: Size(width: areaWidth, height: height))
        widget.render(in: Rect(x: 0, y: 0, width: areaWidth, height: height), into: &grid, laneWidth: width)
        let text = (0..<grid.size.height).map { grid.line($0).trimmingTrailingSpaces }
        return text.joined(separator: "\n") + "\n"
    }

    /// Draws the diagram into `area` of `grid` (nothing below 20x3 or without lanes).
    package func render(in area: Rect, into grid: inout Grid) {
        render(in: area, into: &grid, laneWidth: laneWidth(in: area))
    }

    func render(in area: Rect, into grid: inout Grid, laneWidth: Int) {
        guard area.height >= (wraps ? 2 : 3), area.width >= 20, !lanes.isEmpty else { return }
        let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
        let lines = self.lines(laneWidth: laneWidth, areaWidth: area.width)
        // Scroll so that the selected event shows, with its arrows when there is room.
        let selectedLine = selected.flatMap { lines.firstIndex(of: .event($0, part: 0)) } ?? lines.count - 1
        let first = max(0, min(selectedLine - body.height / 2, lines.count - body.height))
        // Which lines show, at the end of the names' row when they do not all fit; the last
        // lane's name gives way to it.
        let position =
            showsPosition && lines.count > body.height
            ? "\(first + 1)–\(min(lines.count, first + body.height))/\(lines.count)" : ""
        let positionWidth = position.isEmpty ? 0 : TextWidth.of(position) + 1
        // The lanes' names, then the lines.
        drawNames(in: area, into: &grid, laneWidth: laneWidth, positionWidth: positionWidth)
        if !position.isEmpty {
            grid.write(position, in: area, row: 0, style: Style(.dim), alignment: .trailing)
        }
        guard !lines.isEmpty else {
            grid.write(emptyText, in: body, row: 0, column: timeWidth + 1, style: Style(.dim))
            return
        }
        for (offset, line) in lines.dropFirst(first).prefix(body.height).enumerated() {
            draw(line, y: body.y + offset, area: area, body: body, laneWidth: laneWidth, into: &grid)
        }
    }

    /// The lanes' names on the area's first row, the last one short of `positionWidth` columns.
    func drawNames(in area: Rect, into grid: inout Grid, laneWidth: Int, positionWidth: Int) {
        func laneX(_ lane: Int) -> Int { area.x + timeWidth + lane * laneWidth }
        for (index, lane) in lanes.enumerated() {
            let end =
                index == lanes.count - 1
                ? min(laneX(index) + laneWidth, area.maxX - positionWidth) : laneX(index) + laneWidth
            let width = end - laneX(index)
            guard width >= 2 else { continue }
            let cell = Rect(x: laneX(index), y: area.y, width: width, height: 1)
            grid.write("│" + TextWidth.truncate(lane.name, to: width - 1), in: cell, style: Style(.title))
        }
    }

    /// One line of the diagram on row `y` of `body`.
    func draw(
        _ line: Line, y: Int, area: Rect, body: Rect, laneWidth: Int, into grid: inout Grid,
        parts known: [String]? = nil
    ) {
        func laneX(_ lane: Int) -> Int { area.x + timeWidth + lane * laneWidth }
        for lane in lanes.indices {
            grid.put("│", at: Point(x: laneX(lane), y: y), style: Style(.frame), clip: body)
        }
        switch line {
        case .event(let index, let part):
            let event = events[index]
            let isSelected = index == selected
            if part == 0 {
                grid.put(
                    TextWidth.truncate(event.time, to: timeWidth - 1), at: Point(x: body.x, y: y),
                    style: Style(isSelected ? .accent : .dim), clip: body)
            }
            // Within its lane, so every lane's line stays drawn (the detail has the whole text,
            // and the printed text wraps).
            let width = cellWidth(lane: event.lane, laneWidth: laneWidth, areaWidth: area.width)
            let cell = Rect(x: laneX(event.lane) + 1, y: y, width: width + 1, height: 1)
            let style = isSelected ? Style(.selection) : Self.style(event.kind)
            let parts = known ?? self.parts(of: event, width: width)
            let marker = part > 0 ? " " : isSelected ? "▸" : "●"
            grid.write(marker + (part < parts.count ? parts[part] : ""), in: cell, style: style)
        case .arrow(let index):
            let arrow = arrows[index]
            let from = laneX(events[arrow.from].lane)
            let to = laneX(events[arrow.to].lane)
            let low = min(from, to)
            let high = max(from, to)
            guard high > low + 1 else { return }
            let involved = selected == arrow.from || selected == arrow.to
            let style = Style(involved ? .accent : .link)
            grid.put(
                String(repeating: "─", count: high - low - 1), at: Point(x: low + 1, y: y), style: style, clip: body)
            grid.put(
                from < to ? "▶" : "◀", at: Point(x: from < to ? high - 1 : low + 1, y: y), style: style, clip: body)
            let label = " \(arrow.label) "
            let room = high - low - 3
            if room > 2 {
                let fitted = TextWidth.truncate(label, to: room)
                let x = low + 2 + max(0, (room - TextWidth.of(fitted)) / 2)
                grid.put(fitted, at: Point(x: x, y: y), style: style, clip: body)
            }
        case .lost(let index):
            // Dashes from the sender towards the lane it was sent to, ending in a cross at two
            // thirds of the way: nothing arrived.
            let message = lost[index]
            let from = laneX(events[message.from].lane)
            let to = laneX(message.toLane)
            guard abs(to - from) > 4 else { return }
            let reach = wraps ? (to - from) - (to > from ? 2 : -2) : (to - from) * 2 / 3
            let style = Style(selected == message.from ? .accent : .warning)
            let step = reach > 0 ? 1 : -1
            // The dashes between the sender and the cross, written as one run.
            let dashes = abs(reach) - 1
            if dashes > 0 {
                grid.put(
                    String(repeating: "╌", count: dashes), at: Point(x: min(from + step, from + reach - step), y: y),
                    style: style, clip: body)
            }
            grid.put("╳", at: Point(x: from + reach, y: y), style: style, clip: body)
            let label = " \(message.label) lost "
            let room = abs(reach) - 2
            if room > 2 {
                let fitted = TextWidth.truncate(label, to: room)
                let low = min(from, from + reach)
                let x = low + 1 + max(0, (room - TextWidth.of(fitted)) / 2)
                grid.put(fitted, at: Point(x: x, y: y), style: style, clip: body)
            }
        }
    }

    /// The one style of each kind of event, wherever a timeline draws it: failures as errors,
    /// what went wrong without failing (and the lab's faults and pauses) as warnings, the
    /// continuation's success as success.
    package static func style(_ kind: LifecycleEvent.Kind?) -> Style {
        switch TimelineTone(kind) {
        case .error: Style(.error)
        case .warning: Style(.warning)
        case .success: Style(.success)
        case .normal: Style(.normal)
        }
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
