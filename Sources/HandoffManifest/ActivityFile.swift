import Foundation
import HandoffCore

/// An activity described in a file: what `--activity FILE` makes current, and what
/// `handoff doctor` reads to check a payload without running a device.
///
/// The file is a property list (XML or binary) or a JSON object whose keys are `NSUserActivity`'s
/// properties:
///
/// | key | type | required |
/// |---|---|---|
/// | `activityType` | string, not empty | yes |
/// | `title` | string | no |
/// | `userInfo` | dictionary of property-list values | no (empty) |
/// | `webpageURL` | string, an http or https URL | no |
/// | `requiredUserInfoKeys` | array of strings | no |
/// | `expirationDate` | date (a JSON file: an ISO 8601 string) | no |
/// | `eligibleForHandoff` | Boolean | no (true) |
/// | `supportsContinuationStreams` | Boolean | no (false) |
/// | `targetContentIdentifier` | string | no |
///
/// `eligibleForSearch`, `eligibleForPublicIndexing`, `eligibleForPrediction`, `keywords` and
/// `persistentIdentifier` are Apple's too but mean nothing to Handoff: they are type-checked and
/// ignored, each with a ``warnings`` entry. Any other key is an error (a misspelt `userinfo`
/// would otherwise send an empty state without a word).
///
/// A property list's `userInfo` holds any property-list value (string, integer, real, Boolean,
/// date, data, array, dictionary); a JSON file's holds what JSON can (string, integer, double,
/// Boolean, null, array, object). The userInfo is checked against the payload codec's limits
/// (`PayloadLimits.default`: nesting depth, elements per collection, values in all), so an
/// activity read from a file always travels. Every error names the file and the key path
/// (`userInfo.items[2].when`); the decoder never traps on any input.
public struct ActivityFile: Sendable, Hashable {
    /// How the file was written.
    public enum Format: String, Sendable, Hashable {
        case xmlPropertyList = "XML property list"
        case binaryPropertyList = "binary property list"
        case openStepPropertyList = "OpenStep property list"
        case json = "JSON"
    }

    /// The file, as the caller named it (errors and warnings name it so).
    public var file: String
    public var format: Format
    public var activityType: String
    public var title: String?
    public var userInfo: UserInfo
    public var webpageURL: URL?
    public var requiredUserInfoKeys: Set<String>
    public var expirationDate: Date?
    public var isEligibleForHandoff: Bool
    public var supportsContinuationStreams: Bool
    public var targetContentIdentifier: String?
    /// What was read but means nothing to Handoff (keys Apple has for search and Siri).
    public var warnings: [ActivityFileWarning]

    /// The largest file read, in bytes (the activity payload's own limit is far lower: an
    /// activity this large can still be read, to rehearse 4611).
    public static let maximumFileBytes = 8 << 20
    /// The limits a userInfo is checked against: the payload codec's.
    public static let limits = PayloadLimits.default

    /// The keys a file may have.
    public static let keys = [
        "activityType", "title", "userInfo", "webpageURL", "requiredUserInfoKeys", "expirationDate",
        "eligibleForHandoff", "supportsContinuationStreams", "targetContentIdentifier",
    ]
    /// Apple's keys that Handoff ignores: read, type-checked, and reported as warnings.
    public static let ignoredKeys = [
        "eligibleForSearch", "eligibleForPublicIndexing", "eligibleForPrediction", "keywords", "persistentIdentifier",
    ]

    /// An activity file's contents made in code (what a decoded file holds).
    public init(
        file: String, format: Format, activityType: String, title: String? = nil, userInfo: UserInfo = [:],
        webpageURL: URL? = nil, requiredUserInfoKeys: Set<String> = [], expirationDate: Date? = nil,
        isEligibleForHandoff: Bool = true, supportsContinuationStreams: Bool = false,
        targetContentIdentifier: String? = nil, warnings: [ActivityFileWarning] = []
    ) {
        self.file = file
        self.format = format
        self.activityType = activityType
        self.title = title
        self.userInfo = userInfo
        self.webpageURL = webpageURL
        self.requiredUserInfoKeys = requiredUserInfoKeys
        self.expirationDate = expirationDate
        self.isEligibleForHandoff = isEligibleForHandoff
        self.supportsContinuationStreams = supportsContinuationStreams
        self.targetContentIdentifier = targetContentIdentifier
        self.warnings = warnings
    }

