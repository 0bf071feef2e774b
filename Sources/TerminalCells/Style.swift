/// What a piece of text is, not how it looks: views name roles, a ``Theme`` decides colours.
///
/// Attributes down, messages up: a view never picks a colour, so NO_COLOR and monochrome
/// terminals get the same screens with emphasis only.
package enum Role: String, CaseIterable, Hashable, Sendable {
    /// Ordinary text.
    case normal
    /// Secondary text: hints, ages, explanations.
    case dim
    /// Titles and headings.
    case title
    /// Something to look at: keys in the footer, the current item.
    case accent
    /// The selected row of a list.
    case selection
    /// Device frame and pane borders.
    case frame
    /// The status bar along the top of the device.
    case statusBar
    /// An offer that can be continued.
    case continuable
    /// An offer that cannot be continued here, and its reason.
    case unavailable
    /// A badge or notice asking for attention (an incoming offer in the dock).
    case badge
    /// Success messages ("continued on Phone").
    case success
    /// Warnings (payload over 3 KB).
    case warning
    /// Errors and failure alerts.
    case error
    /// The lock screen's background text.
    case lockScreen
    /// Links in the browser.
    case link
    /// Map: land, water, coastline, city markers and labels.
    case mapLand
    case mapWater
    case mapCity
    case mapLabel
}

/// A cell's style: a role plus emphasis.
package struct Style: Hashable, Sendable {
    package var role: Role
    package var bold: Bool
    package var underline: Bool
    package var reverse: Bool

    package init(_ role: Role = .normal, bold: Bool = false, underline: Bool = false, reverse: Bool = false) {
        self.role = role
        self.bold = bold
        self.underline = underline
        self.reverse = reverse
    }

    package static let normal = Style()
    package var bolded: Style {
        var copy = self
        copy.bold = true
        return copy
    }
    package var reversed: Style {
        var copy = self
        copy.reverse.toggle()
        return copy
    }
    package var underlined: Style {
        var copy = self
        copy.underline = true
        return copy
    }
}

/// One of the eight basic terminal colours, or the terminal's default.
package enum TerminalColor: Int, Hashable, Sendable {
    case `default` = -1
    case black = 0, red, green, yellow, blue, magenta, cyan, white
}

/// How a role looks on a colour terminal, and on a monochrome one.
package struct Appearance: Hashable, Sendable {
    package var foreground: TerminalColor
    package var background: TerminalColor
    package var bold: Bool
    package var dim: Bool
    package var reverse: Bool
    package var underline: Bool

    package init(
        foreground: TerminalColor = .default, background: TerminalColor = .default, bold: Bool = false,
        dim: Bool = false, reverse: Bool = false, underline: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }
}

/// Maps roles to appearances. `monochrome` uses emphasis only (bold, dim, reverse, underline).
package struct Theme: Sendable {
    package var usesColor: Bool
    private var colored: [Role: Appearance]
    private var mono: [Role: Appearance]

    package init(usesColor: Bool) {
        self.usesColor = usesColor
        colored = Theme.defaultColored
        mono = Theme.defaultMonochrome
    }

    /// The standard theme; colour unless `NO_COLOR` is set (any value) or the terminal has none.
    package static func standard(environment: [String: String], terminalHasColor: Bool) -> Theme {
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return Theme(usesColor: terminalHasColor && !noColor)
    }

    /// The appearance of `style` (its role's look, plus the style's own emphasis).
    package func appearance(of style: Style) -> Appearance {
        var look = (usesColor ? colored[style.role] : mono[style.role]) ?? Appearance()
        if style.bold { look.bold = true }
        if style.underline { look.underline = true }
        if style.reverse { look.reverse.toggle() }
        return look
    }

    package mutating func set(_ appearance: Appearance, for role: Role, monochrome: Bool = false) {
        if monochrome { mono[role] = appearance } else { colored[role] = appearance }
    }

    static let defaultColored: [Role: Appearance] = [
        .normal: Appearance(),
        .dim: Appearance(dim: true),
        .title: Appearance(foreground: .cyan, bold: true),
        .accent: Appearance(foreground: .yellow, bold: true),
        .selection: Appearance(foreground: .black, background: .cyan),
        .frame: Appearance(foreground: .blue),
        .statusBar: Appearance(foreground: .black, background: .white),
        .continuable: Appearance(foreground: .green, bold: true),
        .unavailable: Appearance(foreground: .red),
        .badge: Appearance(foreground: .black, background: .yellow, bold: true),
        .success: Appearance(foreground: .green),
        .warning: Appearance(foreground: .yellow),
        .error: Appearance(foreground: .white, background: .red, bold: true),
        .lockScreen: Appearance(foreground: .white, background: .blue),
        .link: Appearance(foreground: .blue, underline: true),
        .mapLand: Appearance(foreground: .green),
        .mapWater: Appearance(foreground: .blue),
        .mapCity: Appearance(foreground: .red, bold: true),
        .mapLabel: Appearance(foreground: .white, bold: true),
    ]

    static let defaultMonochrome: [Role: Appearance] = [
        .normal: Appearance(),
        .dim: Appearance(dim: true),
        .title: Appearance(bold: true),
        .accent: Appearance(bold: true),
        .selection: Appearance(reverse: true),
        .frame: Appearance(),
        .statusBar: Appearance(reverse: true),
        .continuable: Appearance(bold: true),
        .unavailable: Appearance(dim: true),
        .badge: Appearance(bold: true, reverse: true),
        .success: Appearance(bold: true),
        .warning: Appearance(bold: true),
        .error: Appearance(bold: true, reverse: true),
        .lockScreen: Appearance(),
        .link: Appearance(underline: true),
        .mapLand: Appearance(),
        .mapWater: Appearance(dim: true),
        .mapCity: Appearance(bold: true),
        .mapLabel: Appearance(bold: true),
    ]
}
