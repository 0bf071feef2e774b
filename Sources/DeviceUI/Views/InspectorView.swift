import Foundation
import HandoffCore
import TerminalCells

/// The inspector's state in the screen (F10): what it was opened on, the tab and the scroll.
package struct InspectorState: Hashable, Sendable {
    package enum Tab: Int, Hashable, Sendable, CaseIterable {
        case userInfo, payload, beacon

        package var title: String {
            switch self {
            case .userInfo: "userInfo"
            case .payload: "payload bytes"
            case .beacon: "beacon bytes"
            }
        }
    }

    package var subject: Inspection.Subject
    package var tab: Tab
    /// Lines scrolled past at the top of the body.
    package var scroll: Int

    package init(subject: Inspection.Subject, tab: Tab = .userInfo, scroll: Int = 0) {
        self.subject = subject
        self.tab = tab
        self.scroll = scroll
    }
}

/// A tab's lines, made only when drawn: fixed lines and runs of lines made from their index
/// (a payload near the limit has thousands of fields; a frame draws a screenful).
struct InspectorLines {
    typealias Line = [(String, Style)]

    private enum Piece {
        case fixed([Line])
        case made(count: Int, line: (Int) -> Line)

        var count: Int {
            switch self {
            case .fixed(let lines): lines.count
            case .made(let count, _): count
            }
        }
    }

    private var pieces: [Piece] = []
    private(set) var count = 0

    init(_ lines: [Line] = []) {
        append(lines)
    }

    mutating func append(_ lines: [Line]) {
        guard !lines.isEmpty else { return }
        pieces.append(.fixed(lines))
        count += lines.count
    }

    mutating func append(count: Int, line: @escaping (Int) -> Line) {
        guard count > 0 else { return }
        pieces.append(.made(count: count, line: line))
        self.count += count
    }

    mutating func append(_ other: InspectorLines) {
        pieces += other.pieces
        count += other.count
    }

    /// The lines in `range` (clamped to the lines there are).
    func lines(in range: Range<Int>) -> [Line] {
        var result: [Line] = []
        var offset = 0
        let wanted = max(0, range.lowerBound)..<min(count, range.upperBound)
        guard !wanted.isEmpty else { return [] }
        for piece in pieces {
            let pieceRange = offset..<offset + piece.count
            offset += piece.count
            let overlap = pieceRange.clamped(to: wanted)
            guard !overlap.isEmpty else { continue }
            for index in overlap {
                switch piece {
                case .fixed(let lines): result.append(lines[index - pieceRange.lowerBound])
                case .made(_, let line): result.append(line(index - pieceRange.lowerBound))
                }
            }
        }
        return result
    }

    /// Every line (for tests and small tabs).
    var all: [Line] { lines(in: 0..<count) }
}

/// The inspector's geometry and lines, shared by the view and the reducer (which clamps the
/// scroll with them). Pure: it only lays out what the ``Inspection`` holds.
enum InspectorView {
    typealias Line = [(String, Style)]

    /// Where the inspector draws: the whole terminal above the footer.
    static func panel(in size: Size) -> Rect {
        Rect(x: 0, y: 0, width: size.width, height: max(0, size.height - 1))
    }

    /// The body (the scrolled lines) inside the panel: below the tabs, the meter and a rule,
    /// above the hint line.
    static func body(in size: Size) -> Rect {
        panel(in: size).inset(top: 4, left: 2, bottom: 2, right: 2)
    }

    /// Whether both sides of the tree are drawn side by side.
    static func isWide(_ width: Int) -> Bool { width >= 110 }

    static func lines(_ inspection: Inspection?, tab: InspectorState.Tab, width: Int) -> InspectorLines {
        guard let inspection else { return InspectorLines([[("Nothing to inspect.", Style(.dim))]]) }
        switch tab {
        case .userInfo: return userInfoLines(inspection, width: width)
        case .payload: return payloadLines(inspection, width: width)
        case .beacon: return beaconLines(inspection, width: width)
        }
    }

    // MARK: userInfo

