import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import HandoffNetwork

/// How ``StreamBridge`` packs what an app wrote into data frames, and how the writer sends them.
@Suite("Stream frame packing")
struct StreamPackingTests {
    /// Chunks of awkward sizes: tiny ones, one larger than a frame, one of exactly a frame's body.
    static let chunks: [[UInt8]] = [
        [1, 2, 3],
        (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) },
        Array(repeating: 7, count: StreamBridge.frameBodyLength),
        [],
        (0..<5000).map { UInt8(truncatingIfNeeded: $0) },
    ]

    func bodies(_ frames: [SessionFrame]) -> [[UInt8]] {
        frames.map { frame in
            guard case .streamData(let buffer) = frame else {
                Issue.record("not a data frame: \(frame)")
                return []
            }
            return Array(buffer.readableBytesView)
        }
    }

    @Test func chunksAreJoinedAndSplitIntoWholeFramesInOrder() {
        var pool = FrameBufferPool()
        let frames = StreamBridge.frames(packing: Self.chunks, pool: &pool)
        let bodies = bodies(frames)
        #expect(bodies.flatMap { $0 } == Self.chunks.flatMap { $0 })
        #expect(bodies.dropLast().allSatisfy { $0.count == StreamBridge.frameBodyLength })
        #expect((1...StreamBridge.frameBodyLength).contains(bodies.last?.count ?? 0))
        #expect(StreamBridge.frames(packing: [[], []], pool: &pool).isEmpty)
    }

    @Test func eachFrameLeavesAsOneBufferOfAWholeNumberOfRecordsAndDecodesBack() throws {
        var pool = FrameBufferPool()
        let frames = StreamBridge.frames(packing: Self.chunks, pool: &pool)
        let sender = EmbeddedChannel()
        try sender.pipeline.syncOperations.addHandler(SessionFrameWriter())
        let receiver = EmbeddedChannel()
        try receiver.pipeline.syncOperations.addHandler(
            SessionFrameReader(maximumFrameLength: 8 << 20, budget: SessionReadBudget(total: 64 << 20)))
        for frame in frames {
            try sender.writeOutbound(frame)
            let buffer = try #require(try sender.readOutbound(as: ByteBuffer.self))
            #expect(try sender.readOutbound(as: ByteBuffer.self) == nil)
            if frame != frames.last { #expect(buffer.readableBytes == StreamBridge.frameLength) }
            try receiver.writeInbound(buffer)
        }
        var received: [SessionFrame] = []
        while let frame = try receiver.readInbound(as: SessionFrame.self) { received.append(frame) }
        #expect(bodies(received) == bodies(frames))
    }

    @Test func aBufferIsUsedAgainOnlyOnceNoOneElseHoldsIt() {
        var pool = FrameBufferPool()
        let chunk = [UInt8](repeating: 1, count: StreamBridge.frameBodyLength)
        let held = StreamBridge.frames(packing: [chunk], pool: &pool)
        // Still held (by the channel, say): the next frame gets a buffer of its own, and the held
        // frame's bytes are untouched.
        let next = StreamBridge.frames(
            packing: [[UInt8](repeating: 2, count: StreamBridge.frameBodyLength)], pool: &pool)
        #expect(bodies(held) == [chunk])
        #expect(bodies(next).first?.allSatisfy { $0 == 2 } == true)
    }

    @Test func aDataFrameWithoutItsHeaderInFrontStillLeavesWithASeparateHeader() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(SessionFrameWriter())
        var buffer = ByteBuffer(bytes: [UInt8](repeating: 0, count: 6) + [UInt8](repeating: 5, count: 4096))
        buffer.moveReaderIndex(forwardBy: 6)  // six zero bytes in front: not this frame's header
        try channel.writeOutbound(SessionFrame.streamData(buffer))
        var bytes: [UInt8] = []
        var writes = 0
        while let out = try channel.readOutbound(as: ByteBuffer.self) {
            bytes += out.readableBytesView
            writes += 1
        }
        #expect(writes == 2)
        var expected = ByteBuffer()
        try SessionFrameEncoder().encode(
            data: .streamData(ByteBuffer(bytes: [UInt8](repeating: 5, count: 4096))), out: &expected)
        #expect(bytes == Array(expected.readableBytesView))
    }
}
