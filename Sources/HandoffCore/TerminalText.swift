import Foundation

/// Text that came from somewhere else (a peer's name, a recording, a web server's file) made safe
/// for a terminal or a log, in one place.
///
/// A terminal obeys escape sequences: an ESC or OSC sequence in a peer's name would move the
/// cursor, set the window title or worse when printed raw. Invisible characters make look-alike
/// names ("Pho\u{200B}ne" beside "Phone"). So every control character (C0, DEL, C1) and every
/// invisible format character (zero-width spaces and joiners, bidirectional overrides) is shown
/// as its code point, `\u{1b}`, where it would otherwise act or hide.
public enum TerminalText {
    /// `text` with control and invisible format characters shown as `\u{…}`; with
    /// `keepingLines`, line feeds and tabs stay (a multi-line report).
    public static func sanitized(_ text: String, keepingLines: Bool = false) -> String {
        guard !isPlainASCII(text, keepingLines: keepingLines),
            text.unicodeScalars.contains(where: { needsEscape($0, keepingLines: keepingLines) })
        else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepingLines: keepingLines) {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Why `name` (a device's name as a peer sent it) is refused, or nil: control characters
    /// have no place in a name and are refused on the wire; invisible ones are allowed but
    /// shown (``sanitized(_:keepingLines:)``).
    public static func problem(withName name: String) -> String? {
        guard let control = name.unicodeScalars.first(where: isControl) else { return nil }
        return "contains a control character (U+\(String(format: "%04X", control.value)))"
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Whether `text` is printable ASCII only (and line feeds and tabs, with `keepingLines`):
    /// nothing to escape, told without decoding it (`handoff timeline --print` sanitizes
    /// hundreds of megabytes).
    static func isPlainASCII(_ text: String, keepingLines: Bool) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            bytes.allSatisfy { byte in
                (byte >= 0x20 && byte < 0x7F) || (keepingLines && (byte == 0x0A || byte == 0x09))
            }
        }
    }

    static func needsEscape(_ scalar: Unicode.Scalar, keepingLines: Bool) -> Bool {
        if keepingLines, scalar == "\n" || scalar == "\t" { return false }
        return isControl(scalar) || isInvisible(scalar)
    }

    /// Invisible format characters, but the zero-width joiner and the tag characters, which
    /// emoji sequences ("👨‍👩‍👧", flags of regions) are made of.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        // Without the Unicode tables where no format character is: below the Arabic block but
        // the soft hyphen, and the box drawing, block elements and geometric shapes that the
        // terminal's own drawings are made of (every one of them assigned, none a format
        // character).
        if scalar.value < 0x600, scalar.value != 0xAD { return false }
        if (0x2500...0x25FF).contains(scalar.value) { return false }
        guard scalar.properties.generalCategory == .format else { return false }
        return scalar.value != 0x200D && !(0xE0020...0xE007F).contains(scalar.value)
    }
}
