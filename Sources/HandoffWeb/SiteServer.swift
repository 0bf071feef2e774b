import Foundation
import HandoffCore
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// What a site answers for a page (made by the sites' owner: the Browser's `SiteLibrary`).
package struct SiteResponse: Sendable, Hashable {
    package var status: Int
    package var contentType: String
    package var body: Data

    package init(status: Int, contentType: String, body: Data) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}

/// A way a site serves its association file wrong on purpose, to rehearse what a device does
/// then (`handoff web serve --rehearse HOST=MODE`).
package enum Rehearsal: String, Sendable, Hashable, CaseIterable {
    /// The file as it is in the site's folder (404 when there is none).
    case normal
    /// 404, as if the site had no file.
    case missing
    /// A body that is not JSON.
    case notJSON = "not-json"
    /// JSON that is not an association file (`activitycontinuation` is a string).
    case wrong
    /// A valid file that approves no app.
    case unapproving
    /// The file with `Content-Type: text/html`.
    case wrongContentType = "wrong-content-type"
    /// 301 to the same file on another host.
    case redirect
    /// 302 to itself, for ever.
    case redirectLoop = "redirect-loop"
    /// A file of 200 KB, over Apple's 128 KB.
    case tooLarge = "too-large"
    /// Never answers any request to the host (the connection stays open).
    case hang
    /// The site's file signed (PKCS #7, DER) with the server's identity, as
    /// `application/pkcs7-mime`: what iOS 8 required.
    case signed
    /// 404 at `/.well-known/`, the file at the site's root (where iOS 8 looked).
    case rootOnly = "root-only"

    package var summary: String {
        switch self {
        case .normal: "the site's file"
        case .missing: "404"
        case .notJSON: "a body that is not JSON"
        case .wrong: "JSON that is not an association file"
        case .unapproving: "a file that approves no app"
        case .wrongContentType: "the file as text/html"
        case .redirect: "a 301 redirect to another host"
        case .redirectLoop: "a 302 redirect to itself"
        case .tooLarge: "a 200 KB file"
        case .hang: "no answer at all"
        case .signed: "the file signed (PKCS #7), as iOS 8 required"
        case .rootOnly: "the file at the site's root only, not at /.well-known/"
        }
    }
}

