import Foundation
import HandoffCore

/// The fields of a recorded event's line that the timeline reads: what ``RecordedEvent`` is
/// made of (its time, kind, device, continuation, peer, detail and explanation) and what
/// ``TimelineLayout`` pairs messages by (a beacon's serial and type hash, a payload's size, a
/// refusal's error code, a stream's side, a fault).
///
/// ``scan(_:)`` reads them straight from the line's bytes, checking the whole line as JSON
/// without building a value of every field (`handoff timeline` reads millions of lines). It
/// only takes lines in the plain form devices write: one object, keys without escapes, strings
/// without escapes, numbers that fit. Anything else, valid or not, it leaves to ``JSONValue``'s
/// parser (nil), whose value or error is then the line's: so a line reads the same either way,
/// and a bad line's error is the parser's, naming what is wrong and at which byte.
struct RecordedLineFields: Equatable {
    var time: String?
    var kind: String?
    var device: String?
    var continuation: String?
    var peer: String?
    var detail: String?
    var explanation: String?
    var pairing = RecordedEvent.PairingFields()

    init() {}

    /// The fields of a line's object as ``JSONValue`` parsed it.
    init(_ object: [String: JSONValue]) {
        time = object["time"]?.stringValue
        kind = object["kind"]?.stringValue
        device = object["device"]?.stringValue
        continuation = object["continuation"]?.stringValue
        peer = object["peer"]?.stringValue
        detail = object["detail"]?.stringValue
        explanation = object["explanation"]?.stringValue
        pairing = RecordedEvent.PairingFields(
            serial: object["serial"].map(Self.scalar), typeHash: object["typeHash"].map(Self.scalar),
            size: object["size"].map(Self.scalar), errorCode: object["errorCode"].map(Self.scalar),
            side: object["side"].map(Self.scalar), fault: object["fault"].map(Self.scalar))
    }

