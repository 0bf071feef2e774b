import Foundation
import HandoffCore
import NIOCore

/// The frames of one direction of a recorded session (`handoff wire decode --key-log`): a byte
/// stream, as tshark decrypted it, read frame by frame with the session's own checks
/// (``SessionFrameDecoder/check(length:maximumFrameLength:)`` and
/// ``SessionFrameDecoder/decodeBody(_:)``), each frame with its offset in the stream and its
/// fields as the encoder writes them.
///
/// The bytes are hostile: a body the decoder refuses is reported with its offset and skipped (its
/// length prefix says where the next frame starts); a length prefix the decoder refuses leaves
/// no way to find the next frame, so the scan of this direction stops there.
package struct SessionFrameScanner: Sendable {
    package enum Item: Sendable, Hashable {
        /// A frame the decoder accepted; `annotated` holds its bytes, length prefix included.
        case frame(offset: Int, SessionFrame, annotated: AnnotatedBytes)
        /// A frame of `length` bytes (prefix included) whose body the decoder refused; the scan
        /// goes on after it.
        case refused(offset: Int, length: Int, SessionFrameError)
        /// A length prefix the decoder refuses: the scan of this direction stops, and `remaining`
        /// bytes from `offset` on are not read.
        case lost(offset: Int, SessionFrameError, remaining: Int)
    }

    package let maximumFrameLength: Int
    private var buffer = ByteBuffer()
    /// The stream offset of the buffer's first readable byte.
    package private(set) var offset = 0
    /// Whether a length prefix was refused (nothing more is read).
    package private(set) var isLost = false

    package init(maximumFrameLength: Int = NetworkOptions().maximumFrameLength) {
        self.maximumFrameLength = maximumFrameLength
    }

    /// Bytes received after the last whole frame: a frame the capture cut short, when the stream
    /// has ended.
    package var pendingCount: Int { buffer.readableBytes }

    /// Adds the stream's next bytes.
    package mutating func append(_ bytes: [UInt8]) {
        if isLost {
            offset += bytes.count
            return
        }
        if buffer.readerIndex > 1 << 20 { buffer.discardReadBytes() }
        buffer.writeBytes(bytes)
    }

    /// The next frame, or nil until more bytes are appended.
    package mutating func next() -> Item? {
        guard !isLost, let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return nil }
        do {
            try SessionFrameDecoder.check(length: length, maximumFrameLength: maximumFrameLength)
        } catch {
            isLost = true
            let remaining = buffer.readableBytes
            let at = offset
            offset += remaining
            buffer.clear()
            return .lost(offset: at, error, remaining: remaining)
        }
        let size = 4 + Int(length)
        guard buffer.readableBytes >= size, let bytes = buffer.getBytes(at: buffer.readerIndex, length: size) else {
            return nil
        }
        let at = offset
        buffer.moveReaderIndex(forwardBy: 4)
        var body = buffer.readSlice(length: Int(length))!
        offset += size
        do {
            let frame = try SessionFrameDecoder.decodeBody(&body)
            return .frame(offset: at, frame, annotated: SessionFrame.annotated(frame, bytes: bytes))
        } catch let error as SessionFrameError {
            return .refused(offset: at, length: size, error)
        } catch {
            return .refused(offset: at, length: size, SessionFrameError("\(error)"))
        }
    }
}

extension SessionFrame {
    /// The name docs/wire.md gives this frame's type (`payloadRequest`, `streamData`…).
    package var typeName: String {
        switch self {
        case .hello: "hello"
        case .payloadRequest: "payloadRequest"
        case .payloadResponse: "payloadResponse"
        case .payloadError: "payloadError"
        case .continued: "continued"
        case .streamOpen: "streamOpen"
        case .streamAccepted: "streamAccepted"
        case .streamRefused: "streamRefused"
        case .streamData: "streamData"
        case .streamEnd: "streamEnd"
        case .streamFailed: "streamFailed"
        case .lifecycle: "lifecycle"
        }
    }

    /// `bytes` (a whole frame, length prefix included, that decodes as `frame`) with every field
    /// the encoder writes for `frame`; when the encoder writes `frame` otherwise (a name the
    /// decoder made visible, say), the frame's header fields and its body as one field.
    package static func annotated(_ frame: SessionFrame, bytes: [UInt8]) -> AnnotatedBytes {
        var fields: [ByteField]? = []
        var out = ByteBuffer()
        SessionFrameEncoder.encode(frame, into: &out, annotating: &fields)
        if out.readableBytesView.elementsEqual(bytes), let fields {
            return AnnotatedBytes(bytes: bytes, fields: fields)
        }
        var header = Array((fields ?? []).prefix { $0.range.upperBound <= 6 })
        if bytes.count > 6 {
            header.append(
                ByteField(
                    range: 6..<bytes.count, name: "body",
                    value: "\(bytes.count - 6) bytes: \(frame.typeName), written otherwise by this encoder"))
        }
        return AnnotatedBytes(bytes: bytes, fields: header)
    }
}
