import Foundation
import HandoffTestSupport
import TerminalCells
import Testing

@testable import BrowserApp

/// The Browser's size comes as a message (`viewportChanged(to:)`); drawing changes nothing.
@Suite("The Browser's viewport")
struct BrowserViewportTests {
    @Test func keysScrollByTheToldSizeNotTheLastFrame() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood)
        let browser = phone.browser
        phone.go(to: "reader.handoffsim.example/handoff-guide?page=2")
        browser.viewportChanged(to: Size(width: 40, height: 12))
        #expect(browser.viewport == Size(width: 36, height: 9))
        var grid = Grid(size: Size(width: 120, height: 36))
        browser.render(into: &grid, area: grid.bounds)
        #expect(browser.viewport == Size(width: 36, height: 9), "a frame of another size changes nothing")
        phone.press(.character(" "))
        #expect(browser.scrollOffset == 8, "a screen less a row of the told 9 rows, not of the 31 drawn")
    }

    @Test func drawingLeavesTheScrollAsItWasAndAResizeClampsIt() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood)
        let browser = phone.browser
        phone.go(to: "reader.handoffsim.example/handoff-guide?page=2")
        browser.viewportChanged(to: Size(width: 40, height: 12))
        phone.press(.end)
        let bottom = browser.scrollOffset
        #expect(bottom > 0)
        // A taller frame shows the page from higher up, but only a resize moves the scroll.
        var tall = Grid(size: Size(width: 40, height: 60))
        browser.render(into: &tall, area: tall.bounds)
        #expect(browser.scrollOffset == bottom)
        #expect(tall.line(2).contains(browser.page?.title.prefix(10) ?? "?"), "the whole page from its title")
        browser.viewportChanged(to: Size(width: 40, height: 60))
        #expect(browser.scrollOffset == 0, "the whole page fits: no empty rows below it")
    }
}
