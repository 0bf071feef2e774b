import HandoffCore
import Testing

@testable import TerminalCells

/// The short cuts of the text measures give what the long way gives.
@Suite("Text fast paths")
struct FastPathTests {
    /// Every scalar of the first planes' interesting part, alone and between letters: what the
    /// sanitizer's byte check passes unchanged, the scalar-by-scalar sanitizer returns as it was
    /// too (the check may send text the long way that comes back unchanged, such as a lone LF).
    @Test func theSanitizersByteCheckAgreesWithTheScalarByScalarSanitizer() {
        let ranges: [ClosedRange<UInt32>] = [0...0x3000, 0xFE00...0xFFFD, 0x1F300...0x1F320]
        var checked = 0
        var passed = 0
        for range in ranges {
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                for text in [String(Character(scalar)), "a\(scalar)b", "ab\(scalar)", "\(scalar)\(scalar)"] {
                    for keepingFormFeeds in [false, true] {
                        let long = PlainText.sanitizedByScalars(text, keepingFormFeeds: keepingFormFeeds)
                        if PlainText.isUnchanged(text) {
                            #expect(long == text, "U+\(String(value, radix: 16))")
                            passed += 1
                        }
                        #expect(PlainText.sanitized(text, keepingFormFeeds: keepingFormFeeds) == long)
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 50_000)
        #expect(passed > 80_000, "most texts take the short cut")
        // Escape sequences, line endings and a document's line as the Reader reads them.
        for text in ["\u{1B}[2Jx", "a\r\nb", "tab\there", "page\u{0C}two", "Mercado de San Miguel — churros y ñ"] {
            #expect(PlainText.sanitized(text) == PlainText.sanitizedByScalars(text, keepingFormFeeds: false))
        }
    }

    /// Every scalar the width's short cut takes is a character of its own next to any other it
    /// takes (Swift's own grapheme breaking says so), so the sum of the scalars' widths is the
    /// width character by character.
    @Test func scalarsTheWidthTakesOneByOneAreCharactersOfTheirOwn() {
        let ranges: [ClosedRange<UInt32>] = [
            0x20...0x7E, 0xA0...0x2FF, 0x370...0x3FF, 0x400...0x482, 0x48A...0x52F, 0x2010...0x2027,
            0x2030...0x205E, 0x2500...0x25FF, 0x3000...0x3029, 0x3030...0x303F, 0x3041...0x3096,
            0x309B...0x30FF, 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0xFF01...0xFF60,
        ]
        let scalars = ranges.flatMap { $0.compactMap(Unicode.Scalar.init) }
        // In order, reversed, and shuffled four times (the same shuffles on every run).
        var generator = SplitMix64(seed: 29)
        var orders = [scalars, scalars.reversed()]
        for _ in 0..<4 { orders.append(scalars.shuffled(using: &generator)) }
        for order in orders {
            for start in stride(from: 0, to: order.count, by: 64) {
                var text = String.UnicodeScalarView()
                text.append(contentsOf: order[start..<min(start + 64, order.count)])
                let line = String(text)
                #expect(TextWidth.isOneCharacterPerScalar(line))
                #expect(line.count == line.unicodeScalars.count, "\(line)")
                #expect(TextWidth.of(line) == line.reduce(0) { $0 + TextWidth.of($1) }, "\(line)")
            }
        }
        // Scalars that join a neighbour are not taken: combining marks, joiners, selectors,
        // kana sound marks, jamo, regional indicators.
        for joining: UInt32 in [0x301, 0x200D, 0xFE0F, 0x3099, 0x1161, 0x1F1E6, 0x200C, 0xFF9E] {
            #expect(!TextWidth.isOneCharacterPerScalar("a\(Unicode.Scalar(joining)!)"))
        }
        #expect(TextWidth.of("e\u{301}tude") == 5)
        #expect(TextWidth.of("Mercado — 夜市 야시장") == 21)
    }
}
