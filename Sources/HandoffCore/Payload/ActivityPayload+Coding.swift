import Foundation

// The versioned binary encoding of an activity payload. docs/payload.md describes the layout byte
// by byte; keep the two in step.
//
// Encoding writes into one `[UInt8]` with reserved capacity. Decoding reads the input in place
// through an `UnsafeRawBufferPointer`, treats it as hostile, and reports every problem as a
// `PayloadDecodingError` carrying the byte offset and the field path where it happened.

// MARK: - Public API

extension ActivityPayload {
    /// The version of the binary layout that ``encoded()`` writes and ``init(decoding:limits:)`` reads.
    ///
    /// A decoder rejects any other version with ``PayloadDecodingError/Kind/unsupportedVersion(_:)``.
    public static let formatVersion: UInt8 = 1

    /// The payload in the versioned binary layout described in `docs/payload.md`.
    ///
    /// The encoding is deterministic: dictionary entries and ``requiredUserInfoKeys`` are ordered by the
    /// UTF-8 bytes of the keys, set elements by their encoded bytes, so payloads that are equal and
    /// whose strings hold the same Unicode scalars encode to identical bytes.
    ///
    /// URLs travel as their `absoluteString`; a URL relative to a base URL arrives as its absolute form.
    /// Encoding never fails, but a payload that is larger or more deeply nested than a receiver's
    /// ``PayloadLimits`` is rejected by that receiver.
    public func encoded() -> Data {
        var writer = PayloadWriter(reservingCapacity: estimatedEncodedSize)
        writer.writePayload(self)
        return Data(writer.bytes)
    }

    /// Decodes a payload from bytes produced by ``encoded()``, treating them as hostile.
    ///
    /// The input is checked against `limits` before anything is allocated for it: its total size,
    /// the nesting depth of collections, the element count of each collection and the total number of
    /// values. Lengths and counts that claim more than the remaining bytes are rejected without
    /// allocating. Decoding never traps, whatever the input.
    ///
    /// - Parameters:
    ///   - data: The encoded payload. Offsets in errors count from its first byte.
    ///   - limits: The bounds to enforce.
    /// - Throws: ``PayloadDecodingError`` naming the problem, the byte offset and the field.
    public init(decoding data: Data, limits: PayloadLimits = .default) throws(PayloadDecodingError) {
        guard data.count <= limits.maximumPayloadBytes else {
            throw PayloadDecodingError(.tooLarge(size: data.count, limit: limits.maximumPayloadBytes), at: 0)
        }
        let result = data.withUnsafeBytes { buffer -> Result<ActivityPayload, PayloadDecodingError> in
            var reader = PayloadReader(buffer, limits: limits)
            return Result { () throws(PayloadDecodingError) in try reader.readPayload() }
        }
        self = try result.get()
    }

    /// The same bytes as ``encoded()``, with every field they hold: its range, its path and what
    /// it says (for the inspector's byte view; docs/payload.md names the fields).
    public func annotatedEncoding() -> AnnotatedBytes {
        var writer = PayloadWriter(reservingCapacity: estimatedEncodedSize, annotating: true)
        writer.writePayload(self)
        return AnnotatedBytes(bytes: writer.bytes, fields: writer.fields ?? [])
    }

    /// The fields of a payload that travelled: `data` is decoded (hostile-input safe) and encoded
    /// again with notes. Nil when `data` decodes but is not the encoding this encoder writes
    /// (another order of keys, say): the notes would not describe those bytes.
    ///
    /// - Throws: ``PayloadDecodingError`` when `data` is not a payload.
    public static func annotated(
        _ data: Data, limits: PayloadLimits = .default
    ) throws(PayloadDecodingError) -> AnnotatedBytes? {
        let annotated = try ActivityPayload(decoding: data, limits: limits).annotatedEncoding()
        return annotated.bytes.elementsEqual(data) ? annotated : nil
    }

    /// A cheap estimate of the encoded size, used to reserve capacity once.
    private var estimatedEncodedSize: Int {
        var size = 64 + activityType.utf8.count + teamIdentifier.utf8.count + bundleIdentifier.utf8.count
        size += (title?.utf8.count ?? 0) + (targetContentIdentifier?.utf8.count ?? 0)
        size += streamToken.count + 32 * userInfo.count + 16 * requiredUserInfoKeys.count
        for value in userInfo.values {
            switch value {
            case .data(let data): size += data.count
            case .string(let string): size += string.utf8.count
            default: break
            }
        }
        return size
    }
}

