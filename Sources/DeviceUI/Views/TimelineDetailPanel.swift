import Foundation
import HandoffCore
import TerminalCells

/// The selected event's detail beside a timeline's lanes (or below them): the one panel of the
/// device's timeline (F9) and of `handoff timeline`'s replay. It draws the value it is given
/// (``TimelineEventDetail``) and nothing else: the kind and the device by name, the time (and
/// the offset into the continuation when known), the sizes, the continuation's identifier, what
/// happened, the error's code, name and reason, what the event sent and received across the
/// network and what that paired with, what Apple does at this step, the userInfo and every other
/// recorded field. Every text is wrapped, never cut; a detail longer than its area shows a page
/// at a time, its last row naming the key that turns the page.
package struct TimelineDetailPanel: Sendable, Hashable {
    /// The event shown; nil: none selected (the panel draws its rule only).
    package var detail: TimelineEventDetail?
    /// Which page shows of a detail longer than its area (past the last: the first again).
    package var page: Int
    /// The key that shows the next page, as its screen names it ("Space").
    package var moreKey: String
    /// Whether the panel is beside the lanes (its rule on its left) or below them (above).
    package var isBeside: Bool

    package init(detail: TimelineEventDetail?, page: Int = 0, moreKey: String, isBeside: Bool) {
        self.detail = detail
        self.page = page
        self.moreKey = moreKey
        self.isBeside = isBeside
    }

    /// Where a screen's lanes and its panel go in `area`: the panel beside the lanes (two fifths
    /// of the width, at most 66 columns) on a wide screen, below them otherwise (two fifths of
    /// the height, 4 to 11 rows), its rule included.
    package static func split(_ area: Rect, beside: Bool) -> (lanes: Rect, panel: Rect) {
        if beside { return area.splitRight(min(66, area.width * 2 / 5)) }
        return area.splitBottom(min(max(4, area.height * 2 / 5 + 1), 11))
    }

    /// Whether a screen of `size` puts the panel beside the lanes.
    package static func isWide(_ size: Size) -> Bool { size.width >= 120 }

    /// The area the text takes in the panel's `area`: inside its rule, a column from the edges.
    package func content(of area: Rect) -> Rect {
        isBeside ? area.inset(left: 2, right: 1) : area.inset(top: 1, left: 1, right: 1)
    }

    /// How many pages a detail of `lines` lines takes in a text area `height` rows high (each
    /// page all rows but the last, which says where the key goes), and which of them `page` is.
    package static func pages(lines: Int, height: Int, page: Int) -> (count: Int, shown: Int) {
        guard lines > height, height >= 2 else { return (1, 0) }
        let perPage = height - 1
        let count = (lines + perPage - 1) / perPage
        return (count, ((page % count) + count) % count)
    }

    /// The detail as lines of at most `width` cells, each with its style.
    package func lines(width: Int) -> [(text: String, style: Style)] {
        guard let detail, width > 0 else { return [] }
        var lines: [(text: String, style: Style)] = []
        func add(_ text: String, _ style: Style, first: Int = 0, rest: Int = 0) {
            for line in Self.wrap(text, width: width, first: first, rest: rest) { lines.append((line, style)) }
        }
        add("\(detail.kindName) on \(detail.device)", Style(.title))
        let facts = [detail.time, detail.offset].compactMap { $0 }.filter { !$0.isEmpty } + detail.facts
        if !facts.isEmpty { add(facts.joined(separator: " · "), Style(.dim)) }
        if let continuation = detail.continuation { add("continuation \(continuation)", Style(.dim)) }
        if !detail.summary.isEmpty { add(detail.summary, Style(.normal)) }
        if let failure = detail.failure {
            add(failure.heading.isEmpty ? "error" : failure.heading, Style(.error))
            if let reason = failure.reason, !reason.isEmpty { add(reason, Style(.normal)) }
        }
        for message in detail.messages {
            add(message.text, Style(message.direction == .lost ? .warning : .link), rest: 2)
        }
        if !detail.explanation.isEmpty { add(detail.explanation, Style(.dim)) }
        if let info = detail.userInfo {
            add("userInfo (\(info.count) key\(info.count == 1 ? "" : "s"))", Style(.title))
            for field in info { add("\(field.key): \(field.value)", Style(.normal), first: 2, rest: 4) }
        }
        for field in detail.fields { add("\(field.key): \(field.value)", Style(.dim), rest: 2) }
        return lines
    }

    /// Draws the panel into `area` of `grid`: its rule, then the detail's page that shows.
    package func render(in area: Rect, into grid: inout Grid) {
        guard !area.isEmpty else { return }
        if isBeside {
            grid.fill(Rect(x: area.x, y: area.y, width: 1, height: area.height), with: "│", style: Style(.frame))
        } else {
            grid.fill(Rect(x: area.x, y: area.y, width: area.width, height: 1), with: "─", style: Style(.frame))
        }
        let text = content(of: area)
        guard text.height >= 1, text.width >= 1 else { return }
        let lines = self.lines(width: text.width)
        let (count, shown) = Self.pages(lines: lines.count, height: text.height, page: page)
        guard count > 1 else {
            for (row, line) in lines.prefix(text.height).enumerated() {
                grid.write(line.text, in: text, row: row, style: line.style)
            }
            return
        }
        let perPage = text.height - 1
        let start = shown * perPage
        for (row, line) in lines[start..<min(lines.count, start + perPage)].enumerated() {
            grid.write(line.text, in: text, row: row, style: line.style)
        }
        let more =
            shown + 1 < count
            ? "… \(moreKey): more (\(shown + 1) of \(count))" : "\(moreKey): from the top (\(count) of \(count))"
        grid.write(more, in: text, row: text.height - 1, style: Style(.dim))
    }

    /// `text` wrapped to `width` cells, its first line indented by `first` columns and the
    /// others by `rest` (a narrow panel indents nothing).
    static func wrap(_ text: String, width: Int, first: Int = 0, rest: Int = 0) -> [String] {
        guard first > 0 || rest > 0, width > 2 * max(first, rest) else { return TextWidth.wrap(text, width: width) }
        func pad(_ count: Int) -> String { String(repeating: " ", count: count) }
        let head = TextWidth.wrap(text, width: width - first)
        guard let line = head.first, head.count > 1 else { return head.map { pad(first) + $0 } }
        guard text.hasPrefix(line) else {
            // Text that does not start with its first line (leading spaces): every line at the
            // narrower width.
            let narrow = TextWidth.wrap(text, width: width - max(first, rest))
            return narrow.enumerated().map { pad($0.offset == 0 ? first : rest) + $0.element }
        }
        let remainder = String(text.dropFirst(line.count).drop { $0 == " " })
        return [pad(first) + line] + TextWidth.wrap(remainder, width: width - rest).map { pad(rest) + $0 }
    }
}