    static func userInfoLines(_ inspection: Inspection, width: Int) -> InspectorLines {
        var lines: [Line] = []
        if let reason = inspection.emptyReason {
            for line in TextWidth.wrap(reason, width: width) { lines.append([(line, Style(.dim))]) }
            return InspectorLines(lines)
        }
        var result = InspectorLines()
        let rows = inspection.treeRows.prefix(maximumLines)
        func header(_ side: Inspection.Side?, _ label: String) -> Line {
            guard let side else { return [(label + ": not known here", Style(.dim))] }
            return [(label + " " + side.device, Style(.title)), (" — " + side.role, Style(.dim))]
        }
        let both = inspection.origin != nil && inspection.receiver != nil
        if isWide(width) {
            let column = (width - 3) / 2
            lines.append(
                pair(header(inspection.origin, "Origin"), header(inspection.receiver, "Receiver"), column: column))
            result.append(lines)
            lines = []
            result.append(count: rows.count) { index in
                let row = rows[rows.startIndex + index]
                let indent = String(repeating: "  ", count: row.depth)
                let style = markStyle(row.mark)
                let left: Line =
                    row.origin.map {
                        [(markText(row.mark) + " " + indent + row.key + ": ", style), ($0, valueStyle(row.mark))]
                    }
                    ?? [(markText(row.mark), style)]
                let right: Line =
                    row.receiver.map { [(indent + row.key + ": ", style), ($0, valueStyle(row.mark))] } ?? []
                return pair(left, right, column: column)
            }
        } else {
            lines.append(header(inspection.origin, "Origin"))
            lines.append(header(inspection.receiver, "Receiver"))
            result.append(lines)
            lines = []
            result.append(count: rows.count) { index in
                let row = rows[rows.startIndex + index]
                let indent = String(repeating: "  ", count: row.depth)
                let style = markStyle(row.mark)
                var value: String
                switch row.mark {
                case .changed: value = "\(row.origin ?? "") → \(row.receiver ?? "")"
                case .removed: value = row.origin ?? ""
                case .added: value = row.receiver ?? ""
                case .same: value = row.origin ?? row.receiver ?? ""
                }
                if row.mark == .removed { value += "  (not on the receiver)" }
                if row.mark == .added { value += "  (only on the receiver)" }
                return [(markText(row.mark) + " " + indent + row.key + ": ", style), (value, valueStyle(row.mark))]
            }
        }
        if inspection.treeRows.count > rows.count {
            lines.append([("  … \(inspection.treeRows.count - rows.count) more rows", Style(.dim))])
        }
        if rows.isEmpty, inspection.origin != nil || inspection.receiver != nil {
            lines.append([("  (empty userInfo)", Style(.dim))])
        }
        lines.append([])
        if both {
            let changes = inspection.treeRows.filter { $0.mark != .same }.count
            lines.append(
                changes == 0
                    ? [("Both sides hold the same userInfo.", Style(.success))]
                    : [
                        ("\(changes) difference\(changes == 1 ? "" : "s"): ", Style(.warning)),
                        ("~ changed  + only on the receiver  − only on the origin", Style(.dim)),
                    ])
        }
        if let missing = inspection.missingSide {
            for line in TextWidth.wrap(missing, width: width) { lines.append([(line, Style(.dim))]) }
        }
        result.append(lines)
        return result
    }

    static func pair(_ left: Line, _ right: Line, column: Int) -> Line {
        var line: Line = []
        var used = 0
        for (text, style) in left {
            let room = column - used
            guard room > 0 else { break }
            let fitted = TextWidth.truncate(text, to: room)
            line.append((fitted, style))
            used += TextWidth.of(fitted)
        }
        line.append((String(repeating: " ", count: max(0, column - used)) + " │ ", Style(.frame)))
        return line + right
    }

    static func markText(_ mark: UserInfoTreeRow.Mark) -> String {
        switch mark {
        case .same: " "
        case .changed: "~"
        case .added: "+"
        case .removed: "−"
        }
    }

    static func markStyle(_ mark: UserInfoTreeRow.Mark) -> Style {
        switch mark {
        case .same: Style(.accent)
        case .changed: Style(.warning, bold: true)
        case .added: Style(.success, bold: true)
        case .removed: Style(.error, bold: true)
        }
    }

