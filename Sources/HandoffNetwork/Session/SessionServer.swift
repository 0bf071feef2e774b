import Foundation
import HandoffCore
import NIOCore
import NIOPosix
import NIOSSL

/// Accepts sessions from peers of the account: payload requests, continued notifications and
/// continuation streams.
final class SessionServer: Sendable {
    let port: Int
    /// An accepted connection, its TLS handshake, and the gate of its ``PayloadRequestTap``.
    private typealias Accepted = (SessionChannel, EventLoopFuture<Void>, PayloadServingGate)
    private let channel: NIOAsyncChannel<Accepted, Never>
    private let task: Task<Void, Never>

    private init(port: Int, channel: NIOAsyncChannel<Accepted, Never>, task: Task<Void, Never>) {
        self.port = port
        self.channel = channel
        self.task = task
    }

    static func start(host: DeviceHost) async throws -> SessionServer {
        // Made here, before anything is bound, so that a device whose identity cannot make them
        // says so at its start (not at a peer's first connection).
        let context = try host.security.contexts().server
        let limits = SessionLimits(
            options: host.options, budget: host.readBudget, gate: host.handshakeGate,
            roster: host.sessionRoster, server: true)
        let port = host.options.sessionPort
        let server: NIOAsyncChannel<Accepted, Never>
        do {
            server = try await bind(host: host, port: port, context: context, limits: limits)
        } catch let error as IOError where error.errnoCode == EADDRINUSE && port != 0 {
            throw PortInUse(.session, port: port)
        }
        let task = Task<Void, Never> {
            _ = try? await server.executeThenClose { connections in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await (connection, handshake, gate) in connections {
                            group.addTask { await serve(connection, handshake: handshake, gate: gate, host: host) }
                        }
                    } catch {}
                }
            }
        }
        return SessionServer(port: server.channel.localAddress?.port ?? port, channel: server, task: task)
    }

    /// Binds the listening socket (`port` 0: any free port) and sets up each accepted connection.
    private static func bind(
        host: DeviceHost, port: Int, context: NIOSSLContext, limits: SessionLimits
    ) async throws -> NIOAsyncChannel<Accepted, Never> {
        try await ServerBootstrap(group: host.group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(AcceptPause()) }
            }
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.recvAllocator, value: SessionPipeline.receiveAllocator)
            .bind(host: host.options.sessionBindHost, port: port) { child -> EventLoopFuture<Accepted> in
                SessionPipeline.configure(child, tls: context, server: true, limits: limits)
                    .flatMapThrowing { connection, handshake in
                        // Payload requests are served on the event loop once the peer is greeted.
                        let gate = PayloadServingGate()
                        try PayloadRequestTap.install(in: child, host: host, gate: gate)
                        return (connection, handshake, gate)
                    }
            }
    }

    /// Stops accepting and ends every connection's task (their channels closed) before it
    /// returns, so nothing is left to schedule work on the event loops once they shut down.
    func close() async {
        try? await channel.channel.close()
        task.cancel()
        await task.value
    }

    /// One accepted connection: authenticate, then answer frames until it closes. Once the peer
    /// is greeted, its payload requests and continued notices are taken on the event loop by the
    /// connection's ``PayloadRequestTap`` (`gate` opens it) and never reach this task (a revoked
    /// peer's notice still does, and is refused here); those that arrive before are handled here.
    private static func serve(
        _ connection: SessionChannel, handshake: EventLoopFuture<Void>, gate: PayloadServingGate,
        host: DeviceHost
    ) async {
        let peerID: DeviceID
        do {
            // The pipeline closes the connection when the handshake misses its deadline, which
            // fails this wait at once.
            try await handshake.get()
            peerID = try host.security.verify(try await connection.channel.nioSSL_peerCertificate().get())
        } catch {
            await SessionPipeline.discard(connection)
            return
        }
        // Counted from now against the caps on established sessions (per peer and in all); the
        // pipeline's `RosterActivity` marks it active and releases it when it closes. Admitting
        // it may close this peer's (or anyone's) idlest session.
        host.sessionRoster.admit(connection.channel, group: peerID)
        guard connection.channel.isActive else {
            host.sessionRoster.release(connection.channel)
            await SessionPipeline.discard(connection)
            return
        }
        let identity = host.identity
        try? await connection.executeThenClose { inbound, outbound in
            var peer = PeerInfo(id: peerID, name: peerID.rawValue, kind: .phone)
            try await outbound.write(.hello(name: identity.name, kind: identity.kind))
            // The hello is on its way to the event loop (queued there first), so an answer the
            // tap writes from now on follows it.
            gate.open(for: peerID)
            var iterator = inbound.makeAsyncIterator()
            while let frame = try await iterator.next() {
                // A pooled session outlives continuations: a peer revoked since it opened is
                // refused at its next request, and at every one after it. A refused payload
                // request is answered and the session is left to the peer to close: closing it
                // here could drop the answer still on its way out.
                if frame.isRequest {
                    do {
                        try host.security.ensureNotRevoked(peerID)
                    } catch {
                        guard case .payloadRequest(let id, _, _) = frame else { return }
                        try await outbound.write(.untrustedRequest(id: id, error))
                        continue
                    }
                }
                switch frame {
                case .hello(let name, let kind):
                    peer = PeerInfo(id: peerID, name: name, kind: kind)
                case .payloadRequest(let id, let continuation, let hash):
                    let answer =
                        await host.transport?.servePayload(
                            from: peer, activityTypeHash: hash,
                            continuation: ContinuationID(rawValue: continuation), timeout: 2,
                            timers: connection.channel.eventLoop)
                        ?? .answer(.failure(HandoffError(.handoffFailed, "the device is shutting down")), after: 0)
                    switch answer {
                    case .answer(let result, let delay):
                        if delay > 0 { try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) }
                        try await outbound.write(.payloadAnswer(id: id, result))
                    case .hangUp: return
                    case .silence: continue
                    }
                case .continued(let activityIdentifier, let continuation):
                    let from = peer
                    host.perform { device in
                        device.receiveContinued(
                            activityIdentifier, by: from, continuation: ContinuationID(rawValue: continuation))
                    }
                case .lifecycle(let share):
                    // Shared only over a session the account authenticated (never another account's).
                    let from = peer
                    host.perform { _ in host.receiveShared(share, from: from) }
                case .streamOpen(let token):
                    let from = peerID
                    let accepted: Result<ContinuationStreams, ContinuationStreamError> = await withCheckedContinuation {
                        continuation in
                        host.perform { device in
                            continuation.resume(
                                returning: device.acceptContinuationStreams(token: Data(token), from: from))
                        }
                    }
                    switch accepted {
                    case .failure(let error):
                        try await outbound.write(.streamRefused(reason: "\(error)"))
                    case .success(let streams):
                        // `streams` is the continuing app's end as the origin sees it: what arrives on
                        // the socket is written into it, and what the origin writes is read from it.
                        guard let toApp = streams.output.queue else {
                            streams.input.cancel()
                            try await outbound.write(.streamRefused(reason: "the stream has no queue to carry"))
                            return
                        }
                        // A stream may pause for as long as its apps like: no idle timeout now.
                        try? await connection.channel.pipeline.removeHandler(name: IdleCloser.name).get()
                        // The handler writes the acceptance itself, ahead of any stream frame.
                        let ends = StreamChannelHandler.Ends(toApp: toApp, fromApp: streams.input.queue)
                        await StreamChannelHandler.carry(
                            StreamChannelHandler.accept(on: connection.channel, ends: ends), ends: ends,
                            closing: connection.channel)
                    }
                    return
                default:
                    try await outbound.write(.streamFailed(reason: "unexpected frame"))
                    return
                }
            }
        }
    }
}

