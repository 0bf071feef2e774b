import Crypto
import Foundation
import HandoffCore
import HandoffNetwork
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// The floors that say what a TLS stream's limit is, besides raw TCP: the cipher itself, and TLS
/// with nothing of ours on it.
enum CipherFloors {
    /// AES-GCM through swift-crypto (the library the beacons use; NIOSSL's BoringSSL runs the
    /// same code for TLS records), sealing then opening `bytes` in `record`-byte records on the
    /// calling thread: one core each way. MB/s of plaintext (10^6 bytes per second).
    static func aesGCM(
        keyBits: Int, bytes: Int, record: Int = StreamBridge.chunkSize
    ) throws -> (
        seal: Double, open: Double
    ) {
        let key = SymmetricKey(size: keyBits == 256 ? .bits256 : .bits128)
        let plaintext = [UInt8](repeating: 0xA5, count: record)
        let header = [UInt8](repeating: 0x17, count: 5)  // a TLS record header's size, authenticated
        let records = max(1, bytes / record)
        var box = try AES.GCM.seal(plaintext, using: key, authenticating: header)
        let sealStart = BenchClock.now()
        for _ in 0..<records {
            box = try AES.GCM.seal(plaintext, using: key, authenticating: header)
        }
        let sealEnd = BenchClock.now()
        var opened = 0
        for _ in 0..<records {
            opened &+= try AES.GCM.open(box, using: key, authenticating: header).count
        }
        let openEnd = BenchClock.now()
        guard opened == records * record else { throw BenchError("AES-GCM opened \(opened) bytes") }
        let total = Double(records * record)
        return (total / (Double(sealEnd - sealStart) / 1e9) / 1e6, total / (Double(openEnd - sealEnd) / 1e9) / 1e6)
    }

    /// What one bare TLS stream measured.
    struct TLSStream: Sendable {
        var megabytesPerSecond: Double
        /// The CPU time of the whole process (both ends' event loops) per gigabyte carried.
        var cpuSecondsPerGigabyte: Double
        var version: TLSVersion?
        /// The traffic secret's length from the key log: 32 bytes for the SHA-256 suites
        /// (TLS_AES_128_GCM_SHA256 with AES hardware), 48 for TLS_AES_256_GCM_SHA384.
        var secretBytes: Int?

        /// The TLS 1.3 suite, as far as the key log and BoringSSL's order (AES-128-GCM first on
        /// machines with AES instructions) tell.
        var suite: String {
            switch secretBytes {
            case 48: "TLS_AES_256_GCM_SHA384"
            case 32: "TLS_AES_128_GCM_SHA256"
            default: "unknown suite"
            }
        }

        var keyBits: Int { secretBytes == 48 ? 256 : 128 }
    }

    /// `bytes` written in 64 KiB buffers over one mutual-TLS connection between two event loops
    /// of their own, with the TLS configurations the sessions use (the same version, suites and
    /// certificates) and the same socket options (TCP_NODELAY, reads of up to 256 KiB), and
    /// nothing else in either pipeline: no framing, no bridge, no app. From the first write after
    /// the handshake to the last byte read on the other side.
    ///
    /// With `copyingArrays`, the one thing an app's stream cannot do without is added on each
    /// side: the sender copies every 64 KiB chunk out of a byte array into the buffer it writes,
    /// and the receiver copies every read into a byte array of its own (continuation streams hand
    /// apps byte arrays, as Apple's `InputStream` and `OutputStream` copy into and out of the
    /// app's buffers). Still no framing, no bridge, no tasks.
    static func tlsThroughput(
        bytes: Int, identities: (DeviceIdentity, DeviceIdentity), account: Account, copyingArrays: Bool = false
    ) async throws -> TLSStream {
        let secret = NIOLockedValueBox<Int?>(nil)
        var serverConfiguration = try identities.0.makeServerTLSConfiguration(trusting: account)
        var clientConfiguration = try identities.1.makeClientTLSConfiguration(trusting: account)
        clientConfiguration.keyLogCallback = { line in
            // "CLIENT_TRAFFIC_SECRET_0 <client random> <secret>", in hex.
            let fields = String(buffer: line).split(separator: " ")
            if fields.count == 3, fields[0] == "CLIENT_TRAFFIC_SECRET_0" {
                secret.withLockedValue { $0 = fields[2].count / 2 }
            }
        }
        serverConfiguration.keyLogCallback = nil
        let serverContext = try NIOSSLContext(configuration: serverConfiguration)
        let clientContext = try NIOSSLContext(configuration: clientConfiguration)
        let stream = try await onTwoLoops { groups in
            try await tlsThroughput(
                bytes: bytes, server: serverContext, client: clientContext, groups: groups,
                copyingArrays: copyingArrays)
        }
        return TLSStream(
            megabytesPerSecond: stream.megabytesPerSecond, cpuSecondsPerGigabyte: stream.cpuSecondsPerGigabyte,
            version: stream.version, secretBytes: secret.withLockedValue { $0 })
    }