/// Why ``ActivityPayload/init(decoding:limits:)`` rejected its input, and where.
///
/// The description names all three parts, for example
/// `payload byte 57, userInfo["pages"]: truncated (string needs 40 bytes, 3 remain)`.
public struct PayloadDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong with the input.
    public enum Kind: Sendable, Hashable {
        /// The input is larger than ``PayloadLimits/maximumPayloadBytes``.
        case tooLarge(size: Int, limit: Int)
        /// The input does not start with the four bytes `HOPL`.
        case badMagic
        /// The layout version is not ``ActivityPayload/formatVersion``.
        case unsupportedVersion(UInt8)
        /// The input ends inside an item.
        ///
        /// `item` names what was being read (`"string"`, `"UUID"`, `"array of 9 elements"`, ...),
        /// `needed` how many bytes its contents need and `remaining` how many are left. For an item with
        /// a length or count prefix, both count from the end of the prefix; for a varint, from its first
        /// byte. For a varint or a collection `needed` is the least it could need (a collection element
        /// takes at least one byte, a dictionary entry two), saturated at `Int.max`.
        case truncated(item: String, needed: Int, remaining: Int)
        /// A varint is longer than 10 bytes, exceeds `UInt64.max`, or is not minimally encoded.
        case invalidVarint
        /// A string is not valid UTF-8.
        case invalidUTF8
        /// A URL's text is not accepted by `URL(string:)`.
        case invalidURL
        /// A value starts with a tag this version does not define.
        case unknownTag(UInt8)
        /// Collections are nested deeper than `limit` (``PayloadLimits/maximumDepth``, at most
        /// ``PayloadLimits/maximumSupportedDepth``).
        case tooDeep(limit: Int)
        /// A collection claims more elements than ``PayloadLimits/maximumCollectionCount`` (`count`
        /// saturated at `Int.max`).
        case tooManyElements(count: Int, limit: Int)
        /// The payload holds more values than ``PayloadLimits/maximumValueCount``.
        case tooManyValues(limit: Int)
        /// A dictionary holds the key twice (or two canonically equivalent spellings of it).
        case duplicateKey(String)
        /// A set holds an element twice.
        case duplicateSetElement
        /// Bytes follow the end of the payload.
        case trailingBytes(count: Int)
        /// A field holds a value the layout does not allow; the string says why.
        case invalidField(String)
    }

    /// What was wrong.
    public let kind: Kind
    /// Where the problem lies, counted from the first byte of the input: the first byte of the item
    /// that could not be read (a tag, a varint, a length or count prefix, a fixed-size field or value
    /// body), of the text of an invalid string or URL, of a duplicate key or set element, or of the
    /// trailing bytes; 0 for an input that is too large or has the wrong magic.
    public let offset: Int
    /// The path of the field being decoded, such as `userInfo["region"][2]`: a top-level field, then
    /// a `["key"]` or `[index]` for each enclosing collection (for a set, the element's position in the
    /// encoding). A dictionary key that cannot be read appears as `[key #3]`; a duplicate key or set
    /// element is reported against its collection. Empty for problems after the last field (trailing
    /// bytes) and for an input that is too large.
    public let field: String

    init(_ kind: Kind, at offset: Int, field: String = "") {
        self.kind = kind
        self.offset = offset
        self.field = field
    }

    /// The same error inside `component` of an enclosing field.
    func within(_ component: String) -> PayloadDecodingError {
        PayloadDecodingError(kind, at: offset, field: component + field)
    }

    public var description: String {
        let location = field.isEmpty ? "payload byte \(offset)" : "payload byte \(offset), \(field)"
        return "\(location): \(kind)"
    }
}

extension PayloadDecodingError.Kind: CustomStringConvertible {
    public var description: String {
        switch self {
        case .tooLarge(let size, let limit):
            "too large (\(bytes(size)), the limit is \(limit))"
        case .badMagic:
            "bad magic (the payload does not start with \"HOPL\")"
        case .unsupportedVersion(let version):
            "unsupported version \(version) (this decoder reads version \(ActivityPayload.formatVersion))"
        case .truncated(let item, let needed, let remaining):
            "truncated (\(item) needs \(bytes(needed)), \(remaining) \(remaining == 1 ? "remains" : "remain"))"
        case .invalidVarint:
            "invalid varint (longer than 10 bytes, above 2^64-1, or not minimally encoded)"
        case .invalidUTF8:
            "invalid UTF-8"
        case .invalidURL:
            "invalid URL"
        case .unknownTag(let tag):
            "unknown tag 0x" + (tag < 0x10 ? "0" : "") + String(tag, radix: 16)
        case .tooDeep(let limit):
            "nested too deeply (the limit is \(limit) levels)"
        case .tooManyElements(let count, let limit):
            "too many elements (\(count), the limit is \(limit))"
        case .tooManyValues(let limit):
            "too many values (the limit is \(limit))"
        case .duplicateKey(let key):
            "duplicate key \(PayloadPath.quoted(key))"
        case .duplicateSetElement:
            "duplicate set element"
        case .trailingBytes(let count):
            "\(bytes(count)) after the end of the payload"
        case .invalidField(let reason):
            "invalid field (\(reason))"
        }
    }

    private func bytes(_ count: Int) -> String {
        count == 1 ? "1 byte" : "\(count) bytes"
    }
}

extension PayloadLimits {
    /// The deepest nesting the decoder ever accepts, whatever ``maximumDepth`` says.
    ///
    /// The decoder itself does not recurse, but a decoded value is destroyed, compared, hashed and
    /// encoded recursively, once per level of nesting; this ceiling keeps that recursion well within the
    /// stack of any thread, including the small stacks of secondary and concurrency pool threads.
    public static let maximumSupportedDepth = 256
}

