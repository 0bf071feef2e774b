import Synchronization
import Testing

@testable import HandoffCore

/// The bounded queue between the writer of a continuation stream and its reader.
@Suite("Continuation stream queue")
struct ChunkQueueTests {
    /// Yields until `condition` holds, for at most `deadline` (a deadline, not a measurement).
    func eventually(_ deadline: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let end = clock.now + deadline
        while !condition() {
            guard clock.now < end else { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    @Test func aSlowReaderHoldsTheWriterBackWithBoundedMemory() async throws {
        let (input, sink) = ContinuationStreams.makeInput()
        let chunk = 64 << 10
        let total = 64
        let written = Counter()
        let writer = Task {
            for index in 0..<total {
                try await sink.write([UInt8](repeating: UInt8(index), count: chunk))
                written.add()
            }
            await sink.finish(error: nil)
        }
        // Nobody reads: the writer stops once the queue is past its high watermark.
        #expect(await eventually { input.waitingWriters == 1 })
        #expect(input.bufferedBytes <= ChunkQueue.highWatermark + chunk)
        #expect(written.value * chunk <= ChunkQueue.highWatermark + chunk)
        #expect(written.value < total)
        // Reading lets it go on; every byte arrives, in order.
        var received: [UInt8] = []
        for try await part in input {
            received += part
            #expect(input.bufferedBytes <= ChunkQueue.highWatermark + chunk)
        }
        try await writer.value
        #expect(received.count == total * chunk)
        #expect(
            (0..<total).allSatisfy {
                received[$0 * chunk] == UInt8($0) && received[$0 * chunk + chunk - 1] == UInt8($0)
            })
    }

    @Test func aFailureArrivesAfterTheChunksWrittenBeforeIt() async throws {
        let (input, sink) = ContinuationStreams.makeInput()
        try await sink.write([1, 2])
        try await sink.write([3])
        await sink.finish(error: ContinuationStreamError.closed)
        var iterator = input.makeAsyncIterator()
        #expect(try await iterator.next() == [1, 2])
        #expect(try await iterator.next() == [3])
        await #expect(throws: ContinuationStreamError.closed) { _ = try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test func aBatchTakesEverythingQueuedInOrder() async throws {
        let (input, sink) = ContinuationStreams.makeInput()
        for byte in UInt8(0)..<5 { try await sink.write([byte]) }
        guard case .chunks(let batch) = input.queue.takeAll(orWhenReadable: {}) else {
            Issue.record("the queued chunks were not handed over")
            return
        }
        #expect(batch == [[0], [1], [2], [3], [4]])
        await sink.finish(error: nil)
        guard case .finished = input.queue.takeAll(orWhenReadable: {}) else {
            Issue.record("a finished stream should read as finished")
            return
        }
    }

    @Test func cancellingTheInputReleasesAWaitingWriterAndDropsLaterWrites() async throws {
        let (input, sink) = ContinuationStreams.makeInput()
        let writer = Task {
            try await sink.write([UInt8](repeating: 0, count: ChunkQueue.highWatermark + 1))
        }
        #expect(await eventually { input.waitingWriters == 1 })
        input.cancel()
        try await writer.value
        try await sink.write([1, 2, 3])
        #expect(input.bufferedBytes == 0)
        #expect(try await input.readAll() == [])
    }

    @Test func aCancelledReaderStopsWaiting() async throws {
        let (input, _) = ContinuationStreams.makeInput()
        let reader = Task { try await input.readAll() }
        reader.cancel()
        #expect(try await reader.value == [])
    }

    /// The calls of a writer that cannot wait (a connection's event loop): told to hold back past
    /// the high watermark, and called back once the reader is down to the low one.
    @Test func aWriterThatCannotWaitIsToldToHoldBackAndCalledBack() async throws {
        let queue = ChunkQueue()
        let input = ContinuationInputStream(queue: queue)
        let chunk = [UInt8](repeating: 1, count: 64 << 10)
        var chunks = 0
        while !queue.enqueue(chunk) { chunks += 1 }
        chunks += 1
        #expect(chunks * chunk.count > ChunkQueue.highWatermark)
        let called = Counter()
        queue.whenCaughtUp { called.add() }
        #expect(called.value == 0 && input.waitingWriters == 1)
        var iterator = input.makeAsyncIterator()
        while queue.bufferedBytes > ChunkQueue.lowWatermark {
            #expect(called.value == 0)
            _ = try await iterator.next()
        }
        #expect(called.value == 1 && input.waitingWriters == 0)
        // Already caught up: called at once.
        queue.whenCaughtUp { called.add() }
        #expect(called.value == 2)
    }

    /// A connection queues every frame of one read from its socket, then wakes the reader once.
    @Test func chunksQueuedWithoutWakingWakeTheReaderOnlyWhenAsked() async throws {
        let queue = ChunkQueue()
        let woken = Counter()
        guard case .empty = queue.takeAll(orWhenReadable: { woken.add() }) else {
            Issue.record("an empty queue handed something over")
            return
        }
        #expect(!queue.enqueueWithoutWaking([1]))
        #expect(!queue.enqueueWithoutWaking([2, 3]))
        #expect(woken.value == 0)
        queue.wakeReaders()
        #expect(woken.value == 1)
        guard case .chunks(let chunks) = queue.takeAll(orWhenReadable: { woken.add() }) else {
            Issue.record("the queued chunks were not handed over")
            return
        }
        #expect(chunks == [[1], [2, 3]])
        // Nothing queued since: a waiting reader stays asleep.
        _ = queue.takeAll(orWhenReadable: { woken.add() })
        queue.wakeReaders()
        #expect(woken.value == 1)
        // Past the high watermark the writer is told to hold back, as by `enqueue`.
        var mustWait = false
        while !mustWait { mustWait = queue.enqueueWithoutWaking([UInt8](repeating: 0, count: 64 << 10)) }
        #expect(woken.value == 1)
        queue.wakeReaders()
        #expect(woken.value == 2)
    }

    /// The calls of a reader that cannot wait: everything queued at once, or a callback when
    /// something is; then the end, an error told once.
    @Test func aReaderThatCannotWaitTakesAllOrIsCalledBack() async throws {
        let queue = ChunkQueue()
        let sink = ContinuationStreams.ChannelSink(queue: queue)
        let called = Counter()
        guard case .empty = queue.takeAll(orWhenReadable: { called.add() }) else {
            Issue.record("an empty queue handed something over")
            return
        }
        try await sink.write([1])
        #expect(called.value == 1)
        try await sink.write([2, 3])
        #expect(called.value == 1)  // called once per empty take
        guard case .chunks(let chunks) = queue.takeAll(orWhenReadable: { called.add() }) else {
            Issue.record("the queued chunks were not handed over")
            return
        }
        #expect(chunks == [[1], [2, 3]])
        _ = queue.takeAll(orWhenReadable: { called.add() })
        await sink.finish(error: ContinuationStreamError.closed)
        #expect(called.value == 2)  // the end wakes the reader too
        guard case .failed(let error) = queue.takeAll(orWhenReadable: {}) else {
            Issue.record("the error was not handed over")
            return
        }
        #expect(error as? ContinuationStreamError == .closed)
        guard case .finished = queue.takeAll(orWhenReadable: {}) else {
            Issue.record("after its error the stream should read as finished")
            return
        }
    }
}

/// A count shared with a task.
private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}
