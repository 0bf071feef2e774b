import Foundation
import HandoffCore

/// What the Reader's activity carries: which document, and where in it.
///
/// The reading view writes ``userInfo(version:)`` (plain strings and integers) when the system
/// saves the activity; the document itself adds its URL under `UserActivity.documentURLKey`, and
/// the app delegate adds ``Key/handoffVersion`` in `application(_:didUpdate:)`. Continuing reads
/// them back with ``init(userInfo:)``, which understands every version up to ``currentVersion``.
///
/// | Version | Keys |
/// |---|---|
/// | 1 | `name` (file name), `pageNumber` (from 1), `offset` (source line of the page, from 0) |
/// | 2 | `documentName`, `page`, `line`, `character` (see ``Key``) |
///
/// Both carry `handoffVersion`; a payload without it is read by its keys (version 2 when it has
/// `page` or `documentName`).
///
/// A Reader refuses an activity of a newer version than it knows (``ReadingRestoreError/newerVersion(_:newest:)``):
/// it cannot tell what the newer keys mean, so it does not guess a place. To rehearse that with
/// two devices, a Reader can stand in for a newer one (``rehearsalVersion``): it writes the
/// current keys under the next version number, and reads up to it.
package struct ReadingState: Hashable, Sendable {
    /// The handoff version this Reader writes by default.
    package static let currentVersion = 2
    /// The versions this Reader reads (and can write).
    package static let supportedVersions = 1...currentVersion
    /// The version of a newer Reader that does not exist yet: a Reader started with it (`handoff
    /// device --reader-version 3`) writes the current keys with this version, so that a current
    /// Reader refuses its activities.
    package static let rehearsalVersion = currentVersion + 1
    /// Every version a Reader can be started with: the supported ones and ``rehearsalVersion``.
    package static let writableVersions = 1...rehearsalVersion

    /// The versions a Reader that writes `version` reads: every supported version, and its own.
    package static func readableVersions(writing version: Int) -> ClosedRange<Int> {
        1...max(currentVersion, version)
    }

    /// The `userInfo` keys the Reader writes (version 2).
    package enum Key {
        /// Integer: the handoff version of the keys below (added in `didUpdate`).
        package static let handoffVersion = "handoffVersion"
        /// String: the document's file name, e.g. `harrow-point.txt`.
        package static let documentName = "documentName"
        /// Integer: the logical page, from 1.
        package static let page = "page"
        /// Integer: the source line of the page at the top of the view, from 0.
        package static let line = "line"
        /// Integer: characters into that line where the view starts, from 0.
        package static let character = "character"
    }

    /// The `userInfo` keys of version 1 (a Reader started with `--reader-version 1` writes them).
    package enum VersionOneKey {
        /// String: the document's file name.
        package static let name = "name"
        /// Integer: the logical page, from 1.
        package static let pageNumber = "pageNumber"
        /// Integer: the source line of the page at the top of the view, from 0 (version 1 had no
        /// position within a wrapped line).
        package static let offset = "offset"
    }

    /// The document's file name.
    package var documentName: String
    /// The document's URL on the device that wrote the state (from the document URL key).
    package var documentURL: URL?
    package var position: ReadingPosition

    package init(documentName: String, documentURL: URL? = nil, position: ReadingPosition) {
        self.documentName = documentName
        self.documentURL = documentURL
        self.position = position
    }

    /// The Reader's own keys in the current version (the document URL is the document's to
    /// write, the version key the app delegate's).
    package var userInfo: UserInfo { userInfo(version: Self.currentVersion) }

    /// The Reader's own keys as a Reader of `version` writes them (version 1 its own keys, every
    /// later version the current keys).
    package func userInfo(version: Int) -> UserInfo {
        if version == 1 {
            return [
                VersionOneKey.name: .string(documentName),
                VersionOneKey.pageNumber: .integer(Int64(position.page)),
                VersionOneKey.offset: .integer(Int64(position.line)),
            ]
        }
        return [
            Key.documentName: .string(documentName),
            Key.page: .integer(Int64(position.page)),
            Key.line: .integer(Int64(position.line)),
            Key.character: .integer(Int64(position.character)),
        ]
    }

    /// The handoff version of a continued activity's `userInfo`: its ``Key/handoffVersion``, or
    /// for a payload without one, the version its keys belong to.
    ///
    /// - Throws: ``ReadingRestoreError/badValue(key:found:expected:)`` for a version that is not
    ///   a whole number from 1.
    package static func version(of userInfo: UserInfo) throws(ReadingRestoreError) -> Int {
        guard let value = userInfo[Key.handoffVersion] else {
            let isVersionOne =
                userInfo[Key.page] == nil && userInfo[Key.documentName] == nil
                && (userInfo[VersionOneKey.pageNumber] != nil || userInfo[VersionOneKey.name] != nil)
            return isVersionOne ? 1 : currentVersion
        }
        return try integer(value, key: Key.handoffVersion, minimum: 1)
    }

    /// The version of `userInfo`, checked against the versions a Reader reads: the first thing a
    /// Reader checks when an activity is continued.
    ///
    /// - Throws: ``ReadingRestoreError/newerVersion(_:newest:)`` for a version above
    ///   `readable`, ``ReadingRestoreError/badValue(key:found:expected:)`` for a version that is
    ///   not a whole number from 1.
    @discardableResult
    package static func checkVersion(
        of userInfo: UserInfo, readable: ClosedRange<Int> = supportedVersions
    )
        throws(ReadingRestoreError) -> Int
    {
        let version = try version(of: userInfo)
        guard version <= readable.upperBound else { throw .newerVersion(version, newest: readable.upperBound) }
        return version
    }

    /// Reads a state from a continued activity's `userInfo`, in any version of `readable` (by
    /// default up to ``currentVersion``; versions after 2 use version 2's keys).
    ///
    /// The document is named by the document URL key or by the version's name key
    /// (``Key/documentName``, ``VersionOneKey/name``; the URL wins when both are there, and it
    /// must then be a file URL); the page key is required. The line and character keys may be
    /// missing (the top of the page), but when present they must be integers of the right range.
    ///
    /// - Throws: ``ReadingRestoreError/newerVersion(_:newest:)`` for a version from a newer Reader
    ///   (no key is read then), else ``ReadingRestoreError`` naming the key that is missing or wrong.
    package init(userInfo: UserInfo, readable: ClosedRange<Int> = supportedVersions) throws(ReadingRestoreError) {
        let version = try Self.checkVersion(of: userInfo, readable: readable)
        let (nameKey, pageKey, lineKey) =
            version == 1
            ? (VersionOneKey.name, VersionOneKey.pageNumber, VersionOneKey.offset)
            : (Key.documentName, Key.page, Key.line)
        var url: URL?
        var referencedName: String?
        if let value = userInfo[UserActivity.documentURLKey] {
            if case .url(let reference) = value, reference.scheme == UbiquityContainer.scheme,
                !reference.lastPathComponent.isEmpty, reference.lastPathComponent != "/"
            {
                // An iCloud document this device has no container for: only its name is of use.
                referencedName = reference.lastPathComponent
            } else {
                guard case .url(let documentURL) = value, documentURL.isFileURL,
                    !documentURL.lastPathComponent.isEmpty
                else {
                    throw .badValue(key: UserActivity.documentURLKey, found: value, expected: "a file URL")
                }
                url = documentURL
            }
        }
        var name = url?.lastPathComponent ?? referencedName
        if let value = userInfo[nameKey] {
            guard case .string(let documentName) = value, !documentName.isEmpty, !documentName.contains("/") else {
                throw .badValue(key: nameKey, found: value, expected: "a file name")
            }
            name = name ?? documentName
        }
        guard let name else { throw .missingKey(nameKey) }
        guard let pageValue = userInfo[pageKey] else { throw .missingKey(pageKey) }
        let page = try Self.integer(pageValue, key: pageKey, minimum: 1)
        let line =
            try userInfo[lineKey].map { value throws(ReadingRestoreError) in
                try Self.integer(value, key: lineKey, minimum: 0)
            } ?? 0
        let character =
            version == 1
            ? 0
            : try userInfo[Key.character].map { value throws(ReadingRestoreError) in
                try Self.integer(value, key: Key.character, minimum: 0)
            } ?? 0
        self.init(
            documentName: name, documentURL: url,
            position: ReadingPosition(page: page, line: line, character: character))
    }

    private static func integer(_ value: UserInfoValue, key: String, minimum: Int) throws(ReadingRestoreError) -> Int {
        guard case .integer(let number) = value, number >= minimum, number <= Int64(Int32.max) else {
            throw .badValue(
                key: key, found: value, expected: minimum == 1 ? "a whole number from 1" : "a whole number from 0")
        }
        return Int(number)
    }
}

