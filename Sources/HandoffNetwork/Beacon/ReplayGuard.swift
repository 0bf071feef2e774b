import Foundation
import HandoffCore
import Synchronization

/// Receiver-side replay and freshness rules, per sending device.
///
/// A beacon is accepted when its `sentAt` is within `maximumClockSkew` of the receiver's clock and
/// it is newer than the last one accepted from that device: a later `bootIdentifier` (the device
/// restarted), or the same boot and a higher `counter`. A captured beacon replayed later is
/// therefore rejected (`replayed` while its `sentAt` is still fresh, `stale` afterwards), while a
/// restarted device, whose counter starts again at 1, is accepted.
///
/// Only beacons that authenticated are checked, so only the account's own devices can move the
/// per-device state; a malicious device of the account is outside this threat model.
package struct ReplayGuard: Sendable {
    package enum Verdict: Sendable, Hashable {
        case accepted
        /// Not newer than the last beacon accepted from that device (same or older boot and counter).
        case replayed
        /// `sentAt` more than the allowed skew in the past.
        case stale
        /// `sentAt` (or the boot time) more than the allowed skew in the future.
        case fromTheFuture
    }

    struct Record: Sendable, Hashable {
        var bootIdentifier: UInt64
        var counter: UInt64
        var lastAccepted: Date
    }

    package let maximumClockSkew: TimeInterval
    /// Most devices remembered; beyond it the longest-silent one is forgotten.
    package let capacity: Int
    /// By the sender's 16 bytes (``BeaconSenderID``), which name its device exactly as the ID's
    /// text does, and hash as two words.
    private var records: [BeaconSenderID: Record] = [:]

    package init(maximumClockSkew: TimeInterval = 30, capacity: Int = 4096) {
        self.maximumClockSkew = maximumClockSkew
        self.capacity = max(1, capacity)
    }

    /// Judges `beacon` and, if it is accepted, remembers it as the newest from its device.
    package mutating func check(_ beacon: Beacon, receivedAt now: Date) -> Verdict {
        check(beacon, from: BeaconSenderID(beacon.device.id), receivedAt: now)
    }

    /// ``check(_:receivedAt:)`` for a beacon whose sender's bytes are known (as opened).
    mutating func check(_ beacon: Beacon, from sender: BeaconSenderID, receivedAt now: Date) -> Verdict {
        if let verdict = timing(of: beacon, receivedAt: now) { return verdict }
        if let record = records[sender] {
            guard Self.isNewer(beacon, than: record) else { return .replayed }
        } else {
            makeRoom()
        }
        records[sender] = Record(bootIdentifier: beacon.bootIdentifier, counter: beacon.counter, lastAccepted: now)
        return .accepted
    }

    /// Whether `beacon` is the very beacon last accepted from its device (same boot and counter):
    /// the second copy of a beacon that arrived by two paths (loopback broadcast and multicast).
    /// ``isDuplicateOfLastAccepted(_:)`` (nil), else ``check(_:receivedAt:)``, with one look-up
    /// of the sender where it is known: this runs for every beacon every device hears.
    package mutating func judge(_ beacon: Beacon, receivedAt now: Date) -> Verdict? {
        judge(beacon, from: BeaconSenderID(beacon.device.id), receivedAt: now)
    }

    /// ``judge(_:receivedAt:)`` for a beacon whose sender's bytes are known (as opened): one
    /// look-up of a known sender, and for a new one a look-up and an insertion.
    mutating func judge(_ beacon: Beacon, from sender: BeaconSenderID, receivedAt now: Date) -> Verdict? {
        guard let index = records.index(forKey: sender) else {
            if let verdict = timing(of: beacon, receivedAt: now) { return verdict }
            makeRoom()
            records[sender] = Record(
                bootIdentifier: beacon.bootIdentifier, counter: beacon.counter, lastAccepted: now)
            return .accepted
        }
        let record = records.values[index]
        if record.bootIdentifier == beacon.bootIdentifier && record.counter == beacon.counter { return nil }
        if let verdict = timing(of: beacon, receivedAt: now) { return verdict }
        guard Self.isNewer(beacon, than: record) else { return .replayed }
        records.values[index] = Record(
            bootIdentifier: beacon.bootIdentifier, counter: beacon.counter, lastAccepted: now)
        return .accepted
    }

    /// Before a new device is remembered: at ``capacity``, the longest-silent one is forgotten.
    private mutating func makeRoom() {
        guard records.count >= capacity,
            let oldest = records.min(by: { $0.value.lastAccepted < $1.value.lastAccepted })
        else { return }
        records[oldest.key] = nil
    }

    /// Stale or from the future by its clocks, or nil when its times are within the skew.
    private func timing(of beacon: Beacon, receivedAt now: Date) -> Verdict? {
        let skew = beacon.sentAt.timeIntervalSince(now)
        if skew < -maximumClockSkew { return .stale }
        if skew > maximumClockSkew { return .fromTheFuture }
        // A process cannot have started after it sent the beacon.
        if Double(beacon.bootIdentifier) / 1000 > now.timeIntervalSince1970 + maximumClockSkew { return .fromTheFuture }
        return nil
    }

    private static func isNewer(_ beacon: Beacon, than record: Record) -> Bool {
        beacon.bootIdentifier > record.bootIdentifier
            || (beacon.bootIdentifier == record.bootIdentifier && beacon.counter > record.counter)
    }

    package func isDuplicateOfLastAccepted(_ beacon: Beacon) -> Bool {
        guard let record = records[BeaconSenderID(beacon.device.id)] else { return false }
        return record.bootIdentifier == beacon.bootIdentifier && record.counter == beacon.counter
    }

    /// How many devices are remembered.
    package var count: Int { records.count }
}

/// One ``ReplayGuard`` for the two sockets a device receives beacons on (the shared discovery
/// port and its own reply socket), which may be read on different event loops: a beacon
/// accepted on one is a replay on the other.
final class SharedReplayGuard: Sendable {
    enum Outcome: Sendable, Hashable {
        /// The very beacon last accepted from its device (a second copy).
        case duplicate
        case judged(ReplayGuard.Verdict)
    }

    private let state: Mutex<ReplayGuard>

    init(_ replayGuard: ReplayGuard) {
        state = Mutex(replayGuard)
    }

    /// Checks for a second copy, then judges the beacon (and remembers it if accepted), as one step.
    func judge(_ beacon: Beacon, receivedAt now: Date) -> Outcome {
        judge(beacon, from: BeaconSenderID(beacon.device.id), receivedAt: now)
    }

    /// ``judge(_:receivedAt:)`` for a beacon whose sender's bytes are known (as opened).
    func judge(_ beacon: Beacon, from sender: BeaconSenderID, receivedAt now: Date) -> Outcome {
        state.withLock { replayGuard in
            replayGuard.judge(beacon, from: sender, receivedAt: now).map(Outcome.judged) ?? .duplicate
        }
    }
}
