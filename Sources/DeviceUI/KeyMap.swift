import DeviceAppKit
import TerminalCells

/// A titled group of keys in the help overlay.
public struct KeyHelpSection: Hashable, Sendable {
    public var title: String
    public var hints: [KeyHint]

    public init(title: String, hints: [KeyHint]) {
        self.title = title
        self.hints = hints
    }
}

extension ScreenState {
    /// Every key of the device, by where it applies, then the keys of the app in front.
    ///
    /// Device keys never reach an app: function keys, Tab, Ctrl-L, Ctrl-P, Ctrl-O and Ctrl-Q. Every
    /// other key goes to the app in front while it has the focus; Esc, h and ? do their device
    /// job only when the app does not use them.
    public func helpSections(device snapshot: DeviceSnapshot) -> [KeyHelpSection] {
        let switcher = hasAppSwitcher ? "app switcher" : "focus the dock"
        var sections = [
            KeyHelpSection(title: "Anywhere", hints: [
                KeyHint("F1  ?", "this help (? where the app does not use it)"),
                KeyHint("F2  l", "lifecycle log on/off (l outside apps)"),
                KeyHint("F3  Ctrl-P", "lock the device (the power button)"),
                KeyHint("F4", switcher),
                KeyHint("Tab  Shift-Tab", "focus: screen → Nearby → log (a narrow screen shows Nearby over it)"),
                KeyHint("Ctrl-O", "continue the offered activity (the badge)"),
                KeyHint("F6", "step mode on/off: pause at each continuation phase"),
                KeyHint("F7", "go on from a step-mode pause"),
                KeyHint("F8", "faults: make a continuation fail on purpose"),
                KeyHint("F9  t", "timeline: both devices' lanes and what crossed the network (t outside apps)"),
                KeyHint("F10  i", "inspector: the bytes that travelled (i outside apps)"),
                KeyHint("Esc", "cancel a continuation in progress; close; back"),
                KeyHint("Ctrl-L", "redraw the screen"),
                KeyHint("Ctrl-Q", "quit"),
            ]),
            KeyHelpSection(title: device.kind == .laptop ? "Desktop" : "Home screen", hints: [
                KeyHint("← → ↑ ↓", "choose an app"),
                KeyHint("Enter  1-9", "open the chosen app, or app N"),
                KeyHint("q", "quit"),
            ]),
            KeyHelpSection(title: "In an app", hints: [
                KeyHint("(other keys)", "go to the app"),
                KeyHint("Esc  h", "home, when the app does not use the key"),
            ]),
            KeyHelpSection(title: "Nearby (Tab)", hints: [
                KeyHint("↑ ↓", "choose a device"),
                KeyHint("Enter", "continue its activity"),
                KeyHint("Esc", "back to the screen"),
            ]),
            KeyHelpSection(title: "Inspector (F10)", hints: [
                KeyHint("←→  Tab  1-3", "userInfo (both sides, differences marked) · payload bytes · beacon bytes"),
                KeyHint("↑↓ PgUp PgDn", "scroll"),
                KeyHint("Esc  F10", "close"),
                KeyHint("i", "opens it too, outside apps: some terminals take F10 for their menu"),
            ]),
            KeyHelpSection(title: "Timeline (F9)", hints: [
                KeyHint("↑ ↓", "choose an event: what Apple does and why, userInfo, sizes"),
                KeyHint("PgUp  PgDn", "a page of events"),
                KeyHint("← →", "an older or newer continuation"),
                KeyHint("Esc  F9", "close"),
            ]),
            KeyHelpSection(title: "Lifecycle log (Tab)", hints: [
                KeyHint("↑ ↓", "scroll one event"),
                KeyHint("PgUp  PgDn", "scroll a page"),
                KeyHint("Home  End", "oldest event; newest (follow)"),
                KeyHint("Esc", "back to the screen"),
            ]),
        ]
        if promptsOnLockScreen {
            sections.append(KeyHelpSection(title: "Lock screen", hints: [
                KeyHint("Enter", "continue the activity shown (unlocks)"),
                KeyHint("Space", "unlock"),
            ]))
        } else {
            sections.append(KeyHelpSection(title: "Lock screen", hints: [KeyHint("Enter  Space", "unlock")]))
        }
        sections.append(KeyHelpSection(title: hasAppSwitcher ? "App switcher (F4)" : "Dock (F4)", hints: [
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
