import Foundation
import HandoffCore
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Why a session could not be set up or went away.
package enum SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    case timedOut(String)
    case closed
    case untrustedPeer(String)
    case wrongPeer(expected: DeviceID, actual: DeviceID)
    case protocolViolation(String)

    package var description: String {
        switch self {
        case .timedOut(let what): "timed out: \(what)"
        case .closed: "the connection closed"
        case .untrustedPeer(let why): "peer not trusted: \(why)"
        case .wrongPeer(let expected, let actual): "expected device \(expected), but the certificate proves \(actual)"
        case .protocolViolation(let what): "protocol violation: \(what)"
        }
    }
}

/// The TLS side of sessions: contexts built from this device's identity, and the check of a peer's
/// certificate against the account.
///
/// The account is checked as it is on disk for every check, never trusted from the TLS contexts
/// (they pin only the account's authority, which never changes): a device revoked with
/// `handoff account devices … --revoke` is refused by both sides from its very next session, and
/// a session already open is checked again before each request it carries
/// (``ensureNotRevoked(_:)``), so a pooled session cannot outlive the revocation either. The
/// file is decoded again only when it changed (``AccountFileStamp``), and examined only when the
/// kernel says something in its folder changed (``AccountFileWatch``): a check on the request
/// path costs a `read` of an empty inotify queue, not a `stat`, a read and a decode.
///
/// The two TLS contexts are made when first needed (``contexts()``: the host's start makes them
/// before it binds anything), not with the security: a terminal device draws its first frame
/// before it joins the network, and the frame does not need them.
final class SessionSecurity: Sendable {
    /// This device's TLS contexts, as a server and as a client.
    struct Contexts: Sendable {
        let server: NIOSSLContext
        let client: NIOSSLContext
    }

    /// The contexts once made (or why they could not be): made once, under the lock.
    private let made = Mutex<Result<Contexts, any Error>?>(nil)
    private let makeContexts: @Sendable () throws -> Contexts
    let store: AccountStore
    let accountName: String
    /// The account file's path, found once: building its URL (Foundation's path parsing) and
    /// its path cost several times the `stat` of each check, on every payload request of both sides.
    private let accountFilePath: String
    private let decoded = Mutex<Cache>(Cache())
    private let watch: AccountFileWatch?

    /// The account as last decoded, and whether the folder's watch still stands.
    private struct Cache {
        var file: (stamp: AccountFileStamp, account: Account)?
        var watching = true
    }

    /// With `keyLog`, both contexts append every session's secrets to it (NIOSSL's key-log
    /// callback): for Wireshark, at the cost of the sessions' secrecy.
    init(identity: DeviceIdentity, account: Account, store: AccountStore, keyLog: KeyLogFile? = nil) {
        makeContexts = {
            var server = try identity.makeServerTLSConfiguration(trusting: account)
            var client = try identity.makeClientTLSConfiguration(trusting: account)
            if let keyLog {
                server.keyLogCallback = { line in keyLog.append(line) }
                client.keyLogCallback = { line in keyLog.append(line) }
            }
            return Contexts(
                server: try NIOSSLContext(configuration: server), client: try NIOSSLContext(configuration: client))
        }
        self.store = store
        accountName = account.name
        accountFilePath = store.accountFile(account.name).path
        watch = AccountFileWatch(folder: store.accountFile(account.name).deletingLastPathComponent().path)
    }

    /// The TLS contexts, made on the first call; every call after a failure throws its error.
    ///
    /// The first call also reads the account file (``readAccountAhead()``): it is made before the
    /// host binds anything, off every session's path, and the first session's checks would
    /// otherwise decode the file on both sides of the first contact.
    func contexts() throws -> Contexts {
        let (result, first) = made.withLock { made in
            let first = made == nil
            let result = made ?? Result { try makeContexts() }
            made = result
            return (result, first)
        }
        if first, case .success = result { readAccountAhead() }
        return try result.get()
    }

