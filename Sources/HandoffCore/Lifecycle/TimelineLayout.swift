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

/// Something that crossed the network: from one row of a timeline to another (always a later
/// row: a timeline's order puts every send before its receipt).
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

/// Something sent whose receipt no lane recorded, though the lane it was sent to is drawn: a
/// beacon nobody heard, a payload request nobody answered, a payload that never arrived.
public struct TimelineLostMessage: Sendable, Hashable {
    /// The row that sent it.
    public var from: Int
    /// The lane it was sent to.
    public var toLane: Int
    public var label: String

    public init(from: Int, toLane: Int, label: String) {
        self.from = from
        self.toLane = toLane
        self.label = label
    }
}

/// How a timeline shows a kind of event, wherever it draws it (the terminal's lanes, the SVG, the
/// trace): one table.
public enum TimelineTone: String, Sendable, Hashable, CaseIterable {
    /// A failure.
    case error
    /// What went wrong without failing, and the lab's faults and pauses.
    case warning
    /// The continuation's success.
    case success
    case normal

    public init(_ kind: LifecycleEvent.Kind?) {
        switch kind {
        case .continuationFailed, .payloadRefused, .systemShowedError, .streamsRefused, .sceneDidFailToContinue:
            self = .error
        case .notHandled, .saveSkipped, .payloadSizeWarning, .choiceIgnored, .latePayloadIgnored, .faultInjected,
            .stepPaused:
            self = .warning
        case .continued, .wasContinued: self = .success
        default: self = .normal
        }
    }
}

/// The pure layout of several devices' lifecycles on one time axis, shared by `handoff timeline`
/// and the device's timeline view: rows in causal order, a continuation's rows, and the messages
/// that crossed the network, paired by what both ends record (the beacon by device, serial and
/// type hash and the time; everything of a continuation by its identifier and the message's kind).
public enum TimelineLayout {
    /// One message between two rows of a list: its send and, when one was recorded, its receipt.
    public struct Message: Sendable, Hashable {
        public var from: Int
        /// Nil: lost (no receipt recorded on ``toLane``).
        public var to: Int?
        public var toLane: Int
        public var label: String

        @usableFromInline
        init(from: Int, to: Int?, toLane: Int, label: String) {
            self.from = from
            self.to = to
            self.toLane = toLane
            self.label = label
        }
    }

    /// How far a receipt's clock may run behind its sender's and still pair with that beacon (a
    /// device re-advertises a changed activity no sooner than a second later).
    public static let beaconSkew: TimeInterval = 0.25

    /// Every event of every lane (`lanes[i]` is lane i's events, oldest first), in one order that
    /// follows causality before the clocks: each lane keeps its own order, every send comes before
    /// its receipt (whatever the two clocks say: a tie, or a receiver whose clock runs behind), and
    /// otherwise earlier times come first. Only events neither of which can have caused the other
    /// are ordered by lane, when their times are equal.
    public static func rows<Event: TimelineEvent>(_ lanes: [[Event]]) -> [(lane: Int, event: Event)] {
        rows(lanes, among: nil)
    }

    /// ``rows(_:)`` of a window of a longer timeline (`handoff timeline`'s streaming merge):
    /// `whole` says which lanes and devices the whole timeline has, and which events of the window
    /// were already received by a send before it (they wait for nothing and pair with nothing else).
    @inlinable
    public static func rows<Event: TimelineEvent>(
        _ lanes: [[Event]], among whole: WindowContext<Event>?
    ) -> [(lane: Int, event: Event)] {
        let (flat, order, _) = causalOrder(lanes, among: whole)
        return order.map { flat[$0] }
    }

