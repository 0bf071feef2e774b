import Foundation
import HandoffCore
import NIOCore
import Synchronization

/// The ``DeviceTransport`` of a device on the real network. Called on the host's queue; every
/// answer comes back through ``DeviceHost/perform(_:)``, never synchronously.
final class NetworkTransport: DeviceTransport, @unchecked Sendable {
    unowned let host: DeviceHost
    /// Pooled sessions to peers, and payload fetches in flight (touched on the host's queue).
    private var sessions: [DeviceID: PeerSession] = [:]
    private var fetches: [ContinuationID: Task<Void, Never>] = [:]
    /// Payload requests sent the short way (``DirectRequests``), waiting for their answer.
    private var directFetches: [ContinuationID: (session: PeerSession, id: UInt64)] = [:]
    /// Requests this device is serving, waiting for the device's answer (any thread): who gets
    /// it, and the serving deadline's timer.
    private let serving = Mutex<[PayloadRequestID: (answer: @Sendable (ServeAnswer) -> Void, deadline: Scheduled<Void>)]>([:])
    private let nextServe = Mutex<UInt64>(1)

    init(host: DeviceHost) {
        self.host = host
    }

    // MARK: DeviceTransport (on the host's queue)

    func advertise(_ advertisement: Advertisement, from device: PeerInfo) {
        host.announce(.advertisement(advertisement))
    }

    func withdraw(from device: PeerInfo) {
        host.announce(.goodbye)
    }

    func requestPayload(_ continuation: ContinuationID, from peer: DeviceID, activityTypeHash: ActivityTypeHash) {
        let host = self.host
        guard let session = session(for: peer) else {
            host.perform { device in
                device.receivePayload(continuation, .failure(HandoffError(.connectionUnavailable,
                    "no known address for \(peer): the device is not nearby")))
            }
            return
        }
        // An open session to a peer the account still trusts: the request goes straight into
        // the channel, and the answer comes back from the event loop (see ``DirectRequests``).
        if session.direct.isOpen, (try? host.security.ensureNotRevoked(peer)) != nil,
           let id = session.direct.request(continuation: continuation, activityTypeHash: activityTypeHash, answer: { result in
               host.performInline { device in
                   guard let transport = host.transport,
                         transport.directFetches.removeValue(forKey: continuation) != nil else { return }
                   device.receivePayload(continuation, result.map { Data($0) })
               }
           }) {
            directFetches[continuation] = (session, id)
            return
        }
        let security = host.security, group = host.group, limits = host.clientLimits(idle: true)
        let hello = SessionFrame.hello(name: host.identity.name, kind: host.identity.kind)
        fetches[continuation] = Task {
            let result: Result<Data, HandoffError>
            do {
                try await session.connectIfNeeded(security: security, group: group, limits: limits, hello: hello)
                result = await session.requestPayload(continuation: continuation, activityTypeHash: activityTypeHash).map { Data($0) }
            } catch {
                result = .failure(HandoffError(.connectionUnavailable, "could not reach \(peer): \(NetworkErrorWords.describe(error))"))
            }
            guard !Task.isCancelled else { return }
            host.perform { device in device.receivePayload(continuation, result) }
        }
    }

    func cancelPayloadRequest(_ continuation: ContinuationID, from peer: DeviceID) {
        fetches.removeValue(forKey: continuation)?.cancel()
        if let direct = directFetches.removeValue(forKey: continuation) { direct.session.direct.abandon(direct.id) }
    }

    func sendPayload(_ request: PayloadRequestID, to peer: DeviceID, result: Result<Data, HandoffError>, after delay: TimeInterval) {
        // A slow link's delay (the lab's fault) is the connection's, not the app's: it runs after
        // the serving deadline is met, and the requester's fetch timeout still runs.
        answer(request, .answer(result, after: delay))
    }

    func hangUp(_ request: PayloadRequestID, to peer: DeviceID) {
        answer(request, .hangUp)
    }

    func leaveUnanswered(_ request: PayloadRequestID, to peer: DeviceID) {
        answer(request, .silence)
    }

    private func answer(_ request: PayloadRequestID, _ answer: ServeAnswer) {
        guard let waiting = serving.withLock({ $0.removeValue(forKey: request) }) else { return }
        waiting.deadline.cancel()
        waiting.answer(answer)
    }

