import Foundation
import HandoffCore
import NIOCore

/// A batch of lifecycle events one device shares with a peer of its account (a `lifecycle`
/// session frame, docs/wire.md "Lifecycle sharing"), so that the peer can draw both devices on
/// one timeline.
///
/// Decoding treats the body as hostile: counts, key and value lengths and the whole body are
/// bounded, keys are unique, and every entry names its time, device and kind.
package struct LifecycleShare: Sendable, Hashable {
    /// The events, oldest first.
    package var entries: [LifecycleEntry]
    /// Events the sender left out since its last frame (over its rate limit).
    package var dropped: UInt32

    package init(entries: [LifecycleEntry], dropped: UInt32 = 0) {
        self.entries = entries
        self.dropped = dropped
    }

    /// The most entries in one frame.
    package static let maximumEntries = 64
    /// The most fields in one entry.
    package static let maximumFields = 48
    /// The longest key, in bytes.
    package static let maximumKeyBytes = 64
    /// The longest string value, in bytes.
    package static let maximumStringBytes = 4096
    /// The largest encoded userInfo of one entry; a larger one is left out when sharing
    /// (`userInfoOmitted` says its size).
    package static let maximumUserInfoBytes = 16 * 1024
    /// The largest frame body.
    package static let maximumBodyBytes = 256 * 1024

    enum Tag: UInt8 {
        case string = 1, integer, double, bool, userInfo
    }

    // MARK: Encoding

    /// Writes the body; with `fields` non-nil, also its fields, at offsets from `origin` (the
    /// frame's first byte: ``SessionFrameEncoder/encode(_:into:annotating:)``).
    func encode(into out: inout ByteBuffer, annotating fields: inout [ByteField]?, origin: Int) {
        var mark = out.writerIndex
        func note(_ name: @autoclosure () -> String, _ value: @autoclosure () -> String, depth: Int) {
            guard fields != nil, mark < out.writerIndex else { return }
            fields?.append(
                ByteField(
                    range: mark - origin..<out.writerIndex - origin, name: name(), value: value(), depth: depth))
            mark = out.writerIndex
        }
        out.writeInteger(dropped)
        note("dropped", "\(dropped) (events left out over the rate limit)", depth: 0)
        let entries = self.entries.prefix(Self.maximumEntries)
        out.writeInteger(UInt16(entries.count))
        note("count", "\(entries.count) (events)", depth: 0)
        for (index, entry) in entries.enumerated() {
            let entryFields = entry.fields.prefix(Self.maximumFields)
            out.writeInteger(UInt8(entryFields.count))
            note(
                "event #\(index + 1) field count",
                "\(entryFields.count): \(entry.kind?.rawValue ?? "an unknown kind") of \(SessionFrameEncoder.quoted(entry.device))",
                depth: 1)
            for field in entryFields {
                let key = Array(SessionFrameEncoder.truncated(field.key, maximumBytes: Self.maximumKeyBytes).utf8)
                out.writeInteger(UInt8(key.count))
                out.writeBytes(key)
                let value: String
                switch field.value {
                case .string(let text):
                    let bytes = Array(SessionFrameEncoder.truncated(text, maximumBytes: Self.maximumStringBytes).utf8)
                    out.writeInteger(Tag.string.rawValue)
                    out.writeInteger(UInt16(bytes.count))
                    out.writeBytes(bytes)
                    value = "string " + SessionFrameEncoder.quoted(bytes)
                case .integer(let number):
                    out.writeInteger(Tag.integer.rawValue)
                    out.writeInteger(Int64(number))
                    value = "integer \(number)"
                case .double(let number):
                    out.writeInteger(Tag.double.rawValue)
                    out.writeInteger(number.bitPattern)
                    value = "number \(number)"
                case .bool(let truth):
                    out.writeInteger(Tag.bool.rawValue)
                    out.writeInteger(UInt8(truth ? 1 : 0))
                    value = "truth value \(truth)"
                case .userInfo(let info):
                    let bytes = Self.encoded(info)
                    out.writeInteger(Tag.userInfo.rawValue)
                    out.writeInteger(UInt32(bytes.count))
                    out.writeBytes(bytes)
                    value = "userInfo, \(bytes.count) bytes (a payload, docs/payload.md)"
                }
                note("event #\(index + 1) " + SessionFrameEncoder.quoted(key), value, depth: 2)
            }
        }
    }

    /// A userInfo in the payload encoding (docs/payload.md), inside a payload that carries nothing else.
    static func encoded(_ info: UserInfoSnapshot) -> Data {
        ActivityPayload(
            activityIdentifier: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), activityType: "lifecycle",
            userInfo: info, teamIdentifier: "", bundleIdentifier: ""
        ).encoded()
    }

    /// The encoded size of `entry`'s userInfo, if it has one.
    static func userInfoBytes(of entry: LifecycleEntry) -> Int? {
        entry.userInfo.map { encoded($0).count }
    }

    // MARK: Decoding

    /// Decodes a `lifecycle` frame's body (after its version and type).
    ///
    /// - Throws: ``SessionFrameError`` naming the entry, the field and what is wrong.
    init(decoding body: inout ByteBuffer) throws(SessionFrameError) {
        guard body.readableBytes <= Self.maximumBodyBytes else {
            throw SessionFrameError(
                "lifecycle frame of \(body.readableBytes) bytes exceeds the \(Self.maximumBodyBytes)-byte limit")
        }
        guard let dropped = body.readInteger(as: UInt32.self), let count = body.readInteger(as: UInt16.self) else {
            throw SessionFrameError("truncated lifecycle frame header")
        }
        guard Int(count) <= Self.maximumEntries else {
            throw SessionFrameError("lifecycle frame with \(count) events (at most \(Self.maximumEntries))")
        }
        var entries: [LifecycleEntry] = []
        entries.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            let place = "lifecycle event #\(index + 1)"
            guard let fieldCount = body.readInteger(as: UInt8.self) else {
                throw SessionFrameError("truncated \(place)")
            }
            guard Int(fieldCount) <= Self.maximumFields else {
                throw SessionFrameError("\(place) has \(fieldCount) fields (at most \(Self.maximumFields))")
            }
            var fields: [LifecycleEntry.Field] = []
            var keys: Set<String> = []
            for _ in 0..<Int(fieldCount) {
                guard let keyLength = body.readInteger(as: UInt8.self),
                    (1...Self.maximumKeyBytes).contains(Int(keyLength))
                else {
                    throw SessionFrameError("\(place): a key must be 1 to \(Self.maximumKeyBytes) bytes")
                }
                let key = try Self.utf8(&body, Int(keyLength), "\(place): key")
                guard keys.insert(key).inserted else { throw SessionFrameError("\(place): key \"\(key)\" twice") }
                let what = "\(place), field \"\(key)\""
                guard let rawTag = body.readInteger(as: UInt8.self) else {
                    throw SessionFrameError("truncated \(what)")
                }
                guard let tag = Tag(rawValue: rawTag) else {
                    throw SessionFrameError("\(what): unknown value type \(rawTag)")
                }
                let value: LifecycleField
                switch tag {
                case .string:
                    guard let length = body.readInteger(as: UInt16.self) else {
                        throw SessionFrameError("truncated \(what)")
                    }
                    guard Int(length) <= Self.maximumStringBytes else {
                        throw SessionFrameError("\(what): \(length) bytes (at most \(Self.maximumStringBytes))")
                    }
                    value = .string(try Self.utf8(&body, Int(length), what))
                case .integer:
                    guard let number = body.readInteger(as: Int64.self) else {
                        throw SessionFrameError("truncated \(what)")
                    }
                    guard let fitting = Int(exactly: number) else {
                        throw SessionFrameError("\(what): \(number) is out of range")
                    }
                    value = .integer(fitting)
                case .double:
                    guard let bits = body.readInteger(as: UInt64.self) else {
                        throw SessionFrameError("truncated \(what)")
                    }
                    let number = Double(bitPattern: bits)
                    guard number.isFinite else { throw SessionFrameError("\(what): not a finite number") }
                    value = .double(number)
                case .bool:
                    guard let byte = body.readInteger(as: UInt8.self), byte <= 1 else {
                        throw SessionFrameError("\(what): a truth value is 0 or 1")
                    }
                    value = .bool(byte == 1)
                case .userInfo:
                    guard let length = body.readInteger(as: UInt32.self) else {
                        throw SessionFrameError("truncated \(what)")
                    }
                    guard Int(length) <= Self.maximumUserInfoBytes else {
                        throw SessionFrameError("\(what): \(length) bytes (at most \(Self.maximumUserInfoBytes))")
                    }
                    guard let bytes = body.readBytes(length: Int(length)) else {
                        throw SessionFrameError("truncated \(what)")
                    }
                    do {
                        let limits = PayloadLimits(
                            maximumPayloadBytes: Self.maximumUserInfoBytes, maximumDepth: 16,
                            maximumCollectionCount: 1024, maximumValueCount: 4096)
                        value = .userInfo(try ActivityPayload(decoding: Data(bytes), limits: limits).userInfo)
                    } catch {
                        throw SessionFrameError("\(what): \(error)")
                    }
                }
                fields.append(LifecycleEntry.Field(key, value))
            }
            guard let entry = LifecycleEntry(fields: fields) else {
                throw SessionFrameError("\(place) must have \"time\" (ISO 8601), \"device\" and \"kind\" as text")
            }
            entries.append(entry)
        }
        guard body.readableBytes == 0 else {
            throw SessionFrameError("\(body.readableBytes) trailing bytes in a lifecycle frame")
        }
        self.init(entries: entries, dropped: dropped)
    }

    private static func utf8(_ body: inout ByteBuffer, _ count: Int, _ what: String) throws(SessionFrameError) -> String
    {
        guard let bytes = body.readBytes(length: count) else { throw SessionFrameError("truncated \(what)") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw SessionFrameError("\(what) is not UTF-8")
        }
        return text
    }
}