    static func valueStyle(_ mark: UserInfoTreeRow.Mark) -> Style {
        mark == .same ? Style(.normal) : markStyle(mark)
    }

    // MARK: Bytes

    /// The most hex lines one field shows; the rest is counted.
    static let maximumLinesPerField = 16
    /// The most lines a tab lays out (a payload near the limit has tens of thousands of fields);
    /// the rest is counted.
    static let maximumLines = 4000

    /// Bytes per hex line: fewer on a narrow body, so that the fields' names keep a column.
    static func bytesPerLine(_ width: Int) -> Int { width >= 100 ? 16 : width >= 60 ? 8 : 4 }

    /// A field's name (indented by depth) and what it says, in the column beside the hex:
    /// on one row when they fit, else the name and then the value on rows of their own, wrapped
    /// at whole words (a name is never cut: "version", not "versi…").
    static func labelRows(name: String, value: String, depth: Int, width: Int) -> [Line] {
        let indent = String(repeating: " ", count: 2 * depth)
        if TextWidth.of(indent + name + "  " + value) <= width {
            return [[(indent + name, Style(.accent)), ("  " + value, Style(.normal))]]
        }
        var rows: [Line] = TextWidth.wrap(indent + name, width: max(1, width)).map { [($0, Style(.accent))] }
        if !value.isEmpty {
            rows += TextWidth.wrap(value, width: max(1, width - TextWidth.of(indent) - 2))
                .map { [(indent + "  " + $0, Style(.normal))] }
        }
        return rows
    }

    /// A heading and, dimmed, where it is documented: on one line when both fit `width`, else
    /// the heading wrapped at whole words and the note on a line of its own.
    static func heading(_ text: String, style: Style, note: String? = nil, width: Int) -> [Line] {
        guard let note else { return TextWidth.wrap(text, width: max(1, width)).map { [($0, style)] } }
        if TextWidth.of(text) + 2 + TextWidth.of(note) <= width {
            return [[(text, style), ("  " + note, Style(.dim))]]
        }
        return TextWidth.wrap(text, width: max(1, width)).map { [($0, style)] }
            + TextWidth.wrap(note, width: max(1, width)).map { [($0, Style(.dim))] }
    }

    static func payloadLines(_ inspection: Inspection, width: Int) -> InspectorLines {
        guard let payload = inspection.payload else {
            let text =
                inspection.emptyReason
                ?? "The payload's bytes are not kept here (they travelled before this device started, or the continuation stopped before the payload)."
            return InspectorLines(TextWidth.wrap(text, width: width).map { [($0, Style(.dim))] })
        }
        var lines = InspectorLines(
            heading(
                "Payload \(payload.direction): \(binarySize(payload.size))", style: Style(.title),
                note: "(docs/payload.md)", width: width))
        if let annotated = payload.annotated {
            lines.append(hexLines(annotated, width: width))
        } else {
            lines.append(TextWidth.wrap(payload.problem ?? "", width: width).map { [($0, Style(.warning))] })
            lines.append(rawLines(payload.raw, width: width))
        }
        return lines
    }

    static func beaconLines(_ inspection: Inspection, width: Int) -> InspectorLines {
        guard let beacon = inspection.beacon else {
            return InspectorLines(
                TextWidth.wrap(
                    "No beacon from this peer was opened here (beacons travel on the network; the in-memory devices of tests have none).",
                    width: width
                ).map { [($0, Style(.dim))] })
        }
        let time = beacon.received.formatted(
            Date.ISO8601FormatStyle(includingFractionalSeconds: true).time(includingFractionalSeconds: true))
        var lines = InspectorLines(
            heading(
                "Last beacon from \(beacon.peer), opened at \(time) UTC", style: Style(.title),
                note: "docs/wire.md, Beacons", width: width))
        guard let bytes = beacon.bytes else {
            lines.append(heading(beacon.problem ?? "", style: Style(.warning), width: width))
            return lines
        }
        guard let apple = bytes.apple else {
            lines.append(ourBeaconLines(bytes, width: width))
            return lines
        }
        if isWide(width) {
            // Ours on the left; Apple's on the right, and below it (it is short) what differs.
            let column = (width - 3) / 2
            let left =
                [[("Ours: the simulator's UDP beacon", Style(.title))]] + ourBeaconLines(bytes, width: column).all
            let right =
                [[("Apple's: its BLE advertisement, same activity", Style(.title))]]
                + appleLines(apple, width: column).all + [[]] + differenceLines(width: column).all
            lines.append(
                (0..<max(left.count, right.count)).map { index in
                    pair(
                        index < left.count ? left[index] : [], index < right.count ? right[index] : [], column: column)
                })
            return lines
        } else {
            lines.append(
                heading(
                    "Ours: the simulator's UDP beacon. Apple's BLE advertisement for the same activity follows (scroll down).",
                    style: Style(.title), width: width))
            lines.append(ourBeaconLines(bytes, width: width))
            lines.append([[], [("Apple's: its BLE advertisement, same activity", Style(.title))]])
            lines.append(appleLines(apple, width: width))
        }
        lines.append([[]])
        lines.append(differenceLines(width: width))
        return lines
    }