    /// Whether the account, as it is on disk now, still trusts `id` (``ensureNotRevoked(_:)``
    /// without the reason).
    func isTrusted(_ id: DeviceID) -> Bool {
        (try? ensureNotRevoked(id)) != nil
    }

    /// Reads and decodes the account file now, as a check would (about 1.6 M instructions: the
    /// authority's key and certificate, its signature). The checks still look for changes every
    /// time (the watch, then the file's stamp), so nothing is trusted for longer than before; a
    /// file that cannot be read now is read again, and refused, by the first check.
    private func readAccountAhead() {
        _ = try? withCurrentAccount { _ in () }
    }

    /// The device proven by `certificate` (already chain-verified by TLS against the account CA),
    /// checked against the account as it is on disk now (revocations included).
    func verify(_ certificate: NIOSSLCertificate?) throws -> DeviceID {
        guard let certificate else { throw SessionError.untrustedPeer("no certificate") }
        switch try withCurrentAccount({ $0.verifiedDeviceID(of: certificate) }) {
        case .success(let id): return id
        case .failure(let error): throw SessionError.untrustedPeer("\(error)")
        }
    }

    /// Throws ``SessionError/untrustedPeer(_:)`` when the account, as it is on disk now, has
    /// revoked `id` (or cannot be read): called before each request of a session already open.
    func ensureNotRevoked(_ id: DeviceID) throws {
        let revocation = try withCurrentAccount { account in
            account.isRevoked(id) ? AccountError.deviceRevoked(id, account: account.name) : nil
        }
        if let revocation { throw SessionError.untrustedPeer("\(revocation)") }
    }

    /// `body`'s answer about the account as it is on disk now, read in place under the cache's
    /// lock (not a copy of the account, whose arrays were retained and released on every
    /// payload request).
    private func withCurrentAccount<Answer>(_ body: (Account) -> Answer) throws(SessionError) -> Answer {
        try decoded.withLock { cache throws(SessionError) -> Answer in
            // The look and what follows from it happen under the lock: events one caller
            // drained are acted on before another caller trusts the cache.
            if cache.watching, let watch {
                switch watch.look() {
                case .unchanged: if let file = cache.file { return body(file.account) }
                case .maybeChanged: break
                case .watchEnded: cache.watching = false
                }
            }
            let stamp = AccountFileStamp(path: accountFilePath)
            if let stamp, let file = cache.file, file.stamp == stamp { return body(file.account) }
            do {
                let account = try store.account(named: accountName)
                cache.file = stamp.map { ($0, account) }
                return body(account)
            } catch {
                cache.file = nil
                throw SessionError.untrustedPeer("the account could not be read: \(error)")
            }
        }
    }
}

/// What tells one version of an account file from another without reading it: every write
/// renames a new file into place (a new inode), and size and modification time are compared too.
struct AccountFileStamp: Hashable, Sendable {
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int

    /// Nil when the file cannot be examined (then it is read, and the read reports why).
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }
}

/// Completes a promise when the TLS handshake has finished, fails it when the channel dies
/// first, and **closes the channel** when the handshake has not finished within its deadline
/// (counted from when the connection is up), so a silent or trickling peer holds nothing after
/// it. On a server, the connection counts against the ``HandshakeGate`` until then.
final class HandshakeObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let promise: EventLoopPromise<Void>
    private let deadline: TimeAmount
    private let gate: HandshakeGate?
    private var done = false
    private var timer: Scheduled<Void>?
    private var admitted = false

    init(promise: EventLoopPromise<Void>, deadline: TimeAmount, gate: HandshakeGate?) {
        self.promise = promise
        self.deadline = deadline
        self.gate = gate
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { started(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        started(context)
        context.fireChannelActive()
    }

    private func started(_ context: ChannelHandlerContext) {
        guard !done, timer == nil else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: deadline) {
            let (observer, context) = loopBound.value
            observer.expired(context)
        }
        if let gate, !admitted {
            admitted = true
            gate.admit(context.channel)
        }
    }

    private func expired(_ context: ChannelHandlerContext) {
        timer = nil
        guard !done else { return }
        finish(
            context.channel,
            .failure(SessionError.timedOut("TLS handshake not finished within \(Double(deadline.nanoseconds) / 1e9) s"))
        )
        context.close(promise: nil)
    }

    private func finish(_ channel: any Channel, _ result: Result<Void, any Error>) {
        guard !done else { return }
        done = true
        timer?.cancel()
        timer = nil
        if admitted { gate?.release(channel) }
        promise.completeWith(result)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tls = event as? TLSUserEvent, case .handshakeCompleted = tls {
            finish(context.channel, .success(()))
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(context.channel, .failure(error))
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context.channel, .failure(SessionError.closed))
        if admitted { gate?.release(context.channel) }
        context.fireChannelInactive()
    }

    /// A connection that never became active (refused, timed out) is torn down without
    /// `channelInactive`: the promise must still be completed (NIO traps on a leaked promise).
    func handlerRemoved(context: ChannelHandlerContext) {
        finish(context.channel, .failure(SessionError.closed))
        if admitted { gate?.release(context.channel) }
    }
}

