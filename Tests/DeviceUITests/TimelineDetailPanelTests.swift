import Foundation
import HandoffCore
import TerminalCells
import Testing

@testable import DeviceUI

/// The timeline's detail panel, the one of F9 and of `handoff timeline`'s replay: what it shows of
/// an event, whole, at 80x24 (below the lanes) and 120x40 (beside them).
@Suite("Timeline detail panel")
struct TimelineDetailPanelTests {
    static let reason = "no payload from Laptop within 2 s: the origin did not answer the payload request"

    /// The phone's 4610 after a request the laptop never answered, on the phone's F9.
    static func failedDevice() -> DeviceSnapshot {
        var events = Array(Fixture.events().prefix(4))
        events.append(
            LifecycleEvent(
                time: Fixture.now.addingTimeInterval(-1.25), device: "Phone",
                .continuationFailed(
                    Fixture.continuation, Fixture.laptopPeer, bundleIdentifier: "com.example.notes",
                    activityType: Fixture.notesType, HandoffError(.remoteApplicationTimedOut, reason))))
        var device = Fixture.device(lifecycle: events)
        let laptop = TimelineViewTests.laptopEntries()
        device.sharedLifecycle.add(Array(laptop.prefix(2)), droppedBy: "Laptop")
        return device
    }

    static func failedState(_ size: Size) -> (ScreenState, DeviceSnapshot) {
        let device = failedDevice()
        let model = TimelineModel(snapshot: device, back: 0)
        let selected = model.rows.firstIndex { $0.entry.kind == .continuationFailed }
        return (TimelineViewTests.state(size, TimelineCursor(selection: selected)), device)
    }

    /// Every word of `text`, in order, on the lines of the panel (wrapped, never cut).
    static func showsWhole(_ text: String, in lines: [String]) -> Bool {
        let words = lines.joined(separator: " ").split(separator: " ")
        let wanted = text.split(separator: " ")
        guard let start = words.firstIndex(of: wanted[0]) else { return false }
        return Array(words[start...].prefix(wanted.count)) == wanted
    }

