import Foundation
import HandoffCore

/// How two Readers pass a document over an activity's continuation streams.
///
/// The continuing Reader sends one request naming the document and its own device (so that the
/// origin can say whom it sent the document to); the origin answers with one response: a header
/// (the size, the name and the sender's device name) followed by exactly that many bytes of the
/// document, or a refusal (a code and a message). Integers are big-endian.
///
/// ```
/// request:  "RDRQ" | version u8 (2) | name length u16 | name (UTF-8) | requester length u16 | requester (UTF-8)
/// response: "RDRS" | version u8 (2) | status u8
///           status 0 (document): size u64 | name length u16 | name | sender length u16 | sender | size bytes
///           status 1 (refusal):  code u8 | message length u16 | message (UTF-8)
/// ```
///
/// Both decoders take their input in chunks of any size (a byte at a time included) and treat it
/// as hostile: every length is checked against a bound as soon as it is read, before the bytes
/// it announces are awaited, so a peer cannot make the Reader buffer more than the limits below.
package enum DocumentTransferProtocol {
    /// The version both frames carry (2: the request names the requesting device).
    package static let version: UInt8 = 2
    /// The largest document either side accepts (a receiver may ask for less).
    package static let maximumDocumentSize = 64 << 20
    /// The longest document or device name, in UTF-8 bytes.
    package static let maximumNameLength = 255
    /// The longest refusal message, in UTF-8 bytes.
    package static let maximumMessageLength = 1024

    static let requestMagic = Array("RDRQ".utf8)
    static let responseMagic = Array("RDRS".utf8)

    /// Whether `name` may name a document in a transfer: a plain file name (no folders, not
    /// hidden, no control characters) of at most ``maximumNameLength`` bytes.
    package static func isAcceptableDocumentName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumNameLength && !name.hasPrefix(".") && !name.contains("/")
            && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}

/// The continuing Reader's request: send me this document.
package struct DocumentRequest: Hashable, Sendable {
    /// The document's file name, e.g. `harrow-point.txt`.
    package var documentName: String
    /// The requesting device's name (e.g. "Phone 1"), for the origin's message; may be empty.
    package var requesterName: String

    package init(documentName: String, requesterName: String = "") {
        self.documentName = documentName
        self.requesterName = requesterName
    }

    /// The request's bytes.
    package func encoded() -> [UInt8] {
        var bytes = DocumentTransferProtocol.requestMagic
        bytes.append(DocumentTransferProtocol.version)
        bytes.appendString(documentName)
        bytes.appendString(requesterName.truncatedUTF8(to: DocumentTransferProtocol.maximumNameLength))
        return bytes
    }
}

/// The header of a document the origin sends.
package struct DocumentHeader: Hashable, Sendable {
    /// The document's file name.
    package var documentName: String
    /// The number of document bytes after the header.
    package var size: Int
    /// The sending device's name (e.g. "Laptop").
    package var senderName: String

    package init(documentName: String, size: Int, senderName: String) {
        self.documentName = documentName
        self.size = size
        self.senderName = senderName
    }

    /// The response's first bytes; the document's bytes follow.
    package func encoded() -> [UInt8] {
        var bytes = DocumentTransferProtocol.responseMagic
        bytes.append(DocumentTransferProtocol.version)
        bytes.append(0)
        bytes.appendInteger(UInt64(size))
        bytes.appendString(documentName)
        bytes.appendString(senderName.truncatedUTF8(to: DocumentTransferProtocol.maximumNameLength))
        return bytes
    }
}

/// Why the origin did not send the document.
package struct DocumentRefusal: Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as a code both sides know (an unknown code is kept as it is).
    package struct Code: RawRepresentable, Hashable, Sendable {
        package var rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }

        /// The request could not be read.
        package static let badRequest = Code(rawValue: 1)
        /// The activity is about another document.
        package static let notThisDocument = Code(rawValue: 2)
        /// The document is no longer on the origin.
        package static let notFound = Code(rawValue: 3)
        /// The document is larger than the protocol allows.
        package static let tooLarge = Code(rawValue: 4)
        /// The document could not be read.
        package static let unreadable = Code(rawValue: 5)
    }

    package var code: Code
    /// A sentence for the user, from the origin.
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }

    /// The whole response.
    package func encoded() -> [UInt8] {
        var bytes = DocumentTransferProtocol.responseMagic
        bytes.append(DocumentTransferProtocol.version)
        bytes.append(1)
        bytes.append(code.rawValue)
        bytes.appendString(message.truncatedUTF8(to: DocumentTransferProtocol.maximumMessageLength))
        return bytes
    }
}

