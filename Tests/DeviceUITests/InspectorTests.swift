import DeviceUI
import Foundation
import HandoffCore
import TerminalCells
import Testing

/// The inspector (F10): the userInfo tree with its differences, the size meter, and the bytes
/// that travelled with their fields.
@Suite("Inspector")
struct InspectorTests {
    // MARK: The tree's differences

    @Test func theTreeMarksChangedAddedAndRemovedKeys() {
        let origin: UserInfo = [
            "page": .integer(3), "title": .string("Ch 1"), "gone": .bool(true),
            "position": .dictionary(["line": .integer(10), "character": .integer(4)]),
            "tags": .array([.string("a"), .string("b")]),
        ]
        let receiver: UserInfo = [
            "page": .integer(4), "title": .string("Ch 1"), "new": .null,
            "position": .dictionary(["line": .integer(10), "column": .integer(4)]),
            "tags": .array([.string("a")]),
        ]
        let rows = UserInfoTree.rows(origin: origin, receiver: receiver)
        func mark(_ key: String, depth: Int = 0) -> UserInfoTreeRow.Mark? {
            rows.first { $0.key == key && $0.depth == depth }?.mark
        }
        #expect(mark("page") == .changed)
        #expect(mark("title") == .same)
        #expect(mark("gone") == .removed)
        #expect(mark("new") == .added)
        #expect(mark("position") == .changed)
        #expect(mark("line", depth: 1) == .same)
        #expect(mark("character", depth: 1) == .removed)
        #expect(mark("column", depth: 1) == .added)
        #expect(mark("[1]", depth: 1) == .removed)
        #expect(rows.map(\.key).prefix(3) == ["gone", "new", "page"])
        let page = rows.first { $0.key == "page" }
        #expect(page?.origin == "3")
        #expect(page?.receiver == "4")
    }

    @Test func oneKnownSideIsShownUnmarked() {
        let rows = UserInfoTree.rows(
            origin: nil, receiver: ["page": .integer(3), "set": .set([.integer(1), .integer(2)])])
        #expect(rows.allSatisfy { $0.mark == .same })
        #expect(rows.filter { $0.depth == 0 }.map(\.key) == ["page", "set"])
        #expect(rows.allSatisfy { $0.origin == nil })
        #expect(UserInfoTree.rows(origin: [:], receiver: [:]).isEmpty)
    }

    @Test func setsCompareByMembership() {
        let rows = UserInfoTree.rows(
            origin: ["s": .set([.integer(1), .integer(2)])], receiver: ["s": .set([.integer(2), .integer(3)])])
        #expect(rows.first?.mark == .changed)
        #expect(rows.contains { $0.mark == .removed && $0.origin == "1" })
        #expect(rows.contains { $0.mark == .added && $0.receiver == "3" })
        #expect(rows.contains { $0.mark == .same && $0.origin == "2" })
    }

    // MARK: Keys

    @Test func f10OpensTheInspectorOnTheLatestContinuationAndIOnNearbysSelection() {
        var state = InspectorFixture.state()
        let device = InspectorFixture.device()
        _ = state.update(.keyPressed(.function(10)), device: device)
        #expect(state.overlay == .inspector(InspectorState(subject: .latest)))
        _ = state.update(.keyPressed(.escape), device: device)
        #expect(state.overlay == nil)

        state.focus = .nearby
        state.nearbySelection = Fixture.tablet.id
        _ = state.update(.keyPressed(.character("i")), device: device)
        #expect(state.overlay == .inspector(InspectorState(subject: .peer(Fixture.tablet.id))))
    }

    @Test func tabsCycleAndScrollingStaysWithinTheLines() {
        var state = InspectorFixture.state()
        var device = InspectorFixture.device()
        device.inspection = InspectorFixture.inspection()
        state.overlay = .inspector(InspectorState(subject: .latest))
        _ = state.update(.keyPressed(.right), device: device)
        #expect(state.overlay == .inspector(InspectorState(subject: .latest, tab: .payload)))
        _ = state.update(.keyPressed(.up), device: device)
        #expect(state.overlay == .inspector(InspectorState(subject: .latest, tab: .payload, scroll: 0)))
        for _ in 0..<500 { _ = state.update(.keyPressed(.down), device: device) }
        guard case .inspector(let scrolled) = state.overlay else {
            Issue.record("the inspector closed")
            return
        }
        #expect(scrolled.scroll > 0)
        _ = state.update(.keyPressed(.down), device: device)
        #expect(state.overlay == .inspector(scrolled))
        _ = state.update(.keyPressed(.end), device: device)
        #expect(state.overlay == .inspector(scrolled))
        _ = state.update(.keyPressed(.right), device: device)
        _ = state.update(.keyPressed(.right), device: device)
        #expect(state.overlay == .inspector(InspectorState(subject: .latest, tab: .userInfo)))
        _ = state.update(.keyPressed(.left), device: device)
        #expect(state.overlay == .inspector(InspectorState(subject: .latest, tab: .beacon)))
        _ = state.update(.keyPressed(.function(10)), device: device)
        #expect(state.overlay == nil)
    }

