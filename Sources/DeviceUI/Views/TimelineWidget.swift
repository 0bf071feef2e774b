import Foundation
import HandoffCore
import TerminalCells

/// Lifecycle events as a sequence diagram: one lane per device (named on the first row), time
/// going down, each event on its lane with its time in the left column, and under each event
/// the arrows it sent, for what crossed the network. The selected event is marked, and the lines
/// scroll so that it shows.
///
/// A widget in ratatui's sense: a value that draws itself into the area of a grid it is given
/// (``render(in:into:)``), and does nothing else. The device's timeline screen (F9) and
/// `handoff timeline`'s replay both draw their lanes with it, each from its own events.
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
    /// The event marked (and kept in view); nil: none.
    package var selected: Int?
    /// How many events are drawn, from the first (a replay draws those played so far), with the
    /// arrows between them; nil: all.
    package var drawnCount: Int?
    /// The width of the time column.
    package var timeWidth: Int
    /// What the diagram says when there are no events.
    package var emptyText: String

    package init(
        lanes: [Lane], events: [Event], arrows: [TimelineArrow], selected: Int? = nil, drawnCount: Int? = nil,
        timeWidth: Int = 8, emptyText: String = "No lifecycle events yet."
    ) {
        self.lanes = lanes
        self.events = events
        self.arrows = arrows
        self.selected = selected
        self.drawnCount = drawnCount
        self.timeWidth = timeWidth
        self.emptyText = emptyText
    }

    /// One line of the diagram: an event, or an arrow under the event that sent it.
    enum Line: Hashable {
        case event(Int)
        case arrow(Int)
    }

    /// The drawn events in order, each followed by the arrows it sent to another drawn event.
    var lines: [Line] {
        let drawn = min(events.count, max(0, drawnCount ?? events.count))
        let arrowsFrom = Dictionary(grouping: arrows.indices, by: { arrows[$0].from })
        var lines: [Line] = []
        for index in 0..<drawn {
            lines.append(.event(index))
            for arrow in arrowsFrom[index] ?? [] where arrows[arrow].to < drawn { lines.append(.arrow(arrow)) }
        }
        return lines
    }

    /// Draws the diagram into `area` of `grid` (nothing below 20x3 or without lanes).
    package func render(in area: Rect, into grid: inout Grid) {
        guard area.height >= 3, area.width >= 20, !lanes.isEmpty else { return }
        let laneWidth = max(8, (area.width - timeWidth) / lanes.count)
        func laneX(_ lane: Int) -> Int { area.x + timeWidth + lane * laneWidth }
        let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
        let lines = self.lines
        // Scroll so that the selected event shows, with its arrows when there is room.
        let selectedLine = selected.flatMap { lines.firstIndex(of: .event($0)) } ?? lines.count - 1
        let first = max(0, min(selectedLine - body.height / 2, lines.count - body.height))
        // Which lines show, at the end of the names' row when they do not all fit; the last
        // lane's name gives way to it.
        let position =
            lines.count > body.height ? "\(first + 1)–\(min(lines.count, first + body.height))/\(lines.count)" : ""
        let positionWidth = position.isEmpty ? 0 : TextWidth.of(position) + 1
        // The lanes' names, then the lines.
        for (index, lane) in lanes.enumerated() {
            let end =
                index == lanes.count - 1
                ? min(laneX(index) + laneWidth, area.maxX - positionWidth) : laneX(index) + laneWidth
            let width = end - laneX(index)
            guard width >= 2 else { continue }
            let cell = Rect(x: laneX(index), y: area.y, width: width, height: 1)
            grid.write("│" + TextWidth.truncate(lane.name, to: width - 1), in: cell, style: Style(.title))
        }
        if !position.isEmpty {
            grid.write(position, in: area, row: 0, style: Style(.dim), alignment: .trailing)
        }
        guard !lines.isEmpty else {
            grid.write(emptyText, in: body, row: 0, column: timeWidth + 1, style: Style(.dim))
            return
        }
        for (offset, line) in lines.dropFirst(first).prefix(body.height).enumerated() {
            let y = body.y + offset
            for lane in lanes.indices {
                grid.put("│", at: Point(x: laneX(lane), y: y), style: Style(.frame), clip: body)
            }
            switch line {
            case .event(let index):
                let event = events[index]
                let isSelected = index == selected
                grid.put(
                    TextWidth.truncate(event.time, to: timeWidth - 1), at: Point(x: body.x, y: y),
                    style: Style(isSelected ? .accent : .dim), clip: body)
                // Within its lane, so every lane's line stays drawn (the detail has the whole text).
                let isLast = event.lane == lanes.count - 1
                let cell = Rect(
                    x: laneX(event.lane) + 1, y: y, width: isLast ? area.maxX - laneX(event.lane) - 1 : laneWidth - 1,
                    height: 1)
                let style = isSelected ? Style(.selection) : Self.style(event.kind)
                let text = (isSelected ? "▸" : "●") + event.kindName + " " + event.detail
                grid.write(text, in: cell, style: style)
            case .arrow(let index):
                let arrow = arrows[index]
                let from = laneX(events[arrow.from].lane)
                let to = laneX(events[arrow.to].lane)
                let low = min(from, to)
                let high = max(from, to)
                guard high > low + 1 else { continue }
                let involved = selected == arrow.from || selected == arrow.to
                let style = Style(involved ? .accent : .link)
                for x in (low + 1)..<high { grid.put("─", at: Point(x: x, y: y), style: style, clip: body) }
                grid.put(
                    from < to ? "▶" : "◀", at: Point(x: from < to ? high - 1 : low + 1, y: y), style: style, clip: body)
                let label = " \(arrow.label) "
                let room = high - low - 3
                if room > 2 {
                    let fitted = TextWidth.truncate(label, to: room)
                    let x = low + 2 + max(0, (room - TextWidth.of(fitted)) / 2)
                    grid.put(fitted, at: Point(x: x, y: y), style: style, clip: body)
                }
            }
        }
    }

    /// The one style of each kind of event, wherever a timeline draws it: failures as errors,
    /// what went wrong without failing (and the lab's faults and pauses) as warnings, the
    /// continuation's success as success.
    package static func style(_ kind: LifecycleEvent.Kind?) -> Style {
        switch kind {
        case .continuationFailed, .payloadRefused, .systemShowedError, .streamsRefused, .sceneDidFailToContinue:
            Style(.error)
        case .notHandled, .saveSkipped, .payloadSizeWarning, .choiceIgnored, .latePayloadIgnored, .faultInjected,
            .stepPaused:
            Style(.warning)
        case .continued, .wasContinued: Style(.success)
        default: Style(.normal)
        }
    }
}