/// The demo sites (`demos/sites/HOST/`) over HTTPS and HTTP on loopback, with Hummingbird.
///
/// Requests are routed by their `Host`: `/.well-known/apple-app-site-association` (and
/// `/apple-app-site-association`) serve the site's association file as `application/json` with
/// `Cache-Control: max-age`, or as a ``Rehearsal`` says; every other path is a page, made by
/// `pages`. Start one with ``start(_:)``; it writes the ``HostsMap`` (and keeps the
/// ``LocalCertificateAuthority``) in the ``WebFolder`` so devices reach it.
package final class SiteServer: Sendable {
    /// The ports `handoff web serve` listens on unless told otherwise: below Linux's ephemeral
    /// range (32768–60999), from which every socket bound to port 0 takes its port.
    package static let defaultHTTPSPort = 17_843
    package static let defaultHTTPPort = 17_844

    /// 256 connections per listener, fewer when this process may open fewer descriptors (two
    /// listeners and a margin for everything else must fit under the soft limit).
    package static var defaultMaximumConnections: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(Int32.max) else {
            return 256
        }
        return max(8, min(256, (Int(clamping: limit.rlim_cur) - 64) / 2))
    }

    package struct Configuration: Sendable {
        /// The folder of sites, one folder per host.
        package var sites: URL
        /// The hosts served (lower case).
        package var hosts: [String]
        /// The pages of a site: the answer to a `GET` of `url` (never the association file).
        package var pages: @Sendable (URL) -> SiteResponse
        /// Where the authority and the hosts map are kept.
        package var folder: WebFolder
        /// The HTTPS port (0: any free port).
        package var httpsPort: Int
        /// The HTTP port (0: any free port; nil: no plain HTTP).
        package var httpPort: Int?
        /// Hosts whose association file is served wrong on purpose.
        package var rehearsals: [String: Rehearsal]
        /// `Cache-Control: max-age` of association files (seconds).
        package var maxAge: Int
        /// Whether to write the hosts map into `folder`.
        package var writesHostsMap: Bool
        /// A connection that sends nothing for this long is closed: before its first request
        /// (a TLS handshake or headers that never finish included), and between requests. A
        /// request being answered (a `hang` rehearsal) is not cut.
        package var idleTimeout: Duration
        /// Connections open at once, per listener; past it the server stops accepting until one
        /// closes (waiting connections stay in the kernel's queue), so a flood of silent
        /// connections neither takes every descriptor nor makes it spin.
        package var maximumConnections: Int

        package init(
            sites: URL, hosts: [String], pages: @escaping @Sendable (URL) -> SiteResponse, folder: WebFolder,
            httpsPort: Int = 0, httpPort: Int? = 0, rehearsals: [String: Rehearsal] = [:], maxAge: Int = 300,
            writesHostsMap: Bool = true, idleTimeout: Duration = .seconds(10),
            maximumConnections: Int = SiteServer.defaultMaximumConnections
        ) {
            self.idleTimeout = idleTimeout
            self.maximumConnections = max(1, maximumConnections)
            self.sites = sites
            self.hosts = hosts.map { $0.lowercased() }
            self.pages = pages
            self.folder = folder
            self.httpsPort = httpsPort
            self.httpPort = httpPort
            self.rehearsals = Dictionary(
                rehearsals.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
            self.maxAge = maxAge
            self.writesHostsMap = writesHostsMap
        }
    }

    package let configuration: Configuration
    /// The bound ports.
    package let httpsPort: Int
    package let httpPort: Int?
    /// The hosts map devices use to reach this server.
    package let hostsMap: HostsMap
    private let tasks: [Task<Void, any Error>]
    /// Requests answered, by host and status (for the server's log).
    private let log: @Sendable (String) -> Void

    private init(
        configuration: Configuration, httpsPort: Int, httpPort: Int?, tasks: [Task<Void, any Error>],
        log: @escaping @Sendable (String) -> Void
    ) {
        self.configuration = configuration
        self.httpsPort = httpsPort
        self.httpPort = httpPort
        self.tasks = tasks
        self.log = log
        hostsMap = HostsMap(
            hosts: Dictionary(
                uniqueKeysWithValues: configuration.hosts.map {
                    ($0, HostsMap.Entry(address: "127.0.0.1", https: httpsPort, http: httpPort))
                }))
    }

    /// Starts serving; returns once both ports listen (and the hosts map is written).
    ///
    /// - Throws: ``WebError`` naming the port that could not be bound or the file that could not
    ///   be written.
    package static func start(
        _ configuration: Configuration, log: @escaping @Sendable (String) -> Void = { _ in }
    )
        async throws(WebError) -> SiteServer
    {
        let authority = try LocalCertificateAuthority.loadOrCreate(in: configuration.folder)
        let identity = try authority.issueServerIdentity(hosts: configuration.hosts)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: identity.chain.map { .certificate($0) },
            privateKey: .privateKey(identity.key))
        tls.minimumTLSVersion = .tlsv12
        let responder = Responder(configuration: configuration, log: log, signer: identity.signer)
        let server: HTTPServerBuilder
        let http1 = HTTP1Channel.Configuration(idleTimeout: TimeAmount(configuration.idleTimeout))
        do {
            server = try .tls(.http1(configuration: http1), tlsConfiguration: tls)
        } catch {
            throw WebError.server("TLS: \(error)")
        }
        let secure = try await run(
            responder, server: server, port: configuration.httpsPort, scheme: "HTTPS",
            maximumConnections: configuration.maximumConnections)
        var tasks = [secure.task]
        let httpsPort = secure.port
        var httpPort: Int?
        if let port = configuration.httpPort {
            do {
                let plain = try await run(
                    responder, server: .http1(configuration: http1), port: port, scheme: "HTTP",
                    maximumConnections: configuration.maximumConnections)
                tasks.append(plain.task)
                httpPort = plain.port
            } catch {
                secure.task.cancel()
                _ = await secure.task.result
                throw error
            }
        }
        let running = SiteServer(
            configuration: configuration, httpsPort: httpsPort, httpPort: httpPort, tasks: tasks, log: log)
        if configuration.writesHostsMap {
            do {
                try running.hostsMap.write(to: configuration.folder.hostsMap)
            } catch {
                await running.stop()
                throw error
            }
        }
        return running
    }

    /// Stops both listeners (requests in progress, a hanging one included, end).
    package func stop() async {
        for task in tasks { task.cancel() }
        for task in tasks { _ = await task.result }
    }

    /// Waits until the server stops (a listener failed, or ``stop()``).
    package func wait() async {
        for task in tasks { _ = await task.result }
    }

    private static func run(
        _ responder: Responder, server: HTTPServerBuilder, port: Int, scheme: String, maximumConnections: Int
    )
        async throws(WebError) -> (task: Task<Void, any Error>, port: Int)
    {
        let bound = BoundPort()
        var logger = Logger(label: "handoff.web")
        logger.logLevel = .critical
        let app = Application(
            responder: CallbackResponder<BasicRequestContext> { request, _ in try await responder.respond(to: request)
            },
            server: server,
            configuration: ApplicationConfiguration(
                address: .hostname("127.0.0.1", port: port), serverName: "handoff-web",
                availableConnectionsDelegate: MaximumAvailableConnections(maximumConnections, logger: logger)),
            onServerRunning: { channel in bound.resolve(.success(channel.localAddress?.port ?? port)) },
            logger: logger)
        let task = Task {
            do {
                try await app.run()
                bound.resolve(.failure(WebError.server("\(scheme) on 127.0.0.1:\(port) stopped before it listened")))
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                bound.resolve(.failure(WebError.portInUse(scheme: scheme, port: port)))
                throw error
            } catch {
                bound.resolve(.failure(WebError.server("\(scheme) cannot listen on 127.0.0.1:\(port): \(error)")))
                throw error
            }
        }
        let port: Int
        do {
            port = try await bound.value()
        } catch {
            task.cancel()
            throw error
        }
        return (task, port)
    }
}