    /// What the pairing keeps of a value: its string or its integer (the only ways it is read,
    /// ``RecordedEvent/string(_:)`` and ``RecordedEvent/integer(_:)``), anything else as null.
    static func scalar(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string, .integer: value
        default: .null
        }
    }

    /// The fields of a line (its bytes, UTF-8 checked, without its newline) in the plain form;
    /// nil for any other line, valid or not (``JSONValue/parse(utf8:)`` reads it then).
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> RecordedLineFields? {
        spans(bytes)?.fields(in: bytes)
    }

    /// ``scan(_:)``'s fields as where they are in the line, without a string of each: what the
    /// reader takes (a string is a heap object, and a recording has millions of lines).
    static func spans(_ bytes: UnsafeBufferPointer<UInt8>) -> Spans? {
        var scanner = Scanner(bytes: bytes)
        var spans = Spans()
        guard scanner.topLevel(into: &spans) else { return nil }
        return spans
    }

    /// The fields of a line in the plain form as ranges of its bytes: a string field's text
    /// between its quotes (nil: not recorded, or not a string), and the pairing's values.
    struct Spans {
        var time: Range<Int>?
        var kind: Range<Int>?
        var device: Range<Int>?
        var continuation: Range<Int>?
        var peer: Range<Int>?
        var detail: Range<Int>?
        var explanation: Range<Int>?
        var pairing = RecordedEvent.PairingFields()

        /// The fields themselves, read from `bytes` (the line the spans are of).
        func fields(in bytes: UnsafeBufferPointer<UInt8>) -> RecordedLineFields {
            func text(_ range: Range<Int>?) -> String? {
                range.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
            }
            var fields = RecordedLineFields()
            fields.time = text(time)
            fields.kind = text(kind)
            fields.device = text(device)
            fields.continuation = text(continuation)
            fields.peer = text(peer)
            fields.detail = text(detail)
            fields.explanation = text(explanation)
            fields.pairing = pairing
            return fields
        }
    }

    /// The keys read, by their bytes.
    enum Key {
        case time, kind, device, continuation, peer, detail, explanation
        case serial, typeHash, size, errorCode, side, fault
    }

    /// A validating scanner of the plain form. Every method returns false (or nil) as soon as
    /// the line is not in it; it never throws and never traps on any input.
    struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        /// How deeply the plain form nests (the parser allows more, and reads deeper lines).
        static let maximumDepth = 32
        /// The keys of one object that are compared for duplicates (more: left to the parser).
        static let maximumKeys = 64

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// The line's one object, its known fields into `fields`.
        mutating func topLevel(into fields: inout Spans) -> Bool {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return false }
            guard object(depth: 0, reading: true, into: &fields) else { return false }
            skipWhitespace()
            return index == bytes.count
        }

        /// An object from its `{`: keys told apart (a duplicate is the parser's error), and
        /// when `reading`, the known keys' values read into `fields`.
        mutating func object(depth: Int, reading: Bool, into fields: inout Spans) -> Bool {
            guard depth < Self.maximumDepth else { return false }
            index += 1  // {
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return true
            }
            return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: Self.maximumKeys) { keys in
                var keyCount = 0
                // A bit for each key seen, by its length and its first and last bytes: a key is
                // compared with the earlier ones only when its bit was set (comparing each key
                // with every earlier one was some 1.5 % of `handoff timeline --print`'s
                // instructions).
                var seen: UInt64 = 0
                while true {
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = plainString(ascii: true)
                    else { return false }
                    // A duplicate key is the parser's error.
                    guard keyCount < keys.count else { return false }
                    let bit = Self.bit(of: key, in: bytes)
                    if seen & bit != 0 {
                        for earlier in keys[..<keyCount] where same(earlier, key) { return false }
                    }
                    seen |= bit
                    keys[keyCount] = key
                    keyCount += 1
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
                    index += 1
                    skipWhitespace()
                    if reading, let known = Self.key(of: key, in: bytes) {
                        guard value(depth: depth + 1, for: known, into: &fields) else { return false }
                    } else {
                        guard skipValue(depth: depth + 1) else { return false }
                    }
                    if let end = afterElement(closing: UInt8(ascii: "}")) { return end }
                }
            }
        }

        /// A key's bit among 64, by its length and its first and last bytes: keys with the same
        /// bytes have the same bit.
        static func bit(of key: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
            guard !key.isEmpty else { return 1 }
            let hash = key.count &* 7 &+ Int(bytes[key.lowerBound]) &* 3 &+ Int(bytes[key.upperBound - 1])
            return 1 << UInt64(hash & 63)
        }

        /// Whether two ranges of the line hold the same bytes.
        func same(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
            guard a.count == b.count else { return false }
            guard let base = bytes.baseAddress else { return a.isEmpty }
            return memcmp(base + a.lowerBound, base + b.lowerBound, a.count) == 0
        }

        /// The known key a key's bytes are, if any.
        static func key(of range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Key? {
            func `is`(_ name: StaticString) -> Bool {
                name.utf8CodeUnitCount == range.count
                    && memcmp(bytes.baseAddress! + range.lowerBound, name.utf8Start, range.count) == 0
            }
            guard !range.isEmpty else { return nil }
            switch range.count {
            case 4:
                if `is`("time") { return .time }
                if `is`("kind") { return .kind }
                if `is`("peer") { return .peer }
                if `is`("size") { return .size }
                if `is`("side") { return .side }
            case 5: if `is`("fault") { return .fault }
            case 6:
                if `is`("device") { return .device }
                if `is`("detail") { return .detail }
                if `is`("serial") { return .serial }
            case 8: if `is`("typeHash") { return .typeHash }
            case 9: if `is`("errorCode") { return .errorCode }
            case 11: if `is`("explanation") { return .explanation }
            case 12: if `is`("continuation") { return .continuation }
            default: break
            }
            return nil
        }

        /// A known key's value, read into `fields`: a string's range (a pairing value's string
        /// made), an integer, anything else as not a string (a pairing value as null).
        mutating func value(depth: Int, for key: Key, into fields: inout Spans) -> Bool {
            guard index < bytes.count else { return false }
            var range: Range<Int>?
            var scalar = JSONValue.null
            switch bytes[index] {
            case UInt8(ascii: "\""):
                guard let string = plainString(ascii: false) else { return false }
                range = string
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard let number = number() else { return false }
                if let integer = number { scalar = .integer(integer) }
            default:
                guard skipValue(depth: depth) else { return false }
            }
            func pairingValue() -> JSONValue {
                guard let range else { return scalar }
                return .string(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
            }
            switch key {
            case .time: fields.time = range
            case .kind: fields.kind = range
            case .device: fields.device = range
            case .continuation: fields.continuation = range
            case .peer: fields.peer = range
            case .detail: fields.detail = range
            case .explanation: fields.explanation = range
            case .serial: fields.pairing.serial = pairingValue()
            case .typeHash: fields.pairing.typeHash = pairingValue()
            case .size: fields.pairing.size = pairingValue()
            case .errorCode: fields.pairing.errorCode = pairingValue()
            case .side: fields.pairing.side = pairingValue()
            case .fault: fields.pairing.fault = pairingValue()
            }
            return true
        }

        /// Any value, checked and passed over.
        mutating func skipValue(depth: Int) -> Bool {
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                var ignored = Spans()
                return object(depth: depth, reading: false, into: &ignored)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return plainString(ascii: false) != nil
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number() != nil
            default: return false
            }
        }

        mutating func array(depth: Int) -> Bool {
            guard depth < Self.maximumDepth else { return false }
            index += 1  // [
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return true
            }
            while true {
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                if let end = afterElement(closing: UInt8(ascii: "]")) { return end }
            }
        }

        /// After an element of an object or an array: nil at a comma (another element follows),
        /// true at `closing` (read), false at anything else or the line's end.
        mutating func afterElement(closing: UInt8) -> Bool? {
            skipWhitespace()
            guard index < bytes.count else { return false }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                return nil
            }
            guard bytes[index] == closing else { return false }
            index += 1
            return true
        }

        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count, let base = bytes.baseAddress,
                memcmp(base + index, text.utf8Start, count) == 0
            else { return false }
            index += count
            return true
        }

        /// A string from its opening quote without escapes or control characters (and with
        /// `ascii`, of ASCII only: keys, which Swift compares by their characters): the range of
        /// its bytes between the quotes.
        mutating func plainString(ascii: Bool) -> Range<Int>? {
            index += 1
            let start = index
            while index < bytes.count {
                skipPlainWords(ascii: ascii)
                guard index < bytes.count else { break }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return start..<(index - 1)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 || (ascii && byte >= 0x80) { return nil }
                index += 1
            }
            return nil
        }

        /// Passes over the string's bytes eight at a time while none of the eight can end it or
        /// be refused (a quote, a backslash, a control character, and with `ascii` a byte of a
        /// non-ASCII character): ``plainString(ascii:)`` looks at the rest one byte at a time.
        mutating func skipPlainWords(ascii: Bool) {
            guard let base = bytes.baseAddress else { return }
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            // Whether a byte of `word` is zero, or below `limit` (at most 0x80): exact as a yes or no.
            func hasByte(below limit: UInt64, in word: UInt64) -> Bool {
                (word &- ones &* limit) & ~word & highs != 0
            }
            while bytes.count - index >= 8 {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if hasByte(below: 1, in: word ^ (ones &* 0x22)) || hasByte(below: 1, in: word ^ (ones &* 0x5C))
                    || hasByte(below: 0x20, in: word) || (ascii && word & highs != 0)
                {
                    return
                }
                index += 8
            }
        }

        /// A number as the parser reads it: `.some(value)` for an integer of up to 18 digits,
        /// `.some(nil)` for a fraction without an exponent whose whole part has at most 300
        /// digits (a finite double); nil for anything else (an exponent, more digits, or not a
        /// number), left to the parser, which may refuse it.
        mutating func number() -> Int64?? {
            func isDigit(_ i: Int) -> Bool {
                i < bytes.count && bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9")
            }
            let negative = bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            guard isDigit(index) else { return nil }
            let digitsStart = index
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if isDigit(index) { return nil }
            } else {
                while isDigit(index) { index += 1 }
            }
            let digits = index - digitsStart
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                return nil
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard isDigit(index), digits <= 300 else { return nil }
                while isDigit(index) { index += 1 }
                if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                    return nil
                }
                return .some(nil)
            }
            guard digits <= 18 else { return nil }
            var value: Int64 = 0
            for offset in digitsStart..<index { value = value * 10 + Int64(bytes[offset] - UInt8(ascii: "0")) }
            return .some(negative ? -value : value)
        }
    }
}
