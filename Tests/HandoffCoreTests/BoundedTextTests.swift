import Testing

@testable import HandoffCore

@Suite("Text cut by UTF-8 bytes")
struct BoundedTextTests {
    @Test func aCutNeverSplitsAScalarAndStaysWithinItsBytes() {
        let text = "añ€😀z"  // 1, 2, 3, 4 and 1 bytes
        #expect(text.utf8Prefix(0) == "")
        #expect(text.utf8Prefix(3) == "añ")
        #expect(text.utf8Prefix(5) == "añ")
        #expect(text.utf8Prefix(6) == "añ€")
        #expect(text.utf8Prefix(100) == text)
        #expect(text.utf8Suffix(4) == "z")
        #expect(text.utf8Suffix(5) == "😀z")
        #expect(text.utf8Suffix(100) == text)
    }

    /// One character with ten thousand combining marks: a cut by characters would keep it whole.
    @Test func combiningMarksCountByTheirBytes() {
        let heavy = "e" + String(repeating: "\u{0301}", count: 10_000) + "tail"
        #expect(heavy.count == 5)
        let start = heavy.utf8Prefix(64)
        #expect(start.utf8.count <= 64)
        #expect(start.unicodeScalars.first == "e")  // the character, cut within its marks
        #expect(heavy.utf8Suffix(64).utf8.count <= 64)
        #expect(heavy.utf8Suffix(64).hasSuffix("tail"))
    }
}

@Suite("Text from elsewhere on a terminal")
struct TerminalTextTests {
    @Test func controlsAndInvisibleCharactersAreShownAsCodePoints() {
        #expect(TerminalText.sanitized("Lap\u{1B}]0;owned\u{7}top") == "Lap\\u{1b}]0;owned\\u{7}top")
        #expect(TerminalText.sanitized("a\u{9B}31mb\u{7F}") == "a\\u{9b}31mb\\u{7f}", "C1 CSI and DEL")
        #expect(TerminalText.sanitized("Pho\u{200B}ne") == "Pho\\u{200b}ne", "a look-alike name can be told apart")
        #expect(TerminalText.sanitized("abc\u{202E}def") == "abc\\u{202e}def", "a bidirectional override")
        #expect(TerminalText.sanitized("one\ntwo\tthree") == "one\\u{a}two\\u{9}three")
        #expect(TerminalText.sanitized("one\ntwo\tthree", keepingLines: true) == "one\ntwo\tthree")
        for kept in ["Phone 1", "Zoë’s iPad", "Family 👨‍👩‍👧‍👦", "東京", "🏴󠁧󠁢󠁳󠁣󠁴󠁿"] {
            #expect(TerminalText.sanitized(kept) == kept)
        }
    }

    @Test func theShortcutsAgreeWithTheUnicodeTables() {
        // Below U+0600 and in the box drawing and shapes blocks, the sanitizer does not look up
        // the general category: it must say what the lookup says.
        for value in Array(0..<0x600) + Array(0x2500...0x25FF) {
            guard let scalar = Unicode.Scalar(UInt32(value)) else { continue }
            #expect(TerminalText.isInvisible(scalar) == (scalar.properties.generalCategory == .format), "U+\(value)")
        }
        let drawn = "09:42:20.205 │●advertised · serial 1 │──── beacon #1 ───▶│ ╌╌╳ “A Short Guide”"
        #expect(TerminalText.sanitized(drawn, keepingLines: true) == drawn)
        #expect(TerminalText.sanitized("soft\u{AD}hyphen") == "soft\\u{ad}hyphen")
    }

    @Test func namesWithControlsAreRefusedOnTheWire() {
        #expect(TerminalText.problem(withName: "Phone") == nil)
        #expect(TerminalText.problem(withName: "Pho\u{200B}ne") == nil, "shown, not refused")
        #expect(TerminalText.problem(withName: "Evil\u{1B}[2J") == "contains a control character (U+001B)")
        #expect(TerminalText.problem(withName: "Evil\u{85}") == "contains a control character (U+0085)")
    }
}
