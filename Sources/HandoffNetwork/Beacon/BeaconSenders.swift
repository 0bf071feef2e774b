import Foundation
import HandoffCore

/// The 16 bytes a beacon names its sender by: the UUID of its ``DeviceID`` (``Beacon/wireID(for:)``;
/// a beacon's decoded ID is these bytes as lower-case UUID text, so two beacons name the same
/// device exactly when their bytes are equal). The receiving side keys its per-sender state by
/// it: two words to hash and compare, where the ID's 36 characters are hashed byte by byte.
package struct BeaconSenderID: Sendable, Hashable {
    let high: UInt64
    let low: UInt64

    /// The first 16 bytes of `bytes` (a beacon's plaintext starts with them).
    init(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count >= 16, "a beacon's sender is 16 bytes")
        high = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        low = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// The bytes a beacon of `id` carries (``Beacon/uuid(for:)``: the UUID itself, or a stable
    /// name-based one for an ID that is not a UUID).
    package init(_ id: DeviceID) {
        let uuid = Beacon.uuid(for: id).uuid
        self = withUnsafeBytes(of: uuid) { BeaconSenderID($0) }
    }

    /// The 16 bytes as a UUID.
    var uuid: UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return UUID(uuid: bytes)
    }
}

/// What a receiver remembers of the senders it decoded, by their 16 bytes: the ``PeerInfo`` (the
/// ID's text and the name) the same bytes gave last time, so a known sender's beacon makes no new
/// strings and its name is not checked again. Only a name that is exactly its bytes is
/// remembered, and a remembered one is used only for the same bytes and kind, so the result is
/// always what decoding those bytes gives: nothing is checked less.
///
/// Owned by one ``BeaconInboundHandler`` (confined to its event loop). Bounded: beyond
/// ``capacity`` senders it starts again from none (only authenticated beacons of the account
/// reach it).
struct BeaconSenders {
    static let capacity = 4096
    private var peers: [BeaconSenderID: PeerInfo] = [:]

    init() {}

    /// The sender as decoded last time (nil: not remembered).
    func peer(_ sender: BeaconSenderID) -> PeerInfo? { peers[sender] }

    /// Remembers `info` as what `sender`'s bytes decode to.
    mutating func remember(_ info: PeerInfo, as sender: BeaconSenderID) {
        if peers.count >= Self.capacity, peers[sender] == nil { peers.removeAll() }
        peers[sender] = info
    }

    /// How many senders are remembered.
    var count: Int { peers.count }
}