    @Test func theHelpListsTheInspector() {
        let state = InspectorFixture.state()
        let lines = state.helpSections(device: InspectorFixture.device()).flatMap(\.hints)
        #expect(lines.contains { $0.keys == "F10  i" })
        #expect(lines.contains { $0.action.contains("some terminals take F10 for their menu") })
    }

    // MARK: Drawing

    @Test func theTreeAt80x24() {
        let grid = InspectorFixture.render(tab: .userInfo, size: Size(width: 80, height: 24))
        assertSnapshot(grid, named: "inspector-userinfo-80x24", styles: meaningLegend)
        let text = grid.text()
        #expect(text.contains("~ page: 3 → 4"))
        #expect(text.contains("guidance 3 KB"))
    }

    @Test func thePayloadBytesAt80x24() {
        let grid = InspectorFixture.render(tab: .payload, size: Size(width: 80, height: 24))
        assertSnapshot(grid, named: "inspector-payload-80x24")
        #expect(grid.text().contains("48 4f 50 4c"))
        #expect(grid.text().contains("magic"))
    }

    @Test func bothSidesSideBySideAt200x50() {
        let grid = InspectorFixture.render(tab: .userInfo, size: Size(width: 200, height: 50))
        assertSnapshot(grid, named: "inspector-userinfo-200x50", styles: meaningLegend)
        #expect(grid.text().contains("Receiver Phone"))
    }

    @Test func theBeaconBytesAt200x50() {
        let grid = InspectorFixture.render(tab: .beacon, size: Size(width: 200, height: 50))
        assertSnapshot(grid, named: "inspector-beacon-200x50")
        #expect(grid.text().contains("ciphertext"))
    }

    @Test func aPayloadOfThousandsOfFieldsIsLaidOutUpToALimitAndCounted() {
        var userInfo: UserInfo = [:]
        for index in 0..<5000 { userInfo["key\(index)"] = .integer(Int64(index)) }
        let payload = ActivityPayload(activityType: "t", userInfo: userInfo, teamIdentifier: "T", bundleIdentifier: "b")
        var device = InspectorFixture.device()
        device.inspection = Inspection(
            title: "Big", receiver: .init(device: "Phone", role: "restored by the receiver", userInfo: userInfo),
            payload: .init(
                direction: "received from Laptop", size: payload.encoded().count,
                annotated: payload.annotatedEncoding()))
        var state = InspectorFixture.state()
        state.overlay = .inspector(InspectorState(subject: .latest, tab: .payload))
        _ = state.update(.keyPressed(.end), device: device)
        let payloadEnd = Fixture.render(state, device).text()
        #expect(payloadEnd.contains("more fields, to byte \(payload.encoded().count)"))
        state.overlay = .inspector(InspectorState(subject: .latest, tab: .userInfo))
        _ = state.update(.keyPressed(.end), device: device)
        let treeEnd = Fixture.render(state, device).text()
        #expect(treeEnd.contains("… 1000 more rows"))
    }

    @Test func theInspectionIsMadeAgainOnlyWhenWhatItShowsChanged() {
        let world = TwoScreens()
        world.startOnLaptop()
        let cache = InspectionCache()
        let before = cache.inspection(subject: .latest, device: world.phone, shared: [])
        #expect(before.payload == nil)
        #expect(cache.inspection(subject: .latest, device: world.phone, shared: []) == before)
        world.phoneScreen.handle(.control("o"))
        world.hood.settle()
        let after = cache.inspection(subject: .latest, device: world.phone, shared: [])
        #expect(after.payload?.direction == "received from Laptop")
        #expect(cache.inspection(subject: .peer(world.laptop.info.id), device: world.phone, shared: []).payload != nil)
    }

    // MARK: Two devices

    @Test func aPayloadRefusedForItsSizeIsShownAsNeverSent() throws {
        let world = TwoScreens()
        world.startOnLaptop()
        world.laptop.arm(.oversizePayload)
        world.phoneScreen.handle(.control("o"))
        world.hood.settle()
        let laptop = Inspection(subject: .latest, device: world.laptop)
        let payload = try #require(laptop.payload)
        #expect(payload.direction == "encoded for Phone but refused (4611), never sent")
        #expect(payload.size > laptop.limitBytes)
        #expect(payload.annotated?.coversEveryByte == true)
        #expect(Inspection(subject: .latest, device: world.phone).payload == nil)
    }

    @Test func afterAContinuationEachSideInspectsWhatItKnows() throws {
        let world = TwoScreens()
        world.startOnLaptop()
        world.phoneScreen.handle(.control("o"))
        world.hood.settle()
        #expect(world.phoneApp.continued == 1)

        world.phoneScreen.handle(.function(10))
        let phone = try #require(world.phoneScreen.snapshot().inspection)
        #expect(phone.title.contains("Laptop → Phone"))
        #expect(phone.receiver?.device == "Phone")
        #expect(phone.receiver?.userInfo["page"] == .integer(3))
        let received = try #require(phone.payload)
        #expect(received.direction == "received from Laptop")
        #expect(received.annotated?.coversEveryByte == true)
        #expect(phone.missingSide?.contains("Laptop") == true)
        #expect(world.phoneFrame().text().contains("Inspector"))

        world.laptopScreen.handle(.function(10))
        let laptop = try #require(world.laptopScreen.snapshot().inspection)
        #expect(laptop.origin?.device == "Laptop")
        #expect(laptop.origin?.userInfo == phone.receiver?.userInfo)
        #expect(laptop.payload?.direction == "sent to Phone")
        #expect(laptop.payload?.annotated?.bytes == received.annotated?.bytes)
    }