typealias SessionChannel = NIOAsyncChannel<SessionFrame, SessionFrame>

/// What a session pipeline is bounded by (from ``NetworkOptions`` and the device's shared budget).
struct SessionLimits: Sendable {
    var maximumFrameLength: Int
    var handshakeTimeout: TimeInterval
    /// Nil: never closed for idleness (stream connections of the continuing device).
    var idleTimeout: TimeInterval?
    var budget: SessionReadBudget
    /// Servers only: pending handshakes, and established sessions by peer.
    var gate: HandshakeGate?
    var roster: ConnectionRoster<DeviceID>?

    init(
        options: NetworkOptions, budget: SessionReadBudget, gate: HandshakeGate? = nil,
        roster: ConnectionRoster<DeviceID>? = nil,
        idle: Bool = true, server: Bool = false
    ) {
        maximumFrameLength = options.maximumFrameLength
        handshakeTimeout = options.connectTimeout
        // The server waits twice as long as the client, so a pooled session is closed by the
        // client that owns it (never under a request on its way).
        idleTimeout = idle ? options.idleSessionTimeout * (server ? 2 : 1) : nil
        self.budget = budget
        self.gate = gate
        self.roster = roster
    }
}

extension TimeAmount {
    static func interval(_ seconds: TimeInterval) -> TimeAmount { .nanoseconds(Int64(max(seconds, 0) * 1_000_000_000)) }
}

