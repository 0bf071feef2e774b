/// A document's text split into logical pages: the same pages on every screen, and in every app
/// that shows them (the Reader, and the Reader's web site in the Browser).
///
/// Pages never depend on the terminal's size, so "page 3" names the same text on an 80x24
/// device and on a 160x48 one, and a position handed off from one device means the same place
/// on the other. The rules, applied to the text alone:
///
/// - The text is cleaned first (``PlainText/sanitized(_:keepingFormFeeds:)``: line endings,
///   tabs, escape sequences and control characters), so that what is measured is what is drawn.
/// - A form feed (U+000C) always ends a page. Authors lay out pages by hand with it (the Reader's
///   sample documents do).
/// - Text between form feeds is cut into pages of at most ``pageBudget`` rows, counting the
///   rows each line takes at the fixed ``referenceWidth`` (its width in cells, wide characters
///   counting two, over the reference width, rounded up), whatever the real screen. When a page
///   is full, it ends after its last blank line (a paragraph break) if that line is in its last
///   quarter, else right before the line that does not fit.
/// - Trailing spaces of a line are dropped; so are blank lines at the start and the end of a
///   page, and empty pages. An empty document still has one (empty) page.
///
/// A page keeps its source lines (paragraphs, for text written one paragraph per line); each
/// screen wraps them at its own width.
package struct PagedText: Hashable, Sendable {
    /// The width, in cells, at which lines are measured to fill pages (never the screen's).
    package static let referenceWidth = 80
    /// The most reference rows on a page.
    package static let pageBudget = 40

    /// The pages, each a list of source lines (never empty: at least one page).
    package let pages: [[String]]
    /// The first line of the first page, without the white space around it (nil for a blank
    /// document).
    package let title: String?

    /// Cleans `text` and splits it into pages.
    package init(_ text: String) {
        let clean = PlainText.sanitized(text, keepingFormFeeds: true)
        var pages: [[String]] = []
        for section in clean.split(separator: "\u{0C}", omittingEmptySubsequences: false) {
            let lines = section.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                var line = String(line)
                while line.last == " " { line.removeLast() }
                return line
            }
            pages += Self.fill(lines)
        }
        self.pages = pages.isEmpty ? [[]] : pages
        title = self.pages[0].first.map(Self.trimmed)
    }

    /// The number of pages (at least 1).
    package var pageCount: Int { pages.count }

    /// The source lines of page `number` (from 1); empty when there is no such page.
    package func lines(ofPage number: Int) -> [String] {
        pages.indices.contains(number - 1) ? pages[number - 1] : []
    }

    /// How many reference rows `line` takes (at least 1).
    package static func referenceRows(of line: String) -> Int {
        max(1, (TextWidth.of(line) + referenceWidth - 1) / referenceWidth)
    }

    /// Cuts one run of lines (no form feeds) into pages within the budget.
    private static func fill(_ lines: [String]) -> [[String]] {
        var pages: [[String]] = []
        var current: [String] = []
        var used = 0

        func endPage() {
            // Prefer to end after a blank line in the last quarter of the budget.
            var breakAt: Int?
            var rows = 0
            for (index, line) in current.enumerated() {
                rows += referenceRows(of: line)
                if line.isEmpty, rows * 4 >= pageBudget * 3, index + 1 < current.count { breakAt = index + 1 }
            }
            let cut = breakAt ?? current.count
            pages.append(Array(current[..<cut]))
            current = Array(current[cut...])
            used = current.reduce(0) { $0 + referenceRows(of: $1) }
        }

        for line in lines {
            let cost = referenceRows(of: line)
            while !current.isEmpty, used + cost > pageBudget { endPage() }
            current.append(line)
            used += cost
        }
        if !current.isEmpty { pages.append(current) }
        return pages.compactMap { page in
            guard let first = page.firstIndex(where: { !$0.isEmpty }), let last = page.lastIndex(where: { !$0.isEmpty })
            else { return nil }
            return Array(page[first...last])
        }
    }

    /// `line` without the white space at either end.
    private static func trimmed(_ line: String) -> String {
        let isSpace: (Character) -> Bool = { $0.unicodeScalars.allSatisfy(\.properties.isWhitespace) }
        guard let start = line.firstIndex(where: { !isSpace($0) }), let end = line.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(line[start...end])
    }
}
