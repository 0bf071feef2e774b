import Foundation
import Testing

@testable import BrowserApp

@Suite("The page format")
struct PageParserTests {
    let base = URL(string: "https://site.example/docs/intro?lang=en&lat=48.85")!

    @Test func everyKindOfBlock() {
        let page = PageParser.parse(
            """
            # The title
            First line of a paragraph
            and its second line.

            ## A heading
            => /other Another page
            => next
            => https://elsewhere.example/
            * One
            * Two
            > Quoted
            ```
              kept   as is
            ```
            """, url: base)
        #expect(page.title == "The title")
        #expect(page.kind == .site)
        #expect(
            page.blocks == [
                .paragraph("First line of a paragraph and its second line."),
                .heading("A heading", level: 2),
                .link(.init(label: "Another page", target: "/other", url: URL(string: "https://site.example/other"))),
                .link(.init(label: "next", target: "next", url: URL(string: "https://site.example/docs/next"))),
                .link(
                    .init(
                        label: "https://elsewhere.example/", target: "https://elsewhere.example/",
                        url: URL(string: "https://elsewhere.example/"))),
                .listItem("One"),
                .listItem("Two"),
                .quote("Quoted"),
                .preformatted(["  kept   as is"]),
            ])
        #expect(page.links.map(\.target) == ["/other", "next", "https://elsewhere.example/"])
    }

    @Test func aPageWithoutTitleIsNamedByItsAddress() {
        let page = PageParser.parse("Just text.", url: base)
        #expect(page.title == "site.example/docs/intro")
        #expect(page.blocks == [.paragraph("Just text.")])
    }

    @Test func placeholdersTakeTheQueryAndUnknownOnesStay() {
        let variables = PageParser.variables(for: base)
        #expect(variables["query.lat"] == "48.85")
        #expect(variables["host"] == "site.example")
        #expect(variables["path"] == "/docs/intro")
        let page = PageParser.parse(
            "# {{host}}\nLatitude {{query.lat}}, {{ query.lang }}; {{nope}} {{unclosed",
            url: base, variables: variables)
        #expect(page.title == "site.example")
        #expect(page.blocks == [.paragraph("Latitude 48.85, en; {{nope}} {{unclosed")])
    }

    @Test func valuesNeverAddLinesOrBlocks() throws {
        let hostile = try #require(URL(string: "https://site.example/?q=%0A%3D%3E%20javascript:alert(1)%1B%5B2J"))
        let page = PageParser.parse(
            "# T\nYou asked for {{query.q}}", url: hostile, variables: PageParser.variables(for: hostile))
        #expect(page.blocks.count == 1)
        #expect(page.links.isEmpty)
        guard case .paragraph(let text) = page.blocks[0] else {
            Issue.record("expected a paragraph")
            return
        }
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
        #expect(text == "You asked for  => javascript:alert(1)")
    }

    @Test func controlCharactersAndOverridesAreDropped() {
        let text =
            "\u{FEFF}# Ti\u{1B}[31mtle\r\nLine\tone\u{07}\rLine \u{202E}two\u{9B}\n=> /x\u{0} Link\u{1B}]0;owned\u{07}"
        let page = PageParser.parse(text, url: base)
        #expect(page.title == "Title")
        #expect(
            page.blocks == [
                .paragraph("Line    one Line two"),
                .link(.init(label: "Link", target: "/x", url: URL(string: "https://site.example/x"))),
            ])
        #expect(!page.plainText.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test func escapeSequencesAreRemovedWhole() {
        #expect(PageParser.sanitized("a\u{1B}[1;31mred\u{1B}[0m b") == "ared b")
        #expect(PageParser.sanitized("\u{1B}]8;;https://evil.example\u{1B}\\link\u{1B}]8;;\u{1B}\\ end") == "link end")
        #expect(PageParser.sanitized("\u{1B}]0;never closed\nnext line") == "\nnext line", "a newline ends an OSC")
        #expect(PageParser.sanitized("\u{1B}(Bx\u{1B}") == "Bx")
        #expect(PageParser.sanitized("\u{9B}2Jclear") == "clear")
    }

    @Test func oversizedAndNonUTF8FilesAreRefused() {
        #expect(throws: PageError.tooLarge(bytes: PageParser.maximumBytes + 1)) {
            try PageParser.parse(Data(count: PageParser.maximumBytes + 1), url: base)
        }
        #expect(throws: PageError.notUTF8) {
            try PageParser.parse(Data([0x23, 0x20, 0xFF, 0xFE, 0xC0]), url: base)
        }
    }

    @Test func aVeryLongPageIsCutWithANote() {
        let text = (0..<(PageParser.maximumLines + 50)).map { "* item \($0)" }.joined(separator: "\n")
        let page = PageParser.parse(text, url: base)
        #expect(page.blocks.count == PageParser.maximumLines + 1)
        #expect(
            page.blocks.last
                == .quote("The rest of this page was not shown: it has more than \(PageParser.maximumLines) lines."))
    }

    @Test func oddLinksAreKeptButMarkedUnusable() {
        let page = PageParser.parse("=>\n=>    \n=> http://[bad Broken\n=> mailto:someone@example.org Mail", url: base)
        #expect(page.links.count == 2)
        #expect(page.links[0].label == "Broken")
        #expect(page.links[0].url == nil)
        #expect(page.links[1].url?.scheme == "mailto")
    }

    @Test func anUnclosedPreformattedBlockEndsWithThePage() {
        let page = PageParser.parse("# T\n```\n# not a heading\n=> not a link", url: base)
        #expect(page.blocks == [.preformatted(["# not a heading", "=> not a link"])])
    }

    @Test func aLongValueIsCut() {
        let long = String(repeating: "x", count: 1_000)
        #expect(PageParser.cleanValue(long).count == PageParser.maximumValueLength + 1)
    }
}
