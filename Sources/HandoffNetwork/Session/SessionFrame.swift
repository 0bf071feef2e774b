import Foundation
import HandoffCore
import NIOCore

/// One message of a session between two devices, after the TLS handshake.
///
/// On the wire (see docs/wire.md, "Sessions"): a 4-byte big-endian length of what follows, then a
/// version byte, a type byte and the body. Decoding treats its input as hostile: the length is
/// bounded, every body is checked for size, and anything malformed is a typed error.
package enum SessionFrame: Sendable, Hashable {
    /// Who this side is (the device ID itself is proven by the TLS certificate, not by this frame).
    case hello(name: String, kind: PeerInfo.Kind)
    /// `continuation` is minted by the continuing device; the origin stamps its events with it.
    case payloadRequest(id: UInt64, continuation: UUID, activityTypeHash: ActivityTypeHash)
    case payloadResponse(id: UInt64, payload: [UInt8])
    case payloadError(id: UInt64, code: HandoffError.Code, reason: String)
    case continued(activityIdentifier: UUID, continuation: UUID)
    case streamOpen(token: [UInt8])
    case streamAccepted
    case streamRefused(reason: String)
    case streamData(ByteBuffer)
    case streamEnd
    case streamFailed(reason: String)
    /// Lifecycle events a device shares with a peer of its account (LifecycleSharing.swift).
    case lifecycle(LifecycleShare)

    enum Kind: UInt8 {
        case hello = 1, payloadRequest, payloadResponse, payloadError, continued
        case streamOpen, streamAccepted, streamRefused, streamData, streamEnd, streamFailed
        case lifecycle
    }
}

/// A session frame that could not be decoded.
package struct SessionFrameError: Error, Sendable, Hashable, CustomStringConvertible {
    package var message: String
    package var description: String { "bad session frame: \(message)" }
    init(_ message: String) { self.message = message }
}

extension SessionFrame {
    /// The longest `streamData` frame accepted (its length: version, type and at most 64 KiB of
    /// data): senders pack frames of 64 KiB with their header (``StreamBridge/frameLength``), and
    /// frames queue per stream before TCP pushes back, so a stream's frames are held to that size
    /// rather than the 8 MiB a payload answer may need (six streams of 8 MiB frames once took an
    /// origin to 907 MB).
    static let maximumStreamDataLength = 64 * 1024 + 2
}

extension SessionFrameError {
    static func streamDataTooLong(_ length: Int) -> SessionFrameError {
        SessionFrameError(
            "stream data frame of \(length) bytes exceeds the \(SessionFrame.maximumStreamDataLength)-byte limit of stream frames"
        )
    }
}

