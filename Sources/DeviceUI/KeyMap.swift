import DeviceAppKit
import TerminalCells

/// A titled group of keys in the help overlay.
package struct KeyHelpSection: Hashable, Sendable {
    package var title: String
    package var hints: [KeyHint]

    package init(title: String, hints: [KeyHint]) {
        self.title = title
        self.hints = hints
    }
}

/// What one of the device's own keys does (``DeviceKey``).
enum DeviceKeyAction: Hashable, Sendable {
    case help, log, lock, switcher, moveFocus, continueOffer, stepMode, stepNext, faults, timeline, inspector
    case cancelContinuation, redraw, quit
}

/// One of the device's own keys: the keys that do it, the letter that does it too outside apps
/// (and where the app in front ignores it, for ``worksWhereTheAppIgnoresTheLetter``), what it does,
/// and the help's words for it. ``ScreenState/deviceKeys`` is the one table: the help's "Anywhere"
/// section is made from it, and ``ScreenState/update(_:device:)`` dispatches through it.
struct DeviceKey: Hashable, Sendable {
    var keys: [Key]
    var letter: Key?
    var worksWhereTheAppIgnoresTheLetter = false
    var action: DeviceKeyAction
    var help: String
    /// Handled before any overlay (help, alerts, panels) sees the key.
    var worksOverOverlays = false

    init(_ keys: [Key], letter: Key? = nil, _ action: DeviceKeyAction, _ help: String) {
        self.keys = keys
        self.letter = letter
        self.action = action
        self.help = help
    }

    /// The help's line: the keys as the terminal names them, then the letter.
    var hint: KeyHint {
        KeyHint((keys + (letter.map { [$0] } ?? [])).map(\.description).joined(separator: "  "), help)
    }
}

extension ScreenState {
    /// The device's own keys, in the order the help lists them. Device keys never reach an app
    /// (function keys, Tab, Ctrl-L, Ctrl-P, Ctrl-O and Ctrl-Q); Esc cancels only a continuation in
    /// progress, and otherwise goes on to the app or the part with the focus. Their letters act
    /// outside apps only (on the home screen, in Nearby, in the log), `?` also where the app in
    /// front does not use it.
    var deviceKeys: [DeviceKey] {
        var help = DeviceKey(
            [.function(1)], letter: .character("?"), .help, "this help (? where the app does not use it)")
        help.worksWhereTheAppIgnoresTheLetter = true
        help.worksOverOverlays = true
        var quit = DeviceKey([.control("q")], .quit, "quit")
        quit.worksOverOverlays = true
        return [
            help,
            DeviceKey([.function(2)], letter: .character("l"), .log, "lifecycle log on/off (l outside apps)"),
            DeviceKey([.function(3), .control("p")], .lock, "lock the device (the power button)"),
            DeviceKey([.function(4)], .switcher, hasAppSwitcher ? "app switcher" : "focus the dock"),
            DeviceKey(
                [.tab, .backTab], .moveFocus, "focus: screen → Nearby → log (a narrow screen shows Nearby over it)"),
            DeviceKey([.control("o")], .continueOffer, "continue the offered activity (the badge)"),
            DeviceKey([.function(6)], .stepMode, "step mode on/off: pause at each continuation phase"),
            DeviceKey([.function(7)], .stepNext, "go on from a step-mode pause"),
            DeviceKey([.function(8)], .faults, "faults: make a continuation fail on purpose"),
            DeviceKey(
                [.function(9)], letter: .character("t"), .timeline,
                "timeline: both devices' lanes and what crossed the network (t outside apps)"),
            DeviceKey(
                [.function(10)], letter: .character("i"), .inspector,
                "inspector: the bytes that travelled (i outside apps)"),
            DeviceKey([.escape], .cancelContinuation, "cancel a continuation in progress; close; back"),
            DeviceKey([.control("l")], .redraw, "redraw the screen"),
            quit,
        ]
    }

    /// The device key `key` is, if any (not its letters).
    func deviceKey(_ key: Key) -> DeviceKey? {
        deviceKeys.first { $0.keys.contains(key) }
    }

    /// The device key whose letter `key` is, outside apps (`inApp`: where the app in front
    /// ignored it).
    func deviceKey(letter key: Key, inApp: Bool = false) -> DeviceKey? {
        deviceKeys.first { $0.letter == key && (!inApp || $0.worksWhereTheAppIgnoresTheLetter) }
    }

