import CNcursesw
import TerminalCells
import Testing

@testable import CursesTerminal

@Suite("Key decoding")
struct TerminalInputTests {
    private func decode(_ character: Unicode.Scalar) -> TerminalInput? {
        TerminalInput(status: OK, code: character.value)
    }

    private func decode(keyCode: Int32) -> TerminalInput? {
        TerminalInput(status: KEY_CODE_YES, code: UInt32(keyCode))
    }

    @Test func printableCharactersIncludingUTF8() {
        #expect(decode("a") == .key(.character("a")))
        #expect(decode(" ") == .key(.character(" ")))
        #expect(decode("é") == .key(.character("é")))
        #expect(decode("漢") == .key(.character("漢")))
        #expect(decode("🌍") == .key(.character("🌍")))
    }

    @Test func enterArrivesAsNewlineCarriageReturnOrKeyEnter() {
        #expect(decode("\n") == .key(.enter))
        #expect(decode("\r") == .key(.enter))
        #expect(decode(keyCode: KEY_ENTER) == .key(.enter))
    }

    @Test func controlCharacters() {
        #expect(decode("\u{1B}") == .key(.escape))
        #expect(decode("\t") == .key(.tab))
        #expect(decode("\u{7F}") == .key(.backspace))
        #expect(decode("\u{08}") == .key(.backspace))
        #expect(decode(keyCode: KEY_BACKSPACE) == .key(.backspace))
        #expect(decode("\u{01}") == .key(.control("a")))
        #expect(decode("\u{0C}") == .key(.control("l")))
        #expect(decode("\u{1A}") == .key(.control("z")))
        #expect(decode("\u{00}") == nil)
        #expect(decode("\u{1C}") == nil)
        #expect(decode("\u{85}") == nil)
    }

    @Test func functionKeys() {
        #expect(decode(keyCode: KEY_UP) == .key(.up))
        #expect(decode(keyCode: KEY_DOWN) == .key(.down))
        #expect(decode(keyCode: KEY_LEFT) == .key(.left))
        #expect(decode(keyCode: KEY_RIGHT) == .key(.right))
        #expect(decode(keyCode: KEY_BTAB) == .key(.backTab))
        #expect(decode(keyCode: KEY_PPAGE) == .key(.pageUp))
        #expect(decode(keyCode: KEY_NPAGE) == .key(.pageDown))
        #expect(decode(keyCode: KEY_HOME) == .key(.home))
        #expect(decode(keyCode: KEY_END) == .key(.end))
        #expect(decode(keyCode: KEY_DC) == .key(.delete))
        #expect(decode(keyCode: KEY_F0 + 1) == .key(.function(1)))
        #expect(decode(keyCode: KEY_F0 + 12) == .key(.function(12)))
        #expect(decode(keyCode: KEY_MOUSE) == nil)
    }

    @Test func resizeAndNothing() {
        #expect(decode(keyCode: KEY_RESIZE) == .resize)
        #expect(TerminalInput(status: ERR, code: 0) == nil)
    }
}

@Suite("Colour pairs and attributes")
struct RenditionTests {
    @Test func defaultColorsUsePairZero() {
        var pairs = ColorPairs(capacity: 64)
        let pair = pairs.pair(for: .init(foreground: .default, background: .default))
        #expect(pair?.number == 0)
        #expect(pair?.isNew == false)
        #expect(pairs.count == 0)
    }

    @Test func pairsAreAllocatedOnceInOrder() {
        var pairs = ColorPairs(capacity: 64)
        let cyan = pairs.pair(for: .init(foreground: .cyan, background: .default))
        let onRed = pairs.pair(for: .init(foreground: .white, background: .red))
        let cyanAgain = pairs.pair(for: .init(foreground: .cyan, background: .default))
        #expect(cyan?.number == 1 && cyan?.isNew == true)
        #expect(onRed?.number == 2 && onRed?.isNew == true)
        #expect(cyanAgain?.number == 1 && cyanAgain?.isNew == false)
        #expect(pairs.count == 2)
    }

    @Test func runningOutOfPairsFallsBack() {
        var pairs = ColorPairs(capacity: 3)  // pairs 0, 1, 2
        #expect(pairs.pair(for: .init(foreground: .red, background: .default))?.number == 1)
        #expect(pairs.pair(for: .init(foreground: .green, background: .default))?.number == 2)
        #expect(pairs.pair(for: .init(foreground: .blue, background: .default)) == nil)
        pairs.removeAll()
        #expect(pairs.pair(for: .init(foreground: .blue, background: .default))?.number == 1)
    }

    @Test func everyThemeColorFitsInEightColorTerminal() {
        var pairs = ColorPairs(capacity: 64)
        let theme = Theme(usesColor: true)
        for role in Role.allCases {
            let look = theme.appearance(of: Style(role))
            #expect(pairs.pair(for: .init(foreground: look.foreground, background: look.background)) != nil)
        }
    }

    @Test func emphasisBecomesAttributes() {
        #expect(CursesTerminal.attributes(for: Appearance()) == shim_a_normal())
        #expect(CursesTerminal.attributes(for: Appearance(bold: true)) == shim_a_bold())
        let all = CursesTerminal.attributes(for: Appearance(bold: true, dim: true, reverse: true, underline: true))
        #expect(all == shim_a_bold() | shim_a_dim() | shim_a_reverse() | shim_a_underline())
    }

    @Test func monochromeThemeHasNoColors() {
        let theme = Theme.standard(environment: ["NO_COLOR": "1"], terminalHasColor: true)
        #expect(!theme.usesColor)
        for role in Role.allCases {
            let look = theme.appearance(of: Style(role))
            #expect(look.foreground == .default && look.background == .default)
        }
    }
}

@Suite("Cells to characters")
struct CellCharacterTests {
    @Test func controlCharactersAndContinuationsAreBlank() {
        #expect(CursesTerminal.characters(for: Cell("\u{07}"), fitsWide: true, utf8: true).0 == [32])
    }

    @Test func wideGlyphThatDoesNotFitIsBlank() {
        #expect(CursesTerminal.characters(for: Cell("漢"), fitsWide: false, utf8: true).0 == [32])
    }

    @Test func withoutUTF8NonASCIIIsAQuestionMark() {
        let narrow = CursesTerminal.characters(for: Cell("é"), fitsWide: true, utf8: false)
        #expect(narrow.0 == [63] && !narrow.blankAfter)
        let wide = CursesTerminal.characters(for: Cell("漢"), fitsWide: true, utf8: false)
        #expect(wide.0 == [63] && wide.blankAfter)
    }

    @Test func asciiPassesThrough() {
        let result = CursesTerminal.characters(for: Cell("q"), fitsWide: true, utf8: true)
        #expect(result.0 == [wchar_t(UInt8(ascii: "q"))] && !result.blankAfter)
    }
}
