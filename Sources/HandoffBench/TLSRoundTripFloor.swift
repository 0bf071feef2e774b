import Foundation
import HandoffCore
import HandoffNetwork
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// The continue row's second floor: what a request and its answer cost on an open TLS session with
/// nothing of ours on it.
///
/// One mutual-TLS connection between two event loops of their own, with the TLS configurations
/// the sessions use and their socket options (TCP_NODELAY, the sessions' reads), and nothing else
/// in either pipeline: no framing, no device, no app. A `requestBytes` request is written from the
/// measuring thread, as a continuing device writes its payload request from its queue (so the
/// client's event loop is woken for it); the server's event loop writes an `answerBytes` answer as
/// soon as the whole request is in, as the origin answers on its event loop; the time runs until
/// the answer's last byte is read on the client's event loop, where the continuing device restores.
/// So it has the continuation's hand-overs and TLS records, and none of our work. One round trip
/// first (after the handshake), not timed.
enum TLSRoundTripFloor {
    static func measure(
        iterations: Int, requestBytes: Int, answerBytes: Int, gap: TimeInterval,
        identities: (DeviceIdentity, DeviceIdentity), account: Account
    ) async throws -> LatencySamples {
        let serverContext = try NIOSSLContext(configuration: identities.0.makeServerTLSConfiguration(trusting: account))
        let clientContext = try NIOSSLContext(configuration: identities.1.makeClientTLSConfiguration(trusting: account))
        return try await CipherFloors.onTwoLoops { groups in
            try await measure(
                iterations: iterations, requestBytes: requestBytes, answerBytes: answerBytes, gap: gap,
                contexts: (serverContext, clientContext), groups: groups)
        }
    }

    private static func measure(
        iterations: Int, requestBytes: Int, answerBytes: Int, gap: TimeInterval,
        contexts: (server: NIOSSLContext, client: NIOSSLContext),
        groups: (server: MultiThreadedEventLoopGroup, client: MultiThreadedEventLoopGroup)
    ) async throws -> LatencySamples {
        let arrivals = AnswerArrivals()
        let handshake = groups.client.next().makePromise(of: Void.self)
        let server: any Channel
        let client: any Channel
        do {
            (server, client) = try await CipherFloors.connectedPair(
                contexts: contexts, groups: (groups.server, groups.client),
                serverHandler: { Answerer(requestBytes: requestBytes, answerBytes: answerBytes) },
                clientHandler: { AnswerReader(answerBytes: answerBytes, arrivals: arrivals, handshake: handshake) })
        } catch {
            // A promise never completed is a crash in a debug build.
            handshake.fail(error)
            throw error
        }
        defer { server.close(promise: nil) }
        defer { client.close(promise: nil) }
        try await handshake.futureResult.get()
        let request = client.allocator.buffer(repeating: 0x41, count: requestBytes)
        return try await onDedicatedThread("bench-tls-round-trip") {
            var samples = LatencySamples()
            for index in 0...iterations {
                sleepThread(gap)
                let start = BenchClock.now()
                client.writeAndFlush(request, promise: nil)
                let end = try arrivals.next(timeout: 5)
                if index > 0 { samples.append(end &- start) }
            }
            return samples
        }
    }

    /// When each answer's last byte was read, handed from the client's event loop to the measuring
    /// thread.
    private final class AnswerArrivals: Sendable {
        private let times = NIOLockedValueBox<(ends: [UInt64], failure: String?)>(([], nil))
        private let signal = DispatchSemaphore(value: 0)

        func arrived(at time: UInt64) {
            times.withLockedValue { $0.ends.append(time) }
            signal.signal()
        }

        func failed(_ reason: String) {
            times.withLockedValue { $0.failure = $0.failure ?? reason }
            signal.signal()
        }

        func next(timeout: TimeInterval) throws -> UInt64 {
            guard signal.wait(timeout: .now() + timeout) == .success else {
                throw BenchError("a TLS round trip was not answered within \(Int(timeout)) s")
            }
            return try times.withLockedValue { state in
                if let failure = state.failure { throw BenchError("the TLS round-trip floor failed: \(failure)") }
                return state.ends.removeFirst()
            }
        }
    }

    /// The server: answers every whole request at once, on its event loop.
    private final class Answerer: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let requestBytes: Int
        private let answerBytes: Int
        private var answer: ByteBuffer?
        private var pending = 0

        init(requestBytes: Int, answerBytes: Int) {
            self.requestBytes = requestBytes
            self.answerBytes = answerBytes
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            pending += unwrapInboundIn(data).readableBytes
            while pending >= requestBytes {
                pending -= requestBytes
                let answer = self.answer ?? context.channel.allocator.buffer(repeating: 0x5A, count: answerBytes)
                self.answer = answer
                context.writeAndFlush(wrapOutboundOut(answer), promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }

    /// The client: notes when each whole answer has been read.
    private final class AnswerReader: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        private let answerBytes: Int
        private let arrivals: AnswerArrivals
        private let handshake: EventLoopPromise<Void>
        private var handshaken = false
        private var pending = 0

        init(answerBytes: Int, arrivals: AnswerArrivals, handshake: EventLoopPromise<Void>) {
            self.answerBytes = answerBytes
            self.arrivals = arrivals
            self.handshake = handshake
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted = event, !handshaken {
                handshaken = true
                handshake.succeed(())
            }
            context.fireUserInboundEventTriggered(event)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            pending += unwrapInboundIn(data).readableBytes
            while pending >= answerBytes {
                pending -= answerBytes
                arrivals.arrived(at: BenchClock.now())
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            end("\(error)")
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            end("the connection closed")
            context.fireChannelInactive()
        }

        private func end(_ reason: String) {
            if !handshaken {
                handshaken = true
                handshake.fail(BenchError(reason))
            }
            arrivals.failed(reason)
        }
    }
}
