import Foundation

/// The last bytes that travelled to and from a device, kept for the inspector (F10 on the
/// terminal device): the last payload encoded here and the last one received, and the last
/// beacon opened from each peer. Bounded: one payload each way (a payload is at most the
/// device's limit) and at most ``maximumBeaconPeers`` beacons of 128 bytes.
public struct DeviceTraffic: Sendable, Hashable {
    /// A payload as it left or arrived.
    public struct Payload: Sendable, Hashable {
        public var continuation: ContinuationID
        /// The other device, when known (the origin knows it from the request).
        public var peer: PeerReference?
        public var bytes: Data
        public var time: Date

        public init(continuation: ContinuationID, peer: PeerReference?, bytes: Data, time: Date) {
            self.continuation = continuation
            self.peer = peer
            self.bytes = bytes
            self.time = time
        }
    }

    /// A beacon datagram this device opened and accepted.
    public struct Beacon: Sendable, Hashable {
        public var peer: PeerInfo
        public var datagram: [UInt8]
        public var time: Date

        public init(peer: PeerInfo, datagram: [UInt8], time: Date) {
            self.peer = peer
            self.datagram = datagram
            self.time = time
        }
    }

    /// The most peers whose last beacon is kept.
    public static let maximumBeaconPeers = 32

    /// The last payload this device encoded for a peer (sent, or refused for its size).
    public var sent: Payload?
    /// The last payload that arrived here (decoded or not).
    public var received: Payload?
    /// The last beacon opened from each peer, of the ``maximumBeaconPeers`` peers whose beacons
    /// were kept last.
    public var beacons: [DeviceID: Beacon] {
        Dictionary(kept.map { ($0.beacon.peer.id, $0.beacon) }, uniquingKeysWith: { _, last in last })
    }

    /// One slot per peer, at most ``maximumBeaconPeers``, each with the number of its last
    /// ``keep(_:)`` and its peer's ID hashed. A few dozen slots looked through are cheaper than a
    /// dictionary kept in order: nothing to allocate once the slots are full, and the ID hashed
    /// once per keep, not compared with each slot's (36 characters each, for a slot that is
    /// nearly always another peer's).
    private var kept: [(beacon: Beacon, number: Int, idHash: Int)] = []
    private var keeps = 0

    public init() {}

    /// Keeps `beacon` as its peer's last; beyond ``maximumBeaconPeers`` peers, the one kept
    /// longest ago is forgotten. A device hears this for every beacon of every peer: hundreds per
    /// second when hundreds of devices start at once.
    public mutating func keep(_ beacon: Beacon) {
        keeps += 1
        // Equal IDs hash alike, so only a slot whose hash matches can be the peer's; the IDs are
        // compared there (a match of hashes alone is not taken for the same peer).
        let idHash = beacon.peer.id.hashValue
        if let slot = kept.firstIndex(where: { $0.idHash == idHash && $0.beacon.peer.id == beacon.peer.id }) {
            kept[slot] = (beacon, keeps, idHash)
        } else if kept.count < Self.maximumBeaconPeers {
            kept.append((beacon, keeps, idHash))
        } else if let oldest = kept.indices.min(by: { kept[$0].number < kept[$1].number }) {
            kept[oldest] = (beacon, keeps, idHash)
        }
    }

    public static func == (left: DeviceTraffic, right: DeviceTraffic) -> Bool {
        left.sent == right.sent && left.received == right.received && left.beacons == right.beacons
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sent)
        hasher.combine(received)
        hasher.combine(beacons)
    }
}

/// A beacon datagram opened again for the inspector: its clear fields and its decrypted
/// plaintext's fields, each from the beacon codec (`docs/wire.md`, "Beacons").
public struct BeaconBytes: Sendable, Hashable {
    /// The datagram: version, nonce, ciphertext, tag.
    public var datagram: AnnotatedBytes
    /// The decrypted plaintext; no fields when it is not the encoding the codec writes.
    public var plaintext: AnnotatedBytes
    /// The sender as the beacon names it.
    public var sender: PeerInfo
    /// What an Apple device would send for the same advertisement (none for presence, goodbye
    /// and leaving), for the inspector's comparison.
    public var apple: AppleAdvertisementBytes?

    public init(
        datagram: AnnotatedBytes, plaintext: AnnotatedBytes, sender: PeerInfo, apple: AppleAdvertisementBytes? = nil
    ) {
        self.datagram = datagram
        self.plaintext = plaintext
        self.sender = sender
        self.apple = apple
    }
}

/// Apple's Handoff advertisement (BLE, Continuity type 0x0c) for the activity of a beacon,
/// sealed with a demo key: its bytes and its decrypted plaintext, each field annotated
/// (`docs/wire.md`, "Apple's advertisement").
public struct AppleAdvertisementBytes: Sendable, Hashable {
    /// Apple's manufacturer data, as a BLE scanner reports it.
    public var advertisement: AnnotatedBytes
    /// The 10 decrypted bytes.
    public var plaintext: AnnotatedBytes
    /// The key it is sealed with (a demo key: Apple's keys never leave its devices).
    public var key: [UInt8]

    public init(advertisement: AnnotatedBytes, plaintext: AnnotatedBytes, key: [UInt8]) {
        self.advertisement = advertisement
        self.plaintext = plaintext
        self.key = key
    }
}