/// How a device shares its lifecycle with the peers of its account: at most ``eventsPerSecond``
/// events a second (a burst of as many), each entry with a userInfo of at most
/// ``LifecycleShare/maximumUserInfoBytes``, sent ``batchDelay`` after the first event of a batch
/// (a continuation's events travel together, after its critical path rather than during it); a
/// peer heard from for the first time gets the last ``backlog`` events first.
package struct LifecycleSharingPolicy: Sendable, Hashable {
    package var eventsPerSecond: Int
    package var backlog: Int
    package var batchDelay: TimeInterval

    package init(eventsPerSecond: Int = 100, backlog: Int = 64, batchDelay: TimeInterval = 0.05) {
        self.eventsPerSecond = max(1, eventsPerSecond)
        self.backlog = max(0, backlog)
        self.batchDelay = max(0, batchDelay)
    }
}

/// The sending half of lifecycle sharing, confined to the host's queue: events are batched (one frame
/// for a burst, sent 50 ms after its first event), limited by a token bucket, and written by one task
/// in order to every nearby peer over the pooled session (the same mutual-TLS sessions as the
/// payload requests, so only devices of the account ever receive them).
package final class LifecycleSharing {
    private struct Batch: Sendable {
        var events: [LifecycleEvent]
        var backlog: [LifecycleEvent]
        var dropped: UInt32
        /// Peers that get only `events`, and new peers that get `backlog` first.
        var peers: [PeerSession]
        var newPeers: [PeerSession]
    }

    let policy: LifecycleSharingPolicy
    /// Weak: a flush scheduled before the host went away finds nothing to do.
    private weak var host: DeviceHost?
    private var tokens: Double
    private var refilled = Date()
    private var pending: [LifecycleEvent] = []
    private var dropped: UInt32 = 0
    private var recent: [LifecycleEvent] = []
    private var sharedWith: Set<DeviceID> = []
    /// Peers a batch did not reach, with how long to wait before trying them again (doubling).
    private var retryDelays: [DeviceID: TimeInterval] = [:]
    private var isRetryScheduled = false
    /// Peers a batch did not reach, to be tried again (on the queue).
    package var peersAwaitingRetry: Set<DeviceID> { Set(retryDelays.keys) }
    static let firstRetryDelay: TimeInterval = 0.25
    static let longestRetryDelay: TimeInterval = 8
    private var isFlushScheduled = false
    /// Flushes put off because this device was continuing an activity (at most ``maximumPostponements``).
    private var postponements = 0
    static let maximumPostponements = 10
    private let batches: AsyncStream<Batch>.Continuation
    private var sender: Task<Void, Never>?

    init(host: DeviceHost, policy: LifecycleSharingPolicy) {
        self.host = host
        self.policy = policy
        tokens = Double(policy.eventsPerSecond)
        let (stream, continuation) = AsyncStream<Batch>.makeStream(bufferingPolicy: .bufferingNewest(256))
        batches = continuation
        // What each batch came to, back on the host's queue (weak: a host gone away hears nothing).
        let queue = host.queue
        let report: @Sendable (Outcome) -> Void = { [weak host] outcome in
            queue.async { [weak host] in host?.lifecycleSharing?.delivered(outcome) }
        }
        sender = Self.sender(for: stream, dialer: host.dialer, report: report)
    }

    /// Which peers a batch reached and which it did not.
    struct Outcome: Sendable {
        var reached: [DeviceID] = []
        var missed: [DeviceID] = []
    }

    /// The task that writes each batch, in order, to its peers.
    private static func sender(
        for stream: AsyncStream<Batch>, dialer: SessionDialer,
        report: @escaping @Sendable (Outcome) -> Void
    ) -> Task<Void, Never> {
        Task {
            for await batch in stream {
                let events = batch.events.map(Self.entry)
                let first = batch.backlog.map(Self.entry) + events
                let outcome = await withTaskGroup(of: (DeviceID, Bool).self) { tasks in
                    for session in batch.peers + batch.newPeers {
                        let entries = batch.newPeers.contains(where: { $0 === session }) ? first : events
                        guard !entries.isEmpty else { continue }
                        tasks.addTask {
                            let sent = await send(entries, dropped: batch.dropped, over: session, dialer: dialer)
                            return (session.peer, sent)
                        }
                    }
                    var outcome = Outcome()
                    for await (peer, sent) in tasks {
                        if sent { outcome.reached.append(peer) } else { outcome.missed.append(peer) }
                    }
                    return outcome
                }
                if !outcome.reached.isEmpty || !outcome.missed.isEmpty { report(outcome) }
            }
        }
    }

    /// Writes `entries` to one peer in frames of at most ``LifecycleShare/maximumEntries``; false
    /// when the peer could not be reached (or went away while they were written).
    private static func send(
        _ entries: [LifecycleEntry], dropped: UInt32, over session: PeerSession,
        dialer: SessionDialer
    ) async -> Bool {
        do {
            try await dialer.connect(session)
            for start in stride(from: 0, to: entries.count, by: LifecycleShare.maximumEntries) {
                let part = Array(entries[start..<min(entries.count, start + LifecycleShare.maximumEntries)])
                try await session.send(.lifecycle(LifecycleShare(entries: part, dropped: start == 0 ? dropped : 0)))
            }
            return true
        } catch {
            return false
        }
    }

    deinit {
        batches.finish()
        sender?.cancel()
    }

    /// Stops sharing: what is queued is dropped and a batch being written ends (before the
    /// device's event loops shut down, so nothing is scheduled on them afterwards).
    func stop() async {
        batches.finish()
        sender?.cancel()
        await sender?.value
    }

    /// The entry a peer receives for `event`: its fields, without a userInfo too big to share.
    static func entry(_ event: LifecycleEvent) -> LifecycleEntry {
        let entry = LifecycleEntry(event)
        if let bytes = LifecycleShare.userInfoBytes(of: entry), bytes > LifecycleShare.maximumUserInfoBytes {
            return entry.withoutUserInfo(bytes: bytes)
        }
        return entry
    }

    /// An event of this device was recorded (on the queue).
    func record(_ event: LifecycleEvent) {
        recent.append(event)
        if recent.count > policy.backlog { recent.removeFirst(recent.count - policy.backlog) }
        let now = Date()
        let rate = Double(policy.eventsPerSecond)
        tokens = min(rate, tokens + max(0, now.timeIntervalSince(refilled)) * rate)
        refilled = now
        guard tokens >= 1 else {
            dropped &+= 1
            return
        }
        tokens -= 1
        pending.append(event)
        scheduleFlush()
    }

    /// A peer was heard from for the first time: it gets the backlog now.
    func peerAppeared() {
        scheduleFlush()
    }

    /// What a batch came to (on the queue). A peer it did not reach (its session could not open in
    /// time on a loaded machine, or it went away) is treated as new again: it gets the recent
    /// events, which end with what it missed, when it is tried again after a delay that doubles up
    /// to ``longestRetryDelay`` (a peer that can never be reached, like a device of another account
    /// that a test points this one at, costs one attempt every few seconds). A receiver keeps one
    /// copy of an event it is sent twice.
    fileprivate func delivered(_ outcome: Outcome) {
        for peer in outcome.reached { retryDelays[peer] = nil }
        guard !outcome.missed.isEmpty, let host, !host.isStopped else { return }
        var soonest = Self.longestRetryDelay
        for peer in outcome.missed {
            sharedWith.remove(peer)
            let delay = retryDelays[peer].map { min(Self.longestRetryDelay, $0 * 2) } ?? Self.firstRetryDelay
            retryDelays[peer] = delay
            soonest = min(soonest, delay)
        }
        guard !isRetryScheduled else { return }
        isRetryScheduled = true
        let bound = Confined(self)
        host.queue.asyncAfter(deadline: .now() + soonest) {
            bound.value.isRetryScheduled = false
            bound.value.scheduleFlush()
        }
    }

    private func scheduleFlush() {
        guard !isFlushScheduled else { return }
        isFlushScheduled = true
        // A while after the first event: a continuation's events are one frame, written once its
        // messages have crossed (sharing never competes with them for the link or the CPU).
        guard let host else { return }
        let bound = Confined(self)
        host.queue.asyncAfter(deadline: .now() + policy.batchDelay) { bound.value.flush() }
    }

    private func flush() {
        isFlushScheduled = false
        guard let host, !host.isStopped else { return }
        // While this device continues an activity, its messages go first (for half a second at most).
        if host.device.system.pendingContinuation != nil, postponements < Self.maximumPostponements {
            postponements += 1
            scheduleFlush()
            return
        }
        postponements = 0
        let nearby = Set(host.directory.peers.keys)
        sharedWith.formIntersection(nearby)
        retryDelays = retryDelays.filter { nearby.contains($0.key) }
        var peers: [PeerSession] = []
        var newPeers: [PeerSession] = []
        for id in nearby.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let session = host.directory.session(for: id) else { continue }
            if sharedWith.insert(id).inserted { newPeers.append(session) } else { peers.append(session) }
        }
        let events = pending
        pending = []
        // A new peer gets the recent events, which end with this batch's.
        let backlog = Array(recent.dropLast(min(recent.count, events.count)))
        guard !peers.isEmpty || !newPeers.isEmpty else { return }
        guard !events.isEmpty || !newPeers.isEmpty else { return }
        batches.yield(Batch(events: events, backlog: backlog, dropped: dropped, peers: peers, newPeers: newPeers))
        dropped = 0
    }
}

extension DeviceHost {
    /// Starts sharing: every event the device records from now is offered to the peers (on the queue).
    package func startSharingLifecycle() {
        let sharing = LifecycleSharing(host: self, policy: options.lifecycleSharingPolicy)
        lifecycleSharing = sharing
        device.addLifecycleObserver { [weak sharing] event in sharing?.record(event) }
    }

    /// A peer of the account shared lifecycle events (on the queue). Only the peer's own events
    /// are kept: an entry naming another device is not this peer's to tell.
    func receiveShared(_ share: LifecycleShare, from peer: PeerInfo) {
        let own = share.entries.filter { TerminalText.sanitized($0.device) == peer.name && $0.kind != nil }
        guard !own.isEmpty || share.dropped > 0 else { return }
        onSharedLifecycle?(peer, own, Int(share.dropped))
    }
}