// MARK: - Layout constants

/// The constants of the layout (see docs/payload.md).
private enum PayloadLayout {
    /// `HOPL`, the first four bytes of every payload.
    static let magic: [UInt8] = [0x48, 0x4F, 0x50, 0x4C]

    /// Bits of the flags byte.
    enum Flag {
        static let hasTitle: UInt8 = 1 << 0
        static let hasWebpageURL: UInt8 = 1 << 1
        static let hasExpirationDate: UInt8 = 1 << 2
        static let hasTargetContentIdentifier: UInt8 = 1 << 3
        static let supportsContinuationStreams: UInt8 = 1 << 4
        static let all: UInt8 = 0b1_1111

        /// The flags set in `flags`, for the byte view.
        static func names(_ flags: UInt8) -> String {
            let names = [
                (hasTitle, "title"), (hasWebpageURL, "webpageURL"), (hasExpirationDate, "expirationDate"),
                (hasTargetContentIdentifier, "targetContentIdentifier"), (supportsContinuationStreams, "streams"),
            ]
            .filter { flags & $0.0 != 0 }.map(\.1)
            return names.isEmpty ? "none" : names.joined(separator: ", ")
        }
    }

    /// The tag byte that starts every `userInfo` value.
    enum Tag {
        static let null: UInt8 = 0x00
        static let `false`: UInt8 = 0x01
        static let `true`: UInt8 = 0x02
        static let integer: UInt8 = 0x03
        static let double: UInt8 = 0x04
        static let string: UInt8 = 0x05
        static let data: UInt8 = 0x06
        static let date: UInt8 = 0x07
        static let url: UInt8 = 0x08
        static let uuid: UInt8 = 0x09
        static let array: UInt8 = 0x0A
        static let dictionary: UInt8 = 0x0B
        static let set: UInt8 = 0x0C
    }
}

/// Formats the components of ``PayloadDecodingError/field``.
private enum PayloadPath {
    /// The longest key, in Unicode scalars, shown in full in a path or message.
    static let maximumShownKeyLength = 64

    static func key(_ key: String) -> String { "[" + quoted(key) + "]" }
    static func index(_ index: Int) -> String { "[\(index)]" }
    static func keyOfEntry(_ index: Int) -> String { "[key #\(index)]" }

    /// `key` as a Swift string literal, cut short if it is long (hostile keys can be megabytes).
    static func quoted(_ key: String) -> String {
        let shownScalars = key.unicodeScalars.prefix(maximumShownKeyLength)
        guard shownScalars.endIndex < key.unicodeScalars.endIndex else { return key.debugDescription }
        let shown = String(String.UnicodeScalarView(shownScalars))
        return String(shown.debugDescription.dropLast()) + "…\""
    }
}

// MARK: - Encoding

/// Appends the layout to a byte array.
///
/// With `annotating`, it also notes every field it writes (``ByteField``: the range, the field's
/// path as the decoder names it, what it says), so the inspector's byte view comes from this
/// writer and not from a copy of the layout. Without it, every note is a skipped branch.
private struct PayloadWriter {
    private(set) var bytes: [UInt8] = []
    /// The fields written so far, in order; nil when not annotating.
    private(set) var fields: [ByteField]?
    /// How many collections enclose what is being written (for the notes).
    private var depth = 0

    init(reservingCapacity capacity: Int, annotating: Bool = false) {
        bytes.reserveCapacity(capacity)
        if annotating { fields = [] }
    }

    /// Notes the bytes written since `start` as one field (nothing for an empty range).
    private mutating func note(from start: Int, _ name: @autoclosure () -> String, _ value: @autoclosure () -> String) {
        guard fields != nil, start < bytes.count else { return }
        fields?.append(ByteField(range: start..<bytes.count, name: name(), value: value(), depth: depth))
    }

