import Foundation
import TerminalCells

/// The web version of the Reader, `reader.handoffsim.example`: the Reader's documents, a page
/// at a time, for devices without the Reader.
///
/// The Reader sets its activity's `webpageURL` to `https://reader.handoffsim.example/SLUG?page=N`,
/// where the slug is the document's file name without `.txt`. This site shows page N of
/// `SLUG.txt` from the Reader's documents, cut into the Reader's logical pages by the same rule
/// (``PagedText``, shared in TerminalCells), so "page 3" is the same text in both. A document it
/// does not have gets a page saying which document and page were asked for. The home page (the
/// site's `index.page`) is followed by a link to each document.
struct ReaderSite {
    static let host = "reader.handoffsim.example"
    /// The largest document read.
    static let maximumBytes = 4 * 1024 * 1024

    /// The Reader's documents; nil when not installed.
    let documents: URL?

    /// A document: its slug, title and pages.
    struct Document {
        var slug: String
        var title: String
        var pages: [[String]]
    }

    /// The links to every document, for the home page.
    func documentLinks() -> [WebPage.Block] {
        guard let documents else {
            return [.quote("The Reader's documents are not installed with this Browser, so none can be listed.")]
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: documents.path)) ?? [])
            .filter { $0.hasSuffix(".txt") && !$0.hasPrefix(".") }.sorted()
        guard !names.isEmpty else { return [.quote("There are no documents yet.")] }
        return [.heading("Documents", level: 2)]
            + names.map { name in
                let slug = String(name.dropLast(4))
                let title = (try? load(slug))?.title ?? slug
                let target = "/" + (slug.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? slug)
                let url = URL(string: "https://\(Self.host)\(target)")
                return .link(WebPage.Link(label: title, target: target, url: url))
            }
    }

    /// The page of the document `segments` names (one segment, the slug), with `?page=N`.
    func page(for url: URL, segments: [String]) -> WebPage {
        let slug = segments[0]
        let asked = URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems?.first { $0.name == "page" }?
            .value
        let requested = asked.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let document: Document
        do {
            document = try load(slug)
        } catch {
            return missing(url, slug: slug, page: requested ?? 1, reason: error)
        }
        var notes: [WebPage.Block] = []
        var number = requested ?? 1
        if asked != nil, requested == nil {
            notes.append(
                .quote("“\(PageParser.cleanValue(String(asked!.prefix(24))))” is not a page number: showing page 1."))
            number = 1
        } else if number < 1 {
            notes.append(.quote("There is no page \(number): showing page 1."))
            number = 1
        } else if number > document.pages.count {
            notes.append(
                .quote(
                    "“\(document.title)” has \(document.pages.count) page\(document.pages.count == 1 ? "" : "s"); "
                        + "page \(number) was asked for: showing the last page."))
            number = document.pages.count
        }
        var blocks: [WebPage.Block] = notes
        blocks.append(.quote("Page \(number) of \(document.pages.count) · the web version of the Reader"))
        var lines = document.pages[number - 1]
        if number == 1, lines.first?.trimmingCharacters(in: .whitespaces) == document.title { lines.removeFirst() }
        for line in lines where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            blocks.append(.paragraph(line.trimmingCharacters(in: .whitespaces)))
        }
        let base = "/" + (slug.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? slug)
        func link(_ label: String, _ page: Int) -> WebPage.Block {
            let target = "\(base)?page=\(page)"
            return .link(WebPage.Link(label: label, target: target, url: PageParser.resolve(target, against: url)))
        }
        if number > 1 { blocks.append(link("← Page \(number - 1)", number - 1)) }
        if number < document.pages.count { blocks.append(link("Page \(number + 1) →", number + 1)) }
        blocks.append(
            .link(WebPage.Link(label: "All documents", target: "/", url: URL(string: "https://\(Self.host)/"))))
        return WebPage(url: url, title: document.title, blocks: blocks)
    }

    private func missing(_ url: URL, slug: String, page: Int, reason: ReaderSiteError) -> WebPage {
        let name = PageParser.cleanValue(slug)
        let explanation: String =
            switch reason {
            case .notInstalled:
                "The Reader's documents are not installed with this Browser, so page \(page) of “\(name)” cannot be shown here."
            case .notFound:
                "This site has no document named “\(name)” (page \(page) was asked for). It may be a document that lives only "
                    + "on the device that handed it off: open it in the Reader there, or on a device with the Reader."
            case .unusable(let why):
                "The document “\(name)” cannot be shown: \(why) (page \(page) was asked for)."
            }
        return WebPage(
            url: url, title: "“\(name)”, page \(page)",
            blocks: [
                .paragraph(explanation),
                .link(WebPage.Link(label: "All documents", target: "/", url: URL(string: "https://\(Self.host)/"))),
            ], kind: .notFound)
    }

    enum ReaderSiteError: Error {
        case notInstalled, notFound
        case unusable(String)
    }

    /// Reads and pages `SLUG.txt`.
    func load(_ slug: String) throws(ReaderSiteError) -> Document {
        guard let documents else { throw .notInstalled }
        guard !slug.isEmpty, !slug.hasPrefix("."), !slug.contains("/"), !slug.contains("\0") else { throw .notFound }
        let file = documents.appendingPathComponent(slug + ".txt", isDirectory: false)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path) else { throw .notFound }
        if let size = attributes[.size] as? Int, size > Self.maximumBytes {
            throw .unusable("it is \(size) bytes, over the site's \(Self.maximumBytes)-byte limit")
        }
        guard let data = try? Data(contentsOf: file) else { throw .unusable("it could not be read") }
        guard let text = String(data: data, encoding: .utf8) else { throw .unusable("it is not UTF-8 text") }
        let paged = PagedText(text)
        let title = paged.title ?? slug
        return Document(slug: slug, title: title.isEmpty ? slug : title, pages: paged.pages)
    }

    /// `text` cut into the Reader's logical pages (never empty).
    static func pages(of text: String) -> [[String]] {
        PagedText(text).pages
    }
}
