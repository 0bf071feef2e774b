import Foundation
import HandoffCore

/// The lifecycle events peers of the account shared with this device (over their sessions), for
/// the timeline view: oldest first, the most recent ``capacity`` (up to a quarter more between
/// trims), each event once (a peer that comes back sends its recent events again).
public struct SharedLifecycle: Hashable, Sendable {
    public private(set) var entries: [LifecycleEntry] = []
    /// Events each peer (by name) left out over its rate limit.
    public private(set) var dropped: [String: Int] = [:]
    private var seen: Set<String> = []
    public var capacity = 4000

    public init() {}

    /// Adds what `peer` shared.
    public mutating func add(_ newEntries: [LifecycleEntry], droppedBy peer: String? = nil, dropped count: Int = 0) {
        if let peer, count > 0 { dropped[peer, default: 0] += count }
        let before = entries.count
        for entry in newEntries where seen.insert(Self.key(entry)).inserted {
            entries.append(entry)
        }
        guard entries.count > before else { return }
        // Peers' batches interleave: keep one time order (stable for equal times). What was there
        // is in order already, so only the new entries and the one before them need a look.
        if zip(entries[max(0, before - 1)...], entries[before...]).contains(where: { $0.time > $1.time }) {
            entries = entries.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        }
        // The oldest go in one go once a quarter over the capacity, not one by one.
        if entries.count > capacity + max(1, capacity / 4) {
            for entry in entries.prefix(entries.count - capacity) { seen.remove(Self.key(entry)) }
            entries.removeFirst(entries.count - capacity)
        }
    }

    private static func key(_ entry: LifecycleEntry) -> String {
        "\(entry.device)|\(entry.string("time") ?? "")|\(entry.kindName)|\(entry.detail)"
    }
}
