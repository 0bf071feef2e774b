import Foundation
import HandoffCore
import HandoffTestSupport
import NIOCore
import NIOEmbedded
import Testing

@testable import HandoffNetwork

@Suite("Session frames")
struct SessionFrameTests {
    static let samples: [SessionFrame] = [
        .hello(name: "Laptop ☕️ 漢字", kind: .laptop),
        .hello(name: "", kind: .phone),
        .payloadRequest(
            id: 42, continuation: UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!,
            activityTypeHash: ActivityTypeHash(activityType: "com.example.reader.reading")),
        .payloadResponse(id: .max, payload: Array(repeating: 7, count: 3000)),
        .payloadResponse(id: 0, payload: []),
        .payloadError(id: 9, code: .userInfoTooLarge, reason: "the payload is 9999 bytes"),
        .continued(
            activityIdentifier: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
            continuation: UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!),
        .streamOpen(token: Array(0..<16)),
        .streamAccepted,
        .streamRefused(reason: "unknown token"),
        .streamData(ByteBuffer(bytes: Array(0..<200))),
        .streamEnd,
        .streamFailed(reason: "reset"),
    ]

    func makeChannel(maximum: Int = 8 << 20) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(SessionFrameDecoder(maximumFrameLength: maximum)))
        try channel.pipeline.syncOperations.addHandler(MessageToByteHandler(SessionFrameEncoder()))
        return channel
    }

    func encode(_ frame: SessionFrame) throws -> ByteBuffer {
        var buffer = ByteBuffer()
        try SessionFrameEncoder().encode(data: frame, out: &buffer)
        return buffer
    }

    @Test("every frame round-trips", arguments: samples)
    func roundTrip(frame: SessionFrame) throws {
        let channel = try makeChannel()
        try channel.writeInbound(try encode(frame))
        #expect(try channel.readInbound(as: SessionFrame.self) == frame)
        #expect(try channel.readInbound(as: SessionFrame.self) == nil)
    }

    @Test func framesDecodeWhenFedOneByteAtATime() throws {
        let channel = try makeChannel()
        var all = ByteBuffer()
        for frame in Self.samples {
            var encoded = try encode(frame)
            all.writeBuffer(&encoded)
        }
        var decoded: [SessionFrame] = []
        while let byte = all.readSlice(length: 1) {
            try channel.writeInbound(byte)
            while let frame = try channel.readInbound(as: SessionFrame.self) { decoded.append(frame) }
        }
        #expect(decoded == Self.samples)
    }

    @Test func theEncoderWritesFramesOutbound() throws {
        let channel = try makeChannel()
        try channel.writeOutbound(SessionFrame.streamEnd)
        let bytes = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(Array(bytes.readableBytesView) == [0, 0, 0, 2, HandoffNetwork.protocolVersion, 10])
    }

    func expectRejected(
        _ bytes: [UInt8], maximum: Int = 8 << 20, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let channel = try makeChannel(maximum: maximum)
        #expect(throws: (any Error).self, sourceLocation: sourceLocation) {
            try channel.writeInbound(ByteBuffer(bytes: bytes))
        }
    }

    @Test func hostileFramesAreRejectedWithTypedErrors() throws {
        try expectRejected([0, 0, 0, 1, 1])  // shorter than its header
        try expectRejected([0xFF, 0xFF, 0xFF, 0xFF, 1, 1], maximum: 1024)  // over the limit
        try expectRejected([0, 0, 0, 2, 9, 1])  // wrong version
        try expectRejected([0, 0, 0, 2, 1, 99])  // unknown type
        try expectRejected([0, 0, 0, 4, 1, 1, 7, 3])  // hello: unknown kind
        try expectRejected([0, 0, 0, 5, 1, 1, 0, 9, 65])  // hello: name longer than the frame
        try expectRejected([0, 0, 0, 6, 1, 1, 0, 2, 65, 27])  // hello: ESC in the name
        try expectRejected([0, 0, 0, 7, 1, 1, 0, 3, 65, 0xC2, 0x9B])  // hello: C1 CSI in the name
        try expectRejected([0, 0, 0, 6, 1, 2, 0, 0, 0, 1])  // truncated request
        try expectRejected([0, 0, 0, 12, 1, 4, 0, 0, 0, 0, 0, 0, 0, 1, 0x12, 0x34])  // unknown error code
        try expectRejected([0, 0, 0, 2, 1, 6])  // empty stream token
        try expectRejected([0, 0, 0, 3, 1, 7, 0])  // trailing bytes after "accepted"
        let description = "\(SessionFrameError("frame of 9 bytes exceeds the 8-byte limit"))"
        #expect(description.contains("exceeds"))
    }

    /// A name with an invisible character is kept, shown as its code point.
    @Test func aLookAlikeNameIsShownSoItCanBeToldApart() throws {
        let channel = try makeChannel()
        try channel.writeInbound(try encode(.hello(name: "Pho\u{200B}ne", kind: .phone)))
        #expect(try channel.readInbound(as: SessionFrame.self) == .hello(name: "Pho\\u{200b}ne", kind: .phone))
    }

    @Test func randomBytesNeverCrashTheDecoder() throws {
        var random = SplitMix64(seed: 42)
        for _ in 0..<3000 {
            let channel = try makeChannel(maximum: 4096)
            let count = Int(random.next() % 64)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if count > 4, random.next() % 2 == 0 {
                // A plausible length prefix so that bodies get decoded too.
                bytes[0] = 0
                bytes[1] = 0
                bytes[2] = 0
                bytes[3] = UInt8(count - 4)
                bytes[4] = HandoffNetwork.protocolVersion
            }
            _ = try? channel.writeInbound(ByteBuffer(bytes: bytes))
            while (try? channel.readInbound(as: SessionFrame.self)) != nil {}
            _ = try? channel.finish()
        }
    }

    @Test func namesAreTruncatedAtCharacterBoundaries() {
        let long = String(repeating: "☕️", count: 200)
        let cut = SessionFrameEncoder.truncated(long, maximumBytes: 255)
        #expect(cut.utf8.count <= 255)
        #expect(long.hasPrefix(cut))
    }
}
