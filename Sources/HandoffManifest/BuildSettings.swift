/// Expands Xcode build-setting references such as `$(PRODUCT_BUNDLE_IDENTIFIER)` in the strings of
/// an Info.plist or entitlements file, the way Xcode does when it processes those files.
///
/// Supported syntax:
/// - `$(NAME)` and `${NAME}`;
/// - references inside setting values (`PRODUCT_BUNDLE_IDENTIFIER = com.example.$(PRODUCT_NAME)`),
///   expanded recursively;
/// - references inside a name (`$(BUNDLE_ID_$(CONFIGURATION))`);
/// - modifiers after a colon, applied left to right (`$(PRODUCT_NAME:rfc1034identifier:lower)`):
///   `identifier`, `c99extidentifier`, `rfc1034identifier`, `lower`, `upper`, and
///   `default=VALUE` (VALUE, which may itself contain references, replaces an empty or undefined
///   value; it extends to the closing parenthesis, colons included).
///
/// A `$` that does not open a reference is kept as it is. Settings derived by convention are
/// added when the supplied map does not define them: `AppIdentifierPrefix` and
/// `TeamIdentifierPrefix` are `$(DEVELOPMENT_TEAM).` when `DEVELOPMENT_TEAM` is defined.
///
/// Unlike Xcode, which silently expands an undefined setting to nothing, the expander keeps every
/// reference it cannot expand verbatim in its result and reports it (``BuildSettingIssue``), so
/// that a lint can say which variable is missing.
///
/// The input may be hostile: nesting, recursion through setting values, the number of references
/// expanded and the length of the result are all bounded; a cyclic definition is reported, never
/// followed.
public struct BuildSettingExpander: Sendable {
    /// The deepest nesting of references (in names, and through setting values) that is expanded.
    public static let maximumDepth = 32
    /// The most references a single call to ``expand(_:)`` evaluates.
    public static let maximumReferenceCount = 1_024
    /// The longest text, in Unicode scalars, that a single call to ``expand(_:)`` produces, and
    /// the longest value of any reference along the way.
    public static let maximumLength = 16_384

    /// The settings references are expanded from, derived settings included.
    public let settings: [String: String]

    /// Creates an expander for `settings` (names to unexpanded values).
    public init(settings: [String: String]) {
        var all = settings
        if let team = settings["DEVELOPMENT_TEAM"], !team.isEmpty {
            for derived in ["AppIdentifierPrefix", "TeamIdentifierPrefix"] where all[derived] == nil {
                all[derived] = "$(DEVELOPMENT_TEAM)."
            }
        }
        self.settings = all
    }

    /// Returns an expander with `value` added for `name`, unless `name` is already defined.
    public func addingDefault(_ value: String, for name: String) -> BuildSettingExpander {
        guard settings[name] == nil else { return self }
        var settings = settings
        settings[name] = value
        return BuildSettingExpander(exactly: settings)
    }

    private init(exactly settings: [String: String]) { self.settings = settings }

    /// Expands every reference in `string`.
    ///
    /// - Returns: The expanded string, with references that could not be expanded left verbatim,
    ///   and the issues found. When a limit is exceeded, the result is `string` unchanged and the
    ///   issues include ``BuildSettingIssue/limitExceeded``.
    public func expand(_ string: String) -> BuildSettingExpansion {
        guard string.contains("$") else { return BuildSettingExpansion(value: string, issues: []) }
        var evaluation = Evaluation(settings: settings)
        let scalars = Array(string.unicodeScalars)
        var position = 0
        let value = evaluation.expandText(scalars, at: &position, until: [], depth: 0)
        if evaluation.limitExceeded {
            var issues = evaluation.issues.filter { $0 != .limitExceeded }
            issues.append(.limitExceeded)
            return BuildSettingExpansion(value: string, issues: issues)
        }
        return BuildSettingExpansion(value: String(value), issues: evaluation.issues)
    }
}

/// The result of ``BuildSettingExpander/expand(_:)``.
public struct BuildSettingExpansion: Sendable, Hashable {
    /// The expanded string. References that could not be expanded are kept verbatim.
    public var value: String
    /// What went wrong, in the order found, without repetitions. Empty when every reference was
    /// expanded.
    public var issues: [BuildSettingIssue]

    /// Creates an expansion result.
    public init(value: String, issues: [BuildSettingIssue]) {
        self.value = value
        self.issues = issues
    }

    /// Whether every reference was expanded.
    public var isComplete: Bool { issues.isEmpty }

