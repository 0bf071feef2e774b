import Foundation
import HandoffCore
import NIOCore
import Synchronization

/// The ``DeviceTransport`` of a device on the real network. Called on the device's queue; every
/// answer comes back through the queue (``DeviceWorkQueue``), never synchronously.
///
/// It is given what it needs and reaches nothing else: what the device says goes to the
/// ``BeaconAnnouncer`` (whose schedule decides when the channel sends it), payload requests,
/// notifications and streams go to the peers the ``PeerDirectory`` knows, over connections the
/// ``SessionDialer`` opens, and what comes back is posted to the queue.
final class NetworkTransport: DeviceTransport, @unchecked Sendable {
    /// The device's queue (the host, seen only as that).
    private unowned let queue: any DeviceWorkQueue
    /// The nearby peers' addresses and pooled sessions (confined to the queue).
    private let directory: PeerDirectory
    /// What the device says on the discovery channel (confined to the queue).
    private let announcer: BeaconAnnouncer
    private let dialer: SessionDialer
    /// Payload fetches in flight (touched on the device's queue).
    private var fetches: [ContinuationID: Task<Void, Never>] = [:]
    /// Payload requests sent the short way (``DirectRequests``), waiting for their answer.
    private var directFetches: [ContinuationID: (session: PeerSession, id: UInt64)] = [:]
    /// Requests this device is serving, waiting for the device's answer (any thread): who gets
    /// it, and the serving deadline's timer, armed only for a request not answered while served.
    private let serving = Mutex(ServedRequests<Scheduled<Void>>())
    private let nextServe = Mutex<UInt64>(1)

    init(queue: any DeviceWorkQueue, directory: PeerDirectory, announcer: BeaconAnnouncer, dialer: SessionDialer) {
        self.queue = queue
        self.directory = directory
        self.announcer = announcer
        self.dialer = dialer
    }

    // MARK: DeviceTransport (on the device's queue)

    func advertise(_ advertisement: Advertisement, from device: PeerInfo) {
        announcer.change(to: .advertisement(advertisement), at: Date())
    }

    func withdraw(from device: PeerInfo) {
        announcer.change(to: .goodbye, at: Date())
    }

    func requestPayload(_ continuation: ContinuationID, from peer: DeviceID, activityTypeHash: ActivityTypeHash) {
        let queue = self.queue
        let dialer = self.dialer
        guard let session = directory.session(for: peer) else {
            queue.perform { device in
                device.receivePayload(
                    continuation,
                    .failure(
                        HandoffError(
                            .connectionUnavailable,
                            "no known address for \(peer): the device is not nearby")))
            }
            return
        }
        // An open session to a peer the account still trusts: the request goes straight into
        // the channel, and the answer comes back from the event loop (see ``DirectRequests``).
        if session.direct.isOpen, dialer.security.isTrusted(peer),
            let id = session.direct.request(
                continuation: continuation, activityTypeHash: activityTypeHash,
                answer: { result in
                    queue.performInline { device in
                        guard self.directFetches.removeValue(forKey: continuation) != nil else { return }
                        device.receivePayload(continuation, result.map { Data($0) })
                    }
                })
        {
            directFetches[continuation] = (session, id)
            return
        }
        fetches[continuation] = Task {
            let result: Result<Data, HandoffError>
            do {
                try await dialer.connect(session)
                result = await session.requestPayload(continuation: continuation, activityTypeHash: activityTypeHash)
                    .map { Data($0) }
            } catch {
                result = .failure(
                    HandoffError(
                        .connectionUnavailable, "could not reach \(peer): \(NetworkErrorWords.describe(error))"))
            }
            guard !Task.isCancelled else { return }
            queue.perform { device in device.receivePayload(continuation, result) }
        }
    }

    func cancelPayloadRequest(_ continuation: ContinuationID, from peer: DeviceID) {
        fetches.removeValue(forKey: continuation)?.cancel()
        if let direct = directFetches.removeValue(forKey: continuation) { direct.session.direct.abandon(direct.id) }
    }

    func sendPayload(
        _ request: PayloadRequestID, to peer: DeviceID, result: Result<Data, HandoffError>, after delay: TimeInterval
    ) {
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
        guard let waiting = serving.withLock({ $0.answer(request, with: answer) }) else { return }
        waiting.deadline.cancel()
        waiting.callback(answer)
    }

