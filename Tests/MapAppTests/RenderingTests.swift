import Foundation
import TerminalCells
import Testing

@testable import MapApp

/// Snapshots of the map (Snapshots/*.txt; `RECORD_SNAPSHOTS=1` re-records them).
@Suite("Rendering")
struct RenderingTests {
    @Test(arguments: [(80, 24), (200, 60)])
    func theWorld(width: Int, height: Int) throws {
        let map = try standaloneMap()
        expectSnapshot(render(map, .world, width: width, height: height), named: "world-\(width)x\(height)")
    }

    @Test func europeInBraille() throws {
        let map = try standaloneMap()
        expectSnapshot(
            render(map, MapCamera(latitude: 50, longitude: 10, zoom: 3), width: 100, height: 30), named: "europe-100x30"
        )
    }

    @Test func japanInHalfBlocks() throws {
        let map = try standaloneMap()
        _ = map.handle(.character("m"))
        #expect(map.rendering == .halfBlocks)
        expectSnapshot(
            render(map, MapCamera(latitude: 36, longitude: 137, zoom: 3), width: 80, height: 24),
            named: "japan-halfblocks-80x24")
    }

    @Test func theSearchField() throws {
        let map = try standaloneMap()
        map.show(MapCamera(latitude: -15, longitude: -55, zoom: 2))
        for key: Key in [.character("/"), .character("s"), .character("a"), .down] { #expect(map.handle(key)) }
        expectSnapshot(render(map, map.camera, width: 80, height: 24), named: "search-80x24")
    }

    /// Whether the pixel at the centre of a braille view of `camera` is land.
    static func isLand(_ renderer: MapRenderer, latitude: Double, longitude: Double, zoom: Double) -> Bool {
        let canvas = renderer.canvas(
            MapCamera(latitude: latitude, longitude: longitude, zoom: zoom), rendering: .braille,
            area: Rect(x: 0, y: 0, width: 4, height: 2))
        return canvas.pixels[4 * canvas.width + 4] & MapCanvas.land != 0
    }

    @Test(arguments: [-1.0, 0.5, 2, 4, 6, 8, 10])
    func landIsWhereTheWorldHasLand(zoom: Double) throws {
        let renderer = try standaloneMap().renderer
        // Coastal places (São Paulo, Tokyo, Portugal's inland and its sea off Lisbon) are a pixel
        // from the sea from zoom 2 only.
        let coastal = zoom >= 2 ? [(-23.55, -46.63), (35.68, 139.7), (39.5, -8.0)] : []
        let offLisbon = zoom >= 2 ? [(38.6, -9.6)] : []
        for (latitude, longitude) in [(48.86, 2.35), (-15.0, -50.0), (55.0, 90.0), (-80.0, 0.0), (40.0, -100.0)]
            + coastal
        {
            let land = Self.isLand(renderer, latitude: latitude, longitude: longitude, zoom: zoom)
            #expect(land, "\(latitude), \(longitude) is land at zoom \(zoom)")
        }
        for (latitude, longitude) in [(0.0, -30.0), (30.0, -40.0), (-40.0, 90.0), (0.0, -150.0), (50.0, -30.0)]
            + offLisbon
        {
            let land = Self.isLand(renderer, latitude: latitude, longitude: longitude, zoom: zoom)
            #expect(!land, "\(latitude), \(longitude) is sea at zoom \(zoom)")
        }
        // The Caspian Sea and Lake Victoria are lakes: cleared out of the land, from zoom 1.
        if zoom >= 1 {
            let caspian = Self.isLand(renderer, latitude: 42, longitude: 50.5, zoom: zoom)
            let victoria = Self.isLand(renderer, latitude: -1, longitude: 33, zoom: zoom)
            #expect(!caspian, "the Caspian at zoom \(zoom)")
            #expect(!victoria, "Lake Victoria at zoom \(zoom)")
        }
    }

    /// Scanline filling samples pixel centres, whatever the order of a polygon's edges; lines
    /// are Bresenham's, clipped to the canvas.
    @Test func theCanvasFillsAndDraws() {
        var canvas = MapCanvas(width: 20, height: 10)
        for ring in [
            [(2.2, 1.3), (15.7, 1.3), (15.7, 8.6), (2.2, 8.6)], [(15.7, 8.6), (15.7, 1.3), (2.2, 1.3), (2.2, 8.6)],
        ] {
            for i in 0..<4 { canvas.addEdge(ring[i].0, ring[i].1, ring[(i + 1) % 4].0, ring[(i + 1) % 4].1) }
            canvas.fill(MapCanvas.land)
        }
        // A hole: even-odd.
        for ring in [
            [(2.2, 1.3), (15.7, 1.3), (15.7, 8.6), (2.2, 8.6)], [(5.0, 3.0), (9.0, 3.0), (9.0, 6.0), (5.0, 6.0)],
        ] {
            for i in 0..<4 { canvas.addEdge(ring[i].0, ring[i].1, ring[(i + 1) % 4].0, ring[(i + 1) % 4].1) }
        }
        canvas.fill(MapCanvas.shore)
        canvas.line(-5, 0.5, 100, 0.5, MapCanvas.border)
        canvas.startDots()
        canvas.line(0, 9.5, 9.9, 9.5, MapCanvas.subdivision, dotted: true)
        let picture = (0..<10).map { y in
            String(
                (0..<20).map { x -> Character in
                    let pixel = canvas.pixels[y * 20 + x]
                    return pixel & MapCanvas.shore != 0
                        ? "s"
                        : pixel & MapCanvas.land != 0
                            ? "#"
                            : pixel & MapCanvas.border != 0 ? "b" : pixel & MapCanvas.subdivision != 0 ? "d" : "."
                })
        }
        #expect(
            picture == [
                "bbbbbbbbbbbbbbbbbbbb",
                "..ssssssssssssss....",
                "..ssssssssssssss....",
                "..sss####sssssss....",
                "..sss####sssssss....",
                "..sss####sssssss....",
                "..ssssssssssssss....",
                "..ssssssssssssss....",
                "..ssssssssssssss....",
                "d..d..d..d..........",
            ])
    }

