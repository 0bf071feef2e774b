import Foundation
import HandoffCore

/// How the Browser gets pages over the network: `load(url, deliver)` starts a `GET` (following a
/// few redirects) and calls `deliver` once, from any thread, with the response or why there is
/// none. The composition root makes one from the local web (`handoff`'s `WebPageLoader`); without
/// one the Browser reads its ``SiteLibrary`` from disk (tests, previews).
package struct PageLoader: Sendable {
    package var load: @Sendable (URL, @escaping @Sendable (PageLoadResult) -> Void) -> Void

    package init(load: @escaping @Sendable (URL, @escaping @Sendable (PageLoadResult) -> Void) -> Void) {
        self.load = load
    }
}

/// What a page load gave.
package enum PageLoadResult: Sendable, Hashable {
    /// The server answered; `url` is the address after redirects.
    case response(url: URL, status: Int, contentType: String, body: Data)
    /// No answer: why.
    case failed(url: URL, PageLoadFailure)
}

/// Why a page load got no answer.
package enum PageLoadFailure: Sendable, Hashable, CustomStringConvertible {
    /// The device's hosts map has no address for the host.
    case noAddress(host: String, reason: String)
    /// No connection (refused, reset, TLS failed).
    case unreachable(host: String, reason: String)
    /// No answer before the deadline.
    case timedOut(host: String, seconds: Double)
    /// The page is larger than the Browser reads.
    case tooLarge(host: String, limit: Int)
    /// Redirects that come back to an address already visited.
    case redirectLoop([String])
    /// More redirects than the Browser follows.
    case tooManyRedirects([String])

    package var description: String {
        switch self {
        case .noAddress(let host, let reason): "no address for \(host): \(reason)"
        case .unreachable(let host, let reason): "\(host) is unreachable: \(reason)"
        case .timedOut(let host, let seconds): "\(host) did not answer in \(seconds.formatted()) s"
        case .tooLarge(let host, let limit): "\(host) sent a page over \(limit / 1024) KB"
        case .redirectLoop(let chain): "the redirects loop: \(chain.joined(separator: " → "))"
        case .tooManyRedirects(let chain): "more than \(chain.count - 1) redirects: \(chain.joined(separator: " → "))"
        }
    }
}

/// The media type of the simulator's pages on the wire (the page format of ``PageParser``).
package let pageMediaType = "text/x-handoff-page"