    func notifyContinued(_ activityIdentifier: UUID, continuation: ContinuationID, to peer: DeviceID) {
        guard let session = session(for: peer) else { return }
        let security = host.security, group = host.group, limits = host.clientLimits(idle: true)
        let hello = SessionFrame.hello(name: host.identity.name, kind: host.identity.kind)
        Task {
            try? await session.connectIfNeeded(security: security, group: group, limits: limits, hello: hello)
            try? await session.send(.continued(activityIdentifier: activityIdentifier, continuation: continuation.rawValue))
        }
    }

    func openContinuationStreams(to peer: DeviceID, token: Data,
                                 completion: @escaping (Result<ContinuationStreams, any Error>) -> Void) {
        let host = self.host
        let callback = Confined(completion)
        guard let address = host.peers[peer]?.address else {
            host.perform { _ in callback.value(.failure(ContinuationStreamError.unavailable("\(peer) is not nearby"))) }
            return
        }
        let security = host.security, group = host.group, limits = host.clientLimits(idle: false)
        let hello = SessionFrame.hello(name: host.identity.name, kind: host.identity.kind)
        Task {
            let result = await StreamClient.open(to: address, peer: peer, token: Array(token), hello: hello,
                                                 security: security, group: group, limits: limits)
            host.perform { _ in callback.value(result) }
        }
    }

    // MARK: Helpers

    /// The pooled session to `peer` (created on first use), if its address is known.
    func session(for peer: DeviceID) -> PeerSession? {
        guard let address = host.peers[peer]?.address else { return nil }
        if let existing = sessions[peer], existing.address == address { return existing }
        let session = PeerSession(peer: peer, address: address)
        sessions[peer] = session
        return session
    }

    /// A peer left or fell silent: drop its pooled session.
    func forget(_ peer: DeviceID) {
        if let session = sessions.removeValue(forKey: peer) {
            Task { await session.close() }
        }
    }

    /// Serves a payload request that arrived on a session (any thread): asks the device and
    /// calls `answer` once with what it answers, from the thread it answers on (an event loop or
    /// the device's queue), or from `timers` when the origin app misses `timeout`.
    ///
    /// `inline` (the caller is an event loop, ``PayloadRequestTap``): when the device's queue is
    /// idle its work runs at once on the calling thread, and an answer it gives at once (the
    /// usual case) comes back before this returns. Otherwise the work is queued.
    func servePayload(from peer: PeerInfo, activityTypeHash: ActivityTypeHash, continuation: ContinuationID,
                      timeout: TimeInterval, timers: any EventLoop, inline: Bool,
                      answer: @escaping @Sendable (ServeAnswer) -> Void) {
        let request = PayloadRequestID(rawValue: nextServe.withLock { value in
            defer { value += 1 }
            return value
        })
        // The origin app gets a bounded time to save, as Apple's daemon gives its clients.
        let deadline = timers.scheduleTask(in: .interval(timeout)) { [weak self] () -> Void in
            self?.answer(request, .answer(.failure(HandoffError(.remoteApplicationTimedOut, "the origin app did not save in time")), after: 0))
        }
        serving.withLock { $0[request] = (answer, deadline) }
        let work: @Sendable (Device) -> Void = { device in
            device.receivePayloadRequest(request, from: peer, activityTypeHash: activityTypeHash, continuation: continuation)
        }
        if inline { host.performInline(work) } else { host.perform(work) }
    }

    /// The long way's form of ``servePayload(from:activityTypeHash:continuation:timeout:timers:inline:answer:)``
    /// (the connection's task, before the peer is greeted): the device's work is queued.
    func servePayload(from peer: PeerInfo, activityTypeHash: ActivityTypeHash, continuation: ContinuationID,
                      timeout: TimeInterval, timers: any EventLoop) async -> ServeAnswer {
        await withCheckedContinuation { (waiter: CheckedContinuation<ServeAnswer, Never>) in
            servePayload(from: peer, activityTypeHash: activityTypeHash, continuation: continuation, timeout: timeout,
                         timers: timers, inline: false) { waiter.resume(returning: $0) }
        }
    }
}

/// What the device answers a payload request it serves.
enum ServeAnswer: Sendable {
    /// The payload, or the error to send back, `after` seconds (a slow link's delay; usually 0).
    case answer(Result<Data, HandoffError>, after: TimeInterval)
    /// No answer: the connection closes (the lab's origin-leaves fault).
    case hangUp
    /// No answer at all, and the connection stays open (the lab's no-answer fault): the serving
    /// deadline is cancelled too, so only the requester's fetch timeout ends the wait.
    case silence
}
