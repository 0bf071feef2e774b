import DeviceAppKit
import DeviceUI
import Foundation
import HandoffCore
import HandoffManifest
import HandoffTestSupport
import OwnApp
import TerminalCells
import Testing

/// Your own app on the terminal device: the activity tree, the screen's reducer and drawing, and
/// two devices handing the activity over with it.
@Suite("Own app: the activity screen")
struct OwnAppTests {
    static let info: UserInfo = [
        "noteID": 42, "cursor": 12.5, "body": "milk, eggs", "pinned": true,
        "position": ["line": 3, "column": 7], "tags": ["home", "weekly"], "thumbnail": .data(Data([0, 1, 2])),
    ]

    /// An activity file (JSON) with most of ``info``.
    static func file() throws -> ActivityFile {
        let json = #"""
            {"activityType": "com.example.notes.editing", "title": "Groceries",
             "userInfo": {"noteID": 42, "cursor": 12.5, "body": "milk, eggs", "pinned": true,
                          "position": {"line": 3, "column": 7}, "tags": ["home", "weekly"]}}
            """#
        return try ActivityFile(data: Data(json.utf8), name: "note.json")
    }

    static let macNotes = AppManifest(
        bundleIdentifier: "com.example.notes.mac", teamIdentifier: "ABCDE12345", displayName: "Notes for Mac",
        activityTypes: ["com.example.notes.editing"])
    /// Named by neither CFBundleDisplayName nor CFBundleName: the manifest's name is its bundle id.
    static let phoneNotes = AppManifest(
        bundleIdentifier: "com.example.notes", teamIdentifier: "ABCDE12345",
        activityTypes: ["com.example.notes.editing"],
        sceneManifest: .init(supportsMultipleScenes: true, configurations: []))

    // MARK: The tree

    @Test func theTreeListsEveryValueWithItsKindDepthFirstKeysSorted() {
        let tree = ActivityTree(Self.info)
        #expect(
            tree.rows.map(\.label) == [
                "body", "cursor", "noteID", "pinned", "position", "column", "line", "tags", "[0]", "[1]", "thumbnail",
            ])
        let position = tree.rows[4]
        #expect(position.kind == "Dictionary" && position.value == "2 entries" && !position.isEditable)
        #expect(tree.rows[5].depth == 1)
        #expect(tree.rows[0].value == "\"milk, eggs\"" && tree.rows[0].isEditable)
        #expect(tree.rows[2].kind == "Number(integer)" && tree.rows[2].isEditable)
        #expect(tree.rows[3].kind == "Number(Boolean)" && !tree.rows[3].isEditable)
        #expect(tree.rows[10].value == "3 bytes")
    }

    @Test func editsKeepTheKindOrSayWhy() throws {
        var info = Self.info
        try info.edit(at: [.key("noteID")], to: "43")
        #expect(info["noteID"] == 43)
        try info.edit(at: [.key("cursor")], to: "3")
        #expect(info["cursor"] == .double(3), "a double stays a double")
        try info.edit(at: [.key("noteID")], to: "4.5")
        #expect(info["noteID"] == .double(4.5), "a fraction makes a floating-point number")
        try info.edit(at: [.key("position"), .key("line")], to: "9")
        #expect(info["position"] == ["line": 9, "column": 7])
        try info.edit(at: [.key("tags"), .index(1)], to: "daily")
        #expect(info["tags"] == ["home", "daily"])
        let notANumber = #expect(throws: ActivityEditError.self) { try info.edit(at: [.key("cursor")], to: "lots") }
        #expect(notANumber?.description.contains("is not a number") == true)
        #expect(throws: ActivityEditError.self) { try info.edit(at: [.key("pinned")], to: "false") }
        #expect(throws: ActivityEditError.self) { try info.edit(at: [.key("gone")], to: "1") }
    }

    // MARK: The reducer

    @Test func keysChooseEditAndAskForActions() {
        var screen = OwnAppScreen()
        let tree = ActivityTree(Self.info)
        #expect(screen.handle(.down, tree: tree).handled)
        #expect(screen.selection == 1)
        #expect(screen.handle(.up, tree: tree).handled)
        #expect(screen.handle(.up, tree: tree).handled)
        #expect(screen.selection == 0, "stays on the first row")
        _ = screen.handle(.end, tree: tree)
        #expect(screen.selection == tree.rows.count - 1)
        _ = screen.handle(.home, tree: tree)
        // Enter on the string edits it, from its bare text.
        _ = screen.handle(.enter, tree: tree)
        #expect(screen.editing?.text == "milk, eggs")
        for _ in 0..<4 { _ = screen.handle(.backspace, tree: tree) }
        for character in "ham" { _ = screen.handle(.character(character), tree: tree) }
        // While editing, c is text, not an action.
        #expect(screen.handle(.character("c"), tree: tree).action == nil)
        let done = screen.handle(.enter, tree: tree)
        #expect(done.action == .edit(path: [.key("body")], text: "milk, hamc"))
        #expect(screen.editing == nil)
        // Esc cancels an edit.
        _ = screen.handle(.enter, tree: tree)
        #expect(screen.handle(.escape, tree: tree) == (true, nil))
        #expect(screen.editing == nil)
        // A Boolean is not edited here: the screen says so.
        _ = screen.handle(.down, tree: tree)
        _ = screen.handle(.down, tree: tree)
        _ = screen.handle(.down, tree: tree)
        _ = screen.handle(.enter, tree: tree)
        #expect(screen.editing == nil)
        #expect(screen.message?.text.contains("pinned is a Number(Boolean)") == true)
        #expect(screen.handle(.character("c"), tree: tree).action == .makeCurrent)
        #expect(screen.handle(.character("r"), tree: tree).action == .resign)
        #expect(screen.handle(.character("x"), tree: tree).action == .invalidate)
        #expect(!screen.handle(.character("z"), tree: tree).handled, "not the app's key")
    }

    @Test func scrollingKeepsTheSelectionInView() {
        var screen = OwnAppScreen()
        screen.viewport = Size(width: 60, height: 8)  // 3 tree rows
        let tree = ActivityTree(Self.info)
        for _ in 0..<5 { _ = screen.handle(.down, tree: tree) }
        #expect(screen.selection == 5)
        #expect(screen.scroll == 3)
        _ = screen.handle(.pageUp, tree: tree)
        #expect(screen.selection == 2 && screen.scroll == 2)
    }

    // MARK: Drawing

    @Test(arguments: [Size(width: 74, height: 16), Size(width: 140, height: 40)])
    func theScreenShowsKeysTypesValuesAndTheSize(size: Size) throws {
        let app = OwnApp(manifest: Self.macNotes, file: try Self.file())
        app.viewportChanged(to: size)
        var grid = Grid(size: size)
        app.render(into: &grid, area: Rect(x: 0, y: 0, width: size.width, height: size.height))
        let text = grid.text()
        #expect(text.contains("Notes for Mac · com.example.notes.editing"))
        #expect(text.contains("not made current yet"))
        #expect(text.contains("% of Apple's 3 KB guidance"))
        #expect(text.contains("Key"))
        #expect(text.contains("Number(integer)"))
        #expect(text.contains("noteID"))
        #expect(text.contains("\"milk, eggs\""))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == size.height)
        #expect(lines.allSatisfy { TextWidth.of($0) <= size.width })
        if size.width >= 100 {
            // The key column grows with the screen.
            let head = try #require(lines.first { $0.contains("Type") })
            #expect((head.range(of: "Type")?.lowerBound).map { head.distance(from: head.startIndex, to: $0) } ?? 0 > 30)
        }
    }

    @Test func anOversizePayloadSaysItWillBeRefused() throws {
        let app = OwnApp(manifest: Self.macNotes, file: try Self.file())
        let view = app.view
        var big = view
        big.payloadBytes = 600 * 1024
        var grid = Grid(size: Size(width: 74, height: 16))
        app.screen.render(big, into: &grid, area: Rect(x: 0, y: 0, width: 74, height: 16))
        #expect(grid.text().contains("refused with 4611"))
        big.payloadBytes = 4000
        grid = Grid(size: Size(width: 74, height: 16))
        app.screen.render(big, into: &grid, area: Rect(x: 0, y: 0, width: 74, height: 16))
        #expect(grid.text().contains("over Apple's 3 KB guidance"))
    }

    @Test func theDisplayNameIsTheBundlesNameElseTheProductName() {
        #expect(OwnApp.displayName(of: Self.macNotes, productName: "NotesMac") == "Notes for Mac")
        #expect(OwnApp.displayName(of: Self.phoneNotes, productName: "Notes") == "Notes")
        #expect(OwnApp.displayName(of: Self.phoneNotes, productName: nil) == "notes")
    }

    // MARK: Two devices

    /// The laptop's own app makes the file's activity current; an edit sets needsSave; the phone
    /// (whose app has a SwiftUI scene manifest) sees the offer by the app's name and continues it
    /// into its own app, which shows the edited state.
    @Test func anEditedActivityContinuesIntoTheOtherDevicesOwnApp() throws {
        let hood = Neighbourhood()
        let laptop = hood.addDevice(
            "Laptop", kind: .laptop, configuration: DeviceConfiguration(saveCoalescingInterval: 60))
        let phone = hood.addDevice(
            "Phone", kind: .phone, configuration: DeviceConfiguration(saveCoalescingInterval: 60))
        let folder = URL(fileURLWithPath: "/nonexistent")
        let clock = hood.clock
        let macApp = OwnApp(manifest: Self.macNotes, productName: "NotesMac", file: try Self.file())
        let phoneApp = OwnApp(manifest: Self.phoneNotes, productName: "Notes", file: nil)
        func screen(_ device: Device, _ app: OwnApp) -> DeviceScreen {
            DeviceScreen(
                device: device, account: "demo", apps: [app],
                environment: AppEnvironment(
                    deviceName: device.info.name, cloudFolder: nil, localFolder: folder, now: { clock.now }),
                timeZone: TimeZone(identifier: "GMT") ?? .current, now: clock.now)
        }
        let laptopScreen = screen(laptop, macApp)
        let phoneScreen = screen(phone, phoneApp)
        let size = Size(width: 80, height: 24)
        #expect(laptopScreen.render(size: size, now: clock.now).text().contains("Notes for Mac"))
        #expect(phoneScreen.render(size: size, now: clock.now).text().contains("1 Notes"))

        laptopScreen.handle(.character("1"))
        laptopScreen.handle(.character("c"))
        hood.settle()
        #expect(laptop.currentActivity?.activityType == "com.example.notes.editing")
        #expect(laptop.currentActivity?.title == "Groceries")
        var frame = laptopScreen.render(size: size, now: clock.now).text()
        #expect(frame.contains("● current"))
        // Edit noteID (the third row): needsSave is set.
        laptopScreen.handle(.down)
        laptopScreen.handle(.down)
        laptopScreen.handle(.enter)
        for _ in 0..<2 { laptopScreen.handle(.backspace) }
        for character in "77" { laptopScreen.handle(.character(character)) }
        laptopScreen.handle(.enter)
        #expect(laptop.currentActivity?.needsSave == true)
        frame = laptopScreen.render(size: size, now: clock.now).text()
        #expect(frame.contains("needsSave"))

        // The phone's Nearby names the app that would continue it.
        let phoneFrame = phoneScreen.render(size: Size(width: 120, height: 30), now: clock.now).text()
        #expect(phoneFrame.contains("Notes"))
        #expect(phone.system.offers[laptop.info.id] != nil)
        phoneScreen.handle(.control("o"))
        hood.settle()
        #expect(phone.system.frontmostApp == "com.example.notes")
        frame = phoneScreen.render(size: size, now: clock.now).text()
        #expect(frame.contains("Notes · com.example.notes.editing"))
        #expect(frame.contains("77"), "the edit travelled: needsSave made the system save before sending")
        #expect(frame.contains("Continued from Laptop"))
        #expect(phone.application("com.example.notes")?.usesScenes == true)
    }
}
