import Foundation
import HandoffCore

/// Several devices' lifecycles on one time axis: a lane per device, time going down, and arrows
/// for what crosses the network, paired by what both ends record (the beacon by device, serial
/// and type hash; everything of a continuation by its identifier), in causal order. `handoff
/// timeline` draws it on a terminal and as text (`--print`, DeviceUI's `TimelineWidget`), as a
/// picture (`--svg`), a Mermaid sequence diagram (`--mermaid`) and a trace (`--trace`).
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

    /// Something that crossed the network: from one row to a later one.
    package typealias Arrow = TimelineArrow

    package var lanes: [Lane]
    /// Every event of every lane in causal order (``TimelineLayout/rows(_:)``).
    package var rows: [Row]
    package var arrows: [Arrow]
    /// Messages sent to a lane of the timeline that recorded no receipt.
    package var lost: [TimelineLostMessage]

    /// Lays out `recordings`; with `continuation`, only that continuation's events and the
    /// beacon that made its offer.
    package init(recordings: [LifecycleRecording], continuation: String? = nil) {
        lanes = recordings.map { Lane(name: $0.device, kind: $0.deviceKind) }
        var rows = TimelineLayout.rows(recordings.map(\.events))
        if let continuation { rows = TimelineLayout.rows(rows, ofContinuation: continuation) }
        self.rows = rows.map { Row(lane: $0.lane, event: $0.event) }
        // The pairing is shared with the device's timeline view (HandoffCore's TimelineLayout),
        // made once for the arrows and the lost messages.
        let messages = TimelineLayout.messages(rows)
        arrows = TimelineLayout.arrows(of: messages)
        lost = TimelineLayout.lost(of: messages)
    }

    /// A timeline of rows already in order (a stream's, ``TimelineStream``), with their arrows
    /// and lost messages.
    package init(lanes: [Lane], rows: [(lane: Int, event: RecordedEvent)]) {
        self.lanes = lanes
        self.rows = rows.map { Row(lane: $0.lane, event: $0.event) }
        let messages = TimelineLayout.messages(rows)
        arrows = TimelineLayout.arrows(of: messages)
        lost = TimelineLayout.lost(of: messages)
    }

    /// What a row's lane says of it: its kind and its detail.
    package static func label(_ event: RecordedEvent) -> String {
        event.detail.isEmpty ? event.kind.rawValue : "\(event.kind.rawValue) \(event.detail)"
    }

    package static func clock(_ event: RecordedEvent) -> String {
        // HH:mm:ss.SSS from the recorded ISO 8601 text (UTC, as recorded).
        guard let t = event.timeText.firstIndex(of: "T") else { return event.timeText }
        return String(event.timeText[event.timeText.index(after: t)...].prefix(12))
    }

    // MARK: SVG

    /// Characters of a label line in the picture (monospace, 11 px: some 6.7 px each).
    static let svgColumns = 50

    /// The same sequence diagram as an SVG picture: every event's text whole (wrapped within its
    /// lane), every arrow going down, lost messages ending in a cross, and the colour table.
    package func svg() -> String {
        let laneWidth = 360
        let left = 110
        let top = 70
        let lineHeight = 14
        // Each row as tall as its wrapped text.
        let labels = rows.map { Self.wrap(Self.label($0.event), columns: Self.svgColumns) }
        // A row that sent a lost message has a line more, for it.
        let losing = Set(lost.map(\.from))
        var rowTop: [Int] = []
        var cursor = top
        for (index, lines) in labels.enumerated() {
            rowTop.append(cursor)
            cursor += 16 + lineHeight * (lines.count + (losing.contains(index) ? 1 : 0))
        }
        let legendTop = cursor + 20
        // Wide enough for the last lane's text and the colour table's longest line.
        let legend = TimelineTone.allCases.map(Self.legend)
        let textWidth = Int((Double(Self.svgColumns) * 6.7).rounded(.up))
        let width = max(
            left + (max(1, lanes.count) - 1) * laneWidth + laneWidth / 2 + 8 + textWidth + 20,
            28 + Int((Double(legend.map(\.count).max() ?? 0) * 6.7).rounded(.up)) + 20)
        let height = legendTop + 24 * TimelineTone.allCases.count + 40
        func x(_ lane: Int) -> Int { left + lane * laneWidth + laneWidth / 2 }
        func y(_ row: Int) -> Int { rowTop[row] + 12 }
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
                "<line x1=\"\(x(lane))\" y1=\"\(top - 10)\" x2=\"\(x(lane))\" y2=\"\(legendTop - 10)\" stroke=\"#bbb\" stroke-width=\"2\"/>\n"
        }
        for arrow in arrows {
            let x1 = x(rows[arrow.from].lane)
            let x2 = x(rows[arrow.to].lane)
            let y1 = y(arrow.from)
            let y2 = y(arrow.to)
            let direction = x2 > x1 ? -6 : 6
            svg +=
                "<line class=\"arrow\" x1=\"\(x1)\" y1=\"\(y1)\" x2=\"\(x2 + direction)\" y2=\"\(y2)\" stroke=\"#1f6feb\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n"
            svg +=
                "<text x=\"\((x1 + x2) / 2)\" y=\"\((y1 + y2) / 2 - 4)\" text-anchor=\"middle\" fill=\"#1f6feb\"\(Self.halo)>\(Self.escape(arrow.label))</text>\n"
        }
        for message in lost {
            // Dashed towards the lane it was sent to, ending in a cross two thirds of the way, under
            // the text of the event that sent it.
            let x1 = x(rows[message.from].lane)
            let x2 = x1 + (x(message.toLane) - x1) * 2 / 3
            let y1 = rowTop[message.from] + 20 + lineHeight * labels[message.from].count
            svg +=
                "<line class=\"lost\" x1=\"\(x1)\" y1=\"\(y1)\" x2=\"\(x2)\" y2=\"\(y1)\" stroke=\"\(Self.color(.warning))\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n"
            svg +=
                "<path d=\"M\(x2 - 5),\(y1 - 5) L\(x2 + 5),\(y1 + 5) M\(x2 - 5),\(y1 + 5) L\(x2 + 5),\(y1 - 5)\" stroke=\"\(Self.color(.warning))\" stroke-width=\"2\"/>\n"
            svg +=
                "<text x=\"\((x1 + x2) / 2)\" y=\"\(y1 - 4)\" text-anchor=\"middle\" fill=\"\(Self.color(.warning))\"\(Self.halo)>\(Self.escape(message.label)) lost</text>\n"
        }
        for (index, row) in rows.enumerated() {
            let color = Self.color(TimelineTone(row.event.kind))
            svg += "<circle cx=\"\(x(row.lane))\" cy=\"\(y(index))\" r=\"4\" fill=\"\(color)\"/>\n"
            svg += "<text x=\"10\" y=\"\(y(index) + 4)\" fill=\"#666\">\(Self.escape(Self.clock(row.event)))</text>\n"
            svg +=
                "<text x=\"\(x(row.lane) + 8)\" y=\"\(y(index) + 4)\" fill=\"\(color)\"><title>\(Self.escape(row.event.explanation))</title>"
            for (number, line) in labels[index].enumerated() {
                svg +=
                    "<tspan x=\"\(x(row.lane) + 8)\" dy=\"\(number == 0 ? 0 : lineHeight)\">\(Self.escape(line))</tspan>"
            }
            svg += "</text>\n"
        }
        // The colour table: one row per tone, with the kinds it colours.
        svg += "<text x=\"10\" y=\"\(legendTop)\" font-weight=\"bold\">Colours</text>\n"
        for (number, tone) in TimelineTone.allCases.enumerated() {
            let rowY = legendTop + 20 + number * 24
            svg += "<circle cx=\"16\" cy=\"\(rowY - 4)\" r=\"4\" fill=\"\(Self.color(tone))\"/>\n"
            svg +=
                "<text class=\"legend\" x=\"28\" y=\"\(rowY)\" fill=\"\(Self.color(tone))\">\(Self.escape(legend[number]))</text>\n"
        }
        return svg + "</svg>\n"
    }

    /// A white outline under an arrow's label, so that it reads where it crosses an event's text.
    static let halo = " stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\""

    /// A line of the colour table: the tone and the kinds it colours.
    static func legend(_ tone: TimelineTone) -> String {
        let kinds = LifecycleEvent.Kind.allCases.filter { TimelineTone($0) == tone }.map(\.rawValue)
        return "\(tone.rawValue): " + (tone == .normal ? "every other event" : kinds.joined(separator: ", "))
    }

    /// The picture's colour of each tone (HandoffCore's one table of which kind has which tone).
    static func color(_ tone: TimelineTone) -> String {
        switch tone {
        case .error: "#cf222e"
        case .warning: "#9a6700"
        case .success: "#1a7f37"
        case .normal: "#24292f"
        }
    }

    /// `text` in lines of at most `columns` characters, broken at spaces where it can be (a word
    /// longer than a line is split): nothing is left out.
    static func wrap(_ text: String, columns: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            var word = Substring(word)
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if candidate.count <= columns {
                line = candidate
                continue
            }
            if !line.isEmpty { lines.append(line) }
            line = ""
            while word.count > columns {
                lines.append(String(word.prefix(columns)))
                word = word.dropFirst(columns)
            }
            line = String(word)
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    static func escape(_ text: String) -> String {
        // Printable ASCII, most of a timeline: a character a byte, escaped byte by byte.
        var copy = text
        let ascii = copy.withUTF8 { bytes -> String? in
            guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
            guard bytes.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 }) else { return text }
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count + 16)
            for byte in bytes {
                switch byte {
                case 0x26: result += Array("&amp;".utf8)
                case 0x3C: result += Array("&lt;".utf8)
                case 0x3E: result += Array("&gt;".utf8)
                case 0x22: result += Array("&quot;".utf8)
                default: result.append(byte)
                }
            }
            return String(decoding: result, as: UTF8.self)
        }
        if let ascii { return ascii }
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
