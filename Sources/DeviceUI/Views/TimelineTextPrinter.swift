import Foundation
import HandoffCore
import TerminalCells

/// `handoff timeline --print` one event at a time: the text ``TimelineWidget/text(laneWidth:)``
/// makes of a whole timeline, line for line, drawn by the widget's own code for each event as it
/// comes, so that a timeline of a million events prints without being held.
package struct TimelineTextPrinter {
    /// A message an event sent: its label and the lane it went to.
    package struct Message: Sendable, Hashable {
        package var label: String
        package var toLane: Int

        package init(label: String, toLane: Int) {
            self.label = label
            self.toLane = toLane
        }
    }

    private let widget: TimelineWidget
    /// Each lane's width (widened to fit the longest label, as the whole text does).
    package let laneWidth: Int
    private let areaWidth: Int
    private var grid: Grid
    private let blank: Grid
    /// The line being written, and the scalars of an event's text, time and a label
    /// (``write(_:arrows:lost:into:)``), kept from one event to the next.
    private var line: NarrowLine
    private var text: [UInt32] = []
    private var time: [UInt32] = []
    private var label: [UInt32] = []

    /// A printer of `lanes`, each `laneWidth` columns wide, widened to fit the longest of `labels`
    /// (the arrows' labels and the lost messages' labels followed by " lost").
    package init(lanes: [TimelineWidget.Lane], timeWidth: Int, laneWidth: Int, labels: [String]) {
        var widget = TimelineWidget(lanes: lanes, events: [], arrows: [], timeWidth: timeWidth)
        widget.wraps = true
        self.widget = widget
        self.laneWidth = max(laneWidth, (labels.map { TextWidth.of($0) }.max() ?? 0) + 8)
        areaWidth = timeWidth + lanes.count * self.laneWidth + 1
        blank = Grid(size: Size(width: areaWidth, height: 1))
        grid = blank
        let width = self.laneWidth
        line = NarrowLine(width: areaWidth, bars: lanes.indices.map { timeWidth + $0 * width })
    }

    /// The first line: the lanes' names.
    package mutating func header() -> String {
        let area = Rect(x: 0, y: 0, width: areaWidth, height: 1)
        grid = blank
        widget.drawNames(in: area, into: &grid, laneWidth: laneWidth, positionWidth: 0)
        return grid.line(0).trimmingTrailingSpaces + "\n"
    }

    /// An event's lines (its text wrapped within its lane), then a line for each arrow it sent and
    /// each message it sent that was lost, each ending in a newline.
    package mutating func lines(of event: TimelineWidget.Event, arrows: [Message], lost: [Message]) -> String {
        var widget = self.widget
        widget.events =
            [event]
            + arrows.map { TimelineWidget.Event(lane: $0.toLane, time: "", kind: nil, kindName: "", detail: "") }
        widget.arrows = arrows.indices.map { TimelineArrow(from: 0, to: $0 + 1, label: arrows[$0].label) }
        widget.lost = lost.map { TimelineLostMessage(from: 0, toLane: $0.toLane, label: $0.label) }
        let width = widget.cellWidth(lane: event.lane, laneWidth: laneWidth, areaWidth: areaWidth)
        let parts = widget.parts(of: event, width: width)
        var lines = parts.indices.map { TimelineWidget.Line.event(0, part: $0) }
        lines += widget.arrows.indices.map { .arrow($0) }
        lines += widget.lost.indices.filter { widget.lost[$0].toLane < widget.lanes.count }.map { .lost($0) }
        let area = Rect(x: 0, y: 0, width: areaWidth, height: 1)
        var text = ""
        for line in lines {
            grid = blank
            widget.draw(line, y: 0, area: area, body: area, laneWidth: laneWidth, into: &grid, parts: parts)
            text += grid.line(0).trimmingTrailingSpaces + "\n"
        }
        return text
    }

    // MARK: Straight into bytes

    /// An event's lines as ``lines(of:arrows:lost:)`` makes them, as the terminal may be given
    /// them (`TerminalText.sanitized(_:keepingLines: true)`), appended to `output` as UTF-8.
    ///
    /// What nearly every recorded event is, text of narrow characters only (``NarrowLine``), is
    /// drawn straight into one line of scalars, a cell each, with the widget's own geometry
    /// (`handoff timeline --print` draws millions of lines); anything else (a wide or combining
    /// character, a control character shown as its code point, a label cut to fit) is drawn
    /// through the widget into a ``Grid``, as ``lines(of:arrows:lost:)`` draws it.
    package mutating func write(
        _ event: TimelineWidget.Event, arrows: [Message], lost: [Message], into output: inout [UInt8]
    ) {
        var detail = event.detail
        detail.withUTF8 { detail in
            let start = output.count
            if writeNarrow(event, detail: detail, arrows: arrows, lost: lost, into: &output) { return }
            output.removeSubrange(start...)
            output.append(
                contentsOf: TerminalText.sanitized(lines(of: event, arrows: arrows, lost: lost), keepingLines: true)
                    .utf8)
        }
    }

    /// ``write(_:arrows:lost:into:)`` of `event` with the detail `detail`, UTF-8 (valid) as
    /// recorded, not sanitized (`event`'s own detail is not read): narrow text is drawn straight
    /// from its bytes, needing nothing of the sanitizer (a string of each detail was an
    /// allocation for each of millions of events); anything else as `event` with the detail
    /// sanitized is written.
    package mutating func write(
        _ event: TimelineWidget.Event, detail: UnsafeBufferPointer<UInt8>, arrows: [Message], lost: [Message],
        into output: inout [UInt8]
    ) {
        let start = output.count
        if writeNarrow(event, detail: detail, arrows: arrows, lost: lost, into: &output) { return }
        output.removeSubrange(start...)
        var event = event
        event.detail = TerminalText.sanitized(String(decoding: detail, as: UTF8.self))
        write(event, arrows: arrows, lost: lost, into: &output)
    }

    /// ``write(_:arrows:lost:into:)`` of narrow text, with the detail `detail` (UTF-8); false
    /// (having written part of it, maybe) when something is not narrow or would be cut.
    private mutating func writeNarrow(
        _ event: TimelineWidget.Event, detail: UnsafeBufferPointer<UInt8>, arrows: [Message], lost: [Message],
        into output: inout [UInt8]
    ) -> Bool {
        let lanes = widget.lanes.count
        let timeWidth = widget.timeWidth
        let laneWidth = self.laneWidth
        func laneX(_ lane: Int) -> Int { timeWidth + lane * laneWidth }
        // The event's text, a scalar a cell, wrapped within its lane as `TextWidth.wrap` does.
        text.removeAll(keepingCapacity: true)
        guard NarrowLine.append(event.kindName, to: &text) else { return false }
        if !detail.isEmpty {
            text.append(0x20)
            guard NarrowLine.append(detail, to: &text) else { return false }
        }
        time.removeAll(keepingCapacity: true)
        guard NarrowLine.append(event.time, to: &time), time.count <= timeWidth - 1 else { return false }
        let width = widget.cellWidth(lane: event.lane, laneWidth: laneWidth, areaWidth: areaWidth)
        guard width >= 1 else { return false }
        let parts = NarrowLine.wrap(text, width: width)
        for (part, range) in parts.enumerated() {
            let cell = laneX(event.lane) + 1
            // Nearly always: the blank line's bytes around the time and the part, which are
            // encoded alone (drawing the line cell by cell encoded every cell of it).
            if line.writeEvent(
                time: part == 0 ? time[...] : [], marker: part == 0 ? NarrowLine.eventMarker : 0x20,
                text: text[range], at: cell, clip: cell..<(cell + width + 1), into: &output)
            {
                continue
            }
            line.clear()
            if part == 0 { line.put(time[...], at: 0) }
            // The marker and the part, within the cell after the lane's bar (never cut: a part
            // fits the cell's width).
            line.put(part == 0 ? NarrowLine.eventMarker : 0x20, at: cell, clip: cell..<(cell + width + 1))
            line.put(text[range], at: cell + 1, clip: cell..<(cell + width + 1))
            line.write(into: &output)
        }
        for arrow in arrows {
            line.clear()
            let from = laneX(event.lane)
            let to = laneX(arrow.toLane)
            let low = min(from, to)
            let high = max(from, to)
            if high > low + 1 {
                line.put(NarrowLine.arrowDash, count: high - low - 1, at: low + 1)
                line.put(from < to ? NarrowLine.arrowRight : NarrowLine.arrowLeft, at: from < to ? high - 1 : low + 1)
                let room = high - low - 3
                if room > 2 {
                    label.removeAll(keepingCapacity: true)
                    label.append(0x20)
                    guard NarrowLine.append(arrow.label, to: &label) else { return false }
                    label.append(0x20)
                    guard label.count <= room else { return false }
                    line.put(label[...], at: low + 2 + (room - label.count) / 2)
                }
            }
            line.write(into: &output)
        }
        for message in lost where message.toLane < lanes {
            line.clear()
            let from = laneX(event.lane)
            let to = laneX(message.toLane)
            if abs(to - from) > 4 {
                let reach = (to - from) - (to > from ? 2 : -2)
                let step = reach > 0 ? 1 : -1
                let dashes = abs(reach) - 1
                if dashes > 0 {
                    line.put(NarrowLine.lostDash, count: dashes, at: min(from + step, from + reach - step))
                }
                line.put(NarrowLine.lostCross, at: from + reach)
                let room = abs(reach) - 2
                if room > 2 {
                    label.removeAll(keepingCapacity: true)
                    label.append(0x20)
                    guard NarrowLine.append(message.label, to: &label) else { return false }
                    label.append(contentsOf: [0x20, 0x6C, 0x6F, 0x73, 0x74, 0x20])  // " lost "
                    guard label.count <= room else { return false }
                    line.put(label[...], at: min(from, from + reach) + 1 + (room - label.count) / 2)
                }
            }
            line.write(into: &output)
        }
        return true
    }
}

