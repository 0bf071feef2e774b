/// One cell of a ``Grid``: a grapheme cluster and its style.
///
/// A wide glyph occupies two cells: the first holds the glyph (`width` 2), the second is a
/// continuation (`isContinuation`), drawn by nobody.
package struct Cell: Hashable, Sendable {
    package var character: Character
    package var style: Style
    package var width: Int
    package var isContinuation: Bool

    package init(_ character: Character = " ", style: Style = .normal) {
        self.init(character, style: style, width: TextWidth.of(character))
    }

    /// A cell of `character`, whose ``TextWidth`` is already known to be `width`.
    init(_ character: Character, style: Style, width: Int) {
        self.character = character
        self.style = style
        self.width = max(1, width)
        self.isContinuation = false
    }

    static func continuation(style: Style) -> Cell {
        var cell = Cell(" ", style: style)
        cell.isContinuation = true
        cell.width = 0
        return cell
    }

    package static let blank = Cell()
}

/// A rectangle of styled cells that views render into and backends draw (ratatui's buffer).
///
/// Every write is clipped to the grid (and to an optional clip rectangle), so a view can never
/// write outside its area or crash on a small terminal. A wide glyph that does not fit whole is
/// replaced by a space.
package struct Grid: Hashable, Sendable {
    package private(set) var size: Size
    private var cells: [Cell]

    package init(size: Size, fill: Cell = .blank) {
        self.size = size
        cells = Array(repeating: fill, count: size.width * size.height)
    }

    package var bounds: Rect { Rect(origin: .zero, size: size) }

    package subscript(x: Int, y: Int) -> Cell {
        get {
            guard x >= 0, y >= 0, x < size.width, y < size.height else { return .blank }
            return cells[y * size.width + x]
        }
        set {
            guard x >= 0, y >= 0, x < size.width, y < size.height else { return }
            cells[y * size.width + x] = newValue
        }
    }

    /// Writes `text` from `point` on one line, clipped to `clip` (default: the whole grid).
    /// Control characters are skipped. Returns the column after the last cell written.
    @discardableResult
    package mutating func put(
        _ text: some StringProtocol, at point: Point, style: Style = .normal, clip: Rect? = nil
    ) -> Int {
        let area = clip.map { $0.intersection(bounds) } ?? bounds
        var x = point.x
        guard point.y >= area.minY, point.y < area.maxY else { return x + TextWidth.of(text) }
        if TextWidth.isSimple(text) {
            // A character a scalar: no grapheme breaking (the timeline's text prints millions).
            for scalar in text.unicodeScalars {
                let width = TextWidth.width(of: scalar)
                if x >= area.maxX { break }
                if x >= area.minX {
                    if width == 2 && x + 1 >= area.maxX {
                        set(Cell(" ", style: style, width: 1), x: x, y: point.y)
                    } else {
                        set(Cell(Character(scalar), style: style, width: width), x: x, y: point.y)
                        if width == 2 { set(.continuation(style: style), x: x + 1, y: point.y) }
                    }
                } else if width == 2 && x + 1 == area.minX {
                    set(Cell(" ", style: style, width: 1), x: x + 1, y: point.y)
                }
                x += width
            }
            return x
        }
        for character in text {
            let width = TextWidth.of(character)
            if width == 0 { continue }
            if x >= area.maxX { break }
            if x >= area.minX {
                if width == 2 && x + 1 >= area.maxX {
                    set(Cell(" ", style: style), x: x, y: point.y)
                } else {
                    set(Cell(character, style: style, width: width), x: x, y: point.y)
                    if width == 2 { set(.continuation(style: style), x: x + 1, y: point.y) }
                }
            } else if width == 2 && x + 1 == area.minX {
                set(Cell(" ", style: style), x: x + 1, y: point.y)
            }
            x += width
        }
        return x
    }

    /// Sets one cell, repairing a wide glyph that the write splits.
    private mutating func set(_ cell: Cell, x: Int, y: Int) {
        let old = self[x, y]
        if old.isContinuation, x > 0, self[x - 1, y].width == 2 {
            self[x - 1, y] = Cell(" ", style: self[x - 1, y].style)
        }
        if old.width == 2, !cell.isContinuation, x + 1 < size.width {
            self[x + 1, y] = Cell(" ", style: self[x + 1, y].style)
        }
        self[x, y] = cell
    }

    /// Fills `rect` with `character` in `style`.
    package mutating func fill(_ rect: Rect, with character: Character = " ", style: Style = .normal) {
        let area = rect.intersection(bounds)
        guard !area.isEmpty else { return }
        let line = String(repeating: character, count: max(1, area.width / max(1, TextWidth.of(character))))
        for y in area.minY..<area.maxY { put(line, at: Point(x: area.minX, y: y), style: style, clip: area) }
    }

    /// Sets the style of every cell in `rect`, keeping the characters.
    package mutating func restyle(_ rect: Rect, style: Style) {
        let area = rect.intersection(bounds)
        guard !area.isEmpty else { return }
        for y in area.minY..<area.maxY {
            for x in area.minX..<area.maxX { cells[y * size.width + x].style = style }
        }
    }

    /// Box-drawing characters for ``box(_:style:title:titleStyle:lines:)``.
    package struct Lines: Sendable {
        package var horizontal, vertical, topLeft, topRight, bottomLeft, bottomRight: Character
        package static let light = Lines(
            horizontal: "─", vertical: "│", topLeft: "┌", topRight: "┐", bottomLeft: "└", bottomRight: "┘")
        package static let rounded = Lines(
            horizontal: "─", vertical: "│", topLeft: "╭", topRight: "╮", bottomLeft: "╰", bottomRight: "╯")
        package static let heavy = Lines(
            horizontal: "━", vertical: "┃", topLeft: "┏", topRight: "┓", bottomLeft: "┗", bottomRight: "┛")
        package static let double = Lines(
            horizontal: "═", vertical: "║", topLeft: "╔", topRight: "╗", bottomLeft: "╚", bottomRight: "╝")
    }

    /// Draws a border along the edge of `rect`, with an optional title in the top edge.
    package mutating func box(
        _ rect: Rect, style: Style = Style(.frame), title: String? = nil,
        titleStyle: Style = Style(.title), lines: Lines = .light
    ) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let horizontal = String(repeating: lines.horizontal, count: rect.width - 2)
        put(String(lines.topLeft) + horizontal + String(lines.topRight), at: rect.origin, style: style)
        put(
            String(lines.bottomLeft) + horizontal + String(lines.bottomRight), at: Point(x: rect.x, y: rect.maxY - 1),
            style: style)
        for y in (rect.y + 1)..<(rect.maxY - 1) {
            put(String(lines.vertical), at: Point(x: rect.x, y: y), style: style)
            put(String(lines.vertical), at: Point(x: rect.maxX - 1, y: y), style: style)
        }
        if let title, rect.width > 4 {
            let text = " " + TextWidth.truncate(title, to: rect.width - 4) + " "
            put(text, at: Point(x: rect.x + 1, y: rect.y), style: titleStyle, clip: rect.inset(left: 1, right: 1))
        }
    }

    /// Copies `other` onto this grid with its top-left corner at `point` (clipped).
    package mutating func paste(_ other: Grid, at point: Point) {
        for y in 0..<other.size.height {
            for x in 0..<other.size.width {
                let cell = other[x, y]
                let target = Point(x: point.x + x, y: point.y + y)
                guard bounds.contains(target) else { continue }
                if cell.width == 2 && target.x + 1 >= size.width {
                    set(Cell(" ", style: cell.style), x: target.x, y: target.y)
                } else {
                    self[target.x, target.y] = cell
                }
            }
        }
    }

    /// The grid as text, one line per row with trailing blanks removed: what a snapshot stores
    /// and what a person reads. Continuation cells of wide glyphs produce nothing.
    package func text() -> String {
        (0..<size.height).map(line(_:)).joined(separator: "\n")
    }

    /// Row `y` as text, trailing blanks removed.
    package func line(_ y: Int) -> String {
        guard y >= 0, y < size.height else { return "" }
        // The characters' bytes, then one string (`--print` makes millions of lines).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size.width * 3)
        for cell in cells[(y * size.width)..<((y + 1) * size.width)] where !cell.isContinuation {
            bytes.append(contentsOf: cell.character.utf8)
        }
        var trimmed = false
        while bytes.last == 0x20 {
            bytes.removeLast()
            trimmed = true
        }
        var line = String(decoding: bytes, as: UTF8.self)
        // Blanks are trimmed as characters: a space after a prepended mark (U+0600 and the like,
        // all from U+0600 on) is part of that mark's character, and stays.
        if trimmed, let last = line.unicodeScalars.last, last.value >= 0x600, !(0x2500...0x25FF).contains(last.value) {
            line.append(" ")
            if line.last == " " { line.removeLast() }
        }
        return line
    }

    /// A style mask for snapshots: one character per cell from `legend` (by role; emphasis is
    /// ignored), `.` for roles missing from it. Trailing dots are kept so columns line up.
    package func styleMask(_ legend: [Role: Character]) -> String {
        (0..<size.height).map { y in
            String((0..<size.width).map { x in legend[self[x, y].style.role] ?? "." })
        }.joined(separator: "\n")
    }
}
