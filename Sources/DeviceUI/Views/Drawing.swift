import TerminalCells

/// Small drawing helpers shared by the views.
extension Grid {
    /// Writes `text` on row `row` of `area`, cut to fit, aligned as asked. Returns the column
    /// after the text.
    @discardableResult
    mutating func write(
        _ text: String, in area: Rect, row: Int = 0, column: Int = 0, style: Style = .normal,
        alignment: TextAlignment = .leading
    ) -> Int {
        let line = area.row(row)
        guard !line.isEmpty else { return area.x }
        let room = max(0, line.width - column)
        let fitted = TextWidth.truncate(text, to: room)
        let width = TextWidth.of(fitted)
        let x: Int =
            switch alignment {
            case .leading: line.x + column
            case .center: line.x + column + (room - width) / 2
            case .trailing: line.maxX - width
            }
        return put(fitted, at: Point(x: x, y: line.y), style: style, clip: line)
    }

    /// Writes styled pieces one after another on row `row` of `area`, cut at its edge.
    @discardableResult
    mutating func write(_ pieces: [(String, Style)], in area: Rect, row: Int = 0, column: Int = 0) -> Int {
        let line = area.row(row)
        var x = line.x + column
        for (text, style) in pieces {
            guard x < line.maxX else { break }
            let fitted = TextWidth.truncate(text, to: line.maxX - x)
            x = put(fitted, at: Point(x: x, y: line.y), style: style, clip: line)
        }
        return x
    }
}

enum TextAlignment {
    case leading, center, trailing
}

/// Key hints as styled pieces ("F1" in the accent role, "help" dim), as many whole hints as fit.
func hintPieces(_ hints: [(keys: String, action: String)], width: Int) -> [(String, Style)] {
    var pieces: [(String, Style)] = []
    var used = 0
    for hint in hints {
        let separator = pieces.isEmpty ? "" : "  "
        let cost = TextWidth.of(separator) + TextWidth.of(hint.keys) + 1 + TextWidth.of(hint.action)
        guard used + cost <= width else { break }
        if !separator.isEmpty { pieces.append((separator, Style(.dim))) }
        pieces.append((hint.keys, Style(.accent)))
        pieces.append((" " + hint.action, Style(.dim)))
        used += cost
    }
    return pieces
}
