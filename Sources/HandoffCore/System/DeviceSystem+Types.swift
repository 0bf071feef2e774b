import Foundation

/// Identifies one attempt to continue an offer on the receiving device.
public struct ContinuationID: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "continuation-\(rawValue)" }
}

/// Identifies one payload request served by the originating device.
public struct PayloadRequestID: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "request-\(rawValue)" }
}

/// The facts about a local activity that the system's decisions depend on.
public struct ActivitySnapshot: Sendable, Hashable {
    public var id: UUID
    public var bundleIdentifier: String
    public var teamIdentifier: String
    public var activityType: String
    public var title: String?
    public var isEligibleForHandoff: Bool
    public var hasWebpageURL: Bool
    public var supportsContinuationStreams: Bool
    public var expirationDate: Date?
    public var isDocument: Bool

    public init(id: UUID, bundleIdentifier: String, teamIdentifier: String, activityType: String, title: String? = nil,
                isEligibleForHandoff: Bool = true, hasWebpageURL: Bool = false,
                supportsContinuationStreams: Bool = false, expirationDate: Date? = nil, isDocument: Bool = false) {
        self.id = id
        self.bundleIdentifier = bundleIdentifier
        self.teamIdentifier = teamIdentifier
        self.activityType = activityType
        self.title = title
        self.isEligibleForHandoff = isEligibleForHandoff
        self.hasWebpageURL = hasWebpageURL
        self.supportsContinuationStreams = supportsContinuationStreams
        self.expirationDate = expirationDate
        self.isDocument = isDocument
    }
}

/// Why this device cannot continue an offer.
public enum Unavailability: Sendable, Hashable, CustomStringConvertible {
    /// No installed app claims the activity type (in `NSUserActivityTypes` or as a document's
    /// ubiquitous activity type), and there is no web page to fall back to.
    case noAppClaimsType
    /// Apps claim the type, but none is of the origin app's team.
    case teamDiffers(bundleIdentifiers: [String])
    /// The activity passed its expiration date.
    case expired
    /// The origin marked the activity as not eligible for Handoff.
    case notEligible

    public var description: String {
        switch self {
        case .noAppClaimsType: "no installed app claims this activity type"
        case .teamDiffers(let apps): "team differs: \(apps.joined(separator: ", ")) claim the type but belong to another team"
        case .expired: "the activity has expired"
        case .notEligible: "the activity is not eligible for Handoff"
        }
    }
}

/// Where an offered activity would go on this device.
public enum Route: Sendable, Hashable, CustomStringConvertible {
    /// The app of the same team that claims the type.
    case app(bundleIdentifier: String, activityType: String)
    /// No app can continue it natively, but it has a web page: the browser opens it.
    case browser(bundleIdentifier: String, because: Unavailability)
    /// A browsing-web activity: the page's host decides after the payload arrives (an app whose
    /// associated domain the site approves, else the browser).
    case web(browserBundleIdentifier: String?)
    /// This device cannot continue it.
    case unavailable(Unavailability)

    public var isContinuable: Bool {
        if case .unavailable = self { false } else { true }
    }

    public var description: String {
        switch self {
        case .app(let bundle, let type): "\(bundle) continues \(type)"
        case .browser(let bundle, let why): "\(bundle) opens the web page (\(why))"
        case .web(let browser): "web page: an approved app, else \(browser ?? "no browser")"
        case .unavailable(let why): "cannot continue: \(why)"
        }
    }
}

/// An activity offered by a peer, as this device sees it.
public struct Offer: Sendable, Hashable {
    public var peer: PeerInfo
    public var advertisement: Advertisement
    public var firstSeen: Date
    public var lastSeen: Date
    public var route: Route
    /// The payload size of the last continuation from this offer, once known.
    public var payloadSize: Int?
}

/// Why a save is happening.
public enum SaveReason: String, Sendable, Hashable, Codable {
    /// needsSave was set and the coalescing interval passed.
    case coalesced
    /// A payload is about to leave the device: always save first.
    case beforeSending
}

/// The tunable behaviour of a ``DeviceSystem``.
public struct DeviceConfiguration: Sendable, Hashable {
    /// How long needsSave changes are coalesced before a save (0 saves at once).
    public var saveCoalescingInterval: TimeInterval
    /// Payloads larger than this record a warning (Apple's guidance: 3 KB).
    public var payloadWarningBytes: Int
    /// Payloads larger than this are refused with 4611 (by the origin and by the receiver).
    public var payloadLimitBytes: Int
    /// How long after the last beacon an offer is kept.
    public var offerLifetime: TimeInterval
    /// How long the receiver waits for the payload before failing with 4610.
    public var fetchTimeout: TimeInterval

    public init(saveCoalescingInterval: TimeInterval = 1, payloadWarningBytes: Int = 3 * 1024,
                payloadLimitBytes: Int = 512 * 1024, offerLifetime: TimeInterval = 256, fetchTimeout: TimeInterval = 5) {
        self.saveCoalescingInterval = saveCoalescingInterval
        self.payloadWarningBytes = payloadWarningBytes
        self.payloadLimitBytes = payloadLimitBytes
        self.offerLifetime = offerLifetime
        self.fetchTimeout = fetchTimeout
    }
}
