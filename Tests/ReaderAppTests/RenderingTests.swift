import Foundation
import HandoffCore
import TerminalCells
import Testing

@testable import ReaderApp

/// Snapshots of the Reader's screens (Snapshots/*.txt; `RECORD_SNAPSHOTS=1` re-records them).
@Suite("Rendering")
struct RenderingTests {
    @Test(arguments: [(60, 18), (150, 44)])
    func theList(width: Int, height: Int) throws {
        let world = try ReaderWorld()
        try FileManager.default.createDirectory(at: world.laptop.localFolder, withIntermediateDirectories: true)
        try "Draft\n\nA local draft.".write(
            to: world.laptop.localFolder.appendingPathComponent("draft.txt"),
            atomically: true, encoding: .utf8)
        world.laptop.press(.character("r"), .down)
        expectSnapshot(world.laptop.render(width: width, height: height), named: "list-\(width)x\(height)")
    }

    @Test func theListWithoutACloudFolder() throws {
        let folder = TemporaryFolder()
        let world = try ReaderWorld()
        let device = try ReaderDevice(
            "Tablet", kind: .tablet, in: world.hood, cloudFolder: nil, localFolder: folder.folder("tablet"))
        expectSnapshot(device.render(width: 60, height: 18), named: "list-no-cloud-60x18")
    }

    @Test(arguments: [(60, 18), (150, 44)])
    func aPage(width: Int, height: Int) throws {
        let world = try ReaderWorld()
        world.laptop.open("night-markets.txt")
        _ = world.laptop.render(width: width, height: height)
        world.laptop.press(.pageDown, .pageDown, .down, .down)
        expectSnapshot(world.laptop.render(width: width, height: height), named: "page-\(width)x\(height)")
    }

    @Test func theEndOfTheDocument() throws {
        let world = try ReaderWorld()
        world.laptop.open("harrow-point.txt")
        _ = world.laptop.render(width: 60, height: 18)
        world.laptop.press(.end)
        expectSnapshot(world.laptop.render(width: 60, height: 18), named: "end-60x18")
    }

    @Test func aMessageWrapsAtTheBottom() throws {
        let world = try ReaderWorld()
        world.laptop.open("handoff-guide.txt")
        world.laptop.reader.message = ReaderMessage(
            .error, ReadingRestoreError.documentNotFound(name: "a-rather-long-file-name.txt").description)
        expectSnapshot(world.laptop.render(width: 60, height: 18), named: "message-60x18")
    }

    @Test func drawingStaysInsideTheArea() throws {
        let world = try ReaderWorld()
        for open in [false, true] {
            if open { world.laptop.open("night-markets.txt") }
            for area in [
                Rect(x: 7, y: 3, width: 60, height: 18), Rect(x: 1, y: 1, width: 9, height: 3),
                Rect(x: 0, y: 0, width: 150, height: 44), Rect(x: 2, y: 2, width: 0, height: 5),
            ] {
                var grid = Grid(size: Size(width: 160, height: 48), fill: Cell("#"))
                world.laptop.reader.render(into: &grid, area: area)
                for y in 0..<grid.size.height {
                    for x in 0..<grid.size.width where !area.contains(Point(x: x, y: y)) {
                        #expect(grid[x, y].character == "#", "(\(x), \(y)) outside \(area) is untouched")
                    }
                }
            }
        }
    }

    @Test func rowsNeverOverflowTheirWidth() throws {
        let world = try ReaderWorld()
        world.laptop.open("night-markets.txt")
        for width in [20, 33, 60, 101] {
            for _ in 0..<5 {
                let grid = world.laptop.render(width: width, height: 12)
                for y in 0..<grid.size.height {
                    #expect(TextWidth.of(grid.line(y)) <= width)
                }
                world.laptop.press(.character(" "))
            }
            world.laptop.press(.home)
        }
    }
}
