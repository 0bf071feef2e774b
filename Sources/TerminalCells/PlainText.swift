/// Text from outside (a document, a page file) made safe to measure and to draw in cells.
package enum PlainText {
    /// `text` with line endings normalised to LF and tabs to four spaces; terminal escape
    /// sequences (CSI such as `ESC [ 2 J`, OSC such as `ESC ] 0 ; title BEL`, and two-character
    /// escapes) removed whole; other control characters, bidirectional overrides and a byte-order
    /// mark dropped. Form feeds (U+000C, which end pages: ``PagedText``) are kept when
    /// `keepingFormFeeds`, dropped otherwise.
    package static func sanitized(_ text: String, keepingFormFeeds: Bool = false) -> String {
        isUnchanged(text) ? text : sanitizedByScalars(text, keepingFormFeeds: keepingFormFeeds)
    }

    /// ``sanitized(_:keepingFormFeeds:)`` scalar by scalar, for text it changes.
    static func sanitizedByScalars(_ text: String, keepingFormFeeds: Bool) -> String {
        var scalars = String.UnicodeScalarView()
        var afterCarriageReturn = false
        var escape = EscapeState.none
        for scalar in text.unicodeScalars {
            switch escape {
            case .none:
                break
            case .started:
                escape = scalar == "[" ? .controlSequence : scalar == "]" ? .operatingSystemCommand : .none
                if scalar.value >= 0x20 { continue }
            case .controlSequence:
                // Parameters and intermediates run to a final byte in 0x40...0x7E.
                if (0x40...0x7E).contains(scalar.value) { escape = .none }
                if scalar.value >= 0x20 { continue }
                escape = .none
            case .operatingSystemCommand:
                // Runs to BEL or ST (ESC \); a newline or a form feed ends it too, so that it
                // cannot hide lines or pages.
                if scalar.value == 0x07 {
                    escape = .none
                    continue
                }
                if scalar.value == 0x1B {
                    escape = .started
                    continue
                }
                if scalar != "\n" && scalar != "\r" && scalar != "\u{0C}" { continue }
                escape = .none
            }
            defer { afterCarriageReturn = scalar == "\r" }
            switch scalar.value {
            case 0x1B: escape = .started
            case 0x9B: escape = .controlSequence
            case 0x9D: escape = .operatingSystemCommand
            case 0x0D: scalars.append("\n")
            case 0x0A: if !afterCarriageReturn { scalars.append(scalar) }
            case 0x09: scalars.append(contentsOf: "    ".unicodeScalars)
            case 0x0C where keepingFormFeeds: scalars.append(scalar)
            case 0x00..<0x20, 0x7F..<0xA0, 0xFEFF, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F: break
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// Whether ``sanitized(_:keepingFormFeeds:)`` would give `text` back as it is: no scalar of
    /// it is one the sanitizer drops or changes (a C0 or C1 control character, DEL, a byte-order
    /// mark, a directional mark or override). Read from the UTF-8 bytes: each of those scalars
    /// is known by its first two or three bytes.
    static func isUnchanged(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let count = bytes.count
            var index = 0
            while index < count {
                let byte = bytes[index]
                if byte < 0x80 {
                    if byte < 0x20 || byte == 0x7F { return false }
                } else if byte == 0xC2 {
                    // U+0080...U+009F: C2 80...C2 9F.
                    if index + 1 < count, bytes[index + 1] < 0xA0 { return false }
                } else if byte == 0xE2, index + 2 < count {
                    // U+200E, U+200F, U+202A...U+202E: E2 80 8E, 8F, AA...AE; U+2066...U+2069: E2 81 A6...A9.
                    let second = bytes[index + 1]
                    let third = bytes[index + 2]
                    if second == 0x80, third == 0x8E || third == 0x8F || (0xAA...0xAE).contains(third) { return false }
                    if second == 0x81, (0xA6...0xA9).contains(third) { return false }
                } else if byte == 0xEF, index + 2 < count, bytes[index + 1] == 0xBB, bytes[index + 2] == 0xBF {
                    return false  // U+FEFF
                }
                index += 1
            }
            return true
        }
    }

    private enum EscapeState {
        case none, started, controlSequence, operatingSystemCommand
    }
}