    /// Reads the file at `url`, naming it `name` (default: its path) in errors.
    public init(contentsOf url: URL, name: String? = nil) throws(ActivityFileError) {
        let name = name ?? url.path
        let data: Data
        do {
            data = try PropertyListReader.readData(at: url, name: name)
        } catch {
            throw ActivityFileError(file: name, manifestError: error, limit: Self.maximumFileBytes)
        }
        try self.init(data: data, name: name)
    }

    /// Decodes `data`, naming it `name` in errors. JSON when its first byte (after white space
    /// and a byte-order mark) is `{` or `[`; otherwise a property list.
    public init(data: Data, name: String) throws(ActivityFileError) {
        guard data.count <= Self.maximumFileBytes else {
            throw ActivityFileError(file: name, reason: .tooLarge(limit: Self.maximumFileBytes))
        }
        guard !data.isEmpty else { throw ActivityFileError(file: name, reason: .malformed("the file is empty")) }
        let root: Entry
        let format: Format
        if Self.looksLikeJSON(data) {
            format = .json
            guard let text = String(data: data, encoding: .utf8) else {
                throw ActivityFileError(file: name, reason: .malformed("JSON: the file is not UTF-8"))
            }
            do {
                root = .json(try JSONValue.parse(text))
            } catch {
                throw ActivityFileError(file: name, reason: .malformed("JSON: \(error)".escapingInvisibleCharacters))
            }
        } else {
            if data.starts(with: Array("bplist".utf8)) {
                format = .binaryPropertyList
            } else if data.firstNonBlankByte == UInt8(ascii: "<") {
                format = .xmlPropertyList
            } else {
                format = .openStepPropertyList
            }
            do {
                root = .plist(try PropertyListReader.foundationObject(from: data, name: name))
            } catch {
                throw ActivityFileError(file: name, manifestError: error, limit: Self.maximumFileBytes)
            }
        }
        var reader = Reader(file: name)
        self = try reader.activity(from: root, format: format)
    }

    /// Sets the file's properties, except `userInfo`, on `activity` (an app that keeps its state
    /// in a responder writes the userInfo at each save instead).
    public func applyProperties(to activity: UserActivity) throws(UserActivityError) {
        try activity.setWebpageURL(webpageURL)
        activity.title = title
        activity.requiredUserInfoKeys = requiredUserInfoKeys
        activity.expirationDate = expirationDate
        activity.isEligibleForHandoff = isEligibleForHandoff
        activity.supportsContinuationStreams = supportsContinuationStreams
        activity.targetContentIdentifier = targetContentIdentifier
    }

    /// A new activity of `application` with everything the file says, `userInfo` included (not
    /// yet current: call `becomeCurrent()`).
    public func makeActivity(in application: Application) throws(UserActivityError) -> UserActivity {
        let activity = try UserActivity(activityType: activityType, application: application)
        do {
            try applyProperties(to: activity)
        } catch {
            activity.invalidate()
            throw error
        }
        activity.userInfo = userInfo
        return activity
    }

    private static func looksLikeJSON(_ data: Data) -> Bool {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }
}

/// Something an activity file says that the simulator reads but does not use.
public struct ActivityFileWarning: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var keyPath: String
    public var message: String

    /// `FILE: KEY: message`.
    public var description: String { "\(file): \(keyPath): \(message)" }
}

