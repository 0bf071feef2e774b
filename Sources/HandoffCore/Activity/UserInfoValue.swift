import Foundation

/// A property-list-like value, the only kind of value a ``UserActivity``'s `userInfo` may hold.
///
/// Apple allows `NSArray`, `NSData`, `NSDate`, `NSDictionary`, `NSNull`, `NSNumber`, `NSSet`,
/// `NSString`, `NSURL` and `NSUUID`. Numbers keep their kind: an integer, a floating-point number
/// and a Boolean are distinct and survive a round trip through the payload encoding as what they were.
public enum UserInfoValue: Sendable {
    case array([UserInfoValue])
    case data(Data)
    case date(Date)
    case dictionary([String: UserInfoValue])
    case null
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case set(Set<UserInfoValue>)
    case string(String)
    case url(URL)
    case uuid(UUID)
}

extension UserInfoValue: Hashable {
    // Doubles compare by bit pattern so that every value, NaN and -0.0 included, round-trips
    // to an equal value and a set of doubles is well defined.
    public static func == (lhs: UserInfoValue, rhs: UserInfoValue) -> Bool {
        switch (lhs, rhs) {
        case (.array(let a), .array(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.date(let a), .date(let b)):
            return a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case (.dictionary(let a), .dictionary(let b)): return a == b
        case (.null, .null): return true
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.bool(let a), .bool(let b)): return a == b
        case (.set(let a), .set(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.url(let a), .url(let b)): return a.absoluteString == b.absoluteString
        case (.uuid(let a), .uuid(let b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .array(let a):
            hasher.combine(0)
            hasher.combine(a)
        case .data(let d):
            hasher.combine(1)
            hasher.combine(d)
        case .date(let d):
            hasher.combine(2)
            hasher.combine(d.timeIntervalSinceReferenceDate.bitPattern)
        case .dictionary(let d):
            hasher.combine(3)
            hasher.combine(d)
        case .null: hasher.combine(4)
        case .integer(let i):
            hasher.combine(5)
            hasher.combine(i)
        case .double(let d):
            hasher.combine(6)
            hasher.combine(d.bitPattern)
        case .bool(let b):
            hasher.combine(7)
            hasher.combine(b)
        case .set(let s):
            hasher.combine(8)
            hasher.combine(s)
        case .string(let s):
            hasher.combine(9)
            hasher.combine(s)
        case .url(let u):
            hasher.combine(10)
            hasher.combine(u.absoluteString)
        case .uuid(let u):
            hasher.combine(11)
            hasher.combine(u)
        }
    }
}

extension UserInfoValue {
    /// The kind of the value, by Apple's class name without the NS prefix (for messages and logs).
    public var kindName: String {
        switch self {
        case .array: "Array"
        case .data: "Data"
        case .date: "Date"
        case .dictionary: "Dictionary"
        case .null: "Null"
        case .integer: "Number(integer)"
        case .double: "Number(floating point)"
        case .bool: "Number(Boolean)"
        case .set: "Set"
        case .string: "String"
        case .url: "URL"
        case .uuid: "UUID"
        }
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var integerValue: Int64? { if case .integer(let i) = self { i } else { nil } }
    /// The value as a floating-point number: a double, or an integer widened.
    public var doubleValue: Double? {
        switch self {
        case .double(let d): d
        case .integer(let i): Double(i)
        default: nil
        }
    }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var urlValue: URL? { if case .url(let u) = self { u } else { nil } }
    public var dataValue: Data? { if case .data(let d) = self { d } else { nil } }
    public var dateValue: Date? { if case .date(let d) = self { d } else { nil } }
    public var uuidValue: UUID? { if case .uuid(let u) = self { u } else { nil } }
    public var arrayValue: [UserInfoValue]? { if case .array(let a) = self { a } else { nil } }
    public var dictionaryValue: [String: UserInfoValue]? { if case .dictionary(let d) = self { d } else { nil } }
    public var setValue: Set<UserInfoValue>? { if case .set(let s) = self { s } else { nil } }
}

extension UserInfoValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: UserInfoValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, UserInfoValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension UserInfoValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .array(let a): "[" + a.map(\.description).joined(separator: ", ") + "]"
        case .data(let d): "<\(d.count) bytes>"
        case .date(let d): ISO8601DateFormatter().string(from: d)
        case .dictionary(let d):
            "{" + d.keys.sorted().map { "\($0): \(d[$0]!.description)" }.joined(separator: ", ") + "}"
        case .null: "null"
        case .integer(let i): String(i)
        case .double(let v): String(v)
        case .bool(let b): String(b)
        case .set(let s): "Set(" + s.map(\.description).sorted().joined(separator: ", ") + ")"
        case .string(let s): "\"\(s)\""
        case .url(let u): u.absoluteString
        case .uuid(let u): u.uuidString
        }
    }
}

/// The `userInfo` dictionary of an activity.
public typealias UserInfo = [String: UserInfoValue]
