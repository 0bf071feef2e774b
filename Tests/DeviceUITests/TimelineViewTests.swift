import Foundation
import HandoffCore
import TerminalCells
import Testing

@testable import DeviceUI

/// The timeline view (F9): the continuation on one lane per device, arrows for what crossed the
/// network, the selected event's detail; from the phone that continued, with the laptop's shared
/// events.
@Suite("Timeline view")
struct TimelineViewTests {
    /// The laptop's side of `Fixture.continuation`, as it shared it.
    static func laptopEntries() -> [LifecycleEntry] {
        let activity = ActivityReference(
            id: UUID(uuidString: "00000000-0000-4000-8000-0000000000AA")!, activityType: Fixture.notesType,
            title: "Page 3", bundleIdentifier: "com.example.notes")
        let phone = PeerReference(id: "phone", name: "Phone")
        let identity = AdvertisementIdentity(
            device: "laptop", serial: 4, activityTypeHash: ActivityTypeHash(activityType: Fixture.notesType))
        func at(_ offset: TimeInterval, _ occurrence: LifecycleEvent.Occurrence) -> LifecycleEntry {
            LifecycleEntry(LifecycleEvent(time: Fixture.now.addingTimeInterval(offset), device: "Laptop", occurrence))
        }
        let info: UserInfoSnapshot = ["page": 3]
        return [
            at(-14.5, .advertised(activity, identity, isEligible: true)),
            at(-3.24, .payloadRequested(Fixture.continuation, phone, activity)),
            at(-3.23, .saved(activity, reason: .beforeSending, userInfo: info, continuation: Fixture.continuation)),
            at(-3.22, .payloadSent(Fixture.continuation, phone, activity, bytes: 2150, userInfo: info)),
            at(-3.19, .wasContinued(Fixture.continuation, phone, activity)),
        ]
    }

    static func device() -> DeviceSnapshot {
        var device = Fixture.device(lifecycle: Fixture.events())
        device.sharedLifecycle.add(laptopEntries(), droppedBy: "Laptop")
        return device
    }

    static func state(_ size: Size, _ cursor: TimelineCursor = TimelineCursor()) -> ScreenState {
        var state = Fixture.state(size: size)
        state.overlay = .timeline(cursor)
        return state
    }

    @Test func theModelHasALanePerDeviceAndTheArrowsInOrder() {
        let model = TimelineModel(snapshot: Self.device(), back: 0)
        #expect(model.lanes.map(\.name) == ["Laptop", "Phone"])
        #expect(model.continuation == Fixture.continuation.description)
        #expect(model.continuationCount == 1)
        #expect(model.arrows.map(\.label) == ["beacon #4", "payload request", "payload 2.1 kB", "was continued"])
        // Each arrow goes from one lane to the other.
        for arrow in model.arrows { #expect(model.rows[arrow.from].lane != model.rows[arrow.to].lane) }
        #expect(model.notes.isEmpty)
    }

    @Test func aPeerThatSharesNothingIsNamed() {
        let model = TimelineModel(snapshot: Fixture.device(lifecycle: Fixture.events()), back: 0)
        #expect(model.lanes.map(\.name) == ["Phone"])
        #expect(model.notes.first?.contains("Laptop shares no lifecycle with Phone") == true)
    }

    @Test func sharedEventsAreKeptOnceAndInTimeOrder() {
        var shared = SharedLifecycle()
        let entries = Self.laptopEntries()
        shared.add(Array(entries.suffix(2)))
        shared.add(entries)
        #expect(shared.entries.count == entries.count)
        #expect(shared.entries.map(\.time) == entries.map(\.time))
        shared.add([], droppedBy: "Laptop", dropped: 3)
        #expect(shared.dropped == ["Laptop": 3])
    }

    /// A same-account peer that greets with another device's name gets a lane of its own: lanes
    /// are kept by the identity a certificate names, not by the name a peer declares.
    @Test func aPeerGreetingWithAnotherDevicesNameNeverWritesIntoItsLane() throws {
        var shared = SharedLifecycle()
        shared.ownName = "Phone"
        let real = SharedLifecycle.Sender(id: "8d3e5c1a-0b6f-4e2a-9c7d-1f2e3a4b5c6d", name: "Laptop")
        let impostor = SharedLifecycle.Sender(id: "1f2e3a4b-0000-4e2a-9c7d-8d3e5c1a0b6f", name: "Laptop")
        shared.receive(Self.laptopEntries(), from: real, at: Fixture.now)
        shared.receive(
            [
                try #require(
                    Self.laptopEntries().first?.relabelled(device: "Laptop", time: Fixture.now.addingTimeInterval(-1)))
            ],
            from: impostor, at: Fixture.now)
        #expect(Set(shared.entries.map(\.device)) == ["Laptop", "Laptop · 1f2e3a4b"])
        #expect(shared.entries.filter { $0.device == "Laptop" }.count == Self.laptopEntries().count)
        // Nor may a peer take this device's own name.
        let mirror = SharedLifecycle.Sender(id: "aaaaaaaa-0000-4000-8000-000000000001", name: "Phone")
        #expect(shared.lane(for: mirror) == "Phone · aaaaaaaa")
    }