/// The port a listener bound, set once.
private final class BoundPort: Sendable {
    private let state = Mutex<(result: Result<Int, WebError>?, waiter: CheckedContinuation<Int, any Error>?)>(
        (nil, nil))

    func resolve(_ result: Result<Int, WebError>) {
        let waiter: CheckedContinuation<Int, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result.mapError { $0 as any Error })
    }

    func value() async throws(WebError) -> Int {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Int, WebError>? = state.withLock { state in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
            }
        } catch let error as WebError {
            throw error
        } catch {
            throw .server("\(error)")
        }
    }
}

/// Answers requests by host and path.
struct Responder: Sendable {
    let configuration: SiteServer.Configuration
    let log: @Sendable (String) -> Void
    /// Signs the file for the `signed` rehearsal (the server's identity).
    var signer: AssociationSigner? = nil

    func respond(to request: Request) async throws -> Response {
        let authority = request.head.authority ?? ""
        let host = Self.hostName(of: authority)
        let path = request.uri.path
        let served =
            configuration.hosts.contains(host)
            ? host
            : configuration.hosts.filter { host.hasSuffix("." + $0) }.max { $0.count < $1.count }
        // A host this server does not serve is answered before anything is built from it: the
        // Host header is whatever the client sent ("a b", "{", "%zz", control characters).
        guard let served else {
            log("\(request.method) \(Self.printable(host))\(Self.printable(path)) → 421 (not a site of this server)")
            return Self.response(
                status: 421, contentType: "text/plain; charset=utf-8",
                body: Data("This server serves \(configuration.hosts.joined(separator: ", ")) only.\n".utf8))
        }
        let rehearsal = configuration.rehearsals[served] ?? .normal
        if rehearsal == .hang {
            log("\(host)\(path): not answering (rehearsal hang)")
            try await Task.sleep(for: .seconds(86_400))
        }
        let response: Response
        if path == "/.well-known/\(SiteAssociationFile.fileName)" || path == "/\(SiteAssociationFile.fileName)" {
            response = association(host: host, served: served, path: path, rehearsal: rehearsal)
        } else {
            // The page's address from the served host (a folder of the sites, never the raw
            // header) and the target; a target no URL can hold is a bad request.
            let scheme = request.head.scheme == "http" ? "http" : "https"
            let target = request.uri.string.hasPrefix("/") ? request.uri.string : "/" + request.uri.string
            if let url = URL(string: "\(scheme)://\(served)\(target)") {
                let page = configuration.pages(url)
                response = Self.response(status: page.status, contentType: page.contentType, body: page.body)
            } else {
                response = Self.response(
                    status: 400, contentType: "text/plain; charset=utf-8",
                    body: Data("The request's target is not a valid address.\n".utf8))
            }
        }
        log("\(request.method) \(Self.printable(host))\(Self.printable(path)) → \(response.status.code)")
        return response
    }

