import Foundation
import HandoffCore
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import HandoffNetwork

/// The stream on the connection's event loop: frames in, bytes to the app's queue; the app's
/// writes out as frames, in order; backpressure by holding the socket's reads; every end told to
/// the other side. Driven on an embedded channel with the session's frame reader and writer.
@Suite("Stream channel handler")
struct StreamChannelHandlerTests {
    /// Counts the reads asked of the socket (it sits at the pipeline's head).
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var reads = 0
        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    struct Connection {
        let channel: EmbeddedChannel
        let reads: ReadCounter
        /// The app's ends: what it reads and what it writes.
        let appInput: ContinuationInputStream
        let appOutput: ContinuationOutputStream
        let ends: StreamChannelHandler.Ends

        /// Feeds frames as the peer would send them.
        func receive(_ frames: [SessionFrame]) throws {
            var bytes = ByteBuffer()
            for frame in frames { try SessionFrameEncoder().encode(data: frame, out: &bytes) }
            try channel.writeInbound(bytes)
        }

        /// Every frame the handler has written so far, decoded.
        func sent() throws -> [SessionFrame] {
            var bytes = ByteBuffer()
            while var buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes.writeBuffer(&buffer) }
            var frames: [SessionFrame] = []
            while let length = bytes.readInteger(as: UInt32.self) {
                guard var body = bytes.readSlice(length: Int(length)) else {
                    Issue.record("a frame of \(length) bytes was cut short")
                    break
                }
                frames.append(try SessionFrameDecoder.decodeBody(&body))
            }
            #expect(bytes.readableBytes == 0)
            return frames
        }
    }

    static func connection() throws -> Connection {
        let channel = EmbeddedChannel()
        let reads = ReadCounter()
        try channel.pipeline.syncOperations.addHandler(reads)
        try channel.pipeline.syncOperations.addHandler(
            SessionFrameReader(maximumFrameLength: 8 << 20, budget: SessionReadBudget(total: 64 << 20)))
        try channel.pipeline.syncOperations.addHandler(SessionFrameWriter())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        let (appInput, toApp) = ContinuationStreams.makeInput()
        let (fromApp, appOutput) = ContinuationStreams.makeInput()
        return Connection(
            channel: channel, reads: reads, appInput: appInput, appOutput: ContinuationOutputStream(sink: appOutput),
            ends: StreamChannelHandler.Ends(toApp: toApp.queue, fromApp: fromApp.queue))
    }

    static func data(_ bytes: [UInt8]) -> SessionFrame { .streamData(ByteBuffer(bytes: bytes)) }

    static func bytes(of frames: [SessionFrame]) -> [UInt8] {
        frames.flatMap { frame -> [UInt8] in
            if case .streamData(let buffer) = frame { Array(buffer.readableBytesView) } else { [] }
        }
    }

    @Test func theOriginAcceptsFirstThenCarriesBothDirectionsUntilBothEnd() async throws {
        let connection = try Self.connection()
        let over = StreamChannelHandler.accept(on: connection.channel, ends: connection.ends)
        connection.channel.embeddedEventLoop.run()
        #expect(try connection.sent() == [.streamAccepted])

        // App to socket: two writes become data frames carrying the same bytes, in order.
        let first = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
        let second = [UInt8](repeating: 7, count: 10)
        try await connection.appOutput.write(first)
        try await connection.appOutput.write(second)
        connection.channel.embeddedEventLoop.run()
        let frames = try connection.sent()
        #expect(frames.count == 2)  // 64 KiB frames: 100,010 bytes in two
        #expect(Self.bytes(of: frames) == first + second)

        // Socket to app: the peer's frames, then its end.
        try connection.receive([Self.data([1, 2, 3]), Self.data([4]), .streamEnd])
        #expect(try await connection.appInput.readAll() == [1, 2, 3, 4])
        #expect(try connection.channel.readInbound(as: SessionFrame.self) == nil)

        // The stream is over once this side's end is on the wire too.
        let finished = Flag()
        over.whenSuccess { finished.set() }
        #expect(!finished.isSet)
        await connection.appOutput.close()
        connection.channel.embeddedEventLoop.run()
        #expect(try connection.sent() == [.streamEnd])
        #expect(finished.isSet)
    }

    @Test func theContinuingSideKeepsWhatArrivesBeforeItsEndsAreAttached() async throws {
        let connection = try Self.connection()
        _ = StreamChannelHandler.awaitAcceptance(on: connection.channel)
        connection.channel.embeddedEventLoop.run()
        // Before the acceptance every frame passes on; the acceptance itself too.
        try connection.receive([
            .hello(name: "Laptop", kind: .laptop), .streamAccepted, Self.data([9, 8]), Self.data([7]),
        ])
        #expect(try connection.channel.readInbound(as: SessionFrame.self) == .hello(name: "Laptop", kind: .laptop))
        #expect(try connection.channel.readInbound(as: SessionFrame.self) == .streamAccepted)
        #expect(try connection.channel.readInbound(as: SessionFrame.self) == nil)

        _ = StreamChannelHandler.attach(connection.ends, on: connection.channel)
        connection.channel.embeddedEventLoop.run()
        try connection.receive([Self.data([6]), .streamFailed(reason: "the app gave up")])
        var received: [UInt8] = []
        await #expect(throws: ContinuationStreamError.unavailable("the peer failed the stream: the app gave up")) {
            for try await chunk in connection.appInput { received += chunk }
        }
        #expect(received == [9, 8, 7, 6])
        // The continuing side announces nothing of its own.
        #expect(try connection.sent() == [])
    }

    @Test func aReaderTooFarBehindHoldsTheSocketsReadsUntilItCatchesUp() async throws {
        let connection = try Self.connection()
        _ = StreamChannelHandler.accept(on: connection.channel, ends: connection.ends)
        connection.channel.embeddedEventLoop.run()
        let chunk = [UInt8](repeating: 5, count: 60_000)
        let frames = (ChunkQueue.highWatermark / chunk.count) + 2
        try connection.receive(Array(repeating: Self.data(chunk), count: frames))

        // Over the high watermark: a read asked for now is held back.
        let before = connection.reads.reads
        connection.channel.read()
        #expect(connection.reads.reads == before)

        // The app reads down to the low watermark: the held read goes out.
        var iterator = connection.appInput.makeAsyncIterator()
        var taken = 0
        while (frames - taken) * chunk.count > ChunkQueue.lowWatermark {
            _ = try await iterator.next()
            taken += 1
        }
        connection.channel.embeddedEventLoop.run()
        #expect(connection.reads.reads == before + 1)
        connection.channel.read()
        #expect(connection.reads.reads == before + 2)
    }

    @Test func aClosedConnectionEndsTheAppsReadsWithAnErrorAndItsWritesAtOnce() async throws {
        let connection = try Self.connection()
        let over = StreamChannelHandler.accept(on: connection.channel, ends: connection.ends)
        connection.channel.embeddedEventLoop.run()
        try connection.receive([Self.data([1])])
        try await connection.channel.close()
        connection.channel.embeddedEventLoop.run()
        var received: [UInt8] = []
        await #expect(
            throws: ContinuationStreamError.unavailable("the connection closed before the stream ended")
        ) {
            for try await chunk in connection.appInput { received += chunk }
        }
        #expect(received == [1])
        // Far more than the queue holds: writes return at once instead of waiting for a reader.
        for _ in 0..<40 { try await connection.appOutput.write([UInt8](repeating: 0, count: 64 << 10)) }
        try await over.get()
    }

    @Test func anUnexpectedFrameInAStreamFailsItAndClosesTheConnection() async throws {
        let connection = try Self.connection()
        _ = StreamChannelHandler.accept(on: connection.channel, ends: connection.ends)
        connection.channel.embeddedEventLoop.run()
        try connection.receive([Self.data([3]), .continued(activityIdentifier: UUID(), continuation: UUID())])
        await #expect(throws: ContinuationStreamError.unavailable("unexpected frame in a stream")) {
            _ = try await connection.appInput.readAll()
        }
        #expect(!connection.channel.isActive)
    }

    /// Counts the writability changes that reach the handlers behind the stream's (the session's
    /// async channel sits there).
    final class WritabilityCounter: ChannelInboundHandler {
        typealias InboundIn = SessionFrame
        var changes = 0
        func channelWritabilityChanged(context: ChannelHandlerContext) {
            changes += 1
            context.fireChannelWritabilityChanged()
        }
    }

    @Test func writabilityChangesWhileTheStreamRunsAreToldBehindItOnceWhenItIsOver() async throws {
        let connection = try Self.connection()
        let behind = WritabilityCounter()
        try connection.channel.pipeline.syncOperations.addHandler(behind)
        _ = StreamChannelHandler.awaitAcceptance(on: connection.channel)
        connection.channel.embeddedEventLoop.run()
        // Before the stream is attached, every change passes.
        connection.channel.isWritable = false
        connection.channel.pipeline.fireChannelWritabilityChanged()
        connection.channel.isWritable = true
        connection.channel.pipeline.fireChannelWritabilityChanged()
        #expect(behind.changes == 2)

        try connection.receive([.streamAccepted])
        let over = StreamChannelHandler.attach(connection.ends, on: connection.channel)
        connection.channel.embeddedEventLoop.run()
        _ = try connection.channel.readInbound(as: SessionFrame.self)
        for writable in [false, true, false, true] {
            connection.channel.isWritable = writable
            connection.channel.pipeline.fireChannelWritabilityChanged()
        }
        #expect(behind.changes == 2)

        // Both directions end: the handlers behind hear once, and see the channel as it is now.
        try connection.receive([.streamEnd])
        await connection.appOutput.close()
        connection.channel.embeddedEventLoop.run()
        try await over.get()
        #expect(behind.changes == 3)
        #expect(connection.channel.isWritable)
    }

    @Test func theAppsFailureIsSentToThePeer() async throws {
        let connection = try Self.connection()
        _ = StreamChannelHandler.accept(on: connection.channel, ends: connection.ends)
        connection.channel.embeddedEventLoop.run()
        _ = try connection.sent()
        await connection.appOutput.close(with: ContinuationStreamError.closed)
        connection.channel.embeddedEventLoop.run()
        let frames = try connection.sent()
        #expect(frames.count == 1)
        guard case .streamFailed(let reason) = frames.first else {
            Issue.record("expected a stream failure, got \(frames)")
            return
        }
        #expect(reason.contains("the stream is closed"))
    }
}

/// A flag set from a future's callback.
private final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
