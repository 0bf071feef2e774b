import Foundation

/// A page as the Browser shows it: where it came from, a title and a list of blocks.
///
/// Pages come from the site files (``PageParser``), from the sites that compute their pages
/// (the Reader's documents), or from the Browser itself (``WebPage/Kind``: not found, no network,
/// refused addresses, errors). Every page keeps the address it was asked for, so even an error
/// page shows it in full.
package struct WebPage: Hashable, Sendable {
    /// What kind of page this is.
    package enum Kind: String, Hashable, Sendable {
        /// A page of a site the simulator ships.
        case site
        /// The host is known but has no page at this path.
        case notFound
        /// The host is not one of the simulator's sites: there is no network.
        case noNetwork
        /// The address cannot be opened at all (not http or https, no host, not an address).
        case refused
        /// The site's file could not be read or used (too large, not UTF-8, unreadable).
        case error
    }

    /// One block of a page, drawn in order.
    package enum Block: Hashable, Sendable {
        /// A heading (level 1 or 2; 3 and deeper are drawn as 2).
        case heading(String, level: Int)
        /// Running text, wrapped to the screen.
        case paragraph(String)
        /// A link, on its own line.
        case link(Link)
        /// An item of a bulleted list.
        case listItem(String)
        /// Quoted text.
        case quote(String)
        /// Lines shown as they are, never wrapped (cut at the right edge).
        case preformatted([String])
    }

    /// A link: the text shown and where it goes.
    package struct Link: Hashable, Sendable {
        /// The text shown (the target when the page gives none).
        package var label: String
        /// The target as written in the page.
        package var target: String
        /// The target resolved against the page's address; nil when it is not a usable address.
        package var url: URL?

        package init(label: String, target: String, url: URL?) {
            self.label = label
            self.target = target
            self.url = url
        }
    }

    /// The address the page was asked for (shown in the address bar).
    package var url: URL
    package var title: String
    package var blocks: [Block]
    package var kind: Kind

    package init(url: URL, title: String, blocks: [Block], kind: Kind = .site) {
        self.url = url
        self.title = title
        self.blocks = blocks
        self.kind = kind
    }

    /// The page's links, in order (``BrowserApp`` selects among them).
    package var links: [Link] {
        blocks.compactMap { block in
            if case .link(let link) = block { return link }
            return nil
        }
    }

    /// The page's text without styles, one block a line (for tests and the log).
    package var plainText: String {
        var lines = [title]
        for block in blocks {
            switch block {
            case .heading(let text, _), .paragraph(let text), .quote(let text): lines.append(text)
            case .listItem(let text): lines.append("• " + text)
            case .link(let link): lines.append("→ " + link.label)
            case .preformatted(let rows): lines += rows
            }
        }
        return lines.joined(separator: "\n")
    }
}
