import TerminalCells
import Testing

@testable import CursesTerminal

@Suite("Grid diff and memory terminal")
struct GridDiffTests {
    @Test func everythingIsDrawnTheFirstTime() {
        let grid = Grid(size: Size(width: 3, height: 2))
        #expect(GridDiff.cellsToDraw(from: nil, to: grid).count == 6)
    }

    @Test func aSizeChangeDrawsEverything() {
        let old = Grid(size: Size(width: 3, height: 2))
        let new = Grid(size: Size(width: 4, height: 2))
        #expect(GridDiff.cellsToDraw(from: old, to: new).count == 8)
    }

    @Test func onlyChangedCellsAreDrawn() {
        let old = Grid(size: Size(width: 10, height: 3))
        var new = old
        new.put("hi", at: Point(x: 4, y: 1))
        #expect(GridDiff.cellsToDraw(from: old, to: new) == [Point(x: 4, y: 1), Point(x: 5, y: 1)])
        #expect(GridDiff.cellsToDraw(from: new, to: new).isEmpty)
    }

    @Test func styleChangesAreDrawn() {
        var old = Grid(size: Size(width: 5, height: 1))
        old.put("abc", at: .zero)
        var new = Grid(size: Size(width: 5, height: 1))
        new.put("abc", at: .zero, style: Style(.title))
        #expect(GridDiff.cellsToDraw(from: old, to: new).count == 3)
    }

    @Test func wideGlyphsAreDrawnOnceFromTheirFirstCell() {
        let old = Grid(size: Size(width: 6, height: 1))
        var new = old
        new.put("漢字", at: Point(x: 1, y: 0))
        #expect(GridDiff.cellsToDraw(from: old, to: new) == [Point(x: 1, y: 0), Point(x: 3, y: 0)])
    }

    @Test func aChangedContinuationRedrawsItsGlyph() {
        var old = Grid(size: Size(width: 4, height: 1))
        old.put("漢", at: .zero)
        var styled = Grid(size: Size(width: 4, height: 1))
        styled.put("漢", at: .zero, style: Style(.title))
        var new = old
        new[1, 0] = styled[1, 0]  // only the continuation differs: the glyph is redrawn
        #expect(GridDiff.cellsToDraw(from: old, to: new) == [Point(x: 0, y: 0)])
    }

    @Test func anOrphanContinuationIsDrawnAsItself() {
        var source = Grid(size: Size(width: 4, height: 1))
        source.put("漢", at: .zero)
        var new = Grid(size: Size(width: 4, height: 1))
        new[2, 0] = source[1, 0]  // a continuation with no glyph before it
        let old = Grid(size: Size(width: 4, height: 1))
        #expect(GridDiff.cellsToDraw(from: old, to: new) == [Point(x: 2, y: 0)])
    }

    @Test func memoryTerminalKeepsTheLastGrid() {
        let terminal = MemoryTerminal(size: Size(width: 20, height: 3))
        #expect(terminal.lastGrid == nil && terminal.drawCount == 0 && terminal.text.isEmpty)
        var grid = Grid(size: terminal.size)
        grid.put("hello 漢字", at: Point(x: 1, y: 1))
        terminal.draw(grid)
        terminal.draw(grid)
        #expect(terminal.drawCount == 2)
        #expect(terminal.lastGrid == grid)
        #expect(terminal.text == "\n hello 漢字\n")
        terminal.size = Size(width: 40, height: 10)
        #expect(terminal.size.width == 40)
        terminal.reset()
        #expect(terminal.lastGrid == nil && terminal.drawCount == 0)
    }
}
