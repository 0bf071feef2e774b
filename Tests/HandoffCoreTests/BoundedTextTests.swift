import HandoffCore
import Testing

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
