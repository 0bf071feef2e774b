import Foundation
import HandoffCore

/// The histories a check reads, indexed once: each device's points, and where to find the other
/// device of an event.
struct Corpus {
    let histories: [DeviceHistory]
    /// Each history's events as points, in the order of `histories`.
    let points: [[HistoryPoint]]

    init(_ histories: [DeviceHistory]) {
        self.histories = histories
        points = histories.map { history in
            history.events.enumerated().map {
                HistoryPoint(device: history.device, index: $0.offset, event: $0.element)
            }
        }
    }

    /// How many events the histories hold.
    var eventCount: Int { points.reduce(0) { $0 + $1.count } }

    /// The points of the device a peer reference names (by identifier when the history knows its
    /// own, else by name), or nil when that device's history is not among those checked.
    func points(of peer: PeerReference, seenFrom device: String) -> [HistoryPoint]? {
        index(of: peer, seenFrom: device).map { points[$0] }
    }

    func index(of peer: PeerReference, seenFrom device: String) -> Int? {
        if let byID = histories.firstIndex(where: { $0.deviceID == peer.id }) { return byID }
        let account = histories.first { $0.device == device }?.account
        return histories.firstIndex { $0.device == peer.name && $0.deviceID == nil && $0.account == account }
            ?? histories.firstIndex { $0.device == peer.name && $0.deviceID == nil }
    }
}

/// A time to the millisecond: recordings of one machine share a clock and write milliseconds, so
/// two events in the same millisecond may be in either order.
func millisecond(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
}

extension HistoryPoint {
    var time: Date { event.time }
    var continuation: ContinuationID? { event.continuation }
}

extension Array where Element == HistoryPoint {
    /// The points of one continuation.
    func of(_ continuation: ContinuationID) -> [HistoryPoint] { filter { $0.event.continuation == continuation } }
}
