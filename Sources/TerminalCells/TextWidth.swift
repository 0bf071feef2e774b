/// Display width of text in terminal cells, from our own table (independent of the C locale,
/// which reports -1 for every wide glyph in the "C" locale).
///
/// Wide (2 cells): East Asian Wide and Fullwidth ranges and emoji with emoji presentation.
/// Zero: combining marks, zero-width joiners and variation selectors (they join the previous
/// glyph). Everything else is 1 cell. Control characters are 0 and never drawn.
package enum TextWidth {
    /// The width of one grapheme cluster: the width of its first scalar, or 2 when it is turned
    /// into an emoji by a variation selector 16 or is an emoji sequence.
    package static func of(_ character: Character) -> Int {
        // Printable ASCII, most of what is drawn: one cell ("\r\n" is one character too, but
        // its ASCII value is a control character's).
        if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F { return 1 }
        let scalars = character.unicodeScalars
        var iterator = scalars.makeIterator()
        guard let first = iterator.next() else { return 0 }
        let base = width(of: first)
        // One scalar: its own width (0 for a control or a combining mark alone).
        guard iterator.next() != nil else { return base }
        if scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x200D }) { return 2 }
        if (0x1F1E6...0x1F1FF).contains(first.value) { return 2 }  // flags
        return max(base, 1)
    }

    /// Whether every scalar of `text` is a character of its own, of ``width(of:)`` cells:
    /// printable ASCII, the middle dot, and the box drawing, block elements and geometric shapes
    /// the terminal's drawings are made of (none of them joins a scalar before or after it).
    package static func isSimple(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            let value = scalar.value
            return (value >= 0x20 && value < 0x7F) || value == 0xB7 || (0x2500...0x25FF).contains(value)
        }
    }

    /// The width of a string in cells.
    package static func of(_ text: some StringProtocol) -> Int {
        // Printable ASCII: a cell a byte, without splitting the text into characters.
        let ascii = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? bytes.count : nil
        }
        if let ascii = ascii ?? nil { return ascii }
        if isOneCharacterPerScalar(text) { return text.unicodeScalars.reduce(0) { $0 + width(of: $1) } }
        return text.reduce(0) { $0 + of($1) }
    }

    /// Whether every scalar of `text` is a character (a grapheme cluster) of its own, so that its
    /// width is the sum of its scalars' widths without splitting it into characters: each scalar
    /// is one of ``isSimple(_:)``'s, or a letter or a mark of the scripts and punctuation below,
    /// none of which Unicode's rules join to a neighbour (no combining marks, joiners, variation
    /// selectors, regional indicators, Hangul jamo, kana sound marks or line separators).
    static func isOneCharacterPerScalar(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x20..<0x7F, 0xA0...0x2FF, 0x370...0x3FF, 0x400...0x482, 0x48A...0x52F,
                0x2010...0x2027, 0x2030...0x205E, 0x2500...0x25FF,
                0x3000...0x3029, 0x3030...0x303F, 0x3041...0x3096, 0x309B...0x30FF,
                0x4E00...0x9FFF, 0xAC00...0xD7A3, 0xFF01...0xFF60:
                true
            default:
                false
            }
        }
    }

    /// The width of one scalar: 0, 1 or 2.
    package static func width(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return 0 }
        if v < 0x300 { return 1 }
        if isZeroWidth(v) { return 0 }
        if isWide(v) { return 2 }
        return 1
    }

    static func isZeroWidth(_ v: UInt32) -> Bool {
        switch v {
        case 0x0300...0x036F, 0x0483...0x0489, 0x0591...0x05BD, 0x0610...0x061A, 0x064B...0x065F,
            0x0E31, 0x0E34...0x0E3A, 0x0E47...0x0E4E,
            0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2064,
            0x20D0...0x20FF, 0xFE00...0xFE0F, 0xFE20...0xFE2F, 0xFEFF, 0xE0100...0xE01EF:
            return true
        default:
            return false
        }
    }

    static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3,
            0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB,
            0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA,
            0x26FD, 0x2705, 0x270A...0x270B, 0x2728, 0x274C, 0x274E, 0x2753...0x2755, 0x2757,
            0x2795...0x2797, 0x27B0, 0x27BF, 0x2B1B...0x2B1C, 0x2B50, 0x2B55,
            0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
            0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F202, 0x1F210...0x1F23B,
            0x1F240...0x1F248, 0x1F250...0x1F251, 0x1F260...0x1F265,
            0x1F300...0x1F320, 0x1F32D...0x1F335, 0x1F337...0x1F37C, 0x1F37E...0x1F393,
            0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3, 0x1F3E0...0x1F3F0, 0x1F3F4, 0x1F3F8...0x1F43E,
            0x1F440, 0x1F442...0x1F4FC, 0x1F4FF...0x1F53D, 0x1F54B...0x1F54E, 0x1F550...0x1F567,
            0x1F57A, 0x1F595...0x1F596, 0x1F5A4, 0x1F5FB...0x1F64F, 0x1F680...0x1F6C5, 0x1F6CC,
            0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6D7, 0x1F6DC...0x1F6DF, 0x1F6EB...0x1F6EC,
            0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7EB, 0x1F7F0, 0x1F90C...0x1F93A, 0x1F93C...0x1F945,
            0x1F947...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `width` cells; when cut, it ends at a word boundary with `ellipsis`
    /// (if it fits), so a cut never leaves part of a word: "open the chosen app, or…", not
    /// "open the chosen app, or ap…". A word is cut inside only when the boundary would leave
    /// less than half the room (an identifier, a path, one long word), and then the ellipsis
    /// still says so. Every view cuts through this one helper.
    package static func truncate(_ text: String, to width: Int, ellipsis: String = "…") -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return text }
        let room = width - of(ellipsis)
        guard room >= 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let w = of(character)
            if used + w > room { break }
            result.append(character)
            used += w
        }
        // The character after the cut: a cut at a space is already at a word boundary.
        let next = text.dropFirst(result.count).first
        if let next, next != " ", let space = result.lastIndex(of: " "),
            of(result[..<space]) * 2 >= room
        {
            result = String(result[..<space])
        }
        // A separator left at the end says nothing: "editing ·…" reads "editing…".
        while true {
            while result.last == " " { result.removeLast() }
            guard let space = result.lastIndex(of: " ") else { break }
            let word = result[result.index(after: space)...]
            guard word.allSatisfy({ Self.separators.contains($0) }) else { break }
            result = String(result[..<space])
        }
        return result + ellipsis
    }

    /// Characters that only separate the words around them (a word of these alone is dropped
    /// at the end of a cut).
    static let separators: Set<Character> = ["·", "•", "—", "–", "-", "|", "→", "←", "/"]

    /// `text` padded with spaces (or cut) to exactly `width` cells.
    package static func pad(_ text: String, to width: Int, ellipsis: String = "…") -> String {
        let cut = truncate(text, to: width, ellipsis: ellipsis)
        return cut + String(repeating: " ", count: max(0, width - of(cut)))
    }

    /// Word-wraps `text` into lines of at most `width` cells. Existing newlines are kept; a word
    /// longer than a line is broken after a `.`, `/`, `-` or `_`, or before a capital letter
    /// (`com.example.` | `notes.editing`, `NSUserActivity` | `HandoffUserInfoTooLargeError`), and
    /// inside only when no such place leaves half a line.
    package static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                var word = String(word)
                var wordWidth = of(word)
                if lineWidth > 0 && lineWidth + 1 + wordWidth <= width {
                    line += " " + word
                    lineWidth += 1 + wordWidth
                    continue
                }
                if lineWidth > 0 || !line.isEmpty {
                    lines.append(line)
                    line = ""
                    lineWidth = 0
                }
                while wordWidth > width {
                    let (head, rest) = breakWord(word, width: width)
                    if head.isEmpty { break }
                    lines.append(head)
                    word = rest
                    wordWidth = of(word)
                }
                line = word
                lineWidth = wordWidth
            }
            lines.append(line)
        }
        return lines
    }

    /// The longest head of `word` that fits `width` cells, ending at a natural break when one
    /// leaves at least half the width, and the rest.
    static func breakWord(_ word: String, width: Int) -> (head: String, rest: String) {
        var head = ""
        var headWidth = 0
        var breakAt: Int?  // characters in the head at the last natural break
        var previous: Character?
        for character in word {
            let w = of(character)
            if headWidth + w > width { break }
            if let previous, !head.isEmpty, character.isUppercase, previous.isLowercase, headWidth * 2 >= width {
                breakAt = head.count
            }
            head.append(character)
            headWidth += w
            if ".-/_".contains(character), headWidth * 2 >= width { breakAt = head.count }
            previous = character
        }
        if let breakAt, breakAt < head.count, head.count < word.count {
            head = String(head.prefix(breakAt))
        }
        return (head, String(word.dropFirst(head.count)))
    }
}
