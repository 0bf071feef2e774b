import Foundation
import Testing

@testable import HandoffCore

/// The timeline's order (``TimelineLayout/rows(_:)``) follows causality before the clocks: each
/// lane keeps its order, every send comes before its receipt whatever the two clocks say, and
/// what nobody received is lost. Devices' clocks are given skews and the network latencies; the
/// order must not depend on which lane comes first.
@Suite("Timeline order")
struct TimelineOrderTests {
    struct Event: TimelineEvent, Hashable {
        var time: Date
        var device: String
        var timelineKind: LifecycleEvent.Kind?
        var continuation: String?
        var peer: String?
        var strings: [String: String] = [:]
        var integers: [String: Int64] = [:]

        func string(_ key: String) -> String? { strings[key] }
        func integer(_ key: String) -> Int64? { integers[key] }
    }

    static let base = Date(timeIntervalSince1970: 1_795_000_000)
    static let id = "e5f01874-79e9-4ae8-871e-96e2b916911c"

    /// An event at `milliseconds` of real time on a device whose clock is `skew` ms ahead,
    /// recorded to the millisecond as recordings are.
    static func event(
        _ kind: LifecycleEvent.Kind, on device: String, at milliseconds: Double, skew: Double = 0, peer: String? = nil,
        continuation: String? = id, strings: [String: String] = [:], integers: [String: Int64] = [:]
    ) -> Event {
        let recorded = ((milliseconds + skew) * 1000).rounded() / 1_000_000
        return Event(
            time: base.addingTimeInterval(recorded), device: device, timelineKind: kind, continuation: continuation,
            peer: peer, strings: strings, integers: integers)
    }

    static func beacon(
        _ kind: LifecycleEvent.Kind, on device: String, at ms: Double, skew: Double = 0, peer: String?
    )
        -> Event
    {
        event(
            kind, on: device, at: ms, skew: skew, peer: peer, continuation: nil,
            strings: ["typeHash": "9254a9643f8466"],
            integers: ["serial": 1])
    }

    /// A whole continuation from Laptop to Phone: the beacon, the choice, the request, the
    /// payload, the continue and "was continued"; each message takes `latency` ms, and Phone's
    /// clock runs `skew` ms ahead of Laptop's.
    static func continuation(skew: Double, latency: Double) -> (laptop: [Event], phone: [Event]) {
        let l = latency
        let laptop = [
            beacon(.advertised, on: "Laptop", at: 0, peer: nil),
            event(.payloadRequested, on: "Laptop", at: 10 + l, peer: "Phone"),
            event(.saved, on: "Laptop", at: 10 + l),
            event(.payloadSent, on: "Laptop", at: 10 + l, peer: "Phone", integers: ["size": 177]),
            event(.wasContinued, on: "Laptop", at: 10 + 3 * l, peer: "Phone"),
        ]
        let phone = [
            beacon(.offerReceived, on: "Phone", at: l, skew: skew, peer: "Laptop"),
            event(.continueChosen, on: "Phone", at: 10, skew: skew, peer: "Laptop"),
            event(.fetchStarted, on: "Phone", at: 10, skew: skew, peer: "Laptop"),
            event(.payloadReceived, on: "Phone", at: 10 + 2 * l, skew: skew, peer: "Laptop"),
            event(.continueCalled, on: "Phone", at: 10 + 2 * l, skew: skew),
            event(.continued, on: "Phone", at: 10 + 2 * l, skew: skew, peer: "Laptop"),
        ]
        return (laptop, phone)
    }

    /// What must hold of any order: every event once, each lane in its own order, every arrow
    /// going down.
    func checkCausal(_ lanes: [[Event]], _ rows: [(lane: Int, event: Event)], _ comment: Comment) {
        #expect(rows.count == lanes.map(\.count).reduce(0, +), comment)
        for lane in lanes.indices {
            #expect(
                rows.filter { $0.lane == lane }.map(\.event) == lanes[lane], "lane \(lane) keeps its order; \(comment)")
        }
        for message in TimelineLayout.messages(rows) {
            if let to = message.to { #expect(message.from < to, "\(message.label) goes down; \(comment)") }
        }
        #expect(TimelineLayout.arrows(rows).count == TimelineLayout.messages(rows).filter { $0.to != nil }.count)
    }

