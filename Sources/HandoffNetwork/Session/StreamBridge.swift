import Foundation
import HandoffCore
import NIOCore

/// Carries continuation-stream bytes between a session connection and an app's
/// ``ContinuationStreams``, in both directions, with backpressure.
///
/// Socket to app: each data frame's bytes are written into `toApp`, which waits only while the
/// app is more than a bounded amount behind; the next frames are read only then. App to socket:
/// every chunk the app has written so far is taken at once, packed into frames of
/// ``frameLength`` bytes (header included: whole TLS records) and handed to the channel in one
/// write, with one flush, waiting for the channel to accept them. A clean end or a failure on
/// either side ends the other side: if the connection drops, the app's reads throw, so nothing
/// hangs.
package enum StreamBridge {
    /// The chunk size apps are expected to write (the bench writes chunks of it).
    package static let chunkSize = 64 * 1024

    /// The size of a data frame on the wire, its 6-byte header included: four full 16 KiB TLS
    /// records, so no record carries only a header or a frame's last few bytes.
    static let frameLength = 64 * 1024
    static let headerLength = 6
    static var frameBodyLength: Int { frameLength - headerLength }

    static func run(
        inbound: NIOAsyncChannelInboundStream<SessionFrame>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<SessionFrame>,
        toApp: ContinuationOutputStream,
        fromApp: ContinuationInputStream
    ) async {
        let reader = UncheckedIterator(inbound)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var iterator = reader.take()
                do {
                    while let frame = try await iterator.next() {
                        switch frame {
                        case .streamData(let buffer):
                            try await toApp.write(Array(buffer.readableBytesView))
                        case .streamEnd:
                            await toApp.close()
                            return
                        case .streamFailed(let reason):
                            await toApp.close(
                                with: ContinuationStreamError.unavailable("the peer failed the stream: \(reason)"))
                            return
                        default:
                            await toApp.close(with: ContinuationStreamError.unavailable("unexpected frame in a stream"))
                            return
                        }
                    }
                    await toApp.close(
                        with: ContinuationStreamError.unavailable("the connection closed before the stream ended"))
                } catch {
                    await toApp.close(
                        with: ContinuationStreamError.unavailable(
                            "the connection failed: \(NetworkErrorWords.describe(error))"))
                }
            }
            group.addTask {
                var pool = FrameBufferPool()
                do {
                    while let batch = try await fromApp.nextBatch() {
                        try await outbound.write(contentsOf: frames(packing: batch, pool: &pool))
                    }
                    try await outbound.write(.streamEnd)
                } catch {
                    try? await outbound.write(.streamFailed(reason: NetworkErrorWords.describe(error)))
                    fromApp.cancel()
                }
            }
        }
    }

    /// The data frames carrying `chunks`, in order: each full frame carries ``frameBodyLength``
    /// bytes (chunks are joined and split as needed), the last one what remains. Each frame's
    /// buffer holds its own header just before its readable bytes, so ``SessionFrameWriter``
    /// sends header and body as one buffer without copying either.
    static func frames(packing chunks: [[UInt8]], pool: inout FrameBufferPool) -> [SessionFrame] {
        var remaining = chunks.reduce(0) { $0 + $1.count }
        var frames: [SessionFrame] = []
        frames.reserveCapacity(remaining / frameBodyLength + 1)
        var chunkIndex = 0
        var offset = 0
        while remaining > 0 {
            let length = min(remaining, frameBodyLength)
            let buffer = pool.buffer(capacity: headerLength + length) { buffer in
                buffer.writeInteger(UInt32(length + 2))
                buffer.writeInteger(HandoffNetwork.protocolVersion)
                buffer.writeInteger(SessionFrame.Kind.streamData.rawValue)
                buffer.moveReaderIndex(forwardBy: headerLength)
                var needed = length
                while needed > 0 {
                    let chunk = chunks[chunkIndex]
                    let take = min(needed, chunk.count - offset)
                    buffer.writeBytes(chunk[offset..<(offset + take)])
                    needed -= take
                    offset += take
                    if offset == chunk.count {
                        chunkIndex += 1
                        offset = 0
                    }
                }
            }
            remaining -= length
            frames.append(.streamData(buffer))
        }
        return frames
    }
}

/// The buffers a stream's sending task packs its frames into, used again once the channel has
/// written them (when the pool holds the only reference), instead of a fresh 64 KiB buffer per
/// frame: fresh buffers cost page faults and zeroing, as much as copying the bytes into them.
struct FrameBufferPool {
    /// At most this many buffers are kept (4 MiB of 64 KiB frames: the queue's high watermark
    /// of 1 MiB, a batch in the channel and what the kernel's socket buffer holds).
    static let capacity = 64
    private var buffers: [ByteBuffer] = []
    private var next = 0

    /// A buffer of at least `capacity` bytes filled by `fill`: a pooled one no one else holds any
    /// more (filled in place, so never copied), or a new one (kept while the pool has room).
    mutating func buffer(capacity: Int, _ fill: (inout ByteBuffer) -> Void) -> ByteBuffer {
        for _ in 0..<buffers.count {
            let index = next
            next = (next + 1) % buffers.count
            let filled = buffers[index].modifyIfUniquelyOwned { buffer -> Bool in
                guard buffer.capacity >= capacity else { return false }
                buffer.clear()
                fill(&buffer)
                return true
            }
            if filled == true { return buffers[index] }
        }
        var fresh = ByteBuffer()
        fresh.reserveCapacity(capacity)
        fill(&fresh)
        if buffers.count < Self.capacity, capacity == StreamBridge.frameLength { buffers.append(fresh) }
        return fresh
    }
}

/// Moves a non-Sendable iterator into exactly one child task.
final class UncheckedIterator<Iterator>: @unchecked Sendable {
    private var iterator: Iterator?
    init(_ iterator: Iterator) { self.iterator = iterator }
    func take() -> Iterator {
        defer { iterator = nil }
        return iterator!
    }
}
