import Crypto
import Foundation
import HandoffCore

/// One discovery beacon: what a device tells the other devices of its account, sealed with the
/// account's beacon key (see ``BeaconSealer`` and `docs/wire.md`, "Beacons").
package struct Beacon: Sendable, Hashable {
    package enum Message: Sendable, Hashable {
        /// The device is here, with no current activity.
        case presence
        /// Its current activity. On the wire `Advertisement.device` is not carried: the receiver
        /// sets it to the beacon's `device.id`.
        case advertisement(Advertisement)
        /// The activity went away (resigned or invalidated).
        case goodbye
        /// The device is exiting: peers drop it at once.
        case leaving
    }

    /// The sender. `id` should be a UUID string (``DeviceID``); on the wire it is the UUID's 16
    /// bytes, so the receiver sees it in lower-case UUID form (see ``wireID(for:)``). `name` is
    /// truncated at a character boundary to ``maximumNameBytes`` bytes of UTF-8.
    package var device: PeerInfo
    /// Milliseconds since 1970 when this boot of the sending device began listening for beacons
    /// (its discovery socket bound): increases across restarts (docs/wire.md).
    package var bootIdentifier: UInt64
    /// +1 per beacon sent in this boot.
    package var counter: UInt64
    /// When the sender sealed the beacon, by its clock (carried in whole milliseconds).
    package var sentAt: Date
    /// The sender's own TCP port for sessions (never the shared discovery port).
    package var sessionPort: UInt16
    package var message: Message

    package init(
        device: PeerInfo, bootIdentifier: UInt64, counter: UInt64, sentAt: Date, sessionPort: UInt16,
        message: Message
    ) {
        self.device = device
        self.bootIdentifier = bootIdentifier
        self.counter = counter
        self.sentAt = sentAt
        self.sessionPort = sessionPort
        self.message = message
    }

    /// The layout version in the clear first byte.
    package static let version: UInt8 = 1
    /// Every sealed beacon is exactly this long (padding hides the message kind and name length).
    package static let maximumLength = 128
    /// The longest device name carried, in bytes of UTF-8; longer names are cut at a character
    /// boundary. The same for every message kind, so a peer's name never flickers.
    package static let maximumNameBytes = 30

    /// The device ID as a receiver will see it: a lower-case UUID string, the form account
    /// identities use. An ID that is not a UUID is mapped to a stable name-based UUID (SHA-256 of the ID),
    /// so it still identifies the device, but not by the same string.
    package static func wireID(for id: DeviceID) -> DeviceID {
        DeviceID(uuid(for: id).uuidString.lowercased())
    }

    static func uuid(for id: DeviceID) -> UUID {
        if let uuid = UUID(uuidString: id.rawValue) { return uuid }
        var bytes = Array(SHA256.hash(data: Data(("handoff-sim device-id:" + id.rawValue).utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8 (custom)
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// `name` cut at a character boundary so that its UTF-8 form is at most `limit` bytes.
    package static func truncatedName(_ name: String, toBytes limit: Int = maximumNameBytes) -> String {
        if name.utf8.count <= limit { return name }
        var result = ""
        var used = 0
        for character in name {
            let size = character.utf8.count
            if used + size > limit { break }
            result.append(character)
            used += size
        }
        return result
    }
}

/// Why a datagram is not a beacon this device accepts. Every case is a drop, never a crash.
package enum BeaconError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer bytes than the smallest beacon.
    case tooShort
    /// More than ``Beacon/maximumLength`` bytes.
    case tooLong
    /// A layout version this build does not speak.
    case unsupportedVersion(UInt8)
    /// The AEAD tag does not verify: another account's key, or tampered bytes.
    case authenticationFailed
    /// Authentic, but its content breaks the layout (only a buggy sender of the account can do this).
    case malformed(String)

    package var description: String {
        switch self {
        case .tooShort: "beacon too short"
        case .tooLong: "beacon longer than \(Beacon.maximumLength) bytes"
        case .unsupportedVersion(let version): "unsupported beacon version \(version)"
        case .authenticationFailed: "beacon authentication failed"
        case .malformed(let reason): "malformed beacon: \(reason)"
        }
    }
}