    /// Every skew from -5 to +5 ms and latencies of 0 to 2 ms, with either device's lane first:
    /// the same messages, all going down, in the same causal order.
    @Test func sendsComeBeforeTheirReceiptsWhateverTheClocksAndLanes() {
        for skew in stride(from: -5.0, through: 5.0, by: 1.0) {
            for latency in [0.0, 1.0, 2.0] {
                let (laptop, phone) = Self.continuation(skew: skew, latency: latency)
                for lanes in [[laptop, phone], [phone, laptop]] {
                    let rows = TimelineLayout.rows(lanes)
                    let comment: Comment = "skew \(skew) ms, latency \(latency) ms, \(lanes[0][0].device) first"
                    checkCausal(lanes, rows, comment)
                    #expect(
                        TimelineLayout.arrows(rows).map(\.label) == [
                            "beacon #1", "payload request", "payload 177 bytes", "was continued",
                        ], comment)
                    #expect(TimelineLayout.lost(rows).isEmpty, comment)
                    let kinds = rows.compactMap(\.event.timelineKind)
                    func position(_ kind: LifecycleEvent.Kind) -> Int { kinds.firstIndex(of: kind) ?? -1 }
                    #expect(position(.advertised) < position(.offerReceived), comment)
                    #expect(position(.fetchStarted) < position(.payloadRequested), comment)
                    #expect(position(.payloadSent) < position(.payloadReceived), comment)
                    #expect(position(.continued) < position(.wasContinued), comment)
                }
            }
        }
    }

    /// The receiver's `continued` and the origin's `wasContinued` in the same millisecond, the
    /// origin's lane first: the receiver's comes first (the clock and the lane would say otherwise).
    @Test func aTieIsResolvedByThePairNotTheLane() {
        let laptop = [Self.event(.wasContinued, on: "Laptop", at: 5, peer: "Phone")]
        let phone = [Self.event(.continued, on: "Phone", at: 5, peer: "Laptop")]
        let rows = TimelineLayout.rows([laptop, phone])
        #expect(rows.map(\.event.timelineKind) == [.continued, .wasContinued])
        #expect(TimelineLayout.arrows(rows) == [TimelineArrow(from: 0, to: 1, label: "was continued")])
    }

    /// A no-answer fault strikes the request on arrival; recorded in the same millisecond as the
    /// fetch, or up to 5 ms before it on a clock that runs behind: the fetch is drawn first.
    @Test(arguments: [0.0, -1.0, -3.0, -5.0])
    func aFaultComesAfterTheRequestItStruck(originSkew: Double) {
        let laptop = [
            Self.event(.faultInjected, on: "Laptop", at: 10, skew: originSkew, strings: ["fault": "no-answer"]),
            Self.event(.stepPaused, on: "Laptop", at: 11, skew: originSkew),
        ]
        let phone = [
            Self.event(.fetchStarted, on: "Phone", at: 10, peer: "Laptop"),
            Self.event(.continuationFailed, on: "Phone", at: 5010, peer: "Laptop"),
        ]
        let rows = TimelineLayout.rows([laptop, phone])
        #expect(rows.map(\.event.timelineKind) == [.fetchStarted, .faultInjected, .stepPaused, .continuationFailed])
        #expect(TimelineLayout.arrows(rows) == [TimelineArrow(from: 0, to: 1, label: "payload request")])
    }

    /// A fault that does not strike a request (a dropped beacon) receives nothing: the request is lost.
    @Test func aFaultThatStrikesNoRequestReceivesNothing() {
        let laptop = [Self.event(.faultInjected, on: "Laptop", at: 10, strings: ["fault": "drop-beacons"])]
        let phone = [Self.event(.fetchStarted, on: "Phone", at: 10, peer: "Laptop")]
        let rows = TimelineLayout.rows([laptop, phone])
        #expect(TimelineLayout.arrows(rows).isEmpty)
        #expect(TimelineLayout.lost(rows).map(\.label) == ["payload request"])
    }

    /// A chain of pairs that all share one millisecond, over three devices, the receivers' lanes
    /// first and their clocks behind: each hop still follows the one before.
    @Test(arguments: [0.0, -2.0, -5.0])
    func aChainOfPairsStaysInOrder(skew: Double) {
        let other = "f0000000-0000-4000-8000-000000000001"
        // Laptop continues from Phone, then Tablet continues from Laptop, all at once.
        let phone = [
            Self.event(.payloadRequested, on: "Phone", at: 1, peer: "Laptop"),
            Self.event(.payloadSent, on: "Phone", at: 1, peer: "Laptop", integers: ["size": 10]),
            Self.event(.wasContinued, on: "Phone", at: 1, peer: "Laptop"),
        ]
        let laptop = [
            Self.event(.fetchStarted, on: "Laptop", at: 1, skew: skew, peer: "Phone"),
            Self.event(.payloadReceived, on: "Laptop", at: 1, skew: skew, peer: "Phone"),
            Self.event(.continued, on: "Laptop", at: 1, skew: skew, peer: "Phone"),
            Self.event(.payloadRequested, on: "Laptop", at: 1, skew: skew, peer: "Tablet", continuation: other),
            Self.event(.payloadSent, on: "Laptop", at: 1, skew: skew, peer: "Tablet", continuation: other),
        ]
        let tablet = [
            Self.event(.fetchStarted, on: "Tablet", at: 1, skew: 2 * skew, peer: "Laptop", continuation: other),
            Self.event(.payloadReceived, on: "Tablet", at: 1, skew: 2 * skew, peer: "Laptop", continuation: other),
        ]
        for lanes in [[tablet, laptop, phone], [phone, laptop, tablet], [laptop, tablet, phone]] {
            let rows = TimelineLayout.rows(lanes)
            checkCausal(lanes, rows, "skew \(skew)")
            #expect(TimelineLayout.arrows(rows).count == 5)
            let order = rows.map { "\($0.event.device) \($0.event.timelineKind?.rawValue ?? "")" }
            func position(_ line: String) -> Int { order.firstIndex(of: line) ?? -1 }
            #expect(position("Laptop fetchStarted") < position("Phone payloadRequested"))
            #expect(position("Phone payloadSent") < position("Laptop payloadReceived"))
            #expect(position("Laptop continued") < position("Phone wasContinued"))
            #expect(position("Tablet fetchStarted") < position("Laptop payloadRequested"))
            #expect(position("Laptop payloadSent") < position("Tablet payloadReceived"))
        }
    }

    /// A send whose receipt the receiver's lane does not have is lost; a send to a device that has
    /// no lane is no message at all (its recording was not given).
    @Test func anUnpairedSendIsLost() {
        let laptop = [
            Self.event(.payloadRequested, on: "Laptop", at: 10, peer: "Phone"),
            Self.event(.payloadSent, on: "Laptop", at: 11, peer: "Phone", integers: ["size": 2150]),
            Self.event(.payloadSent, on: "Laptop", at: 12, peer: "Watch", integers: ["size": 5]),
        ]
        let phone = [
            Self.event(.fetchStarted, on: "Phone", at: 9, peer: "Laptop"),
            Self.event(.continuationFailed, on: "Phone", at: 5009, peer: "Laptop"),
        ]
        let rows = TimelineLayout.rows([laptop, phone])
        #expect(TimelineLayout.arrows(rows).map(\.label) == ["payload request"])
        let lost = TimelineLayout.lost(rows)
        #expect(lost.map(\.label) == ["payload 2.1 kB"])
        #expect(lost.first.map { rows[$0.from].event.timelineKind } == .payloadSent)
        #expect(lost.first?.toLane == 1)
        // A beacon nobody heard, beside another lane, is lost; alone it is no message.
        let beacon = [Self.beacon(.advertised, on: "Laptop", at: 0, peer: nil)]
        let quiet = [Self.event(.activityCreated, on: "Phone", at: 1, continuation: nil)]
        #expect(TimelineLayout.lost(TimelineLayout.rows([beacon, quiet])).map(\.label) == ["beacon #1"])
        #expect(TimelineLayout.messages(TimelineLayout.rows([beacon])).isEmpty)
    }

    /// A device re-advertises the same beacon a second later: each offer pairs with the beacon
    /// sent just before it, not with the first one (whose arrow would go up or cross), within
    /// ±5 ms of skew.
    @Test(arguments: [-5.0, 0.0, 5.0])
    func aReAdvertisedBeaconPairsWithItsOwnOffer(skew: Double) {
        let laptop = [
            Self.beacon(.advertised, on: "Laptop", at: 0, peer: nil),
            Self.beacon(.advertised, on: "Laptop", at: 1000, peer: nil),
        ]
        let phone = [
            Self.beacon(.offerReceived, on: "Phone", at: 1, skew: skew, peer: "Laptop"),
            Self.beacon(.offerUpdated, on: "Phone", at: 1001, skew: skew, peer: "Laptop"),
        ]
        let rows = TimelineLayout.rows([laptop, phone])
        checkCausal([laptop, phone], rows, "skew \(skew)")
        let arrows = TimelineLayout.arrows(rows)
        #expect(arrows.count == 2)
        #expect(arrows.map { rows[$0.to].event.timelineKind } == [.offerReceived, .offerUpdated])
        #expect(arrows.map { rows[$0.from].event.time } == laptop.map(\.time))
        #expect(TimelineLayout.lost(rows).isEmpty)
    }

    /// Events that cannot have caused each other keep to the clock; at equal times the lane
    /// decides, and only then.
    @Test func concurrentEventsFollowTheClock() {
        let laptop = [
            Self.event(.activityCreated, on: "Laptop", at: 3, continuation: nil),
            Self.event(.becameCurrent, on: "Laptop", at: 7, continuation: nil),
        ]
        let phone = [
            Self.event(.activityCreated, on: "Phone", at: 1, continuation: nil),
            Self.event(.becameCurrent, on: "Phone", at: 7, continuation: nil),
        ]
        let rows = TimelineLayout.rows([laptop, phone])
        #expect(
            rows.map { "\($0.event.device) \($0.event.timelineKind?.rawValue ?? "")" } == [
                "Phone activityCreated", "Laptop activityCreated", "Laptop becameCurrent", "Phone becameCurrent",
            ])
    }

    /// Recordings anyone may hand over can claim a cycle (each side received what the other sent
    /// after it): every event is still drawn once, and no arrow goes up.
    @Test func aHostileCycleEndsAndDrawsNoArrowUp() {
        let laptop = [
            Self.event(.wasContinued, on: "Laptop", at: 1, peer: "Phone"),
            Self.event(.fetchStarted, on: "Laptop", at: 2, peer: "Phone"),
        ]
        let phone = [
            Self.event(.payloadRequested, on: "Phone", at: 1, peer: "Laptop"),
            Self.event(.continued, on: "Phone", at: 2, peer: "Laptop"),
        ]
        let rows = TimelineLayout.rows([laptop, phone])
        #expect(rows.count == 4)
        for arrow in TimelineLayout.arrows(rows) { #expect(arrow.from < arrow.to) }
    }

    /// One style table: each kind has one tone, the lab's faults and pauses warnings.
    @Test func theToneTableCoversTheLabsKinds() {
        #expect(TimelineTone(.faultInjected) == .warning && TimelineTone(.stepPaused) == .warning)
        #expect(TimelineTone(.continuationFailed) == .error && TimelineTone(.wasContinued) == .success)
        #expect(TimelineTone(nil) == .normal)
    }
}
