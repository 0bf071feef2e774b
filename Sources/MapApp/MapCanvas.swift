import TerminalCells

/// A frame's pixels before they become cells: a braille dot (2x4 a cell) or a half block (1x2 a
/// cell) each, holding what covers it as bits (``land``, ``coast`` …).
///
/// Polygons are filled by scanline, even-odd, sampling pixel centres; lines are drawn with
/// Bresenham's algorithm after clipping them to the canvas. ``cells(into:area:rendering:)``
/// turns the pixels into characters and styles.
struct MapCanvas {
    static let land: UInt8 = 1
    static let coast: UInt8 = 2
    static let shore: UInt8 = 4
    static let border: UInt8 = 8
    static let subdivision: UInt8 = 16
    static let river: UInt8 = 32

    let width: Int
    let height: Int
    var pixels: [UInt8]
    /// Scanline crossings gathered for the polygon being filled, `row << 32 | column`: the first
    /// `crossingCount` (the array only grows, so a frame allocates it once or twice).
    private var crossings: [Int] = []
    private var crossingCount = 0
    /// ``fill(_:clear:)``'s counting sort: each row's first crossing, and the crossings' columns
    /// by row (kept between fills).
    private var rowStarts: [Int32] = []
    private var sortedColumns: [Int32] = []
    /// Steps along the dotted line being drawn (every third pixel is drawn).
    private var dotPhase = 0

