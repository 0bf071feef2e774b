import Foundation
import HandoffCore
import NIOCore

/// The framing of continuation streams on the wire: ``StreamChannelHandler`` packs what an app
/// writes into data frames of ``frameLength`` bytes (header included: whole TLS records).
package enum StreamBridge {
    /// The chunk size apps are expected to write (the bench writes chunks of it).
    package static let chunkSize = 64 * 1024

    /// The size of a data frame on the wire, its 6-byte header included: four full 16 KiB TLS
    /// records, so no record carries only a header or a frame's last few bytes.
    static let frameLength = 64 * 1024
    static let headerLength = 6
    static var frameBodyLength: Int { frameLength - headerLength }

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

/// The buffers a stream's sending side packs its frames into, used again once the channel has
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