    @Test func theLevelFollowsTheZoom() throws {
        let geography = try standaloneMap().renderer.geography
        #expect(geography.levels.map { $0?.index } == [0, 1, 2, 3, 4, 5])
        #expect(geography.level(forZoom: -1)?.index == 0)
        #expect(geography.level(forZoom: 0.99)?.index == 1)
        #expect(geography.level(forZoom: 1.25)?.index == 2)
        #expect(geography.level(forZoom: 4.5)?.index == 3)
        #expect(geography.level(forZoom: 6)?.index == 4)
        #expect(geography.level(forZoom: 10)?.index == 5)
        // A level that did not load: the nearest one, finer first among equals.
        let partial = MapGeography(levels: [geography.levels[0], nil, nil, geography.levels[3], nil, nil])
        #expect(partial.level(forZoom: 0.5)?.index == 0)
        #expect(partial.level(forZoom: 1.5)?.index == 3)
        #expect(partial.level(forZoom: 9)?.index == 3)
        #expect(MapGeography(levels: [nil, nil]).level(forZoom: 2) == nil)
    }

    /// The coast of Portugal around Lisbon as lines at zooms 4, 6 and 8: the land's edge cells
    /// are partial braille patterns (not a staircase of full blocks), and the labels do not
    /// overlap.
    @Test(arguments: [4.0, 6.0, 8.0])
    func theCoastAroundLisbon(zoom: Double) throws {
        let map = try standaloneMap()
        let lisbon = try #require(map.renderer.cities.search("Lisbon").first)
        map.show(lisbon)
        map.show(MapCamera(latitude: lisbon.latitude, longitude: lisbon.longitude, zoom: zoom))
        let grid = render(map, map.camera, width: 80, height: 24)
        expectSnapshot(grid, named: "lisbon-zoom\(Int(zoom))-80x24")
        let area = Rect(x: 0, y: 0, width: 80, height: 23)
        expectNoLabelOverlaps(map.placedLabels, in: area, "Lisbon at zoom \(zoom)")
        #expect(map.placedLabels.contains { $0.text == "Lisbon" && $0.position != nil }, "Lisbon is named")
        // Coast cells: bold land with some dots, not all; there are many.
        var coast = 0
        var partial = 0
        for y in 0..<23 {
            for x in 0..<80 where grid[x, y].style == Style(.mapLand, bold: true) {
                coast += 1
                if grid[x, y].character != "⣿" { partial += 1 }
            }
        }
        #expect(coast > 20, "the coast is drawn (\(coast) cells)")
        #expect(partial * 2 >= coast, "the coast's cells are lines, mostly not full blocks: \(partial) of \(coast)")
    }

