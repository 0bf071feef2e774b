import Foundation
import HandoffCore

/// What the inspector (F10) shows for one offer or continuation: the userInfo on each side that
/// is known here, its size against Apple's guidance and the limit, and the bytes that travelled
/// with their fields (the payload and the peer's last beacon), all as plain values made before
/// drawing: the view only draws them.
package struct Inspection: Hashable, Sendable {
    /// What the inspector was opened on.
    package enum Subject: Hashable, Sendable {
        /// The latest continuation of this device, either side (or the featured offer).
        case latest
        /// The offer or last continuation of this peer (Nearby's selection).
        case peer(DeviceID)
    }

    /// One side's userInfo.
    package struct Side: Hashable, Sendable {
        /// The device's name.
        package var device: String
        /// What it is: "saved by the origin", "restored by the receiver"…
        package var role: String
        package var userInfo: UserInfo

        package init(device: String, role: String, userInfo: UserInfo) {
            self.device = device
            self.role = role
            self.userInfo = userInfo
        }
    }

    /// The payload's bytes as they left or arrived here.
    package struct PayloadBytes: Hashable, Sendable {
        /// "sent to Phone", "received from Laptop".
        package var direction: String
        package var size: Int
        /// The encoding with its fields; nil when the bytes are not a payload this codec writes.
        package var annotated: AnnotatedBytes?
        /// The raw bytes (kept only when there are no fields to draw).
        package var raw: [UInt8]
        /// Why there are no fields.
        package var problem: String?

        package init(
            direction: String, size: Int, annotated: AnnotatedBytes?, raw: [UInt8] = [], problem: String? = nil
        ) {
            self.direction = direction
            self.size = size
            self.annotated = annotated
            self.raw = raw
            self.problem = problem
        }
    }

    /// The last beacon opened from the peer.
    package struct Beacon: Hashable, Sendable {
        package var peer: String
        package var received: Date
        package var bytes: BeaconBytes?
        package var problem: String?

        package init(peer: String, received: Date, bytes: BeaconBytes?, problem: String? = nil) {
            self.peer = peer
            self.received = received
            self.bytes = bytes
            self.problem = problem
        }
    }

    /// One line naming what is inspected ("Continuation 1a2b3c4d: Laptop → Phone").
    package var title: String
    package private(set) var origin: Side?
    package private(set) var receiver: Side?
    /// Where the side not known here lives, when one is missing.
    package var missingSide: String?
    package var payload: PayloadBytes?
    package var beacon: Beacon?
    /// Apple's guidance for a payload (3 KB) and this device's hard limit (4611 above it).
    package var guidanceBytes: Int
    package var limitBytes: Int
    /// When nothing has travelled yet: what to do.
    package var emptyReason: String?
    /// The tree of both sides with their differences, made once with the inspection (a userInfo
    /// may hold thousands of keys).
    package private(set) var treeRows: [UserInfoTreeRow] = []

    package init(
        title: String, origin: Side? = nil, receiver: Side? = nil, missingSide: String? = nil,
        payload: PayloadBytes? = nil, beacon: Beacon? = nil, guidanceBytes: Int = 3 * 1024,
        limitBytes: Int = 512 * 1024, emptyReason: String? = nil
    ) {
        self.title = title
        self.origin = origin
        self.receiver = receiver
        self.missingSide = missingSide
        self.payload = payload
        self.beacon = beacon
        self.guidanceBytes = guidanceBytes
        self.limitBytes = limitBytes
        self.emptyReason = emptyReason
        treeRows = UserInfoTree.rows(origin: origin?.userInfo, receiver: receiver?.userInfo)
    }

    /// The payload's size: the bytes that travelled, else the size a lifecycle event gave.
    package var size: Int? { payload?.size }
}

// MARK: - Building from the device

