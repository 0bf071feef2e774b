import Foundation
import TerminalCells

/// Reads the simulator's page format (`.page` files, UTF-8, after the Gemini project's
/// text/gemini: one kind of block per line, so a page is readable as plain text).
///
/// ```
/// # The page's title            the first line starting with "# " is the title
/// Text lines.                   consecutive text lines form one paragraph;
/// More of the same paragraph.   a blank line ends it
/// ## A heading                  "## " (or a later "# ") starts a heading
/// => /other Another page        a link: "=>", the target, then the label (optional)
/// => https://example.org/       targets are absolute or relative to the page's address
/// * An item                     a bulleted list item
/// > Quoted text                 a quotation
/// ```                           a line starting with ``` toggles preformatted text,
///                               shown as written and never wrapped
/// {{query.lat}}                 replaced by the value of `lat` in the address's query
/// ```
///
/// Placeholders `{{NAME}}` are replaced in every block by the page's variables (``variables(for:)``:
/// `url`, `host`, `path`, `query` and `query.NAME` for each query item, plus those a site adds,
/// such as `map.summary`); an unknown placeholder stays as written so an author sees it. The
/// values never add lines or blocks: they are substituted after the lines are classified.
///
/// Hostile input is made harmless rather than refused: control characters (terminal escape
/// sequences included) and bidirectional overrides are dropped, tabs become four spaces, CR LF and
/// CR become LF, a byte-order mark is ignored, values are cut at ``maximumValueLength`` characters
/// and pages at ``maximumLines`` lines (with a note). Only files that are not UTF-8 or larger than
/// ``maximumBytes`` are refused (``PageError``), and the Browser shows why.
package enum PageParser {
    /// The largest page file read.
    package static let maximumBytes = 256 * 1024
    /// The most lines of a page read; the rest is replaced by a note.
    package static let maximumLines = 5_000
    /// The longest substituted value, in characters.
    package static let maximumValueLength = 200

    /// Parses a page file's bytes.
    ///
    /// - Throws: ``PageError/tooLarge(bytes:)`` or ``PageError/notUTF8``.
    package static func parse(_ data: Data, url: URL, variables: [String: String] = [:]) throws(PageError) -> WebPage {
        guard data.count <= maximumBytes else { throw .tooLarge(bytes: data.count) }
        guard let text = String(data: data, encoding: .utf8) else { throw .notUTF8 }
        return parse(text, url: url, variables: variables)
    }

    /// Parses page text (see the type's documentation for the format).
    package static func parse(_ text: String, url: URL, variables: [String: String] = [:]) -> WebPage {
        let values = variables.mapValues(cleanValue)
        func fill(_ text: String) -> String { substitute(text, values) }

        var lines = sanitized(text).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var truncated = false
        if lines.count > maximumLines {
            lines = Array(lines.prefix(maximumLines))
            truncated = true
        }
        var title: String?
        var blocks: [WebPage.Block] = []
        var paragraph: [String] = []
        var preformatted: [String]?

        func endParagraph() {
            guard !paragraph.isEmpty else { return }
            blocks.append(.paragraph(fill(paragraph.joined(separator: " "))))
            paragraph = []
        }

        for line in lines {
            if line.hasPrefix("```") {
                if let rows = preformatted {
                    blocks.append(.preformatted(rows))
                    preformatted = nil
                } else {
                    endParagraph()
                    preformatted = []
                }
                continue
            }
            if preformatted != nil {
                preformatted?.append(fill(line))
                continue
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty {
                endParagraph()
            } else if line.hasPrefix("=>") {
                endParagraph()
                if let link = parseLink(String(line.dropFirst(2)), base: url, fill: fill) { blocks.append(.link(link)) }
            } else if line.hasPrefix("#") {
                endParagraph()
                let level = line.prefix(while: { $0 == "#" }).count
                let text = fill(line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces))
                if level == 1, title == nil, blocks.isEmpty {
                    title = text
                } else {
                    blocks.append(.heading(text, level: min(level, 2)))
                }
            } else if line.hasPrefix("* ") {
                endParagraph()
                blocks.append(.listItem(fill(String(line.dropFirst(2)).trimmingCharacters(in: .whitespaces))))
            } else if line.hasPrefix(">") {
                endParagraph()
                blocks.append(.quote(fill(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))))
            } else {
                paragraph.append(trimmed)
            }
        }
        endParagraph()
        if let rows = preformatted { blocks.append(.preformatted(rows)) }
        if truncated {
            blocks.append(.quote("The rest of this page was not shown: it has more than \(maximumLines) lines."))
        }
        let fallbackTitle = (url.host ?? "") + (url.path.isEmpty ? "/" : url.path)
        return WebPage(url: url, title: title.flatMap { $0.isEmpty ? nil : $0 } ?? fallbackTitle, blocks: blocks)
    }

    /// The variables every page gets from its address: `url`, `host`, `path`, `query` (the
    /// whole query, decoded) and `query.NAME` for each query item (the first of repeated names).
    package static func variables(for url: URL) -> [String: String] {
        var values = ["url": url.absoluteString, "host": url.host ?? "", "path": url.path.isEmpty ? "/" : url.path]
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        values["query"] = components?.query ?? ""
        for item in components?.queryItems ?? [] where values["query." + item.name] == nil {
            values["query." + item.name] = item.value ?? ""
        }
        return values
    }

    // MARK: Parts

    private static func parseLink(_ rest: String, base: URL, fill: (String) -> String) -> WebPage.Link? {
        let body = fill(rest.trimmingCharacters(in: .whitespaces))
        guard !body.isEmpty else { return nil }
        let target = String(body.prefix(while: { $0 != " " }))
        let label = body.dropFirst(target.count).trimmingCharacters(in: .whitespaces)
        return WebPage.Link(label: label.isEmpty ? target : label, target: target, url: resolve(target, against: base))
    }

    /// `target` as an absolute address, relative to `base`; nil when it does not parse.
    static func resolve(_ target: String, against base: URL) -> URL? {
        guard let url = URL(string: target, relativeTo: base)?.absoluteURL, url.scheme != nil else { return nil }
        return url
    }

    /// Replaces each `{{NAME}}` whose name is in `values`.
    static func substitute(_ text: String, _ values: [String: String]) -> String {
        guard text.contains("{{") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            result += rest[..<open.lowerBound]
            let after = rest[open.upperBound...]
            guard let close = after.range(of: "}}") else {
                rest = rest[open.lowerBound...]
                break
            }
            let name = after[..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if let value = values[name] {
                result += value
            } else {
                result += rest[open.lowerBound..<close.upperBound]
            }
            rest = after[close.upperBound...]
        }
        return result + rest
    }

    /// A value as it may appear in a page: one line, no control characters, not too long.
    static func cleanValue(_ value: String) -> String {
        let flat = sanitized(value).replacingOccurrences(of: "\n", with: " ")
        return flat.count > maximumValueLength ? String(flat.prefix(maximumValueLength)) + "…" : flat
    }

    /// Line endings normalised to LF, tabs to four spaces; terminal escape sequences removed
    /// whole; other control characters (form feeds too), bidirectional overrides and a
    /// byte-order mark dropped (``PlainText/sanitized(_:keepingFormFeeds:)``, the cleaning the
    /// Reader's pages are measured after).
    static func sanitized(_ text: String) -> String {
        PlainText.sanitized(text)
    }
}

/// Why a page file could not be used.
package enum PageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file is larger than ``PageParser/maximumBytes``.
    case tooLarge(bytes: Int)
    /// The file is not UTF-8 text.
    case notUTF8

    package var description: String {
        switch self {
        case .tooLarge(let bytes):
            "the page file is \(bytes) bytes, over the \(PageParser.maximumBytes)-byte limit"
        case .notUTF8:
            "the page file is not UTF-8 text"
        }
    }
}
