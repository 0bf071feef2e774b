import Foundation
import HandoffCore

/// One step into a userInfo: a dictionary key or an array index.
package enum UserInfoPathStep: Hashable, Sendable {
    case key(String)
    case index(Int)
}

/// A userInfo as the rows of a tree: every value, its key, kind and value, depth first, keys
/// sorted. What the own-app screen draws and edits.
package struct ActivityTree: Hashable, Sendable {
    package struct Row: Hashable, Sendable {
        package var path: [UserInfoPathStep]
        /// The key (`noteID`) or index (`[2]`) as shown.
        package var label: String
        /// Apple's kind without NS (`String`, `Number(integer)`, `Dictionary`…).
        package var kind: String
        /// The value as one line (a collection: how many elements).
        package var value: String
        /// Strings and numbers can be edited.
        package var isEditable: Bool
        package var depth: Int { path.count - 1 }
    }

    package var rows: [Row]

    /// At most this many rows are made (a userInfo may hold far more values than a screen shows).
    package static let maximumRows = 10_000

    package init(_ userInfo: UserInfo) {
        var rows: [Row] = []
        Self.add(
            userInfo.sorted { $0.key < $1.key }.map { (UserInfoPathStep.key($0.key), $0.value) }, at: [], to: &rows)
        self.rows = rows
    }

    private static func add(
        _ entries: [(UserInfoPathStep, UserInfoValue)], at path: [UserInfoPathStep], to rows: inout [Row]
    ) {
        for (step, value) in entries {
            guard rows.count < maximumRows else { return }
            let here = path + [step]
            let label: String =
                switch step {
                case .key(let key): key
                case .index(let index): "[\(index)]"
                }
            rows.append(
                Row(
                    path: here, label: label, kind: value.kindName, value: describe(value),
                    isEditable: value.isEditable))
            switch value {
            case .dictionary(let dictionary):
                add(dictionary.sorted { $0.key < $1.key }.map { (.key($0.key), $0.value) }, at: here, to: &rows)
            case .array(let array):
                add(array.enumerated().map { (.index($0.offset), $0.element) }, at: here, to: &rows)
            case .set(let set):
                add(
                    set.map { $0 }.sorted { $0.description < $1.description }.enumerated().map {
                        (.index($0.offset), $0.element)
                    }, at: here, to: &rows)
            default:
                continue
            }
        }
    }

    /// One line for a value: a collection by its count, data by its size, text as it is.
    static func describe(_ value: UserInfoValue) -> String {
        switch value {
        case .dictionary(let d): d.count == 1 ? "1 entry" : "\(d.count) entries"
        case .array(let a): a.count == 1 ? "1 element" : "\(a.count) elements"
        case .set(let s): s.count == 1 ? "1 element" : "\(s.count) elements"
        case .string(let s): "\"\(s)\""
        case .data(let d): d.count == 1 ? "1 byte" : "\(d.count) bytes"
        default: value.description
        }
    }
}

extension UserInfoValue {
    /// Whether the own-app screen edits it in place: strings and numbers (not Booleans).
    var isEditable: Bool {
        switch self {
        case .string, .integer, .double: true
        default: false
        }
    }

    /// The value as its editor starts: the text, or the number.
    var editText: String {
        switch self {
        case .string(let s): s
        case .integer(let i): String(i)
        case .double(let d): String(d)
        default: description
        }
    }
}

/// Why an edit cannot be made.
package struct ActivityEditError: Error, Hashable, Sendable, CustomStringConvertible {
    package var description: String
}

extension UserInfo {
    /// The value at `path`, or nil.
    package func value(at path: [UserInfoPathStep]) -> UserInfoValue? {
        guard case .key(let first)? = path.first, let value = self[first] else { return nil }
        return value.value(at: path.dropFirst())
    }

    /// Replaces the value at `path` with `text` read as the old value's kind: a string stays a
    /// string, a number must be a number (an integer stays one if `text` is whole).
    package mutating func edit(at path: [UserInfoPathStep], to text: String) throws(ActivityEditError) {
        guard case .key(let first)? = path.first, let old = self[first] else {
            throw ActivityEditError(description: "the value is gone")
        }
        self[first] = try old.editing(at: path.dropFirst(), to: text)
    }
}

extension UserInfoValue {
    func value(at path: ArraySlice<UserInfoPathStep>) -> UserInfoValue? {
        guard let step = path.first else { return self }
        switch (self, step) {
        case (.dictionary(let d), .key(let key)): return d[key]?.value(at: path.dropFirst())
        case (.array(let a), .index(let i)) where a.indices.contains(i): return a[i].value(at: path.dropFirst())
        default: return nil
        }
    }

    func editing(at path: ArraySlice<UserInfoPathStep>, to text: String) throws(ActivityEditError) -> UserInfoValue {
        guard let step = path.first else { return try replaced(with: text) }
        switch (self, step) {
        case (.dictionary(var d), .key(let key)):
            guard let old = d[key] else { throw ActivityEditError(description: "the value is gone") }
            d[key] = try old.editing(at: path.dropFirst(), to: text)
            return .dictionary(d)
        case (.array(var a), .index(let i)) where a.indices.contains(i):
            a[i] = try a[i].editing(at: path.dropFirst(), to: text)
            return .array(a)
        default:
            throw ActivityEditError(description: "only strings and numbers in dictionaries and arrays can be edited")
        }
    }

    func replaced(with text: String) throws(ActivityEditError) -> UserInfoValue {
        switch self {
        case .string: return .string(text)
        case .integer, .double:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if case .integer = self, let integer = Int64(trimmed) { return .integer(integer) }
            if let double = Double(trimmed), double.isFinite { return .double(double) }
            throw ActivityEditError(description: "“\(trimmed.prefix(40))” is not a number")
        default:
            throw ActivityEditError(description: "a \(kindName) cannot be edited here")
        }
    }
}
