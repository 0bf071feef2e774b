/// A manifest file that cannot be read, or is not a property list whose top level is a dictionary.
public struct ManifestReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The file could not be read; `detail` says why (e.g. "no such file").
        case unreadable(detail: String)
        /// The file is larger than `limit` bytes, far more than any manifest needs.
        case tooLarge(limit: Int)
        /// The contents are not a valid property list (XML, binary or OpenStep); `detail` says why.
        case malformed(detail: String)
        /// The property list's top level is `found` (e.g. "an array"), not a dictionary.
        case notADictionary(found: String)
    }

    /// The file, as the caller named it (a path or a display name).
    public var file: String
    /// What went wrong.
    public var reason: Reason

    /// Creates an error for `file`.
    public init(file: String, reason: Reason) {
        self.file = file
        self.reason = reason
    }

    /// `<file>: <what went wrong>`, e.g. `App/Info.plist: cannot read the file: no such file`.
    public var description: String {
        switch reason {
        case .unreadable(let detail):
            "\(file): cannot read the file: \(detail)"
        case .tooLarge(let limit):
            "\(file): the file is larger than \(limit / (1 << 20)) MiB, too large for a manifest"
        case .malformed(let detail):
            "\(file): not a valid property list: \(detail)"
        case .notADictionary(let found):
            "\(file): the property list's top level is \(found), not a dictionary"
        }
    }
}

/// Why ``AppManifest/init(infoPlistAt:entitlementsAt:buildSettings:)`` failed: a file could not be
/// read, or the manifest has errors (warnings never fail).
public enum ManifestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A file could not be read or parsed.
    case unreadable(ManifestReadError)
    /// The manifest has errors: every problem of severity ``ManifestProblem/Severity/error``, in
    /// the order found (never empty).
    case invalid([ManifestProblem])
    /// Several entitlements files beside an Info.plist, none named after its folder.
    case ambiguousEntitlements(folder: String, candidates: [String])
    /// The build-settings file beside the Info.plist cannot be used.
    case buildSettings(BuildSettingsFileError)

    /// The problems that made the manifest invalid (empty for ``unreadable(_:)``).
    public var problems: [ManifestProblem] {
        if case .invalid(let problems) = self { problems } else { [] }
    }

    /// One line per error, each naming the file and the key, e.g.
    /// `Info.plist: CFBundleIdentifier: missing`.
    public var description: String {
        switch self {
        case .unreadable(let error):
            error.description
        case .invalid(let problems):
            problems.map(\.description).joined(separator: "\n")
        case .ambiguousEntitlements(let folder, let candidates):
            "\(folder): several entitlements files (\(candidates.joined(separator: ", "))) and none named after the folder; name one"
        case .buildSettings(let error):
            "\(error)"
        }
    }
}