    /// `body` with two event loop groups of one thread each (a server's and a client's), shut down
    /// afterwards whether it returned or threw.
    static func onTwoLoops<Result>(
        _ body: ((server: MultiThreadedEventLoopGroup, client: MultiThreadedEventLoopGroup)) async throws -> Result
    ) async throws -> Result {
        let groups = (
            server: MultiThreadedEventLoopGroup(numberOfThreads: 1),
            client: MultiThreadedEventLoopGroup(numberOfThreads: 1)
        )
        do {
            let result = try await body(groups)
            try? await groups.server.shutdownGracefully()
            try? await groups.client.shutdownGracefully()
            return result
        } catch {
            try? await groups.server.shutdownGracefully()
            try? await groups.client.shutdownGracefully()
            throw error
        }
    }

    private static func tlsThroughput(
        bytes: Int, server serverContext: NIOSSLContext, client clientContext: NIOSSLContext,
        groups: (MultiThreadedEventLoopGroup, MultiThreadedEventLoopGroup), copyingArrays: Bool
    ) async throws -> (megabytesPerSecond: Double, cpuSecondsPerGigabyte: Double, version: TLSVersion?) {
        let (serverGroup, clientGroup) = groups
        let finished = serverGroup.next().makePromise(of: BenchClock.Instant.self)
        let started = clientGroup.next().makePromise(of: BenchClock.Instant.self)
        let server: any Channel
        let client: any Channel
        do {
            (server, client) = try await connectedPair(
                contexts: (serverContext, clientContext), groups: (serverGroup, clientGroup),
                serverHandler: { ByteSink(expected: bytes, done: finished, copyingArrays: copyingArrays) },
                clientHandler: { ByteSource(total: bytes, started: started, copyingArrays: copyingArrays) })
        } catch {
            // A promise never completed is a crash in a debug build.
            finished.fail(error)
            started.fail(error)
            throw error
        }
        defer { server.close(promise: nil) }
        defer { client.close(promise: nil) }
        let start = try await started.futureResult.get()
        let end = try await finished.futureResult.get()
        let version = try? await client.nioSSL_tlsVersion().get()
        return (
            start.megabytesPerSecond(bytes, until: end), start.cpuSecondsPerGigabyte(bytes, until: end), version
        )
    }

