import Foundation
import HandoffCore
import NIOCore
import Testing

@testable import HandoffNetwork

/// `handoff wire decode --key-log`: the session frames read from what tshark decrypted. The
/// frames here are made by the session encoder, and tshark's text by ``TsharkText`` in the
/// layout tshark 4.0 prints (checked against the real tool by `WireCaptureEndToEndTests`).
@Suite struct WireSessionTests {
    static let readingType = "com.example.reader.reading"
    static let continuation = UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!
    static let activity = UUID(uuidString: "6B1E8B7A-2C4D-4E5F-9A0B-1C2D3E4F5A6B")!

    static var payload: [UInt8] {
        Array(
            ActivityPayload(
                activityIdentifier: activity, activityType: readingType, title: "Moby-Dick",
                userInfo: ["page": .integer(3)], teamIdentifier: "TEAM123456", bundleIdentifier: "com.example.reader",
                supportsContinuationStreams: true, streamToken: Data(repeating: 7, count: 16)
            ).encoded())
    }

    static var lifecycle: LifecycleShare {
        LifecycleShare(entries: LifecycleShareFrameTests.sampleEntries(), dropped: 2)
    }

    /// One frame of every type, with the names docs/wire.md gives its fields.
    static var everyFrame: [(SessionFrame, [String])] {
        [
            (.hello(name: "Laptop", kind: .laptop), ["kind: 2 (laptop)", "name length: 6", "name: \"Laptop\""]),
            (
                .payloadRequest(
                    id: 42, continuation: continuation, activityTypeHash: ActivityTypeHash(activityType: readingType)),
                [
                    "request ID: 42", "continuation identifier: 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
                    "activity type hash",
                ]
            ),
            (
                .payloadResponse(id: 42, payload: payload),
                ["request ID: 42", "payload.activityType: \"\(readingType)\"", "payload.magic"]
            ),
            (
                .payloadError(id: 7, code: .remoteApplicationTimedOut, reason: "too slow"),
                ["error code: 4610 (NSUserActivityRemoteApplicationTimedOutError)", "reason: \"too slow\""]
            ),
            (
                .continued(activityIdentifier: activity, continuation: continuation),
                ["activity identifier: 6b1e8b7a-2c4d-4e5f-9a0b-1c2d3e4f5a6b", "continuation identifier"]
            ),
            (.streamOpen(token: Array(repeating: 7, count: 16)), ["stream token: 16 bytes"]),
            (.streamAccepted, ["type: 7 (streamAccepted)"]),
            (.streamRefused(reason: "used"), ["reason: \"used\""]),
            (.streamData(ByteBuffer(bytes: Array(0..<200))), ["stream bytes: 200 bytes"]),
            (.streamEnd, ["type: 10 (streamEnd)"]),
            (.streamFailed(reason: "gone"), ["reason: \"gone\""]),
            (.lifecycle(lifecycle), ["dropped: 2", "count: 3", "event #2 field count", "event #3 \"kind\""]),
        ]
    }

    static func encoded(_ frame: SessionFrame) throws -> [UInt8] {
        var out = ByteBuffer()
        try SessionFrameEncoder().encode(data: frame, out: &out)
        return Array(out.readableBytesView)
    }

