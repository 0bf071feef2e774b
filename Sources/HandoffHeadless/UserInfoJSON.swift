import Foundation
import HandoffCore

/// Why a JSON value is not a valid `userInfo`: where (a JSON path such as
/// `userInfo.items[2].when`) and what is wrong there.
package struct UserInfoJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    package var path: String
    package var message: String
    package var description: String {
        // A path through many long keys is cut in the middle: its start and its end say where.
        // Cut by bytes, never by characters (one character can carry any number of combining marks).
        let shown =
            path.utf8.count > 240
            ? path.utf8Prefix(120) + "…" + path.utf8Suffix(110) : path
        return "\(shown): \(message)"
    }
}

/// Converts a `userInfo` to JSON and back, exactly both ways.
///
/// A userInfo is checked against the payload codec's limits (``limits``: nesting depth, elements
/// per collection, values in all) as it is read, so what the device accepts always travels.
///
/// JSON strings, Booleans, null, arrays and objects map directly; a number written without a
/// fraction or exponent is an integer (`Int64`), any other number a double. The other kinds are
/// objects with a single tag key:
///
/// | userInfo value | JSON |
/// |---|---|
/// | data | `{"$data": "<base64>"}` |
/// | date | `{"$date": <seconds since 2001-01-01T00:00:00Z, a double>}`; an ISO 8601 string is also accepted |
/// | URL | `{"$url": "https://…"}` |
/// | UUID | `{"$uuid": "E621E1F8-…"}` |
/// | set | `{"$set": [ … ]}` |
/// | integral double (`2.0`, `-0.0`, `1e300`) | `{"$double": 2.0}`; NaN and infinities: `{"$double": "nan"}`, `"-nan"`, `"inf"`, `"-inf"`, or `"0x7ff8000000000001"` (the bit pattern of any other NaN) |
/// | integer (optional form) | `{"$int": 5}` |
/// | dictionary whose only key starts with `$` | `{"$dict": {"$key": …}}` |
///
/// Dates are written as the exact double `Date.timeIntervalSinceReferenceDate` (ISO 8601 keeps
/// only milliseconds); doubles in the shortest form that reads back to the same bits.
/// ``json(from:)`` always writes the tagged form for integral doubles, so tools whose JSON
/// libraries print `2.0` as `2` still round-trip. An object of one key starting with `$` that is
/// not one of these tags is an error (it is almost always a typo).
package enum UserInfoJSON {
    /// The tags ``json(from:)`` writes and ``userInfo(from:)`` reads.
    package static let tags: [String] = ["$data", "$date", "$url", "$uuid", "$set", "$double", "$int", "$dict"]

    /// The `userInfo` a JSON object describes. The top level is always a plain dictionary (its
    /// keys are never tags).
    package static func userInfo(from json: JSONValue) throws(UserInfoJSONError) -> UserInfo {
        try userInfo(from: json, path: "userInfo")
    }

    /// The same, naming the root of error paths `path`.
    package static func userInfo(from json: JSONValue, path: String) throws(UserInfoJSONError) -> UserInfo {
        guard case .object(let object) = json else {
            throw UserInfoJSONError(path: path, message: "userInfo must be a JSON object, not \(json.kindDescription)")
        }
        var result: UserInfo = [:]
        var counter = ValueCounter()
        for (key, value) in object {
            result[key] = try self.value(from: value, path: appending(key, to: path), depth: 1, counter: &counter)
        }
        return result
    }

    /// The payload codec's bounds (docs/payload.md, "Limits"), checked here where a value enters
    /// so that a userInfo the device accepts is one every device can decode: a deeper or larger
    /// one is refused with its path instead of failing a continuation later with 4608.
    package static let limits = PayloadLimits.default

    /// Counts values as the payload decoder does (every value at every depth, collections
    /// included, the top-level userInfo not).
    struct ValueCounter {
        var count = 0
        mutating func add(path: String) throws(UserInfoJSONError) {
            count += 1
            guard count <= UserInfoJSON.limits.maximumValueCount else {
                throw UserInfoJSONError(
                    path: path,
                    message: "more than \(UserInfoJSON.limits.maximumValueCount) values in one userInfo"
                        + " (the payload's limit)")
            }
        }
    }

    /// The JSON form of a `userInfo` (a plain object at the top level).
    package static func json(from userInfo: UserInfo) -> JSONValue {
        .object(userInfo.mapValues { json(from: $0) })
    }

    /// The JSON form of one value.
    package static func json(from value: UserInfoValue) -> JSONValue {
        switch value {
        case .string(let s): return .string(s)
        case .bool(let b): return .bool(b)
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .double(let d):
            if d.isNaN {
                let text: String
                if d.bitPattern == Double.nan.bitPattern {
                    text = "nan"
                } else if d.bitPattern == (-Double.nan).bitPattern {
                    text = "-nan"
                } else {
                    text = "0x" + String(d.bitPattern, radix: 16)
                }
                return .object(["$double": .string(text)])
            }
            if d.isInfinite { return .object(["$double": .string(d < 0 ? "-inf" : "inf")]) }
            if d == d.rounded(.towardZero) { return .object(["$double": .double(d)]) }
            return .double(d)
        case .array(let a): return .array(a.map { json(from: $0) })
        case .dictionary(let d):
            let object = JSONValue.object(d.mapValues { json(from: $0) })
            if d.count == 1, let key = d.keys.first, key.hasPrefix("$") { return .object(["$dict": object]) }
            return object
        case .data(let data): return .object(["$data": .string(data.base64EncodedString())])
        case .date(let date): return .object(["$date": .double(date.timeIntervalSinceReferenceDate)])
        case .url(let url): return .object(["$url": .string(url.absoluteString)])
        case .uuid(let uuid): return .object(["$uuid": .string(uuid.uuidString)])
        case .set(let set):
            let elements = set.map { json(from: $0) }.sorted { $0.jsonText < $1.jsonText }
            return .object(["$set": .array(elements)])
        }
    }

    /// One value from its JSON form; `path` names it in errors.
    package static func value(from json: JSONValue, path: String) throws(UserInfoJSONError) -> UserInfoValue {
        var counter = ValueCounter()
        return try value(from: json, path: path, depth: 1, counter: &counter)
    }

    /// `depth`: the depth a collection made of `json` would have (a userInfo value is at 1).
    static func value(
        from json: JSONValue, path: String, depth: Int, counter: inout ValueCounter
    ) throws(UserInfoJSONError)
        -> UserInfoValue
    {
        try counter.add(path: path)
        func collection(_ count: Int, at path: String) throws(UserInfoJSONError) {
            guard depth <= limits.maximumDepth else {
                throw UserInfoJSONError(
                    path: path,
                    message: "collections nested deeper than \(limits.maximumDepth) levels"
                        + " (the payload's limit; a userInfo value is at level 1)")
            }
            guard count <= limits.maximumCollectionCount else {
                throw UserInfoJSONError(
                    path: path,
                    message: "\(count) elements, more than the \(limits.maximumCollectionCount)"
                        + " one collection may hold (the payload's limit)")
            }
        }
        switch json {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .integer(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .array(let a):
            try collection(a.count, at: path)
            var result: [UserInfoValue] = []
            result.reserveCapacity(a.count)
            for (index, element) in a.enumerated() {
                result.append(try value(from: element, path: "\(path)[\(index)]", depth: depth + 1, counter: &counter))
            }
            return .array(result)
        case .object(let object):
            if object.count == 1, let (key, tagged) = object.first, key.hasPrefix("$") {
                if key == "$set" || key == "$dict" {
                    try collection(tagged.collectionCount, at: appending(key, to: path))
                }
                return try taggedValue(key, tagged, path: path, depth: depth, counter: &counter)
            }
            try collection(object.count, at: path)
            var result: [String: UserInfoValue] = [:]
            for (key, element) in object {
                result[key] = try value(
                    from: element, path: appending(key, to: path), depth: depth + 1, counter: &counter)
            }
            return .dictionary(result)
        }
    }

    static func taggedValue(
        _ tag: String, _ json: JSONValue, path: String, depth: Int, counter: inout ValueCounter
    )
        throws(UserInfoJSONError) -> UserInfoValue
    {
        let inner = appending(tag, to: path)
        func fail(_ message: String) -> UserInfoJSONError { UserInfoJSONError(path: inner, message: message) }
        switch tag {
        case "$data":
            guard case .string(let text) = json else {
                throw fail("$data must be a base64 string, not \(json.kindDescription)")
            }
            guard let data = Data(base64Encoded: text) else {
                throw fail("$data is not valid base64: \"\(clip(text))\"")
            }
            return .data(data)
        case "$date":
            switch json {
            case .double(let seconds): return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case .integer(let seconds): return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
            case .string(let text):
                guard let date = parseISO8601(text) else {
                    throw fail(
                        "$date is not an ISO 8601 date-time such as \"2026-03-01T09:30:00.250Z\": \"\(clip(text))\"")
                }
                return .date(date)
            default:
                throw fail(
                    "$date must be seconds since 2001-01-01T00:00:00Z (a number) or an ISO 8601 string, not \(json.kindDescription)"
                )
            }
        case "$url":
            guard case .string(let text) = json else {
                throw fail("$url must be a string, not \(json.kindDescription)")
            }
            guard let url = URL(string: text) else { throw fail("$url is not a valid URL: \"\(clip(text))\"") }
            return .url(url)
        case "$uuid":
            guard case .string(let text) = json else {
                throw fail("$uuid must be a string, not \(json.kindDescription)")
            }
            guard let uuid = UUID(uuidString: text) else { throw fail("$uuid is not a UUID: \"\(clip(text))\"") }
            return .uuid(uuid)
        case "$set":
            guard case .array(let elements) = json else {
                throw fail("$set must be an array, not \(json.kindDescription)")
            }
            var set = Set<UserInfoValue>()
            for (index, element) in elements.enumerated() {
                let member = try value(from: element, path: "\(inner)[\(index)]", depth: depth + 1, counter: &counter)
                guard set.insert(member).inserted else {
                    throw UserInfoJSONError(
                        path: "\(inner)[\(index)]", message: "duplicate element \(clip(element.jsonText)) in $set")
                }
            }
            return .set(set)
        case "$double":
            switch json {
            case .double(let d): return .double(d)
            case .integer(let i): return .double(Double(i))
            case .string(let text):
                switch text.lowercased() {
                case "nan": return .double(.nan)
                case "-nan": return .double(-Double.nan)
                case "inf", "+inf", "infinity": return .double(.infinity)
                case "-inf", "-infinity": return .double(-.infinity)
                default:
                    let hex = text.lowercased()
                    if hex.hasPrefix("0x"), let bits = UInt64(hex.dropFirst(2), radix: 16) {
                        return .double(Double(bitPattern: bits))
                    }
                    throw fail(
                        "$double must be a number, \"nan\", \"-nan\", \"inf\", \"-inf\" or a bit pattern \"0x…\", not \"\(clip(text))\""
                    )
                }
            default:
                throw fail("$double must be a number or a string such as \"nan\", not \(json.kindDescription)")
            }
        case "$int":
            guard case .integer(let i) = json else {
                throw fail(
                    "$int must be an integer written without a fraction or exponent, not \(json.kindDescription)")
            }
            return .integer(i)
        case "$dict":
            guard case .object(let object) = json else {
                throw fail("$dict must be an object, not \(json.kindDescription)")
            }
            var result: [String: UserInfoValue] = [:]
            for (key, element) in object {
                result[key] = try value(
                    from: element, path: appending(key, to: inner), depth: depth + 1, counter: &counter)
            }
            return .dictionary(result)
        default:
            throw UserInfoJSONError(
                path: path,
                message: "unknown tag \(JSONValue.string(clip(tag)).jsonText) (tags: \(tags.joined(separator: ", "));"
                    + " write {\"$dict\": {…}} for a dictionary whose only key starts with $)")
        }
    }

    /// Parses an ISO 8601 date-time with or without fractional seconds.
    static func parseISO8601(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    /// `path.key`, or `path["key"]` when the key is not a plain identifier.
    static func appending(_ key: String, to path: String) -> String {
        let key = key.utf8.count > 64 ? key.utf8Prefix(48) + "…" : key
        let plain =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy { scalar in
                scalar == "_" || scalar == "$" || (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar)))
            } && !(key.first?.isNumber ?? false)
        return plain ? "\(path).\(key)" : "\(path)[\(JSONValue.string(key).jsonText)]"
    }

    /// `text` as an error quotes it: whole up to 60 bytes, otherwise its start and its size.
    static func clip(_ text: String) -> String {
        text.utf8.count <= 60 ? text : text.utf8Prefix(57) + "… (\(text.utf8.count) bytes)"
    }
}

extension JSONValue {
    /// The elements of an array or the entries of an object (0 for anything else).
    var collectionCount: Int {
        switch self {
        case .array(let elements): elements.count
        case .object(let entries): entries.count
        default: 0
        }
    }
}
