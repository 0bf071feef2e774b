import Foundation
import HandoffCore

/// The web as the simulator has it: the sites in a folder, one folder per host, and nothing else.
///
/// `page(for:)` never fails: it returns the site's page, or a page saying what went wrong (not
/// found, no network, refused address, unusable file), always with the full address.
///
/// Addresses map to files in `sites/HOST/` this way (the query never changes the file):
///
/// | Path | File |
/// |---|---|
/// | `/` | `index.page` |
/// | `/a/b` | `a/b.page`, else `a/b/index.page` |
/// | `/a/b/` | `a/b/index.page` |
/// | `/apple-app-site-association`, `/.well-known/apple-app-site-association` | the association file, shown as text |
///
/// Paths with `..`, a segment starting with a dot, a backslash or a NUL are refused, and no
/// file outside the host's folder is ever read (symbolic links are resolved and checked). Two
/// hosts compute pages: `maps.handoffsim.example` adds map variables to its pages
/// (``MapQuery``), and `reader.handoffsim.example` shows the Reader's documents
/// (``ReaderSite``).
package struct SiteLibrary: Sendable {
    /// The extension of page files.
    package static let pageExtension = "page"

    /// The folder of sites; nil serves nothing (every address is "no network").
    package let folder: URL?
    /// The Reader's documents, for `reader.handoffsim.example`.
    package let readerDocuments: URL?
    /// The hosts served, sorted.
    package let hosts: [String]

    package init(folder: URL?, readerDocuments: URL?) {
        self.folder = folder
        self.readerDocuments = readerDocuments
        hosts = folder.map(Self.hosts(in:)) ?? []
    }

    /// The hosts in `folder`: its subfolders whose names are host names (letters, digits,
    /// hyphens and dots, with at least one dot), lower-cased and sorted.
    package static func hosts(in folder: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { name in
            var isFolder: ObjCBool = false
            guard isHostName(name),
                FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder)
            else { return false }
            return isFolder.boolValue
        }.map { $0.lowercased() }.sorted()
    }

    static func isHostName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 253 && name.contains(".") && !name.hasPrefix(".") && !name.hasSuffix(".")
            && !name.contains("..")
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }

    /// The page at `url`, or a page explaining why there is none.
    package func page(for url: URL) -> WebPage {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else { return ErrorPages.unsupportedScheme(url, scheme: scheme) }
        guard let host = url.host?.lowercased(), !host.isEmpty else { return ErrorPages.noHost(url) }
        guard let folder, hosts.contains(host) else { return ErrorPages.noNetwork(url, host: host, knownHosts: hosts) }
        let siteFolder = folder.appendingPathComponent(host, isDirectory: true)
        let path = url.path
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if let bad = segments.first(where: { $0 == ".." || $0 == "." || $0.contains("\\") || $0.contains("\0") }) {
            return ErrorPages.badPath(url, reason: "the segment “\(bad)” is not allowed in a path")
        }
        if segments == [SiteAssociationFile.fileName] || segments == [".well-known", SiteAssociationFile.fileName] {
            return associationPage(url, siteFolder: siteFolder)
        }
        if let hidden = segments.first(where: { $0.hasPrefix(".") }) {
            return ErrorPages.badPath(url, reason: "“\(hidden)” is hidden: names starting with a dot are never served")
        }
        var candidates: [String] = []
        if segments.isEmpty || path.hasSuffix("/") {
            candidates.append((segments + ["index.\(Self.pageExtension)"]).joined(separator: "/"))
        } else {
            var last = segments
            last[last.count - 1] += ".\(Self.pageExtension)"
            candidates.append(last.joined(separator: "/"))
            candidates.append((segments + ["index.\(Self.pageExtension)"]).joined(separator: "/"))
        }
        for relative in candidates {
            let file = siteFolder.appendingPathComponent(relative, isDirectory: false)
            guard isRegularFile(file) else { continue }
            guard isInside(file, siteFolder) else {
                return ErrorPages.badPath(url, reason: "\(host)/\(relative) points outside the site's folder")
            }
            var page = load(file, relative: relative, url: url, host: host)
            if host == ReaderSite.host, segments.isEmpty, page.kind == .site {
                page.blocks += ReaderSite(documents: readerDocuments).documentLinks()
            }
            return page
        }
        if host == ReaderSite.host, segments.count == 1 {
            // A document of the Reader (a page file of the same name comes first).
            return ReaderSite(documents: readerDocuments).page(for: url, segments: segments)
        }
        return ErrorPages.notFound(url, host: host, looked: candidates)
    }

    private func load(_ file: URL, relative: String, url: URL, host: String) -> WebPage {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            return ErrorPages.unusableFile(
                url, file: "\(host)/\(relative)", reason: "it could not be read (\(error.localizedDescription))")
        }
        var variables = PageParser.variables(for: url)
        if host == MapQuery.host { variables.merge(MapQuery(url: url).variables) { _, new in new } }
        do throws(PageError) {
            return try PageParser.parse(data, url: url, variables: variables)
        } catch {
            return ErrorPages.unusableFile(url, file: "\(host)/\(relative)", reason: error.description)
        }
    }

    private func associationPage(_ url: URL, siteFolder: URL) -> WebPage {
        let host = url.host?.lowercased() ?? ""
        let file = siteFolder.appendingPathComponent(SiteAssociationFile.fileName)
        guard isRegularFile(file), isInside(file, siteFolder), let data = try? Data(contentsOf: file) else {
            return ErrorPages.notFound(url, host: host, looked: [SiteAssociationFile.fileName])
        }
        return WebPage.associationPage(url: url, mediaType: "application/json", body: data)
    }

    private func isRegularFile(_ file: URL) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder) && !isFolder.boolValue
    }

    /// Whether `file`, with symbolic links resolved, is inside `folder` (also resolved).
    private func isInside(_ file: URL, _ folder: URL) -> Bool {
        let resolvedFolder = folder.resolvingSymlinksInPath().standardizedFileURL.path
        let resolvedFile = file.resolvingSymlinksInPath().standardizedFileURL.path
        return resolvedFile.hasPrefix(resolvedFolder.hasSuffix("/") ? resolvedFolder : resolvedFolder + "/")
    }
}