    mutating func writePayload(_ payload: ActivityPayload) {
        var start = bytes.count
        bytes.append(contentsOf: PayloadLayout.magic)
        note(from: start, "magic", "\"HOPL\"")
        start = bytes.count
        bytes.append(ActivityPayload.formatVersion)
        note(from: start, "version", "\(ActivityPayload.formatVersion)")

        var flags: UInt8 = 0
        if payload.title != nil { flags |= PayloadLayout.Flag.hasTitle }
        if payload.webpageURL != nil { flags |= PayloadLayout.Flag.hasWebpageURL }
        if payload.expirationDate != nil { flags |= PayloadLayout.Flag.hasExpirationDate }
        if payload.targetContentIdentifier != nil { flags |= PayloadLayout.Flag.hasTargetContentIdentifier }
        if payload.supportsContinuationStreams { flags |= PayloadLayout.Flag.supportsContinuationStreams }
        start = bytes.count
        bytes.append(flags)
        note(from: start, "flags", PayloadLayout.Flag.names(flags))

        start = bytes.count
        writeUUID(payload.activityIdentifier)
        note(from: start, "activityIdentifier", payload.activityIdentifier.uuidString)
        writeString(payload.activityType, name: "activityType")
        if let title = payload.title { writeString(title, name: "title") }
        writeDictionary(payload.userInfo, name: "userInfo")
        if let url = payload.webpageURL { writeString(url.absoluteString, name: "webpageURL") }
        writeString(payload.teamIdentifier, name: "teamIdentifier")
        writeString(payload.bundleIdentifier, name: "bundleIdentifier")
        if let date = payload.expirationDate {
            start = bytes.count
            writeDate(date)
            note(from: start, "expirationDate", PayloadAnnotationText.date(date))
        }
        start = bytes.count
        writeVarint(UInt64(payload.requiredUserInfoKeys.count))
        note(
            from: start, "requiredUserInfoKeys count",
            PayloadAnnotationText.count(payload.requiredUserInfoKeys.count, "key"))
        for (index, key) in payload.requiredUserInfoKeys.sorted(by: utf8Precedes).enumerated() {
            writeString(key, name: "requiredUserInfoKeys[\(index)]")
        }
        if let identifier = payload.targetContentIdentifier { writeString(identifier, name: "targetContentIdentifier") }
        writeData(payload.streamToken, name: "streamToken")
    }

    /// A value: its tag, then its body. `name` is its path (`userInfo["page"]`).
    mutating func writeValue(_ value: UserInfoValue, name: @autoclosure () -> String = "") {
        let start = bytes.count
        func noteTag(_ kind: @autoclosure () -> String) { note(from: start, name() + " tag", kind()) }
        switch value {
        case .null:
            bytes.append(PayloadLayout.Tag.null)
            noteTag("null")
        case .bool(let flag):
            bytes.append(flag ? PayloadLayout.Tag.true : PayloadLayout.Tag.false)
            noteTag(flag ? "Boolean true" : "Boolean false")
        case .integer(let integer):
            bytes.append(PayloadLayout.Tag.integer)
            noteTag("integer")
            let body = bytes.count
            let zigZag = UInt64(bitPattern: (integer << 1) ^ (integer >> 63))
            writeVarint(zigZag)
            note(from: body, name(), "\(integer) (zig-zag \(zigZag))")
        case .double(let double):
            bytes.append(PayloadLayout.Tag.double)
            noteTag("double")
            let body = bytes.count
            writeBigEndian(double.bitPattern)
            note(from: body, name(), "\(double)")
        case .string(let string):
            bytes.append(PayloadLayout.Tag.string)
            noteTag("string")
            writeString(string, name: name())
        case .data(let data):
            bytes.append(PayloadLayout.Tag.data)
            noteTag("data")
            writeData(data, name: name())
        case .date(let date):
            bytes.append(PayloadLayout.Tag.date)
            noteTag("date")
            let body = bytes.count
            writeDate(date)
            note(from: body, name(), PayloadAnnotationText.date(date))
        case .url(let url):
            bytes.append(PayloadLayout.Tag.url)
            noteTag("URL")
            writeString(url.absoluteString, name: name())
        case .uuid(let uuid):
            bytes.append(PayloadLayout.Tag.uuid)
            noteTag("UUID")
            let body = bytes.count
            writeUUID(uuid)
            note(from: body, name(), uuid.uuidString)
        case .array(let elements):
            bytes.append(PayloadLayout.Tag.array)
            noteTag("array")
            let body = bytes.count
            writeVarint(UInt64(elements.count))
            note(from: body, name() + " count", PayloadAnnotationText.count(elements.count, "element"))
            if fields == nil {
                for element in elements { writeValue(element) }
            } else {
                depth += 1
                for (index, element) in elements.enumerated() { writeValue(element, name: name() + "[\(index)]") }
                depth -= 1
            }
        case .dictionary(let dictionary):
            bytes.append(PayloadLayout.Tag.dictionary)
            noteTag("dictionary")
            writeDictionary(dictionary, name: name())
        case .set(let elements):
            bytes.append(PayloadLayout.Tag.set)
            noteTag("set")
            writeSet(elements, name: name())
        }
    }

    /// A count, then the entries ordered by the UTF-8 bytes of their keys.
    private mutating func writeDictionary(_ dictionary: [String: UserInfoValue], name: @autoclosure () -> String = "") {
        let start = bytes.count
        writeVarint(UInt64(dictionary.count))
        if fields != nil {
            note(from: start, name() + " count", PayloadAnnotationText.count(dictionary.count, "entry", "entries"))
            depth += 1
            defer { depth -= 1 }
            for entry in dictionary.sorted(by: { utf8Precedes($0.key, $1.key) }) {
                let path = name() + PayloadPath.key(entry.key)
                writeString(entry.key, name: path + " key")
                writeValue(entry.value, name: path)
            }
            return
        }
        if dictionary.count == 1, let entry = dictionary.first {
            writeString(entry.key)
            writeValue(entry.value)
            return
        }
        for entry in dictionary.sorted(by: { utf8Precedes($0.key, $1.key) }) {
            writeString(entry.key)
            writeValue(entry.value)
        }
    }