/// Why a document could not be passed over the streams.
package enum DocumentTransferError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not a Reader transfer frame (or are inconsistent).
    case malformed(String)
    /// The peer speaks a version of the protocol this Reader does not know.
    case unsupportedVersion(UInt8)
    /// The document is larger than the receiver accepts.
    case tooLarge(size: UInt64, limit: Int)
    /// The stream ended before the whole frame arrived.
    case truncated(received: Int, expected: Int?)
    /// The origin refused to send the document.
    case refused(DocumentRefusal)
    /// Nothing arrived for too long.
    case timedOut(Duration)
    /// The streams could not be opened, or broke.
    case streams(String)

    package var description: String {
        switch self {
        case .malformed(let why): "the origin's answer is not a document (\(why))"
        case .unsupportedVersion(let version):
            "the other Reader uses transfer version \(version), which this Reader does not know"
        case .tooLarge(let size, let limit):
            "the document is \(ByteCount.text(Int(clamping: size))), more than the \(ByteCount.text(limit)) this Reader accepts"
        case .truncated(let received, let expected?):
            "the connection ended after \(ByteCount.text(received)) of \(ByteCount.text(expected))"
        case .truncated:
            "the connection ended before the answer was complete"
        case .refused(let refusal): "the other device refused: \(refusal.message)"
        case .timedOut(let duration):
            duration < .seconds(1)
                ? "the other device did not answer for \(duration.components.attoseconds / 1_000_000_000_000_000) ms"
                : "the other device did not answer for \(duration.components.seconds) s"
        case .streams(let why): why
        }
    }
}

/// Reads a ``DocumentRequest`` from chunks of any size.
package struct DocumentRequestDecoder {
    private var buffer: [UInt8] = []
    /// The request, once complete.
    package private(set) var request: DocumentRequest?

    package init() {}

    /// Takes the next bytes; returns the request once it is complete.
    ///
    /// - Throws: ``DocumentTransferError`` when the bytes cannot be a request (wrong magic or
    ///   version, a name too long or not acceptable, bytes after the request).
    @discardableResult
    package mutating func consume(_ bytes: some Collection<UInt8>) throws(DocumentTransferError) -> DocumentRequest? {
        guard request == nil else {
            if bytes.isEmpty { return request }
            throw .malformed("bytes after the request")
        }
        buffer.append(contentsOf: bytes)
        var reader = FrameReader(buffer)
        try reader.expectMagic(DocumentTransferProtocol.requestMagic)
        guard try reader.version() != nil,
            let name = try reader.string(limit: DocumentTransferProtocol.maximumNameLength, what: "document name")
        else { return nil }
        guard DocumentTransferProtocol.isAcceptableDocumentName(name) else {
            throw .malformed("the document name is not a plain file name")
        }
        guard let requester = try reader.string(limit: DocumentTransferProtocol.maximumNameLength, what: "device name")
        else { return nil }
        guard !requester.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .malformed("the device name contains control characters")
        }
        guard reader.isAtEnd else { throw .malformed("bytes after the request") }
        request = DocumentRequest(documentName: name, requesterName: requester)
        buffer = []
        return request
    }
}

/// A document received whole.
package struct ReceivedDocument: Hashable, Sendable {
    package var header: DocumentHeader
    package var bytes: [UInt8]
    /// From the request until the last byte (zero when not measured).
    package var elapsed: Duration = .zero
}

/// Reads the origin's response from chunks of any size: the header, then the document's bytes.
package struct DocumentResponseDecoder {
    /// The largest document accepted (at most ``DocumentTransferProtocol/maximumDocumentSize``).
    package let limit: Int
    /// The header, once it arrived.
    package private(set) var header: DocumentHeader?
    /// The document bytes received so far.
    package private(set) var bytes: [UInt8] = []
    private var buffer: [UInt8] = []

    package init(limit: Int = DocumentTransferProtocol.maximumDocumentSize) {
        self.limit = min(max(limit, 0), DocumentTransferProtocol.maximumDocumentSize)
    }

    /// Whether the header and every byte it announced arrived.
    package var isComplete: Bool { header.map { bytes.count == $0.size } ?? false }

    /// Takes the next bytes of the response.
    ///
    /// - Throws: ``DocumentTransferError/refused(_:)`` when the origin refused,
    ///   ``DocumentTransferError/tooLarge(size:limit:)`` as soon as the header announces more
    ///   than ``limit``, and the other cases for bytes that cannot be a response.
    package mutating func consume(_ chunk: some Collection<UInt8>) throws(DocumentTransferError) {
        if let header {
            guard bytes.count + chunk.count <= header.size else {
                throw .malformed("more bytes than the header announced")
            }
            bytes.append(contentsOf: chunk)
            return
        }
        buffer.append(contentsOf: chunk)
        var reader = FrameReader(buffer)
        try reader.expectMagic(DocumentTransferProtocol.responseMagic)
        guard try reader.version() != nil, let status = reader.uint8() else { return }
        switch status {
        case 0:
            guard let size = reader.uint64() else { return }
            guard size <= UInt64(limit) else { throw .tooLarge(size: size, limit: limit) }
            guard let name = try reader.string(limit: DocumentTransferProtocol.maximumNameLength, what: "document name")
            else { return }
            guard DocumentTransferProtocol.isAcceptableDocumentName(name) else {
                throw .malformed("the document name is not a plain file name")
            }
            guard let sender = try reader.string(limit: DocumentTransferProtocol.maximumNameLength, what: "device name")
            else { return }
            let header = DocumentHeader(documentName: name, size: Int(size), senderName: sender)
            let rest = reader.remaining
            guard rest.count <= header.size else { throw .malformed("more bytes than the header announced") }
            self.header = header
            bytes.reserveCapacity(min(header.size, 1 << 22))
            bytes.append(contentsOf: rest)
            buffer = []
        case 1:
            guard let code = reader.uint8(),
                let message = try reader.string(limit: DocumentTransferProtocol.maximumMessageLength, what: "message")
            else { return }
            throw .refused(DocumentRefusal(DocumentRefusal.Code(rawValue: code), message))
        default:
            throw .malformed("unknown status \(status)")
        }
    }

    /// The document, once the stream ended.
    ///
    /// - Throws: ``DocumentTransferError/truncated(received:expected:)`` when the header or some
    ///   of the document's bytes are missing.
    package func finish() throws(DocumentTransferError) -> ReceivedDocument {
        guard let header else { throw .truncated(received: buffer.count, expected: nil) }
        guard bytes.count == header.size else { throw .truncated(received: bytes.count, expected: header.size) }
        return ReceivedDocument(header: header, bytes: bytes)
    }
}

