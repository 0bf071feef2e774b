import Crypto
import Foundation
import Synchronization

/// Identifies a device of an account.
///
/// Its text is hashed once, when the ID is made (or its text set): a dictionary keyed by
/// device IDs (the peer directory, the device's offers, the inspector's beacons) then hashes one
/// word per look-up instead of the 36 characters of a UUID's text, which every device does for
/// every beacon it hears (N(N − 1) times when N devices start together). Equal IDs have equal
/// texts, so equal hashes; two IDs are equal exactly when their texts are (`==` compares the
/// texts, after the hashes as a quick test of inequality). The hash is the process's own
/// (`Hasher`, seeded per process): it is never written anywhere, and an ID encodes as its text.
public struct DeviceID: RawRepresentable, Sendable, Hashable, Codable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public var rawValue: String {
        didSet { textHash = Self.hash(of: rawValue) }
    }
    /// `rawValue`'s hash (a function of the text alone within this process).
    private var textHash: Int

    public init(rawValue: String) {
        self.rawValue = rawValue
        textHash = Self.hash(of: rawValue)
    }
    public init(_ rawValue: String) { self.init(rawValue: rawValue) }
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    public var description: String { rawValue }
    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.rawValue < rhs.rawValue }

    public static func == (lhs: DeviceID, rhs: DeviceID) -> Bool {
        lhs.textHash == rhs.textHash && lhs.rawValue == rhs.rawValue
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(textHash) }

    /// As its text, a single string (as before the hash was kept).
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    private static func hash(of text: String) -> Int {
        var hasher = Hasher()
        hasher.combine(text)
        return hasher.finalize()
    }
}

/// What a device shows of itself to peers of its account.
public struct PeerInfo: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case phone, tablet, laptop
    }

    public var id: DeviceID
    public var name: String
    public var kind: Kind

    public init(id: DeviceID, name: String, kind: Kind) {
        self.id = id
        self.name = name
        self.kind = kind
    }
}

/// The 7-byte hash of an activity type that advertisements carry instead of the type itself.
///
/// Apple's rule, as reproduced by public research: SHA-512 of `":" + activityType`, the 64 digest
/// bytes XOR-folded into 7 (byte *i* into position *i* mod 7), then the top two bits of the first
/// byte set to `0b10`. The team is carried separately as a ``TeamHash``.
public struct ActivityTypeHash: Sendable, Hashable, Codable, CustomStringConvertible {
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    public init(activityType: String) {
        bytes = Self.hashes.value(for: activityType) { Self.fold(":" + $0) }
    }

    /// The hash a browsing-web activity is advertised with: its page's host, not its type.
    ///
    /// Apple's rule (the notes, §1, from sharingd's `_LSCopyAdvertisementStringForTeamIdentifierAndActivityType`):
    /// "for `NSUserActivityTypeBrowsingWeb` the hashed string is the URL host". The receiver
    /// matches it against the hosts its apps name in their `activitycontinuation:` domains, so it
    /// knows which app takes the page before it fetches the payload. The host is hashed lower
    /// case, with the same fold; Apple's exact advertisement string for a host is not published.
    public init(webpageHost host: String) {
        bytes = Self.hostHashes.value(for: host.lowercased()) { Self.fold($0) }
    }

    /// What an advertisement carries for an activity of `activityType` whose page is on
    /// `webpageHost`: the host's hash for a browsing-web activity with a page, else the type's.
    public static func advertised(activityType: String, webpageHost: String?) -> ActivityTypeHash {
        if activityType == UserActivity.browsingWebType, let host = webpageHost, !host.isEmpty {
            return ActivityTypeHash(webpageHost: host)
        }
        return ActivityTypeHash(activityType: activityType)
    }

    /// SHA-512 of `string`, XOR-folded into 7 bytes, the top two bits `0b10`.
    private static func fold(_ string: String) -> [UInt8] {
        let digest = SHA512.hash(data: Data(string.utf8))
        var folded = [UInt8](repeating: 0, count: 7)
        for (index, byte) in digest.enumerated() { folded[index % 7] ^= byte }
        folded[0] = (folded[0] & 0x3F) | 0x80
        return folded
    }

    /// The hash of the browsing-web type (``UserActivity/browsingWebType``), which every offer
    /// heard is compared with: made once, not looked up in ``hashes`` for each.
    static let browsingWeb = ActivityTypeHash(activityType: UserActivity.browsingWebType)

