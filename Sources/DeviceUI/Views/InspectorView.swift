import Foundation
import HandoffCore
import TerminalCells

/// The inspector's state in the screen (F10): what it was opened on, the tab and the scroll.
public struct InspectorState: Hashable, Sendable {
    public enum Tab: Int, Hashable, Sendable, CaseIterable {
        case userInfo, payload, beacon

        public var title: String {
            switch self {
            case .userInfo: "userInfo"
            case .payload: "payload bytes"
            case .beacon: "beacon bytes"
            }
        }
    }

    public var subject: Inspection.Subject
    public var tab: Tab
    /// Lines scrolled past at the top of the body.
    public var scroll: Int

    public init(subject: Inspection.Subject, tab: Tab = .userInfo, scroll: Int = 0) {
        self.subject = subject
        self.tab = tab
        self.scroll = scroll
    }
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

    static func lines(_ inspection: Inspection?, tab: InspectorState.Tab, width: Int) -> [Line] {
        guard let inspection else { return [[("Nothing to inspect.", Style(.dim))]] }
        switch tab {
        case .userInfo: return userInfoLines(inspection, width: width)
        case .payload: return payloadLines(inspection, width: width)
        case .beacon: return beaconLines(inspection, width: width)
        }
    }

    // MARK: userInfo

