import HandoffCore
import TerminalCells

/// What an app tells the user until the next key: the same three kinds in every demo app.
package struct AppMessage: Hashable, Sendable {
    package enum Kind: Hashable, Sendable {
        case info, warning, error
    }

    package var kind: Kind
    package var text: String

    package init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }

    /// The message an app shows when a continuation failed, or nil when the user cancelled it
    /// (nothing to say); what was on screen stays.
    package static func continuationFailed(_ error: HandoffError) -> AppMessage? {
        error.code == .userCancelled
            ? nil
            : AppMessage(
                .error, "Could not continue: \(error.code.meaning) (\(error.code.rawValue)). Nothing changed here.")
    }

    /// The role that colours the message.
    package var role: Role {
        switch kind {
        case .info: .success
        case .warning: .warning
        case .error: .error
        }
    }

    /// The message wrapped at `width`, at most `limit` rows (the last one ends with "…" when
    /// cut), each with the message's style.
    package func lines(width: Int, limit: Int) -> [(text: String, style: Style)] {
        guard width > 0, limit > 0 else { return [] }
        var lines = TextWidth.wrap(text, width: width)
        if lines.count > limit {
            lines = Array(lines.prefix(limit))
            lines[limit - 1] = TextWidth.truncate(lines[limit - 1] + " …", to: width)
        }
        return lines.map { ($0, Style(role)) }
    }
}