    /// Our datagram and its plaintext, each field annotated.
    static func ourBeaconLines(_ bytes: BeaconBytes, width: Int) -> InspectorLines {
        var lines = InspectorLines(
            heading(
                "Datagram (\(bytes.datagram.bytes.count) bytes, as it travelled)", style: Style(.accent), width: width))
        lines.append(hexLines(bytes.datagram, width: width))
        lines.append(
            [[]]
                + heading(
                    "Plaintext (\(bytes.plaintext.bytes.count) bytes, decrypted with the account's beacon key)",
                    style: Style(.accent), width: width))
        if bytes.plaintext.fields.isEmpty {
            lines.append(
                heading(
                    "The plaintext is not what this codec writes: no fields shown.", style: Style(.warning),
                    width: width))
            lines.append(rawLines(bytes.plaintext.bytes, width: width))
        } else {
            lines.append(hexLines(bytes.plaintext, width: width))
        }
        return lines
    }

    /// Apple's advertisement for the same activity and its plaintext, each field annotated.
    static func appleLines(_ apple: AppleAdvertisementBytes, width: Int) -> InspectorLines {
        var lines = InspectorLines(
            heading(
                "Manufacturer data (\(apple.advertisement.bytes.count) bytes, demo key 00 01 … 1f)",
                style: Style(.accent), width: width))
        lines.append(hexLines(apple.advertisement, width: width))
        lines.append(
            [[]]
                + heading(
                    "Plaintext (\(apple.plaintext.bytes.count) bytes; the IV is the counter's 2 bytes)",
                    style: Style(.accent), width: width))
        lines.append(hexLines(apple.plaintext, width: width))
        return lines
    }

    /// What differs between the two and why (docs/wire.md, "Compared with Apple's BLE beacon").
    static let differences: [(String, String)] = [
        ("Same", "the 7-byte activity type hash (Apple's rule) and the webpageURL option."),
        (
            "Tag",
            "Apple sends 8 of GCM's 128 tag bits: a forged or changed advertisement passes 1 time in 256. Ours sends all 128."
        ),
        (
            "Nonce",
            "Apple's IV is its 16-bit counter, in clear and linkable across address changes. Ours is 96 random bits; our counter is inside the ciphertext."
        ),
        (
            "In clear",
            "Apple's flags byte tells anyone nearby that copy/cut happened. Ours shows only the version, and every beacon is 128 bytes."
        ),
        (
            "Replay",
            "Apple's receiver takes only a greater counter, so one forged high counter shuts out the real ones. Ours needs a newer boot and counter within 30 s of the receiver's clock, from authenticated beacons only."
        ),
        (
            "Size",
            "Apple's fits a 31-byte BLE advertisement. Ours is a UDP datagram and also carries the device, its name, session port and team hash."
        ),
    ]

    static func differenceLines(width: Int) -> InspectorLines {
        var lines = InspectorLines(
            heading(
                "What differs, and why", style: Style(.title), note: "docs/wire.md, Apple's advertisement",
                width: width))
        for (name, text) in differences {
            let rows = TextWidth.wrap(text, width: max(1, width - 10))
            for (index, row) in rows.enumerated() {
                let label =
                    index == 0
                    ? name.padding(toLength: 10, withPad: " ", startingAt: 0) : String(repeating: " ", count: 10)
                lines.append([[(label, Style(.accent)), (row, Style(.normal))]])
            }
        }
        return lines
    }