    /// Shared times are clamped to the receiving clock (never ahead of it, at most a day behind);
    /// an entry too large is counted as dropped; the kept entries stay within their bytes.
    @Test func sharedTimesAreClampedAndSizesBounded() throws {
        var shared = SharedLifecycle()
        let sender = SharedLifecycle.Sender(id: "8d3e5c1a-0b6f-4e2a-9c7d-1f2e3a4b5c6d", name: "Laptop")
        let entry = try #require(Self.laptopEntries().first)
        let future = try #require(
            entry.relabelled(device: "Laptop", time: Date(timeIntervalSinceReferenceDate: 250_000_000_000)))
        let ancient = try #require(
            entry.relabelled(device: "Laptop", time: Date(timeIntervalSinceReferenceDate: -63_000_000_000)))
        shared.receive([future, ancient], from: sender, at: Fixture.now)
        #expect(
            shared.entries.map(\.time).sorted() == [
                Fixture.now.addingTimeInterval(-SharedLifecycle.oldestShared), Fixture.now,
            ])

        var huge = try #require(
            LifecycleEntry(
                fields: entry.fields
                    + (0..<40).map {
                        LifecycleEntry.Field("padding\($0)", .string(String(repeating: "x", count: 4000)))
                    }))
        huge = try #require(huge.relabelled(device: "Laptop", time: Fixture.now))
        #expect(huge.approximateBytes > SharedLifecycle.maximumEntryBytes)
        shared.receive([huge], from: sender, at: Fixture.now)
        #expect(shared.dropped["Laptop"] == 1 && shared.entries.count == 2)

        var bounded = SharedLifecycle()
        bounded.byteCapacity = 20_000
        let many = (0..<400).compactMap {
            entry.relabelled(device: "Laptop", time: Fixture.now.addingTimeInterval(Double($0) / 1000 - 1))
        }
        bounded.receive(many, from: sender, at: Fixture.now)
        #expect(
            bounded.bytes <= bounded.byteCapacity
                && bounded.bytes == bounded.entries.reduce(0) { $0 + $1.approximateBytes })
        #expect(bounded.entries.last?.time == many.last?.time, "the newest are kept")
    }

    @Test func theKeysOpenMoveAndClose() {
        let device = Self.device()
        var state = Fixture.state()
        _ = state.update(.keyPressed(.function(9)), device: device)
        #expect(state.overlay == .timeline(TimelineCursor()))
        _ = state.update(.keyPressed(.up), device: device)
        let rows = TimelineModel(snapshot: device, back: 0).rows.count
        #expect(state.overlay == .timeline(TimelineCursor(back: 0, selection: rows - 2)))
        _ = state.update(.keyPressed(.home), device: device)
        #expect(state.overlay == .timeline(TimelineCursor(back: 0, selection: 0)))
        _ = state.update(.keyPressed(.end), device: device)
        #expect(state.overlay == .timeline(TimelineCursor(back: 0, selection: nil)))
        _ = state.update(.keyPressed(.escape), device: device)
        #expect(state.overlay == nil)
        // t outside apps, like l for the log.
        _ = state.update(.keyPressed(.character("t")), device: device)
        #expect(state.overlay == .timeline(TimelineCursor()))
        _ = state.update(.keyPressed(.character("t")), device: device)
        #expect(state.overlay == nil)
    }

    @Test func inAnAppTGoesToTheAppAndF9OpensTheTimeline() {
        let device = Self.device()
        var state = Fixture.state()
        state.foregroundApp = Fixture.notes.bundleIdentifier
        #expect(state.update(.keyPressed(.character("t")), device: device) == [.sendKeyToApp(.character("t"))])
        #expect(state.overlay == nil)
        #expect(state.update(.keyPressed(.function(9)), device: device).isEmpty)
        #expect(state.overlay == .timeline(TimelineCursor()))
        // ← goes to the previous continuation only when there is one.
        _ = state.update(.keyPressed(.left), device: device)
        #expect(state.overlay == .timeline(TimelineCursor(back: 0)))
    }

    @Test func at80x24TheDetailIsBelowTheDiagram() {
        // The payload's arrival on the phone, selected.
        let model = TimelineModel(snapshot: Self.device(), back: 0)
        let selected = model.rows.firstIndex { $0.entry.kind == .payloadReceived }
        let grid = Fixture.render(
            Self.state(Size(width: 80, height: 24), TimelineCursor(selection: selected)), Self.device())
        assertSnapshot(grid, named: "timeline-80x24", styles: meaningLegend)
        let text = grid.text()
        #expect(text.contains("│Laptop") && text.contains("│Phone (here)"))
        #expect(text.contains("payload request") && text.contains("was continued"))
    }

    /// A phone in half an 80x24 terminal: more lines than fit, so the names' row also says which
    /// show; the last lane's name gives way to it instead of being overwritten.
    @Test func inANarrowPaneWhichLinesShowNeverCoversALaneName() throws {
        let grid = Fixture.render(Self.state(Size(width: 40, height: 24)), Self.device())
        let header = try #require(grid.text().split(separator: "\n").first { $0.contains("│Laptop") })
        let position = try #require(header.split(separator: " ").last)
        #expect(position.contains("/") && position.contains("–"), "\(header)")
        // "Phone (here)" shortened to fit, then a space, then the position.
        #expect(header.contains("│Phone… \(position)"), "\(header)")
    }

    @Test func wideTerminalsShowTheDetailBeside() {
        let model = TimelineModel(snapshot: Self.device(), back: 0)
        let selected = model.rows.firstIndex { $0.entry.kind == .payloadSent }
        let grid = Fixture.render(
            Self.state(Size(width: 120, height: 40), TimelineCursor(selection: selected)), Self.device())
        assertSnapshot(grid, named: "timeline-120x40")
        #expect(grid.text().contains("userInfo (1 key)"))
    }

    /// A detail longer than its area at 80x24 (a userInfo of 20 keys) pages with Space, and a new
    /// selection starts at its top.
    @Test func aLongDetailPagesWithSpace() {
        var device = Fixture.device(lifecycle: Fixture.events())
        var info: UserInfoSnapshot = [:]
        for index in 0..<20 { info["key\(index)"] = .integer(Int64(index)) }
        let activity = ActivityReference(
            id: UUID(uuidString: "00000000-0000-4000-8000-0000000000AA")!, activityType: Fixture.notesType,
            title: "Page 3", bundleIdentifier: "com.example.notes")
        device.sharedLifecycle.add([
            LifecycleEntry(
                LifecycleEvent(
                    time: Fixture.now.addingTimeInterval(-3.22), device: "Laptop",
                    .payloadSent(
                        Fixture.continuation, PeerReference(id: "phone", name: "Phone"), activity, bytes: 2150,
                        userInfo: info)))
        ])
        let model = TimelineModel(snapshot: device, back: 0)
        let selected = model.rows.firstIndex { $0.entry.kind == .payloadSent }
        var state = Self.state(Size(width: 80, height: 24), TimelineCursor(selection: selected))
        let first = Fixture.render(state, device).text()
        #expect(first.contains("Space: more (1 of "), "\(first)")
        #expect(!first.contains("key9: 9"))
        var seen = first
        for _ in 0..<4 {
            _ = state.update(.keyPressed(.character(" ")), device: device)
            seen += Fixture.render(state, device).text()
        }
        for index in 0..<20 { #expect(seen.contains("key\(index): \(index)"), "key\(index)") }
        #expect(seen.contains("Space: from the top"))
        // Another event starts at the top of its detail.
        _ = state.update(.keyPressed(.up), device: device)
        guard case .timeline(let cursor) = state.overlay else {
            Issue.record("the timeline closed")
            return
        }
        #expect(cursor.detailPage == 0)
    }

    @Test func beforeAnyContinuationTheLatestEventsShow() {
        let grid = Fixture.render(Self.state(Size(width: 80, height: 24)), Fixture.device())
        #expect(grid.text().contains("no continuation yet"))
        #expect(grid.text().contains("No lifecycle events yet."))
    }
}