/// The continuing side of continuation streams: a separate connection bound to one token.
enum StreamClient {
    static func open(
        to address: SocketAddress, peer: DeviceID, token: [UInt8], hello: SessionFrame, security: SessionSecurity,
        group: any EventLoopGroup, limits: SessionLimits
    ) async -> Result<ContinuationStreams, any Error> {
        let channel: SessionChannel
        do {
            channel = try await SessionPipeline.connect(
                to: address, expecting: peer, security: security, group: group, limits: limits)
        } catch {
            return .failure(
                ContinuationStreamError.unavailable(
                    "could not connect to \(peer): \(NetworkErrorWords.describe(error))"))
        }
        let (opened, openedSignal) = AsyncStream<Result<ContinuationStreams, any Error>>.makeStream()
        Task {
            do {
                try await channel.executeThenClose { inbound, outbound in
                    // Added before the request, so it sees the acceptance and every stream frame
                    // after it, in order, even those that arrive before the apps' ends exist.
                    try await StreamChannelHandler.awaitAcceptance(on: channel.channel).get()
                    try await outbound.write(hello)
                    try await outbound.write(.streamOpen(token: token))
                    var iterator = inbound.makeAsyncIterator()
                    while let frame = try await iterator.next() {
                        switch frame {
                        case .hello:
                            continue
                        case .streamRefused(let reason):
                            openedSignal.yield(.failure(ContinuationStreamError.refused(reason)))
                            return
                        case .streamAccepted:
                            let (appInput, toApp) = ContinuationStreams.makeInput()
                            let (fromApp, appOutput) = ContinuationStreams.makeInput()
                            openedSignal.yield(
                                .success(
                                    ContinuationStreams(
                                        input: appInput, output: ContinuationOutputStream(sink: appOutput))))
                            let ends = StreamChannelHandler.Ends(toApp: toApp.queue, fromApp: fromApp.queue)
                            await StreamChannelHandler.carry(
                                StreamChannelHandler.attach(ends, on: channel.channel), ends: ends,
                                closing: channel.channel)
                            return
                        default:
                            openedSignal.yield(
                                .failure(ContinuationStreamError.unavailable("unexpected answer to the stream request"))
                            )
                            return
                        }
                    }
                    openedSignal.yield(
                        .failure(ContinuationStreamError.unavailable("the origin closed the connection")))
                }
            } catch {
                openedSignal.yield(.failure(ContinuationStreamError.unavailable(NetworkErrorWords.describe(error))))
            }
            openedSignal.finish()
        }
        for await result in opened { return result }
        return .failure(ContinuationStreamError.unavailable("the stream connection closed"))
    }
}

extension SessionFrame {
    /// Whether the frame asks the receiving device to do something for its peer (serve a payload,
    /// record a continuation, open streams), as opposed to a greeting or an answer.
    var isRequest: Bool {
        switch self {
        case .payloadRequest, .continued, .streamOpen, .lifecycle: true
        default: false
        }
    }
}
