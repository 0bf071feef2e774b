/// The reverse-DNS rule for identifiers such as activity types (`com.example.reader.reading`).
///
/// A valid string is not empty, contains no whitespace, does not start or end with a dot, and has
/// at least two dot-separated components, each non-empty and made only of ASCII letters, ASCII
/// digits, `-` and `_`.
///
/// Apple's own constants that are not reverse-DNS strings (``UserActivity/browsingWebType``) are
/// not valid by this rule: callers that accept them check for them first.
public enum ReverseDNS {
    /// Checks `string` against the rule.
    ///
    /// - Returns: `nil` when `string` is a valid reverse-DNS string, otherwise the first problem
    ///   found, in the order the cases of ``ReverseDNSProblem`` are declared.
    public static func validate(_ string: String) -> ReverseDNSProblem? {
        if string.isEmpty { return .empty }
        if string.unicodeScalars.contains(where: \.properties.isWhitespace) { return .containsWhitespace }
        if string.hasPrefix(".") { return .leadingDot }
        if string.hasSuffix(".") { return .trailingDot }
        let components = string.split(separator: ".", omittingEmptySubsequences: false)
        if let empty = components.firstIndex(where: \.isEmpty) { return .emptyComponent(index: empty) }
        if components.count < 2 { return .singleComponent }
        for (index, component) in components.enumerated() {
            if let bad = component.first(where: { !isAllowed($0) }) {
                return .invalidCharacter(bad, componentIndex: index)
            }
        }
        return nil
    }

    /// Whether `string` follows the rule.
    public static func isValid(_ string: String) -> Bool { validate(string) == nil }

    private static func isAllowed(_ character: Character) -> Bool {
        guard character.isASCII else { return false }
        return character.isLetter || character.isNumber || character == "-" || character == "_"
    }
}

/// Why a string is not a reverse-DNS identifier. The description is a phrase that completes
/// "… is not a reverse-DNS identifier: ".
public enum ReverseDNSProblem: Sendable, Hashable, CustomStringConvertible {
    /// The string is empty.
    case empty
    /// The string contains a space, tab, newline or other whitespace.
    case containsWhitespace
    /// The string starts with a dot.
    case leadingDot
    /// The string ends with a dot.
    case trailingDot
    /// Two dots in a row leave the component at `index` (counted from 0) empty.
    case emptyComponent(index: Int)
    /// The string has no dot: one component where at least two are needed.
    case singleComponent
    /// `character` is not an ASCII letter, an ASCII digit, `-` or `_`; it is in the component at
    /// `componentIndex` (counted from 0).
    case invalidCharacter(Character, componentIndex: Int)

    public var description: String {
        switch self {
        case .empty:
            "it is empty"
        case .containsWhitespace:
            "it contains whitespace"
        case .leadingDot:
            "it starts with a dot"
        case .trailingDot:
            "it ends with a dot"
        case .emptyComponent(let index):
            "component \(index + 1) is empty (two dots in a row)"
        case .singleComponent:
            "it has a single component; expected at least two separated by dots, as in com.example.app.task"
        case .invalidCharacter(let character, let componentIndex):
            "component \(componentIndex + 1) contains \(Self.describe(character)); only ASCII letters, digits, '-' and '_' are allowed"
        }
    }

    /// `'c'` for a printable ASCII character; the character and its code points for other
    /// printable characters; only the code points for control and other invisible characters,
    /// so that a report never writes them to a terminal.
    private static func describe(_ character: Character) -> String {
        let scalars = character.unicodeScalars
        let codes = scalars.map { "U+" + String($0.value, radix: 16, uppercase: true).leftPadded(to: 4) }
            .joined(separator: " ")
        let isVisible = !scalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator:
                true
            default:
                scalar.properties.isWhitespace
            }
        }
        guard isVisible else { return codes }
        return character.isASCII ? "'\(character)'" : "'\(character)' (\(codes))"
    }
}

extension String {
    /// The string with `0`s in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