/// One line of ``TimelineTextPrinter``'s text as scalars, a cell each, for text whose every
/// scalar is a character of one cell of its own: printable ASCII, the middle dot, the general
/// punctuation (dashes, quotes, the ellipsis) but its spaces, separators and format characters,
/// the arrows, and the box drawing, block elements and geometric shapes but the two wide ones
/// (U+25FD, U+25FE); none of them joins the scalar before or after it, and none has a case. Such
/// text draws as ``Grid/put(_:at:style:clip:)`` draws it, a scalar a column, and needs nothing
/// of ``TerminalText/sanitized(_:keepingLines:)``: none of it is a control or a format character.
struct NarrowLine {
    static let laneBar: UInt32 = 0x2502  // │
    static let eventMarker: UInt32 = 0x25CF  // ●
    static let arrowDash: UInt32 = 0x2500  // ─
    static let arrowRight: UInt32 = 0x25B6  // ▶
    static let arrowLeft: UInt32 = 0x25C0  // ◀
    static let lostDash: UInt32 = 0x254C  // ╌
    static let lostCross: UInt32 = 0x2573  // ╳

    /// The line with only the lanes' bars: what every line starts from.
    private let blank: [UInt32]
    /// The blank line's UTF-8, where each of its columns starts in it (and where it ends), and
    /// how many of its columns are left when its trailing spaces are cut.
    private let blankUTF8: [UInt8]
    private let blankStart: [Int]
    private let blankEnd: Int
    private var cells: [UInt32]
    /// The line's UTF-8 as ``write(into:)`` encodes it, kept from one line to the next.
    private var utf8: [UInt8]

