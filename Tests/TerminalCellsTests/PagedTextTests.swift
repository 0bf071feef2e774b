import TerminalCells
import Testing

/// The logical pages shared by the Reader and its web site: the rule itself, at its edges.
@Suite("Logical pages (the shared rule)")
struct PagedTextTests {
    /// `count` lines "Line 1"… (one reference row each).
    static func lines(_ count: Int, from first: Int = 1) -> [String] {
        (first..<(first + count)).map { "Line \($0)" }
    }

    @Test func aPageHoldsExactlyTheBudget() {
        #expect(PagedText.referenceWidth == 80 && PagedText.pageBudget == 40)
        #expect(PagedText(Self.lines(40).joined(separator: "\n")).pages == [Self.lines(40)])
        let one = PagedText(Self.lines(41).joined(separator: "\n"))
        #expect(one.pages == [Self.lines(40), ["Line 41"]], "the 41st row starts page 2")
        #expect(one.pageCount == 2)
        #expect(one.lines(ofPage: 2) == ["Line 41"])
        #expect(one.lines(ofPage: 0).isEmpty && one.lines(ofPage: 3).isEmpty)
    }

    @Test func aFullPageEndsAtAParagraphBreakOnlyInItsLastQuarter() {
        // A blank line at row 30 (30 × 4 ≥ 40 × 3) is in the last quarter: the page ends there.
        let inLastQuarter = Self.lines(29) + [""] + Self.lines(20, from: 30)
        let pages = PagedText(inLastQuarter.joined(separator: "\n")).pages
        #expect(pages.map(\.count) == [29, 20], "page 1 ends with the paragraph, its blank line dropped")
        #expect(pages[1].first == "Line 30")
        // At row 29 it is too early: the page is filled to the budget instead.
        let tooEarly = Self.lines(28) + [""] + Self.lines(20, from: 29)
        let filled = PagedText(tooEarly.joined(separator: "\n")).pages
        #expect(filled[0].count == 40)
        #expect(filled[0].last == "Line 39")
        #expect(filled[1] == Self.lines(9, from: 40))
    }

    @Test func formFeedsEndPagesWhateverTheBudget() {
        let text = PagedText("One\n\u{0C}Two\n\n\u{0C}\u{0C}\n  \n\u{0C}Three")
        #expect(text.pages == [["One"], ["Two"], ["Three"]], "empty pages and blank edges are dropped")
        #expect(PagedText("").pages == [[]])
        #expect(PagedText("").title == nil)
        #expect(PagedText("\u{0C}\n\u{0C}").pageCount == 1)
    }

    @Test func aLongLineCountsTheRowsItWrapsToAtTheReferenceWidth() {
        #expect(PagedText.referenceRows(of: "") == 1)
        #expect(PagedText.referenceRows(of: String(repeating: "a", count: 80)) == 1)
        #expect(PagedText.referenceRows(of: String(repeating: "a", count: 81)) == 2)
        #expect(PagedText.referenceRows(of: String(repeating: "word ", count: 40)) == 3, "200 cells")
        // 20 lines of 160 cells fill a page: the 21st goes to the next.
        let long = String(repeating: "abcdefg ", count: 20)
        let pages = PagedText(Array(repeating: long, count: 21).joined(separator: "\n")).pages
        #expect(pages.map(\.count) == [20, 1])
        #expect(pages[0][0] == String(long.dropLast()), "trailing spaces are dropped")
    }

    @Test func wideCharactersCountTwoCells() {
        let forty = String(repeating: "京", count: 40)
        let fortyOne = String(repeating: "京", count: 41)
        #expect(PagedText.referenceRows(of: forty) == 1, "80 cells")
        #expect(PagedText.referenceRows(of: fortyOne) == 2, "82 cells")
        #expect(PagedText.referenceRows(of: String(repeating: "🌍", count: 41)) == 2)
        #expect(
            PagedText.referenceRows(of: String(repeating: "e\u{301}", count: 80)) == 1, "combining marks take no cell")
        // 20 lines of 41 wide characters take 40 rows; a 21st starts page 2.
        let pages = PagedText(Array(repeating: fortyOne, count: 21).joined(separator: "\n")).pages
        #expect(pages.map(\.count) == [20, 1])
        #expect(PagedText(Array(repeating: forty, count: 40).joined(separator: "\n")).pageCount == 1)
    }

    @Test func whatIsMeasuredIsWhatIsDrawn() {
        let text = PagedText(
            "\u{FEFF}Title\u{3000}\r\nA\tB\u{07}\rC\u{1B}[2JD\u{1B}]0;hidden title\u{07}E\u{202E}F\n\u{1B}]0;no end\u{0C}Next"
        )
        #expect(
            text.pages == [["Title\u{3000}", "A    B", "CDEF"], ["Next"]],
            "escape sequences go whole; an unended one stops at the form feed")
        #expect(text.title == "Title", "the title without white space around it")
    }

    @Test func theCleaningDropsFormFeedsUnlessAskedToKeepThem() {
        #expect(PlainText.sanitized("a\u{0C}b") == "ab")
        #expect(PlainText.sanitized("a\u{0C}b", keepingFormFeeds: true) == "a\u{0C}b")
        #expect(PlainText.sanitized("x\u{9B}31my\r\n\u{1B}]8;;https://e.example\u{1B}\\z") == "xy\nz")
    }
}