    /// Each field: its offset, its bytes in hex (several lines for a long field), its name
    /// (indented by depth) and what it says. Only the lines drawn are made: a field's lines are
    /// counted from its length, and a line is found by its field's first line.
    static func hexLines(_ annotated: AnnotatedBytes, width: Int) -> InspectorLines {
        let perLine = bytesPerLine(width)
        let offsetWidth = annotated.bytes.count > 0xFFFF ? 6 : 4
        let hexWidth = perLine * 3
        // Names and values beside the hex when there is room for them, else below it.
        let besideWidth = width - offsetWidth - 2 - hexWidth
        let isBeside = besideWidth >= 20
        let labelWidth = max(1, isBeside ? besideWidth : width - offsetWidth - 2)
        // The first line of each field, its hex lines, and where the fields shown end.
        var firstLines: [Int] = []
        var hexCounts: [Int] = []
        var labels: [[Line]] = []
        var total = 0
        for field in annotated.fields {
            guard total < maximumLines else { break }
            firstLines.append(total)
            let chunks = (field.range.count + perLine - 1) / perLine
            let hexCount = chunks > maximumLinesPerField ? maximumLinesPerField + 1 : chunks
            let label = labelRows(name: field.name, value: field.value, depth: field.depth, width: labelWidth)
            hexCounts.append(hexCount)
            labels.append(label)
            total += isBeside ? max(hexCount, label.count) : hexCount + label.count
        }
        let shownFields = firstLines.count
        var lines = InspectorLines()
        lines.append(count: total) { index in
            // The field whose lines hold `index`.
            var low = 0
            var high = shownFields - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if firstLines[middle] <= index { low = middle } else { high = middle - 1 }
            }
            let field = annotated.fields[low]
            let chunk = index - firstLines[low]
            let start = field.range.lowerBound + chunk * perLine
            let labelRow = isBeside ? chunk : chunk - hexCounts[low]
            let label = labelRow >= 0 && labelRow < labels[low].count ? labels[low][labelRow] : []
            if chunk == maximumLinesPerField {
                return [
                    (
                        String(repeating: " ", count: offsetWidth + 2)
                            + "… \(field.range.upperBound - start) more bytes", Style(.dim)
                    )
                ]
            }
            guard chunk < hexCounts[low] else {
                // A label's row below the field's last hex line.
                return [(String(repeating: " ", count: offsetWidth + 2 + (isBeside ? hexWidth : 0)), Style(.normal))]
                    + label
            }
            let end = min(start + perLine, field.range.upperBound)
            let hex = annotated.bytes[start..<end].map { String(format: "%02x", $0) }.joined(separator: " ")
            let line: Line = [
                (hexOffset(start, width: offsetWidth) + "  ", Style(.dim)),
                (hex + String(repeating: " ", count: max(0, hexWidth - hex.count)), Style(.normal)),
            ]
            return isBeside ? line + label : line
        }
        if shownFields < annotated.fields.count {
            let rest = annotated.fields.count - shownFields
            lines.append([
                [("… \(rest) more field\(rest == 1 ? "" : "s"), to byte \(annotated.bytes.count)", Style(.dim))]
            ])
        }
        return lines
    }

    static func rawLines(_ bytes: [UInt8], width: Int) -> InspectorLines {
        let perLine = bytesPerLine(width)
        var lines = InspectorLines()
        lines.append(count: min((bytes.count + perLine - 1) / perLine, maximumLines)) { index in
            let start = index * perLine
            let hex = bytes[start..<min(start + perLine, bytes.count)].map { String(format: "%02x", $0) }.joined(
                separator: " ")
            return [(hexOffset(start, width: 4) + "  ", Style(.dim)), (hex, Style(.normal))]
        }
        return lines
    }

    static func hexOffset(_ offset: Int, width: Int) -> String {
        let text = String(offset, radix: 16)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    // MARK: The meter

    /// "Size 179 B  3 KB guidance ▕░░░░░░░░▏ 6%  512 KB limit ▕░░░░░░░░▏ <1%": the payload
    /// against Apple's guidance and this device's hard limit (4611 above it).
    static func meter(_ inspection: Inspection, width: Int) -> Line {
        guard let size = inspection.size else {
            return [("Size: no payload has travelled for this yet", Style(.dim))]
        }
        let barWidth = width >= 110 ? 20 : 8
        func bar(_ fraction: Double) -> (String, String) {
            let filled = min(
                barWidth, Int((min(1, fraction) * Double(barWidth)).rounded(fraction >= 0.02 ? .up : .down)))
            let percent = fraction * 100
            let text = percent > 0 && percent < 1 ? "<1%" : "\(Int(percent.rounded()))%"
            return (
                "▕" + String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled) + "▏",
                text
            )
        }
        let guidance = Double(size) / Double(max(1, inspection.guidanceBytes))
        let limit = Double(size) / Double(max(1, inspection.limitBytes))
        let (guidanceBar, guidanceText) = bar(guidance)
        let (limitBar, limitText) = bar(limit)
        let guidanceRole: Role = guidance > 1 ? .warning : .success
        let limitRole: Role = limit > 1 ? .error : .success
        let apple = width >= 110 ? "Apple's guidance " : "guidance "
        return [
            ("Size \(binarySize(size))", Style(.title)),
            ("  \(apple)\(binarySize(inspection.guidanceBytes)) ", Style(.dim)), (guidanceBar, Style(guidanceRole)),
            (" " + guidanceText, Style(guidanceRole)),
            ("  limit \(binarySize(inspection.limitBytes)) ", Style(.dim)), (limitBar, Style(limitRole)),
            (" " + limitText, Style(limitRole)),
        ]
    }

    /// Bytes as Apple counts its guidance: 3 KB is 3072 bytes.
    static func binarySize(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        func scaled(_ value: Double, _ unit: String) -> String {
            let text =
                value >= 100 || value == value.rounded() ? "\(Int(value.rounded()))" : String(format: "%.1f", value)
            return text + " " + unit
        }
        if bytes < 1024 * 1024 { return scaled(Double(bytes) / 1024, "KB") }
        return scaled(Double(bytes) / 1024 / 1024, "MB")
    }
}

