/// Text from outside (a document, a page file) made safe to measure and to draw in cells.
package enum PlainText {
    /// `text` with line endings normalised to LF and tabs to four spaces; terminal escape
    /// sequences (CSI such as `ESC [ 2 J`, OSC such as `ESC ] 0 ; title BEL`, and two-character
    /// escapes) removed whole; other control characters, bidirectional overrides and a byte-order
    /// mark dropped. Form feeds (U+000C, which end pages: ``PagedText``) are kept when
    /// `keepingFormFeeds`, dropped otherwise.
    package static func sanitized(_ text: String, keepingFormFeeds: Bool = false) -> String {
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

    private enum EscapeState {
        case none, started, controlSequence, operatingSystemCommand
    }
}
