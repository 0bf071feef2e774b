import Foundation
import TerminalCells

/// The address being typed: text, a cursor, and whether the whole text is selected (as when
/// editing starts: the first character typed replaces it).
package struct AddressBar: Hashable, Sendable {
    /// The longest address accepted, in characters.
    package static let maximumLength = 2_048

    package private(set) var text: [Character]
    /// The cursor, from 0 (before the first character) to `text.count`.
    package private(set) var cursor: Int
    /// True while the whole text is selected: typing replaces it, Backspace clears it.
    package private(set) var isAllSelected: Bool

    /// Starts editing `text` with everything selected and the cursor at the end.
    package init(editing text: String) {
        self.text = Array(text.prefix(Self.maximumLength))
        cursor = self.text.count
        isAllSelected = !text.isEmpty
    }

    package var string: String { String(text) }

    /// Applies an editing key; returns false for keys that do not edit (Enter, Esc and others).
    package mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let character):
            if isAllSelected { clear() }
            guard text.count < Self.maximumLength, !character.isNewline else { return true }
            text.insert(character, at: cursor)
            cursor += 1
        case .backspace:
            if isAllSelected {
                clear()
            } else if cursor > 0 {
                text.remove(at: cursor - 1)
                cursor -= 1
            }
        case .delete:
            if isAllSelected {
                clear()
            } else if cursor < text.count {
                text.remove(at: cursor)
            }
        case .left:
            cursor = isAllSelected ? 0 : max(0, cursor - 1)
        case .right:
            cursor = isAllSelected ? text.count : min(text.count, cursor + 1)
        case .home, .control("a"):
            cursor = 0
        case .end, .control("e"):
            cursor = text.count
        case .control("u"):
            clear()
        default:
            return false
        }
        isAllSelected = false
        return true
    }

    private mutating func clear() {
        text = []
        cursor = 0
        isAllSelected = false
    }

    /// The web address typed text stands for, or nil when it is not an address.
    ///
    /// Leading and trailing spaces are ignored. Text with a scheme (`https://…`, `mailto:…`) is
    /// taken as written (the Browser then refuses schemes other than http and https, clearly);
    /// text without one gets `https://` (`maps.handoffsim.example/?lat=1` →
    /// `https://maps.handoffsim.example/?lat=1`). Text with spaces inside, or that does not parse,
    /// is not an address (the simulator has no search engine).
    package static func url(from typed: String) -> URL? {
        let text = typed.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, !text.contains(where: { $0.isWhitespace }) else { return nil }
        let lower = text.lowercased()
        let hasScheme =
            lower.contains("://")
            || ["mailto:", "javascript:", "data:", "about:", "tel:", "file:", "ftp:", "news:", "sms:"].contains {
                lower.hasPrefix($0)
            }
        let candidate = hasScheme ? text : "https://" + text
        if let url = URL(string: candidate), url.scheme != nil { return validHost(url) ? url : nil }
        // Characters a URL may not hold as typed (é, |, ^): percent-encode them.
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert(charactersIn: "#%")
        guard let encoded = candidate.addingPercentEncoding(withAllowedCharacters: allowed),
            let url = URL(string: encoded), url.scheme != nil, validHost(url)
        else { return nil }
        return url
    }

    /// A web address must name a host.
    private static func validHost(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else { return true }
        return !(url.host ?? "").isEmpty
    }
}