    /// A count, then the elements ordered by their encoded bytes.
    ///
    /// The elements are written in the set's own order, then their byte ranges are sorted and the
    /// region rewritten in that order. When annotating, each element is encoded on its own first
    /// and then written in sorted order, so its notes name its position in the encoding.
    private mutating func writeSet(_ elements: Set<UserInfoValue>, name: @autoclosure () -> String = "") {
        let countStart = bytes.count
        writeVarint(UInt64(elements.count))
        if fields != nil {
            note(from: countStart, name() + " count", PayloadAnnotationText.count(elements.count, "element"))
            let encoded = elements.map { element -> (bytes: [UInt8], element: UserInfoValue) in
                var writer = PayloadWriter(reservingCapacity: 16)
                writer.writeValue(element)
                return (writer.bytes, element)
            }.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
            depth += 1
            for (index, element) in encoded.enumerated() { writeValue(element.element, name: name() + "[\(index)]") }
            depth -= 1
            return
        }
        let start = bytes.count
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(elements.count)
        for element in elements {
            let elementStart = bytes.count
            writeValue(element)
            ranges.append(elementStart - start..<bytes.count - start)
        }
        guard ranges.count > 1 else { return }
        let region = Array(bytes[start...])
        region.withUnsafeBufferPointer { region in
            ranges.sort { region[$0].lexicographicallyPrecedes(region[$1]) }
        }
        bytes.removeSubrange(start...)
        for range in ranges { bytes.append(contentsOf: region[range]) }
    }

    /// A varint length, then the UTF-8 bytes; noted as `name length` and `name`.
    private mutating func writeString(_ string: String, name: @autoclosure () -> String = "") {
        var string = string
        let start = bytes.count
        var textStart = start
        string.withUTF8 { utf8 in
            writeVarint(UInt64(utf8.count))
            textStart = bytes.count
            bytes.append(contentsOf: utf8)
        }
        guard fields != nil else { return }
        fields?.append(
            ByteField(
                range: start..<textStart, name: name() + " length",
                value: PayloadAnnotationText.count(bytes.count - textStart, "byte"), depth: depth))
        note(from: textStart, name(), PayloadAnnotationText.quoted(string))
    }

    /// A varint length, then the bytes; noted as `name length` and `name`.
    private mutating func writeData(_ data: Data, name: @autoclosure () -> String = "") {
        let start = bytes.count
        writeVarint(UInt64(data.count))
        note(from: start, name() + " length", PayloadAnnotationText.count(data.count, "byte"))
        let body = bytes.count
        bytes.append(contentsOf: data)
        note(from: body, name(), PayloadAnnotationText.count(data.count, "byte") + " of data")
    }

    private mutating func writeDate(_ date: Date) {
        writeBigEndian(date.timeIntervalSinceReferenceDate.bitPattern)
    }

    private mutating func writeUUID(_ uuid: UUID) {
        withUnsafeBytes(of: uuid.uuid) { bytes.append(contentsOf: $0) }
    }

    private mutating func writeBigEndian(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Unsigned LEB128: seven bits a byte, least significant group first, high bit set on all but the last.
    private mutating func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: value))
    }
}

/// How the notes of an annotated payload word values.
private enum PayloadAnnotationText {
    /// The longest text quoted in full in a note.
    static let maximumQuoted = 48

    static func count(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
    }

    static func quoted(_ text: String) -> String {
        guard text.count > maximumQuoted else { return text.debugDescription }
        return String(String(text.prefix(maximumQuoted)).debugDescription.dropLast()) + "…\""
    }

