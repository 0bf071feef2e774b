import Foundation
import HandoffCore
import TerminalCells
import Testing

@testable import MapApp

/// The Map's size comes as a message (`viewportChanged(to:)`); drawing changes nothing.
@Suite("The Map's viewport")
struct ViewportTests {
    /// Degrees per column at zoom 3.
    static let step = 360.0 / (128 * 8)

    @Test func theHandedOffSpanFollowsTheViewportItWasToldNotTheLastFrame() throws {
        let world = try MapWorld()
        let laptop = world.laptop
        laptop.map.show(MapCamera(latitude: 48, longitude: 2, zoom: 3))
        laptop.map.viewportChanged(to: Size(width: 80, height: 24))
        #expect(laptop.map.viewport == Size(width: 80, height: 23), "the area less the status line")
        // Frames of other sizes (a picture, a frame drawn before the size arrived) change nothing.
        for size in [Size(width: 40, height: 12), Size(width: 200, height: 60)] {
            var grid = Grid(size: size)
            laptop.map.render(into: &grid, area: grid.bounds)
        }
        #expect(laptop.map.viewport == Size(width: 80, height: 23))
        world.hood.advance(by: 61)
        let activity = try #require(laptop.map.activity)
        #expect(
            activity.userInfo == [
                "latitude": .double(48), "longitude": .double(2),
                "latitudeDelta": .double(23 * 2 * Self.step), "longitudeDelta": .double(80 * Self.step),
            ])
    }

    @Test func aResizeWithoutAFrameUpdatesTheRegion() throws {
        let world = try MapWorld()
        let laptop = world.laptop
        laptop.map.show(MapCamera(latitude: 48, longitude: 2, zoom: 3))
        laptop.map.viewportChanged(to: Size(width: 80, height: 24))
        world.hood.advance(by: 61)
        let activity = try #require(laptop.map.activity)
        #expect(!activity.needsSave)

        laptop.map.viewportChanged(to: Size(width: 120, height: 40))
        #expect(activity.needsSave, "another size shows another region")
        world.hood.advance(by: 61)
        #expect(activity.userInfo["latitudeDelta"] == .double(39 * 2 * Self.step))
        #expect(activity.userInfo["longitudeDelta"] == .double(120 * Self.step))
        #expect(try MapRegion(userInfo: activity.userInfo) == laptop.map.visibleRegion)

        laptop.map.viewportChanged(to: Size(width: 120, height: 40))
        #expect(!activity.needsSave, "the same size again is no change")
    }

    @Test func theCursorMovesPansAtTheEdgeZoomsAtItselfAndStaysOnASmallerMap() throws {
        let map = try standaloneMap()
        map.viewportChanged(to: Size(width: 40, height: 13))  // a 40x12 map: cursor cells -20...19, -6...5
        map.show(MapCamera(latitude: 0, longitude: 0, zoom: 3))
        #expect(map.handle(.character("c")))
        #expect(map.cursor == Point(x: 0, y: 0))
        for _ in 0..<3 { #expect(map.handle(.right)) }
        #expect(map.cursor == Point(x: 6, y: 0) && map.camera.longitude == 0, "the cursor moves, the map stays")
        let point = try #require(map.cursorCoordinate)
        #expect(abs(point.longitude - 6 * Self.step) < 1e-9)
        #expect(map.handle(.character("+")))
        let after = try #require(map.cursorCoordinate)
        #expect(
            abs(after.longitude - point.longitude) < 1e-9 && abs(after.latitude - point.latitude) < 1e-9,
            "zooming keeps the cursor's point under it")
        #expect(map.camera.zoom == 4)
        for _ in 0..<10 { #expect(map.handle(.down)) }
        #expect(map.cursor?.y == 5, "at the edge")
        #expect(map.camera.latitude < 0, "past the edge the map pans")
        var grid = Grid(size: Size(width: 40, height: 13))
        map.render(into: &grid, area: grid.bounds)
        #expect(grid[26, 11].character == "+", "the cursor's cell (20 + 6, 6 + 5)")
        #expect(grid.line(12).contains("cursor "), "the status line gives the cursor's position: \(grid.line(12))")
        map.viewportChanged(to: Size(width: 20, height: 7))
        #expect(map.cursor == Point(x: 6, y: 2), "kept on the smaller map")
        #expect(map.handle(.character("c")))
        #expect(map.cursor == nil)
    }

    @Test func keysPanByTheToldViewport() throws {
        let map = try standaloneMap()
        map.show(MapCamera(latitude: 0, longitude: 0, zoom: 3))
        map.viewportChanged(to: Size(width: 160, height: 41))
        var grid = Grid(size: Size(width: 40, height: 12))
        map.render(into: &grid, area: grid.bounds)
        #expect(map.handle(.right))
        #expect(abs(map.camera.longitude - 40 * Self.step) < 1e-9, "a quarter of 160 columns, not of the 40 drawn")
    }

    @Test func aMessageCoversTheMapsLastRowInsteadOfMovingIt() throws {
        let world = try MapWorld()
        let phone = world.phone
        phone.map.show(MapCamera(latitude: 48, longitude: 2, zoom: 3))
        let before = phone.render(width: 60, height: 20)
        let region = phone.map.visibleRegion
        phone.map.message = MapMessage(.warning, String(repeating: "A long warning that wraps. ", count: 8))
        let after = phone.render(width: 60, height: 20)
        #expect(phone.map.visibleRegion == region, "the region does not depend on a message")
        for row in 0..<18 { #expect(after.line(row) == before.line(row), "row \(row) of the map stays") }
        #expect(after.line(18).hasPrefix("A long warning"))
        #expect(after.line(19).contains("…"), "the message's second (last) row")
    }
}
