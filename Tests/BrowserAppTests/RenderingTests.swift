import Foundation
import HandoffTestSupport
import TerminalCells
import Testing

@testable import BrowserApp

/// Snapshots of the Browser's pages (Snapshots/*.txt; `RECORD_SNAPSHOTS=1` re-records them).
@Suite("Rendering")
struct RenderingTests {
    @Test(arguments: [(60, 20), (120, 36)])
    func theHomePage(width: Int, height: Int) throws {
        let phone = try BrowserDevice("Phone", in: Neighbourhood())
        _ = phone.render(width: width, height: height)
        phone.press(.down)
        expectSnapshot(phone.render(width: width, height: height), named: "home-\(width)x\(height)")
    }

    @Test func theMapPage() throws {
        let phone = try BrowserDevice("Phone", in: Neighbourhood())
        phone.go(to: "maps.handoffsim.example/?lat=48.8566&lon=2.3522&z=4")
        expectSnapshot(phone.render(width: 80, height: 24), named: "map-80x24")
    }

    @Test func theReaderPage() throws {
        let phone = try BrowserDevice("Phone", in: Neighbourhood())
        phone.go(to: "https://reader.handoffsim.example/handoff-guide?page=3")
        expectSnapshot(phone.render(width: 80, height: 24), named: "reader-80x24")
    }

    @Test func theNoNetworkPage() throws {
        let phone = try BrowserDevice("Phone", in: Neighbourhood())
        phone.go(to: "https://news.example.org/2026/11/23/a-rather-long-article-name-that-goes-on?ref=handoff&utm=none")
        expectSnapshot(phone.render(width: 60, height: 20), named: "no-network-60x20")
    }

    @Test func aRefusedAddress() throws {
        let phone = try BrowserDevice("Phone", in: Neighbourhood())
        phone.go(to: "file:///etc/passwd")
        expectSnapshot(phone.render(width: 60, height: 14), named: "refused-60x14")
    }

    @Test func editingTheAddress() throws {
        let phone = try BrowserDevice("Phone", in: Neighbourhood())
        phone.press(.character("g"))
        expectSnapshot(phone.render(width: 60, height: 12), named: "address-selected-60x12")
        phone.type("reader.handoffsim.example/night-markets?page=2")
        phone.press(.left, .left, .left, .left, .left, .left)
        expectSnapshot(phone.render(width: 40, height: 12), named: "address-editing-40x12")
    }

    @Test func aHostilePage() throws {
        let folder = TemporaryFolder()
        try folder.write(
            "# \u{1B}[2JOwned\n\u{1B}]0;title\u{07}Text\twith\u{202E} tricks\n=> javascript:alert(1) \u{1B}[5mClick\n"
                + String(repeating: "W", count: 200), to: "sites/evil.example/index.page")
        let resources = try browserResources()
        let browser = try BrowserApp(
            resources: BrowserResources(
                infoPlist: resources.infoPlist,
                sites: folder.url.appendingPathComponent("sites"), readerDocuments: nil))
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood, browser: browser)
        phone.go(to: "evil.example")
        let grid = phone.render(width: 50, height: 14)
        expectSnapshot(grid, named: "hostile-50x14")
        phone.press(.enter)
        #expect(browser.page?.kind == .refused, "a javascript: link is refused, clearly")
    }

    @Test func theChosenLinkIsHighlighted() throws {
        let phone = try BrowserDevice("Phone", in: Neighbourhood())
        _ = phone.render(width: 80, height: 30)
        phone.press(.down)
        let grid = phone.render(width: 80, height: 30)
        let row = try #require((0..<grid.size.height).first { grid.line($0).contains("→ From the web to an app") })
        let x = try #require(grid.line(row).firstIndex(of: "→")).utf16Offset(in: grid.line(row))
        #expect(grid[x, row].style.role == .selection)
        let other = try #require((0..<grid.size.height).first { grid.line($0).contains("→ From an app to the web") })
        #expect(grid[x, other].style.role == .link)
        #expect(grid[x, other].style.underline)
    }

    @Test func drawingStaysInsideTheArea() throws {
        let phone = try BrowserDevice("Phone", in: Neighbourhood())
        for editing in [false, true] {
            if editing { phone.press(.character("g")) }
            for area in [
                Rect(x: 7, y: 3, width: 60, height: 18), Rect(x: 1, y: 1, width: 9, height: 3),
                Rect(x: 0, y: 0, width: 150, height: 44), Rect(x: 2, y: 2, width: 0, height: 5),
                Rect(x: 3, y: 3, width: 1, height: 1),
            ] {
                var grid = Grid(size: Size(width: 160, height: 48), fill: Cell("#"))
                phone.browser.render(into: &grid, area: area)
                for y in 0..<grid.size.height {
                    for x in 0..<grid.size.width where !area.contains(Point(x: x, y: y)) {
                        #expect(grid[x, y].character == "#", "(\(x), \(y)) outside \(area) is untouched")
                    }
                }
            }
        }
    }

    @Test func rowsNeverOverflowTheirWidth() throws {
        let phone = try BrowserDevice("Phone", in: Neighbourhood())
        for address in [
            "handoffsim.example/site-format", "reader.handoffsim.example/night-markets?page=1",
            "www.example.org/" + String(repeating: "x", count: 300),
        ] {
            phone.go(to: address)
            for width in [8, 20, 33, 60, 101] {
                let grid = phone.render(width: width, height: 12)
                for y in 0..<grid.size.height {
                    #expect(TextWidth.of(grid.line(y)) <= width)
                }
            }
        }
    }
}
