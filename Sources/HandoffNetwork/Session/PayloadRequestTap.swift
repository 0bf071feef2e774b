import Foundation
import HandoffCore
import NIOCore
import Synchronization

/// The short way of serving a payload request on the origin (docs/bench.md, "Continue: hops").
///
/// A ``PayloadRequestTap`` in an accepted session's pipeline takes payload requests off it on the
/// event loop, before the async channel: the revocation check runs there, the device's work runs
/// on the same thread when its queue is idle (``DeviceHost/performInline(_:)``), and the answer is
/// written into the channel from the event loop. The long way (the connection's task on the
/// shared pool, the device's queue, the task resumed, the async writer's hop back to the event
/// loop) took five hand-overs; this one takes none when the queue is idle, one when it is busy or
/// the device answers later (a held step, a slow app).
///
/// Everything the device may answer goes the same way as on the long way: the payload or an
/// error, after a slow link's delay (a timer on the event loop), a hang-up (the connection
/// closes), no answer (the serving deadline answers that the origin app did not save in time).
///
/// A continued notice (the continuing device restored the activity) is taken the same way: the
/// revocation check, then the device's work on this thread when its queue is idle.
///
/// Requests are taken only once the connection's task has authenticated the peer and greeted it
/// (``PayloadServingGate/open(for:)``), and no longer once the connection turns into a stream
/// connection; until then they go on to the long way, unchanged.
final class PayloadRequestTap: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = SessionFrame
    typealias InboundOut = SessionFrame

    private weak var host: DeviceHost?
    private let gate: PayloadServingGate
    /// What the peer said of itself in its hello (the long way keeps its own copy).
    private var greeting: (name: String, kind: PeerInfo.Kind)?
    /// Set when a stream is opened on this connection: it carries nothing else after that.
    private var streaming = false

    init(host: DeviceHost, gate: PayloadServingGate) {
        self.host = host
        self.gate = gate
    }

    /// Adds a tap just before the async channel's handler of an accepted session (after the idle
    /// closer, so requests still count as activity). Call in the channel's initializer, after
    /// ``SessionPipeline/configure(_:tls:server:limits:answers:)``.
    static func install(in channel: any Channel, host: DeviceHost, gate: PayloadServingGate) throws {
        let operations = channel.pipeline.syncOperations
        let anchor: any ChannelHandler
        if let idle = try? operations.handler(type: IdleCloser.self) {
            anchor = idle
        } else {
            anchor = try operations.handler(type: SessionFrameWriter.self)
        }
        try operations.addHandler(PayloadRequestTap(host: host, gate: gate), position: .after(anchor))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .hello(let name, let kind):
            greeting = (name, kind)
        case .streamOpen:
            streaming = true
        case .payloadRequest(let id, let continuation, let hash):
            StageMarks.mark(.requestRead)
            if !streaming, let peerID = gate.peer, let host, let transport = host.transport {
                return serve(
                    id: id, continuation: ContinuationID(rawValue: continuation), hash: hash, peer: peer(peerID),
                    host: host, transport: transport, channel: context.channel)
            }
        case .continued(let activityIdentifier, let continuation):
            // The origin hears that its activity was continued the same way: on the loop, after
            // the same revocation check (a revoked peer's notice goes on to the long way, which
            // refuses it as before).
            if !streaming, let peerID = gate.peer, let host, host.security.isTrusted(peerID) {
                let from = peer(peerID)
                let continuation = ContinuationID(rawValue: continuation)
                host.performInline { device in
                    device.receiveContinued(activityIdentifier, by: from, continuation: continuation)
                }
                return
            }
        default:
            break
        }
        context.fireChannelRead(data)
    }

    /// The greeted peer, as its hello named it.
    private func peer(_ id: DeviceID) -> PeerInfo {
        PeerInfo(id: id, name: greeting?.name ?? id.rawValue, kind: greeting?.kind ?? .phone)
    }

    private func serve(
        id: UInt64, continuation: ContinuationID, hash: ActivityTypeHash, peer: PeerInfo,
        host: DeviceHost, transport: NetworkTransport, channel: any Channel
    ) {
        // A pooled session outlives continuations: a peer revoked since it opened is refused at
        // its next request, as on the long way (answered; the peer closes the session).
        do {
            try host.security.ensureNotRevoked(peer.id)
        } catch {
            channel.writeAndFlush(SessionFrame.untrustedRequest(id: id, error), promise: nil)
            return
        }
        // The device usually answers while its work runs inline, with its queue held: that
        // answer is returned, and written here once the work returned (the queue released),
        // instead of in a task the loop runs only after the rest of this read.
        let given = transport.servePayload(
            from: peer, activityTypeHash: hash, continuation: continuation, timeout: 2,
            timers: channel.eventLoop, inline: true
        ) { answer in
            Self.deliver(answer, id: id, on: channel)
        }
        if let given { Self.deliver(given, id: id, on: channel, now: true) }
    }

    /// Writes the device's answer into the channel from its event loop (after the slow link's
    /// delay), or closes the connection for a hang-up. Called from any thread; unless `now` (on
    /// the loop, the device's queue not held), deferred to the loop's next turn even on the loop
    /// itself, so the device's queue is never held while the pipeline runs.
    static func deliver(_ answer: ServeAnswer, id: UInt64, on channel: any Channel, now: Bool = false) {
        let loop = channel.eventLoop
        switch answer {
        case .hangUp:
            if now { channel.close(promise: nil) } else { loop.execute { channel.close(promise: nil) } }
        case .silence:
            break
        case .answer(let result, let delay):
            let frame = SessionFrame.payloadAnswer(id: id, result)
            if delay > 0 {
                loop.scheduleTask(in: .interval(delay)) { channel.writeAndFlush(frame, promise: nil) }
            } else if now {
                channel.writeAndFlush(frame, promise: nil)
                StageMarks.mark(.answerSent)
                CoreHandOff.yieldToWokenReader()
            } else {
                loop.execute {
                    channel.writeAndFlush(frame, promise: nil)
                    StageMarks.mark(.answerSent)
                }
            }
        }
    }
}

@available(*, unavailable)
extension PayloadRequestTap: Sendable {}

extension SessionFrame {
    /// The origin's answer to payload request `id`, the short way or the long way: the payload
    /// or why not.
    static func payloadAnswer(id: UInt64, _ result: Result<Data, HandoffError>) -> SessionFrame {
        switch result {
        case .success(let data): .payloadResponse(id: id, payload: Array(data))
        case .failure(let error): .payloadError(id: id, code: error.code, reason: error.reason)
        }
    }

    /// The refusal of payload request `id` from a device the account no longer trusts.
    static func untrustedRequest(id: UInt64, _ error: any Error) -> SessionFrame {
        .payloadError(id: id, code: .connectionUnavailable, reason: "the origin no longer trusts this device: \(error)")
    }
}

/// Opened by an accepted connection's task once the peer is authenticated and greeted: from then
/// on its ``PayloadRequestTap`` serves payload requests, and hears continued notices, on the
/// event loop.
final class PayloadServingGate: Sendable {
    private let state = Mutex<DeviceID?>(nil)

    /// The authenticated peer, once the gate is open.
    var peer: DeviceID? { state.withLock { $0 } }

    func open(for peer: DeviceID) {
        state.withLock { $0 = peer }
    }
}
