import Foundation
import Synchronization

/// The bytes arriving from the other end of a continuation stream.
///
/// An async sequence of chunks. Iteration ends when the peer closes its output cleanly and throws
/// when the connection fails (after the chunks that arrived before the failure). Reading is
/// backpressured: the sender's `write` waits while more than ``ChunkQueue/highWatermark`` bytes
/// wait for this reader, until it has taken all but ``ChunkQueue/lowWatermark`` of them.
public struct ContinuationInputStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    package let queue: ChunkQueue

    public struct AsyncIterator: AsyncIteratorProtocol {
        let queue: ChunkQueue
        public mutating func next() async throws -> [UInt8]? { try await queue.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: queue) }

    /// Stops the stream from this (reading) side: pending and later writes of the other side end
    /// at once instead of waiting for a reader that will never come.
    public func cancel() {
        queue.cancel()
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

    /// Bytes written and not yet read (at most ``ChunkQueue/highWatermark`` plus one chunk).
    package var bufferedBytes: Int { queue.bufferedBytes }

    /// Writers waiting for this reader to catch up.
    package var waitingWriters: Int { queue.waitingWriters }
}

/// The chunks between the writer of a continuation stream and its reader: a bounded queue.
///
/// A write is queued at once; the writer then waits only while more than ``highWatermark`` bytes
/// are queued, until the reader has brought them down to ``lowWatermark``. So a fast writer and
/// its reader each run for many chunks at a time (a rendezvous per chunk would switch tasks, and
/// threads, on every chunk), and a slow reader holds the writer back with at most
/// `highWatermark` bytes plus one chunk queued.
///
/// Apps write and read with `async` calls. A network connection's event loop, which must never
/// wait, uses the synchronous calls instead and is called back: ``enqueue(_:)`` says whether to
/// stop reading the socket and ``whenCaughtUp(_:)`` when to read again; ``takeAll(orWhenReadable:)``
/// hands over what is queued, or says it will call back when something is.
package final class ChunkQueue: Sendable {
    package static let highWatermark = 1 << 20
    package static let lowWatermark = 256 << 10

    /// A writer held back: a task, or a callback of a writer that cannot wait.
    private enum Writer {
        case task(id: Int, continuation: CheckedContinuation<Void, Never>)
        case callback(@Sendable () -> Void)

        var id: Int? {
            if case .task(let id, _) = self { id } else { nil }
        }

        func resume() {
            switch self {
            case .task(_, let continuation): continuation.resume()
            case .callback(let action): action()
            }
        }
    }

    /// What ``takeAll(orWhenReadable:)`` found.
    package enum Taken {
        /// Every chunk that was queued, in order.
        case chunks([[UInt8]])
        /// Nothing yet: the callback runs once a chunk arrives or the stream ends.
        case empty
        /// The writer closed the stream cleanly after the chunks taken before.
        case finished
        /// The writer closed the stream with an error (reported once; later calls say finished).
        case failed(any Error)
    }

    private enum End {
        case finished
        case failed(any Error)
    }

    private struct State {
        var chunks: [[UInt8]] = []
        /// Index of the first chunk not yet read in `chunks`.
        var head = 0
        var bytes = 0
        var end: End?
        var readers: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// A reader that cannot wait, called once when a chunk arrives or the stream ends.
        var readerCallback: (@Sendable () -> Void)?
        var writers: [Writer] = []
        var nextID = 0

        var isEmpty: Bool { head == chunks.count }

        mutating func takeFirst() -> [UInt8] {
            let chunk = chunks[head]
            chunks[head] = []
            head += 1
            bytes -= chunk.count
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
            return chunk
        }

        /// The writers to resume once the reader has caught up enough.
        mutating func releasedWriters() -> [Writer] {
            guard bytes <= ChunkQueue.lowWatermark || end != nil, !writers.isEmpty else { return [] }
            defer { writers.removeAll() }
            return writers
        }

        mutating func releasedReaders() -> [@Sendable () -> Void] {
            var released = readers.map { reader in { @Sendable in reader.continuation.resume() } }
            readers.removeAll()
            if let callback = readerCallback {
                released.append(callback)
                readerCallback = nil
            }
            return released
        }

        /// Queues `chunk` unless the stream has ended; whether the writer should now wait.
        mutating func append(_ chunk: [UInt8]) -> Bool {
            guard end == nil else { return false }
            chunks.append(chunk)
            bytes += chunk.count
            return bytes > ChunkQueue.highWatermark
        }
    }

    private let state = Mutex(State())

    package init() {}

    var bufferedBytes: Int { state.withLock { $0.bytes } }
    /// Writers held back now: tasks waiting in ``write(_:)`` and callbacks of ``whenCaughtUp(_:)``.
    var waitingWriters: Int { state.withLock { $0.writers.count } }

    /// Queues a chunk (dropped if the stream has ended or its reader cancelled), then waits while
    /// the reader is too far behind.
    func write(_ chunk: [UInt8]) async {
        guard enqueue(chunk) else { return }
        await wait(asWriter: true)
    }

    /// Queues a chunk without waiting (dropped if the stream has ended or its reader cancelled);
    /// true if the reader is now too far behind, so the writer should hold back until
    /// ``whenCaughtUp(_:)`` calls it.
    package func enqueue(_ chunk: [UInt8]) -> Bool {
        let (readers, mustWait) = state.withLock { state in
            let mustWait = state.append(chunk)
            return (state.releasedReaders(), mustWait)
        }
        readers.forEach { $0() }
        return mustWait
    }

    /// Queues a chunk as ``enqueue(_:)`` does but leaves a waiting reader asleep until
    /// ``wakeReaders()``: a connection that reads several frames in one go wakes the app once for
    /// all of them, not once a frame (each wake-up is a switch to another thread).
    package func enqueueWithoutWaking(_ chunk: [UInt8]) -> Bool {
        state.withLock { $0.append(chunk) }
    }

    /// Wakes the readers waiting for what ``enqueueWithoutWaking(_:)`` queued.
    package func wakeReaders() {
        let readers = state.withLock { state -> [@Sendable () -> Void] in
            state.isEmpty && state.end == nil ? [] : state.releasedReaders()
        }
        readers.forEach { $0() }
    }

    /// Calls `action` once the reader has brought the queue down to ``lowWatermark`` or the stream
    /// has ended (at once if that is so now), on whichever thread did it.
    package func whenCaughtUp(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.bytes <= Self.lowWatermark || state.end != nil { return true }
            state.writers.append(.callback(action))
            return false
        }
        if now { action() }
    }

    /// Every queued chunk, or the end; or, if nothing is queued yet, `empty`, and `action` is
    /// called once a chunk arrives or the stream ends (on the writer's thread). Only the latest
    /// such callback is kept.
    package func takeAll(orWhenReadable action: @escaping @Sendable () -> Void) -> Taken {
        let (taken, writers) = state.withLock { state -> (Taken, [Writer]) in
            if !state.isEmpty {
                var batch: [[UInt8]] = []
                batch.reserveCapacity(state.chunks.count - state.head)
                while !state.isEmpty { batch.append(state.takeFirst()) }
                return (.chunks(batch), state.releasedWriters())
            }
            switch state.end {
            case .finished?: return (.finished, [])
            case .failed(let error)?:
                state.end = .finished
                return (.failed(error), [])
            case nil:
                state.readerCallback = action
                return (.empty, [])
            }
        }
        writers.forEach { $0.resume() }
        return taken
    }

    /// The next chunk; nil at a clean end (or when the reading task is cancelled).
    func next() async throws -> [UInt8]? {
        while true {
            enum Outcome { case chunk([UInt8]), finished, failed(any Error), wait }
            let (outcome, writers) = state.withLock { state -> (Outcome, [Writer]) in
                if !state.isEmpty {
                    let chunk = state.takeFirst()
                    return (.chunk(chunk), state.releasedWriters())
                }
                switch state.end {
                case .finished?: return (.finished, [])
                case .failed(let error)?:
                    // The error is thrown once; the iteration then ends as a finished one would.
                    state.end = .finished
                    return (.failed(error), [])
                case nil: return (.wait, [])
                }
            }
            writers.forEach { $0.resume() }
            switch outcome {
            case .chunk(let chunk): return chunk
            case .finished: return nil
            case .failed(let error): throw error
            case .wait:
                if Task.isCancelled { return nil }
                await wait(asWriter: false)
                if Task.isCancelled { return nil }
            }
        }
    }

    /// Ends the stream: the reader gets what is queued, then the end (or `error`).
    package func finish(error: (any Error)?) {
        let (readers, writers) = state.withLock { state -> ([@Sendable () -> Void], [Writer]) in
            guard state.end == nil else { return ([], []) }
            state.end = error.map { .failed($0) } ?? .finished
            return (state.releasedReaders(), state.releasedWriters())
        }
        readers.forEach { $0() }
        writers.forEach { $0.resume() }
    }

    /// The reader gives up: what is queued is dropped, and writers return at once from now on.
    package func cancel() {
        let (readers, writers) = state.withLock { state -> ([@Sendable () -> Void], [Writer]) in
            state.chunks.removeAll()
            state.head = 0
            state.bytes = 0
            if state.end == nil { state.end = .finished }
            return (state.releasedReaders(), state.releasedWriters())
        }
        readers.forEach { $0() }
        writers.forEach { $0.resume() }
    }

    /// Waits until woken: a writer until the reader caught up or the stream ended, a reader until
    /// a chunk arrived or the stream ended. A cancelled task stops waiting.
    private func wait(asWriter: Bool) async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if Task.isCancelled || state.end != nil { return true }
                    if asWriter {
                        if state.bytes <= Self.lowWatermark { return true }
                        state.writers.append(.task(id: id, continuation: continuation))
                    } else {
                        if !state.isEmpty { return true }
                        state.readers.append((id, continuation))
                    }
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state -> (@Sendable () -> Void)? in
                if let index = state.writers.firstIndex(where: { $0.id == id }) {
                    let writer = state.writers.remove(at: index)
                    return { writer.resume() }
                }
                if let index = state.readers.firstIndex(where: { $0.id == id }) {
                    let continuation = state.readers.remove(at: index).continuation
                    return { continuation.resume() }
                }
                return nil
            }
            waiting?()
        }
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
    /// The queue this stream writes into, if it writes straight into one (not through a throttled
    /// or other sink): a network connection then feeds it from its event loop without waiting.
    package var queue: ChunkQueue? { (sink as? ContinuationStreams.ChannelSink)?.queue }
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
        package let queue: ChunkQueue
        public func write(_ bytes: [UInt8]) async throws { await queue.write(bytes) }
        public func finish(error: (any Error)?) async { queue.finish(error: error) }
    }

    /// Makes an input stream together with the sink that feeds it.
    public static func makeInput() -> (ContinuationInputStream, ChannelSink) {
        let queue = ChunkQueue()
        return (ContinuationInputStream(queue: queue), ChannelSink(queue: queue))
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