    static func date(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite, abs(seconds) < 1e11 else { return "\(seconds) s since 2001" }
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

/// Whether the UTF-8 bytes of `a` sort before those of `b` (a proper prefix sorts first).
private func utf8Precedes(_ a: String, _ b: String) -> Bool {
    var a = a
    var b = b
    return a.withUTF8 { a in b.withUTF8 { b in a.lexicographicallyPrecedes(b) } }
}

// MARK: - Decoding

/// Reads the layout from a buffer, checking every length, count and limit before acting on it.
///
/// Errors are thrown with an empty field path and given their path where they are caught: by
/// `readUserInfo()` from its stack of open collections, then by `readPayload()` from the top-level
/// field being read. The success path pays nothing for path tracking.
private struct PayloadReader {
    private let buffer: UnsafeRawBufferPointer
    private var offset = 0
    private let limits: PayloadLimits
    private let maximumDepth: Int
    private var valueCount = 0

    init(_ buffer: UnsafeRawBufferPointer, limits: PayloadLimits) {
        self.buffer = buffer
        self.limits = limits
        self.maximumDepth = min(limits.maximumDepth, PayloadLimits.maximumSupportedDepth)
    }

    private var remaining: Int { buffer.count - offset }

    // MARK: Payload

    mutating func readPayload() throws(PayloadDecodingError) -> ActivityPayload {
        // The top-level field being read, prepended to the path of any error.
        var field = "magic"
        do throws(PayloadDecodingError) {
            try readMagic()

            field = "version"
            let version = try readByte(item: "version")
            guard version == ActivityPayload.formatVersion else {
                throw PayloadDecodingError(.unsupportedVersion(version), at: offset - 1)
            }

            field = "flags"
            let flags = try readByte(item: "flags")
            let reservedFlags = flags & ~PayloadLayout.Flag.all
            guard reservedFlags == 0 else {
                let reason = "reserved bits 0x" + String(reservedFlags, radix: 16) + " are set"
                throw PayloadDecodingError(.invalidField(reason), at: offset - 1)
            }
            func isSet(_ flag: UInt8) -> Bool { flags & flag != 0 }

            field = "activityIdentifier"
            let activityIdentifier = try readUUID()
            field = "activityType"
            let activityType = try readString()
            field = "title"
            let title = isSet(PayloadLayout.Flag.hasTitle) ? try readString() : nil
            field = "userInfo"
            let userInfo = try readUserInfo()
            field = "webpageURL"
            let webpageURL = isSet(PayloadLayout.Flag.hasWebpageURL) ? try readURL() : nil
            field = "teamIdentifier"
            let teamIdentifier = try readString()
            field = "bundleIdentifier"
            let bundleIdentifier = try readString()
            field = "expirationDate"
            let expirationStart = offset
            let expirationDate = isSet(PayloadLayout.Flag.hasExpirationDate) ? try readDate() : nil
            // userInfo dates travel bit for bit (NaN included); an expiry must be a real time, or
            // the activity would never expire and never equal itself.
            if let seconds = expirationDate?.timeIntervalSinceReferenceDate, !seconds.isFinite {
                throw PayloadDecodingError(
                    .invalidField("the expiration date must be a finite number of seconds, not \(seconds)"),
                    at: expirationStart)
            }
            field = "requiredUserInfoKeys"
            let requiredUserInfoKeys = try readStringSet()
            field = "targetContentIdentifier"
            let targetContentIdentifier = isSet(PayloadLayout.Flag.hasTargetContentIdentifier) ? try readString() : nil
            field = "streamToken"
            let streamToken = try readData()

            field = ""
            guard remaining == 0 else {
                throw PayloadDecodingError(.trailingBytes(count: remaining), at: offset)
            }
            return ActivityPayload(
                activityIdentifier: activityIdentifier,
                activityType: activityType,
                title: title,
                userInfo: userInfo,
                webpageURL: webpageURL,
                teamIdentifier: teamIdentifier,
                bundleIdentifier: bundleIdentifier,
                expirationDate: expirationDate,
                requiredUserInfoKeys: requiredUserInfoKeys,
                targetContentIdentifier: targetContentIdentifier,
                supportsContinuationStreams: isSet(PayloadLayout.Flag.supportsContinuationStreams),
                streamToken: streamToken
            )
        } catch {
            throw error.within(field)
        }
    }

    private mutating func readMagic() throws(PayloadDecodingError) {
        let magic = PayloadLayout.magic
        for (index, byte) in magic.enumerated() where index < buffer.count {
            guard buffer[index] == byte else { throw PayloadDecodingError(.badMagic, at: 0) }
        }
        guard buffer.count >= magic.count else {
            throw PayloadDecodingError(.truncated(item: "magic", needed: magic.count, remaining: buffer.count), at: 0)
        }
        offset = magic.count
    }

    // MARK: Values

    /// The `userInfo` dictionary and every value nested in it.
    ///
    /// Nesting is decoded without recursion: `stack` holds the collections being filled, `userInfo` at
    /// the bottom, so the depth of the input never reaches the call stack. A failure is attributed to
    /// the path of the elements being read in every open collection.
    private mutating func readUserInfo() throws(PayloadDecodingError) -> UserInfo {
        var stack: [OpenCollection] = []
        var userInfo: UserInfo = [:]
        do throws(PayloadDecodingError) {
            stack.append(try openCollection(.dictionary))
            while let top = stack.indices.last {
                if stack[top].isComplete {
                    let finished = stack.removeLast()
                    if let parent = stack.indices.last {
                        try stack[parent].store(finished.value)
                    } else {
                        userInfo = finished.dictionary
                    }
                    continue
                }
                stack[top].elementStart = offset
                if stack[top].kind == .dictionary {
                    stack[top].position = .key
                    stack[top].key = try readString()
                }
                stack[top].position = .element

                let start = offset
                let tag = try readByte(item: "tag")
                valueCount += 1
                guard valueCount <= limits.maximumValueCount else {
                    throw PayloadDecodingError(.tooManyValues(limit: limits.maximumValueCount), at: start)
                }
                if let kind = OpenCollection.Kind(tag: tag) {
                    // `userInfo` is at depth 0, so the new collection is at depth `stack.count`.
                    guard stack.count <= maximumDepth else {
                        throw PayloadDecodingError(.tooDeep(limit: maximumDepth), at: start)
                    }
                    stack.append(try openCollection(kind))
                } else {
                    try stack[top].store(try readScalar(tag: tag, at: start))
                }
            }
        } catch {
            throw error.within(stack.map(\.pathComponent).joined())
        }
        return userInfo
    }

    /// Reads a collection's count and returns it ready to be filled, its storage reserved.
    private mutating func openCollection(_ kind: OpenCollection.Kind) throws(PayloadDecodingError) -> OpenCollection {
        let count: Int
        switch kind {
        case .array: count = try readCount(of: "array", elements: "elements", minimumElementSize: 1)
        case .dictionary: count = try readCount(of: "dictionary", elements: "entries", minimumElementSize: 2)
        case .set: count = try readCount(of: "set", elements: "elements", minimumElementSize: 1)
        }
        return OpenCollection(kind, count: count)
    }

    /// The body of a value that is not a collection, whose tag at `start` has been read.
    private mutating func readScalar(tag: UInt8, at start: Int) throws(PayloadDecodingError) -> UserInfoValue {
        switch tag {
        case PayloadLayout.Tag.null:
            return .null
        case PayloadLayout.Tag.false:
            return .bool(false)
        case PayloadLayout.Tag.true:
            return .bool(true)
        case PayloadLayout.Tag.integer:
            let zigZag = try readVarint()
            return .integer(Int64(bitPattern: (zigZag >> 1) ^ (0 &- (zigZag & 1))))
        case PayloadLayout.Tag.double:
            return .double(Double(bitPattern: try readBigEndianUInt64(item: "double")))
        case PayloadLayout.Tag.string:
            return .string(try readString())
        case PayloadLayout.Tag.data:
            return .data(try readData())
        case PayloadLayout.Tag.date:
            return .date(try readDate())
        case PayloadLayout.Tag.url:
            return .url(try readURL())
        case PayloadLayout.Tag.uuid:
            return .uuid(try readUUID())
        default:
            throw PayloadDecodingError(.unknownTag(tag), at: start)
        }
    }

    /// A count, then that many distinct strings.
    private mutating func readStringSet() throws(PayloadDecodingError) -> Set<String> {
        let count = try readCount(of: "set", elements: "strings", minimumElementSize: 1)
        var strings = Set<String>(minimumCapacity: count)
        for index in 0..<count {
            let stringStart = offset
            let string: String
            do throws(PayloadDecodingError) {
                string = try readString()
            } catch {
                throw error.within(PayloadPath.index(index))
            }
            guard strings.insert(string).inserted else {
                throw PayloadDecodingError(.duplicateSetElement, at: stringStart)
            }
        }
        return strings
    }

    /// A collection's element count, checked against the limit and against the remaining bytes
    /// (every element takes at least `minimumElementSize` bytes), so it is safe to reserve.
    private mutating func readCount(
        of collection: String, elements: String, minimumElementSize: Int
    ) throws(PayloadDecodingError) -> Int {
        let start = offset
        let count = Int(clamping: try readVarint())
        guard count <= limits.maximumCollectionCount else {
            throw PayloadDecodingError(
                .tooManyElements(count: count, limit: limits.maximumCollectionCount), at: start)
        }
        let (needed, overflow) = count.multipliedReportingOverflow(by: minimumElementSize)
        guard !overflow, needed <= remaining else {
            throw PayloadDecodingError(
                .truncated(
                    item: "\(collection) of \(count) \(elements)", needed: overflow ? .max : needed,
                    remaining: remaining),
                at: start)
        }
        return count
    }

    // MARK: Scalars

    private mutating func readByte(item: String) throws(PayloadDecodingError) -> UInt8 {
        guard offset < buffer.count else {
            throw PayloadDecodingError(.truncated(item: item, needed: 1, remaining: 0), at: offset)
        }
        let byte = buffer[offset]
        offset += 1
        return byte
    }

    /// Unsigned LEB128, at most 10 bytes, minimally encoded, at most `UInt64.max`.
    private mutating func readVarint() throws(PayloadDecodingError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var length = 0
        while true {
            guard offset < buffer.count else {
                throw PayloadDecodingError(
                    .truncated(item: "varint", needed: length + 1, remaining: length), at: start)
            }
            let byte = buffer[offset]
            offset += 1
            length += 1
            // The tenth byte holds only bit 63: anything above 1 overflows or continues past 10 bytes.
            if length == 10 && byte > 1 {
                throw PayloadDecodingError(.invalidVarint, at: start)
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                // A final zero byte after others adds nothing: the same value has a shorter encoding.
                guard byte != 0 || length == 1 else { throw PayloadDecodingError(.invalidVarint, at: start) }
                return value
            }
            shift += 7
        }
    }

    /// A varint length followed by that many bytes, returned in place (not copied).
    private mutating func readLengthPrefixed(item: String) throws(PayloadDecodingError) -> UnsafeRawBufferPointer {
        let start = offset
        let length = Int(clamping: try readVarint())
        guard length <= remaining else {
            throw PayloadDecodingError(.truncated(item: item, needed: length, remaining: remaining), at: start)
        }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + length])
        offset += length
        return bytes
    }

