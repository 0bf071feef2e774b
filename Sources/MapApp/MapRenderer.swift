import Foundation
import TerminalCells

/// How land is drawn.
package enum MapRendering: String, Hashable, Sendable, CaseIterable {
    /// Braille patterns: 2x4 dots per cell (the finest).
    case braille
    /// Half blocks (▀ ▄ █): 1x2 pixels per cell (reads in any font).
    case halfBlocks
}

/// Draws the map for a camera from vector geography: land filled and its coast drawn as lines
/// (Bresenham, into braille dots or half blocks), lakes cleared with their shores in the water
/// role, rivers as gaps in the water role (the longer ones first: each level holds those long
/// enough for its zooms), country borders (from zoom 1) as dim gaps, subdivisions (from zoom 5)
/// as dotted gaps;
/// then country names and places (● and their names) placed without overlaps by
/// ``LabelPlacer``, drawn last so no line crosses a name.
package struct MapRenderer: Sendable {
    package let geography: MapGeography
    package let cities: CityCatalog
    package let countries: [CountryLabel]

    package init(geography: MapGeography, cities: CityCatalog, countries: [CountryLabel] = []) {
        self.geography = geography
        self.cities = cities
        self.countries = countries
    }

    /// The most place names drawn at `zoom` in `area` (the places beyond it are left out), so
    /// that the coasts stay readable: a dozen for the world, then one name for every 80 cells.
    package static func nameLimit(zoom: Double, area: Rect) -> Int {
        let byZoom = zoom < 1 ? 12 : zoom < 2 ? 30 : zoom < 3 ? 60 : Int.max
        return min(byZoom, max(8, area.width * area.height / 80))
    }

    /// The smallest population of a place shown at `zoom`: the larger places appear first, the
    /// small towns only close in.
    package static func minimumPopulation(zoom: Double) -> Int {
        switch zoom {
        case ..<1: 3_000_000
        case ..<2: 1_000_000
        case ..<3: 500_000
        case ..<4: 300_000
        case ..<5: 150_000
        case ..<6: 50_000
        case ..<7: 15_000
        default: 0
        }
    }

    /// Whether country borders are drawn at `zoom`: from zoom 1 (coarser, they would riddle the
    /// continents).
    package static func drawsBorders(zoom: Double) -> Bool { zoom >= 1 }

    /// Whether states and provinces are drawn at `zoom`: from zoom 5 (closer to the world, their
    /// dotted lines would be a texture over the land).
    package static func drawsSubdivisions(zoom: Double) -> Bool { zoom >= 5 }

    /// Draws the map of `camera` into `area` (and nowhere else); `highlighted` is placed first
    /// and stands out. Returns the markers and names placed.
    @discardableResult
    package func render(
        _ camera: MapCamera, rendering: MapRendering = .braille, highlighted: City? = nil,
        into grid: inout Grid, area: Rect
    ) -> [PlacedLabel] {
        let area = area.intersection(grid.bounds)
        guard !area.isEmpty else { return [] }
        drawGeography(camera, rendering: rendering, into: &grid, area: area)
        return drawLabels(camera, highlighted: highlighted, into: &grid, area: area)
    }

    // MARK: Geography

    /// The canvas of `camera` over `area` (pixels: braille dots or half blocks).
    func canvas(_ camera: MapCamera, rendering: MapRendering, area: Rect) -> MapCanvas {
        let (perColumn, perRow) = rendering == .braille ? (2, 4) : (1, 2)
        var canvas = MapCanvas(width: area.width * perColumn, height: area.height * perRow)
        // A pixel's side in degrees (both ways: a row spans twice a column's degrees).
        let pixel = camera.degreesPerColumn / Double(perColumn)
        let zoom = rendering == .braille ? camera.zoom : camera.zoom - 1
        guard let level = geography.level(forZoom: zoom), canvas.width > 0, canvas.height > 0 else { return canvas }
        let left = camera.longitude - Double(area.width) * camera.degreesPerColumn / 2
        let top = camera.latitude + Double(area.height) * camera.degreesPerColumn
        let right = left + Double(canvas.width) * pixel
        let bottom = top - Double(canvas.height) * pixel
        let side = level.tileDegrees
        // Tiles by global column (beyond the grid's columns: the world again, further east).
        // (A view wider than a few worlds, of a huge terminal at the widest zoom, draws the first few.)
        let firstColumn = Int(((left + 180) / side).rounded(.down))
        let lastColumn = min(Int(((right + 180) / side).rounded(.down)), firstColumn + 8 * level.columns)
        let firstRow = max(0, Int(((bottom + 90) / side).rounded(.down)))
        let lastRow = min(level.rows - 1, Int(((top + 90) / side).rounded(.down)))
        guard firstRow <= lastRow, firstColumn <= lastColumn else { return canvas }
        var tiles: [(index: Int, a: Double, x: Double, y: Double)] = []
        let scale = level.quantum / pixel
        for row in firstRow...lastRow {
            for column in firstColumn...lastColumn {
                guard let tile = level.tile(column: column, row: row) else { continue }
                let west = -180 + Double(column) * side
                let south = -90 + Double(row) * side
                tiles.append((tile, scale, (west - left) / pixel, (top - south) / pixel))
            }
        }
        let canvasWidth = Double(canvas.width)
        let canvasHeight = Double(canvas.height)
        level.points.withUnsafeBufferPointer { points in
            level.partBoxes.withUnsafeBufferPointer { boxes in
                level.partStarts.withUnsafeBufferPointer { parts in
                    // Each edge of `kind` in view, in pixels. A part wholly out of view is skipped
                    // (its crossings would all fall on one side: they fill nothing); a part within a
                    // pixel is that pixel (`dot`). A point less than a pixel from the last one kept
                    // (in both directions) is skipped when its edge is drawn alike: a level serves
                    // two zooms, and at the farther one its points are denser than the pixels.
                    func each(
                        _ kind: GeoKind,
                        _ body: (_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ drawn: Bool) -> Void,
                        dot: (_ x: Double, _ y: Double) -> Void = { _, _ in }, startingPart: () -> Void = {}
                    ) {
                        for tile in tiles {
                            for part in level.parts(of: kind, inTile: tile.index) {
                                let west = Double(boxes[4 * part]) * tile.a + tile.x
                                let east = Double(boxes[4 * part + 2]) * tile.a + tile.x
                                let north = tile.y - Double(boxes[4 * part + 3]) * tile.a
                                let south = tile.y - Double(boxes[4 * part + 1]) * tile.a
                                if east < 0 || west > canvasWidth || south < 0 || north > canvasHeight { continue }
                                if east - west < 1, south - north < 1 {
                                    dot((west + east) / 2, (north + south) / 2)
                                    continue
                                }
                                startingPart()
                                let start = Int(parts[part])
                                let end = Int(parts[part + 1])
                                var keptX = Double(points[2 * start] >> 1) * tile.a + tile.x
                                var keptY = tile.y - Double(points[2 * start + 1]) * tile.a
                                var keptDrawn = points[2 * start] & 1
                                let firstX = keptX
                                let firstY = keptY
                                let last = end - 1
                                for index in (start + 1)..<end {
                                    let raw = points[2 * index]
                                    let x = Double(raw >> 1) * tile.a + tile.x
                                    let y = tile.y - Double(points[2 * index + 1]) * tile.a
                                    if index < last, raw & 1 == keptDrawn, abs(x - keptX) < 1, abs(y - keptY) < 1 {
                                        continue
                                    }
                                    body(keptX, keptY, x, y, keptDrawn != 0)
                                    keptX = x
                                    keptY = y
                                    keptDrawn = raw & 1
                                }
                                if kind.isPolygonal { body(keptX, keptY, firstX, firstY, keptDrawn != 0) }
                            }
                        }
                    }
                    // Lines and fills set separate bits, so one pass over a polygon's edges both
                    // gathers them for its fill and draws its coast or shore.
                    each(
                        .land,
                        { x0, y0, x1, y1, drawn in
                            canvas.addEdge(x0, y0, x1, y1)
                            if drawn { canvas.line(x0, y0, x1, y1, MapCanvas.coast) }
                        }, dot: { x, y in canvas.dot(x, y, MapCanvas.coast) })
                    canvas.fill(MapCanvas.land)
                    each(
                        .lake,
                        { x0, y0, x1, y1, drawn in
                            canvas.addEdge(x0, y0, x1, y1)
                            if drawn { canvas.line(x0, y0, x1, y1, MapCanvas.shore) }
                        }, dot: { x, y in canvas.dot(x, y, MapCanvas.shore) })
                    canvas.fill(MapCanvas.land, clear: true)
                    // Rivers: the level holds those long enough for its zooms.
                    each(.river) { x0, y0, x1, y1, _ in canvas.line(x0, y0, x1, y1, MapCanvas.river) }
                    if Self.drawsSubdivisions(zoom: camera.zoom) {
                        each(
                            .subdivision,
                            { x0, y0, x1, y1, _ in canvas.line(x0, y0, x1, y1, MapCanvas.subdivision, dotted: true) },
                            startingPart: { canvas.startDots() })
                    }
                    if Self.drawsBorders(zoom: camera.zoom) {
                        each(.border) { x0, y0, x1, y1, _ in canvas.line(x0, y0, x1, y1, MapCanvas.border) }
                    }
                }
            }
        }
        return canvas
    }

    private func drawGeography(_ camera: MapCamera, rendering: MapRendering, into grid: inout Grid, area: Rect) {
        canvas(camera, rendering: rendering, area: area).cells(into: &grid, area: area, rendering: rendering)
    }

    // MARK: Labels

    /// The cell of a point in a view of `area` centred on `camera` (possibly outside the area).
    package static func cell(latitude: Double, longitude: Double, camera: MapCamera, area: Rect) -> Point {
        let east = MapCamera.wrap(longitude - camera.longitude) / camera.degreesPerColumn
        let south = (camera.latitude - latitude) / (2 * camera.degreesPerColumn)
        let x = (Double(area.width) / 2 + east).rounded(.down)
        let y = (Double(area.height) / 2 + south).rounded(.down)
        guard x.magnitude < 1e6, y.magnitude < 1e6 else { return Point(x: -1_000_000, y: -1_000_000) }
        return Point(x: area.x + Int(x), y: area.y + Int(y))
    }

    /// The highlighted place's candidate, when it is in `area`.
    func highlightedCandidate(_ camera: MapCamera, highlighted: City?, area: Rect) -> LabelCandidate? {
        guard let highlighted else { return nil }
        let point = Self.cell(
            latitude: highlighted.latitude, longitude: highlighted.longitude, camera: camera, area: area)
        return area.contains(point) ? LabelCandidate(marker: point, text: highlighted.name) : nil
    }

    /// The places in `area` large enough for the zoom, largest first (the highlighted one before all).
    package func candidates(_ camera: MapCamera, highlighted: City?, area: Rect) -> [LabelCandidate] {
        let smallest = Self.minimumPopulation(zoom: camera.zoom)
        var list: [LabelCandidate] = []
        if let first = highlightedCandidate(camera, highlighted: highlighted, area: area) { list.append(first) }
        // The latitudes in view (a cheap test before the cell's).
        let halfHeight = Double(area.height) * camera.degreesPerColumn + camera.degreesPerColumn
        let south = camera.latitude - halfHeight
        let north = camera.latitude + halfHeight
        // Read in place (a city copied is three strings retained and released).
        cities.cities.withUnsafeBufferPointer { cities in
            for index in cities.indices {
                guard cities[index].population >= smallest else { break }  // largest first: the rest are smaller
                let latitude = cities[index].latitude
                let longitude = cities[index].longitude
                guard latitude >= south, latitude <= north else { continue }
                let point = Self.cell(latitude: latitude, longitude: longitude, camera: camera, area: area)
                guard area.contains(point), highlighted.map({ cities[index] != $0 }) ?? true else { continue }
                list.append(
                    LabelCandidate(marker: point, text: cities[index].name, width: self.cities.nameWidths[index]))
            }
        }
        return list
    }

    /// The markers and names of a view of `camera` in `area` (what ``render(_:rendering:highlighted:into:area:)``
    /// draws over the land): `highlighted`, when in view, first; then the countries named at this
    /// zoom; then the places, largest first.
    package func placeLabels(_ camera: MapCamera, highlighted: City?, area: Rect) -> [PlacedLabel] {
        var placer = LabelPlacer(area: area)
        var placed: [PlacedLabel] = []
        var candidates = candidates(camera, highlighted: highlighted, area: area)
        if highlightedCandidate(camera, highlighted: highlighted, area: area) != nil {
            if let label = placer.place(candidates.removeFirst()) { placed.append(label) }
        }
        for country in countries where country.minimumZoom <= camera.zoom {
            let point = Self.cell(latitude: country.latitude, longitude: country.longitude, camera: camera, area: area)
            guard area.contains(point), let label = placer.placeName(country.name, centredAt: point) else { continue }
            placed.append(label)
        }
        var names = Self.nameLimit(zoom: camera.zoom, area: area)
        for candidate in candidates {
            guard names > 0 else { break }  // beyond the limit, no more places: the coasts stay readable
            guard let label = placer.place(candidate) else { continue }
            if label.position != nil { names -= 1 }
            placed.append(label)
        }
        return placed
    }

    private static let marker = Cell("●", style: Style(.mapCity, bold: true))
    private static let highlightedMarker = Cell("◉", style: Style(.mapCity, bold: true))
    private static let margin = Cell(" ", style: Style(.mapWater))

    private func drawLabels(_ camera: MapCamera, highlighted: City?, into grid: inout Grid, area: Rect) -> [PlacedLabel]
    {
        let placed = placeLabels(camera, highlighted: highlighted, area: area)
        // The highlighted city is placed first when it is in view (never another in its stead).
        let highlightedCell = highlighted.map {
            Self.cell(latitude: $0.latitude, longitude: $0.longitude, camera: camera, area: area)
        }
        for (index, label) in placed.enumerated() {
            let isHighlighted = index == 0 && !label.isName && label.marker == highlightedCell
            if !label.isName {
                grid[label.marker.x, label.marker.y] = isHighlighted ? Self.highlightedMarker : Self.marker
            }
            guard label.position != nil else { continue }
            // A blank cell either side keeps the name apart from the land drawn around it.
            // (Labels never overlap and the land's cells are one cell wide, so a cell is simply set.)
            let frame = label.textFrame
            for x in [frame.x - 1, frame.maxX] where area.contains(Point(x: x, y: frame.y)) {
                grid[x, frame.y] = Self.margin
            }
            let style =
                label.isName ? Style(.dim, bold: true) : Style(.mapLabel, bold: isHighlighted, reverse: isHighlighted)
            if !Self.writeNarrow(label.text, at: frame.origin, style: style, into: &grid, area: area) {
                grid.put(label.text, at: frame.origin, style: style, clip: area)
            }
        }
        return placed
    }

    /// The width of `text` when each of its scalars is a character of its own one cell wide
    /// (printable ASCII, Latin-1 and Latin Extended, whose scalars never join: most places' names),
    /// its number of scalars; nil for any other text.
    static func narrowWidth(_ text: String) -> Int? {
        var count = 0
        for scalar in text.unicodeScalars {
            guard (0x20...0x7E).contains(scalar.value) || (0xA0...0x2FF).contains(scalar.value) else { return nil }
            count += 1
        }
        return count
    }

    /// Writes `text` from `origin` as `Grid.put` would over cells one cell wide, when each of its
    /// scalars is a character of its own one cell wide (printable ASCII, Latin-1 and Latin
    /// Extended: most places' names) and it fits in `area`, without measuring each character;
    /// otherwise writes nothing and returns false.
    private static func writeNarrow(
        _ text: String, at origin: Point, style: Style, into grid: inout Grid, area: Rect
    ) -> Bool {
        guard origin.y >= area.minY, origin.y < area.maxY, origin.x >= area.minX,
            let count = narrowWidth(text), origin.x + count <= area.maxX
        else { return false }
        var x = origin.x
        for scalar in text.unicodeScalars {
            grid[x, origin.y] = Cell(Character(scalar), style: style)
            x += 1
        }
        return true
    }
}