/// Why a continued activity could not be shown; the Reader keeps what it showed and says this.
package enum ReadingRestoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A required key is missing from the activity's `userInfo`.
    case missingKey(String)
    /// A key holds a value of the wrong kind or range.
    case badValue(key: String, found: UserInfoValue, expected: String)
    /// The document is not in this device's cloud folder (nor, for a document from this device's
    /// local folder, there).
    case documentNotFound(name: String)
    /// The document was found but could not be read.
    case unreadable(name: String, reason: String)
    /// The activity was written by a newer Reader, in a handoff version this one does not know
    /// (`newest` is the newest this one reads).
    case newerVersion(Int, newest: Int)

    package var description: String {
        switch self {
        case .missingKey(let key):
            "The activity has no \"\(key)\", so there is nothing to open. Nothing changed here."
        case .badValue(let key, let found, let expected):
            "The activity's \"\(key)\" is \(Self.describe(found)), not \(expected). Nothing changed here."
        case .documentNotFound(let name):
            "“\(name)” is not in this device's cloud folder, so it cannot be opened here."
        case .unreadable(let name, let reason):
            "“\(name)” could not be read: \(reason)"
        case .newerVersion(let version, let newest):
            "This activity comes from a newer Reader (version \(version)); this Reader understands versions "
                + "1 to \(newest). Update the Reader here to continue it. Nothing changed here."
        }
    }

    private static func describe(_ value: UserInfoValue) -> String {
        var shown = value.description
        if shown.count > 40 { shown = String(shown.prefix(39)) + "…" }
        return "\(shown) (\(value.kindName))"
    }
}