    private mutating func readString() throws(PayloadDecodingError) -> String {
        let bytes = try readLengthPrefixed(item: "string")
        guard let string = Self.string(validating: bytes) else {
            throw PayloadDecodingError(.invalidUTF8, at: offset - bytes.count)
        }
        return string
    }

    /// The bytes as a string, or nil if they are not valid UTF-8.
    private static func string(validating bytes: UnsafeRawBufferPointer) -> String? {
        // `String(decoding:as:)` takes the standard library's fast path and replaces ill-formed
        // sequences with U+FFFD, so the input was valid exactly when its bytes come back unchanged.
        // (`String(validating:as:)` would do the same check, but through an unspecialized generic.)
        var string = bytes.withMemoryRebound(to: UInt8.self) { String(decoding: $0, as: UTF8.self) }
        let isUnchanged = string.withUTF8 { utf8 in
            guard utf8.count == bytes.count else { return false }
            guard let decoded = utf8.baseAddress, let original = bytes.baseAddress else { return true }
            return memcmp(decoded, original, bytes.count) == 0
        }
        return isUnchanged ? string : nil
    }

    private mutating func readURL() throws(PayloadDecodingError) -> URL {
        let bytes = try readLengthPrefixed(item: "URL")
        let textStart = offset - bytes.count
        guard let text = Self.string(validating: bytes) else {
            throw PayloadDecodingError(.invalidUTF8, at: textStart)
        }
        guard let url = URL(string: text) else { throw PayloadDecodingError(.invalidURL, at: textStart) }
        return url
    }