    /// The names of the settings that were referenced but not defined, in order.
    public var undefinedNames: [String] {
        issues.compactMap { issue in
            if case .undefined(let name) = issue { name } else { nil }
        }
    }
}

/// Why a build-setting reference was not expanded.
public enum BuildSettingIssue: Sendable, Hashable, CustomStringConvertible {
    /// `$(name)` names a setting that is not defined.
    case undefined(name: String)
    /// `$(name:modifier)` uses a modifier the expander does not support.
    case unsupportedModifier(name: String, modifier: String)
    /// The reference is not well formed: it has no closing parenthesis or brace, or an empty name.
    case malformedReference(String)
    /// The setting `name` refers to itself, directly or through other settings.
    case cyclicReference(name: String)
    /// Expanding needed more nesting, references or length than the expander allows.
    case limitExceeded

    public var description: String {
        switch self {
        case .undefined(let name) where name == "AppIdentifierPrefix" || name == "TeamIdentifierPrefix":
            "unresolved build setting $(\(name)) (it is derived from DEVELOPMENT_TEAM)"
        case .undefined(let name):
            "unresolved build setting $(\(name))"
        case .unsupportedModifier(let name, let modifier):
            "unsupported modifier \":\(modifier)\" in $(\(name):\(modifier)); supported: "
                + BuildSettingModifier.supportedNames.joined(separator: ", ")
        case .malformedReference(let text):
            "malformed build-setting reference \(text.debugDescription)"
        case .cyclicReference(let name):
            "build setting $(\(name)) refers to itself"
        case .limitExceeded:
            "build-setting expansion is too deep, too long or has too many references"
        }
    }
}

/// A modifier applied to the value of a reference, as in `$(PRODUCT_NAME:rfc1034identifier)`.
enum BuildSettingModifier: Equatable {
    case identifier
    case c99ExtendedIdentifier
    case rfc1034Identifier
    case lowercase
    case uppercase
    case defaultValue(String)

    /// The modifier names the expander understands, as they are written after the colon.
    static let supportedNames = [
        "identifier", "c99extidentifier", "rfc1034identifier", "lower", "upper", "default=VALUE",
    ]

    init?(name: String, operand: String?) {
        switch (name, operand) {
        case ("identifier", nil): self = .identifier
        case ("c99extidentifier", nil): self = .c99ExtendedIdentifier
        case ("rfc1034identifier", nil): self = .rfc1034Identifier
        case ("lower", nil): self = .lowercase
        case ("upper", nil): self = .uppercase
        case ("default", let operand?): self = .defaultValue(operand)
        default: return nil
        }
    }

