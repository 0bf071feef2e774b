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

    @Test func ourBeaconAndApplesAdvertisementSideBySideAt120x40() {
        let grid = InspectorFixture.render(tab: .beacon, size: Size(width: 120, height: 40), apple: true)
        assertSnapshot(grid, named: "inspector-beacon-apple-120x40")
        let text = grid.text()
        let rows = text.split(separator: "\n")
        // Both headings on one row, the two columns apart.
        #expect(rows.contains { $0.contains("Ours: the simulator's UDP beacon") && $0.contains("Apple's: its BLE") })
        #expect(text.contains("4c 00"))
        #expect(text.contains("counter"))
        #expect(text.contains("What differs, and why"))
        #expect(text.contains("passes 1 time in 256"))
    }

    @Test func applesAdvertisementBelowOursAt80x24() throws {
        // The top: ours first, and where Apple's is.
        let top = InspectorFixture.render(tab: .beacon, size: Size(width: 80, height: 24), apple: true)
        #expect(top.text().contains("follows (scroll down)"))
        // Scrolled to Apple's: each of its fields annotated, and what differs below.
        // Its line: where it is drawn on a terminal tall enough for every line (the body starts
        // on row 4).
        let tall = InspectorFixture.render(tab: .beacon, size: Size(width: 80, height: 200), apple: true)
        let row = try #require(
            tall.text().split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
                $0.contains("Apple's: its BLE advertisement, same activity")
            })
        let grid = InspectorFixture.render(
            tab: .beacon, size: Size(width: 80, height: 24), apple: true, scroll: row - 4)
        assertSnapshot(grid, named: "inspector-beacon-apple-80x24")
        let text = grid.text()
        for field in ["company ID", "flags", "counter", "tag", "ciphertext"] {
            #expect(text.contains(field), "no \(field) at 80x24")
        }
        // Below it, its plaintext and what differs.
        let rest = tall.text()
        for field in [
            "activity type hash", "options", "time  0x80: current, 4-s tick 0 of 124", "What differs, and why",
            "Replay",
        ] {
            #expect(rest.contains(field), "no \(field) at 80 columns")
        }
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

    /// Apple's advertisement as the codec gives it for the Messages hash, counter 42, with the
    /// demo key (AppleAdvertisementTests' sample; the view only draws what it is given).
    static func appleBytes() -> AppleAdvertisementBytes {
        let data: [UInt8] = [
            0x4c, 0x00, 0x0c, 0x0e, 0x00, 0x2a, 0x00, 0xd8, 0xcd, 0xa4, 0xf6, 0x90, 0x68, 0x04, 0xed, 0xca, 0xdc, 0xfe,
        ]
        let plaintext: [UInt8] = [0x00, 0xa3, 0x2a, 0x9f, 0x48, 0x30, 0x8f, 0xdc, 0x00, 0x80]
        return AppleAdvertisementBytes(
            advertisement: AnnotatedBytes(
                bytes: data,
                fields: [
                    ByteField(range: 0..<2, name: "company ID", value: "0x004c: Apple (little-endian)"),
                    ByteField(range: 2..<3, name: "type", value: "0x0c: Handoff"),
                    ByteField(range: 3..<4, name: "length", value: "14 bytes"),
                    ByteField(range: 4..<5, name: "flags", value: "0x00: no copy/cut (clear; AAD)"),
                    ByteField(
                        range: 5..<7, name: "counter",
                        value: "42, little-endian: the GCM IV"),
                    ByteField(range: 7..<8, name: "tag", value: "0xd8: GCM tag's first byte"),
                    ByteField(range: 8..<18, name: "ciphertext", value: "the plaintext below"),
                ]),
            plaintext: AnnotatedBytes(
                bytes: plaintext,
                fields: [
                    ByteField(range: 0..<1, name: "status", value: "0x00 (meaning not known)"),
                    ByteField(range: 1..<8, name: "activity type hash", value: "a32a9f48308fdc = com.apple.Messages"),
                    ByteField(range: 8..<9, name: "options", value: "0x00: none"),
                    ByteField(
                        range: 9..<10, name: "time", value: "0x80: current, 4-s tick 0 of 124"),
                ]),
            key: Array(0..<32))
    }

    static func inspection(apple: Bool = false) -> Inspection {
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
            sender: Fixture.laptop, apple: apple ? appleBytes() : nil)
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

    static func render(tab: InspectorState.Tab, size: Size, apple: Bool = false, scroll: Int = 0) -> Grid {
        var state = state(size: size)
        state.overlay = .inspector(InspectorState(subject: .latest, tab: tab, scroll: scroll))
        var device = device()
        device.inspection = inspection(apple: apple)
        return Fixture.render(state, device)
    }
}
