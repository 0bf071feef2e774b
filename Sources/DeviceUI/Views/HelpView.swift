import TerminalCells

/// The help overlay's geometry, shared with the reducer (which clamps scrolling with it).
enum HelpView {
    /// The panel for `lineCount` lines of keys: as tall as they need, within the screen above
    /// the footer.
    static func panel(in size: Size, lineCount: Int) -> Rect {
        let body = Rect(x: 0, y: 0, width: size.width, height: size.height - 1)
        let height = min(body.height, lineCount + 3)
        return body.centered(Size(width: min(body.width, 78), height: height))
    }

    /// How many lines of keys the panel shows at once.
    static func visibleLineCount(in size: Size, lineCount: Int) -> Int {
        max(1, panel(in: size, lineCount: lineCount).height - 3)
    }
}

extension ScreenView {
    /// Every key, by where it applies, and the keys of the app in front.
    func drawHelp(into grid: inout Grid, scroll: Int) {
        let lines = state.helpLines(device: device)
        let panel = HelpView.panel(in: state.size, lineCount: lines.count)
        // A modal page: nothing of the screen behind shows through.
        grid.fill(Rect(x: 0, y: 0, width: state.size.width, height: state.size.height - 1), style: Style(.normal))
        grid.box(panel, style: Style(.accent), title: "Keys", titleStyle: Style(.title), lines: .double)
        let inside = panel.inset(top: 1, left: 2, bottom: 1, right: 2)
        let (body, hint) = inside.splitBottom(1)
        let first = min(max(0, scroll), max(0, lines.count - body.height))
        let keyWidth = min(16, body.width / 3)
        for (row, line) in lines.dropFirst(first).prefix(body.height).enumerated() {
            if line.isTitle {
                grid.write(line.keys, in: body, row: row, style: Style(.title))
            } else if !line.keys.isEmpty {
                grid.write(line.keys, in: body, row: row, column: 2, style: Style(.accent))
                grid.write(line.action, in: body, row: row, column: 2 + keyWidth + 1, style: Style(.normal))
            }
        }
        var position = "\(first + 1)–\(min(lines.count, first + body.height)) of \(lines.count)"
        if lines.count <= body.height { position = "" }
        grid.write(hintPieces([("↑↓ PgUp PgDn", "scroll"), ("Esc", "close")], width: hint.width), in: hint)
        grid.write(position, in: hint, style: Style(.dim), alignment: .trailing)
    }
}
