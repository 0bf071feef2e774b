import TerminalCells

/// Which cells a backend must draw to turn the screen showing one grid into the next.
enum GridDiff {
    /// The cells of `new` to draw, row by row, left to right: every cell that differs from
    /// `old`, or all of them when there is no `old` or its size differs.
    ///
    /// A wide glyph is drawn once, from its first cell: when only its continuation changed, the
    /// first cell is listed instead. A continuation with no wide glyph before it (a grid edited
    /// cell by cell) is listed itself, and is drawn as a blank.
    static func cellsToDraw(from old: Grid?, to new: Grid) -> [Point] {
        let size = new.size
        let previous = old.flatMap { $0.size == size ? $0 : nil }
        var points: [Point] = []
        for y in 0..<size.height {
            for x in 0..<size.width {
                let cell = new[x, y]
                if let previous, previous[x, y] == cell { continue }
                if cell.isContinuation, x > 0, isWideHead(new[x - 1, y]) {
                    let head = Point(x: x - 1, y: y)
                    if points.last != head { points.append(head) }
                } else {
                    points.append(Point(x: x, y: y))
                }
            }
        }
        return points
    }

    static func isWideHead(_ cell: Cell) -> Bool {
        cell.width == 2 && !cell.isContinuation
    }
}