    /// A line `width` cells wide with a lane's bar at each of `bars`.
    init(width: Int, bars: [Int]) {
        var blank = [UInt32](repeating: 0x20, count: max(0, width))
        for x in bars where x >= 0 && x < blank.count { blank[x] = Self.laneBar }
        self.blank = blank
        cells = blank
        var blankUTF8: [UInt8] = []
        var blankStart: [Int] = []
        for value in blank {
            blankStart.append(blankUTF8.count)
            if let scalar = Unicode.Scalar(value) { blankUTF8.append(contentsOf: scalar.utf8) }
        }
        blankStart.append(blankUTF8.count)
        self.blankUTF8 = blankUTF8
        self.blankStart = blankStart
        blankEnd = (blank.lastIndex { $0 != 0x20 } ?? -1) + 1
        // A narrow scalar is at most three bytes (none is beyond U+FFFF), and a newline; room for
        // four a column, what ``writeEvent(time:marker:text:at:clip:into:)`` makes.
        utf8 = [UInt8](repeating: 0, count: 4 * blank.count + 1)
    }

    /// Whether `value` is a narrow scalar.
    static func isNarrow(_ value: UInt32) -> Bool {
        switch value {
        case 0x20..<0x7F, 0xB7, 0x2010...0x2027, 0x2030...0x205E, 0x2190...0x21FF, 0x2500...0x25FC, 0x25FF: true
        default: false
        }
    }

    /// Appends the scalars of `text` to `scalars`; false (with none or part of them appended) when one
    /// is not narrow.
    static func append(_ text: String, to scalars: inout [UInt32]) -> Bool {
        var text = text
        return text.withUTF8 { append($0, to: &scalars) }
    }

