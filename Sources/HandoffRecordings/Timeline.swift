import Foundation
import HandoffCore

/// Several devices' lifecycles on one time axis: a lane per device, time going down, and arrows
/// for what crosses the network, paired by what both ends record (the beacon by device, serial
/// and type hash; everything of a continuation by its identifier). `handoff timeline` draws it
/// as text (`--print`) or as a picture (`--svg`).
package struct Timeline: Sendable {
    package struct Lane: Sendable, Hashable {
        package var name: String
        package var kind: String
    }

    /// One event on its lane.
    package struct Row: Sendable {
        package var lane: Int
        package var event: RecordedEvent
    }

    /// Something that crossed the network: from one row to another.
    package typealias Arrow = TimelineArrow

    package var lanes: [Lane]
    /// Every event of every lane, oldest first.
    package var rows: [Row]
    package var arrows: [Arrow]

    /// Lays out `recordings`; with `continuation`, only that continuation's events and the
    /// beacon that made its offer.
    package init(recordings: [LifecycleRecording], continuation: String? = nil) {
        lanes = recordings.map { Lane(name: $0.device, kind: $0.deviceKind) }
        var rows = TimelineLayout.rows(recordings.map(\.events))
        if let continuation { rows = TimelineLayout.rows(rows, ofContinuation: continuation) }
        self.rows = rows.map { Row(lane: $0.lane, event: $0.event) }
        // The pairing is shared with the device's timeline view (HandoffCore's TimelineLayout).
        arrows = TimelineLayout.arrows(rows)
    }

    // MARK: Text

    /// The timeline as plain text: a time column, then one column per lane; each arrow is a
    /// line of its own under the event that sent it.
    package func text(laneWidth: Int = 44) -> String {
        let width = max(16, laneWidth)
        var lines: [String] = []
        func pad(_ text: String, _ count: Int) -> String {
            let clipped = text.count > count ? String(text.prefix(max(0, count - 1))) + "…" : text
            return clipped + String(repeating: " ", count: max(0, count - clipped.count))
        }
        let timeWidth = 12
        lines.append(pad("", timeWidth) + lanes.map { " │ " + pad("\($0.name) (\($0.kind))", width) }.joined())
        lines.append(
            String(repeating: "─", count: timeWidth)
                + lanes.map { _ in "─┼─" + String(repeating: "─", count: width) }.joined())
        let arrowsFrom = Dictionary(grouping: arrows, by: \.from)
        for (index, row) in rows.enumerated() {
            var line = pad(Self.clock(row.event), timeWidth)
            for lane in lanes.indices {
                let cell = lane == row.lane ? "\(row.event.kind.rawValue) \(row.event.detail)" : ""
                line += " │ " + pad(cell, width)
            }
            lines.append(line.trimmingTrailingSpaces)
            for arrow in arrowsFrom[index] ?? [] {
                lines.append(arrowLine(arrow, timeWidth: timeWidth, width: width).trimmingTrailingSpaces)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func arrowLine(_ arrow: Arrow, timeWidth: Int, width: Int) -> String {
        let from = rows[arrow.from].lane
        let to = rows[arrow.to].lane
        let low = min(from, to)
        let high = max(from, to)
        // Character positions: lane l's column starts at timeWidth + l * (width + 3) + 3.
        let start = timeWidth + low * (width + 3) + 3 + width / 2
        let end = timeWidth + high * (width + 3) + 3 + width / 2
        var characters = Array(String(repeating: " ", count: timeWidth + lanes.count * (width + 3)))
        for lane in lanes.indices { characters[timeWidth + lane * (width + 3) + 1] = "│" }
        for position in start...end { characters[position] = "─" }
        if from < to { characters[end] = "▶" } else { characters[start] = "◀" }
        let label = " \(arrow.label) "
        let labelStart = start + max(1, (end - start - label.count) / 2)
        for (offset, character) in label.enumerated() where labelStart + offset < end {
            characters[labelStart + offset] = character
        }
        return String(characters)
    }

    static func clock(_ event: RecordedEvent) -> String {
        // HH:mm:ss.SSS from the recorded ISO 8601 text (UTC, as recorded).
        guard let t = event.timeText.firstIndex(of: "T") else { return event.timeText }
        return String(event.timeText[event.timeText.index(after: t)...].prefix(12))
    }

    // MARK: SVG

    /// The same sequence diagram as an SVG picture.
    package func svg() -> String {
        let laneWidth = 320
        let left = 110
        let top = 70
        let rowHeight = 30
        let width = left + lanes.count * laneWidth + 20
        let height = top + rows.count * rowHeight + 40
        func x(_ lane: Int) -> Int { left + lane * laneWidth + laneWidth / 2 }
        func y(_ row: Int) -> Int { top + row * rowHeight + rowHeight / 2 }
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="Menlo, DejaVu Sans Mono, monospace" font-size="11">
            <defs><marker id="arrow" markerWidth="10" markerHeight="8" refX="9" refY="4" orient="auto"><path d="M0,0 L10,4 L0,8 z" fill="#1f6feb"/></marker></defs>
            <rect width="100%" height="100%" fill="#ffffff"/>

            """
        for (lane, info) in lanes.enumerated() {
            svg +=
                "<text x=\"\(x(lane))\" y=\"30\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">\(Self.escape(info.name))</text>\n"
            svg +=
                "<text x=\"\(x(lane))\" y=\"46\" text-anchor=\"middle\" fill=\"#666\">\(Self.escape(info.kind))</text>\n"
            svg +=
                "<line x1=\"\(x(lane))\" y1=\"\(top - 10)\" x2=\"\(x(lane))\" y2=\"\(height - 20)\" stroke=\"#bbb\" stroke-width=\"2\"/>\n"
        }
        for arrow in arrows {
            let from = rows[arrow.from]
            let to = rows[arrow.to]
            let x1 = x(from.lane)
            let y1 = y(arrow.from)
            let x2 = x(to.lane)
            let y2 = y(arrow.to)
            let direction = x2 > x1 ? -6 : 6
            svg +=
                "<line x1=\"\(x1)\" y1=\"\(y1)\" x2=\"\(x2 + direction)\" y2=\"\(y2)\" stroke=\"#1f6feb\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n"
            svg +=
                "<text x=\"\((x1 + x2) / 2)\" y=\"\((y1 + y2) / 2 - 4)\" text-anchor=\"middle\" fill=\"#1f6feb\">\(Self.escape(arrow.label))</text>\n"
        }
        for (index, row) in rows.enumerated() {
            let color = Self.color(row.event.kind)
            svg += "<circle cx=\"\(x(row.lane))\" cy=\"\(y(index))\" r=\"4\" fill=\"\(color)\"/>\n"
            svg += "<text x=\"10\" y=\"\(y(index) + 4)\" fill=\"#666\">\(Self.escape(Self.clock(row.event)))</text>\n"
            let label = "\(row.event.kind.rawValue) \(row.event.detail)"
            let clipped = label.count > 46 ? String(label.prefix(45)) + "…" : label
            svg +=
                "<text x=\"\(x(row.lane) + 8)\" y=\"\(y(index) + 4)\" fill=\"\(color)\"><title>\(Self.escape(row.event.explanation))</title>\(Self.escape(clipped))</text>\n"
        }
        return svg + "</svg>\n"
    }

    static func color(_ kind: LifecycleEvent.Kind) -> String {
        switch kind {
        case .continuationFailed, .payloadRefused, .systemShowedError, .streamsRefused, .sceneDidFailToContinue:
            "#cf222e"
        case .notHandled, .saveSkipped, .payloadSizeWarning, .choiceIgnored, .latePayloadIgnored: "#9a6700"
        case .continued, .wasContinued: "#1a7f37"
        default: "#24292f"
        }
    }

    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default:
                // Control characters are not allowed in XML.
                if character.unicodeScalars.allSatisfy({ $0.value >= 0x20 || $0 == "\t" }) { result.append(character) }
            }
        }
        return result
    }
}

extension RecordedEvent: TimelineEvent {
    package var timelineKind: LifecycleEvent.Kind? { kind }
}

extension String {
    var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
