import HandoffCore
import TerminalCells

/// Digits three rows high for the lock screen's clock.
enum BigDigits {
    static let glyphs: [Character: [String]] = [
        "0": ["┏━┓", "┃ ┃", "┗━┛"], "1": ["╺┓ ", " ┃ ", "╺┻╸"], "2": ["┏━┓", "┏━┛", "┗━╸"],
        "3": ["┏━┓", " ━┫", "┗━┛"], "4": ["╻ ╻", "┗━┫", "  ╹"], "5": ["┏━╸", "┗━┓", "┗━┛"],
        "6": ["┏━╸", "┣━┓", "┗━┛"], "7": ["┏━┓", "  ┃", "  ╹"], "8": ["┏━┓", "┣━┫", "┗━┛"],
        "9": ["┏━┓", "┗━┫", "┗━┛"], ":": [" ", "╏", " "],
    ]

    /// The three rows of `text` ("09:41").
    static func rows(_ text: String) -> [String] {
        (0..<3).map { row in text.map { glyphs[$0]?[row] ?? " " }.joined(separator: " ") }
    }
}

extension ScreenView {
    /// A phone's or tablet's lock screen: the time and date, and (as iOS shows it) the app of an
    /// incoming activity at the bottom left with the key to continue it.
    func drawLockScreen(into grid: inout Grid, area: Rect) {
        let style = Style(.lockScreen)
        grid.fill(area, style: style)
        let clock = Format.clock(state.now, state.timeZone)
        var row = area.height >= 16 ? 2 : 1
        if area.height >= 12 {
            for line in BigDigits.rows(clock) {
                grid.write(line, in: area, row: row, style: style.bolded, alignment: .center)
                row += 1
            }
        } else {
            grid.write(clock, in: area, row: row, style: style.bolded, alignment: .center)
            row += 1
        }
        grid.write(Format.day(state.now, state.timeZone), in: area, row: row, style: style, alignment: .center)
        grid.write("Locked", in: area, row: row + 2, style: style, alignment: .center)
        if let handoff = handoffWhileLocked, row + 3 < area.height - 4 {
            grid.write(handoff, in: area, row: row + 3, style: style, alignment: .center)
        }

        let bottom = area.height - 1
        guard let offer = device.featuredOffer else {
            grid.write("Space or Enter to unlock", in: area, row: bottom, style: style, alignment: .center)
            return
        }
        // The Handoff prompt: the app's icon in the bottom-left corner, its name and origin.
        let icon = Rect(x: area.x + 1, y: area.maxY - 4, width: 5, height: 3)
        grid.fill(icon, style: Style(.badge))
        grid.box(icon, style: Style(.badge), lines: .rounded)
        grid.put(String(glyph(for: offer)), at: Point(x: icon.x + 2, y: icon.y + 1), style: Style(.badge))
        let text = Rect(x: icon.maxX + 1, y: icon.y, width: area.maxX - icon.maxX - 2, height: 3)
        grid.write(targetName(for: offer), in: text, row: 0, style: style.bolded)
        grid.write("from \(offer.peer.name)", in: text, row: 1, style: style)
        grid.write(
            [
                ("Enter", Style(.lockScreen, bold: true)), (" continue · ", style),
                ("Space", Style(.lockScreen, bold: true)), (" unlock", style),
            ], in: text, row: 2)
    }

    /// A laptop's login window: no Handoff prompt (a Mac shows Handoff in the Dock once unlocked).
    func drawLoginWindow(into grid: inout Grid, area: Rect) {
        let style = Style(.lockScreen)
        grid.fill(area, style: style)
        let middle = max(0, area.height / 2 - 3)
        let avatar = Rect(x: area.x + (area.width - 7) / 2, y: area.y + middle, width: 7, height: 3)
        grid.box(avatar, style: style, lines: .rounded)
        grid.put(
            String(state.account.first.map { Character($0.uppercased()) } ?? "?"),
            at: Point(x: avatar.x + 3, y: avatar.y + 1), style: style.bolded)
        grid.write(state.account, in: area, row: middle + 3, style: style.bolded, alignment: .center)
        grid.write("Enter to unlock", in: area, row: middle + 5, style: style, alignment: .center)
        grid.write(
            Format.day(state.now, state.timeZone) + " · " + Format.clock(state.now, state.timeZone),
            in: area, row: 0, style: style, alignment: .center)
        if let handoff = handoffWhileLocked, middle + 7 < area.height - 2 {
            grid.write(handoff, in: area, row: middle + 7, style: style, alignment: .center)
        }
        if let offer = device.featuredOffer {
            grid.write(
                "↩ \(offer.peer.name): unlock to continue from the Dock", in: area,
                row: area.height - 1, style: style, alignment: .center)
        }
    }

    /// What the locked device does with its own activity: a locked device stops advertising it a
    /// few seconds after locking (the device system's rule, ``DeviceSystem/lock``), so peers lose
    /// the offer until it is unlocked. Nil when it has no current activity.
    var handoffWhileLocked: String? {
        guard let own = device.ownActivity else { return nil }
        let name =
            own.title.flatMap { $0.isEmpty ? nil : $0 } ?? device.app(own.bundleIdentifier)?.name ?? "the activity"
        return own.isAdvertised ? "Handoff stops offering \(name) soon" : "Handoff: \(name) not offered while locked"
    }
}