    /// `text` safe to print on a terminal or in a log (``TerminalText``), cut at 200 bytes.
    static func printable(_ text: String) -> String {
        TerminalText.sanitized(text).utf8Prefix(200)
    }

    private func association(host: String, served: String?, path: String, rehearsal: Rehearsal) -> Response {
        let json = "application/json"
        func file() -> Data? {
            guard let served else { return nil }
            let site = configuration.sites.appendingPathComponent(served, isDirectory: true)
            return Self.contents(
                of: site.appendingPathComponent(SiteAssociationFile.fileName), inside: site, limit: 1024 * 1024)
        }
        let notFound = Self.response(
            status: 404, contentType: "text/plain; charset=utf-8",
            body: Data("\(host) has no \(SiteAssociationFile.fileName)\n".utf8))
        switch rehearsal {
        case .normal, .hang:
            guard let data = file() else { return notFound }
            return Self.response(status: 200, contentType: json, body: data, maxAge: configuration.maxAge)
        case .missing:
            return notFound
        case .rootOnly:
            guard path == "/\(SiteAssociationFile.fileName)", let data = file() else { return notFound }
            return Self.response(status: 200, contentType: json, body: data, maxAge: configuration.maxAge)
        case .signed:
            guard let data = file() else { return notFound }
            guard let signer, let signed = try? signer.sign(data) else {
                return Self.response(
                    status: 500, contentType: "text/plain; charset=utf-8",
                    body: Data("the server cannot sign the file\n".utf8))
            }
            return Self.response(
                status: 200, contentType: "application/pkcs7-mime", body: signed, maxAge: configuration.maxAge)
        case .notJSON:
            return Self.response(
                status: 200, contentType: json, body: Data("<html><body>Welcome to \(host)</body></html>\n".utf8))
        case .wrong:
            return Self.response(
                status: 200, contentType: json,
                body: Data(#"{"activitycontinuation": "SIMTEAM001.com.handoffsim.map"}"#.utf8))
        case .unapproving:
            return Self.response(
                status: 200, contentType: json, body: Data(#"{"activitycontinuation": {"apps": []}}"#.utf8),
                maxAge: configuration.maxAge)
        case .wrongContentType:
            return Self.response(status: 200, contentType: "text/html; charset=utf-8", body: file() ?? Data("{}".utf8))
        case .redirect:
            let other = configuration.hosts.first { $0 != served } ?? "www.\(host)"
            return Self.redirect(301, to: "https://\(other)/.well-known/\(SiteAssociationFile.fileName)")
        case .redirectLoop:
            return Self.redirect(302, to: "https://\(host)\(path)")
        case .tooLarge:
            let padding = String(repeating: " ", count: 200 * 1024)
            return Self.response(
                status: 200, contentType: json, body: Data(#"{"activitycontinuation": {"apps": []}\#(padding)}"#.utf8))
        }
    }

    /// The first `limit` bytes of `file` when, with symbolic links resolved, it is a regular
    /// file inside `folder` (the sites README promises that no file outside a site's folder is
    /// served, even through a link; a FIFO would block the read), else nil.
    static func contents(of file: URL, inside folder: URL, limit: Int) -> Data? {
        let resolvedFolder = folder.resolvingSymlinksInPath().standardizedFileURL.path
        let resolved = file.resolvingSymlinksInPath().standardizedFileURL.path
        guard resolved.hasPrefix(resolvedFolder.hasSuffix("/") ? resolvedFolder : resolvedFolder + "/"),
            (try? FileManager.default.attributesOfItem(atPath: resolved)[.type] as? FileAttributeType) == .typeRegular,
            let handle = FileHandle(forReadingAtPath: resolved)
        else { return nil }
        defer { try? handle.close() }
        return try? handle.read(upToCount: limit)
    }

    static func redirect(_ status: Int, to location: String) -> Response {
        var response = response(
            status: status, contentType: "text/plain; charset=utf-8", body: Data("Moved to \(location)\n".utf8))
        response.headers[.location] = location
        return response
    }

    static func response(status: Int, contentType: String, body: Data, maxAge: Int? = nil) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        if let maxAge { headers[.cacheControl] = "max-age=\(maxAge)" } else { headers[.cacheControl] = "no-store" }
        return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// `maps.example:8443` → `maps.example`; `[::1]:8443` → `::1`.
    static func hostName(of authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end]).lowercased()
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "").lowercased()
    }
}