    private mutating func readData() throws(PayloadDecodingError) -> Data {
        let bytes = try readLengthPrefixed(item: "data")
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return Data() }
        return Data(bytes: base, count: bytes.count)
    }

    private mutating func readDate() throws(PayloadDecodingError) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(bitPattern: try readBigEndianUInt64(item: "date")))
    }

    private mutating func readBigEndianUInt64(item: String) throws(PayloadDecodingError) -> UInt64 {
        guard remaining >= 8 else {
            throw PayloadDecodingError(.truncated(item: item, needed: 8, remaining: remaining), at: offset)
        }
        let value = buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
        return UInt64(bigEndian: value)
    }

    private mutating func readUUID() throws(PayloadDecodingError) -> UUID {
        guard remaining >= 16 else {
            throw PayloadDecodingError(.truncated(item: "UUID", needed: 16, remaining: remaining), at: offset)
        }
        let uuid = buffer.loadUnaligned(fromByteOffset: offset, as: uuid_t.self)
        offset += 16
        return UUID(uuid: uuid)
    }
}

/// A collection the decoder is filling: its declared count, the elements read so far and what it is
/// reading now (for error paths).
private struct OpenCollection {
    enum Kind {
        case array, dictionary, set

        /// The kind a value tag introduces, or nil for tags of other values.
        init?(tag: UInt8) {
            switch tag {
            case PayloadLayout.Tag.array: self = .array
            case PayloadLayout.Tag.dictionary: self = .dictionary
            case PayloadLayout.Tag.set: self = .set
            default: return nil
            }
        }
    }

    /// What the decoder is reading in this collection.
    enum Position {
        case betweenElements
        /// The key of entry number `index`.
        case key
        /// Element number `index`, or the value for `key`.
        case element
    }

    let kind: Kind
    /// The number of elements the encoding declares, already checked against the limits and the input size.
    let count: Int
    /// The number of elements stored so far, which is the index of the element being read.
    private(set) var index = 0
    var position = Position.betweenElements
    /// The offset of the element being read (of its key, in a dictionary).
    var elementStart = 0
    /// In a dictionary, the key of the entry being read.
    var key = ""
    private(set) var array: [UserInfoValue] = []
    private(set) var dictionary: [String: UserInfoValue] = [:]
    private(set) var set: Set<UserInfoValue> = []

    init(_ kind: Kind, count: Int) {
        self.kind = kind
        self.count = count
        switch kind {
        case .array: array.reserveCapacity(count)
        case .dictionary: dictionary.reserveCapacity(count)
        case .set: set.reserveCapacity(count)
        }
    }

    var isComplete: Bool { index == count }

    /// The collection as a value.
    var value: UserInfoValue {
        switch kind {
        case .array: .array(array)
        case .dictionary: .dictionary(dictionary)
        case .set: .set(set)
        }
    }

    /// This collection's part of the path of the element being read.
    var pathComponent: String {
        switch position {
        case .betweenElements: ""
        case .key: PayloadPath.keyOfEntry(index)
        case .element: kind == .dictionary ? PayloadPath.key(key) : PayloadPath.index(index)
        }
    }

    /// Adds the element just read, rejecting a duplicate key or set element.
    mutating func store(_ value: UserInfoValue) throws(PayloadDecodingError) {
        position = .betweenElements
        switch kind {
        case .array:
            array.append(value)
        case .dictionary:
            guard dictionary.updateValue(value, forKey: key) == nil else {
                throw PayloadDecodingError(.duplicateKey(key), at: elementStart)
            }
        case .set:
            guard set.insert(value).inserted else {
                throw PayloadDecodingError(.duplicateSetElement, at: elementStart)
            }
        }
        index += 1
    }
}
