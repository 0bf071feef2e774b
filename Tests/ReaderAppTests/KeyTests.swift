import Foundation
import HandoffCore
import HandoffTestSupport
import TerminalCells
import Testing

@testable import ReaderApp

@Suite("Keys in the list and the reading view")
struct KeyTests {
    @Test func theListChoosesAndOpens() throws {
        let world = try ReaderWorld()
        let reader = world.laptop.reader
        #expect(reader.documents.map(\.name) == ["handoff-guide.txt", "harrow-point.txt", "night-markets.txt"])
        #expect(reader.selection == 0)
        world.laptop.press(.down, .down, .down)
        #expect(reader.selection == 2, "the selection stops at the last document")
        world.laptop.press(.up, .home)
        #expect(reader.selection == 0)
        world.laptop.press(.end)
        #expect(reader.selection == 2)
        #expect(reader.handle(.escape) == false, "Esc in the list is the device's (home)")
        #expect(reader.handle(.character("h")) == false)
        world.laptop.press(.enter)
        #expect(reader.session?.url.lastPathComponent == "night-markets.txt")
        #expect(reader.title == "Notes from Night Markets — 夜市の手帖")
    }

    @Test func pagingClampsAtTheEndsAndEveryMoveSetsNeedsSave() throws {
        let world = try ReaderWorld()
        let laptop = world.laptop
        laptop.open("harrow-point.txt")
        let activity = try #require(laptop.activity)
        let pages = try #require(laptop.reader.session?.text.pageCount)
        #expect(pages == 6)

        func expectMove(
            _ key: Key, to page: Int, line: Int? = nil, moved: Bool = true,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            activity.needsSave = false  // as if the system had just saved
            laptop.press(key, sourceLocation: sourceLocation)
            let position = laptop.reader.session?.position
            #expect(position?.page == page, sourceLocation: sourceLocation)
            if let line { #expect(position?.line == line, sourceLocation: sourceLocation) }
            #expect(
                activity.needsSave == moved, "\(key) \(moved ? "sets" : "does not set") needsSave",
                sourceLocation: sourceLocation)
        }

        expectMove(.pageUp, to: 1, moved: false)
        expectMove(.character("b"), to: 1, moved: false)
        expectMove(.up, to: 1, moved: false)
        expectMove(.pageDown, to: 2)
        expectMove(.character(" "), to: 3)
        expectMove(.character("b"), to: 2)
        expectMove(.pageUp, to: 1)
        expectMove(.end, to: pages)
        expectMove(.pageDown, to: pages, moved: false)
        expectMove(.character(" "), to: pages, moved: false)
        expectMove(.home, to: 1, line: 0)
        expectMove(.home, to: 1, moved: false)
        #expect(activity.isValid)
    }

    @Test func arrowsScrollByRowsWithinThePage() throws {
        let world = try ReaderWorld()
        let laptop = world.laptop
        laptop.open("harrow-point.txt")
        _ = laptop.render(width: 60, height: 18)
        let session = try #require(laptop.reader.session)
        let activity = try #require(laptop.activity)
        let layout = session.layout(width: laptop.reader.viewport.width)
        let last = layout.lastTopRow(height: laptop.reader.viewport.height)
        #expect(last > 3, "page 1 is longer than the view")
        for row in 1...last {
            activity.needsSave = false
            laptop.press(.down)
            #expect(session.topRow(in: laptop.reader.viewport) == row)
            #expect(session.position.line == layout.rows[row].line)
            #expect(session.position.character == layout.rows[row].character)
            #expect(activity.needsSave)
        }
        activity.needsSave = false
        laptop.press(.down)
        #expect(session.topRow(in: laptop.reader.viewport) == last, "scrolling stops with the end of the page in view")
        #expect(!activity.needsSave)
        laptop.press(.up, .up)
        #expect(session.topRow(in: laptop.reader.viewport) == last - 2)
        #expect(session.position.page == 1)
        laptop.press(.character(" "))
        #expect(session.position == ReadingPosition(page: 2), "a new page starts at its top")
    }

    @Test func escapeAndBackspaceCloseTheDocumentAndInvalidateItsActivity() throws {
        let world = try ReaderWorld()
        let laptop = world.laptop
        for key in [Key.escape, .backspace] {
            laptop.open("handoff-guide.txt")
            let activity = try #require(laptop.activity)
            #expect(activity.isValid)
            #expect(activity.isCurrent)
            #expect(laptop.application.openDocuments.count == 1)
            world.hood.settle()
            #expect(world.phone.device.system.offers[laptop.device.info.id] != nil, "the phone sees the offer")
            laptop.press(key)
            #expect(laptop.reader.session == nil)
            #expect(!activity.isValid, "closing invalidates the document's activity")
            #expect(laptop.application.openDocuments.isEmpty)
            #expect(
                laptop.reader.documents[laptop.reader.selection].name == "handoff-guide.txt",
                "the list keeps the choice")
            world.hood.settle()
            #expect(world.phone.device.system.offers[laptop.device.info.id] == nil, "the offer is withdrawn")
        }
    }

    @Test func keysThatAreNotTheReadersGoToTheDevice() throws {
        let world = try ReaderWorld()
        world.laptop.open("handoff-guide.txt")
        for key in [Key.character("?"), .character("h"), .tab, .function(1), .enter] {
            #expect(world.laptop.reader.handle(key) == false, "\(key)")
        }
    }

    @Test func refreshingTheListFindsNewDocuments() throws {
        let world = try ReaderWorld()
        let local = world.laptop.localFolder
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
        try "Shopping list\n\nbread, tea".write(
            to: local.appendingPathComponent("list.txt"), atomically: true, encoding: .utf8)
        try "not text".write(to: local.appendingPathComponent("image.png"), atomically: true, encoding: .utf8)
        #expect(world.laptop.reader.documents.count == 3)
        world.laptop.press(.character("r"))
        let entry = try #require(world.laptop.reader.documents.last)
        #expect(entry.name == "list.txt")
        #expect(entry.location == .local)
        #expect(entry.title == "Shopping list")
        #expect(entry.pageCount == 1)
    }
}