    /// Applies the modifier to an expanded value (`value` is `nil` for an undefined setting).
    func apply(to value: String?) -> String? {
        switch self {
        case .defaultValue(let fallback):
            guard let value, !value.isEmpty else { return fallback }
            return value
        case .identifier:
            return value.map {
                Self.mangle(
                    $0, replacement: "_", keeps: { $0 == "_" || Self.isASCIILetter($0) }, keepsDigit: \.isASCIIDigit)
            }
        case .rfc1034Identifier:
            return value.map {
                Self.mangle(
                    $0, replacement: "-", keeps: { $0 == "-" || Self.isASCIILetter($0) }, keepsDigit: \.isASCIIDigit)
            }
        case .c99ExtendedIdentifier:
            return value.map {
                Self.mangle(
                    $0, replacement: "_",
                    keeps: { $0 == "_" || Self.isASCIILetter($0) || (!$0.isASCII && $0.properties.isAlphabetic) },
                    keepsDigit: { $0.properties.numericType == .decimal })
            }
        case .lowercase:
            return value?.lowercased()
        case .uppercase:
            return value?.uppercased()
        }
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    /// Xcode's identifier mangling: scalars that `keeps` accepts stay, digits that `keepsDigit`
    /// accepts stay except in first position, everything else becomes `replacement`.
    private static func mangle(
        _ value: String, replacement: Unicode.Scalar,
        keeps: (Unicode.Scalar) -> Bool, keepsDigit: (Unicode.Scalar) -> Bool
    ) -> String {
        var result = String.UnicodeScalarView()
        for (offset, scalar) in value.unicodeScalars.enumerated() {
            result.append(keeps(scalar) || (offset > 0 && keepsDigit(scalar)) ? scalar : replacement)
        }
        return String(result)
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// The state of one call to ``BuildSettingExpander/expand(_:)``.
private struct Evaluation {
    let settings: [String: String]
    var issues: [BuildSettingIssue] = []
    /// How many times an issue was recorded, repetitions included.
    var recordedCount = 0
    var referenceCount = 0
    var limitExceeded = false
    /// The settings being expanded, innermost last, to detect cycles.
    var expanding: [String] = []

    init(settings: [String: String]) { self.settings = settings }

    mutating func record(_ issue: BuildSettingIssue) {
        recordedCount += 1
        if issue == .limitExceeded { limitExceeded = true }
        if !issues.contains(issue) { issues.append(issue) }
    }

    /// Expands `scalars` from `position` up to (not including) the first scalar in `terminators`
    /// at this nesting level, or to the end. On return `position` is at the terminator or the end.
    mutating func expandText(
        _ scalars: [Unicode.Scalar], at position: inout Int, until terminators: Set<Unicode.Scalar>, depth: Int
    ) -> String.UnicodeScalarView {
        var output = String.UnicodeScalarView()
        var length = 0
        guard depth <= BuildSettingExpander.maximumDepth else {
            record(.limitExceeded)
            position = scalars.count
            return output
        }
        while position < scalars.count, !limitExceeded {
            let scalar = scalars[position]
            if terminators.contains(scalar) { break }
            if scalar == "$", position + 1 < scalars.count, scalars[position + 1] == "(" || scalars[position + 1] == "{"
            {
                let value = expandReference(scalars, at: &position, depth: depth)
                length += value.count
                output.append(contentsOf: value)
            } else {
                output.append(scalar)
                length += 1
                position += 1
            }
            if length > BuildSettingExpander.maximumLength { record(.limitExceeded) }
        }
        return output
    }

    /// Expands the reference that starts at `position` (at its `$`) and moves past it.
    mutating func expandReference(
        _ scalars: [Unicode.Scalar], at position: inout Int, depth: Int
    ) -> String.UnicodeScalarView {
        let start = position
        let closer: Unicode.Scalar = scalars[position + 1] == "(" ? ")" : "}"
        position += 2
        let recordedBeforeName = recordedCount
        let name = String(expandText(scalars, at: &position, until: [closer, ":"], depth: depth + 1))
        let nameIsResolved = recordedCount == recordedBeforeName
        var modifiers: [BuildSettingModifier] = []
        var unsupported: String?
        while position < scalars.count, scalars[position] == ":", !limitExceeded {
            position += 1
            var modifierName = String.UnicodeScalarView()
            while position < scalars.count, scalars[position] != ":", scalars[position] != closer,
                scalars[position] != "="
            {
                modifierName.append(scalars[position])
                position += 1
            }
            var operand: String?
            if position < scalars.count, scalars[position] == "=" {
                position += 1
                operand = String(expandText(scalars, at: &position, until: [closer], depth: depth + 1))
            }
            if let modifier = BuildSettingModifier(name: String(modifierName), operand: operand) {
                modifiers.append(modifier)
            } else if unsupported == nil {
                unsupported = String(modifierName) + (operand.map { "=" + $0 } ?? "")
            }
        }
        let verbatim = String.UnicodeScalarView(scalars[start..<min(position + 1, scalars.count)])
        guard position < scalars.count else {
            if !limitExceeded { record(.malformedReference(String(verbatim))) }
            return verbatim
        }
        position += 1  // the closer
        if limitExceeded { return verbatim }

        referenceCount += 1
        guard referenceCount <= BuildSettingExpander.maximumReferenceCount else {
            record(.limitExceeded)
            return verbatim
        }
        guard nameIsResolved else { return verbatim }
        guard !name.isEmpty else {
            record(.malformedReference(String(verbatim)))
            return verbatim
        }
        if let unsupported {
            record(.unsupportedModifier(name: name, modifier: unsupported))
            return verbatim
        }
        var value: String?
        if let definition = settings[name] {
            guard !expanding.contains(name) else {
                record(.cyclicReference(name: name))
                return verbatim
            }
            expanding.append(name)
            let definitionScalars = Array(definition.unicodeScalars)
            var definitionPosition = 0
            value = String(expandText(definitionScalars, at: &definitionPosition, until: [], depth: depth + 1))
            expanding.removeLast()
        }
        for modifier in modifiers { value = modifier.apply(to: value) }
        guard let value else {
            record(.undefined(name: name))
            return verbatim
        }
        return value.unicodeScalars
    }
}