package enum SessionPipeline {
    /// Reads of up to 256 KiB (NIO's default stops at 64 KiB): a stream at full speed then needs
    /// a quarter of the reads, and TLS gets more records per pass. The allocator grows only while
    /// reads fill it, so a quiet request session keeps small buffers.
    package static let receiveAllocator = AdaptiveRecvByteBufferAllocator(
        minimum: 64, initial: 2048, maximum: 256 * 1024)

    /// Adds TLS, the handshake observer (with its deadline), the frame codecs and the idle
    /// closer; wraps the channel for async use.
    static func configure(
        _ channel: any Channel, tls: NIOSSLContext, server: Bool, limits: SessionLimits,
        answers: DirectRequests? = nil
    )
        -> EventLoopFuture<(SessionChannel, EventLoopFuture<Void>)>
    {
        channel.eventLoop.makeCompletedFuture {
            let promise = channel.eventLoop.makePromise(of: Void.self)
            let operations = channel.pipeline.syncOperations
            if server {
                try operations.addHandler(NIOSSLServerHandler(context: tls))
            } else {
                try operations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: nil))
            }
            try operations.addHandler(
                HandshakeObserver(promise: promise, deadline: .interval(limits.handshakeTimeout), gate: limits.gate))
            try operations.addHandler(
                SessionFrameReader(maximumFrameLength: limits.maximumFrameLength, budget: limits.budget))
            try operations.addHandler(SessionFrameWriter())
            if let idle = limits.idleTimeout {
                try operations.addHandler(IdleCloser(timeout: .interval(idle)), name: IdleCloser.name)
            }
            if let roster = limits.roster { try operations.addHandler(RosterActivity(roster: roster)) }
            if let answers { try operations.addHandler(PayloadAnswerTap(answers)) }
            let wrapped = try SessionChannel(wrappingChannelSynchronously: channel)
            return (wrapped, promise.futureResult)
        }
    }

    /// Connects to `address`, completes the TLS handshake and checks that the certificate proves
    /// `expected`. The handshake's deadline closes the connection when it passes.
    static func connect(
        to address: SocketAddress, expecting expected: DeviceID, security: SessionSecurity,
        group: any EventLoopGroup, limits: SessionLimits, answers: DirectRequests? = nil
    ) async throws -> SessionChannel {
        let context = try security.contexts().client
        let (channel, handshake) = try await ClientBootstrap(group: group)
            .connectTimeout(.interval(limits.handshakeTimeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.recvAllocator, value: SessionPipeline.receiveAllocator)
            .connect(to: address) { channel in
                configure(channel, tls: context, server: false, limits: limits, answers: answers)
            }
        do {
            do {
                try await handshake.get()
            } catch SessionError.closed {
                throw SessionError.closed
            } catch let error as SessionError {
                throw error
            } catch {
                throw SessionError.untrustedPeer(
                    "TLS handshake with \(address) failed: \(NetworkErrorWords.describe(error))")
            }
            let certificate = try await channel.channel.nioSSL_peerCertificate().get()
            let proven = try security.verify(certificate)
            guard proven == expected else { throw SessionError.wrongPeer(expected: expected, actual: proven) }
            return channel
        } catch {
            await discard(channel)
            throw error
        }
    }

    /// Closes a wrapped channel that will never be served. The async wrapper's writer must be
    /// finished before it is released (NIO traps otherwise), which `executeThenClose` does.
    static func discard(_ channel: SessionChannel) async {
        try? await channel.executeThenClose { _, outbound in outbound.finish() }
    }
}

/// Runs `operation`, failing with ``SessionError/timedOut(_:)`` after `seconds` whether or not
/// the operation honours cancellation: the caller gets the timeout on time, the operation is
/// cancelled and left to finish on its own. Callers close whatever the operation waits on (a
/// channel), so it does finish.
func withDeadline<T: Sendable>(
    _ seconds: TimeInterval, _ what: String,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = DeadlineRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            race.start(continuation)
            let work = Task {
                do { race.settle(.success(try await operation())) } catch { race.settle(.failure(error)) }
            }
            let timer = Task {
                try? await Task.sleep(nanoseconds: UInt64(max(seconds, 0) * 1_000_000_000))
                race.settle(.failure(SessionError.timedOut(what)))
            }
            race.track([work, timer])
        }
    } onCancel: {
        race.settle(.failure(CancellationError()))
    }
}

/// The state of one ``withDeadline(_:_:_:)``: the first result wins, the losers are cancelled.
private final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var waiter: CheckedContinuation<T, any Error>?
        var pending: Result<T, any Error>?
        var tasks: [Task<Void, Never>] = []
        var settled = false
    }
    private let state = Mutex(State())

    func start(_ waiter: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = state.withLock { state in
            if let pending = state.pending { return pending }
            state.waiter = waiter
            return nil
        }
        if let early { waiter.resume(with: early) }
    }

    func track(_ tasks: [Task<Void, Never>]) {
        let settled = state.withLock { state in
            state.tasks = tasks
            return state.settled
        }
        if settled { for task in tasks { task.cancel() } }
    }

    func settle(_ result: Result<T, any Error>) {
        let (waiter, tasks): (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) = state.withLock { state in
            guard !state.settled else { return (nil, []) }
            state.settled = true
            if state.waiter == nil { state.pending = result }
            defer { state.waiter = nil }
            return (state.waiter, state.tasks)
        }
        waiter?.resume(with: result)
        for task in tasks { task.cancel() }
    }
}
