import Foundation
import TerminalCells
import Testing

@testable import ReaderApp

@Suite("Logical pages and wrapping")
struct PagingTests {
    @Test func formFeedsEndPagesAndBlankEdgesAreDropped() {
        let text = PagedText("Title\n\nFirst page.\n\u{0C}\n\nSecond page.\n\n\u{0C}\u{0C}Third page.\n")
        #expect(text.pages == [["Title", "", "First page."], ["Second page."], ["Third page."]])
        #expect(text.title == "Title")
        #expect(text.pageCount == 3)
        #expect(text.lines(ofPage: 2) == ["Second page."])
        #expect(text.lines(ofPage: 4).isEmpty)
    }

    @Test func anEmptyDocumentHasOneEmptyPage() {
        for source in ["", "\n\n", "\u{0C}", "   \n"] {
            let text = PagedText(source)
            #expect(text.pages == [[]])
            #expect(text.title == nil)
        }
    }

    @Test func lineEndingsTabsAndControlCharactersAreNormalised() {
        let text = PagedText("\u{FEFF}One\r\nTwo\rThree\n\tFour\u{07}\n")
        #expect(text.pages == [["One", "Two", "Three", "    Four"]])
    }

    @Test func textWithoutFormFeedsFillsPagesByReferenceRows() {
        // 100 short lines: 40 rows a page.
        let lines = (1...100).map { "Line \($0)" }
        let text = PagedText(lines.joined(separator: "\n"))
        #expect(text.pages.map(\.count) == [40, 40, 20])
        #expect(text.pages[1].first == "Line 41")
        // Lines of 200 cells take 3 reference rows each (at 80 cells): 13 fit in 40 rows.
        let long = String(repeating: "word ", count: 40)
        let paragraphs = PagedText(Array(repeating: long, count: 30).joined(separator: "\n"))
        #expect(paragraphs.pages.map(\.count) == [13, 13, 4])
    }

    @Test func aFullPagePrefersToEndAtAParagraphBreakInItsLastQuarter() {
        // Paragraphs of 8 lines and a blank line: 9 rows each. Page 1 ends after the blank line
        // at row 36 (in the last quarter), not inside the fifth paragraph.
        var lines: [String] = []
        for paragraph in 1...8 {
            lines += (1...8).map { "Paragraph \(paragraph) line \($0)" }
            lines.append("")
        }
        let text = PagedText(lines.joined(separator: "\n"))
        #expect(text.pages[0].count == 35)
        #expect(text.pages[0].last == "Paragraph 4 line 8")
        #expect(text.pages[1].first == "Paragraph 5 line 1")
        #expect(text.pages.joined().filter { !$0.isEmpty } == lines.filter { !$0.isEmpty })
    }

    @Test(arguments: ["handoff-guide.txt", "harrow-point.txt", "night-markets.txt"])
    func aPageHoldsTheSameTextOnEveryScreen(name: String) throws {
        // Read each page on a small and a big screen, as a user would (turning pages, scrolling
        // row by row): every page has the same text on both (compared without spaces, which
        // the wrapping drops at line breaks).
        let world = try ReaderWorld()
        let device = world.laptop
        device.open(name)
        let pageCount = try #require(device.reader.session?.text.pageCount)
        func textOfEveryPage(width: Int, height: Int) -> [String] {
            device.press(.home)
            var pages: [String] = []
            for page in 1...pageCount {
                var rows: [String] = []
                var grid = device.render(width: width, height: height)
                #expect(grid.line(0).hasSuffix("page \(page) of \(pageCount)"))
                while device.reader.session?.topRow(in: device.reader.viewport) ?? 0
                    < device.reader.session?.layout(width: device.reader.viewport.width).lastTopRow(
                        height: device.reader.viewport.height) ?? 0
                {
                    rows.append(grid.line(2))
                    device.press(.down)
                    grid = device.render(width: width, height: height)
                }
                rows += (2..<(height - 1)).map(grid.line)
                pages.append(rows.joined().filter { $0 != " " })
                device.press(.character(" "))
            }
            return pages
        }
        let small = textOfEveryPage(width: 60, height: 18)
        let big = textOfEveryPage(width: 150, height: 44)
        #expect(small.count == pageCount)
        #expect(small == big)
        #expect(Set(small).count == pageCount, "pages differ from each other")
        let text = try #require(device.reader.session?.text)
        for (index, page) in small.enumerated() {
            #expect(
                page == text.lines(ofPage: index + 1).joined().filter { $0 != " " }, "page \(index + 1) is shown whole")
        }
    }

    @Test func rowsKnowWhereTheyStartInTheSource() {
        let line = "The quick brown fox jumps over the lazy dog"
        let layout = PageLayout(lines: [line, "", "End"], width: 16)
        #expect(layout.rows.map(\.text) == ["The quick brown", "fox jumps over", "the lazy dog", "", "End"])
        #expect(layout.rows.map(\.line) == [0, 0, 0, 1, 2])
        let characters = Array(line)
        for row in layout.rows where row.line == 0 {
            #expect(String(characters[row.character...]).hasPrefix(row.text))
        }
        #expect(layout.rowIndex(line: 0, character: 0) == 0)
        #expect(layout.rowIndex(line: 0, character: 18) == 1, "inside the second row")
        #expect(layout.rowIndex(line: 2, character: 0) == 4)
        #expect(layout.lastTopRow(height: 3) == 2)
        #expect(layout.lastTopRow(height: 10) == 0)
    }

    @Test func wideGlyphsWrapWithinTheWidthAndIndentsAreKept() {
        let layout = PageLayout(lines: ["京都の夜はとても静かで、川の音だけが聞こえました。", "    indented verse that wraps"], width: 12)
        for row in layout.rows {
            #expect(TextWidth.of(row.text) <= 12, "\(row.text) fits")
        }
        let japanese = layout.rows.filter { $0.line == 0 }
        #expect(japanese.map(\.text).joined() == "京都の夜はとても静かで、川の音だけが聞こえました。")
        #expect(japanese.map(\.character) == [0, 6, 12, 18, 24])
        let verse = layout.rows.filter { $0.line == 1 }.map(\.text)
        #expect(verse == ["    indented", "    verse", "    that", "    wraps"])
    }

    @Test func aPositionShowsTheSameTextAtAnyWidth() throws {
        // A place chosen on a narrow screen is at the top of the view on a wide one.
        let text = try DocumentLibrary.read(
            try readerResources().sampleDocuments.appendingPathComponent("harrow-point.txt"))
        let narrow = PageLayout(lines: text.lines(ofPage: 2), width: 40)
        for row in narrow.rows.dropFirst(7).prefix(5) {
            for width in [56, 96, 146] {
                let wide = PageLayout(lines: text.lines(ofPage: 2), width: width)
                let shown = wide.rows[wide.rowIndex(line: row.line, character: row.character)]
                let source = Array(text.lines(ofPage: 2)[row.line])
                #expect(shown.line == row.line)
                #expect(shown.character <= row.character)
                let end = shown.character + shown.text.count
                #expect(end >= row.character, "the wide row contains “\(String(source[row.character...].prefix(10)))”")
            }
        }
    }
}