    /// ``rows(_:among:)`` of a window and ``messages(_:among:)`` of those rows, from one pairing
    /// when the window has events of two lanes or fewer (`handoff timeline`'s streaming merge
    /// lays out every window of a million events).
    ///
    /// The rows are ordered by the messages of the lanes' events one lane after the other; the
    /// messages of the rows in their order are the same messages, but for which of two senders
    /// on different lanes pairs first with a receipt both could pair with, or with ties between
    /// two lanes' advertisements of one beacon. With two lanes, every message goes from one lane
    /// to the other, so each lane's receipts are paired by the other lane's sends in that lane's
    /// own order, which both orders keep: the messages are those of the first pairing, numbered
    /// by the rows. With three lanes or more, the rows are paired again.
    @inlinable
    public static func rowsAndMessages<Event: TimelineEvent>(
        _ lanes: [[Event]], among whole: WindowContext<Event>
    ) -> (rows: [(lane: Int, event: Event)], messages: [Message]) {
        let (flat, order, flatMessages) = causalOrder(lanes, among: whole)
        let rows = order.map { flat[$0] }
        guard lanes.filter({ !$0.isEmpty }).count <= 2 else { return (rows, messages(rows, among: whole)) }
        var rowOf = [Int](repeating: 0, count: flat.count)
        for (row, index) in order.enumerated() { rowOf[index] = row }
        let messages = flatMessages.map { message in
            Message(
                from: rowOf[message.from], to: message.to.map { rowOf[$0] }, toLane: message.toLane,
                label: message.label)
        }
        return (rows, messages.sorted { ($0.from, $0.to ?? Int.max) < ($1.from, $1.to ?? Int.max) })
    }

