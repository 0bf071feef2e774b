import Foundation
@testable import MapApp
import TerminalCells
import Testing

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
        expectSnapshot(render(map, MapCamera(latitude: 50, longitude: 10, zoom: 3), width: 100, height: 30), named: "europe-100x30")
    }

    @Test func japanInHalfBlocks() throws {
        let map = try standaloneMap()
        _ = map.handle(.character("m"))
        #expect(map.rendering == .halfBlocks)
        expectSnapshot(render(map, MapCamera(latitude: 36, longitude: 137, zoom: 3), width: 80, height: 24), named: "japan-halfblocks-80x24")
    }

    @Test func theSearchField() throws {
        let map = try standaloneMap()
        map.show(MapCamera(latitude: -15, longitude: -55, zoom: 2))
        for key: Key in [.character("/"), .character("s"), .character("a"), .down] { #expect(map.handle(key)) }
        expectSnapshot(render(map, map.camera, width: 80, height: 24), named: "search-80x24")
    }

    @Test func landIsWhereTheWorldHasLand() throws {
        let map = try standaloneMap()
        let mask = map.renderer.atlas.masks.last!
        for (latitude, longitude) in [(48.86, 2.35), (-23.55, -46.63), (35.68, 139.7), (-80.0, 0.0), (40.0, -100.0)] {
            #expect(mask.isLand(latitude: latitude, longitude: longitude), "\(latitude), \(longitude) is land")
        }
        for (latitude, longitude) in [(0.0, -30.0), (30.0, -40.0), (-40.0, 90.0), (0.0, -150.0), (50.0, -30.0)] {
            #expect(!mask.isLand(latitude: latitude, longitude: longitude), "\(latitude), \(longitude) is sea")
        }
    }

    @Test func theMaskFollowsTheZoom() throws {
        let atlas = try standaloneMap().renderer.atlas
        #expect(atlas.masks.map(\.width) == [360, 720, 1440, 2880])
        #expect(atlas.mask(forDegreesPerPixel: 2).width == 360)
        #expect(atlas.mask(forDegreesPerPixel: 0.6).width == 720)
        #expect(atlas.mask(forDegreesPerPixel: 0.3).width == 1440)
        #expect(atlas.mask(forDegreesPerPixel: 0.01).width == 2880)
    }

    @Test func theCentreCityIsInTheMiddleWithItsName() throws {
        let map = try standaloneMap()
        let paris = try #require(map.renderer.cities.search("Paris").first)
        map.show(paris)
        let grid = render(map, map.camera, width: 80, height: 24)
        let placed = try #require(map.placedLabels.first)
        #expect(placed.text == "Paris")
        #expect(placed.marker == Point(x: 40, y: 11), "the map is 23 rows: the centre is row 11")
        #expect(grid[40, 11].character == "◉")
        #expect(grid.line(11).contains("Paris"))
        #expect(grid.line(23).contains("48.86°N 2.35°E"), "the status line: \(grid.line(23))")
        #expect(grid.line(23).contains("km"))
    }

    @Test func drawingStaysInsideTheArea() throws {
        let map = try standaloneMap()
        _ = map.handle(.character("/"))
        for area in [Rect(x: 7, y: 3, width: 60, height: 18), Rect(x: 1, y: 1, width: 9, height: 3),
                     Rect(x: 0, y: 0, width: 150, height: 44), Rect(x: 2, y: 2, width: 0, height: 5), Rect(x: 3, y: 3, width: 1, height: 1)] {
            var grid = Grid(size: Size(width: 160, height: 48), fill: Cell("#"))
            map.render(into: &grid, area: area)
            for y in 0..<grid.size.height {
                for x in 0..<grid.size.width where !area.contains(Point(x: x, y: y)) {
                    #expect(grid[x, y].character == "#", "(\(x), \(y)) outside \(area) is untouched")
                }
            }
        }
    }

    @Test func theSpainPortugalBorderIsDrawnAsAGap() throws {
        let renderer = try standaloneMap().renderer
        let mask = renderer.atlas.masks.last!
        let borders = try #require(renderer.atlas.borders(for: mask))
        // On 40°N the border is near 7°W (between 7.6°W and 6.8°W); Castile, 4°W, is interior.
        let row = try #require(mask.row(latitude: 40))
        let columns = (mask.column(longitude: -7.6)...mask.column(longitude: -6.8)).filter { borders.isLand(row: row, column: $0) }
        let column = try #require(columns.first, "a border cell on 40°N near 7°W")
        #expect(mask.isLand(row: row, column: column))
        for longitude in stride(from: -5.0, through: -2.0, by: 0.1) {
            #expect(!borders.isLand(latitude: 40, longitude: longitude), "\(longitude)°E is interior")
            #expect(!borders.isLand(latitude: 48.86, longitude: longitude + 6), "Paris's region is interior")
        }
        // A cell 3 wide, one row high (no city in it), centred on the border cell at zoom 4: each
        // dot is within a mask cell, so the middle cell's middle dots are the border's.
        let latitude = 90 - (Double(row) + 0.5) * mask.cellSize
        let longitude = -180 + (Double(column) + 0.5) * mask.cellSize
        func middle(_ latitude: Double, _ longitude: Double, zoom: Double, _ rendering: MapRendering = .braille) -> Cell {
            var grid = Grid(size: Size(width: 3, height: 1))
            renderer.render(MapCamera(latitude: latitude, longitude: longitude, zoom: zoom), rendering: rendering,
                            into: &grid, area: grid.bounds)
            return grid[1, 0]
        }
        let border = middle(latitude, longitude, zoom: 4)
        let interior = middle(40, -4, zoom: 4)
        #expect(interior == Cell("⣿", style: Style(.mapLand)))
        #expect(border.style == Style(.dim), "a border cell is dim")
        #expect(border.character != "⣿", "a border leaves dots unset")
        #expect(middle(latitude, longitude, zoom: 4, .halfBlocks).style == Style(.dim))
        #expect(middle(40, -4, zoom: 4, .halfBlocks) == Cell("█", style: Style(.mapLand)))
        // Below zoom 2 borders are not drawn.
        #expect(middle(latitude, longitude, zoom: 1).style != Style(.dim))
    }

    @Test func theGlyphIsOneCellWide() throws {
        let map = try standaloneMap()
        #expect(TextWidth.of(map.glyph) == 1)
        #expect(map.glyph == "◍")
    }
}