    init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        pixels = [UInt8](repeating: 0, count: self.width * self.height)
        // Written before they are read (a crossing's slot is set when it is gathered).
        crossings = [Int](unsafeUninitializedCapacity: self.height * 16) { _, count in count = self.height * 16 }
        rowStarts = [Int32](repeating: 0, count: self.height + 1)
    }

    /// `Int(value.rounded(.down))` and `Int(value.rounded(.up))` without a call into the C
    /// library (a frame rounds tens of thousands of coordinates).
    @inline(__always)
    static func floor(_ value: Double) -> Int {
        let truncated = Int(value)
        return Double(truncated) > value ? truncated - 1 : truncated
    }

    @inline(__always)
    static func ceiling(_ value: Double) -> Int {
        let truncated = Int(value)
        return Double(truncated) < value ? truncated + 1 : truncated
    }

    // MARK: Filling

    /// Adds the edge from (x0, y0) to (x1, y1) (pixel units) to the polygon being filled: the
    /// rows whose centre it crosses, at the first pixel whose centre is right of it.
    @inline(__always)
    mutating func addEdge(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        guard y0 != y1 else { return }
        let (top, bottom) = y0 < y1 ? (y0, y1) : (y1, y0)
        guard bottom > 0.5, top < Double(height) - 0.5 + 1 else { return }
        // Rows j with top <= j + 0.5 < bottom.
        var first = Self.ceiling(top - 0.5)
        var last = Self.ceiling(bottom - 0.5) - 1
        first = max(first, 0)
        last = min(last, height - 1)
        guard first <= last else { return }
        let slope = (x1 - x0) / (y1 - y0)
        let limit = Double(width)
        let width = self.width
        let needed = crossingCount + last - first + 1
        if needed > crossings.count {
            crossings.append(contentsOf: repeatElement(0, count: max(needed, 2 * crossings.count) - crossings.count))
        }
        var count = crossingCount
        crossings.withUnsafeMutableBufferPointer { crossings in
            for row in first...last {
                let x = x0 + (Double(row) + 0.5 - y0) * slope
                let column = x <= 0 ? 0 : x >= limit ? width : Self.ceiling(x - 0.5)
                crossings[count] = row << 32 | min(max(column, 0), width)
                count += 1
            }
        }
        crossingCount = count
    }

    /// Fills (or with `clear`, empties) `bit` between pairs of crossings gathered since the last
    /// fill, row by row (even-odd), and forgets them.
    mutating func fill(_ bit: UInt8, clear: Bool = false) {
        let count = crossingCount
        guard count > 0 else { return }
        crossingCount = 0
        let height = self.height
        let width = self.width
        if sortedColumns.count < count {
            sortedColumns = [Int32](repeating: 0, count: max(count, 2 * sortedColumns.count))
        }
        // A counting sort by row, then each row's few crossings by column.
        crossings.withUnsafeBufferPointer { crossings in
            rowStarts.withUnsafeMutableBufferPointer { starts in
                for row in 0...height { starts[row] = 0 }
                for index in 0..<count { starts[(crossings[index] >> 32) + 1] += 1 }
                for row in 0..<height { starts[row + 1] += starts[row] }
                sortedColumns.withUnsafeMutableBufferPointer { columns in
                    // Placed from each row's end backwards, leaving `starts` as it was.
                    for index in stride(from: count - 1, through: 0, by: -1) {
                        let crossing = crossings[index]
                        let row = crossing >> 32
                        let at = Int(starts[row + 1]) - 1
                        columns[at] = Int32(truncatingIfNeeded: crossing)
                        starts[row + 1] = Int32(at)
                    }
                    // Now starts[row + 1] is where row's crossings begin; they end where the next row's do.
                    pixels.withUnsafeMutableBufferPointer { pixels in
                        for row in 0..<height {
                            let start = Int(starts[row + 1])
                            let end = row + 2 <= height ? Int(starts[row + 2]) : count
                            guard end - start >= 2 else { continue }
                            // Insertion sort: a row has few crossings (often two, in either order).
                            for i in (start + 1)..<end {
                                let value = columns[i]
                                var j = i - 1
                                while j >= start, columns[j] > value {
                                    columns[j + 1] = columns[j]
                                    j -= 1
                                }
                                columns[j + 1] = value
                            }
                            let base = row * width
                            var i = start
                            while i + 1 < end {
                                let from = Int(columns[i])
                                let to = Int(columns[i + 1])
                                if from < to {
                                    if clear {
                                        for x in from..<to { pixels[base + x] &= ~bit }
                                    } else {
                                        for x in from..<to { pixels[base + x] |= bit }
                                    }
                                }
                                i += 2
                            }
                        }
                    }
                }
            }
        }
    }

    // MARK: Lines

    /// Starts a new dotted line (its first pixel is drawn).
    mutating func startDots() { dotPhase = 0 }

    /// Sets `bit` in the pixel at (x, y) (pixel units): the line from the point to itself.
    @inline(__always)
    mutating func dot(_ x: Double, _ y: Double, _ bit: UInt8) {
        guard x >= 0, x < Double(width), y >= 0, y < Double(height) else { return }
        pixels[Int(y) * width + Int(x)] |= bit
    }

    /// Draws the segment from (x0, y0) to (x1, y1) (pixel units) in `bit`; `dotted` draws every
    /// third pixel, counting on from the previous dotted segment.
    @inline(__always)
    mutating func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ bit: UInt8, dotted: Bool = false) {
        guard let (ax, ay, bx, by) = clip(x0, y0, x1, y1) else { return }
        var x = Self.floor(ax)
        var y = Self.floor(ay)
        let endX = Self.floor(bx)
        let endY = Self.floor(by)
        let dx = abs(endX - x)
        let dy = -abs(endY - y)
        let sx = x < endX ? 1 : -1
        let sy = y < endY ? 1 : -1
        var error = dx + dy
        let w = width
        let h = height
        // The clipped segment ends at most a pixel outside the canvas: those pixels are skipped.
        var phase = dotPhase
        pixels.withUnsafeMutableBufferPointer { pixels in
            while true {
                if UInt(bitPattern: x) < UInt(w), UInt(bitPattern: y) < UInt(h), !dotted || phase % 3 == 0 {
                    pixels[y &* w &+ x] |= bit
                }
                if dotted { phase &+= 1 }
                if x == endX, y == endY { break }
                let doubled = error &* 2
                if doubled >= dy {
                    error &+= dy
                    x &+= sx
                }
                if doubled <= dx {
                    error &+= dx
                    y &+= sy
                }
            }
        }
        dotPhase = phase
    }

    /// The part of a segment inside the canvas (with a pixel's margin), Liang–Barsky; nil when none.
    @inline(__always)
    private func clip(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> (Double, Double, Double, Double)? {
        let minX = -1.0
        let minY = -1.0
        let maxX = Double(width) + 1
        let maxY = Double(height) + 1
        // Wholly inside (most segments drawn): all of it; wholly on one side: nothing.
        if x0 >= minX, x0 <= maxX, y0 >= minY, y0 <= maxY, x1 >= minX, x1 <= maxX, y1 >= minY, y1 <= maxY {
            return (x0, y0, x1, y1)
        }
        if (x0 < minX && x1 < minX) || (x0 > maxX && x1 > maxX) || (y0 < minY && y1 < minY) || (y0 > maxY && y1 > maxY)
        {
            return nil
        }
        guard x0.isFinite, y0.isFinite, x1.isFinite, y1.isFinite else { return nil }
        let dx = x1 - x0
        let dy = y1 - y0
        var t0 = 0.0
        var t1 = 1.0
        @inline(__always) func edge(_ p: Double, _ q: Double) -> Bool {
            if p == 0 { return q >= 0 }
            let r = q / p
            if p < 0 {
                if r > t1 { return false }
                if r > t0 { t0 = r }
            } else {
                if r < t0 { return false }
                if r < t1 { t1 = r }
            }
            return true
        }
        guard edge(-dx, x0 - minX), edge(dx, maxX - x0), edge(-dy, y0 - minY), edge(dy, maxY - y0) else { return nil }
        return (x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy)
    }

    // MARK: Cells

    /// What a cell shows, by importance: a coast (bold land), a lake's shore (water), a river
    /// (water), a country border (dim), a subdivision's dotted line, then land.
    enum CellKind: Int {
        case empty = 0, land, subdivision, border, river, shore, coast
    }

    /// Writes the canvas into `area` of `grid` (the canvas is the area's size in pixels).
    ///
    /// Land pixels are dots; borders, rivers and subdivisions on land are gaps in it (a border's
    /// cell is dim, a river's in the water role); coasts and shores are dots in bold land and in
    /// the water role.
    func cells(into grid: inout Grid, area: Rect, rendering: MapRendering) {
        switch rendering {
        case .braille: brailleCells(into: &grid, area: area)
        case .halfBlocks: halfBlockCells(into: &grid, area: area)
        }
    }

    /// Whether a pixel shows a dot, and what it makes its cell: on land a border, river or
    /// subdivision is a gap; over a lake a border or a river is a dot and a subdivision nothing.
    @inline(__always)
    private static func classify(_ pixel: UInt8) -> (on: Bool, kind: CellKind) {
        if pixel & coast != 0 { return (true, .coast) }
        if pixel & shore != 0 { return (true, .shore) }
        if pixel & river != 0 { return (pixel & land == 0, .river) }
        if pixel & border != 0 { return (pixel & land == 0, .border) }
        if pixel & subdivision != 0 { return (false, pixel & land == 0 ? .empty : .subdivision) }
        if pixel & land != 0 { return (true, .land) }
        return (false, .empty)
    }

    /// ``classify(_:)`` for every pair of pixel values `first << 6 | second` (a braille cell's
    /// row, a half-block cell's column): `firstOn | secondOn << 1 | kind << 2`, the kind the
    /// more important of the two.
    private static let pairTable: [UInt8] = (0..<4096).map { index in
        let first = classify(UInt8(index >> 6))
        let second = classify(UInt8(index & 63))
        return UInt8((first.on ? 1 : 0) | (second.on ? 2 : 0) | max(first.kind.rawValue, second.kind.rawValue) << 2)
    }

    private func brailleCells(into grid: inout Grid, area: Rect) {
        let columns = min(area.width, width / 2)
        let rows = min(area.height, height / 4)
        let width = self.width
        Self.pairTable.withUnsafeBufferPointer { pairs in
            Self.brailleTable.withUnsafeBufferPointer { table in
                pixels.withUnsafeBufferPointer { pixels in
                    for row in 0..<rows {
                        for column in 0..<columns {
                            // The dots row by row (left then right), the rows' pairs packed from the top.
                            var dots = 0
                            var kind = 0
                            var base = row &* 4 &* width &+ column &* 2
                            for dy in 0..<4 {
                                let pair = Int(pairs[Int(pixels[base] & 63) << 6 | Int(pixels[base &+ 1] & 63)])
                                dots |= (pair & 3) &<< (2 &* dy)
                                kind = max(kind, pair &>> 2)
                                base &+= width
                            }
                            grid[area.x + column, area.y + row] = table[kind << 8 | dots]
                        }
                    }
                }
            }
        }
    }

    private func halfBlockCells(into grid: inout Grid, area: Rect) {
        let columns = min(area.width, width)
        let rows = min(area.height, height / 2)
        let width = self.width
        Self.pairTable.withUnsafeBufferPointer { pairs in
            Self.halfBlockTable.withUnsafeBufferPointer { table in
                pixels.withUnsafeBufferPointer { pixels in
                    for row in 0..<rows {
                        let upper = row &* 2 &* width
                        for column in 0..<columns {
                            // Upper half, lower half, the more important kind: the table's index.
                            let pair = Int(
                                pairs[
                                    Int(pixels[upper &+ column] & 63) << 6 | Int(pixels[upper &+ width &+ column] & 63)]
                            )
                            grid[area.x + column, area.y + row] = table[pair]
                        }
                    }
                }
            }
        }
    }

    /// A cell's style for what it shows; a cell of land with a dot missing (its edge) is bold.
    private static func style(_ kind: CellKind, full: Bool) -> Style {
        switch kind {
        case .empty: Style(.mapWater)
        case .land: Style(.mapLand, bold: !full)
        case .subdivision: Style(.mapLand)
        case .coast: Style(.mapLand, bold: true)
        case .shore: Style(.mapWater)
        case .river: Style(.mapWater, bold: true)
        case .border: Style(.dim)
        }
    }

    /// A braille cell's dot bits by (column, row) in the cell: 1 4 / 2 5 / 3 6 / 7 8.
    private static let brailleShift: [Int] = [0, 3, 1, 4, 2, 5, 6, 7]  // (row * 2 + column) → bit

    /// The cell for kind `k` and `dots` (bit `row * 2 + column` for each dot, rows from the top):
    /// index `k << 8 | dots`.
    static let brailleTable: [Cell] = (0...6).flatMap { kind in
        (0..<256).map { dots in
            let bits = (0..<8).reduce(0) { bits, dot in bits | (dots >> dot & 1) << brailleShift[dot] }
            let kind = CellKind(rawValue: kind) ?? .empty
            guard bits != 0 || kind == .border, let scalar = Unicode.Scalar(0x2800 + bits) else {
                return Cell(" ", style: Style(.mapWater))
            }
            return Cell(Character(scalar), style: style(kind, full: bits == 0xFF))
        }
    }

    /// The cell for kind `k` and halves `bits` (1 upper, 2 lower): index `k << 2 | bits`.
    static let halfBlockTable: [Cell] = (0...6).flatMap { kind in
        let glyphs: [Character] = [" ", "▀", "▄", "█"]
        return (0..<4).map { bits in
            let kind = CellKind(rawValue: kind) ?? .empty
            guard bits != 0 || kind == .border else { return Cell(" ", style: Style(.mapWater)) }
            return Cell(glyphs[bits], style: style(kind, full: bits == 3))
        }
    }
}