/// Durations for people: "under 1 ms", "12 ms" below a second, else seconds with one decimal
/// ("1.0 s", "12.3 s").
enum DurationText {
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// "5.0 MB in 0.8 s (6.3 MB/s)": what moved, how long it took and how fast.
    static func describe(bytes: Int, in duration: Duration) -> String {
        let rate = ByteCount.rate(bytes, in: seconds(duration)).map { " (\($0))" } ?? ""
        return "\(ByteCount.text(bytes)) in \(describe(duration))\(rate)"
    }

    static func describe(_ duration: Duration) -> String {
        let seconds = seconds(duration)
        if seconds < 0.0005 { return "under 1 ms" }
        if seconds < 0.9995 { return "\(Int((seconds * 1000).rounded())) ms" }
        return String(format: "%.1f s", seconds)
    }
}

/// Reads the fields of a frame that may not have arrived whole: each read returns nil when the
/// bytes are not there yet.
private struct FrameReader {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }
    var remaining: ArraySlice<UInt8> { bytes[index...] }

    /// Fails as soon as the bytes present differ from `magic`.
    mutating func expectMagic(_ magic: [UInt8]) throws(DocumentTransferError) {
        let present = min(magic.count, bytes.count - index)
        guard bytes[index..<index + present].elementsEqual(magic.prefix(present)) else {
            throw .malformed("it does not start with \(String(decoding: magic, as: UTF8.self))")
        }
        index += present
    }

    /// The version byte, checked.
    mutating func version() throws(DocumentTransferError) -> UInt8? {
        guard let version = uint8() else { return nil }
        guard version == DocumentTransferProtocol.version else { throw .unsupportedVersion(version) }
        return version
    }

    mutating func uint8() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func uint16() -> UInt16? {
        guard bytes.count - index >= 2 else { return nil }
        defer { index += 2 }
        return UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
    }

    mutating func uint64() -> UInt64? {
        guard bytes.count - index >= 8 else { return nil }
        defer { index += 8 }
        return bytes[index..<index + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A length-prefixed UTF-8 string; the length is checked against `limit` before its bytes are awaited.
    mutating func string(limit: Int, what: String) throws(DocumentTransferError) -> String? {
        let start = index
        guard let length = uint16() else { return nil }
        guard Int(length) <= limit else { throw .malformed("the \(what) is longer than \(limit) bytes") }
        guard bytes.count - index >= Int(length) else {
            index = start
            return nil
        }
        let slice = bytes[index..<index + Int(length)]
        index += Int(length)
        let text = String(decoding: slice, as: UTF8.self)
        guard text.utf8.elementsEqual(slice) else { throw .malformed("the \(what) is not UTF-8") }
        return text
    }
}

extension String {
    /// The longest prefix of whole characters that fits in `limit` UTF-8 bytes.
    func truncatedUTF8(to limit: Int) -> String {
        guard utf8.count > limit else { return self }
        var text = self
        while text.utf8.count > limit { text.removeLast() }
        return text
    }
}

extension [UInt8] {
    mutating func appendInteger(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// A u16 length and the UTF-8 bytes (callers keep strings within the protocol's limits).
    mutating func appendString(_ text: String) {
        let utf8 = Array(text.utf8.prefix(Int(UInt16.max)))
        append(UInt8(utf8.count >> 8))
        append(UInt8(utf8.count & 0xFF))
        append(contentsOf: utf8)
    }
}
