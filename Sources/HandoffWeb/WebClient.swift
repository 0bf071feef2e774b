import Foundation
import HandoffCore
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import X509

/// An HTTP response as the local web's client read it.
package struct WebResponse: Sendable, Hashable {
    package var status: Int
    /// Header names in lower case (the last value of a repeated header).
    package var headers: [String: String]
    package var body: Data
    /// From the request to the last byte.
    package var milliseconds: Double

    package init(status: Int, headers: [String: String], body: Data, milliseconds: Double) {
        self.status = status
        self.headers = headers
        self.body = body
        self.milliseconds = milliseconds
    }

    package var contentType: String { headers["content-type"] ?? "" }
    /// The media type alone, lower case (`application/json` of `application/json; charset=utf-8`).
    package var mediaType: String {
        contentType.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        } ?? ""
    }
}

/// Why a request got no response.
package enum WebFetchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The hosts map has no address for the host (or could not be read).
    case noAddress(host: String, reason: String)
    /// No connection: refused, reset, TLS failed.
    case unreachable(host: String, reason: String)
    /// No whole response before the deadline.
    case timedOut(host: String, seconds: Double)
    /// The body went over the cap.
    case tooLarge(host: String, limit: Int)
    /// Not an http or https address.
    case unsupported(String)

    package var description: String {
        switch self {
        case .noAddress(let host, let reason): "no address for \(host): \(reason)"
        case .unreachable(let host, let reason): "\(host) is unreachable: \(reason)"
        case .timedOut(let host, let seconds): "\(host) did not answer in \(seconds.formatted()) s"
        case .tooLarge(let host, let limit): "\(host) sent more than \(limit) bytes"
        case .unsupported(let address): "\(address) is not an http or https address"
        }
    }
}

