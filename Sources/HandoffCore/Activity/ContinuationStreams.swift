import AsyncAlgorithms
import Foundation

/// The bytes arriving from the other end of a continuation stream.
///
/// An async sequence of chunks. Iteration ends when the peer closes its output cleanly and throws
/// when the connection fails. Reading is backpressured: the sender's `write` waits until the
/// receiver has taken earlier chunks.
public struct ContinuationInputStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    let channel: AsyncThrowingChannel<[UInt8], any Error>

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingChannel<[UInt8], any Error>.AsyncIterator
        public mutating func next() async throws -> [UInt8]? { try await base.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: channel.makeAsyncIterator()) }

    /// Stops the stream from this (reading) side: pending and later writes of the other side end
    /// at once instead of waiting for a reader that will never come.
    public func cancel() {
        channel.finish()
    }

    /// Reads every remaining chunk until the peer closes, refusing more than `limit` bytes.
    public func readAll(limit: Int = 64 << 20) async throws -> [UInt8] {
        var result: [UInt8] = []
        for try await chunk in self {
            guard result.count + chunk.count <= limit else { throw ContinuationStreamError.tooLarge(limit: limit) }
            result += chunk
        }
        return result
    }
}

/// Where a ``ContinuationOutputStream`` delivers its bytes (the network layer provides one per connection).
public protocol ContinuationStreamSink: Sendable {
    /// Sends one chunk; returns when the transport can take more (backpressure).
    func write(_ bytes: [UInt8]) async throws
    /// Closes the sending direction cleanly, or with an error.
    func finish(error: (any Error)?) async
}

/// The sending end of a continuation stream.
public struct ContinuationOutputStream: Sendable {
    let sink: any ContinuationStreamSink

    public init(sink: any ContinuationStreamSink) { self.sink = sink }

    /// Sends bytes; waits while the receiver is behind.
    public func write(_ bytes: [UInt8]) async throws { try await sink.write(bytes) }
    /// Closes the stream cleanly: the other side's iteration ends.
    public func close() async { await sink.finish(error: nil) }
    /// Closes the stream with an error: the other side's iteration throws it.
    public func close(with error: any Error) async { await sink.finish(error: error) }
}

extension ContinuationOutputStream {
    /// This stream on a slow link (the lab's slow-link fault): each write waits the link's
    /// latency, then leaves in slices at its bandwidth, so a reader sees the bytes trickle in.
    public func throttled(by link: SlowLink) -> ContinuationOutputStream {
        ContinuationOutputStream(sink: ThrottledSink(base: sink, link: link))
    }
}

/// A sink that holds each write back as a slow link would.
struct ThrottledSink: ContinuationStreamSink {
    let base: any ContinuationStreamSink
    let link: SlowLink

    func write(_ bytes: [UInt8]) async throws {
        try await Task.sleep(nanoseconds: UInt64(link.latency * 1e9))
        // Slices of about a tenth of a second each.
        let slice = max(link.bytesPerSecond / 10, 1)
        var start = 0
        while start < bytes.count {
            let end = min(start + slice, bytes.count)
            try await Task.sleep(nanoseconds: UInt64(Double(end - start) / Double(link.bytesPerSecond) * 1e9))
            try await base.write(Array(bytes[start..<end]))
            start = end
        }
    }

    func finish(error: (any Error)?) async { await base.finish(error: error) }
}

/// Errors of continuation streams.
public enum ContinuationStreamError: Error, Sendable, Hashable, CustomStringConvertible {
    case notSupported
    case unavailable(String)
    case refused(String)
    case tooLarge(limit: Int)
    case closed

    public var description: String {
        switch self {
        case .notSupported: "the activity does not support continuation streams"
        case .unavailable(let why): "continuation streams are unavailable: \(why)"
        case .refused(let why): "the origin refused the continuation streams: \(why)"
        case .tooLarge(let limit): "the stream carried more than \(limit) bytes"
        case .closed: "the stream is closed"
        }
    }
}

/// A pair of continuation streams: what this side reads and what it writes.
public struct ContinuationStreams: Sendable {
    public let input: ContinuationInputStream
    public let output: ContinuationOutputStream

    public init(input: ContinuationInputStream, output: ContinuationOutputStream) {
        self.input = input
        self.output = output
    }

    /// A sink that feeds an in-process channel (used by in-memory pipes and by network bridges).
    public struct ChannelSink: ContinuationStreamSink {
        let channel: AsyncThrowingChannel<[UInt8], any Error>
        public func write(_ bytes: [UInt8]) async throws { await channel.send(bytes) }
        public func finish(error: (any Error)?) async {
            if let error { channel.fail(error) } else { channel.finish() }
        }
    }

    /// Makes an input stream together with the sink that feeds it.
    public static func makeInput() -> (ContinuationInputStream, ChannelSink) {
        let channel = AsyncThrowingChannel<[UInt8], any Error>()
        return (ContinuationInputStream(channel: channel), ChannelSink(channel: channel))
    }

    /// Two connected ends in memory: what one writes, the other reads.
    public static func makePipe() -> (ContinuationStreams, ContinuationStreams) {
        let (aIn, toA) = makeInput()
        let (bIn, toB) = makeInput()
        return (
            ContinuationStreams(input: aIn, output: ContinuationOutputStream(sink: toB)),
            ContinuationStreams(input: bIn, output: ContinuationOutputStream(sink: toA))
        )
    }
}
