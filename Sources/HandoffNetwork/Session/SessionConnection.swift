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
public enum SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    case timedOut(String)
    case closed
    case untrustedPeer(String)
    case wrongPeer(expected: DeviceID, actual: DeviceID)
    case protocolViolation(String)

    public var description: String {
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
/// file is decoded again only when it changed (``AccountFileStamp``): a check on the request path
/// costs a `stat`, not a read and a decode.
final class SessionSecurity: Sendable {
    let serverContext: NIOSSLContext
    let clientContext: NIOSSLContext
    let store: AccountStore
    let accountName: String
    private let decoded = Mutex<(stamp: AccountFileStamp, account: Account)?>(nil)

    init(identity: DeviceIdentity, account: Account, store: AccountStore) throws {
        serverContext = try NIOSSLContext(configuration: identity.makeServerTLSConfiguration(trusting: account))
        clientContext = try NIOSSLContext(configuration: identity.makeClientTLSConfiguration(trusting: account))
        self.store = store
        accountName = account.name
    }

    /// The device proven by `certificate` (already chain-verified by TLS against the account CA),
    /// checked against the account as it is on disk now (revocations included).
    func verify(_ certificate: NIOSSLCertificate?) throws -> DeviceID {
        guard let certificate else { throw SessionError.untrustedPeer("no certificate") }
        switch try currentAccount().verifiedDeviceID(of: certificate) {
        case .success(let id): return id
        case .failure(let error): throw SessionError.untrustedPeer("\(error)")
        }
    }

    /// Throws ``SessionError/untrustedPeer(_:)`` when the account, as it is on disk now, has
    /// revoked `id` (or cannot be read): called before each request of a session already open.
    func ensureNotRevoked(_ id: DeviceID) throws {
        let account = try currentAccount()
        if account.isRevoked(id) { throw SessionError.untrustedPeer("\(AccountError.deviceRevoked(id, account: account.name))") }
    }

    private func currentAccount() throws -> Account {
        let stamp = AccountFileStamp(store.accountFile(accountName))
        if let stamp, let cached = decoded.withLock({ $0 }), cached.stamp == stamp { return cached.account }
        do {
            let account = try store.account(named: accountName)
            if let stamp { decoded.withLock { $0 = (stamp, account) } }
            return account
        } catch {
            throw SessionError.untrustedPeer("the account could not be read: \(error)")
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
    init?(_ url: URL) {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }
}

/// Completes a promise when the TLS handshake has finished (or fails it when the channel dies first).
final class HandshakeObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let promise: EventLoopPromise<Void>
    private var done = false

    init(promise: EventLoopPromise<Void>) {
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tls = event as? TLSUserEvent, case .handshakeCompleted = tls, !done {
            done = true
            promise.succeed(())
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !done {
            done = true
            promise.fail(error)
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done {
            done = true
            promise.fail(SessionError.closed)
        }
        context.fireChannelInactive()
    }

    /// A connection that never became active (refused, timed out) is torn down without
    /// `channelInactive`: the promise must still be completed (NIO traps on a leaked promise).
    func handlerRemoved(context: ChannelHandlerContext) {
        if !done {
            done = true
            promise.fail(SessionError.closed)
        }
    }
}

typealias SessionChannel = NIOAsyncChannel<SessionFrame, SessionFrame>

enum SessionPipeline {
    /// Reads of up to 256 KiB (NIO's default stops at 64 KiB): a stream at full speed then needs
    /// a quarter of the reads, and TLS gets more records per pass. The allocator grows only while
    /// reads fill it, so a quiet request session keeps small buffers.
    static let receiveAllocator = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 256 * 1024)

    /// Adds TLS, the handshake observer and the frame codecs; wraps the channel for async use.
    static func configure(_ channel: any Channel, tls: NIOSSLContext, server: Bool, maximumFrameLength: Int)
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
            try operations.addHandler(HandshakeObserver(promise: promise))
            try operations.addHandler(SessionFrameReader(maximumFrameLength: maximumFrameLength))
            try operations.addHandler(SessionFrameWriter())
            let wrapped = try SessionChannel(wrappingChannelSynchronously: channel)
            return (wrapped, promise.futureResult)
        }
    }

    /// Connects to `address`, completes the TLS handshake and checks that the certificate proves `expected`.
    static func connect(to address: SocketAddress, expecting expected: DeviceID, security: SessionSecurity,
                        group: any EventLoopGroup, timeout: TimeInterval, maximumFrameLength: Int) async throws -> SessionChannel {
        let (channel, handshake) = try await ClientBootstrap(group: group)
            .connectTimeout(.milliseconds(Int64(timeout * 1000)))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.recvAllocator, value: SessionPipeline.receiveAllocator)
            .connect(to: address) { channel in
                configure(channel, tls: security.clientContext, server: false, maximumFrameLength: maximumFrameLength)
            }
        do {
            try await withDeadline(timeout, "TLS handshake with \(address)") { try await handshake.get() }
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

/// Runs `operation`, failing with ``SessionError/timedOut(_:)`` after `seconds`.
func withDeadline<T: Sendable>(_ seconds: TimeInterval, _ what: String,
                               _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(max(seconds, 0) * 1_000_000_000))
            throw SessionError.timedOut(what)
        }
        defer { group.cancelAll() }
        guard let result = try await group.next() else { throw SessionError.closed }
        return result
    }
}