    /// The lanes' events one lane after the other, the order of them that ``rows(_:among:)``
    /// gives (indices into the first), and their messages (indices into the first too).
    @inlinable
    static func causalOrder<Event: TimelineEvent>(
        _ lanes: [[Event]], among whole: WindowContext<Event>?
    ) -> (flat: [(lane: Int, event: Event)], order: [Int], messages: [Message]) {
        var flat: [(lane: Int, event: Event)] = []
        flat.reserveCapacity(lanes.reduce(0) { $0 + $1.count })
        var start: [Int] = []
        for lane in lanes.indices {
            start.append(flat.count)
            for index in lanes[lane].indices { flat.append((lane, lanes[lane][index])) }
        }
        // What each row waits for: the sends of the messages it received, counted (a row is
        // ready when none is left), and where each row's own messages start (they are in the
        // order of their sends).
        let flatMessages = messages(flat, among: whole)
        var waiting = [Int](repeating: 0, count: flat.count)
        var sentFrom = [Int](repeating: flatMessages.count, count: flat.count + 1)
        for (index, message) in flatMessages.enumerated().reversed() {
            if let to = message.to { waiting[to] += 1 }
            sentFrom[message.from] = index
        }
        for index in stride(from: flat.count - 1, through: 0, by: -1) {
            sentFrom[index] = min(sentFrom[index], sentFrom[index + 1])
        }
        var next = start.indices.map { start[$0] }
        let end = lanes.indices.map { start[$0] + lanes[$0].count }
        var order: [Int] = []
        order.reserveCapacity(flat.count)
        while order.count < flat.count {
            var best: Int?
            var fallback: Int?
            for lane in lanes.indices where next[lane] < end[lane] {
                let head = next[lane]
                let earlier: (Int?) -> Bool = { other in
                    guard let other else { return true }
                    return flat[head].event.time < flat[other].event.time
                }
                if earlier(fallback) { fallback = head }
                guard waiting[head] == 0 else { continue }
                if earlier(best) { best = head }
            }
            // A cycle (only a hostile recording makes one): the earliest head goes first.
            guard let chosen = best ?? fallback else { break }
            for message in flatMessages[sentFrom[chosen]..<sentFrom[chosen + 1]] {
                if let to = message.to { waiting[to] -= 1 }
            }
            order.append(chosen)
            next[flat[chosen].lane] += 1
        }
        return (flat, order, flatMessages)
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

    /// A message a continuation's send makes: the kinds of its receipt, first the one looked for
    /// first, and its label.
    @usableFromInline
    static func receipts(of event: some TimelineEvent) -> (kinds: [LifecycleEvent.Kind], label: String)? {
        switch event.timelineKind {
        case .fetchStarted: return ([.payloadRequested, .faultInjected], "payload request")
        case .payloadSent:
            return (
                [.payloadReceived, .latePayloadIgnored],
                "payload" + (event.integer("size").map { " \(ByteCount.text(Int($0)))" } ?? "")
            )
        case .payloadRefused:
            return ([.continuationFailed], "refused" + (event.integer("errorCode").map { " \($0)" } ?? ""))
        case .continued: return ([.wasContinued], "was continued")
        case .streamsOpened where event.string("side") == "continuing": return ([.streamsOpened], "streams")
        default: return nil
        }
    }

    /// Whether `candidate` is a receipt of kind `kind` for `send` (same continuation).
    @usableFromInline
    static func receives(
        _ candidate: some TimelineEvent, kind: LifecycleEvent.Kind, from send: some TimelineEvent
    )
        -> Bool
    {
        guard candidate.timelineKind == kind, let id = send.continuation, candidate.continuation == id else {
            return false
        }
        switch kind {
        // The request was struck on arrival (no-answer, origin-leaves): the origin records the
        // fault instead of `payloadRequested`, but the request did arrive there.
        case .faultInjected:
            return candidate.string("fault").flatMap(Fault.init(rawValue:))?.strikesOnPayloadRequest == true
        case .streamsOpened: return candidate.string("side") == "origin"
        default: return true
        }
    }

    /// Every message sent by a row of `rows` (in any order that keeps each lane's own order), with
    /// its receipt when one was recorded, in the order of the rows that sent them. A lane that is
    /// not drawn loses nothing: a send to a device without a lane has no message.
    public static func messages<Event: TimelineEvent>(_ rows: [(lane: Int, event: Event)]) -> [Message] {
        messages(rows, among: nil)
    }

    /// What a window of a longer timeline needs to know of the whole of it, so that its messages are
    /// the whole timeline's: every lane that has events, the lane of each device, and the events of
    /// the window whose send came before the window (already paired: they pair with nothing else).
    public struct WindowContext<Event: TimelineEvent> {
        public var lanes: Set<Int>
        public var laneOfDevice: [String: Int]
        public var isReceived: (Event) -> Bool

        public init(lanes: Set<Int>, laneOfDevice: [String: Int], isReceived: @escaping (Event) -> Bool) {
            self.lanes = lanes
            self.laneOfDevice = laneOfDevice
            self.isReceived = isReceived
        }
    }

    /// ``messages(_:)`` of a window of a longer timeline (see ``WindowContext``).
    ///
    /// Each pass reads the rows in place, by index (a row copied is its event retained, and a
    /// window is thousands of events), and hashes a device's or a continuation's string only
    /// when it differs from the row before's (a lane records runs of one continuation).
    @inlinable
    public static func messages<Event: TimelineEvent>(
        _ rows: [(lane: Int, event: Event)], among whole: WindowContext<Event>?
    ) -> [Message] {
        let isReceived = whole?.isReceived ?? { _ in false }
        var laneOf: [String: Int] = whole?.laneOfDevice ?? [:]
        var advertisements: [String: [Int]] = [:]
        // The rows of each continuation (`groups`, by `group`), and each row's (nil: none).
        var group: [String: Int] = [:]
        var groups: [[Int]] = []
        var groupOfRow = [Int?](repeating: nil, count: rows.count)
        var lastDevice: String?
        var last: (continuation: String, group: Int)?
        for index in rows.indices {
            let device = rows[index].event.device
            if device != lastDevice {
                if laneOf[device] == nil { laneOf[device] = rows[index].lane }
                lastDevice = device
            }
            if rows[index].event.timelineKind == .advertised, let key = beaconKey(rows[index].event) {
                advertisements[key, default: []].append(index)
            }
            guard let id = rows[index].event.continuation else { continue }
            let rowGroup: Int
            if let last, last.continuation == id {
                rowGroup = last.group
            } else if let known = group[id] {
                rowGroup = known
            } else {
                rowGroup = groups.count
                group[id] = rowGroup
                groups.append([])
            }
            groups[rowGroup].append(index)
            groupOfRow[index] = rowGroup
            last = (id, rowGroup)
        }
        let lanes = whole?.lanes ?? Set(rows.map(\.lane))
        var result: [Message] = []
        // The beacon: each offer pairs with the latest advertisement of its beacon sent no later than
        // it and not yet heard on that lane; failing that (the receiver's clock runs behind), with
        // the earliest sent up to `beaconSkew` after it.
        var heard = [Set<Int>?](repeating: nil, count: rows.count)
        for index in rows.indices {
            let kind = rows[index].event.timelineKind
            guard kind == .offerReceived || kind == .offerUpdated, !isReceived(rows[index].event),
                let key = beaconKey(rows[index].event), let sent = advertisements[key]
            else { continue }
            let lane = rows[index].lane
            let time = rows[index].event.time
            let limit = time.addingTimeInterval(beaconSkew)
            var latestBefore: Int?
            var earliest: Int?
            for candidate in sent
            where rows[candidate].lane != lane && rows[candidate].event.time <= limit
                && heard[candidate]?.contains(lane) != true
            {
                let sentAt = rows[candidate].event.time
                if sentAt <= time,
                    latestBefore.map({ (rows[$0].event.time, $0) < (sentAt, candidate) }) ?? true
                {
                    latestBefore = candidate
                }
                if earliest.map({ (sentAt, candidate) < (rows[$0].event.time, $0) }) ?? true {
                    earliest = candidate
                }
            }
            guard let send = latestBefore ?? earliest else { continue }
            if heard[send] == nil { heard[send] = [lane] } else { heard[send]?.insert(lane) }
            result.append(
                Message(
                    from: send, to: index, toLane: lane,
                    label: "beacon #\(rows[send].event.integer("serial") ?? 0)"))
        }
        for indices in advertisements.values {
            for index in indices where heard[index] == nil {
                // Heard by no lane: lost, towards the nearest other lane.
                let lane = rows[index].lane
                guard
                    let nearest = lanes.lazy.filter({ $0 != lane }).min(by: {
                        (abs($0 - lane), $0) < (abs($1 - lane), $1)
                    })
                else { continue }
                result.append(
                    Message(
                        from: index, to: nil, toLane: nearest,
                        label: "beacon #\(rows[index].event.integer("serial") ?? 0)"))
            }
        }
        // A continuation's messages, matched by identifier and kind on the peer's lane.
        var claimed = [Bool](repeating: false, count: rows.count)
        var lastPeer: (peer: String, lane: Int?)?
        for index in rows.indices {
            guard let message = receipts(of: rows[index].event), let peer = rows[index].event.peer,
                let rowGroup = groupOfRow[index]
            else { continue }
            let peerLane: Int?
            if let lastPeer, lastPeer.peer == peer {
                peerLane = lastPeer.lane
            } else {
                peerLane = laneOf[peer]
                lastPeer = (peer, peerLane)
            }
            guard let peerLane, peerLane != rows[index].lane else { continue }
            var receipt: Int?
            for kind in message.kinds where receipt == nil {
                receipt = groups[rowGroup].first {
                    rows[$0].lane == peerLane && !claimed[$0]
                        && receives(rows[$0].event, kind: kind, from: rows[index].event)
                        && !isReceived(rows[$0].event)
                }
            }
            if let receipt { claimed[receipt] = true }
            result.append(Message(from: index, to: receipt, toLane: peerLane, label: message.label))
        }
        return result.sorted { ($0.from, $0.to ?? Int.max) < ($1.from, $1.to ?? Int.max) }
    }

    /// The arrows between `rows` (indices into them), in order of their sending row; a message
    /// whose receipt would come first (only in a hostile recording's cycle) has none.
    public static func arrows<Event: TimelineEvent>(_ rows: [(lane: Int, event: Event)]) -> [TimelineArrow] {
        arrows(of: messages(rows))
    }

    /// The arrows of `messages` (``messages(_:)`` of some rows).
    public static func arrows(of messages: [Message]) -> [TimelineArrow] {
        messages.compactMap { message in
            guard let to = message.to, to > message.from else { return nil }
            return TimelineArrow(from: message.from, to: to, label: message.label)
        }
    }

    /// The messages of `rows` that no lane received.
    public static func lost<Event: TimelineEvent>(_ rows: [(lane: Int, event: Event)]) -> [TimelineLostMessage] {
        lost(of: messages(rows))
    }

    /// The messages of `messages` (``messages(_:)`` of some rows) that no lane received.
    public static func lost(of messages: [Message]) -> [TimelineLostMessage] {
        messages.compactMap { message in
            message.to == nil
                ? TimelineLostMessage(from: message.from, toLane: message.toLane, label: message.label) : nil
        }
    }
}
