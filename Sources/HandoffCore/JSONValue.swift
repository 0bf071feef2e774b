import Foundation

/// A JSON value that keeps integers and floating-point numbers apart.
///
/// ``parse(_:)`` is a small strict RFC 8259 parser of its own (no `JSONSerialization`, whose
/// `NSNumber` bridging blurs Booleans, integers and doubles on Linux): a number written without a
/// fraction or an exponent is an ``integer(_:)``, any other number a ``double(_:)``. ``jsonText``
/// writes one line with the keys of every object sorted, doubles in Swift's shortest round-trip
/// form (`2.0` stays `2.0`, `-0.0` stays `-0.0`).
///
/// The project's one JSON model: headless commands and events, scenarios, recordings, the
/// headless process driver and association files all read and write JSON through it. A
/// `userInfo` is not JSON (it holds data, dates, URLs, UUIDs and sets): ``UserInfoValue`` stays
/// its own type, and HandoffHeadless's `UserInfoJSON` is the one exact conversion between the two.
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue: Hashable {
    // Doubles compare by bit pattern, so -0.0 differs from 0.0 and a NaN equals itself, as in
    // `UserInfoValue`.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b):
            hasher.combine(1)
            hasher.combine(b)
        case .integer(let i):
            hasher.combine(2)
            hasher.combine(i)
        case .double(let d):
            hasher.combine(3)
            hasher.combine(d.bitPattern)
        case .string(let s):
            hasher.combine(4)
            hasher.combine(s)
        case .array(let a):
            hasher.combine(5)
            hasher.combine(a)
        case .object(let o):
            hasher.combine(6)
            hasher.combine(o)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - Accessors

extension JSONValue {
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var integerValue: Int64? { if case .integer(let i) = self { i } else { nil } }
    /// A double, or an integer widened.
    public var doubleValue: Double? {
        switch self {
        case .double(let d): d
        case .integer(let i): Double(i)
        default: nil
        }
    }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// The member `key` of an object (nil for other values or a missing key).
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// What kind of JSON value this is, with an article, for messages ("a string", "an integer").
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .integer: "an integer"
        case .double: "a floating-point number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

// MARK: - Writing

extension JSONValue: CustomStringConvertible {
    public var description: String { jsonText }

    /// The value as one line of JSON, keys sorted. Non-finite doubles, which JSON cannot carry,
    /// are written as `null` (`UserInfoJSON` never produces them; it tags them).
    public var jsonText: String {
        var out = ""
        write(into: &out)
        return out
    }

    func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .double(let d): out += d.isFinite ? "\(d)" : "null"
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let a):
            out += "["
            for (index, element) in a.enumerated() {
                if index > 0 { out += "," }
                element.write(into: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (index, key) in o.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, into: &out)
                out += ":"
                o[key]!.write(into: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ string: String, into out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u" + String(format: "%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

// MARK: - Parsing

/// Why a line is not valid JSON, with the byte offset where the parser stopped.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var offset: Int
    public var message: String
    public var description: String { "\(message) (at byte \(offset))" }
}

extension JSONValue {
    /// Parses one complete JSON text (any value; surrounding whitespace allowed).
    ///
    /// Integers outside `Int64` and numbers outside `Double`'s range are errors rather than
    /// silently changed; nesting deeper than ``maximumDepth`` is an error rather than a crash.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(utf8: Array(text.utf8))
    }

    /// Parses one complete JSON text from its UTF-8 bytes (see ``parse(_:)``).
    public static func parse(utf8 bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = Parser(bytes: bytes)
        // A byte-order mark is tolerated at the very start.
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else {
            throw parser.error("unexpected \(parser.describeCurrent()) after the JSON value")
        }
        return value
    }

    /// How deeply arrays and objects may nest.
    public static let maximumDepth = 512

    /// A literal from the input as an error message quotes it: whole up to 40 characters, else
    /// its first 32 characters and how long it was, so a hostile megabyte of digits makes a
    /// one-line error, not a megabyte.
    public static func clipLiteral(_ text: String) -> String {
        guard text.utf8.count > 40 else { return text }
        return String(text.prefix(32)) + "… (\(text.utf8.count) bytes)"
    }

    struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func error(_ message: String) -> JSONParseError { JSONParseError(offset: index, message: message) }

        func describeCurrent() -> String {
            guard index < bytes.count else { return "end of input" }
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
            return String(format: "byte 0x%02x", byte)
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= JSONValue.maximumDepth else {
                throw error("nesting deeper than \(JSONValue.maximumDepth) levels")
            }
            guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try parseObject(depth: depth)
            case UInt8(ascii: "["): return try parseArray(depth: depth)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw error("unexpected \(describeCurrent()), expected a value")
            }
        }

        mutating func expectLiteral(_ literal: String) throws(JSONParseError) {
            let expected = Array(literal.utf8)
            guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
                throw error("invalid literal, expected \(literal)")
            }
            index += expected.count
        }

        mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
            index += 1
            var object: [String: JSONValue] = [:]
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error("unexpected \(describeCurrent()), expected a string key")
                }
                let keyStart = index
                let key = try parseString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    throw error("unexpected \(describeCurrent()), expected ':'")
                }
                index += 1
                skipWhitespace()
                let value = try parseValue(depth: depth + 1)
                guard object.updateValue(value, forKey: key) == nil else {
                    throw JSONParseError(offset: keyStart, message: "duplicate key \"\(JSONValue.clipLiteral(key))\"")
                }
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of input, expected ',' or '}'") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(object)
                }
                throw error("unexpected \(describeCurrent()), expected ',' or '}'")
            }
        }

        mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
            index += 1
            var array: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(array)
            }
            while true {
                skipWhitespace()
                array.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of input, expected ',' or ']'") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(array)
                }
                throw error("unexpected \(describeCurrent()), expected ',' or ']'")
            }
        }

        mutating func parseString() throws(JSONParseError) -> String {
            index += 1  // the opening quote
            // Most strings have no escape: one pass to the closing quote, and the bytes between
            // are the string (a recording of a million events reads some fifteen million).
            let plainStart = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return String(decoding: bytes[plainStart..<(index - 1)], as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                index += 1
            }
            var scalars = String.UnicodeScalarView()
            var runStart = plainStart
            func flush(_ bytes: ArraySlice<UInt8>, into scalars: inout String.UnicodeScalarView) {
                scalars.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars)
            }
            while true {
                guard index < bytes.count else { throw error("unterminated string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    flush(bytes[runStart..<index], into: &scalars)
                    index += 1
                    return String(scalars)
                }
                if byte < 0x20 {
                    throw error("control character \(String(format: "0x%02x", byte)) in a string (escape it)")
                }
                if byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                flush(bytes[runStart..<index], into: &scalars)
                index += 1
                guard index < bytes.count else { throw error("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    let unit = try parseHex4()
                    if (0xD800...0xDBFF).contains(unit) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else {
                            throw error("unpaired high surrogate \\u\(String(format: "%04X", unit))")
                        }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw error(
                                "high surrogate \\u\(String(format: "%04X", unit)) not followed by a low surrogate")
                        }
                        let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                        scalars.append(Unicode.Scalar(value)!)
                    } else if (0xDC00...0xDFFF).contains(unit) {
                        throw error("unpaired low surrogate \\u\(String(format: "%04X", unit))")
                    } else {
                        scalars.append(Unicode.Scalar(unit)!)
                    }
                default:
                    index -= 1
                    throw error("invalid escape \\\(describeCurrent())")
                }
                runStart = index
            }
        }

        mutating func parseHex4() throws(JSONParseError) -> UInt16 {
            guard bytes.count - index >= 4 else { throw error("incomplete \\u escape") }
            var value: UInt16 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw error("invalid hex digit \(describeCurrent()) in a \\u escape")
                }
                value = value << 4 | UInt16(digit)
                index += 1
            }
            return value
        }

        mutating func parseNumber() throws(JSONParseError) -> JSONValue {
            let start = index
            func isDigit(_ i: Int) -> Bool {
                i < bytes.count && bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9")
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(index) else { throw error("invalid number: expected a digit") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if isDigit(index) { throw error("invalid number: leading zero") }
            } else {
                while isDigit(index) { index += 1 }
            }
            var isInteger = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard isDigit(index) else { throw error("invalid number: expected a digit after '.'") }
                while isDigit(index) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard isDigit(index) else { throw error("invalid number: expected a digit in the exponent") }
                while isDigit(index) { index += 1 }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if isInteger {
                guard let value = Int64(text) else {
                    throw JSONParseError(
                        offset: start, message: "integer \(JSONValue.clipLiteral(text)) does not fit in 64 bits")
                }
                return .integer(value)
            }
            guard let value = Double(text), value.isFinite else {
                throw JSONParseError(
                    offset: start, message: "number \(JSONValue.clipLiteral(text)) is out of the range of a double")
            }
            return .double(value)
        }
    }
}