    @Test func theOtherSideComesFromWhatItsDeviceShared() throws {
        let world = TwoScreens()
        world.startOnLaptop()
        world.phoneScreen.handle(.control("o"))
        world.hood.settle()
        // What the laptop would share of its lifecycle (lifecycle sharing, --share-lifecycle).
        let shared = world.laptop.lifecycle.map(LifecycleEntry.init)
        let phone = Inspection(subject: .latest, device: world.phone, shared: shared)
        #expect(phone.origin?.device == "Laptop")
        #expect(phone.origin?.role == "saved by the origin (shared)")
        #expect(phone.receiver?.device == "Phone")
        #expect(phone.missingSide == nil)
        let rows = UserInfoTree.rows(origin: phone.origin?.userInfo, receiver: phone.receiver?.userInfo)
        #expect(!rows.isEmpty && rows.allSatisfy { $0.mark == .same })
        // Shared without its userInfo (over the sharing limit): said so.
        let omitted = shared.map { $0.kind == .payloadSent ? $0.withoutUserInfo(bytes: 20_000) : $0 }
        let without = Inspection(subject: .latest, device: world.phone, shared: omitted)
        #expect(without.origin == nil)
        #expect(without.missingSide?.contains("Laptop shared this step without its userInfo (20000 bytes") == true)
    }
}

enum InspectorFixture {
    static func state(size: Size = Size(width: 80, height: 24)) -> ScreenState {
        Fixture.state(size: size)
    }

    static func device() -> DeviceSnapshot {
        Fixture.device(lifecycle: Fixture.events())
    }

    static func payload() -> ActivityPayload {
        ActivityPayload(
            activityIdentifier: UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!,
            activityType: Fixture.notesType, title: "Page 4",
            userInfo: [
                "page": .integer(4), "position": .dictionary(["line": .integer(10), "column": .integer(4)]),
                "new": .null, "note": .string("Remember the milk"),
            ],
            teamIdentifier: "ABCDE12345", bundleIdentifier: "com.example.notes", requiredUserInfoKeys: ["page"])
    }

    static func inspection() -> Inspection {
        let payload = payload()
        // A beacon's fields as the codec would give them (the view only draws what it is given).
        var datagram = [UInt8](repeating: 0x5a, count: 128)
        datagram[0] = 1
        let plaintext = [UInt8](repeating: 0, count: 99)
        let beacon = BeaconBytes(
            datagram: AnnotatedBytes(
                bytes: datagram,
                fields: [
                    ByteField(range: 0..<1, name: "version", value: "1 (in clear, authenticated)"),
                    ByteField(range: 1..<13, name: "nonce", value: "96 random bits, in clear"),
                    ByteField(range: 13..<112, name: "ciphertext", value: "99 bytes: the plaintext below, AES-256-GCM"),
                    ByteField(range: 112..<128, name: "tag", value: "128-bit GCM tag"),
                ]),
            plaintext: AnnotatedBytes(
                bytes: plaintext,
                fields: [
                    ByteField(range: 0..<16, name: "device", value: "00000000-0000-0000-0000-000000000000"),
                    ByteField(range: 16..<43, name: "header", value: "boot, counter, sentAt, port, kind"),
                    ByteField(range: 43..<44, name: "message", value: "presence"),
                    ByteField(range: 44..<45, name: "name length", value: "0 bytes"),
                    ByteField(range: 45..<99, name: "padding", value: "54 zero bytes"),
                ]),
            sender: Fixture.laptop)
        return Inspection(
            title: "Continuation 5ec0a11d: Laptop → Phone",
            origin: .init(
                device: "Laptop", role: "saved by the origin",
                userInfo: [
                    "page": .integer(3), "position": .dictionary(["line": .integer(10), "character": .integer(4)]),
                    "note": .string("Remember the milk"), "gone": .bool(true),
                ]),
            receiver: .init(device: "Phone", role: "restored by the receiver", userInfo: payload.userInfo),
            payload: .init(
                direction: "received from Laptop", size: payload.encoded().count, annotated: payload.annotatedEncoding()
            ),
            beacon: .init(peer: "Laptop", received: Fixture.now, bytes: beacon))
    }

    static func render(tab: InspectorState.Tab, size: Size) -> Grid {
        var state = state(size: size)
        state.overlay = .inspector(InspectorState(subject: .latest, tab: tab))
        var device = device()
        device.inspection = inspection()
        return Fixture.render(state, device)
    }
}