    static func userInfoLines(_ inspection: Inspection, width: Int) -> [Line] {
        var lines: [Line] = []
        if let reason = inspection.emptyReason {
            for line in TextWidth.wrap(reason, width: width) { lines.append([(line, Style(.dim))]) }
            return lines
        }
        let rows = UserInfoTree.rows(origin: inspection.origin?.userInfo, receiver: inspection.receiver?.userInfo)
        func header(_ side: Inspection.Side?, _ label: String) -> Line {
            guard let side else { return [(label + ": not known here", Style(.dim))] }
            return [(label + " " + side.device, Style(.title)), (" — " + side.role, Style(.dim))]
        }
        let both = inspection.origin != nil && inspection.receiver != nil
        if isWide(width) {
            let column = (width - 3) / 2
            lines.append(pair(header(inspection.origin, "Origin"), header(inspection.receiver, "Receiver"), column: column))
            for row in rows {
                let indent = String(repeating: "  ", count: row.depth)
                let style = markStyle(row.mark)
                let left: Line = row.origin.map { [(markText(row.mark) + " " + indent + row.key + ": ", style), ($0, valueStyle(row.mark))] }
                    ?? [(markText(row.mark), style)]
                let right: Line = row.receiver.map { [(indent + row.key + ": ", style), ($0, valueStyle(row.mark))] } ?? []
                lines.append(pair(left, right, column: column))
            }
        } else {
            lines.append(header(inspection.origin, "Origin"))
            lines.append(header(inspection.receiver, "Receiver"))
            for row in rows {
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
                lines.append([(markText(row.mark) + " " + indent + row.key + ": ", style), (value, valueStyle(row.mark))])
            }
        }
        if rows.isEmpty, inspection.origin != nil || inspection.receiver != nil {
            lines.append([("  (empty userInfo)", Style(.dim))])
        }
        lines.append([])
        if both {
            let changes = rows.filter { $0.mark != .same }.count
            lines.append(changes == 0 ? [("Both sides hold the same userInfo.", Style(.success))]
                : [("\(changes) difference\(changes == 1 ? "" : "s"): ", Style(.warning)),
                   ("~ changed  + only on the receiver  − only on the origin", Style(.dim))])
        }
        if let missing = inspection.missingSide {
            for line in TextWidth.wrap(missing, width: width) { lines.append([(line, Style(.dim))]) }
        }
        return lines
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

    static func bytesPerLine(_ width: Int) -> Int { width >= 100 ? 16 : 8 }

    static func payloadLines(_ inspection: Inspection, width: Int) -> [Line] {
        guard let payload = inspection.payload else {
            let text = inspection.emptyReason ?? "The payload's bytes are not kept here (they travelled before this device started, or the continuation stopped before the payload)."
            return TextWidth.wrap(text, width: width).map { [($0, Style(.dim))] }
        }
        var lines: [Line] = [[("Payload \(payload.direction): \(binarySize(payload.size))", Style(.title)),
                              ("  (docs/payload.md)", Style(.dim))]]
        if let annotated = payload.annotated {
            lines += hexLines(annotated, width: width)
        } else {
            for line in TextWidth.wrap(payload.problem ?? "", width: width) { lines.append([(line, Style(.warning))]) }
            lines += rawLines(payload.raw, width: width)
        }
        return lines
    }

    static func beaconLines(_ inspection: Inspection, width: Int) -> [Line] {
        guard let beacon = inspection.beacon else {
            return TextWidth.wrap("No beacon from this peer was opened here (beacons travel on the network; the in-memory devices of tests have none).",
                                  width: width).map { [($0, Style(.dim))] }
        }
        let time = beacon.received.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true).time(includingFractionalSeconds: true))
        var lines: [Line] = [[("Last beacon from \(beacon.peer), opened at \(time) UTC", Style(.title)),
                              ("  docs/wire.md, Beacons", Style(.dim))]]
        guard let bytes = beacon.bytes else {
            lines.append([(beacon.problem ?? "", Style(.warning))])
            return lines
        }
        lines.append([("Datagram (\(bytes.datagram.bytes.count) bytes, as it travelled)", Style(.accent))])
        lines += hexLines(bytes.datagram, width: width)
        lines.append([])
        lines.append([("Plaintext (\(bytes.plaintext.bytes.count) bytes, decrypted with the account's beacon key)", Style(.accent))])
        if bytes.plaintext.fields.isEmpty {
            lines.append([("The plaintext is not what this codec writes: no fields shown.", Style(.warning))])
            lines += rawLines(bytes.plaintext.bytes, width: width)
        } else {
            lines += hexLines(bytes.plaintext, width: width)
        }
        return lines
    }

    /// Each field: its offset, its bytes in hex (several lines for a long field), its name
    /// (indented by depth) and what it says.
    static func hexLines(_ annotated: AnnotatedBytes, width: Int) -> [Line] {
        let perLine = bytesPerLine(width)
        let offsetWidth = annotated.bytes.count > 0xFFFF ? 6 : 4
        let hexWidth = perLine * 3
        var lines: [Line] = []
        for field in annotated.fields {
            let bytes = annotated.bytes[field.range]
            let chunks = stride(from: field.range.lowerBound, to: field.range.upperBound, by: perLine)
            for (index, start) in chunks.enumerated() {
                if index == maximumLinesPerField {
                    let rest = field.range.upperBound - start
                    lines.append([(String(repeating: " ", count: offsetWidth + 2) + "… \(rest) more bytes", Style(.dim))])
                    break
                }
                let end = min(start + perLine, field.range.upperBound)
                let hex = bytes[start..<end].map { String(format: "%02x", $0) }.joined(separator: " ")
                var line: Line = [(hexOffset(start, width: offsetWidth) + "  ", Style(.dim)),
                                  (hex + String(repeating: " ", count: max(0, hexWidth - hex.count)), Style(.normal))]
                if index == 0 {
                    line.append((String(repeating: " ", count: 2 * field.depth) + field.name, Style(.accent)))
                    line.append(("  " + field.value, Style(.normal)))
                }
                lines.append(line)
            }
        }
        return lines
    }

    static func rawLines(_ bytes: [UInt8], width: Int) -> [Line] {
        let perLine = bytesPerLine(width)
        return stride(from: 0, to: bytes.count, by: perLine).map { start in
            let hex = bytes[start..<min(start + perLine, bytes.count)].map { String(format: "%02x", $0) }.joined(separator: " ")
            return [(hexOffset(start, width: 4) + "  ", Style(.dim)), (hex, Style(.normal))]
        }
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
            let filled = min(barWidth, Int((min(1, fraction) * Double(barWidth)).rounded(fraction >= 0.02 ? .up : .down)))
            let percent = fraction * 100
            let text = percent > 0 && percent < 1 ? "<1%" : "\(Int(percent.rounded()))%"
            return ("▕" + String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled) + "▏", text)
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
            let text = value >= 100 || value == value.rounded() ? "\(Int(value.rounded()))" : String(format: "%.1f", value)
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
        grid.box(panel, style: Style(.accent), title: TextWidth.truncate(title, to: panel.width - 6), titleStyle: Style(.title),
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
        for (row, line) in lines.dropFirst(first).prefix(body.height).enumerated() {
            grid.write(line, in: body, row: row)
        }
        let hint = inside.row(inside.height - 1)
        grid.write(hintPieces([("←→", "tab"), ("↑↓ PgUp PgDn", "scroll"), ("Esc", "close")], width: hint.width), in: hint)
        if lines.count > body.height {
            grid.write("\(first + 1)–\(min(lines.count, first + body.height)) of \(lines.count)", in: hint, style: Style(.dim),
                       alignment: .trailing)
        }
    }
}
