import Foundation
import HandoffCore
import NIOCore

/// A pooled, authenticated connection to one peer for payload requests and notifications.
///
/// Requests are multiplexed by identifier; when the connection closes, every waiting request
/// fails with 4609 (connection unavailable), so nothing hangs.
actor PeerSession {
    let peer: DeviceID
    let address: SocketAddress
    private var outbound: NIOAsyncChannelOutboundWriter<SessionFrame>?
    private var pending: [UInt64: CheckedContinuation<Result<[UInt8], HandoffError>, Never>] = [:]
    private(set) var isClosed = false
    /// The short way of payload requests once the session is open (any thread).
    nonisolated let direct = DirectRequests()

    init(peer: DeviceID, address: SocketAddress) {
        self.peer = peer
        self.address = address
    }

    private var connecting: Task<Void, any Error>?
    private var channel: SessionChannel?

    /// Connects (TLS, peer check, hello) unless already connected; concurrent callers share one
    /// attempt. A session already open is reused only while the account still trusts the peer:
    /// one revoked since is closed, and the call fails.
    func connectIfNeeded(
        security: SessionSecurity, group: any EventLoopGroup, limits: SessionLimits,
        hello: SessionFrame
    ) async throws {
        if outbound != nil, !isClosed {
            do {
                try security.ensureNotRevoked(peer)
            } catch {
                await close()
                throw error
            }
            return
        }
        if let connecting {
            try await connecting.value
            return
        }
        isClosed = false
        let peer = self.peer
        let address = self.address
        let attempt = Task {
            let channel = try await SessionPipeline.connect(
                to: address, expecting: peer, security: security, group: group,
                limits: limits, answers: self.direct)
            try await self.run(channel, hello: hello, timeout: limits.handshakeTimeout)
        }
        connecting = attempt
        defer { connecting = nil }
        try await attempt.value
        guard outbound != nil else { throw SessionError.closed }
    }

    /// Serves `channel` in a task; returns once the peer has greeted this device.
    ///
    /// In TLS 1.3 the client's handshake completes before the server has checked the client's
    /// certificate, so a finished handshake alone does not mean the peer accepted this device
    /// (it may have been revoked): the session counts as established only when the server's
    /// `hello` arrives, within the connect timeout.
    private func run(_ channel: SessionChannel, hello: SessionFrame, timeout: TimeInterval) async throws {
        self.channel = channel
        let (ready, readySignal) = AsyncStream<Bool>.makeStream()
        Task {
            do {
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(hello)
                    var iterator = inbound.makeAsyncIterator()
                    // A greeting that comes after this attempt gave up attaches nothing.
                    guard case .hello? = try await iterator.next(), self.attach(outbound, channel: channel.channel)
                    else {
                        readySignal.yield(false)
                        return
                    }
                    readySignal.yield(true)
                    readySignal.finish()
                    while let frame = try await iterator.next() { self.received(frame) }
                }
            } catch {}
            readySignal.yield(false)
            readySignal.finish()
            self.ended(channel.channel)
        }
        let greeted: Bool
        do {
            greeted = try await withDeadline(timeout, "greeting from \(peer)") {
                for await value in ready { return value }
                return false
            }
        } catch {
            abandon(channel.channel)
            try? await channel.channel.close()
            throw error
        }
        guard greeted else {
            abandon(channel.channel)
            try? await channel.channel.close()
            throw SessionError.untrustedPeer(
                "\(peer) closed the session without greeting: it did not accept this device's certificate")
        }
    }

    /// Closes the connection; waiting requests fail with 4609.
    func close() async {
        guard let current = channel?.channel else {
            closed()
            return
        }
        try? await current.close()
        ended(current)
    }

    /// The connection this session is on (nil before the first attempt and after it ended).
    var currentChannel: (any Channel)? { channel?.channel }

    /// Attaches a connection whose peer greeted this device, if it is still this session's
    /// attempt; false for one that gave up since (its deadline passed, or a newer one started).
    private func attach(_ writer: NIOAsyncChannelOutboundWriter<SessionFrame>, channel: any Channel) -> Bool {
        guard self.channel?.channel === channel else { return false }
        outbound = writer
        direct.attach(channel)
        return true
    }

    /// An attempt gave up on `channel` before it was attached: it is no longer this session's.
    private func abandon(_ channel: any Channel) {
        if self.channel?.channel === channel { self.channel = nil }
    }

    /// The connection `channel` ended (its reader finished, or ``close()`` closed it). Only the
    /// session's current connection closes the session: the reader of an earlier one that ends
    /// late (after ``close()`` and a reconnection) must not fail the requests of the newer one.
    func ended(_ channel: any Channel) {
        guard self.channel?.channel === channel else { return }
        self.channel = nil
        closed()
    }

    /// Asks the peer for the payload of its advertised activity.
    func requestPayload(
        continuation: ContinuationID, activityTypeHash: ActivityTypeHash
    ) async -> Result<[UInt8], HandoffError> {
        guard !isClosed, let outbound else {
            return .failure(HandoffError(.connectionUnavailable, "the connection to the origin is closed"))
        }
        let id = direct.nextIdentifier()
        return await withCheckedContinuation { waiter in
            pending[id] = waiter
            Task {
                do {
                    try await outbound.write(
                        .payloadRequest(id: id, continuation: continuation.rawValue, activityTypeHash: activityTypeHash)
                    )
                } catch {
                    self.finish(
                        id,
                        .failure(
                            HandoffError(
                                .connectionUnavailable,
                                "could not send the request: \(NetworkErrorWords.describe(error))")))
                }
            }
        }
    }

    /// Forgets a request the device gave up on.
    func abandon(all reason: String) {
        for id in pending.keys { finish(id, .failure(HandoffError(.userCancelled, reason))) }
    }

    func send(_ frame: SessionFrame) async throws {
        guard !isClosed, let outbound else { throw SessionError.closed }
        try await outbound.write(frame)
    }

    private func received(_ frame: SessionFrame) {
        switch frame {
        case .payloadResponse(let id, let payload):
            finish(id, .success(payload))
        case .payloadError(let id, let code, let reason):
            finish(id, .failure(HandoffError(code, reason)))
        default:
            break
        }
    }

    private func finish(_ id: UInt64, _ result: Result<[UInt8], HandoffError>) {
        pending.removeValue(forKey: id)?.resume(returning: result)
    }

    private func closed() {
        isClosed = true
        outbound = nil
        direct.detach()
        let waiting = pending
        pending = [:]
        for continuation in waiting.values {
            continuation.resume(
                returning: .failure(
                    HandoffError(.connectionUnavailable, "the connection to the origin was lost during the fetch")))
        }
    }
}