    @Test func theFailureIsWholeAt80x24() throws {
        let (state, device) = Self.failedState(Size(width: 80, height: 24))
        let grid = Fixture.render(state, device)
        assertSnapshot(grid, named: "timeline-failure-80x24", styles: meaningLegend)
        let text = grid.text()
        #expect(text.contains("continuationFailed on Phone"))
        #expect(text.contains("4610 NSUserActivityRemoteApplicationTimedOutError"))
        #expect(text.contains("continuation 5ec0a11d-0000-4000-8000-000000000001"))
        // The panel is below the lanes: its lines are the rows under the rule.
        let rows = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let rule = try #require(rows.lastIndex { $0.contains("║────") })
        let panel = rows[(rule + 1)...].map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "║ ")) }
        #expect(Self.showsWhole(Self.reason, in: panel), "\(panel)")
        #expect(!panel.contains { $0.contains("…") && !$0.contains("Space: more") }, "nothing cut: \(panel)")
    }

    @Test func theFailureIsBesideTheLanesAt120x40() {
        let (state, device) = Self.failedState(Size(width: 120, height: 40))
        let grid = Fixture.render(state, device)
        assertSnapshot(grid, named: "timeline-failure-120x40", styles: meaningLegend)
        // The panel's column: right of its rule, on every row.
        let panel = grid.text().split(separator: "\n").compactMap { line -> String? in
            let cells = Array(line)
            guard cells.count == 120, cells[72] == "│" else { return nil }
            return String(cells[73..<119]).trimmingCharacters(in: .whitespaces)
        }
        #expect(panel.first == "continuationFailed on Phone", "\(panel)")
        // The constant's name is longer than the panel is wide: broken at a capital, whole.
        #expect(panel.joined().contains("4610NSUserActivityRemoteApplicationTimedOutError"), "\(panel)")
        #expect(Self.showsWhole(Self.reason, in: panel), "\(panel)")
        #expect(panel.contains { $0.contains("← payload request") } == false, "the phone sent the request")
        #expect(!panel.contains { $0.contains("more (") }, "the whole detail fits at 120x40: \(panel)")
    }

    /// The panel's lines for one event: the kind and the device, the time and the continuation,
    /// the error, what crossed the network and what it paired with, the userInfo, the rest.
    @Test func theDetailHoldsWhatAUserNeeds() throws {
        let model = TimelineModel(snapshot: TimelineViewTests.device(), back: 0)
        let index = try #require(model.rows.firstIndex { $0.entry.kind == .payloadReceived })
        let detail = model.detail(of: index)
        #expect(detail.kindName == "payloadReceived" && detail.device == "Phone")
        #expect(detail.time.hasSuffix(" UTC") && detail.time.contains(":"))
        #expect(detail.offset == "+0.050s after continueChosen")
        #expect(detail.continuation == Fixture.continuation.description)
        #expect(detail.facts == ["2.1 kB", "48 ms"])
        #expect(detail.failure == nil)
        #expect(detail.messages.map(\.text) == ["← payload 2.1 kB from Laptop (payloadSent)"])
        #expect(detail.userInfo == [TimelineEventDetail.Field("page", "3")])
        #expect(detail.fields.contains(TimelineEventDetail.Field("activityType", Fixture.notesType)))
        let lines = TimelineDetailPanel(detail: detail, moreKey: "Space", isBeside: false).lines(width: 60).map(\.text)
        #expect(lines.first == "payloadReceived on Phone")
        #expect(lines.contains("← payload 2.1 kB from Laptop (payloadSent)"))
        #expect(lines.contains("  page: 3"))
        #expect(lines.allSatisfy { TextWidth.of($0) <= 60 })

        // The laptop's send: where it went and the event it paired with; a message lost.
        let sent = try #require(model.rows.firstIndex { $0.entry.kind == .payloadSent })
        #expect(model.detail(of: sent).messages.map(\.text) == ["→ payload 2.1 kB to Phone (payloadReceived)"])
    }

    /// The error's summary is not said twice: the panel has it on lines of its own.
    @Test func theErrorIsSaidOnce() throws {
        let model = TimelineModel(snapshot: Self.failedDevice(), back: 0)
        let index = try #require(model.rows.firstIndex { $0.entry.kind == .continuationFailed })
        let detail = model.detail(of: index)
        #expect(
            detail.failure
                == TimelineEventDetail.Failure(
                    code: 4610, name: "NSUserActivityRemoteApplicationTimedOutError", reason: Self.reason))
        #expect(detail.summary == "from Laptop")
        #expect(!detail.fields.contains { $0.key == "reason" })
    }

    /// What a peer or a recording says is drawn with its control characters as code points.
    @Test func hostileTextIsShownNotObeyed() throws {
        let entry = try #require(
            LifecycleEntry(fields: [
                .init("time", .string("2026-11-24T06:44:57.600Z")), .init("device", .string("Lap\u{1b}[2Jtop")),
                .init("kind", .string("continuationFailed")), .init("errorCode", .integer(4610)),
                .init("error", .string("NSUserActivityRemoteApplicationTimedOutError")),
                .init("reason", .string("gone\u{1b}]0;owned\u{7}")), .init("note", .string("a\nb")),
            ]))
        let detail = TimelineEventDetail(entry: entry, messages: [.init(.lost, label: "beacon\u{9b}#5", device: "X")])
        let text = TimelineDetailPanel(detail: detail, moreKey: "d", isBeside: true).lines(width: 40).map(\.text)
            .joined(separator: "\n")
        #expect(!text.unicodeScalars.contains { $0.value == 0x1b || $0.value == 0x07 || $0.value == 0x9b })
        #expect(text.contains("Lap\\u{1b}[2Jtop") && text.contains("note: a\\u{a}b"))
        #expect(text.contains("06:44:57.600 UTC"))
    }

    /// A detail longer than its area shows a page at a time; the last row names the key.
    @Test func aLongDetailShowsAPageAtATimeNamingItsKey() {
        var info: UserInfoSnapshot = [:]
        for index in 0..<12 { info["key\(index)"] = .integer(Int64(index)) }
        let event = LifecycleEvent(
            time: Fixture.now, device: "Laptop",
            .payloadSent(
                Fixture.continuation, PeerReference(id: "phone", name: "Phone"), Self.activity, bytes: 9000,
                userInfo: info))
        let detail = TimelineEventDetail(entry: LifecycleEntry(event), messages: [])
        var seen = ""
        for page in 0..<4 {
            var grid = Grid(size: Size(width: 50, height: 9))
            TimelineDetailPanel(detail: detail, page: page, moreKey: "d", isBeside: false).render(
                in: Rect(x: 0, y: 0, width: 50, height: 9), into: &grid)
            let text = grid.text()
            if page == 0 { #expect(text.contains("… d: more (1 of ")) }
            seen += text
        }
        for index in 0..<12 { #expect(seen.contains("key\(index): \(index)"), "key\(index)") }
        #expect(seen.contains("d: from the top"))
        #expect(TimelineDetailPanel.pages(lines: 5, height: 9, page: 3) == (1, 0))
        #expect(TimelineDetailPanel.pages(lines: 20, height: 9, page: 3) == (3, 0))
    }

    static let activity = ActivityReference(
        id: UUID(uuidString: "00000000-0000-4000-8000-0000000000AA")!, activityType: Fixture.notesType,
        title: "Page 3", bundleIdentifier: "com.example.notes")
}