    /// ``append(_:to:)`` of text's UTF-8 (valid): one pass, each scalar decoded in place into
    /// room of its own (a scalar is at least a byte), then appended at once (a scalar appended
    /// at a time was some 25 instructions a byte: the array's checks for each).
    static func append(_ bytes: UnsafeBufferPointer<UInt8>, to scalars: inout [UInt32]) -> Bool {
        guard !bytes.isEmpty else { return true }
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: bytes.count) { room in
            var count = 0
            var index = 0
            while index < bytes.count {
                let lead = UInt32(bytes[index])
                let value: UInt32
                if lead &- 0x20 < 0x5F {
                    // Printable ASCII: nearly all of a recorded detail.
                    room[count] = lead
                    count += 1
                    index += 1
                    continue
                } else if lead < 0x80 {
                    return false  // a control character
                } else if lead < 0xE0 {
                    value = (lead & 0x1F) << 6 | UInt32(bytes[index + 1] & 0x3F)
                    index += 2
                } else if lead < 0xF0 {
                    value =
                        (lead & 0x0F) << 12 | UInt32(bytes[index + 1] & 0x3F) << 6 | UInt32(bytes[index + 2] & 0x3F)
                    index += 3
                } else {
                    return false  // beyond U+FFFF: none is narrow
                }
                guard isNarrow(value) else { return false }
                room[count] = value
                count += 1
            }
            scalars.append(contentsOf: UnsafeBufferPointer(rebasing: room[..<count]))
            return true
        }
    }

    /// `TextWidth.wrap(text, width: width)` of narrow text, as ranges of it (each line of the
    /// wrap is a run of the text: its words and the single spaces between them).
    static func wrap(_ text: [UInt32], width: Int) -> [Range<Int>] {
        var lines: [Range<Int>] = []
        var line = 0..<0
        var wordStart = 0
        for end in 0...text.count where end == text.count || text[end] == 0x20 {
            var word = wordStart..<end
            wordStart = end + 1
            if !line.isEmpty && line.count + 1 + word.count <= width {
                line = line.lowerBound..<word.upperBound
                continue
            }
            if !line.isEmpty {
                lines.append(line)
                line = word.lowerBound..<word.lowerBound
            }
            while word.count > width {
                let head = breakWord(text, word, width: width)
                if head.isEmpty { break }
                lines.append(head)
                word = head.upperBound..<word.upperBound
            }
            line = word
        }
        lines.append(line)
        return lines
    }

    /// `TextWidth.breakWord`'s head of `word`: the longest that fits `width` cells, ending at a
    /// natural break (after `.`, `-`, `/` or `_`, before a capital after a small letter) when one
    /// leaves at least half the width.
    static func breakWord(_ text: [UInt32], _ word: Range<Int>, width: Int) -> Range<Int> {
        func isUppercase(_ value: UInt32) -> Bool { value >= 0x41 && value <= 0x5A }
        func isLowercase(_ value: UInt32) -> Bool { value >= 0x61 && value <= 0x7A }
        var head = 0
        var breakAt: Int?
        var previous: UInt32?
        for index in word {
            let value = text[index]
            if head + 1 > width { break }
            if let previous, head > 0, isUppercase(value), isLowercase(previous), head * 2 >= width {
                breakAt = head
            }
            head += 1
            if value == 0x2E || value == 0x2D || value == 0x2F || value == 0x5F, head * 2 >= width { breakAt = head }
            previous = value
        }
        if let breakAt, breakAt < head, head < word.count { head = breakAt }
        return word.lowerBound..<(word.lowerBound + head)
    }

    /// Back to the lanes' bars alone, in place (assigning `blank` would share its storage, and
    /// the next `put` copy it: a line's allocation and copy for each of millions of lines).
    mutating func clear() {
        guard cells.count == blank.count, !cells.isEmpty else {
            cells = blank
            return
        }
        cells.withUnsafeMutableBufferPointer { cells in
            blank.withUnsafeBufferPointer { blank in
                cells.baseAddress!.update(from: blank.baseAddress!, count: blank.count)
            }
        }
    }

    /// Writes `scalars` from column `x`, clipped to `clip` and the line, as `Grid.put` writes
    /// narrow text.
    mutating func put(_ scalars: ArraySlice<UInt32>, at x: Int, clip: Range<Int>? = nil) {
        let low = max(0, clip?.lowerBound ?? 0)
        let high = min(cells.count, clip?.upperBound ?? cells.count)
        var column = x
        for value in scalars {
            if column >= high { break }
            if column >= low { cells[column] = value }
            column += 1
        }
    }

    /// Writes `count` times `value` from column `x`, clipped to the line.
    mutating func put(_ value: UInt32, count: Int = 1, at x: Int, clip: Range<Int>? = nil) {
        let low = max(0, clip?.lowerBound ?? 0, x)
        let high = min(cells.count, clip?.upperBound ?? cells.count, x + count)
        guard low < high else { return }
        for column in low..<high { cells[column] = value }
    }

    /// Appends what ``clear()``, then `put(time, at: 0)`, `put(marker, at: x, clip: clip)`,
    /// `put(text, at: x + 1, clip: clip)` and ``write(into:)`` append (an event's line of
    /// ``TimelineTextPrinter``), without drawing it: the blank line's bytes around the time and
    /// the text, which alone are encoded. False, with nothing appended, when the time would reach
    /// the marker, or the marker or the text would be clipped.
    mutating func writeEvent(
        time: ArraySlice<UInt32>, marker: UInt32, text: ArraySlice<UInt32>, at x: Int, clip: Range<Int>,
        into output: inout [UInt8]
    ) -> Bool {
        let textEnd = x + 1 + text.count
        guard time.count <= x, x >= max(0, clip.lowerBound), textEnd <= min(blank.count, clip.upperBound) else {
            return false
        }
        // At most four bytes a column (three for a narrow scalar) and the newline: the columns
        // are the line's, the time's and the text's apart.
        if utf8.count < 4 * blank.count + 1 { utf8 = [UInt8](repeating: 0, count: 4 * blank.count + 1) }
        let end = utf8.withUnsafeMutableBufferPointer { utf8 in
            blankUTF8.withUnsafeBufferPointer { blankUTF8 in
                var at = 0
                func copy(blankFrom column: Int, to end: Int) {
                    let bytes = UnsafeBufferPointer(rebasing: blankUTF8[blankStart[column]..<blankStart[end]])
                    UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: utf8[at...])).copyMemory(
                        from: UnsafeRawBufferPointer(bytes))
                    at += bytes.count
                }
                for value in time { at = Self.encode(value, into: utf8, at: at) }
                copy(blankFrom: time.count, to: x)
                at = Self.encode(marker, into: utf8, at: at)
                for value in text { at = Self.encode(value, into: utf8, at: at) }
                if textEnd < blankEnd {
                    // Up to the last bar: no trailing space to cut.
                    copy(blankFrom: textEnd, to: blankEnd)
                } else {
                    // Only spaces after the text: cut, and the text's own trailing spaces with
                    // them (a space is one byte, and no other character's UTF-8 ends with its byte).
                    while at > 0, utf8[at - 1] == 0x20 { at -= 1 }
                }
                utf8[at] = 0x0A
                return at + 1
            }
        }
        output.append(contentsOf: utf8[..<end])
        return true
    }

    /// Writes the UTF-8 of the scalar `value` (valid) into `output` at `at`; where it ends.
    @inline(__always)
    static func encode(_ value: UInt32, into output: UnsafeMutableBufferPointer<UInt8>, at: Int) -> Int {
        if value < 0x80 {
            output[at] = UInt8(value)
            return at + 1
        } else if value < 0x800 {
            output[at] = UInt8(0xC0 | (value >> 6))
            output[at + 1] = UInt8(0x80 | (value & 0x3F))
            return at + 2
        } else if value < 0x10000 {
            output[at] = UInt8(0xE0 | (value >> 12))
            output[at + 1] = UInt8(0x80 | ((value >> 6) & 0x3F))
            output[at + 2] = UInt8(0x80 | (value & 0x3F))
            return at + 3
        } else {
            output[at] = UInt8(0xF0 | (value >> 18))
            output[at + 1] = UInt8(0x80 | ((value >> 12) & 0x3F))
            output[at + 2] = UInt8(0x80 | ((value >> 6) & 0x3F))
            output[at + 3] = UInt8(0x80 | (value & 0x3F))
            return at + 4
        }
    }

    /// Appends the line's UTF-8, trailing blanks removed, and a newline: encoded into a buffer
    /// the line keeps, then appended at once (counting the bytes first, then writing them in
    /// place, passed over the line twice; byte by byte appends were a twentieth of `--print`).
    mutating func write(into output: inout [UInt8]) {
        var end = cells.count
        while end > 0 && cells[end - 1] == 0x20 { end -= 1 }
        if utf8.count < 3 * end + 1 { utf8 = [UInt8](repeating: 0, count: 3 * end + 1) }
        cells.withUnsafeBufferPointer { cells in
            utf8.withUnsafeMutableBufferPointer { utf8 in
                var at = 0
                for value in UnsafeBufferPointer(rebasing: cells[..<end]) {
                    at = Self.encode(value, into: utf8, at: at)
                }
                utf8[at] = 0x0A
                output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[...at]))
            }
        }
    }
}