    static func scan(_ bytes: [UInt8], chunk: Int = .max) -> [SessionFrameScanner.Item] {
        var scanner = SessionFrameScanner()
        var items: [SessionFrameScanner.Item] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + chunk)
            scanner.append(Array(bytes[start..<end]))
            while let item = scanner.next() { items.append(item) }
            start = end
        }
        return items
    }

    // MARK: Frames

    @Test func everyFrameTypeIsAnnotatedOverEveryByteWithTheDocumentsNames() throws {
        for (frame, names) in Self.everyFrame {
            let bytes = try Self.encoded(frame)
            let items = Self.scan(bytes)
            guard case .frame(0, let decoded, let annotated)? = items.first, items.count == 1 else {
                Issue.record("\(frame.typeName): \(items)")
                continue
            }
            #expect(decoded == frame)
            #expect(annotated.bytes == bytes)
            #expect(annotated.coversEveryByte, "\(frame.typeName): \(annotated.fields)")
            let text = WireTranscript.fieldLines(annotated).joined(separator: "\n")
            for name in ["length: \(bytes.count - 4) (bytes that follow)", "version: 2", "type: "] + names {
                #expect(text.contains(name), "\(frame.typeName): no \(name) in\n\(text)")
            }
        }
    }

    @Test func framesSplitAnywhereComeOutWholeWithTheirOffsets() throws {
        let frames = Self.everyFrame.map(\.0)
        let encoded = try frames.map(Self.encoded)
        let stream = encoded.flatMap { $0 }
        let offsets = encoded.reduce(into: [0]) { $0.append($0.last! + $1.count) }.dropLast()
        for chunk in [1, 3, 7, 100, 4096] {
            let items = Self.scan(stream, chunk: chunk)
            let read = items.compactMap { item -> (Int, SessionFrame)? in
                if case .frame(let offset, let frame, _) = item { return (offset, frame) }
                return nil
            }
            #expect(read.map(\.0) == Array(offsets), "chunk \(chunk)")
            #expect(read.map(\.1) == frames, "chunk \(chunk)")
        }
    }

    @Test func aRefusedBodyIsNamedByItsOffsetAndTheNextFrameIsStillRead() throws {
        let hello = try Self.encoded(.hello(name: "Phone", kind: .phone))
        var bad = try Self.encoded(.streamEnd)
        bad[5] = 99  // an unknown type
        let end = try Self.encoded(.streamEnd)
        let items = Self.scan(hello + bad + end)
        #expect(items.count == 3)
        #expect(items[1] == .refused(offset: hello.count, length: bad.count, SessionFrameError("unknown type 99")))
        guard case .frame(let offset, .streamEnd, _) = items[2] else {
            Issue.record("\(items[2])")
            return
        }
        #expect(offset == hello.count + bad.count)
    }

    @Test func aLengthTheDecoderRefusesStopsTheDirectionAndACutFrameIsLeftOver() throws {
        let hello = try Self.encoded(.hello(name: "Phone", kind: .phone))
        let items = Self.scan(hello + [0, 0, 0, 1, 2, 3, 4])
        #expect(
            items.last
                == .lost(
                    offset: hello.count, SessionFrameError("frame of 1 bytes is shorter than its header"), remaining: 7)
        )
        var scanner = SessionFrameScanner()
        scanner.append(hello + Array(hello.prefix(5)))
        _ = scanner.next()
        #expect(scanner.next() == nil)
        #expect(scanner.pendingCount == 5)
        #expect(scanner.offset == hello.count)
    }

    @Test func aHelloNameTheDecoderMadeVisibleIsStillAnnotated() throws {
        let bytes = try Self.encoded(.hello(name: "Pho\u{1}e", kind: .phone))
        let items = Self.scan(bytes)
        guard case .frame(_, _, let annotated)? = items.first else {
            // The decoder may refuse a control character outright: then it says so.
            #expect(items.first.map { if case .refused = $0 { true } else { false } } == true, "\(items)")
            return
        }
        #expect(annotated.coversEveryByte)
    }

    // MARK: tshark's output

    @Test func theStreamListSaysWhoOpenedEachConnectionAndWhetherItWasDecrypted() throws {
        let text = TsharkText.streamList([
            // A decrypted session: SYN from the client, the encrypted handshake read.
            .init(frame: 4, stream: 0, from: TsharkText.phone, to: TsharkText.laptop, flags: 0x002),
            .init(frame: 5, stream: 0, from: TsharkText.laptop, to: TsharkText.phone, flags: 0x012),
            .init(
                frame: 6, stream: 0, from: TsharkText.phone, to: TsharkText.laptop, flags: 0x018, records: 1, types: [1]
            ),
            .init(
                frame: 8, stream: 0, from: TsharkText.laptop, to: TsharkText.phone, flags: 0x018, records: 6,
                types: [2, 8, 11, 15, 20]),
            // No secrets: the hellos only.
            .init(
                frame: 9, stream: 1, from: TsharkText.tablet, to: TsharkText.laptop, flags: 0x018, records: 1,
                types: [1]),
            .init(
                frame: 10, stream: 1, from: TsharkText.laptop, to: TsharkText.tablet, flags: 0x018, records: 4,
                types: [2]),
            // Begun before the capture: application data only.
            .init(frame: 11, stream: 2, from: TsharkText.laptop, to: TsharkText.phone2, flags: 0x018, records: 1),
            // No TLS at all.
            .init(frame: 12, stream: 3, from: TsharkText.phone, to: TsharkText.web, flags: 0x002),
        ])
        let streams = try TsharkOutput.streams(fromList: text)
        #expect(streams.map(\.index) == [0, 1, 2, 3])
        #expect(streams.map(\.decryption) == [.decrypted, .noSecrets, .handshakeNotCaptured, .notTLS])
        #expect(streams[0].client == TsharkText.phone && streams[0].server == TsharkText.laptop)
        #expect(streams[0].clientIsKnown && !streams[1].clientIsKnown)
        #expect(streams[0].firstPacket == 4 && streams[0].lastPacket == 8 && streams[0].packets == 4)
    }

    @Test(arguments: [
        ("1\t0\t127.0.0.1", "3 columns"),
        ("x\t0\t127.0.0.1\t\t5\t127.0.0.1\t\t6\t0x002\t\t", "frame.number is \"x\""),
        ("1\t0\t127.0.0.1\t\t70000\t127.0.0.1\t\t6\t0x002\t\t", "tcp.srcport is \"70000\""),
        ("1\t0\tevil name\t\t5\t127.0.0.1\t\t6\t0x002\t\t", "not IP addresses"),
        ("1\t0\t127.0.0.1\t\t5\t127.0.0.1\t\t6\tSYN\t\t", "not TCP flags"),
        ("1\t0\t127.0.0.1\t\t5\t127.0.0.1\t\t6\t0x002\t\t1,x", "not a handshake type"),
    ])
    func aStreamListLineThatIsNotWhatWasAskedForIsRefusedWithItsLine(line: String, message: String) {
        let text = "1\t0\t127.0.0.1\t\t5\t127.0.0.1\t\t6\t0x002\t\t\n" + line + "\n"
        #expect {
            _ = try TsharkOutput.streams(fromList: text)
        } throws: { error in
            let error = error as? TsharkOutputError
            return error?.line == 2 && error?.description.contains(message) == true
        }
    }

    @Test func theProtocolsGuessingOnTLSAreTakenFromTsharksHeuristicList() {
        let text = "tcp\thttp\tT\ntls\trdpmt\tT\ntls\thttp2\tT\ntls\tevil name\tT\ntls\n\ntls\trdpmt\tF\ntls\t5gli\tT\n"
        #expect(TsharkOutput.protocolsGuessingOnTLS(text) == ["rdpmt", "http2", "5gli"])
        let arguments = TsharkOutput.followArguments(
            capture: "c", keyLog: "k", streams: [2], disabling: ["rdpmt", "fix"])
        #expect(
            arguments == [
                "-r", "c", "-n", "-q", "-o", "tls.keylog_file:k", "--disable-protocol", "rdpmt", "--disable-protocol",
                "fix",
                "-z", "follow,tls,raw,2",
            ])
    }

    @Test func theFollowOutputGivesEachDirectionsRecordsInCaptureOrder() throws {
        let hello = try Self.encoded(.hello(name: "Laptop", kind: .laptop))
        let request = try Self.encoded(
            .payloadRequest(
                id: 1, continuation: Self.continuation,
                activityTypeHash: ActivityTypeHash(activityType: Self.readingType)))
        let text = TsharkText.follow([
            (3, TsharkText.laptop, [(true, hello), (false, request)]),
            (0, nil, []),
        ])
        let streams = try TsharkOutput.followed(text)
        #expect(streams.map(\.index) == [3, 0])
        #expect(streams[0].firstNode == TsharkText.laptop && streams[0].secondNode == nil)
        #expect(
            streams[0].records == [
                .init(fromFirstNode: true, bytes: hello), .init(fromFirstNode: false, bytes: request),
            ])
        #expect(streams[1].records.isEmpty && streams[1].firstNode == nil)
    }

    @Test(arguments: [
        ("0001\n\t0a0", "not hex digits in pairs", 8),
        ("zz", "not hex digits in pairs", 7),
    ])
    func followDataThatIsNotHexIsRefusedWithItsLineAndConnection(data: String, message: String, line: Int) {
        let text = TsharkText.follow([(5, TsharkText.laptop, [])]).replacingOccurrences(
            of: "Node 1: :0\n", with: "Node 1: :0\n\(data)\n")
        #expect {
            _ = try TsharkOutput.followed(text)
        } throws: { error in
            let error = error as? TsharkOutputError
            return error?.line == line && error?.stream == 5 && error?.description.contains(message) == true
        }
    }

    @Test func aFollowOutputCutShortOrNamingNoConnectionIsRefused() {
        let text = TsharkText.follow([(5, TsharkText.laptop, [(true, [1, 2])])])
        let cut = String(text.dropLast(70))
        #expect(throws: TsharkOutputError.self) { try TsharkOutput.followed(cut) }
        let unnamed = text.replacingOccurrences(of: "Filter: tcp.stream eq 5", with: "Filter: ip.addr eq 1.2.3.4")
        #expect(throws: TsharkOutputError.self) { try TsharkOutput.followed(unnamed) }
        let twice = text + text
        #expect(throws: TsharkOutputError.self) { try TsharkOutput.followed(twice) }
        for length in 0...text.utf8.count {
            _ = try? TsharkOutput.followed(String(decoding: Array(text.utf8.prefix(length)), as: UTF8.self))
        }
    }

    // MARK: The transcript

    @Test func theTranscriptNamesEveryFrameItsDirectionAndOffsetAndSaysWhatWasNotDecrypted() throws {
        let clientFrames: [SessionFrame] = [
            .hello(name: "Phone", kind: .phone),
            .payloadRequest(
                id: 1, continuation: Self.continuation,
                activityTypeHash: ActivityTypeHash(activityType: Self.readingType)),
            .continued(activityIdentifier: Self.activity, continuation: Self.continuation),
        ]
        let serverFrames: [SessionFrame] = [
            .hello(name: "Laptop", kind: .laptop), .payloadResponse(id: 1, payload: Self.payload),
            .lifecycle(Self.lifecycle),
        ]
        let client = try clientFrames.map(Self.encoded)
        let server = try serverFrames.map(Self.encoded)
        var corrupt = try Self.encoded(.streamEnd)
        corrupt[4] = 9  // another version
        // tshark's first decrypted record is the server's hello; a response split over two records.
        let response = server[1]
        let records: [(Bool, [UInt8])] = [
            (true, server[0]), (false, client[0] + client[1]), (true, Array(response.prefix(10))),
            (true, Array(response.dropFirst(10)) + corrupt + server[2]), (false, client[2]),
        ]
        let streams = try TsharkOutput.streams(
            fromList: TsharkText.streamList([
                .init(frame: 1, stream: 0, from: TsharkText.phone, to: TsharkText.laptop, flags: 0x002),
                .init(
                    frame: 3, stream: 0, from: TsharkText.laptop, to: TsharkText.phone, flags: 0x018, records: 3,
                    types: [2, 8]),
                .init(
                    frame: 9, stream: 1, from: TsharkText.tablet, to: TsharkText.laptop, flags: 0x018, records: 1,
                    types: [1]),
                .init(
                    frame: 10, stream: 2, from: TsharkText.phone, to: TsharkText.web, flags: 0x018, records: 3,
                    types: [1]),
            ]))
        let followed = try TsharkOutput.followed(TsharkText.follow([(0, TsharkText.laptop, records)]))
        let laptop = PeerInfo(id: DeviceID(rawValue: "laptop-id"), name: "Laptop", kind: .laptop)
        let transcript = SessionTranscript(listeners: [.init(device: laptop, endpoint: TsharkText.laptop)])
        #expect(transcript.plan(streams).follow == [0])
        let (lines, counts) = transcript.lines(streams: streams, followed: followed)
        let text = lines.joined(separator: "\n")
        #expect(counts.sessions == 1 && counts.frames == 6 && counts.refused == 1)
        #expect(counts.notDecrypted == 1 && counts.notFollowed == 1)
        #expect(text.contains("tcp.stream 0, packets #1–#3: \"Phone\" 127.0.0.1:40001 → \"Laptop\" 127.0.0.1:35000"))
        let expected = [
            "\"Laptop\" → \"Phone\", offset 0: hello",
            "\"Phone\" → \"Laptop\", offset 0: hello",
            "\"Phone\" → \"Laptop\", offset \(client[0].count): payloadRequest",
            "\"Laptop\" → \"Phone\", offset \(server[0].count): payloadResponse",
            "payload.activityType: \"\(Self.readingType)\"",
            "tcp.stream 0, \"Laptop\" → \"Phone\", offset \(server[0].count + response.count): bad session frame: unsupported version 9",
            "\"Laptop\" → \"Phone\", offset \(server[0].count + response.count + corrupt.count): lifecycle",
            "\"Phone\" → \"Laptop\", offset \(client[0].count + client[1].count): continued",
            "tcp.stream 1 (127.0.0.1:40003 → 127.0.0.1:35000, packets #9–#9): the key log holds no secrets for it",
            "tcp.stream 2 (127.0.0.1:40001 → 127.0.0.1:17843, packets #10–#10): not to a session port",
        ]
        var last = text.startIndex
        for line in expected {
            guard let found = text.range(of: line, range: last..<text.endIndex) else {
                Issue.record("no \(line) (in this order) in\n\(text)")
                continue
            }
            last = found.upperBound
        }
    }

    @Test func aLostDirectionAndAFrameCutByTheCaptureEndAreNamedAndTheOtherDirectionIsRead() throws {
        let phone = try Self.encoded(.hello(name: "Phone", kind: .phone))
        let laptop = try Self.encoded(.hello(name: "Laptop", kind: .laptop))
        let end = try Self.encoded(.streamEnd)
        let streams = try TsharkOutput.streams(
            fromList: TsharkText.streamList([
                .init(frame: 1, stream: 4, from: TsharkText.phone, to: TsharkText.laptop, flags: 0x002),
                .init(frame: 2, stream: 4, from: TsharkText.laptop, to: TsharkText.phone, flags: 0x018, types: [2, 8]),
                .init(frame: 3, stream: 5, from: TsharkText.phone2, to: TsharkText.laptop, flags: 0x018, records: 2),
            ]))
        // The client's second frame announces 9 MiB; the server's last frame lacks its last byte.
        let records: [(Bool, [UInt8])] = [
            (false, phone + [0x00, 0x90, 0x00, 0x00, 2, 9]), (true, laptop), (false, end),
            (true, Array(end.dropLast())),
        ]
        let followed = try TsharkOutput.followed(TsharkText.follow([(4, TsharkText.laptop, records)]))
        let (lines, counts) = SessionTranscript(listeners: []).lines(streams: streams, followed: followed)
        let text = lines.joined(separator: "\n")
        #expect(counts.frames == 2 && counts.refused == 1 && counts.notDecrypted == 1)
        let expected = [
            "tcp.stream 4, \"Phone\" → \"Laptop\", offset \(phone.count): bad session frame: frame of 9437184 bytes exceeds the 8388608-byte limit; the rest of this direction is not read",
            "tcp.stream 4, \"Laptop\" → \"Phone\", offset \(laptop.count): 5 bytes at the end are not a whole frame",
            "\"Phone\" → \"Laptop\": 1 frame, \(phone.count + 6 + end.count) bytes; \"Laptop\" → \"Phone\": 1 frame, \(laptop.count + 5) bytes",
            "tcp.stream 5 (127.0.0.1:40002 → 127.0.0.1:35000, packets #3–#3): its TLS handshake is not in the capture",
        ]
        for line in expected { #expect(text.contains(line), "no \(line) in\n\(text)") }
    }

    @Test func aConnectionWhoseFirstEndIsNeitherOfItsEndsIsNotRead() throws {
        let streams = try TsharkOutput.streams(
            fromList: TsharkText.streamList([
                .init(frame: 1, stream: 0, from: TsharkText.phone, to: TsharkText.laptop, flags: 0x018, types: [1, 8])
            ]))
        let followed = [
            FollowedStream(index: 0, firstNode: TsharkText.web, records: [.init(fromFirstNode: true, bytes: [0])])
        ]
        let (lines, counts) = SessionTranscript(listeners: []).lines(streams: streams, followed: followed)
        #expect(counts.sessions == 0)
        #expect(
            lines == [
                "tcp.stream 0 (127.0.0.1:40001 → 127.0.0.1:35000): tshark's follow names 127.0.0.1:17843 as its first end, which is neither; not read"
            ])
    }
}

