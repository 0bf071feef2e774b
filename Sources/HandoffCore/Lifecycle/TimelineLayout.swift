import Foundation

/// What the timeline needs of an event, whoever recorded it: a recording's line
/// (`handoff timeline`) or a ``LifecycleEntry`` on the device's screen.
public protocol TimelineEvent {
    var time: Date { get }
    /// The device's name (its lane).
    var device: String { get }
    /// Nil for a kind this build does not know.
    var timelineKind: LifecycleEvent.Kind? { get }
    var continuation: String? { get }
    var peer: String? { get }
    func string(_ key: String) -> String?
    func integer(_ key: String) -> Int64?
}

extension LifecycleEntry {
    public var timelineKind: LifecycleEvent.Kind? { kind }
}

/// Something that crossed the network: from one row of a timeline to another.
public struct TimelineArrow: Sendable, Hashable {
    public var from: Int
    public var to: Int
    public var label: String

    public init(from: Int, to: Int, label: String) {
        self.from = from
        self.to = to
        self.label = label
    }
}

/// The pure layout of several devices' lifecycles on one time axis, shared by `handoff timeline`
/// and the device's timeline view: rows in time order, a continuation's rows, and the arrows for
/// what crosses the network, paired by what both ends record (the beacon by device, serial and
/// type hash; everything of a continuation by its identifier).
public enum TimelineLayout {
    /// Every event of every lane (`lanes[i]` is lane i's events, oldest first), in one time order:
    /// by time, then lane, then the order recorded.
    public static func rows<Event: TimelineEvent>(_ lanes: [[Event]]) -> [(lane: Int, event: Event)] {
        var rows: [(lane: Int, event: Event)] = []
        for (lane, events) in lanes.enumerated() { rows += events.map { (lane, $0) } }
        return rows.enumerated().sorted { a, b in
            (a.element.event.time, a.element.lane, a.offset) < (b.element.event.time, b.element.lane, b.offset)
        }.map(\.element)
    }

    /// The rows of one continuation (by identifier or its prefix) and the beacon that made its offer.
    public static func rows<Event: TimelineEvent>(
        _ rows: [(lane: Int, event: Event)], ofContinuation continuation: String
    )
        -> [(lane: Int, event: Event)]
    {
        let wanted = continuation.lowercased()
        let beacons = beaconsOffered(in: rows, for: wanted)
        return rows.filter { row in
            row.event.continuation?.hasPrefix(wanted) == true || beaconKey(row.event).map(beacons.contains) == true
        }
    }

    /// The beacon of an `advertised` event (origin side) or of an offer (receiving side).
    public static func beaconKey(_ event: some TimelineEvent) -> String? {
        guard let serial = event.integer("serial"), let hash = event.string("typeHash") else { return nil }
        switch event.timelineKind {
        case .advertised: return "\(event.device)|\(serial)|\(hash)"
        case .offerReceived, .offerUpdated: return event.peer.map { "\($0)|\(serial)|\(hash)" }
        default: return nil
        }
    }

    /// The beacons whose offer a continuation was chosen from.
    static func beaconsOffered<Event: TimelineEvent>(
        in rows: [(lane: Int, event: Event)], for continuation: String
    ) -> Set<String> {
        var result: Set<String> = []
        for (index, row) in rows.enumerated()
        where row.event.timelineKind == .continueChosen && row.event.continuation?.hasPrefix(continuation) == true {
            // The last offer from that peer before the choice.
            if let offer = rows[..<index].last(where: {
                $0.lane == row.lane
                    && ($0.event.timelineKind == .offerReceived || $0.event.timelineKind == .offerUpdated)
                    && $0.event.peer == row.event.peer
            }), let key = beaconKey(offer.event) {
                result.insert(key)
            }
        }
        return result
    }

    /// Where a lab fault struck a payload request on arrival (no-answer, origin-leaves): the
    /// origin records the fault instead of `payloadRequested`, but the request did arrive there.
    static func requestStruck<Event: TimelineEvent>(
        _ continuation: String, from lane: Int,
        in rows: [(lane: Int, event: Event)]
    ) -> Int? {
        rows.firstIndex {
            $0.lane != lane && $0.event.timelineKind == .faultInjected && $0.event.continuation == continuation
                && $0.event.string("fault").flatMap(Fault.init(rawValue:))?.strikesOnPayloadRequest == true
        }
    }

    /// The arrows between `rows` (indices into them), in order of their sending row.
    public static func arrows<Event: TimelineEvent>(_ rows: [(lane: Int, event: Event)]) -> [TimelineArrow] {
        var arrows: [TimelineArrow] = []
        // The beacon: the advertised event to the first offer on each other lane.
        for (index, row) in rows.enumerated() where row.event.timelineKind == .advertised {
            guard let key = beaconKey(row.event) else { continue }
            var seen: Set<Int> = []
            for (other, candidate) in rows.enumerated()
            where candidate.lane != row.lane && !seen.contains(candidate.lane)
                && (candidate.event.timelineKind == .offerReceived || candidate.event.timelineKind == .offerUpdated)
                && beaconKey(candidate.event) == key
            {
                seen.insert(candidate.lane)
                arrows.append(
                    TimelineArrow(from: index, to: other, label: "beacon #\(row.event.integer("serial") ?? 0)"))
            }
        }
        // A continuation's messages: (from kind, to kind, label), matched by identifier.
        let pairs: [(LifecycleEvent.Kind, LifecycleEvent.Kind, (Event) -> String)] = [
            (.fetchStarted, .payloadRequested, { _ in "payload request" }),
            (
                .payloadSent, .payloadReceived,
                { event in "payload" + (event.integer("size").map { " \(ByteCount.text(Int($0)))" } ?? "") }
            ),
            (
                .payloadRefused, .continuationFailed,
                { event in "refused" + (event.integer("errorCode").map { " \($0)" } ?? "") }
            ),
            (.continued, .wasContinued, { _ in "was continued" }),
        ]
        for (fromKind, toKind, label) in pairs {
            for (index, row) in rows.enumerated() where row.event.timelineKind == fromKind {
                guard let id = row.event.continuation,
                    let target = rows.firstIndex(where: {
                        $0.lane != row.lane && $0.event.timelineKind == toKind && $0.event.continuation == id
                    }) ?? (fromKind == .fetchStarted ? requestStruck(id, from: row.lane, in: rows) : nil)
                else { continue }
                arrows.append(TimelineArrow(from: index, to: target, label: label(row.event)))
            }
        }
        // Streams: the continuing side opens them, the origin's delegate receives its end.
        for (index, row) in rows.enumerated()
        where row.event.timelineKind == .streamsOpened && row.event.string("side") == "continuing" {
            guard let id = row.event.continuation,
                let target = rows.firstIndex(where: {
                    $0.lane != row.lane && $0.event.timelineKind == .streamsOpened
                        && $0.event.string("side") == "origin"
                        && $0.event.continuation == id
                })
            else { continue }
            arrows.append(TimelineArrow(from: index, to: target, label: "streams"))
        }
        return arrows.sorted { ($0.from, $0.to) < ($1.from, $1.to) }
    }
}
