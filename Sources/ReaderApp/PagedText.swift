import Foundation
import TerminalCells

/// A document's text split into logical pages: the same pages on every screen.
///
/// Pages never depend on the terminal's size, so "page 3" names the same text on an 80x24
/// device and on a 160x48 one, and a position handed off from one device means the same place
/// on the other. The rules, applied to the text alone:
///
/// - A form feed (U+000C) always ends a page. Authors lay out pages by hand with it (the sample
///   documents do).
/// - Text between form feeds is cut into pages of at most ``pageBudget`` rows, counting the
///   rows each line would take if wrapped at the fixed ``referenceWidth`` (whatever the real
///   screen). When a page is full, it ends after its last blank line (a paragraph break) if that
///   line is in its last quarter, else right before the line that does not fit.
/// - Blank lines at the start and the end of a page are dropped; empty pages are dropped.
///   An empty document still has one (empty) page.
///
/// A page keeps its source lines (paragraphs, for text written one paragraph per line); each
/// screen wraps them at its own width (``PageLayout``). Positions inside a page are kept in
/// source terms too (``ReadingPosition``), so they survive a change of width.
public struct PagedText: Hashable, Sendable {
    /// The width, in cells, at which lines are measured to fill pages (never the screen's).
    public static let referenceWidth = 80
    /// The most reference rows on a page.
    public static let pageBudget = 40

    /// The pages, each a list of source lines (never empty: at least one page).
    public let pages: [[String]]
    /// The first line of the first page, trimmed (nil for a blank document).
    public let title: String?

    /// Splits `text` into pages. Line endings are normalised (CR LF and CR become LF), a tab
    /// becomes four spaces, and other control characters (a byte-order mark included) are
    /// dropped, so that what is measured is what is drawn.
    public init(_ text: String) {
        let clean = Self.normalized(text)
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
        title = self.pages[0].first?.trimmingCharacters(in: .whitespaces)
    }

    /// The number of pages (at least 1).
    public var pageCount: Int { pages.count }

    /// The source lines of page `number` (from 1); empty when there is no such page.
    public func lines(ofPage number: Int) -> [String] {
        pages.indices.contains(number - 1) ? pages[number - 1] : []
    }

    /// How many reference rows `line` takes (at least 1).
    static func referenceRows(of line: String) -> Int {
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
        return pages.map(trimmed).filter { !$0.isEmpty }
    }

    /// `page` without its leading and trailing blank lines.
    private static func trimmed(_ page: [String]) -> [String] {
        guard let first = page.firstIndex(where: { !$0.isEmpty }),
              let last = page.lastIndex(where: { !$0.isEmpty }) else { return [] }
        return Array(page[first...last])
    }

    private static func normalized(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        var afterCarriageReturn = false
        for scalar in text.unicodeScalars {
            defer { afterCarriageReturn = scalar == "\r" }
            switch scalar {
            case "\r":
                scalars.append("\n")
            case "\n":
                if !afterCarriageReturn { scalars.append(scalar) }
            case "\t":
                scalars.append(contentsOf: "    ".unicodeScalars)
            case "\u{0C}":
                scalars.append(scalar)
            case "\u{FEFF}":
                break
            default:
                if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) { break }
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }
}