    /// Over the pooled session to the peer when it is open and the account still trusts the peer
    /// (written from here, as a payload request is), else through the session's actor, which
    /// checks the peer again (closing the session of a revoked one) or opens the session anew.
    func notifyContinued(_ activityIdentifier: UUID, continuation: ContinuationID, to peer: DeviceID) {
        guard let session = directory.session(for: peer) else { return }
        let frame = SessionFrame.continued(activityIdentifier: activityIdentifier, continuation: continuation.rawValue)
        if dialer.security.isTrusted(peer), session.direct.notify(frame) { return }
        let dialer = self.dialer
        Task {
            try? await dialer.connect(session)
            try? await session.send(frame)
        }
    }

    func openContinuationStreams(
        to peer: DeviceID, token: Data,
        completion: @escaping (Result<ContinuationStreams, any Error>) -> Void
    ) {
        let queue = self.queue
        let dialer = self.dialer
        let callback = Confined(completion)
        guard let address = directory.peers[peer]?.address else {
            queue.perform { _ in callback.value(.failure(ContinuationStreamError.unavailable("\(peer) is not nearby")))
            }
            return
        }
        Task {
            let result = await StreamClient.open(
                to: address, peer: peer, token: Array(token), hello: dialer.hello,
                security: dialer.security, group: dialer.group, limits: dialer.limits(idle: false))
            queue.perform { _ in callback.value(result) }
        }
    }

    // MARK: Serving (any thread)

    /// Serves a payload request that arrived on a session (any thread): asks the device, and
    /// returns its answer when it gave one before this returns (the usual case: then `answer` is
    /// never called and no deadline is armed). Otherwise `answer` is called once, later, with
    /// what it answers, from the thread it answers on (an event loop or the device's queue), or
    /// from `timers` when the origin app misses `timeout`.
    ///
    /// `inline` (the caller is an event loop, ``PayloadRequestTap``): when the device's queue is
    /// idle its work runs at once on the calling thread. Otherwise the work is queued.
    func servePayload(
        from peer: PeerInfo, activityTypeHash: ActivityTypeHash, continuation: ContinuationID,
        timeout: TimeInterval, timers: any EventLoop, inline: Bool,
        answer: @escaping @Sendable (ServeAnswer) -> Void
    ) -> ServeAnswer? {
        let request = PayloadRequestID(
            rawValue: nextServe.withLock { value in
                defer { value += 1 }
                return value
            })
        // The origin app gets a bounded time to save, as Apple's daemon gives its clients,
        // counted from the request's arrival.
        let arrival = NIODeadline.now()
        serving.withLock { $0.begin(request, answer: answer) }
        let work: @Sendable (Device) -> Void = { device in
            device.receivePayloadRequest(
                request, from: peer, activityTypeHash: activityTypeHash, continuation: continuation)
        }
        if inline { queue.performInline(work) } else { queue.perform(work) }
        // Most requests are answered while the work above ran inline: their answer is returned
        // and they need no timer (arming and cancelling one cost a scheduled task and a failed
        // promise on the continuation's path). Any other gets the deadline now.
        return serving.withLock { requests in
            requests.finish(request) {
                timers.scheduleTask(deadline: arrival + .interval(timeout)) { [weak self] () -> Void in
                    self?.answer(
                        request,
                        .answer(
                            .failure(HandoffError(.remoteApplicationTimedOut, "the origin app did not save in time")),
                            after: 0))
                }
            }
        }
    }

    /// The long way's form of ``servePayload(from:activityTypeHash:continuation:timeout:timers:inline:answer:)``
    /// (the connection's task, before the peer is greeted): the device's work is queued.
    func servePayload(
        from peer: PeerInfo, activityTypeHash: ActivityTypeHash, continuation: ContinuationID,
        timeout: TimeInterval, timers: any EventLoop
    ) async -> ServeAnswer {
        await withCheckedContinuation { (waiter: CheckedContinuation<ServeAnswer, Never>) in
            let given = servePayload(
                from: peer, activityTypeHash: activityTypeHash, continuation: continuation, timeout: timeout,
                timers: timers, inline: false
            ) { waiter.resume(returning: $0) }
            if let given { waiter.resume(returning: given) }
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
