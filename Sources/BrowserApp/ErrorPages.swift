import Foundation

/// The pages the Browser writes itself when there is no site page: each names what was wrong
/// and shows the full address.
enum ErrorPages {
    static func noNetwork(_ url: URL, host: String, knownHosts: [String]) -> WebPage {
        var blocks: [WebPage.Block] = [
            .paragraph(
                "The Browser cannot reach \(host): the simulator has no network. It shows only the sites that ship with it."
            ),
            .heading("Address", level: 2),
            .paragraph(url.absoluteString),
        ]
        blocks += siteLinks(knownHosts)
        return WebPage(url: url, title: "No network in the simulator", blocks: blocks, kind: .noNetwork)
    }

    static func unsupportedScheme(_ url: URL, scheme: String) -> WebPage {
        let what = scheme.isEmpty ? "This address has no scheme" : "“\(scheme):” addresses are not web pages"
        return WebPage(
            url: url, title: "Cannot open this address",
            blocks: [
                .paragraph("\(what): the Browser opens http and https addresses only, as Handoff's web pages must."),
                .heading("Address", level: 2),
                .paragraph(url.absoluteString),
            ], kind: .refused)
    }

    static func noHost(_ url: URL) -> WebPage {
        WebPage(
            url: url, title: "Cannot open this address",
            blocks: [
                .paragraph("The address names no host, so there is no site to ask."),
                .heading("Address", level: 2),
                .paragraph(url.absoluteString),
            ], kind: .refused)
    }

    static func badPath(_ url: URL, reason: String) -> WebPage {
        WebPage(
            url: url, title: "Address refused",
            blocks: [
                .paragraph("The site does not serve this path: \(reason)."),
                .heading("Address", level: 2),
                .paragraph(url.absoluteString),
                .link(home(of: url)),
            ], kind: .refused)
    }

    static func notFound(_ url: URL, host: String, looked: [String]) -> WebPage {
        let files = looked.map { "\(host)/\($0)" }.joined(separator: " or ")
        return WebPage(
            url: url, title: "Page not found",
            blocks: [
                .paragraph("\(host) has no page at \(url.path.isEmpty ? "/" : url.path) (looked for \(files))."),
                .heading("Address", level: 2),
                .paragraph(url.absoluteString),
                .link(home(of: url)),
            ], kind: .notFound)
    }

    static func unusableFile(_ url: URL, file: String, reason: String) -> WebPage {
        WebPage(
            url: url, title: "This page cannot be shown",
            blocks: [
                .paragraph("\(file) cannot be shown: \(reason)."),
                .heading("Address", level: 2),
                .paragraph(url.absoluteString),
                .link(home(of: url)),
            ], kind: .error)
    }

    private static func home(of url: URL) -> WebPage.Link {
        let host = url.host?.lowercased() ?? ""
        let target = "https://\(host)/"
        return WebPage.Link(label: "The home page of \(host)", target: target, url: URL(string: target))
    }

    private static func siteLinks(_ hosts: [String]) -> [WebPage.Block] {
        guard !hosts.isEmpty else { return [.paragraph("No sites are installed.")] }
        return [.heading("Sites you can visit", level: 2)]
            + hosts.map { host in
                let target = "https://\(host)/"
                return .link(WebPage.Link(label: host, target: target, url: URL(string: target)))
            }
    }
}