    @Test func theSpainPortugalBorderIsADimGap() throws {
        let renderer = try standaloneMap().renderer
        // On 40°N the border is near 7°W; at zoom 6 a view 20 cells wide spans 0.9° around it.
        var grid = Grid(size: Size(width: 20, height: 5))
        renderer.render(MapCamera(latitude: 40.2, longitude: -7.0, zoom: 6), into: &grid, area: grid.bounds)
        let border = (0..<5).flatMap { y in (0..<20).map { grid[$0, y] } }.filter { $0.style == Style(.dim) }
        #expect(!border.isEmpty, "border cells are dim")
        #expect(border.allSatisfy { $0.character != "⣿" }, "a border leaves dots unset")
        var inland = Grid(size: Size(width: 20, height: 5))
        renderer.render(MapCamera(latitude: 40, longitude: -4, zoom: 6), into: &inland, area: inland.bounds)
        #expect(inland[10, 2] == Cell("⣿", style: Style(.mapLand)), "Castile is interior land")
        // Below zoom 1 borders are not drawn.
        var world = Grid(size: Size(width: 20, height: 5))
        renderer.render(MapCamera(latitude: 40.2, longitude: -7.0, zoom: 0.5), into: &world, area: world.bounds)
        #expect(!world.text().isEmpty)
        #expect((0..<5).allSatisfy { y in (0..<20).allSatisfy { world[$0, y].style != Style(.dim) } })
        // Half blocks: the same gap, a dim cell.
        var half = Grid(size: Size(width: 20, height: 5))
        renderer.render(
            MapCamera(latitude: 40.2, longitude: -7.0, zoom: 7), rendering: .halfBlocks, into: &half, area: half.bounds)
        #expect((0..<5).contains { y in (0..<20).contains { half[$0, y].style == Style(.dim) } })
    }

    @Test func theCentreCityIsInTheMiddleWithItsName() throws {
        let map = try standaloneMap()
        let paris = try #require(map.renderer.cities.search("Paris").first)
        map.show(paris)
        let grid = render(map, map.camera, width: 80, height: 24)
        let placed = try #require(map.placedLabels.first)
        #expect(placed.text == "Paris")
        #expect(placed.marker == Point(x: 40, y: 11), "the map is 23 rows: the centre is row 11")
        #expect(map.camera.zoom == MapApp.searchZoom)
        #expect(grid[40, 11].character == "◉")
        #expect(grid.line(11).contains("Paris"))
        #expect(grid.line(23).contains("48.86°N 2.35°E"), "the status line: \(grid.line(23))")
        #expect(grid.line(23).contains("km"))
    }

    @Test func drawingStaysInsideTheArea() throws {
        let map = try standaloneMap()
        _ = map.handle(.character("/"))
        for area in [
            Rect(x: 7, y: 3, width: 60, height: 18), Rect(x: 1, y: 1, width: 9, height: 3),
            Rect(x: 0, y: 0, width: 150, height: 44), Rect(x: 2, y: 2, width: 0, height: 5),
            Rect(x: 3, y: 3, width: 1, height: 1),
        ] {
            var grid = Grid(size: Size(width: 160, height: 48), fill: Cell("#"))
            map.render(into: &grid, area: area)
            for y in 0..<grid.size.height {
                for x in 0..<grid.size.width where !area.contains(Point(x: x, y: y)) {
                    #expect(grid[x, y].character == "#", "(\(x), \(y)) outside \(area) is untouched")
                }
            }
        }
    }

    @Test func theGlyphIsOneCellWide() throws {
        let map = try standaloneMap()
        #expect(TextWidth.of(map.glyph) == 1)
        #expect(map.glyph == "◍")
    }
}