/// tshark's text, laid out as tshark 4.0 prints it, around bytes made by the encoders.
enum TsharkText {
    static let laptop = TCPEndpoint(address: "127.0.0.1", port: 35_000)
    static let phone = TCPEndpoint(address: "127.0.0.1", port: 40_001)
    static let phone2 = TCPEndpoint(address: "127.0.0.1", port: 40_002)
    static let tablet = TCPEndpoint(address: "127.0.0.1", port: 40_003)
    static let web = TCPEndpoint(address: "127.0.0.1", port: 17_843)

    struct Packet {
        var frame: Int
        var stream: Int
        var from: TCPEndpoint
        var to: TCPEndpoint
        var flags: Int
        var records = 0
        var types: [UInt8] = []
    }

    /// The stream list's fields (``TsharkOutput/streamListFields``), tab-separated.
    static func streamList(_ packets: [Packet]) -> String {
        packets.map { packet in
            [
                "\(packet.frame)", "\(packet.stream)", packet.from.address, "", "\(packet.from.port)",
                packet.to.address, "",
                "\(packet.to.port)", String(format: "0x%04x", packet.flags),
                Array(repeating: "0x0303", count: packet.records).joined(separator: ","),
                packet.types.map(String.init).joined(separator: ","),
            ].joined(separator: "\t")
        }.joined(separator: "\n") + "\n"
    }

    /// `-z follow,tls,raw,N` blocks: node 0's records as hex lines, the other end's indented.
    static func follow(_ streams: [(Int, TCPEndpoint?, [(Bool, [UInt8])])]) -> String {
        let rule = String(repeating: "=", count: 67)
        var text = "\n"
        for (index, first, records) in streams {
            text += "\(rule)\nFollow: tls,raw\nFilter: tcp.stream eq \(index)\n"
            text += "Node 0: \(first.map(\.description) ?? ":0")\nNode 1: :0\n"
            for (fromFirst, bytes) in records {
                text += (fromFirst ? "" : "\t") + bytes.map { String(format: "%02x", $0) }.joined() + "\n"
            }
            text += "\(rule)\n\n"
        }
        return text
    }
}
