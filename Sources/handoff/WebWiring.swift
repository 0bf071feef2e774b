import BrowserApp
import Foundation
import HandoffCore
import HandoffNetwork
import HandoffWeb

/// How a device reaches the local web: its Browser's pages and its apps' association files, both
/// through the hosts map and the certificate authority in the web folder (read again for each
/// request, so a server started after the device is found).
enum WebWiring {
    /// How long the Browser waits for a page.
    static let pageTimeout: Double = 5
    /// The largest page the Browser reads.
    static let pageLimit = 512 * 1024
    /// Redirects the Browser follows.
    static let redirectLimit = 5

    /// The Browser's page loader: `GET` through the local web, following up to five redirects
    /// (a loop is reported as one).
    static func pageLoader(folder: WebFolder) -> PageLoader {
        PageLoader { url, deliver in
            Task {
                deliver(await load(url, folder: folder))
            }
        }
    }

    /// The sites the Browser carries, shown when no local web was ever started in the web folder.
    static let offlineSites: SiteLibrary? = try? {
        let resources = try BrowserResources.locate()
        return SiteLibrary(folder: resources.sites, readerDocuments: resources.readerDocuments)
    }()

    static func load(_ start: URL, folder: WebFolder) async -> PageLoadResult {
        // No hosts map at all: no local web was started here. The Browser shows its own copy of
        // the demo sites and says so (a map that exists but whose server is gone is unreachable).
        if !FileManager.default.fileExists(atPath: folder.hostsMap.path), let sites = offlineSites,
            let host = start.host?.lowercased(), sites.hosts.contains(host)
        {
            let served = sites.servedPage(start)
            let note =
                "> Offline copy: the local web is not running (`handoff web serve`, or `handoff demo`), "
                + "so the Browser shows the page it carries.\n"
            return .response(
                url: start, status: served.status, contentType: served.contentType, body: Data(note.utf8) + served.body)
        }
        var url = start
        var chain = [start.absoluteString]
        while true {
            let client: WebClient
            do {
                client = try WebClient(folder: folder)
            } catch {
                return .failed(url: url, .noAddress(host: url.host ?? "", reason: "\(error)"))
            }
            let response: WebResponse
            do {
                response = try await client.get(url, timeout: pageTimeout, maximumBytes: pageLimit)
            } catch {
                let failure: PageLoadFailure =
                    switch error {
                    case .noAddress(let host, let reason): .noAddress(host: host, reason: reason)
                    case .unreachable(let host, let reason): .unreachable(host: host, reason: reason)
                    case .timedOut(let host, let seconds): .timedOut(host: host, seconds: seconds)
                    case .tooLarge(let host, let limit): .tooLarge(host: host, limit: limit)
                    case .unsupported(let address):
                        .unreachable(host: url.host ?? "", reason: "\(address) is not an http or https address")
                    }
                return .failed(url: url, failure)
            }
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["location"],
                let next = URL(string: location, relativeTo: url)?.absoluteURL
            else {
                return .response(
                    url: url, status: response.status, contentType: response.contentType, body: response.body)
            }
            if chain.contains(next.absoluteString) {
                return .failed(url: start, .redirectLoop(chain + [next.absoluteString]))
            }
            chain.append(next.absoluteString)
            if chain.count > redirectLimit + 1 { return .failed(url: start, .tooManyRedirects(chain)) }
            url = next
        }
    }

    /// Makes `device` fetch its apps' association files through the local web; each answer goes
    /// back to the device on its queue. Call on the device's queue, before apps are installed.
    static func attachVerifier(folder: WebFolder, to device: Device, host: DeviceHost, timeout: Double = 5) {
        let verifier = SiteAssociationVerifier(folder: folder, timeout: timeout)
        device.siteAssociationVerifier = { request in
            verifier.verify(request) { check in
                host.perform { device in device.siteAssociationChecked(check) }
                // An answer is cached for its max-age; when it expires the device fetches again
                // (a failure is not cached: the next launch or expiry asks again).
                let lifetime = check.expiresAt.timeIntervalSince(check.checkedAt)
                guard check.outcome.isAnswer, lifetime > 0 else { return }
                DispatchQueue.global().asyncAfter(deadline: .now() + lifetime + 0.01) {
                    host.perform { device in device.refreshExpiredSiteAssociations() }
                }
            }
        }
    }
}
