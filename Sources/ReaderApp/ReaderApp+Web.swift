import Foundation
import HandoffCore

extension ReaderApp {
    /// The web site that shows the Reader's documents, for devices without the Reader.
    package static let webHost = "reader.handoffsim.example"

    /// The page a device without the Reader opens in its Browser for `state`:
    /// `https://reader.handoffsim.example/SLUG?page=N`, where the slug is the file name without
    /// its extension, percent-encoded (e.g. `night markets.txt` → `night%20markets`).
    package static func webpageURL(for state: ReadingState) -> URL {
        let stem = (state.documentName as NSString).deletingPathExtension
        let slug = stem.isEmpty ? state.documentName : stem
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        allowed.remove(charactersIn: "/")
        let encoded = slug.addingPercentEncoding(withAllowedCharacters: allowed) ?? "document"
        // Every part is ASCII and percent-encoded: the URL always parses.
        return URL(string: "https://\(webHost)/\(encoded)?page=\(state.position.page)")!
    }
}

/// Why a page of the Reader's web site cannot open here.
package enum ReaderWebError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The activity has no `webpageURL`.
    case noPage
    /// The page is on another site.
    case otherHost(String)
    /// The page names no document (the site's home page).
    case noDocument(URL)
    /// `page` is missing or not a whole number from 1.
    case badPage(URL)
    /// No document of this name is on this device.
    case notHere(slug: String)

    package var description: String {
        switch self {
        case .noPage:
            "The web activity has no page, so there is nothing to open. Nothing changed here."
        case .otherHost(let host):
            "The page is on \(host), not \(ReaderApp.webHost): the Reader does not open it. Nothing changed here."
        case .noDocument(let url):
            "\(url.absoluteString) names no document (the Reader's pages are https://\(ReaderApp.webHost)/NAME?page=N). Nothing changed here."
        case .badPage(let url):
            "\(url.absoluteString) has no page number from 1 (?page=N). Nothing changed here."
        case .notHere(let slug):
            "“\(slug)” is not on this device, so its web page cannot open in the Reader here. Nothing changed here."
        }
    }
}

extension ReaderApp {
    /// What a page of the Reader's site asks for: `https://reader.handoffsim.example/SLUG?page=N`
    /// (``webpageURL(for:)``): the slug (the file name without its extension, percent-decoded)
    /// and the page.
    ///
    /// - Throws: ``ReaderWebError`` for another host, a page without a slug, or a page number
    ///   that is missing or not a whole number from 1.
    package static func webPage(_ url: URL) throws(ReaderWebError) -> (slug: String, page: Int) {
        guard let host = url.host?.lowercased(), host == webHost else { throw .otherHost(url.host ?? "no host") }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        let path = components?.percentEncodedPath ?? ""
        let slug = String(path.drop { $0 == "/" }).removingPercentEncoding ?? ""
        guard !slug.isEmpty, !slug.contains("/") else { throw .noDocument(url) }
        guard let text = components?.queryItems?.first(where: { $0.name == "page" })?.value,
            let page = Int(text), page >= 1
        else { throw .badPage(url) }
        return (slug, page)
    }

    /// A browsing-web activity for a page of the Reader's site (the system delivers it with the
    /// page only: an empty `userInfo`): opens the document the page names at its page in
    /// `window`, or says clearly why not (another site, a bad address, a document that is not on
    /// this device). Returns whether it was handled.
    func continueWebActivity(_ activity: UserActivity, in window: ReaderWindow) -> Bool {
        defer { environment?.setNeedsDisplay() }
        do throws(ReaderWebError) {
            guard let url = activity.webpageURL else { throw .noPage }
            let page = try Self.webPage(url)
            reloadDocuments()
            let matches = documents.filter { entry in
                let stem = (entry.name as NSString).deletingPathExtension
                return (stem.isEmpty ? entry.name : stem) == page.slug
            }
            guard let entry = matches.first else { throw .notHere(slug: page.slug) }
            do throws(ReadingRestoreError) {
                try open(entry.url, at: ReadingPosition(page: page.page), in: window)
            } catch {
                message = ReaderMessage(.error, error.description)
                environment?.log("Reader: could not open \(url.absoluteString): \(error)")
                return false
            }
            environment?.log("Reader: opened \(url.absoluteString) as “\(entry.name)” at page \(page.page)")
            return true
        } catch {
            message = ReaderMessage(.error, error.description)
            environment?.log(
                "Reader: web activity \(activity.webpageURL?.absoluteString ?? "(no page)") not opened: \(error)")
            return false
        }
    }
}