extension Inspection {
    /// What `device` knows about `subject`: its lifecycle (the userInfo saved and restored), its
    /// traffic (the payload bytes, the peer's last beacon, opened again with the device's
    /// `beaconInspector`), and what peers of the account shared of theirs (`shared`: the other
    /// side's userInfo, when the peer shares its lifecycle).
    package init(subject: Subject, device: Device, shared: [LifecycleEntry] = []) {
        let lifecycle = device.lifecycle
        let configuration = device.system.configuration
        let guidance = configuration.payloadWarningBytes
        let limit = configuration.payloadLimitBytes
        // The continuation: the newest one this device took part in (with that peer).
        var continuation: ContinuationID?
        var peer: PeerReference?
        for event in lifecycle.reversed() {
            let found: (ContinuationID, PeerReference)? =
                switch event.occurrence {
                case .continueChosen(let id, let from, _): (id, from)
                case .payloadRequested(let id, let by, _): (id, by)
                default: nil
                }
            guard let found else { continue }
            if case .peer(let wanted) = subject, found.1.id != wanted { continue }
            (continuation, peer) = found
            break
        }
        let subjectPeer: DeviceID? =
            if case .peer(let id) = subject { id } else { peer?.id ?? Self.featuredPeer(device) }
        let peerName = peer?.name ?? subjectPeer.flatMap { id in device.system.offers[id]?.peer.name }
        let beacon = subjectPeer.flatMap { Self.beacon(from: $0, device: device) }
        guard let continuation else {
            let title = peerName.map { "Offer from \($0): no continuation yet" } ?? "Nothing has travelled yet"
            self.init(
                title: title, beacon: beacon, guidanceBytes: guidance, limitBytes: limit,
                emptyReason:
                    "No payload has travelled. Continue an activity here (Ctrl-O, or Enter in Nearby), or from another device, then open the inspector (F10) again."
            )
            return
        }
        var origin: Side?
        var receiver: Side?
        var received: Side?
        var isOrigin = false
        var refusal: HandoffError?
        for event in lifecycle {
            switch event.occurrence {
            case .payloadSent(continuation, _, _, _, let userInfo):
                origin = Side(device: event.device, role: "saved by the origin", userInfo: userInfo)
            case .payloadRequested(continuation, _, _):
                isOrigin = true
            case .payloadRefused(continuation, _, let error):
                refusal = error
            case .payloadReceived(continuation, _, _, _, _, let userInfo):
                received = Side(device: event.device, role: "received (no app had it yet)", userInfo: userInfo)
            case .continueCalled(continuation, _, _), .sceneContinue(continuation, _, _, _):
                received?.role = "given to the app (continue)"
            case .restoreUserActivityState(continuation, _, _, let userInfo):
                receiver = Side(device: event.device, role: "restored by the receiver", userInfo: userInfo)
            default:
                break
            }
        }
        receiver = receiver ?? received
        let other = peerName ?? "the other device"
        // The other side, from what its device shared (its events of this continuation).
        var omitted: (device: String, bytes: Int)?
        let id = continuation.description
        var sharedReceived: Side?
        for entry in shared where entry.continuation == id {
            let role: String? =
                switch entry.kind {
                case .payloadSent where origin == nil: "saved by the origin (shared)"
                case .restoreUserActivityState where receiver == nil: "restored by the receiver (shared)"
                case .payloadReceived where receiver == nil: "received by the receiver (shared)"
                default: nil
                }
            guard let role else { continue }
            guard let userInfo = entry.userInfo else {
                if let bytes = entry.integer("userInfoOmitted") { omitted = (entry.device, Int(bytes)) }
                continue
            }
            let side = Side(device: entry.device, role: role, userInfo: userInfo)
            if entry.kind == .payloadSent {
                origin = side
            } else if entry.kind == .payloadReceived {
                sharedReceived = side
            } else {
                receiver = side
            }
        }
        receiver = receiver ?? sharedReceived
        let me = device.info.name
        var title = "Continuation \(continuation.short): " + (isOrigin ? "\(me) → \(other)" : "\(other) → \(me)")
        var missing: String?
        if origin == nil, receiver != nil {
            missing = "What the origin saved is known on \(other) (its inspector shows it)."
        } else if receiver == nil, origin != nil {
            missing =
                isOrigin
                ? "What the receiver restored is known on \(other) (its inspector shows it)."
                : "Nothing was restored here."
        } else if origin == nil, receiver == nil {
            missing = "No userInfo travelled: the continuation stopped before the payload."
            title += " (no payload)"
        }
        if let omitted {
            missing =
                (missing.map { $0 + " " } ?? "")
                + "\(omitted.device) shared this step without its userInfo (\(omitted.bytes) bytes, over the sharing limit)."
        }
        var payload: PayloadBytes?
        let traffic = device.traffic
        if let sent = traffic.sent, sent.continuation == continuation, isOrigin {
            let direction =
                refusal.map { "encoded for \(other) but refused (\($0.code.rawValue)), never sent" }
                ?? "sent to \(other)"
            payload = Self.payload(sent.bytes, direction: direction)
        } else if let arrived = traffic.received, arrived.continuation == continuation {
            payload = Self.payload(arrived.bytes, direction: "received from \(other)")
        }
        self.init(
            title: title, origin: origin, receiver: receiver, missingSide: missing, payload: payload,
            beacon: beacon, guidanceBytes: guidance, limitBytes: limit)
    }

