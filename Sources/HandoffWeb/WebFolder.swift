import Foundation

/// The folder where the local web keeps what devices need to reach it: the certificate
/// authority (`ca.pem`, and its key `ca-key.pem`, readable by the user only) and the hosts map
/// (`hosts.json`). `handoff web serve` writes them; devices and `handoff manifest lint
/// --check-sites` read them.
///
/// By default `$XDG_STATE_HOME/handoff/web` (`~/.local/state/handoff/web`), next to the logs.
package struct WebFolder: Hashable, Sendable {
    package var url: URL

    package init(url: URL) {
        self.url = url
    }

    /// `$XDG_STATE_HOME/handoff/web`, else `~/.local/state/handoff/web`.
    package static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> WebFolder
    {
        WebFolder(url: stateFolder(environment: environment).appendingPathComponent("web", isDirectory: true))
    }

    /// The simulator's state folder, where the local web, the logs and lesson progress live:
    /// `$XDG_STATE_HOME/handoff` (an absolute path only), else `~/.local/state/handoff`.
    package static func stateFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let state: URL
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            state = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            state = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(
                ".local/state", isDirectory: true)
        }
        return state.appendingPathComponent("handoff", isDirectory: true)
    }

    /// The authority's certificate, which devices trust.
    package var authorityCertificate: URL { url.appendingPathComponent("ca.pem") }
    /// The authority's private key (0600).
    package var authorityKey: URL { url.appendingPathComponent("ca-key.pem") }
    /// Where each demo host is served on loopback.
    package var hostsMap: URL { url.appendingPathComponent("hosts.json") }

    /// Creates the folder (user-only) when missing.
    package func create() throws(WebError) {
        do {
            try FileManager.default.createDirectory(
                at: url, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .file(url.path, "cannot create the folder: \(error.localizedDescription)")
        }
    }
}

/// Something the local web could not do, naming the file, host or address.
package enum WebError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A file could not be read, written or used.
    case file(String, String)
    /// The server could not start.
    case server(String)
    /// A certificate could not be made.
    case certificate(String)
    /// Another program already listens on the port (`scheme` is HTTPS or HTTP).
    case portInUse(scheme: String, port: Int)

    package var description: String {
        switch self {
        case .file(let path, let reason): "\(path): \(reason)"
        case .server(let reason): "the local web server: \(reason)"
        case .certificate(let reason): "the local certificate authority: \(reason)"
        case .portInUse(let scheme, let port): "the \(scheme) port \(port) is already in use on 127.0.0.1"
        }
    }
}
