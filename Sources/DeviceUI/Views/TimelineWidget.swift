import Foundation
import HandoffCore
import TerminalCells

extension TimelineView {
    /// The diagram's lines: each event, and under it each arrow it sends.
    enum Line: Hashable {
        case event(Int)
        case arrow(Int)
    }

    static func lines(_ model: TimelineModel) -> [Line] {
        let arrowsFrom = Dictionary(grouping: model.arrows.indices, by: { model.arrows[$0].from })
        var lines: [Line] = []
        for index in model.rows.indices {
            lines.append(.event(index))
            for arrow in arrowsFrom[index] ?? [] { lines.append(.arrow(arrow)) }
        }
        return lines
    }
}

extension ScreenView {
    func drawDiagram(into grid: inout Grid, area: Rect, model: TimelineModel, selected: Int?) {
        guard area.height >= 3, area.width >= 20, !model.lanes.isEmpty else { return }
        let timeWidth = 8
        let laneWidth = max(8, (area.width - timeWidth) / model.lanes.count)
        func laneX(_ lane: Int) -> Int { area.x + timeWidth + lane * laneWidth }
        let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
        let lines = TimelineView.lines(model)
        // Scroll so that the selected event shows, with its arrows when there is room.
        let selectedLine = selected.flatMap { lines.firstIndex(of: .event($0)) } ?? lines.count - 1
        let first = max(0, min(selectedLine - body.height / 2, lines.count - body.height))
        // Which lines show, at the end of the names' row when they do not all fit; the last
        // lane's name gives way to it.
        let position = lines.count > body.height ? "\(first + 1)–\(min(lines.count, first + body.height))/\(lines.count)" : ""
        let positionWidth = position.isEmpty ? 0 : TextWidth.of(position) + 1
        // The lanes' names, then the lines.
        for (index, lane) in model.lanes.enumerated() {
            let name = lane.isThisDevice ? "\(lane.name) (here)" : lane.name
            let end = index == model.lanes.count - 1 ? min(laneX(index) + laneWidth, area.maxX - positionWidth) : laneX(index) + laneWidth
            let width = end - laneX(index)
            guard width >= 2 else { continue }
            let cell = Rect(x: laneX(index), y: area.y, width: width, height: 1)
            grid.write("│" + TextWidth.truncate(name, to: width - 1), in: cell, style: Style(.title))
        }
        if !position.isEmpty {
            grid.write(position, in: area, row: 0, style: Style(.dim), alignment: .trailing)
        }
        guard !model.rows.isEmpty else {
            grid.write("No lifecycle events yet.", in: body, row: 0, column: timeWidth + 1, style: Style(.dim))
            return
        }
        // Times count from the continuation's first event (the beacon before it is negative).
        let start = (model.rows.first { $0.entry.continuation != nil } ?? model.rows.first)?.entry.time ?? state.now
        for (offset, line) in lines.dropFirst(first).prefix(body.height).enumerated() {
            let y = body.y + offset
            for lane in model.lanes.indices {
                grid.put("│", at: Point(x: laneX(lane), y: y), style: Style(.frame), clip: body)
            }
            switch line {
            case .event(let index):
                let row = model.rows[index]
                let isSelected = index == selected
                let elapsed = row.entry.time.timeIntervalSince(start)
                grid.put(TextWidth.truncate(Self.offset(elapsed), to: timeWidth - 1), at: Point(x: body.x, y: y),
                         style: Style(isSelected ? .accent : .dim), clip: body)
                // Within its lane, so every lane's line stays drawn (the detail has the whole text).
                let isLast = row.lane == model.lanes.count - 1
                let cell = Rect(x: laneX(row.lane) + 1, y: y, width: isLast ? area.maxX - laneX(row.lane) - 1 : laneWidth - 1, height: 1)
                let style = isSelected ? Style(.selection) : Self.style(row.entry.kind)
                let text = (isSelected ? "▸" : "●") + row.entry.kindName + " " + row.entry.detail
                grid.write(text, in: cell, style: style)
            case .arrow(let index):
                let arrow = model.arrows[index]
                let from = laneX(model.rows[arrow.from].lane), to = laneX(model.rows[arrow.to].lane)
                let low = min(from, to), high = max(from, to)
                guard high > low + 1 else { continue }
                let involved = selected == arrow.from || selected == arrow.to
                let style = Style(involved ? .accent : .link)
                for x in (low + 1)..<high { grid.put("─", at: Point(x: x, y: y), style: style, clip: body) }
                grid.put(from < to ? "▶" : "◀", at: Point(x: from < to ? high - 1 : low + 1, y: y), style: style, clip: body)
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

    static func style(_ kind: LifecycleEvent.Kind?) -> Style {
        switch kind {
        case .continuationFailed, .payloadRefused, .systemShowedError, .streamsRefused, .sceneDidFailToContinue: Style(.error)
        case .notHandled, .saveSkipped, .payloadSizeWarning, .choiceIgnored, .latePayloadIgnored, .faultInjected, .stepPaused: Style(.warning)
        case .continued, .wasContinued: Style(.success)
        default: Style(.normal)
        }
    }
}