    static func featuredPeer(_ device: Device) -> DeviceID? {
        device.system.offers.values.max { $0.firstSeen < $1.firstSeen }?.peer.id
    }

    static func payload(_ data: Data, direction: String) -> PayloadBytes {
        do {
            if let annotated = try ActivityPayload.annotated(data) {
                return PayloadBytes(direction: direction, size: data.count, annotated: annotated)
            }
            return PayloadBytes(
                direction: direction, size: data.count, annotated: nil, raw: Array(data.prefix(4096)),
                problem: "These bytes decode, but not as this codec writes them: no fields shown.")
        } catch {
            return PayloadBytes(
                direction: direction, size: data.count, annotated: nil, raw: Array(data.prefix(4096)),
                problem: "Not a payload: \(error)")
        }
    }

    static func beacon(from peer: DeviceID, device: Device) -> Beacon? {
        guard let kept = device.traffic.beacons[peer] else { return nil }
        guard let inspector = device.beaconInspector else {
            return Beacon(
                peer: kept.peer.name, received: kept.time, bytes: nil, problem: "This device cannot open beacons.")
        }
        guard let bytes = inspector(kept.datagram) else {
            return Beacon(
                peer: kept.peer.name, received: kept.time, bytes: nil, problem: "The beacon could not be opened again.")
        }
        return Beacon(peer: kept.peer.name, received: kept.time, bytes: bytes)
    }
}

// MARK: - Made once per change

/// The last inspection made and what it was made from, so that frames and keys while the
/// inspector is open do not decrypt, decode and lay out again: a new one is made only when the
/// subject, the lifecycle, the traffic or what peers shared changed.
package final class InspectionCache {
    private struct Key: Hashable {
        var subject: Inspection.Subject
        var lifecycleCount: Int
        var lastEvent: Date?
        var sent: Date?
        var received: Date?
        var beacons: [Date]
        var shared: Int
        var sharedLast: Date?
    }

    private var key: Key?
    private var inspection: Inspection?

    package init() {}

    package func inspection(subject: Inspection.Subject, device: Device, shared: [LifecycleEntry]) -> Inspection {
        let traffic = device.traffic
        let key = Key(
            subject: subject, lifecycleCount: device.lifecycle.count, lastEvent: device.lifecycle.last?.time,
            sent: traffic.sent?.time, received: traffic.received?.time,
            beacons: traffic.beacons.values.map(\.time).sorted(), shared: shared.count, sharedLast: shared.last?.time)
        if key == self.key, let inspection { return inspection }
        let made = Inspection(subject: subject, device: device, shared: shared)
        self.key = key
        inspection = made
        return made
    }
}

// MARK: - The userInfo tree

/// One line of the userInfo tree: a key (or index) at a depth, its value on each side, and
/// whether the sides differ.
package struct UserInfoTreeRow: Hashable, Sendable {
    package enum Mark: Hashable, Sendable {
        /// Both sides hold the same (or only one side is known).
        case same
        /// Both sides hold the key, with different values.
        case changed
        /// Only the receiver has it.
        case added
        /// Only the origin has it.
        case removed
    }

    package var depth: Int
    package var key: String
    /// The value's text on the origin's side; nil when that side lacks it (or is not known).
    package var origin: String?
    package var receiver: String?
    package var mark: Mark

    package init(depth: Int, key: String, origin: String?, receiver: String?, mark: Mark) {
        self.depth = depth
        self.key = key
        self.origin = origin
        self.receiver = receiver
        self.mark = mark
    }
}

