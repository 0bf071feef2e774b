import ArgumentParser
import BrowserApp
import Foundation
import HandoffCore
import HandoffWeb

/// `handoff web`: the local web the demo sites are served from.
struct WebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "The local web: the demo sites over HTTPS on loopback, for the Browser and for association files.",
        subcommands: [WebServeCommand.self]
    )
}

/// `handoff web serve`: serves demos/sites until interrupted.
struct WebServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the demo sites (pages and apple-app-site-association files) over HTTPS and HTTP on loopback.",
        discussion: """
            Each folder of the sites folder is a host (demos/sites/maps.handoffsim.example). The \
            server listens on 127.0.0.1 only, with a certificate issued by the local certificate \
            authority (made on first use in the web folder, $XDG_STATE_HOME/handoff/web), and writes \
            the hosts map (hosts.json) there: devices started with the same web folder resolve the \
            demo hosts to this server with that map, never with the system's resolver, and trust \
            that authority for HTTPS.

            --rehearse HOST=MODE serves HOST's association file wrong on purpose, to rehearse what a \
            device does then. Modes: \(Rehearsal.allCases.map { "\($0.rawValue) (\($0.summary))" }.joined(separator: ", ")).
            """
    )

    @Option(help: ArgumentHelp("The HTTPS port (0: any free port).", valueName: "port"))
    var port = SiteServer.defaultHTTPSPort

    @Option(help: ArgumentHelp("The plain-HTTP port (0: any free port).", valueName: "port"))
    var httpPort = SiteServer.defaultHTTPPort

    @Option(
        help: ArgumentHelp(
            "The folder of sites (default: the Browser's, which demos/sites links to).", valueName: "dir"))
    var sites: String?

    @Option(
        help: ArgumentHelp(
            "Where the certificate authority and the hosts map are kept (default: $XDG_STATE_HOME/handoff/web).",
            valueName: "dir"))
    var webDir: String?

    @Option(
        name: .customLong("rehearse"),
        help: ArgumentHelp("Serve HOST's association file wrong on purpose (repeatable).", valueName: "HOST=MODE"))
    var rehearsals: [String] = []

    @Option(help: ArgumentHelp("Cache-Control max-age of association files, in seconds.", valueName: "seconds"))
    var maxAge = 300

    @Flag(help: "Print each request.")
    var verbose = false

    func validate() throws {
        for port in [port, httpPort] where !(0...65_535).contains(port) {
            throw ValidationError("ports must be between 0 and 65535, not \(port).")
        }
        guard maxAge >= 0 else { throw ValidationError("--max-age must not be negative.") }
        _ = try parsedRehearsals()
    }

    func parsedRehearsals() throws(ValidationError) -> [String: Rehearsal] {
        var result: [String: Rehearsal] = [:]
        for text in rehearsals {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ValidationError("--rehearse expects HOST=MODE, not \"\(text)\".")
            }
            guard let mode = Rehearsal(rawValue: parts[1]) else {
                throw ValidationError(
                    "--rehearse \(parts[0]): no mode \"\(parts[1])\" (modes: \(Rehearsal.allCases.map(\.rawValue).joined(separator: ", ")))."
                )
            }
            result[parts[0].lowercased()] = mode
        }
        return result
    }

    func run() async throws {
        let folder =
            webDir.map { WebFolder(url: URL(fileURLWithPath: $0, isDirectory: true)) } ?? WebFolder.defaultFolder()
        let library: SiteLibrary
        if let sites {
            library = SiteLibrary(
                folder: URL(fileURLWithPath: sites, isDirectory: true),
                readerDocuments: BrowserResources.locateReaderDocuments())
        } else {
            do {
                let resources = try BrowserResources.locate()
                library = SiteLibrary(folder: resources.sites, readerDocuments: resources.readerDocuments)
            } catch {
                throw ValidationError("\(error)")
            }
        }
        guard let sitesFolder = library.folder, !library.hosts.isEmpty else {
            throw ValidationError(
                "no sites to serve in \(library.folder?.path ?? "the sites folder") (one folder per host, such as maps.handoffsim.example)."
            )
        }
        let rehearsals = try parsedRehearsals()
        for host in rehearsals.keys where !library.hosts.contains(host) {
            throw ValidationError("--rehearse \(host): no such site (sites: \(library.hosts.joined(separator: ", "))).")
        }
        let verbose = self.verbose
        let server: SiteServer
        do {
            server = try await SiteServer.start(
                SiteServer.Configuration(
                    sites: sitesFolder, hosts: library.hosts, pages: library.servedPage, folder: folder,
                    httpsPort: port, httpPort: httpPort, rehearsals: rehearsals, maxAge: maxAge),
                log: { line in if verbose { StandardOutput.shared.write(line) } })
        } catch .portInUse(let scheme, let port) {
            // One line: the port, and the option that chooses another.
            let option = scheme == "HTTPS" ? "--port" : "--http-port"
            FileHandle.standardError.write(
                Data(
                    "error: the \(scheme) port \(port) is already in use (another program listens on it, perhaps the demo's web): choose another with \(option) N, or \(option) 0 for any free port.\n"
                        .utf8))
            throw ExitCode(1)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
        var lines = [
            "Serving \(library.hosts.count) sites from \(sitesFolder.path) on 127.0.0.1: https \(server.httpsPort), http \(server.httpPort.map(String.init) ?? "off")"
        ]
        lines += library.hosts.map { host in
            "  https://\(host)/" + (rehearsals[host].map { "  (association file: \($0.summary))" } ?? "")
        }
        lines.append("Hosts map: \(folder.hostsMap.path); certificate authority: \(folder.authorityCertificate.path)")
        lines.append("Ctrl-C stops.")
        StandardOutput.shared.write(lines.joined(separator: "\n"))
        let stop = OneShot<Void>()
        let sources = [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.set(()) }
            source.resume()
            return source
        }
        await stop.wait()
        withExtendedLifetime(sources) {}
        await server.stop()
    }
}

extension SiteLibrary {
    /// A page of these sites as the server sends it: the page format, with its status.
    @Sendable func servedPage(_ url: URL) -> SiteResponse {
        let page = page(for: url)
        return SiteResponse(
            status: page.status, contentType: "\(pageMediaType); charset=utf-8", body: Data(page.source.utf8))
    }
}