/// Why an activity file cannot be used: the file, where in it (a key path such as
/// `userInfo.items[2].when`, nil for the file as a whole) and what is wrong there.
public struct ActivityFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// The file cannot be read; the detail says why (such as "no such file").
        case unreadable(String)
        /// The file is larger than `limit` bytes.
        case tooLarge(limit: Int)
        /// Not a property list or JSON; the detail says why.
        case malformed(String)
        /// A required key is absent.
        case missing
        /// The value has the wrong type.
        case wrongType(expected: String, found: String)
        /// A key the file may not have; `suggestion` is the key probably meant.
        case unknownKey(suggestion: String?)
        /// The value has the right type but cannot be used; the detail says why.
        case invalid(String)
        /// Nested deeper than the payload allows.
        case tooDeep(limit: Int)
        /// More elements or values than the payload allows; the detail says which limit.
        case tooMany(String)
    }

    public var file: String
    public var keyPath: String?
    public var reason: Reason

    public init(file: String, keyPath: String? = nil, reason: Reason) {
        self.file = file
        self.keyPath = keyPath
        self.reason = reason
    }

    init(file: String, manifestError: ManifestReadError, limit: Int) {
        self.file = file
        keyPath = nil
        switch manifestError.reason {
        case .unreadable(let detail): reason = .unreadable(detail)
        case .tooLarge: reason = .tooLarge(limit: limit)
        case .malformed(let detail): reason = .malformed(detail)
        case .notADictionary(let found): reason = .wrongType(expected: "a dictionary", found: found)
        }
    }

    public var message: String {
        switch reason {
        case .unreadable(let detail): "cannot read the file: \(detail)"
        case .tooLarge(let limit): "the file is larger than \(limit >> 20) MiB, too large for an activity"
        case .malformed(let detail): "not a property list or JSON: \(detail)"
        case .missing: "missing (required)"
        case .wrongType(let expected, let found): "must be \(expected), not \(found)"
        case .unknownKey(let suggestion):
            "unknown key"
                + (suggestion.map { " (did you mean \($0)?)" } ?? "")
                + "; keys: \(ActivityFile.keys.joined(separator: ", "))"
        case .invalid(let detail): detail
        case .tooDeep(let limit):
            "collections nested deeper than \(limit) levels (the payload's limit; a userInfo value is at level 1)"
        case .tooMany(let detail): detail
        }
    }

    /// `FILE: KEY.PATH: message`, or `FILE: message` for the whole file. Long paths are cut in
    /// the middle; control characters in keys are shown escaped.
    public var description: String {
        guard let keyPath else { return "\(file): \(message)" }
        let shown =
            keyPath.utf8.count > 240
            ? String(decoding: keyPath.utf8.prefix(120), as: UTF8.self) + "…"
                + String(decoding: keyPath.utf8.suffix(110), as: UTF8.self) : keyPath
        return "\(file): \(shown): \(message)"
    }
}

/// Converts the parsed file into an ``ActivityFile``, path by path.
private struct Reader {
    let file: String
    var valueCount = 0
    var warnings: [ActivityFileWarning] = []

    init(file: String) { self.file = file }

    func error(_ path: String?, _ reason: ActivityFileError.Reason) -> ActivityFileError {
        ActivityFileError(file: file, keyPath: path, reason: reason)
    }

