import Foundation
import TerminalCells

/// How land is drawn.
public enum MapRendering: String, Hashable, Sendable, CaseIterable {
    /// Braille patterns: 2x4 dots per cell (the finest).
    case braille
    /// Half blocks (▀ ▄ █): 1x2 pixels per cell (reads in any font).
    case halfBlocks
}

/// Draws the map for a camera: land from the mask suited to the zoom, coastline cells in bold,
/// country borders (from zoom 2) as gaps in dim cells, and cities (● and their names) placed
/// without overlaps by ``LabelPlacer`` (drawn last, so no border crosses a name).
public struct MapRenderer: Sendable {
    public let atlas: LandAtlas
    public let cities: CityCatalog

    public init(atlas: LandAtlas, cities: CityCatalog) {
        self.atlas = atlas
        self.cities = cities
    }

    /// The most names drawn at `zoom` (the cities beyond it are left out), so that the world
    /// view keeps its coastlines readable.
    public static func nameLimit(zoom: Double) -> Int {
        zoom < 1 ? 12 : zoom < 2 ? 30 : zoom < 3 ? 60 : .max
    }

    /// Draws the map of `camera` into `area` (and nowhere else); `highlighted` is placed first
    /// and stands out. Returns the markers and names placed.
    @discardableResult
    public func render(_ camera: MapCamera, rendering: MapRendering = .braille, highlighted: City? = nil,
                       into grid: inout Grid, area: Rect) -> [PlacedLabel] {
        let area = area.intersection(grid.bounds)
        guard !area.isEmpty else { return [] }
        switch rendering {
        case .braille: drawBraille(camera, into: &grid, area: area)
        case .halfBlocks: drawHalfBlocks(camera, into: &grid, area: area)
        }
        return drawCities(camera, highlighted: highlighted, into: &grid, area: area)
    }

    // MARK: Land

    /// For each of `count` pixels of `size` degrees from `start`, the mask row (or -1 beyond a pole).
    private static func rows(of mask: LandMask, count: Int, top: Double, size: Double) -> [Int] {
        (0..<count).map { mask.row(latitude: top - (Double($0) + 0.5) * size) ?? -1 }
    }

    private static func columns(of mask: LandMask, count: Int, left: Double, size: Double) -> [Int] {
        (0..<count).map { mask.column(longitude: left + (Double($0) + 0.5) * size) }
    }

    /// Whether country borders are drawn at `zoom`: from zoom 2 (a screen dot no larger than
    /// 0.35°, a pixel of half blocks 0.7°); coarser, they would riddle the continents.
    public static func drawsBorders(zoom: Double) -> Bool {
        zoom >= 2
    }

    /// The braille dots (bits as in U+2800) of `mask` set in the cell of dot rows `rows` and dot
    /// columns `c0`, `c1` (a row of -1 is beyond a pole).
    @inline(__always)
    private static func brailleBits(_ mask: LandMask, _ rows: (Int, Int, Int, Int), _ c0: Int, _ c1: Int) -> Int {
        var bits = 0
        if rows.0 >= 0 {
            if mask.isLand(row: rows.0, column: c0) { bits |= 0x01 }
            if mask.isLand(row: rows.0, column: c1) { bits |= 0x08 }
        }
        if rows.1 >= 0 {
            if mask.isLand(row: rows.1, column: c0) { bits |= 0x02 }
            if mask.isLand(row: rows.1, column: c1) { bits |= 0x10 }
        }
        if rows.2 >= 0 {
            if mask.isLand(row: rows.2, column: c0) { bits |= 0x04 }
            if mask.isLand(row: rows.2, column: c1) { bits |= 0x20 }
        }
        if rows.3 >= 0 {
            if mask.isLand(row: rows.3, column: c0) { bits |= 0x40 }
            if mask.isLand(row: rows.3, column: c1) { bits |= 0x80 }
        }
        return bits
    }

    private func drawBraille(_ camera: MapCamera, into grid: inout Grid, area: Rect) {
        let dot = camera.degreesPerColumn / 2
        let mask = atlas.mask(forDegreesPerPixel: dot)
        let borders = Self.drawsBorders(zoom: camera.zoom) ? atlas.borders(for: mask) : nil
        let left = camera.longitude - Double(area.width) * camera.degreesPerColumn / 2
        let top = camera.latitude + Double(area.height) * camera.degreesPerColumn
        let rows = Self.rows(of: mask, count: area.height * 4, top: top, size: dot)
        let columns = Self.columns(of: mask, count: area.width * 2, left: left, size: dot)
        for y in 0..<area.height {
            let dotRows = (rows[4 * y], rows[4 * y + 1], rows[4 * y + 2], rows[4 * y + 3])
            for x in 0..<area.width {
                let c0 = columns[2 * x], c1 = columns[2 * x + 1]
                let land = Self.brailleBits(mask, dotRows, c0, c1)
                // A border dot is left unset (the border reads as a thin gap) and its cell is dim.
                if land != 0, let borders {
                    let border = Self.brailleBits(borders, dotRows, c0, c1) & land
                    if border != 0 {
                        grid[area.x + x, area.y + y] = Self.brailleBorderCells[land & ~border]
                        continue
                    }
                }
                grid[area.x + x, area.y + y] = Self.brailleCells[land]
            }
        }
    }

