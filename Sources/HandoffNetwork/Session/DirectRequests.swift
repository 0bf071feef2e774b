import Foundation
import HandoffCore
import NIOCore
import Synchronization

/// The short way of a payload request over a pooled session that is already open
/// (docs/bench.md, "Continue: hops").
///
/// The continuing device writes the request frame straight into the session's channel from its
/// queue, and the answer is taken off the pipeline by a ``PayloadAnswerTap`` on the event loop,
/// which hands it to the waiting callback there (the device then handles it on that thread when
/// its queue is idle). The long way, through the session actor, a task per request and the async
/// channel's reader, went through the shared thread pool four times per request.
///
/// The continued notice that follows a restore goes the same short way (``notify(_:)``), with no
/// answer to wait for.
///
/// Request identifiers come from here for both ways, so they never collide. When the session
/// closes, every waiting callback fails with 4609, as the long way's requests do.
final class DirectRequests: Sendable {
    typealias Callback = @Sendable (Result<[UInt8], HandoffError>) -> Void

    private struct State {
        /// Set once the peer greeted this device, cleared when the session closes.
        var channel: (any Channel)?
        var waiting: [UInt64: Callback] = [:]
        var next: UInt64 = 1
    }

    private let state = Mutex(State())

    /// A fresh request identifier.
    func nextIdentifier() -> UInt64 {
        state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
    }

    /// Whether a request can go the short way now.
    var isOpen: Bool { state.withLock { $0.channel != nil } }

    func attach(_ channel: any Channel) {
        state.withLock { $0.channel = channel }
    }

    /// The session closed: no more short requests, and the waiting ones fail.
    func detach() {
        let waiting = state.withLock { state in
            state.channel = nil
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for callback in waiting {
            callback(
                .failure(HandoffError(.connectionUnavailable, "the connection to the origin was lost during the fetch"))
            )
        }
    }

    /// Sends a payload request; `answer` is called once, on the session's event loop, with the
    /// payload or the error. Returns the request's identifier, or nil when the session is not
    /// open (then nothing was sent and `answer` is never called).
    func request(
        continuation: ContinuationID, activityTypeHash: ActivityTypeHash, answer: @escaping Callback
    ) -> UInt64? {
        let sending: (channel: any Channel, id: UInt64)? = state.withLock { state in
            guard let channel = state.channel else { return nil }
            let id = state.next
            state.next += 1
            state.waiting[id] = answer
            return (channel, id)
        }
        guard let (channel, id) = sending else { return nil }
        let frame = SessionFrame.payloadRequest(
            id: id, continuation: continuation.rawValue, activityTypeHash: activityTypeHash)
        channel.writeAndFlush(frame).whenFailure { [weak self] error in
            self?.claim(id)?(
                .failure(
                    HandoffError(
                        .connectionUnavailable, "could not send the request: \(NetworkErrorWords.describe(error))")))
        }
        StageMarks.mark(.requestSent)
        // The session's event loop (or, written inline on it, the origin's) takes it from here.
        CoreHandOff.yieldToWokenReader()
        return id
    }

    /// Writes a frame that wants no answer (the continued notice) into the open session; false
    /// when the session is not open, and then nothing was sent. True means written, not delivered:
    /// a session closing at that moment loses it, as the long way would.
    func notify(_ frame: SessionFrame) -> Bool {
        guard let channel = state.withLock({ $0.channel }) else { return false }
        channel.writeAndFlush(frame, promise: nil)
        return true
    }

    /// Forgets a request the device gave up on (its answer, if it comes, is dropped).
    func abandon(_ id: UInt64) {
        _ = claim(id)
    }

    /// Takes the callback waiting for `id`, if this way sent it.
    func claim(_ id: UInt64) -> Callback? {
        state.withLock { $0.waiting.removeValue(forKey: id) }
    }
}

/// Takes the answers to short-way requests off a client session's pipeline, on the event loop
/// (everything else goes on to the async channel).
final class PayloadAnswerTap: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = SessionFrame
    typealias InboundOut = SessionFrame

    private let requests: DirectRequests

    init(_ requests: DirectRequests) {
        self.requests = requests
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .payloadResponse(let id, let payload):
            StageMarks.mark(.answerRead)
            if let answer = requests.claim(id) { return answer(.success(payload)) }
        case .payloadError(let id, let code, let reason):
            if let answer = requests.claim(id) { return answer(.failure(HandoffError(code, reason))) }
        default:
            break
        }
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension PayloadAnswerTap: Sendable {}
