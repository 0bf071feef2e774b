import Foundation
import HandoffCore

/// What the timeline view (F9) shows, computed from a ``DeviceSnapshot``: one continuation (or,
/// before any, the latest events) on one lane per device, with the arrows between lanes for what
/// crossed the network. Pure; the layout and the pairing are HandoffCore's ``TimelineLayout``,
/// the same as `handoff timeline`'s.
package struct TimelineModel: Sendable {
    package struct Lane: Sendable, Hashable {
        package var name: String
        package var isThisDevice: Bool
    }

    package struct Row: Sendable, Hashable {
        package var lane: Int
        package var entry: LifecycleEntry
    }

    package var lanes: [Lane]
    /// The events, oldest first.
    package var rows: [Row]
    package var arrows: [TimelineArrow]
    /// Messages sent to a drawn lane that recorded no receipt.
    package var lost: [TimelineLostMessage]
    /// The continuation shown (lower-case UUID text), nil before the first.
    package var continuation: String?
    /// How many continuations there are, and which one is shown (1: the oldest).
    package var continuationCount: Int
    package var position: Int
    /// Peers whose events are missing: named when a continuation's peer shared nothing, or left
    /// events out over its rate limit.
    package var notes: [String]

    /// Events shown before the first continuation.
    static let recentCount = 40
    /// Beacon events looked at for the offer a continuation was chosen from.
    static let beaconLookBack = 24

    /// The timeline of the continuation `back` steps before the newest (0: the newest).
    package init(snapshot: DeviceSnapshot, back: Int) {
        let device = snapshot.info.name
        let local = snapshot.lifecycle
        let shared = snapshot.sharedLifecycle.entries
        // Every continuation either side took part in, in time order (by identifier: no text
        // is made for the thousands of events a long session has).
        var found: [(time: Date, id: UUID)] = []
        var known: Set<UUID> = []
        for event in local where event.kind == .continueChosen || event.kind == .payloadRequested {
            if let id = event.continuation?.rawValue, known.insert(id).inserted { found.append((event.time, id)) }
        }
        for entry in shared where entry.kind == .continueChosen || entry.kind == .payloadRequested {
            if let id = entry.continuation.flatMap(UUID.init(uuidString:)), known.insert(id).inserted {
                found.append((entry.time, id))
            }
        }
        found.sort { $0.time < $1.time }
        continuationCount = found.count
        var entries: [LifecycleEntry]
        if found.isEmpty {
            continuation = nil
            position = 0
            entries = local.suffix(Self.recentCount).map(LifecycleEntry.init) + shared.suffix(Self.recentCount)
        } else {
            let index = max(0, found.count - 1 - max(0, back))
            let uuid = found[index].id
            let id = ContinuationID(rawValue: uuid).description
            continuation = id
            position = index + 1
            let mine = local.filter { $0.continuation?.rawValue == uuid }
            let theirs = shared.filter { $0.continuation == id }
            let start = min(mine.first?.time ?? .distantFuture, theirs.first?.time ?? .distantFuture)
            let isBeacon: (LifecycleEvent.Kind?) -> Bool = {
                $0 == .advertised || $0 == .offerReceived || $0 == .offerUpdated
            }
            let beacons = local.lazy.filter { isBeacon($0.kind) && $0.time <= start }.suffix(Self.beaconLookBack).map(
                LifecycleEntry.init)
            let sharedBeacons = shared.lazy.filter { isBeacon($0.kind) && $0.time <= start }.suffix(Self.beaconLookBack)
            entries = beacons + mine.map(LifecycleEntry.init) + sharedBeacons + theirs
        }
        // One lane per device, this device's first when it has no event yet.
        var names: [String] = []
        for entry in entries.sorted(by: { $0.time < $1.time }) where !names.contains(entry.device) {
            names.append(entry.device)
        }
        if !names.contains(device) { names.insert(device, at: 0) }
        var laneEvents = names.map { _ in [LifecycleEntry]() }
        for entry in entries { laneEvents[names.firstIndex(of: entry.device)!].append(entry) }
        var layout = TimelineLayout.rows(laneEvents.map { $0.sorted { $0.time < $1.time } })
        if let continuation { layout = TimelineLayout.rows(layout, ofContinuation: continuation) }
        lanes = names.map { Lane(name: $0, isThisDevice: $0 == device) }
        rows = layout.map { Row(lane: $0.lane, entry: $0.event) }
        arrows = TimelineLayout.arrows(layout)
        lost = TimelineLayout.lost(layout)
        var notes: [String] = []
        let peers = Set(rows.compactMap(\.entry.peer)).subtracting(names).sorted()
        for peer in peers {
            notes.append("\(peer) shares no lifecycle with \(device): start it with --share-lifecycle to see its lane")
        }
        for (peer, count) in snapshot.sharedLifecycle.dropped.sorted(by: { $0.key < $1.key }) {
            notes.append("\(peer) left out \(count) event\(count == 1 ? "" : "s") over its sharing limit")
        }
        self.notes = notes
    }

    /// The arrows that leave or reach row `index`.
    package func arrows(touching index: Int) -> [TimelineArrow] {
        arrows.filter { $0.from == index || $0.to == index }
    }
}

extension TimelineModel {
    /// The detail panel's value for row `index`: the event, its time since the continuation's
    /// first event, and what it received and sent across the network, each with the event it
    /// paired with on the other lane.
    package func detail(of index: Int) -> TimelineEventDetail {
        let row = rows[index]
        var offset: String?
        if row.entry.continuation != nil, let first = rows.first(where: { $0.entry.continuation != nil }),
            first != row
        {
            offset = "\(Self.offset(row.entry.time.timeIntervalSince(first.entry.time))) after \(first.entry.kindName)"
        }
        let touching = arrows(touching: index)
        let received = touching.filter { $0.to == index }.map { arrow in
            let other = rows[arrow.from]
            return TimelineEventDetail.Message(
                .received, label: arrow.label, device: lanes[other.lane].name, pairedKind: other.entry.kindName)
        }
        let sent = touching.filter { $0.from == index }.map { arrow in
            let other = rows[arrow.to]
            return TimelineEventDetail.Message(
                .sent, label: arrow.label, device: lanes[other.lane].name, pairedKind: other.entry.kindName)
        }
        let unreceived = self.lost.filter { $0.from == index && $0.toLane < lanes.count }.map {
            TimelineEventDetail.Message(.lost, label: $0.label, device: lanes[$0.toLane].name)
        }
        return TimelineEventDetail(entry: row.entry, offset: offset, messages: received + sent + unreceived)
    }

    /// "+0.042s": the time since the continuation's first event ("-11s" before it).
    static func offset(_ seconds: TimeInterval) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let milliseconds = Int((abs(seconds) * 1000).rounded())
        if milliseconds < 10_000 {
            let fraction = milliseconds % 1000
            return "\(sign)\(milliseconds / 1000).\(fraction < 10 ? "00" : fraction < 100 ? "0" : "")\(fraction)s"
        }
        return "\(sign)\(milliseconds / 1000)s"
    }
}