    /// One mutual-TLS connection on loopback between an event loop of `groups.server` and one of
    /// `groups.client`, with the sessions' socket options (TCP_NODELAY, their reads) and, after
    /// TLS, only the handler each side's closure makes. Close both channels when done.
    static func connectedPair(
        contexts: (server: NIOSSLContext, client: NIOSSLContext),
        groups: (server: any EventLoopGroup, client: any EventLoopGroup),
        serverHandler: @escaping @Sendable () -> any ChannelHandler,
        clientHandler: @escaping @Sendable () -> any ChannelHandler
    ) async throws -> (listener: any Channel, client: any Channel) {
        let allocator = SessionPipeline.receiveAllocator
        let server = try await ServerBootstrap(group: groups.server)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.recvAllocator, value: allocator)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        NIOSSLServerHandler(context: contexts.server), serverHandler(),
                    ])
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = server.localAddress?.port else {
            server.close(promise: nil)
            throw BenchError("the TLS floor's listener has no port")
        }
        do {
            let client = try await ClientBootstrap(group: groups.client)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelOption(.recvAllocator, value: allocator)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers([
                            try NIOSSLClientHandler(context: contexts.client, serverHostname: nil), clientHandler(),
                        ])
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
            return (server, client)
        } catch {
            server.close(promise: nil)
            throw error
        }
    }

    /// Writes `total` bytes in 64 KiB buffers once the handshake is done, as fast as the channel
    /// takes them (it waits while the channel is not writable). With `copyingArrays`, each buffer
    /// is first filled from a byte array (the same buffer again once TLS has let go of it).
    private final class ByteSource: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let total: Int
        private let started: EventLoopPromise<BenchClock.Instant>
        private let source: [UInt8]?
        private var sent = 0
        private var chunk: ByteBuffer?
        private var handshaken = false

        init(total: Int, started: EventLoopPromise<BenchClock.Instant>, copyingArrays: Bool) {
            self.total = total
            self.started = started
            source = copyingArrays ? [UInt8](repeating: 0xA5, count: StreamBridge.chunkSize) : nil
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted = event {
                handshaken = true
                chunk = context.channel.allocator.buffer(repeating: 0xA5, count: StreamBridge.chunkSize)
                started.succeed(.now())
                pump(context: context)
            }
            context.fireUserInboundEventTriggered(event)
        }

        func channelWritabilityChanged(context: ChannelHandlerContext) {
            if handshaken { pump(context: context) }
            context.fireChannelWritabilityChanged()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            if !handshaken { started.fail(error) }
            context.close(promise: nil)
        }

        private func pump(context: ChannelHandlerContext) {
            guard let chunk else { return }
            // Each buffer flushed as it is written: NIOSSL encrypts on flush, and only then does the
            // channel count the bytes as pending, so writing without flushing would pile the whole
            // run up in NIOSSL's buffer before the first byte left.
            while sent < total, context.channel.isWritable {
                let size = min(chunk.readableBytes, total - sent)
                if let source {
                    // Filled in place when TLS no longer holds the buffer (it encrypts on flush).
                    self.chunk = nil
                    var filled = chunk
                    filled.clear()
                    filled.writeBytes(source[0..<size])
                    self.chunk = filled
                    context.writeAndFlush(wrapOutboundOut(filled), promise: nil)
                } else {
                    context.writeAndFlush(
                        wrapOutboundOut(chunk.getSlice(at: chunk.readerIndex, length: size)!), promise: nil)
                }
                sent += size
            }
        }
    }

    /// Counts the bytes read and says when `expected` have arrived; with `copyingArrays`, each
    /// read is first copied into a byte array.
    private final class ByteSink: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        private let expected: Int
        private let done: EventLoopPromise<BenchClock.Instant>
        private let copyingArrays: Bool
        private var received = 0
        /// The last byte of each copy, summed: keeps the copies from being optimised away.
        private var checksum: UInt8 = 0
        private var ended = false

        init(expected: Int, done: EventLoopPromise<BenchClock.Instant>, copyingArrays: Bool) {
            self.expected = expected
            self.done = done
            self.copyingArrays = copyingArrays
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            if copyingArrays {
                let bytes = [UInt8](buffer.readableBytesView)
                checksum &+= bytes.last ?? 0
                received += bytes.count
            } else {
                received += buffer.readableBytes
            }
            if received >= expected { end(.success(.now())) }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            end(.failure(error))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            end(.failure(BenchError("the TLS floor's connection closed after \(received) of \(expected) bytes")))
        }

        private func end(_ result: Result<BenchClock.Instant, any Error>) {
            guard !ended else { return }
            ended = true
            done.completeWith(result)
        }
    }
}