    /// A value of the file, converted to a userInfo value (with the JSON's or the plist's kinds).
    mutating func activity(
        from root: Entry, format: ActivityFile.Format
    ) throws(ActivityFileError)
        -> ActivityFile
    {
        let entries: [String: Entry]
        switch root {
        case .json(let value):
            guard case .object(let object) = value else {
                throw error(nil, .wrongType(expected: "a JSON object at the top level", found: value.kindDescription))
            }
            entries = object.mapValues { .json($0) }
        case .plist(let object):
            guard let dictionary = object as? [AnyHashable: Any] else {
                throw error(
                    nil, .wrongType(expected: "a dictionary at the top level", found: Self.plistKind(object)))
            }
            var converted: [String: Entry] = [:]
            for (key, value) in dictionary {
                guard let key = key.base as? String else {
                    throw error(nil, .invalid("a top-level key is not a string"))
                }
                converted[key] = .plist(value)
            }
            entries = converted
        }
        for key in entries.keys.sorted()
        where !ActivityFile.keys.contains(key) && !ActivityFile.ignoredKeys.contains(key) {
            throw error(Self.show(key), .unknownKey(suggestion: Self.suggestion(for: key)))
        }
        guard let typeEntry = entries["activityType"] else { throw error("activityType", .missing) }
        let activityType = try string(typeEntry, "activityType")
        guard !activityType.allSatisfy(\.isWhitespace) else {
            throw error("activityType", .invalid("must not be empty"))
        }
        var result = ActivityFile(
            file: file, format: format, activityType: activityType, title: nil, userInfo: [:], webpageURL: nil,
            requiredUserInfoKeys: [], expirationDate: nil, isEligibleForHandoff: true,
            supportsContinuationStreams: false, targetContentIdentifier: nil, warnings: [])
        if let entry = entries["title"] { result.title = try string(entry, "title") }
        if let entry = entries["targetContentIdentifier"] {
            result.targetContentIdentifier = try string(entry, "targetContentIdentifier")
        }
        if let entry = entries["webpageURL"] {
            let text = try string(entry, "webpageURL")
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
                throw error("webpageURL", .invalid("not a URL: \"\(Self.clip(text))\""))
            }
            guard scheme == "http" || scheme == "https" else {
                throw error("webpageURL", .invalid("must use http or https, not \"\(Self.clip(scheme))\""))
            }
            result.webpageURL = url
        }
        if let entry = entries["requiredUserInfoKeys"] {
            result.requiredUserInfoKeys = Set(try strings(entry, "requiredUserInfoKeys"))
        }
        if let entry = entries["expirationDate"] { result.expirationDate = try date(entry, "expirationDate") }
        if let entry = entries["eligibleForHandoff"] {
            result.isEligibleForHandoff = try bool(entry, "eligibleForHandoff")
        }
        if let entry = entries["supportsContinuationStreams"] {
            result.supportsContinuationStreams = try bool(entry, "supportsContinuationStreams")
        }
        for key in ActivityFile.ignoredKeys {
            guard let entry = entries[key] else { continue }
            switch key {
            case "keywords": _ = try strings(entry, key)
            case "persistentIdentifier": _ = try string(entry, key)
            default: _ = try bool(entry, key)
            }
            warnings.append(
                ActivityFileWarning(
                    file: file, keyPath: key,
                    message: "read and ignored: it is for search and Siri, and Handoff does not send it"))
        }
        if let entry = entries["userInfo"] {
            guard entry.isDictionary, case .dictionary(let info) = try value(entry, path: "userInfo", depth: 0) else {
                throw error("userInfo", .wrongType(expected: "a dictionary", found: entry.kind))
            }
            result.userInfo = info
        }
        result.warnings = warnings
        return result
    }

    // MARK: Typed reads

    func string(_ entry: Entry, _ path: String) throws(ActivityFileError) -> String {
        switch entry {
        case .json(.string(let s)): return s
        case .plist(let object as String): return object
        default: throw error(path, .wrongType(expected: "a string", found: entry.kind))
        }
    }

    func bool(_ entry: Entry, _ path: String) throws(ActivityFileError) -> Bool {
        switch entry {
        case .json(.bool(let b)): return b
        case .plist(let number as NSNumber) where Self.isBoolean(number): return number.boolValue
        default: throw error(path, .wrongType(expected: "a Boolean", found: entry.kind))
        }
    }

    func strings(_ entry: Entry, _ path: String) throws(ActivityFileError) -> [String] {
        let elements: [Entry]
        switch entry {
        case .json(.array(let array)): elements = array.map { .json($0) }
        case .plist(let array as [Any]): elements = array.map { .plist($0) }
        default: throw error(path, .wrongType(expected: "an array of strings", found: entry.kind))
        }
        var result: [String] = []
        for (index, element) in elements.enumerated() {
            result.append(try string(element, "\(path)[\(index)]"))
        }
        return result
    }

    func date(_ entry: Entry, _ path: String) throws(ActivityFileError) -> Date {
        switch entry {
        case .plist(let date as Date): return date
        case .json(.string(let text)), .plist(let text as String):
            let formatter = ISO8601DateFormatter()
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) { return date }
            throw error(path, .invalid("not an ISO 8601 date such as 2026-11-28T10:00:00Z: \"\(Self.clip(text))\""))
        default:
            throw error(path, .wrongType(expected: "a date (or an ISO 8601 string)", found: entry.kind))
        }
    }

    // MARK: userInfo values

    /// Counts one value as the payload decoder does (every value at every depth, the top-level
    /// userInfo not).
    mutating func count(_ path: String) throws(ActivityFileError) {
        valueCount += 1
        guard valueCount <= ActivityFile.limits.maximumValueCount else {
            throw error(
                path,
                .tooMany(
                    "more than \(ActivityFile.limits.maximumValueCount) values in one userInfo (the payload's limit)"))
        }
    }

    func checkCount(_ count: Int, _ path: String) throws(ActivityFileError) {
        guard count <= ActivityFile.limits.maximumCollectionCount else {
            throw error(
                path,
                .tooMany(
                    "\(count) elements, more than \(ActivityFile.limits.maximumCollectionCount) (the payload's limit)"))
        }
    }

    /// `depth`: the depth a collection made of the value would have (a userInfo value is at 1,
    /// the userInfo itself at 0), as the payload codec and the headless JSON count it.
    mutating func value(_ entry: Entry, path: String, depth: Int) throws(ActivityFileError) -> UserInfoValue {
        if depth > 0 { try count(path) }
        switch entry {
        case .json(let json):
            switch json {
            case .null: return .null
            case .bool(let b): return .bool(b)
            case .integer(let i): return .integer(i)
            case .double(let d): return .double(d)
            case .string(let s): return .string(s)
            case .array(let array):
                return .array(try elements(array.map { .json($0) }, path: path, depth: depth))
            case .object(let object):
                return .dictionary(try members(object.map { ($0.key, .json($0.value)) }, path: path, depth: depth))
            }
        case .plist(let object):
            switch object {
            case let string as String:
                return .string(string)
            case let number as NSNumber:
                if Self.isBoolean(number) { return .bool(number.boolValue) }
                switch String(cString: number.objCType) {
                case "f", "d": return .double(number.doubleValue)
                case "Q", "L", "I", "S", "C":
                    guard number.uint64Value <= UInt64(Int64.max) else {
                        throw error(path, .invalid("the integer \(number.uint64Value) is larger than a 64-bit integer"))
                    }
                    return .integer(Int64(number.uint64Value))
                default: return .integer(number.int64Value)
                }
            case let date as Date:
                return .date(date)
            case let data as Data:
                return .data(data)
            case let array as [Any]:
                return .array(try elements(array.map { .plist($0) }, path: path, depth: depth))
            case let dictionary as [AnyHashable: Any]:
                var pairs: [(String, Entry)] = []
                pairs.reserveCapacity(dictionary.count)
                for (key, element) in dictionary {
                    guard let key = key.base as? String else {
                        throw error(path, .invalid("a dictionary key is not a string"))
                    }
                    pairs.append((key, .plist(element)))
                }
                return .dictionary(try members(pairs, path: path, depth: depth))
            default:
                throw error(path, .wrongType(expected: "a property-list value", found: Self.plistKind(object)))
            }
        }
    }

    mutating func elements(_ array: [Entry], path: String, depth: Int) throws(ActivityFileError) -> [UserInfoValue] {
        try checkDepth(depth, path)
        try checkCount(array.count, path)
        var result: [UserInfoValue] = []
        result.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            result.append(try value(element, path: "\(path)[\(index)]", depth: depth + 1))
        }
        return result
    }

    mutating func members(
        _ pairs: [(String, Entry)], path: String, depth: Int
    ) throws(ActivityFileError) -> [String: UserInfoValue] {
        // The userInfo itself (depth 0) is not a nesting level of the payload's values.
        if depth > 0 { try checkDepth(depth, path) }
        try checkCount(pairs.count, path)
        var result: [String: UserInfoValue] = [:]
        result.reserveCapacity(pairs.count)
        // Sorted, so that the first error reported is the same on every run.
        for (key, element) in pairs.sorted(by: { $0.0 < $1.0 }) {
            result[key] = try value(element, path: Self.appending(key, to: path), depth: depth + 1)
        }
        return result
    }

    func checkDepth(_ depth: Int, _ path: String) throws(ActivityFileError) {
        guard depth <= ActivityFile.limits.maximumDepth else {
            throw error(path, .tooDeep(limit: ActivityFile.limits.maximumDepth))
        }
    }

    // MARK: Helpers

    static func isBoolean(_ number: NSNumber) -> Bool {
        let code = String(cString: number.objCType)
        return code == "c" || code == "B"
    }

    static func plistKind(_ object: Any) -> String {
        switch object {
        case is String: "a string"
        case let number as NSNumber:
            isBoolean(number)
                ? "a Boolean" : ["f", "d"].contains(String(cString: number.objCType)) ? "a real number" : "an integer"
        case is Date: "a date"
        case is Data: "data"
        case is [Any]: "an array"
        case is [AnyHashable: Any]: "a dictionary"
        case is NSNull: "a null"
        default: "an unsupported value"
        }
    }

    /// `path.key`, or `path["key"]` when the key is not a plain name (escaped, and cut when long).
    static func appending(_ key: String, to path: String) -> String {
        let plain =
            !key.isEmpty && key.utf8.count <= 64
            && key.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_"
            }
        return plain ? "\(path).\(key)" : "\(path)[\(show(key))]"
    }

    /// A key as messages show it: quoted and escaped when it is not a plain name, cut when long.
    static func show(_ key: String) -> String {
        let clipped = clip(key)
        let plain =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_"
            }
        if plain && clipped == key { return key }
        var escaped = "\""
        for scalar in clipped.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value):
                escaped += "\\u{\(String(scalar.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    /// At most 80 UTF-8 bytes, cut on a character boundary, invisible characters escaped.
    static func clip(_ text: String) -> String {
        guard text.utf8.count > 80 else { return text.escapingInvisibleCharacters }
        var result = ""
        for character in text {
            guard result.utf8.count + character.utf8.count <= 77 else { break }
            result.append(character)
        }
        return result.escapingInvisibleCharacters + "…"
    }

    /// The key probably meant: the same letters ignoring case and an `is` prefix, or a known
    /// spelling of another tool.
    static func suggestion(for key: String) -> String? {
        let folded = key.lowercased()
        let aliases = [
            "type": "activityType", "url": "webpageURL", "webpageurl": "webpageURL",
            "requiredkeys": "requiredUserInfoKeys",
            "expiresat": "expirationDate", "eligible": "eligibleForHandoff", "streams": "supportsContinuationStreams",
        ]
        if let alias = aliases[folded] { return alias }
        let unprefixed = folded.hasPrefix("is") ? String(folded.dropFirst(2)) : folded
        return (ActivityFile.keys + ActivityFile.ignoredKeys).first { $0.lowercased() == unprefixed }
    }
}

/// One value of the file before conversion.
private enum Entry {
    case plist(Any)
    case json(JSONValue)

    var isDictionary: Bool {
        switch self {
        case .json(.object): true
        case .plist(let object): object is [AnyHashable: Any]
        default: false
        }
    }

    var kind: String {
        switch self {
        case .json(let value): value.kindDescription
        case .plist(let object): Reader.plistKind(object)
        }
    }
}

extension Data {
    fileprivate var firstNonBlankByte: UInt8? {
        var bytes = self[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
    }
}