extension ScreenView {
    /// The inspector (F10): a modal page over the whole screen.
    func drawInspector(into grid: inout Grid, inspector: InspectorState) {
        let panel = InspectorView.panel(in: state.size)
        guard panel.height >= 8, panel.width >= 30 else { return }
        grid.fill(panel, style: Style(.normal))
        let title = "Inspector · " + (device.inspection?.title ?? "nothing yet")
        grid.box(
            panel, style: Style(.accent), title: TextWidth.truncate(title, to: panel.width - 6),
            titleStyle: Style(.title),
            lines: .double)
        let inside = panel.inset(top: 1, left: 2, bottom: 1, right: 2)
        // Tabs.
        var tabs: [(String, Style)] = []
        for tab in InspectorState.Tab.allCases {
            if !tabs.isEmpty { tabs.append(("  ", Style(.dim))) }
            tabs.append((" \(tab.title) ", tab == inspector.tab ? Style(.selection) : Style(.dim)))
        }
        grid.write(tabs, in: inside, row: 0)
        if let inspection = device.inspection {
            grid.write(InspectorView.meter(inspection, width: inside.width), in: inside, row: 1)
        }
        grid.write(String(repeating: "─", count: inside.width), in: inside, row: 2, style: Style(.frame))
        let body = InspectorView.body(in: state.size)
        let lines = InspectorView.lines(device.inspection, tab: inspector.tab, width: body.width)
        let first = min(max(0, inspector.scroll), max(0, lines.count - body.height))
        for (row, line) in lines.lines(in: first..<first + body.height).enumerated() {
            grid.write(line, in: body, row: row)
        }
        let hint = inside.row(inside.height - 1)
        drawScrollHint(
            into: &grid, hint: hint, hints: [("←→", "tab"), ("↑↓ PgUp PgDn", "scroll"), ("Esc", "close")],
            first: first, shown: body.height, of: lines.count)
    }
}
