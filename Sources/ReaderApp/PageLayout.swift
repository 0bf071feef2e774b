import TerminalCells

/// One logical page wrapped at one screen width: the rows to draw, each knowing where in the
/// page's source text it starts (so positions stay in source terms, see ``ReadingPosition``).
///
/// Lines are word-wrapped with `TextWidth.wrap`. Leading spaces of a line (an indented line of
/// verse, say) are kept as an indent on each of its rows, up to half the width.
package struct PageLayout: Hashable, Sendable {
    /// A row on screen.
    package struct Row: Hashable, Sendable {
        /// What to draw.
        package var text: String
        /// The source line it comes from, from 0.
        package var line: Int
        /// The character of that line the row starts with, from 0.
        package var character: Int
    }

    package let width: Int
    package let rows: [Row]

    /// Wraps `lines` at `width` cells (no rows when `width` is below 1).
    package init(lines: [String], width: Int) {
        self.width = width
        guard width > 0 else {
            rows = []
            return
        }
        var rows: [Row] = []
        for (index, line) in lines.enumerated() {
            rows += Self.wrap(line, index: index, width: width)
        }
        self.rows = rows
    }

    /// The index of the row that shows `line`/`character`: the last row starting at or before
    /// it (0 when there are no rows).
    package func rowIndex(line: Int, character: Int) -> Int {
        rows.lastIndex { ($0.line, $0.character) <= (line, character) } ?? 0
    }

    /// The first row that `height` rows of view may start at and still be full: scrolling stops
    /// there, with the end of the page at the bottom of the view.
    /// The row a view `height` rows high with `top` at its top shows at its top after scrolling a
    /// row down (or up), or nil when it cannot scroll that way within the page.
    func rowScrolled(from top: Int, down: Bool, height: Int) -> Row? {
        let row = down ? top + 1 : top - 1
        guard rows.indices.contains(row), !down || top < lastTopRow(height: height) else { return nil }
        return rows[row]
    }

    package func lastTopRow(height: Int) -> Int {
        max(0, rows.count - max(1, height))
    }

    private static func wrap(_ line: String, index: Int, width: Int) -> [Row] {
        let characters = Array(line)
        let leadingSpaces = characters.prefix { $0 == " " }.count
        guard leadingSpaces < characters.count else { return [Row(text: "", line: index, character: 0)] }
        let indent = min(leadingSpaces, (width - 1) / 2)
        let pieces = TextWidth.wrap(String(characters[leadingSpaces...]), width: width - indent)
        let margin = String(repeating: " ", count: indent)
        // Each piece is a run of the line with only spaces left out at the breaks: find where it
        // starts by matching its characters in order, skipping the spaces the wrap dropped.
        var cursor = leadingSpaces
        var rows: [Row] = []
        for piece in pieces {
            var start: Int?
            for character in piece {
                while cursor < characters.count, characters[cursor] != character, characters[cursor] == " " {
                    cursor += 1
                }
                guard cursor < characters.count, characters[cursor] == character else { break }
                if start == nil { start = cursor }
                cursor += 1
            }
            let character = max(start ?? cursor, rows.last?.character ?? 0)
            rows.append(Row(text: margin + piece, line: index, character: character))
        }
        return rows
    }
}
