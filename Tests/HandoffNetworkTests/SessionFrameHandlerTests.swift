import Foundation
import HandoffCore
import NIOCore
import NIOEmbedded
import Testing

@testable import HandoffNetwork

/// The reader and writer that session pipelines use: the same bytes as ``SessionFrameEncoder``
/// on the wire, the same frames and refusals as ``SessionFrameDecoder``.
@Suite("Session frame reader and writer")
struct SessionFrameHandlerTests {
    static let samples: [SessionFrame] =
        SessionFrameTests.samples + [
            .streamData(ByteBuffer(bytes: (0..<(64 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7) })),
            .streamData(ByteBuffer(bytes: Array(repeating: 1, count: SessionFrameWriter.separateHeaderThreshold))),
            .payloadResponse(id: 3, payload: Array(repeating: 9, count: 100_000)),
        ]

    func makeChannel(maximum: Int = 8 << 20) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            SessionFrameReader(maximumFrameLength: maximum, budget: SessionReadBudget(total: 64 << 20)))
        try channel.pipeline.syncOperations.addHandler(SessionFrameWriter())
        return channel
    }

    /// Everything the writer put out for `frame`, concatenated.
    func written(_ frame: SessionFrame) throws -> [UInt8] {
        let channel = try makeChannel()
        try channel.writeOutbound(frame)
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
        return bytes
    }

    func encoded(_ frame: SessionFrame) throws -> [UInt8] {
        var buffer = ByteBuffer()
        try SessionFrameEncoder().encode(data: frame, out: &buffer)
        return Array(buffer.readableBytesView)
    }

    @Test("the writer puts the encoder's bytes on the wire", arguments: samples)
    func writerMatchesTheEncoder(frame: SessionFrame) throws {
        #expect(try written(frame) == encoded(frame))
    }

    @Test("every frame round-trips through the reader", arguments: samples)
    func roundTrip(frame: SessionFrame) throws {
        let channel = try makeChannel()
        try channel.writeInbound(ByteBuffer(bytes: try encoded(frame)))
        #expect(try channel.readInbound(as: SessionFrame.self) == frame)
        #expect(try channel.readInbound(as: SessionFrame.self) == nil)
    }

    @Test func framesSplitAnywhereAndBatchedTogetherDecodeInOrder() throws {
        for split in [1, 3, 7, 1000, 16_384, Int.max] {
            // Byte by byte only through the small frames (hundreds of thousands of reads otherwise).
            let frames = split < 1000 ? SessionFrameTests.samples : Self.samples
            var all: [UInt8] = []
            for frame in frames { all += try encoded(frame) }
            let channel = try makeChannel()
            var start = 0
            while start < all.count {
                let end = min(start + split, all.count)
                try channel.writeInbound(ByteBuffer(bytes: all[start..<end]))
                start = end
            }
            var decoded: [SessionFrame] = []
            while let frame = try channel.readInbound(as: SessionFrame.self) { decoded.append(frame) }
            #expect(decoded == frames, "split every \(split) bytes")
        }
    }

    @Test func aFrameOverTheLimitIsRefusedFromItsLengthAlone() throws {
        let channel = try makeChannel(maximum: 1024)
        // Only the length prefix: no body byte is needed to refuse it.
        #expect(throws: SessionFrameError.self) { try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0x04, 0x01])) }
        #expect(!channel.isActive)
    }

    @Test func aMalformedFrameClosesTheConnectionAndLaterBytesAreIgnored() throws {
        let channel = try makeChannel()
        var bytes: [UInt8] = [0, 0, 0, 2, HandoffNetwork.protocolVersion, 0xEE]  // unknown type
        bytes += try encoded(.streamEnd)
        #expect(throws: SessionFrameError.self) { try channel.writeInbound(ByteBuffer(bytes: bytes)) }
        #expect(!channel.isActive)
        #expect(try channel.readInbound(as: SessionFrame.self) == nil)
    }

    @Test func aLengthShorterThanTheHeaderIsRefused() throws {
        let channel = try makeChannel()
        #expect(throws: SessionFrameError.self) { try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0, 1, 1])) }
        #expect(!channel.isActive)
    }
}

/// Stream data frames are held near the size senders use (64 KiB), whatever the frame limit.
@Suite("Stream data frame limit")
struct StreamDataLimitTests {
    func frame(kind: SessionFrame.Kind, dataLength: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        let length = UInt32(dataLength + 2)
        bytes += withUnsafeBytes(of: length.bigEndian, Array.init)
        bytes += [HandoffNetwork.protocolVersion, kind.rawValue]
        return bytes + Array(repeating: 0x5A, count: dataLength)
    }

    @Test func aStreamDataFrameOverSixtyFourKiBIsRefusedFromItsHeader() throws {
        let budget = SessionReadBudget(total: 64 << 20)
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(SessionFrameReader(maximumFrameLength: 8 << 20, budget: budget))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        // Only the header and a few bytes of an announced 8 MiB stream frame arrive.
        let header = Array(frame(kind: .streamData, dataLength: (8 << 20) - 2).prefix(64))
        #expect(throws: SessionFrameError.self) { try channel.writeInbound(ByteBuffer(bytes: header)) }
        #expect(!channel.isActive)
        #expect(budget.inUse == 0)
    }

    @Test func theLargestFrameASenderPacksAndSixtyFourKiBOfDataAreAccepted() throws {
        for dataLength in [StreamBridge.frameBodyLength, 64 * 1024] {
            let channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandler(
                SessionFrameReader(maximumFrameLength: 8 << 20, budget: SessionReadBudget(total: 64 << 20)))
            try channel.writeInbound(ByteBuffer(bytes: frame(kind: .streamData, dataLength: dataLength)))
            guard case .streamData(let data) = try channel.readInbound(as: SessionFrame.self) else {
                Issue.record("no stream frame of \(dataLength) bytes")
                continue
            }
            #expect(data.readableBytes == dataLength)
        }
    }

    @Test func theDecoderRefusesWhatTheReaderRefuses() throws {
        var body = ByteBuffer(bytes: frame(kind: .streamData, dataLength: 64 * 1024 + 1).dropFirst(4))
        #expect(throws: SessionFrameError.self) { try SessionFrameDecoder.decodeBody(&body) }
        // A payload answer may still be large.
        var answer = ByteBuffer()
        try SessionFrameEncoder().encode(
            data: .payloadResponse(id: 1, payload: Array(repeating: 7, count: 1 << 20)), out: &answer)
        answer.moveReaderIndex(forwardBy: 4)
        #expect(
            try SessionFrameDecoder.decodeBody(&answer)
                == .payloadResponse(id: 1, payload: Array(repeating: 7, count: 1 << 20)))
    }
}
