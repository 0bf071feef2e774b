import Foundation
import HandoffCore

/// What the Reader's activity carries: which document, and where in it.
///
/// The reading view writes ``userInfo`` (plain strings and integers) when the system saves the
/// activity; the document itself adds its URL under `UserActivity.documentURLKey`. Continuing
/// reads both back with ``init(userInfo:)``.
public struct ReadingState: Hashable, Sendable {
    /// The `userInfo` keys the Reader writes.
    public enum Key {
        /// String: the document's file name, e.g. `harrow-point.txt`.
        public static let documentName = "documentName"
        /// Integer: the logical page, from 1.
        public static let page = "page"
        /// Integer: the source line of the page at the top of the view, from 0.
        public static let line = "line"
        /// Integer: characters into that line where the view starts, from 0.
        public static let character = "character"
    }

    /// The document's file name.
    public var documentName: String
    /// The document's URL on the device that wrote the state (from the document URL key).
    public var documentURL: URL?
    public var position: ReadingPosition

    public init(documentName: String, documentURL: URL? = nil, position: ReadingPosition) {
        self.documentName = documentName
        self.documentURL = documentURL
        self.position = position
    }

    /// The Reader's own keys (the document URL is the document's to write).
    public var userInfo: UserInfo {
        [
            Key.documentName: .string(documentName),
            Key.page: .integer(Int64(position.page)),
            Key.line: .integer(Int64(position.line)),
            Key.character: .integer(Int64(position.character)),
        ]
    }

    /// Reads a state from a continued activity's `userInfo`.
    ///
    /// The document is named by the document URL key or by ``Key/documentName`` (the URL wins
    /// when both are there, and its file name must then be a file URL's); ``Key/page`` is
    /// required. ``Key/line`` and ``Key/character`` may be missing (the top of the page), but
    /// when present they must be integers of the right range.
    ///
    /// - Throws: ``ReadingRestoreError`` naming the key that is missing or wrong.
    public init(userInfo: UserInfo) throws(ReadingRestoreError) {
        var url: URL?
        if let value = userInfo[UserActivity.documentURLKey] {
            guard case .url(let documentURL) = value, documentURL.isFileURL, !documentURL.lastPathComponent.isEmpty else {
                throw .badValue(key: UserActivity.documentURLKey, found: value, expected: "a file URL")
            }
            url = documentURL
        }
        var name = url?.lastPathComponent
        if let value = userInfo[Key.documentName] {
            guard case .string(let documentName) = value, !documentName.isEmpty, !documentName.contains("/") else {
                throw .badValue(key: Key.documentName, found: value, expected: "a file name")
            }
            name = name ?? documentName
        }
        guard let name else { throw .missingKey(Key.documentName) }
        guard let pageValue = userInfo[Key.page] else { throw .missingKey(Key.page) }
        let page = try Self.integer(pageValue, key: Key.page, minimum: 1)
        let line = try userInfo[Key.line].map { value throws(ReadingRestoreError) in
            try Self.integer(value, key: Key.line, minimum: 0)
        } ?? 0
        let character = try userInfo[Key.character].map { value throws(ReadingRestoreError) in
            try Self.integer(value, key: Key.character, minimum: 0)
        } ?? 0
        self.init(documentName: name, documentURL: url, position: ReadingPosition(page: page, line: line, character: character))
    }

    private static func integer(_ value: UserInfoValue, key: String, minimum: Int) throws(ReadingRestoreError) -> Int {
        guard case .integer(let number) = value, number >= minimum, number <= Int64(Int32.max) else {
            throw .badValue(key: key, found: value, expected: minimum == 1 ? "a whole number from 1" : "a whole number from 0")
        }
        return Int(number)
    }
}

/// Why a continued activity could not be shown; the Reader keeps what it showed and says this.
public enum ReadingRestoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A required key is missing from the activity's `userInfo`.
    case missingKey(String)
    /// A key holds a value of the wrong kind or range.
    case badValue(key: String, found: UserInfoValue, expected: String)
    /// The document is not in this device's cloud folder (nor, for a document from this device's
    /// local folder, there).
    case documentNotFound(name: String)
    /// The document was found but could not be read.
    case unreadable(name: String, reason: String)

    public var description: String {
        switch self {
        case .missingKey(let key):
            "The activity has no \"\(key)\", so there is nothing to open. Nothing changed here."
        case .badValue(let key, let found, let expected):
            "The activity's \"\(key)\" is \(Self.describe(found)), not \(expected). Nothing changed here."
        case .documentNotFound(let name):
            "“\(name)” is not in this device's cloud folder, so it cannot be opened here."
        case .unreadable(let name, let reason):
            "“\(name)” could not be read: \(reason)"
        }
    }

    private static func describe(_ value: UserInfoValue) -> String {
        var shown = value.description
        if shown.count > 40 { shown = String(shown.prefix(39)) + "…" }
        return "\(shown) (\(value.kindName))"
    }
}
