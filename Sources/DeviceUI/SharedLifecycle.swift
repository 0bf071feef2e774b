import Foundation
import HandoffCore

/// The lifecycle events peers of the account shared with this device (over their sessions), for
/// the timeline view: oldest first, the most recent ``capacity``, each event once (a peer that
/// comes back sends its recent events again).
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
        var added = false
        for entry in newEntries where seen.insert(Self.key(entry)).inserted {
            entries.append(entry)
            added = true
        }
        guard added else { return }
        // Peers' batches interleave: keep one time order (stable for equal times).
        if zip(entries, entries.dropFirst()).contains(where: { $0.time > $1.time }) {
            entries = entries.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        }
        if entries.count > capacity {
            for entry in entries.prefix(entries.count - capacity) { seen.remove(Self.key(entry)) }
            entries.removeFirst(entries.count - capacity)
        }
    }

    private static func key(_ entry: LifecycleEntry) -> String {
        "\(entry.device)|\(entry.string("time") ?? "")|\(entry.kindName)|\(entry.detail)"
    }
}