package enum UserInfoTree {
    /// The rows of both sides' userInfo, keys sorted, collections opened; differences marked.
    /// With one side nil (not known here), the other side's rows, unmarked.
    package static func rows(origin: UserInfo?, receiver: UserInfo?) -> [UserInfoTreeRow] {
        var rows: [UserInfoTreeRow] = []
        switch (origin, receiver) {
        case (nil, nil): break
        case (let origin?, nil): add(entries(.dictionary(origin)), nil, depth: 0, known: (true, false), into: &rows)
        case (nil, let receiver?): add(nil, entries(.dictionary(receiver)), depth: 0, known: (false, true), into: &rows)
        case (let origin?, let receiver?):
            add(
                entries(.dictionary(origin)), entries(.dictionary(receiver)), depth: 0, known: (true, true), into: &rows
            )
        }
        return rows
    }

    /// A collection's children by key: dictionary keys, array indices, set elements by text.
    static func entries(_ value: UserInfoValue) -> [(key: String, value: UserInfoValue)]? {
        switch value {
        case .dictionary(let dictionary):
            return dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        case .array(let array):
            return array.enumerated().map { ("[\($0.offset)]", $0.element) }
        case .set(let set):
            return set.map { (text($0), $0) }.sorted { $0.0 < $1.0 }.map { ("∈ " + $0.0, $0.1) }
        default:
            return nil
        }
    }

    private static func add(
        _ origin: [(key: String, value: UserInfoValue)]?, _ receiver: [(key: String, value: UserInfoValue)]?,
        depth: Int, known: (Bool, Bool), into rows: inout [UserInfoTreeRow]
    ) {
        var keys: [String] = []
        var seen: Set<String> = []
        for key in (origin ?? []).map(\.key) + (receiver ?? []).map(\.key) where seen.insert(key).inserted {
            keys.append(key)
        }
        if origin != nil, receiver != nil { keys.sort(by: keyPrecedes) }
        let originValues = Dictionary(
            (origin ?? []).map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let receiverValues = Dictionary(
            (receiver ?? []).map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        for key in keys {
            let left = originValues[key]
            let right = receiverValues[key]
            let mark: UserInfoTreeRow.Mark
            if !known.0 || !known.1 {
                mark = .same
            } else if let left, let right {
                mark = left == right ? .same : .changed
            } else {
                mark = left == nil ? .added : .removed
            }
            let isSet = key.hasPrefix("∈ ")
            let shownKey = isSet ? "∈" : key
            rows.append(
                UserInfoTreeRow(
                    depth: depth, key: shownKey, origin: left.map(summary), receiver: right.map(summary), mark: mark))
            let leftChildren = left.flatMap(entries)
            let rightChildren = right.flatMap(entries)
            if leftChildren != nil || rightChildren != nil, !isSet {
                add(leftChildren, rightChildren, depth: depth + 1, known: known, into: &rows)
            }
        }
    }

    /// Array indices by number, other keys by text.
    static func keyPrecedes(_ a: String, _ b: String) -> Bool {
        func index(_ key: String) -> Int? {
            key.hasPrefix("[") && key.hasSuffix("]") ? Int(key.dropFirst().dropLast()) : nil
        }
        if let left = index(a), let right = index(b) { return left < right }
        return a < b
    }

    /// A value in a few words: scalars in full (long text cut), collections by kind and count.
    package static func summary(_ value: UserInfoValue) -> String {
        switch value {
        case .array(let array): "array (\(array.count))"
        case .dictionary(let dictionary): "dictionary (\(dictionary.count))"
        case .set(let set): "set (\(set.count))"
        default: text(value)
        }
    }

    static func text(_ value: UserInfoValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let integer): return "\(integer)"
        case .double(let double): return "\(double)"
        case .string(let string):
            return string.count > 60
                ? String(String(string.prefix(60)).debugDescription.dropLast()) + "…\"" : string.debugDescription
        case .data(let data): return "<\(ByteCount.text(data.count)) of data>"
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            return seconds.isFinite && abs(seconds) < 1e11
                ? date.formatted(Date.ISO8601FormatStyle()) : "date \(seconds)"
        case .url(let url): return url.absoluteString
        case .uuid(let uuid): return uuid.uuidString
        case .array, .dictionary, .set: return summary(value)
        }
    }
}