    /// Every key of the device, by where it applies, then the keys of the app in front.
    ///
    /// The first section is ``deviceKeys``; every other key goes to the app in front while it has
    /// the focus; Esc, h and ? do their device job only when the app does not use them.
    package func helpSections(device snapshot: DeviceSnapshot) -> [KeyHelpSection] {
        var sections = [
            KeyHelpSection(title: "Anywhere", hints: deviceKeys.map(\.hint)),
            KeyHelpSection(
                title: device.kind == .laptop ? "Desktop" : "Home screen",
                hints: [
                    KeyHint("← → ↑ ↓", "choose an app"),
                    KeyHint("Enter  1-9", "open the chosen app, or app N"),
                    KeyHint("q", "quit"),
                ]),
            KeyHelpSection(
                title: "In an app",
                hints: [
                    KeyHint("(other keys)", "go to the app"),
                    KeyHint("Esc  h", "home, when the app does not use the key"),
                ]),
            KeyHelpSection(
                title: "Nearby (Tab)",
                hints: [
                    KeyHint("↑ ↓", "choose a device"),
                    KeyHint("Enter", "continue its activity"),
                    KeyHint("Esc", "back to the screen"),
                ]),
            KeyHelpSection(
                title: "Inspector (F10)",
                hints: [
                    KeyHint("←→  Tab  1-3", "userInfo (both sides, differences marked) · payload bytes · beacon bytes"),
                    KeyHint("↑↓ PgUp PgDn", "scroll"),
                    KeyHint("Esc  F10", "close"),
                    KeyHint("i", "opens it too, outside apps: some terminals take F10 for their menu"),
                ]),
            KeyHelpSection(
                title: "Timeline (F9)",
                hints: [
                    KeyHint("↑ ↓", "choose an event: what Apple does and why, userInfo, sizes"),
                    KeyHint("PgUp  PgDn", "a page of events"),
                    KeyHint("← →", "an older or newer continuation"),
                    KeyHint("Space", "the next page of a long detail"),
                    KeyHint("Esc  F9", "close"),
                ]),
            KeyHelpSection(
                title: "Lifecycle log (Tab)",
                hints: [
                    KeyHint("↑ ↓", "scroll one event"),
                    KeyHint("PgUp  PgDn", "scroll a page"),
                    KeyHint("Home  End", "oldest event; newest (follow)"),
                    KeyHint("Esc", "back to the screen"),
                ]),
        ]
        if promptsOnLockScreen {
            sections.append(
                KeyHelpSection(
                    title: "Lock screen",
                    hints: [
                        KeyHint("Enter", "continue the activity shown (unlocks)"),
                        KeyHint("Space", "unlock"),
                    ]))
        } else {
            sections.append(KeyHelpSection(title: "Lock screen", hints: [KeyHint("Enter  Space", "unlock")]))
        }
        sections.append(
            KeyHelpSection(
                title: hasAppSwitcher ? "App switcher (F4)" : "Dock (F4)",
                hints: [
                    KeyHint("← → ↑ ↓", "choose"),
                    KeyHint("Enter", "switch to it, or continue the Handoff item"),
                    KeyHint("x  Delete", "quit the chosen app (its next launch is cold)"),
                    KeyHint("Esc  F4", "close"),
                ]))
        sections.append(KeyHelpSection(title: "Alert", hints: [KeyHint("Enter  Esc", "dismiss")]))
        if let app = snapshot.app(foregroundApp), !app.keyHints.isEmpty {
            sections.append(KeyHelpSection(title: "\(app.name) (when the app has the focus)", hints: app.keyHints))
        }
        return sections
    }

    /// The help overlay's lines: a section title (`isTitle`) or a key and what it does.
    func helpLines(device snapshot: DeviceSnapshot) -> [(isTitle: Bool, keys: String, action: String)] {
        var lines: [(isTitle: Bool, keys: String, action: String)] = []
        for (index, section) in helpSections(device: snapshot).enumerated() {
            if index > 0 { lines.append((false, "", "")) }
            lines.append((true, section.title, ""))
            for hint in section.hints { lines.append((false, hint.keys, hint.action)) }
        }
        return lines
    }
}
