import Foundation
import TerminalCells
import Testing

@testable import ReaderApp

/// The Reader's size comes as a message (`viewportChanged(to:)`); drawing changes nothing.
@Suite("The Reader's viewport")
struct ReaderViewportTests {
    @Test func theReadingViewFollowsTheToldSizeNotTheLastFrame() throws {
        let world = try ReaderWorld()
        let laptop = world.laptop
        laptop.open("harrow-point.txt")
        let reader = laptop.reader
        reader.viewportChanged(to: Size(width: 60, height: 18))
        #expect(
            reader.viewport == Size(width: 56, height: 15), "the text column less the title bar and the status line")
        let session = try #require(reader.session)
        #expect(session.pageLayout.width == 56, "wrapped for the new width when told, not when drawn")
        var grid = Grid(size: Size(width: 150, height: 44))
        reader.render(into: &grid, area: grid.bounds)
        #expect(reader.viewport == Size(width: 56, height: 15))
        #expect(session.pageLayout.width == 56, "a frame of another width wraps for itself only")
        laptop.press(.down)
        let second = session.layout(width: 56).rows[1]
        #expect(
            session.position == ReadingPosition(page: 1, line: second.line, character: second.character),
            "a row of the told width")
    }

    @Test func aNewWidthWrapsThePageAgain() throws {
        let world = try ReaderWorld()
        let laptop = world.laptop
        laptop.open("harrow-point.txt")
        let reader = laptop.reader
        reader.viewportChanged(to: Size(width: 60, height: 18))
        let session = try #require(reader.session)
        let narrow = session.pageLayout
        reader.viewportChanged(to: Size(width: 90, height: 18))
        #expect(session.pageLayout.width == 86)
        #expect(session.pageLayout.rows.count < narrow.rows.count)
        laptop.press(.character(" "))
        #expect(
            session.pageLayout == PageLayout(lines: session.text.lines(ofPage: 2), width: 86),
            "the next page, at the same width")
    }
}