    /// The hashes computed so far: a device matches every beacon's hash against each of its apps'
    /// types, and hashes a type again at each step of a continuation (a SHA-512 each time).
    private static let hashes = HashCache()
    /// The same for hosts (kept apart: a host and a type may be the same string).
    private static let hostHashes = HashCache()

    public var description: String { bytes.map { String(format: "%02x", $0) }.joined() }
}

/// A 4-byte hash of a team identifier, so a receiver can tell "same type, other team" apart.
public struct TeamHash: Sendable, Hashable, Codable, CustomStringConvertible {
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    public init(teamIdentifier: String) {
        bytes = Self.hashes.value(for: teamIdentifier) { Array(SHA256.hash(data: Data(("team:" + $0).utf8)).prefix(4)) }
    }

    private static let hashes = HashCache()

    public var description: String { bytes.map { String(format: "%02x", $0) }.joined() }
}

/// What a device advertises about its current activity: enough for a peer to decide whether it
/// can continue it, and nothing more (no type, title or user data).
public struct Advertisement: Sendable, Hashable, Codable {
    /// Option bits, after Apple's advertisement option byte.
    public struct Options: OptionSet, Sendable, Hashable, Codable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// The activity has a `webpageURL` (a device without the app can open it in a browser).
        public static let hasWebpageURL = Options(rawValue: 0x01)
        /// The activity supports continuation streams.
        public static let supportsContinuationStreams = Options(rawValue: 0x02)
        /// The activity is eligible for Handoff.
        public static let isEligibleForHandoff = Options(rawValue: 0x04)
        /// The activity belongs to an open document.
        public static let isDocument = Options(rawValue: 0x08)
        /// A browsing-web activity: the hash is its page's host, not its type
        /// (``ActivityTypeHash/init(webpageHost:)``), as Apple advertises web pages.
        public static let isBrowsingWeb = Options(rawValue: 0x10)
    }

    /// The advertising device.
    public var device: DeviceID
    public var activityTypeHash: ActivityTypeHash
    public var teamHash: TeamHash
    public var options: Options
    /// Increases every time the device advertises a different activity, so a receiver can tell a
    /// refreshed offer from a new one.
    public var activitySerial: UInt32
    /// When the activity's state was last saved (freshness).
    public var savedAt: Date
    /// When the activity expires, if it has an expiration date.
    public var expiresAt: Date?

    public init(
        device: DeviceID, activityTypeHash: ActivityTypeHash, teamHash: TeamHash, options: Options,
        activitySerial: UInt32, savedAt: Date, expiresAt: Date? = nil
    ) {
        self.device = device
        self.activityTypeHash = activityTypeHash
        self.teamHash = teamHash
        self.options = options
        self.activitySerial = activitySerial
        self.savedAt = savedAt
        self.expiresAt = expiresAt
    }
}

extension Advertisement {
    /// Whether it offers a web page (a browsing-web activity): its hash is then the page's host.
    public var isWebPage: Bool {
        options.contains(.isBrowsingWeb)
            || activityTypeHash == ActivityTypeHash.browsingWeb
    }

    /// Whether `other` describes the same state of the same activity: equal in everything but
    /// small differences of the reconstructed times (a refresh of the same beacon).
    public func isSameState(as other: Advertisement, tolerance: TimeInterval = 1) -> Bool {
        guard device == other.device, activityTypeHash == other.activityTypeHash, teamHash == other.teamHash,
            options == other.options, activitySerial == other.activitySerial,
            abs(savedAt.timeIntervalSince(other.savedAt)) <= tolerance
        else { return false }
        switch (expiresAt, other.expiresAt) {
        case (nil, nil): return true
        case (let a?, let b?): return abs(a.timeIntervalSince(b)) <= tolerance
        default: return false
        }
    }
}

/// Hashes of short strings already computed, shared by every device of the process. Bounded: a
/// peer sending ever new activity types (a payload's type is hashed on arrival) only makes it
/// start over.
final class HashCache: Sendable {
    private let values = Mutex<[String: [UInt8]]>([:])
    static let capacity = 512

    func value(for key: String, computing compute: (String) -> [UInt8]) -> [UInt8] {
        if let known = values.withLock({ $0[key] }) { return known }
        let value = compute(key)
        values.withLock { values in
            if values.count >= Self.capacity { values.removeAll(keepingCapacity: true) }
            values[key] = value
        }
        return value
    }
}
