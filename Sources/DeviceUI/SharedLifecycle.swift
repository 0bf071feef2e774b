import Foundation
import HandoffCore

/// The lifecycle events peers of the account shared with this device (over their sessions), for
/// the timeline view: oldest first, the most recent ``capacity`` (up to a quarter more between
/// trims) within ``byteCapacity``, each event once (a peer that comes back sends its recent
/// events again).
///
/// What a peer sends is its word only for what happened: the lane is the one this device keeps
/// for the peer's authenticated identity (a same-account device that greets with another
/// device's name gets a lane of its own, never that device's), times are clamped to this
/// device's clock when they arrive, and an entry over ``maximumEntryBytes`` is counted as
/// dropped rather than kept.
package struct SharedLifecycle: Hashable, Sendable {
    /// Who shared: the device identifier its certificate names, and the name it greeted with.
    package struct Sender: Hashable, Sendable {
        package var id: String
        package var name: String

        package init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    package private(set) var entries: [LifecycleEntry] = []
    /// Events each peer (by lane name) left out: over its rate limit, or too large to keep.
    package private(set) var dropped: [String: Int] = [:]
    private var seen: Set<String> = []
    package var capacity = 4000
    /// The bytes kept at most (``LifecycleEntry/approximateBytes``), trimmed to three quarters.
    package var byteCapacity = 8 << 20
    /// About how many bytes ``entries`` hold.
    package private(set) var bytes = 0
    /// The largest entry kept; the sender's own limits allow far larger (64 strings of 4 KB).
    package static let maximumEntryBytes = 32 * 1024
    /// A shared event this far behind the clock when it arrives is placed at that limit.
    package static let oldestShared: TimeInterval = 24 * 3600
    /// This device's own name: no peer's lane may take it.
    package var ownName: String?
    /// Each sender's lane, by device identifier.
    private var lanes: [String: String] = [:]

    package init() {}

    /// The lane of `sender`: its name, unless this device or another identifier already has a
    /// lane of that name; then the name with the start of its identifier ("Laptop · 8d3e5c1a").
    package mutating func lane(for sender: Sender) -> String {
        if let lane = lanes[sender.id], lane == sender.name || lane.hasPrefix(sender.name + " · ") { return lane }
        let taken = Set(lanes.filter { $0.key != sender.id }.values).union(ownName.map { [$0] } ?? [])
        let lane = taken.contains(sender.name) ? "\(sender.name) · \(sender.id.prefix(8))" : sender.name
        lanes[sender.id] = lane
        return lane
    }

    /// Adds what `sender` shared, received at `now`: its own events only (the caller keeps
    /// those that name it), in its lane, on this clock.
    package mutating func receive(
        _ newEntries: [LifecycleEntry], from sender: Sender, at now: Date, dropped count: Int = 0
    ) {
        let lane = lane(for: sender)
        var kept: [LifecycleEntry] = []
        var tooLarge = 0
        for entry in newEntries {
            let time = min(max(entry.time, now.addingTimeInterval(-Self.oldestShared)), now)
            guard entry.approximateBytes <= Self.maximumEntryBytes,
                let relabelled = entry.relabelled(device: lane, time: time)
            else {
                tooLarge += 1
                continue
            }
            kept.append(relabelled)
        }
        add(kept, droppedBy: lane, dropped: count + tooLarge)
    }

    /// Adds what `peer` shared.
    package mutating func add(_ newEntries: [LifecycleEntry], droppedBy peer: String? = nil, dropped count: Int = 0) {
        if let peer, count > 0 { dropped[peer, default: 0] += count }
        let before = entries.count
        for entry in newEntries where seen.insert(Self.key(entry)).inserted {
            entries.append(entry)
            bytes += entry.approximateBytes
        }
        guard entries.count > before else { return }
        // Peers' batches interleave: keep one time order (stable for equal times). What was there
        // is in order already, so only the new entries and the one before them need a look.
        if zip(entries[max(0, before - 1)...], entries[before...]).contains(where: { $0.time > $1.time }) {
            entries = entries.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(
                \.element)
        }
        // The oldest go in one go once a quarter over the capacity, or over the bytes (down to
        // three quarters of them), not one by one.
        guard entries.count > capacity + max(1, capacity / 4) || bytes > byteCapacity else { return }
        var removed = max(0, entries.count - capacity)
        var remaining = bytes - entries.prefix(removed).reduce(0) { $0 + $1.approximateBytes }
        if bytes > byteCapacity {
            while removed < entries.count, remaining > byteCapacity * 3 / 4 {
                remaining -= entries[removed].approximateBytes
                removed += 1
            }
        }
        for entry in entries.prefix(removed) { seen.remove(Self.key(entry)) }
        entries.removeFirst(removed)
        bytes = remaining
    }

    private static func key(_ entry: LifecycleEntry) -> String {
        "\(entry.device)|\(entry.string("time") ?? "")|\(entry.kindName)|\(entry.detail)"
    }
}