/// One HTTP/1.1 `GET` through the device's ``HostsMap``, over TLS that trusts only the local
/// authority (host names checked), with a deadline for the whole exchange and a cap on the body.
/// It never follows redirects: the caller sees the 3xx and decides (Apple follows none for
/// association files; the Browser follows a few). SwiftNIO and NIOSSL do the work.
package struct WebClient: Sendable {
    /// Where the hosts are.
    package var hostsMap: HostsMap
    /// The trusted authority (nil: HTTPS fails).
    package var authority: NIOSSLCertificate?
    /// Where `hostsMap` came from, for messages.
    package var hostsFile: String

    package init(hostsMap: HostsMap, authority: NIOSSLCertificate?, hostsFile: String = "the hosts map") {
        self.hostsMap = hostsMap
        self.authority = authority
        self.hostsFile = hostsFile
    }

    /// The client for the local web kept in `folder`.
    ///
    /// - Throws: ``WebError`` naming the file that is missing or unusable.
    package init(folder: WebFolder) throws(WebError) {
        let map = try HostsMap.read(from: folder.hostsMap)
        let root = try LocalCertificateAuthority.trustRoot(LocalCertificateAuthority.trustedCertificate(in: folder))
        self.init(hostsMap: map, authority: root, hostsFile: folder.hostsMap.path)
    }

    /// `GET url`, answered within `timeout` seconds with at most `maximumBytes` of body.
    package func get(_ url: URL, timeout: Double, maximumBytes: Int) async throws(WebFetchError) -> WebResponse {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "https" || scheme == "http", let host = url.host?.lowercased(), !host.isEmpty else {
            throw .unsupported(url.absoluteString)
        }
        guard let entry = hostsMap.entry(for: host) else {
            throw .noAddress(host: host, reason: "not in \(hostsFile)")
        }
        guard let port = entry.port(forScheme: scheme) else {
            throw .noAddress(host: host, reason: "\(hostsFile) has no \(scheme) port for it")
        }
        guard HostsMap.isLoopback(entry.address) else {
            throw .noAddress(host: host, reason: "\(entry.address) is not on loopback")
        }
        var tls: NIOSSLContext?
        if scheme == "https" {
            guard let authority else { throw .unreachable(host: host, reason: "no trusted certificate authority") }
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .certificates([authority])
            configuration.additionalTrustRoots = []
            configuration.certificateVerification = .fullVerification
            do {
                tls = try NIOSSLContext(configuration: configuration)
            } catch {
                throw .unreachable(host: host, reason: "TLS: \(error)")
            }
        }
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        let defaultPort = scheme == "https" ? 443 : 80
        let hostHeader = url.port.map { "\(host):\($0)" } ?? (port == defaultPort ? host : "\(host):\(port)")
        let started = ContinuousClock.now
        let deadline = NIODeadline.now() + .nanoseconds(Int64(timeout * 1_000_000_000))
        let group = MultiThreadedEventLoopGroup.singleton
        let promise = group.next().makePromise(of: WebResponse.self)
        let tlsContext = tls
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.nanoseconds(Int64(timeout * 1_000_000_000)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tlsContext {
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: tlsContext, serverHostname: host))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        ResponseCollector(promise: promise, limit: maximumBytes, host: host, started: started))
                }
            }
        let channel: any Channel
        do {
            // The address is a loopback literal (checked above): connect to it directly, with no
            // name resolution (which NIO runs on a dispatch queue) between the fetch and the socket.
            let address = try SocketAddress(ipAddress: entry.address, port: port)
            channel = try await bootstrap.connect(to: address).get()
        } catch {
            promise.fail(error)
            throw Self.connectFailure(error, host: host, address: "\(entry.address):\(port)", timeout: timeout)
        }
        let timer = channel.eventLoop.scheduleTask(deadline: deadline) {
            promise.fail(WebFetchError.timedOut(host: host, seconds: timeout))
            channel.close(promise: nil)
        }
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target)
        head.headers.add(name: "Host", value: hostHeader)
        head.headers.add(name: "User-Agent", value: "handoff-simulator")
        head.headers.add(name: "Accept", value: "*/*")
        head.headers.add(name: "Connection", value: "close")
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        do {
            let response = try await promise.futureResult.get()
            timer.cancel()
            channel.close(promise: nil)
            return response
        } catch let error as WebFetchError {
            timer.cancel()
            channel.close(promise: nil)
            throw error
        } catch {
            timer.cancel()
            channel.close(promise: nil)
            throw .unreachable(host: host, reason: Self.describe(error, address: "\(entry.address):\(port)"))
        }
    }

    /// What a failed connect means: timed out only when the connect's own timeout fired. A refusal
    /// is unreachable however late it is seen (on a busy machine the task that sees it may resume
    /// after the timeout has passed; judging by the clock made a stopped server look hung).
    static func connectFailure(_ error: any Error, host: String, address: String, timeout: Double) -> WebFetchError {
        if case ChannelError.connectTimeout = error { return .timedOut(host: host, seconds: timeout) }
        return .unreachable(host: host, reason: describe(error, address: address))
    }

    /// A failure as a sentence for people: "connection refused by 127.0.0.1:8443", never NIO's
    /// "connection reset (error set): Connection refused (errno: 111)" (the log keeps that).
    static func describe(_ error: any Error, address: String? = nil) -> String {
        if let ssl = error as? NIOSSLError { return "TLS: \(ssl)" }
        if let ssl = error as? BoringSSLError { return "TLS: \(ssl)" }
        if let io = error as? IOError { return ConnectionFailure.sentence(errno: io.errnoCode, address: address) }
        if let connection = error as? NIOConnectionError, let first = connection.connectionErrors.first {
            return describe(first.error, address: address)
        }
        if error is ChannelError { return "the connection was closed" + (address.map { " by \($0)" } ?? "") }
        return "\(error)" + (address.map { " (\($0))" } ?? "")
    }
}

/// Collects one response: head, body up to a cap, end.
private final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    let promise: EventLoopPromise<WebResponse>
    let limit: Int
    let host: String
    let started: ContinuousClock.Instant
    var head: HTTPResponseHead?
    var body = Data()

    init(promise: EventLoopPromise<WebResponse>, limit: Int, host: String, started: ContinuousClock.Instant) {
        self.promise = promise
        self.limit = limit
        self.host = host
        self.started = started
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(let buffer):
            guard body.count + buffer.readableBytes <= limit else {
                promise.fail(WebFetchError.tooLarge(host: host, limit: limit))
                context.close(promise: nil)
                return
            }
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head else {
                promise.fail(WebFetchError.unreachable(host: host, reason: "the server sent no response head"))
                return
            }
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            let elapsed = ContinuousClock.now - started
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            promise.succeed(
                WebResponse(status: Int(head.status.code), headers: headers, body: body, milliseconds: milliseconds))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(WebFetchError.unreachable(host: host, reason: WebClient.describe(error)))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(WebFetchError.unreachable(host: host, reason: "the server closed the connection before answering"))
        context.fireChannelInactive()
    }
}