    private func drawHalfBlocks(_ camera: MapCamera, into grid: inout Grid, area: Rect) {
        let pixel = camera.degreesPerColumn
        let mask = atlas.mask(forDegreesPerPixel: pixel)
        let borders = Self.drawsBorders(zoom: camera.zoom) ? atlas.borders(for: mask) : nil
        let left = camera.longitude - Double(area.width) * pixel / 2
        let top = camera.latitude + Double(area.height) * pixel
        let rows = Self.rows(of: mask, count: area.height * 2, top: top, size: pixel)
        let columns = Self.columns(of: mask, count: area.width, left: left, size: pixel)
        for y in 0..<area.height {
            let upper = rows[2 * y], lower = rows[2 * y + 1]
            for x in 0..<area.width {
                let column = columns[x]
                let bits = (upper >= 0 && mask.isLand(row: upper, column: column) ? 1 : 0)
                    | (lower >= 0 && mask.isLand(row: lower, column: column) ? 2 : 0)
                if bits != 0, let borders {
                    let border = bits & ((upper >= 0 && borders.isLand(row: upper, column: column) ? 1 : 0)
                        | (lower >= 0 && borders.isLand(row: lower, column: column) ? 2 : 0))
                    if border != 0 {
                        grid[area.x + x, area.y + y] = Self.halfBlockBorderCells[bits & ~border]
                        continue
                    }
                }
                grid[area.x + x, area.y + y] = Self.halfBlockCells[bits]
            }
        }
    }

    /// Water is blank, land is drawn; a cell with both (a coast) is bold.
    static let brailleCells: [Cell] = (0..<256).map { bits in
        guard bits != 0, let scalar = Unicode.Scalar(0x2800 + bits) else { return Cell(" ", style: Style(.mapWater)) }
        return Cell(Character(scalar), style: Style(.mapLand, bold: bits != 0xFF))
    }

    /// A cell crossed by a country border: its land dots without the border's, in the dim role
    /// (grey, not the land's green); with no dot left, the blank braille pattern (still land).
    static let brailleBorderCells: [Cell] = (0..<256).map { bits in
        let scalar = Unicode.Scalar(0x2800 + bits) ?? " "
        return Cell(Character(scalar), style: Style(.dim))
    }

    static let halfBlockCells: [Cell] = [
        Cell(" ", style: Style(.mapWater)),
        Cell("▀", style: Style(.mapLand, bold: true)),
        Cell("▄", style: Style(.mapLand, bold: true)),
        Cell("█", style: Style(.mapLand)),
    ]

    /// A half-block cell crossed by a country border: the border pixel is left out, dim.
    static let halfBlockBorderCells: [Cell] = [
        Cell(" ", style: Style(.dim)),
        Cell("▀", style: Style(.dim)),
        Cell("▄", style: Style(.dim)),
        Cell("█", style: Style(.dim)),
    ]

    // MARK: Cities

    /// The cell of a point in a view of `area` centred on `camera` (possibly outside the area).
    public static func cell(latitude: Double, longitude: Double, camera: MapCamera, area: Rect) -> Point {
        let east = MapCamera.wrap(longitude - camera.longitude) / camera.degreesPerColumn
        let south = (camera.latitude - latitude) / (2 * camera.degreesPerColumn)
        let x = (Double(area.width) / 2 + east).rounded(.down)
        let y = (Double(area.height) / 2 + south).rounded(.down)
        guard x.magnitude < 1e6, y.magnitude < 1e6 else { return Point(x: -1_000_000, y: -1_000_000) }
        return Point(x: area.x + Int(x), y: area.y + Int(y))
    }

    /// The cities in `area`, most important first (the highlighted one before all).
    public func candidates(_ camera: MapCamera, highlighted: City?, area: Rect) -> [LabelCandidate] {
        var list = cities.cities
        if let highlighted {
            list.removeAll { $0 == highlighted }
            list.insert(highlighted, at: 0)
        }
        return list.compactMap { city in
            let point = Self.cell(latitude: city.latitude, longitude: city.longitude, camera: camera, area: area)
            return area.contains(point) ? LabelCandidate(marker: point, text: city.name) : nil
        }
    }

    /// The markers and names of a view of `camera` in `area` (what ``render(_:rendering:highlighted:into:area:)``
    /// draws over the land), most important first; `highlighted`, when in view, is the first.
    public func placeLabels(_ camera: MapCamera, highlighted: City?, area: Rect) -> [PlacedLabel] {
        var placer = LabelPlacer(area: area)
        var names = Self.nameLimit(zoom: camera.zoom)
        var placed: [PlacedLabel] = []
        for candidate in candidates(camera, highlighted: highlighted, area: area) {
            guard names > 0 else { break }  // beyond the limit, no more cities: the coasts stay readable
            let label = placer.place(candidate)
            guard var label else { continue }
            label.text = candidate.text
            if label.position != nil { names -= 1 }
            placed.append(label)
        }
        return placed
    }

    private func drawCities(_ camera: MapCamera, highlighted: City?, into grid: inout Grid, area: Rect) -> [PlacedLabel] {
        let placed = placeLabels(camera, highlighted: highlighted, area: area)
        // The highlighted city is placed first when it is in view (never another in its stead).
        let highlightedCell = highlighted.map { Self.cell(latitude: $0.latitude, longitude: $0.longitude, camera: camera, area: area) }
        for (index, label) in placed.enumerated() {
            let isHighlighted = index == 0 && label.marker == highlightedCell
            grid[label.marker.x, label.marker.y] = Cell(isHighlighted ? "◉" : "●", style: Style(.mapCity, bold: true))
            if label.position != nil {
                // A blank cell either side keeps the name apart from the land drawn around it.
                let frame = label.textFrame
                grid.put(" ", at: Point(x: frame.x - 1, y: frame.y), style: Style(.mapWater), clip: area)
                grid.put(" ", at: Point(x: frame.maxX, y: frame.y), style: Style(.mapWater), clip: area)
                grid.put(label.text, at: frame.origin, style: Style(.mapLabel, bold: isHighlighted, reverse: isHighlighted), clip: area)
            }
        }
        return placed
    }
}
