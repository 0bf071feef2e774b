import TerminalCells
import Testing

@Suite("Grid and text width")
struct GridTests {
    @Test func wideGlyphsTakeTwoCellsAndLineUp() {
        #expect(TextWidth.of("a") == 1)
        #expect(TextWidth.of("東") == 2)
        #expect(TextWidth.of("🌍") == 2)
        #expect(TextWidth.of("e\u{301}") == 1)
        #expect(TextWidth.of("東京 Tokyo") == 10)
        var grid = Grid(size: Size(width: 8, height: 2))
        let end = grid.put("東京x", at: Point(x: 0, y: 0))
        #expect(end == 5)
        grid.put("abcdefgh", at: Point(x: 0, y: 1))
        #expect(grid.text() == "東京x\nabcdefgh")
    }

    @Test func writesAreClippedAndWideGlyphsNeverSplit() {
        var grid = Grid(size: Size(width: 5, height: 1))
        grid.put("ab東", at: Point(x: 2, y: 0))  // 東 would need columns 4 and 5
        #expect(grid.text() == "  ab")
        grid.put("xyz", at: Point(x: -1, y: 0))
        #expect(grid.line(0) == "yzab")
        grid.put("東", at: Point(x: 0, y: 0))
        grid.put("q", at: Point(x: 1, y: 0))  // overwrites the right half of 東
        #expect(grid.line(0) == " qab")
        grid.put("nothing", at: Point(x: 0, y: 3))
        #expect(grid.line(0) == " qab")
    }

    @Test func linesTrimTrailingBlanksAsCharacters() {
        var grid = Grid(size: Size(width: 6, height: 3))
        grid.put("ab", at: Point(x: 0, y: 0))
        grid.put("│x│", at: Point(x: 1, y: 1))
        // A prepended mark joins the space after it in one character, which is not a blank.
        grid.put("\u{600}", at: Point(x: 1, y: 2))
        #expect(grid.line(0) == "ab")
        #expect(grid.line(1) == " │x│")
        #expect(grid.line(2) == " \u{600} ")
        #expect(grid.line(3) == "")
        #expect(TextWidth.of("a\r\nb") == 3, "a CR LF pair is one character of one cell")
    }

    @Test func boxesTitlesAndMasks() {
        var grid = Grid(size: Size(width: 12, height: 3))
        grid.box(grid.bounds, title: "Nearby devices")
        #expect(grid.text() == "┌ Nearby… ─┐\n│          │\n└──────────┘")
        let mask = grid.styleMask([.frame: "f", .title: "t"])
        #expect(mask.split(separator: "\n").first == "ftttttttttff")
    }

    @Test func truncateWrapAndPad() {
        #expect(TextWidth.truncate("Moby-Dick; or, The Whale", to: 10) == "Moby-Dick…")
        #expect(TextWidth.pad("ab", to: 4) == "ab  ")
        #expect(TextWidth.wrap("the quick brown fox", width: 9) == ["the quick", "brown fox"])
        #expect(TextWidth.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
        #expect(TextWidth.wrap("a\n\nb", width: 4) == ["a", "", "b"])
    }

    /// A cut ends at a word boundary with an ellipsis: never part of a word ("open the chosen
    /// app, or ap…"); a long word alone is cut inside, and the ellipsis says so.
    @Test func truncateKeepsWholeWords() {
        #expect(TextWidth.truncate("open the chosen app, or app N", to: 27) == "open the chosen app, or…")
        #expect(
            TextWidth.truncate("focus: screen → Nearby → log (a narrow screen shows Nearby)", to: 40)
                == "focus: screen → Nearby → log (a narrow…")
        #expect(TextWidth.truncate("maps.handoffsim.example", to: 18) == "maps.handoffsim.e…")
        #expect(TextWidth.truncate("ab cdefghijklmnop", to: 10) == "ab cdefgh…")
        #expect(TextWidth.truncate("whole words", to: 11) == "whole words")
        #expect(TextWidth.truncate("cut at space here", to: 13) == "cut at space…")
        // No separator is left dangling before the ellipsis ("editing ·…").
        #expect(
            TextWidth.truncate("advertised com.example.notes.editing · sent", to: 40)
                == "advertised com.example.notes.editing…")
        #expect(
            TextWidth.truncate("continued from Laptop → Phone in com.example.notes", to: 26) == "continued from Laptop…"
        )
    }

    /// A word longer than the line breaks after a dot, a slash, a dash or before a capital, so
    /// identifiers and error names read whole across lines.
    @Test func wrapBreaksLongWordsAtNaturalPlaces() {
        #expect(TextWidth.wrap("com.example.notes.editing", width: 20) == ["com.example.notes.", "editing"])
        #expect(
            TextWidth.wrap("NSUserActivityHandoffUserInfoTooLargeError", width: 30)
                == ["NSUserActivityHandoffUserInfo", "TooLargeError"])
        #expect(TextWidth.wrap("NSUserActivityTypeBrowsingWeb", width: 22) == ["NSUserActivityType", "BrowsingWeb"])
        #expect(TextWidth.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
    }

    @Test func rectangleArithmeticNeverGoesNegative() {
        let r = Rect(x: 2, y: 3, width: 10, height: 4)
        #expect(r.inset(by: 3).size == Size(width: 4, height: 0))
        #expect(r.inset(by: 8).isEmpty)
        let (top, rest) = r.splitTop(1)
        #expect(top == Rect(x: 2, y: 3, width: 10, height: 1))
        #expect(rest == Rect(x: 2, y: 4, width: 10, height: 3))
        #expect(r.intersection(Rect(x: 20, y: 20, width: 1, height: 1)).isEmpty)
        #expect(r.centered(Size(width: 4, height: 2)) == Rect(x: 5, y: 4, width: 4, height: 2))
    }

    @Test func themesFollowNoColor() {
        #expect(Theme.standard(environment: ["NO_COLOR": "1"], terminalHasColor: true).usesColor == false)
        #expect(Theme.standard(environment: [:], terminalHasColor: true).usesColor)
        #expect(Theme.standard(environment: [:], terminalHasColor: false).usesColor == false)
        let mono = Theme(usesColor: false)
        #expect(mono.appearance(of: Style(.selection)).reverse)
        #expect(mono.appearance(of: Style(.error)).foreground == .default)
    }
}

@Suite("Text width shortcuts")
struct TextWidthShortcutTests {
    @Test func simpleTextMeasuresAndDrawsAsCharacterByCharacter() {
        let texts = [
            "│──── beacon #1 ───▶│", "◀╌╌╳ payload lost", "a · b", "◽◾ wide shapes", "plain", "",
        ]
        for text in texts {
            #expect(TextWidth.isSimple(text))
            #expect(TextWidth.of(text) == text.reduce(0) { $0 + TextWidth.of($1) }, "\(text)")
            // Drawn through the shortcut and through a character that is not simple.
            var simple = Grid(size: Size(width: 12, height: 1))
            var general = Grid(size: Size(width: 12, height: 1))
            simple.put(text, at: Point(x: -1, y: 0), clip: Rect(x: 1, y: 0, width: 10, height: 1))
            // (the "é" is left of the clip, not drawn)
            general.put("e\u{301}" + text, at: Point(x: -2, y: 0), clip: Rect(x: 1, y: 0, width: 10, height: 1))
            #expect(simple == general, "\(text)")
        }
        #expect(!TextWidth.isSimple("e\u{301}"))
        #expect(!TextWidth.isSimple("👍🏽"))
        #expect(TextWidth.of("▶\u{FE0F}") == 2, "a variation selector makes an emoji")
    }
}