extension WebPage {
    /// The page from a server's answer: pages in the page format are parsed (their `{{…}}`
    /// variables were filled in by the server, so none are filled here), association files are summarised, other
    /// text is shown as written; anything unusable gets a page saying why.
    package static func fromResponse(url: URL, status: Int, contentType: String, body: Data) -> WebPage {
        let mediaType =
            contentType.split(separator: ";", maxSplits: 1).first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            } ?? ""
        let kind: Kind =
            switch status {
            case 200..<300: .site
            case 404: .notFound
            case 400, 403: .refused
            case 502: .noNetwork
            default: .error
            }
        let segments = url.path.split(separator: "/").map(String.init)
        if segments.last == SiteAssociationFile.fileName, status == 200 {
            return associationPage(url: url, mediaType: mediaType, body: body)
        }
        switch mediaType {
        case pageMediaType, "text/gemini":
            do throws(PageError) {
                var page = try PageParser.parse(body, url: url, variables: [:])
                page.kind = kind
                return page
            } catch {
                return ErrorPages.unusableFile(url, file: url.absoluteString, reason: error.description)
            }
        case "text/plain", "application/json", "":
            let text = PageParser.sanitized(String(decoding: body.prefix(PageParser.maximumBytes), as: UTF8.self))
            let title = status == 200 ? (url.host ?? "") + url.path : "HTTP \(status)"
            return WebPage(
                url: url, title: title,
                blocks: [.preformatted(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))],
                kind: kind)
        default:
            return ErrorPages.unusableFile(
                url, file: url.absoluteString, reason: "the server sent \(mediaType), which the Browser does not show")
        }
    }

    /// An association file as the Browser shows it: what it approves (or why a device would
    /// refuse it), then the file as written.
    static func associationPage(url: URL, mediaType: String, body: Data) -> WebPage {
        let host = url.host?.lowercased() ?? ""
        var blocks: [Block] = []
        if mediaType != "application/json" {
            blocks.append(
                .paragraph(
                    "A device would refuse this file: it is served as \(mediaType.isEmpty ? "no type" : mediaType), not application/json."
                ))
        }
        do {
            let association = try SiteAssociationFile(host: host, data: body)
            let apps = association.approvedApplicationIdentifiers.sorted()
            blocks.append(
                .paragraph(
                    apps.isEmpty
                        ? "This site approves no app for Handoff (activity continuation)."
                        : "This site approves these apps for Handoff (activity continuation): \(apps.joined(separator: ", "))."
                ))
        } catch {
            blocks.append(.paragraph("This file cannot be used: \(error.reason)."))
        }
        let text = PageParser.sanitized(String(decoding: body.prefix(PageParser.maximumBytes), as: UTF8.self))
        blocks.append(.preformatted(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)))
        return WebPage(url: url, title: "\(host): \(SiteAssociationFile.fileName)", blocks: blocks)
    }

    /// The page in the page format, as a server sends it (``PageParser`` reads it back to the
    /// same blocks; lines that would read as another kind of block are indented).
    package var source: String {
        var lines = ["# " + Self.oneLine(title), ""]
        for block in blocks {
            switch block {
            case .heading(let text, let level):
                lines.append(String(repeating: "#", count: max(2, level)) + " " + Self.oneLine(text))
            case .paragraph(let text): lines.append(Self.safe(Self.oneLine(text)))
            case .link(let link):
                lines.append("=> \(link.url?.absoluteString ?? link.target) \(Self.oneLine(link.label))")
            case .listItem(let text): lines.append("* " + Self.oneLine(text))
            case .quote(let text): lines.append("> " + Self.oneLine(text))
            case .preformatted(let rows):
                lines.append("```")
                lines += rows.map { $0.hasPrefix("```") ? " " + $0 : $0 }
                lines.append("```")
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// The HTTP status a server answers this page with.
    package var status: Int {
        switch kind {
        case .site: 200
        case .notFound: 404
        case .refused: 400
        case .noNetwork: 502
        case .error: 500
        }
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    private static func safe(_ line: String) -> String {
        let markers = ["#", "=>", "* ", ">", "```"]
        return markers.contains { line.hasPrefix($0) } ? " " + line : line
    }
}

extension ErrorPages {
    static func loadFailed(_ url: URL, _ failure: PageLoadFailure) -> WebPage {
        let (title, what): (String, String) =
            switch failure {
            case .noAddress(let host, let reason):
                (
                    "Server not found",
                    "The Browser has no address for \(host): \(reason). Is the local web running (`handoff web serve`)?"
                )
            case .unreachable(let host, let reason):
                (
                    "Cannot reach the site",
                    "The Browser could not connect to \(host): \(reason). Is the local web running (`handoff web serve`)?"
                )
            case .timedOut(let host, let seconds):
                (
                    "The site did not answer",
                    "\(host) accepted the connection but sent nothing in \(seconds.formatted()) seconds."
                )
            case .tooLarge(let host, let limit):
                ("Page too large", "\(host) sent more than \(limit / 1024) KB; the Browser stops there.")
            case .redirectLoop(let chain):
                ("Redirect loop", "The site redirects in a circle: \(chain.joined(separator: " → ")).")
            case .tooManyRedirects(let chain):
                (
                    "Too many redirects",
                    "The Browser followed \(chain.count - 1) redirects and stopped: \(chain.joined(separator: " → "))."
                )
            }
        return WebPage(
            url: url, title: title,
            blocks: [
                .paragraph(what),
                .heading("Address", level: 2),
                .paragraph(url.absoluteString),
            ], kind: .error)
    }
}