/// Decodes length-prefixed session frames, refusing frames longer than `maximumFrameLength`.
package struct SessionFrameDecoder: ByteToMessageDecoder {
    package typealias InboundOut = SessionFrame
    package let maximumFrameLength: Int

    package init(maximumFrameLength: Int = 8 << 20) {
        self.maximumFrameLength = maximumFrameLength
    }

    package mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return .needMoreData }
        try Self.check(length: length, maximumFrameLength: maximumFrameLength)
        guard buffer.readableBytes >= 4 + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 4)
        guard var body = buffer.readSlice(length: Int(length)) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(try Self.decodeBody(&body)))
        return .continue
    }

    package mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }

    /// Checks a frame's length prefix before any of its body is read: at least the version and
    /// type, at most `maximumFrameLength`.
    package static func check(length: UInt32, maximumFrameLength: Int) throws(SessionFrameError) {
        guard length >= 2 else { throw SessionFrameError("frame of \(length) bytes is shorter than its header") }
        guard Int(length) <= maximumFrameLength else {
            throw SessionFrameError("frame of \(length) bytes exceeds the \(maximumFrameLength)-byte limit")
        }
    }

    /// Decodes one frame body (version, type and the rest).
    package static func decodeBody(_ body: inout ByteBuffer) throws -> SessionFrame {
        guard let version = body.readInteger(as: UInt8.self), let rawKind = body.readInteger(as: UInt8.self) else {
            throw SessionFrameError("missing version or type")
        }
        guard version == HandoffNetwork.protocolVersion else {
            throw SessionFrameError(
                "unsupported version \(version) (this device speaks \(HandoffNetwork.protocolVersion))")
        }
        guard let kind = SessionFrame.Kind(rawValue: rawKind) else {
            throw SessionFrameError("unknown type \(rawKind)")
        }
        if kind == .streamData, body.readableBytes + 2 > SessionFrame.maximumStreamDataLength {
            throw SessionFrameError.streamDataTooLong(body.readableBytes + 2)
        }
        // Strict: `ByteBuffer.readString` would repair invalid UTF-8 with U+FFFD instead of refusing it.
        func utf8(_ count: Int, _ what: String) throws -> String {
            guard let bytes = body.readBytes(length: count) else { throw SessionFrameError("truncated \(what)") }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw SessionFrameError("\(what) is not UTF-8")
            }
            return text
        }
        func string(_ what: String, limit: Int) throws -> String {
            guard body.readableBytes <= limit else { throw SessionFrameError("\(what) longer than \(limit) bytes") }
            return try utf8(body.readableBytes, what)
        }
        func end() throws {
            guard body.readableBytes == 0 else {
                throw SessionFrameError("\(body.readableBytes) trailing bytes in a \(kind) frame")
            }
        }
        switch kind {
        case .hello:
            guard let kindByte = body.readInteger(as: UInt8.self), let nameLength = body.readInteger(as: UInt8.self)
            else { throw SessionFrameError("truncated hello") }
            let name = try utf8(Int(nameLength), "hello name")
            if let problem = TerminalText.problem(withName: name) { throw SessionFrameError("hello name \(problem)") }
            let kinds = PeerInfo.Kind.allCases
            guard Int(kindByte) < kinds.count else { throw SessionFrameError("unknown device kind \(kindByte)") }
            try end()
            // An invisible character stays, shown as its code point, so a look-alike name can be
            // told apart; cut as the encoder cuts, so that what was accepted encodes as it is.
            return .hello(
                name: SessionFrameEncoder.truncated(TerminalText.sanitized(name), maximumBytes: 255),
                kind: kinds[Int(kindByte)])
        case .payloadRequest:
            guard let id = body.readInteger(as: UInt64.self), let continuation = body.readBytes(length: 16),
                let hash = body.readBytes(length: 7)
            else {
                throw SessionFrameError("truncated payload request")
            }
            try end()
            return .payloadRequest(
                id: id, continuation: Self.uuid(continuation), activityTypeHash: ActivityTypeHash(bytes: hash))
        case .payloadResponse:
            guard let id = body.readInteger(as: UInt64.self) else {
                throw SessionFrameError("truncated payload response")
            }
            return .payloadResponse(id: id, payload: body.readBytes(length: body.readableBytes) ?? [])
        case .payloadError:
            guard let id = body.readInteger(as: UInt64.self), let rawCode = body.readInteger(as: UInt16.self) else {
                throw SessionFrameError("truncated payload error")
            }
            guard let code = HandoffError.Code(rawValue: Int(rawCode)) else {
                throw SessionFrameError("unknown error code \(rawCode)")
            }
            return .payloadError(id: id, code: code, reason: try string("error reason", limit: 1024))
        case .continued:
            guard let activity = body.readBytes(length: 16), let continuation = body.readBytes(length: 16) else {
                throw SessionFrameError("truncated continued")
            }
            try end()
            return .continued(activityIdentifier: Self.uuid(activity), continuation: Self.uuid(continuation))
        case .streamOpen:
            guard (1...64).contains(body.readableBytes), let token = body.readBytes(length: body.readableBytes) else {
                throw SessionFrameError("stream token must be 1 to 64 bytes")
            }
            return .streamOpen(token: token)
        case .streamAccepted:
            try end()
            return .streamAccepted
        case .streamRefused:
            return .streamRefused(reason: try string("refusal reason", limit: 1024))
        case .streamData:
            return .streamData(body.readSlice(length: body.readableBytes) ?? ByteBuffer())
        case .streamEnd:
            try end()
            return .streamEnd
        case .streamFailed:
            return .streamFailed(reason: try string("failure reason", limit: 1024))
        case .lifecycle:
            return .lifecycle(try LifecycleShare(decoding: &body))
        }
    }
}

extension SessionFrameDecoder {
    /// Sixteen bytes as a UUID (the caller read exactly sixteen).
    static func uuid(_ bytes: [UInt8]) -> UUID {
        bytes.withUnsafeBytes { raw in UUID(uuid: raw.loadUnaligned(as: uuid_t.self)) }
    }
}

