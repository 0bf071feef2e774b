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

    /// The width of the panel's body (its width does not depend on the lines).
    static func bodyWidth(in size: Size) -> Int {
        max(1, min(size.width, 78) - 4)
    }

    /// The column of the keys' explanations in a body `width` wide.
    static func keyWidth(_ width: Int) -> Int { min(16, width / 3) }

    /// The help's lines as drawn in a body `width` wide: an explanation that does not fit
    /// continues on the next rows under itself (whole words, never cut), and keys wider than
    /// their column have their explanation on the rows below.
    static func rows(
        _ lines: [(isTitle: Bool, keys: String, action: String)], width: Int
    )
        -> [(isTitle: Bool, keys: String, action: String)]
    {
        var rows: [(isTitle: Bool, keys: String, action: String)] = []
        let actionWidth = max(1, width - 2 - keyWidth(width) - 1)
        for line in lines {
            if line.isTitle {
                for part in TextWidth.wrap(line.keys, width: width) { rows.append((true, part, "")) }
                continue
            }
            if line.keys.isEmpty && line.action.isEmpty {
                rows.append(line)
                continue
            }
            var actions = TextWidth.wrap(line.action, width: actionWidth)
            if TextWidth.of(line.keys) > keyWidth(width) {
                rows.append((false, line.keys, ""))
            } else {
                rows.append((false, line.keys, actions.isEmpty ? "" : actions.removeFirst()))
            }
            for action in actions { rows.append((false, "", action)) }
        }
        return rows
    }
}

extension ScreenView {
    /// Every key, by where it applies, and the keys of the app in front.
    func drawHelp(into grid: inout Grid, scroll: Int) {
        let lines = HelpView.rows(state.helpLines(device: device), width: HelpView.bodyWidth(in: state.size))
        let panel = HelpView.panel(in: state.size, lineCount: lines.count)
        // A modal page: nothing of the screen behind shows through.
        grid.fill(Rect(x: 0, y: 0, width: state.size.width, height: state.size.height - 1), style: Style(.normal))
        grid.box(panel, style: Style(.accent), title: "Keys", titleStyle: Style(.title), lines: .double)
        let inside = panel.inset(top: 1, left: 2, bottom: 1, right: 2)
        let (body, hint) = inside.splitBottom(1)
        let first = min(max(0, scroll), max(0, lines.count - body.height))
        let keyWidth = HelpView.keyWidth(body.width)
        for (row, line) in lines.dropFirst(first).prefix(body.height).enumerated() {
            if line.isTitle {
                grid.write(line.keys, in: body, row: row, style: Style(.title))
            } else {
                if !line.keys.isEmpty { grid.write(line.keys, in: body, row: row, column: 2, style: Style(.accent)) }
                if !line.action.isEmpty {
                    grid.write(line.action, in: body, row: row, column: 2 + keyWidth + 1, style: Style(.normal))
                }
            }
        }
        drawScrollHint(
            into: &grid, hint: hint, hints: [("↑↓ PgUp PgDn", "scroll"), ("Esc", "close")],
            first: first, shown: body.height, of: lines.count)
    }

    /// A scrolled page's hint line: the keys on the left and "1–17 of 51" on the right, the
    /// position first, so that the keys never run into it (fewer keys when the line is short).
    func drawScrollHint(
        into grid: inout Grid, hint: Rect, hints: [(keys: String, action: String)],
        first: Int, shown: Int, of count: Int
    ) {
        let position = count > shown ? "\(first + 1)–\(min(count, first + shown)) of \(count)" : ""
        let room = position.isEmpty ? hint.width : max(0, hint.width - TextWidth.of(position) - 2)
        grid.write(hintPieces(hints, width: room), in: hint)
        if !position.isEmpty { grid.write(position, in: hint, style: Style(.dim), alignment: .trailing) }
    }
}