/// Encodes session frames with their length prefix.
package struct SessionFrameEncoder: MessageToByteEncoder {
    package typealias OutboundIn = SessionFrame

    package init() {}

    package func encode(data frame: SessionFrame, out: inout ByteBuffer) throws {
        var fields: [ByteField]?
        Self.encode(frame, into: &out, annotating: &fields)
    }

    /// Writes `frame` with its length prefix; with `fields` non-nil, also every field written, at
    /// offsets from the frame's first byte and named as docs/wire.md names them (`handoff wire
    /// decode`: the notes come from this encoder, not from a copy of the layout).
    static func encode(_ frame: SessionFrame, into out: inout ByteBuffer, annotating fields: inout [ByteField]?) {
        let start = out.writerIndex
        var mark = start
        func note(_ name: @autoclosure () -> String, _ value: @autoclosure () -> String) {
            guard fields != nil, mark < out.writerIndex else { return }
            fields?.append(ByteField(range: mark - start..<out.writerIndex - start, name: name(), value: value()))
            mark = out.writerIndex
        }
        func writeKind(_ kind: SessionFrame.Kind) {
            out.writeInteger(kind.rawValue)
            note("type", "\(kind.rawValue) (\(kind))")
        }
        out.writeInteger(UInt32(0))
        mark = out.writerIndex
        out.writeInteger(HandoffNetwork.protocolVersion)
        note("version", "\(HandoffNetwork.protocolVersion)")
        switch frame {
        case .hello(let name, let kind):
            writeKind(.hello)
            let code = UInt8(PeerInfo.Kind.allCases.firstIndex(of: kind) ?? 0)
            out.writeInteger(code)
            note("kind", "\(code) (\(kind.rawValue))")
            let bytes = Array(Self.truncated(name, maximumBytes: 255).utf8)
            out.writeInteger(UInt8(bytes.count))
            note("name length", "\(bytes.count)")
            out.writeBytes(bytes)
            note("name", Self.quoted(bytes))
        case .payloadRequest(let id, let continuation, let hash):
            writeKind(.payloadRequest)
            out.writeInteger(id)
            note("request ID", "\(id)")
            _ = withUnsafeBytes(of: continuation.uuid) { out.writeBytes($0) }
            note("continuation identifier", continuation.uuidString.lowercased())
            out.writeBytes(hash.bytes.count == 7 ? hash.bytes : Array(repeating: 0, count: 7))
            note("activity type hash", "\(hash) (as in beacons)")
        case .payloadResponse(let id, let payload):
            writeKind(.payloadResponse)
            out.writeInteger(id)
            note("request ID", "\(id)")
            let payloadStart = out.writerIndex - start
            out.writeBytes(payload)
            if fields != nil { Self.notePayload(payload, at: payloadStart, into: &fields) }
            mark = out.writerIndex
        case .payloadError(let id, let code, let reason):
            writeKind(.payloadError)
            out.writeInteger(id)
            note("request ID", "\(id)")
            out.writeInteger(UInt16(code.rawValue))
            note("error code", "\(code.rawValue) (\(code.constantName))")
            let text = Self.truncated(reason, maximumBytes: 1024)
            out.writeString(text)
            note("reason", Self.quoted(text))
        case .continued(let uuid, let continuation):
            writeKind(.continued)
            _ = withUnsafeBytes(of: uuid.uuid) { out.writeBytes($0) }
            note("activity identifier", uuid.uuidString.lowercased())
            _ = withUnsafeBytes(of: continuation.uuid) { out.writeBytes($0) }
            note("continuation identifier", continuation.uuidString.lowercased())
        case .streamOpen(let token):
            writeKind(.streamOpen)
            out.writeBytes(token)
            note("stream token", "\(token.count) bytes (one-time, from the payload)")
        case .streamAccepted:
            writeKind(.streamAccepted)
        case .streamRefused(let reason):
            writeKind(.streamRefused)
            let text = Self.truncated(reason, maximumBytes: 1024)
            out.writeString(text)
            note("reason", Self.quoted(text))
        case .streamData(let data):
            writeKind(.streamData)
            var copy = data
            out.writeBuffer(&copy)
            note("stream bytes", "\(data.readableBytes) bytes")
        case .streamEnd:
            writeKind(.streamEnd)
        case .streamFailed(let reason):
            writeKind(.streamFailed)
            let text = Self.truncated(reason, maximumBytes: 1024)
            out.writeString(text)
            note("reason", Self.quoted(text))
        case .lifecycle(let share):
            writeKind(.lifecycle)
            share.encode(into: &out, annotating: &fields, origin: start)
            mark = out.writerIndex
        }
        let length = out.writerIndex - start - 4
        out.setInteger(UInt32(length), at: start)
        fields?.insert(ByteField(range: 0..<4, name: "length", value: "\(length) (bytes that follow)"), at: 0)
    }

    /// The fields of a `payloadResponse`'s payload at `offset`, named `payload.` and the payload's
    /// own field names (docs/payload.md), one level in; a single `payload` field when it is not
    /// a payload this codec writes.
    private static func notePayload(_ payload: [UInt8], at offset: Int, into fields: inout [ByteField]?) {
        guard !payload.isEmpty else { return }
        let annotated: AnnotatedBytes?
        do {
            annotated = try ActivityPayload.annotated(Data(payload))
        } catch {
            fields?.append(
                ByteField(
                    range: offset..<offset + payload.count, name: "payload",
                    value: "\(payload.count) bytes, not a payload: \(error)"))
            return
        }
        guard let annotated, annotated.coversEveryByte else {
            fields?.append(
                ByteField(
                    range: offset..<offset + payload.count, name: "payload",
                    value: "\(payload.count) bytes: a payload, not in the order this codec writes it"))
            return
        }
        for field in annotated.fields {
            fields?.append(
                ByteField(
                    range: field.range.lowerBound + offset..<field.range.upperBound + offset,
                    name: "payload." + field.name, value: field.value, depth: field.depth + 1))
        }
    }

    /// Text as the annotations show it: quoted, with control and invisible characters made visible.
    static func quoted(_ text: String) -> String { "\"" + TerminalText.sanitized(text) + "\"" }

    static func quoted(_ bytes: [UInt8]) -> String { quoted(String(decoding: bytes, as: UTF8.self)) }

    /// `text` cut at a character boundary so that its UTF-8 form fits in `maximumBytes`.
    static func truncated(_ text: String, maximumBytes: Int) -> String {
        guard text.utf8.count > maximumBytes else { return text }
        var result = ""
        var count = 0
        for character in text {
            let size = character.utf8.count
            if count + size > maximumBytes { break }
            result.append(character)
            count += size
        }
        return result
    }
}
