import Foundation

/// Identifies one continuation on both devices: the continuing device mints it when the user
/// chooses the offer and sends it with the payload request; the origin stamps its save, payload,
/// streams and wasContinued events with it.
public struct ContinuationID: Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UUID
    public init(rawValue: UUID = RandomIdentifier.uuid()) { self.rawValue = rawValue }
    /// Lower-case UUID text, as the headless JSON's `continuation` field.
    public var description: String { rawValue.uuidString.lowercased() }
    /// The first eight hex digits, for the log.
    public var short: String { String(description.prefix(8)) }
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
    /// The host of its `webpageURL`, lower case (a browsing-web activity is advertised by it).
    public var webpageHost: String?

    public init(
        id: UUID, bundleIdentifier: String, teamIdentifier: String, activityType: String, title: String? = nil,
        isEligibleForHandoff: Bool = true, hasWebpageURL: Bool = false,
        supportsContinuationStreams: Bool = false, expirationDate: Date? = nil, isDocument: Bool = false,
        webpageHost: String? = nil
    ) {
        self.webpageHost = webpageHost?.lowercased()
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
        case .teamDiffers(let apps):
            "team differs: \(apps.joined(separator: ", ")) claim the type but belong to another team"
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
    /// A browsing-web activity: the page's host, whose hash the advertisement carries, decides
    /// when the user chooses it, before the fetch (an app whose associated domain the site
    /// approves, else the browser).
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

/// A phase of a continuation that step mode pauses before (``Device/isStepping``).
public enum StepPhase: Sendable, Hashable, CustomStringConvertible {
    case launch(bundleIdentifier: String, LaunchKind)
    case willContinue(bundleIdentifier: String, activityType: String)
    case fetch(from: String)
    case `continue`(bundleIdentifier: String, activityType: String)
    /// The origin's save callbacks before the payload leaves.
    case save(activityType: String)
    /// The payload leaving the origin.
    case send(bytes: Int, to: String)
    /// One restoration the continuing app asked for (`restoreUserActivityState` on its objects).
    case restore(bundleIdentifier: String, objects: Int)
    /// The continuing app opening continuation streams to the origin.
    case streams(from: String)

    /// The phase's name in the headless JSON.
    public var name: String {
        switch self {
        case .launch: "launch"
        case .willContinue: "willContinue"
        case .fetch: "fetch"
        case .continue: "continue"
        case .save: "save"
        case .send: "send"
        case .restore: "restore"
        case .streams: "streams"
        }
    }

    /// What the phase will do, in a sentence.
    public var description: String {
        switch self {
        case .launch(let bundle, let kind):
            kind == .cold ? "launch \(bundle) (cold: it is not running)" : "bring \(bundle) forward (warm)"
        case .willContinue(let bundle, let type): "ask \(bundle) willContinueUserActivityWithType \(type)"
        case .fetch(let peer): "ask \(peer) for the payload (the fetch timeout starts)"
        case .continue(let bundle, let type): "give \(bundle) the \(type) activity: continue, then its restorations"
        case .save(let type): "run the save callbacks of \(type) before the payload leaves (needsSave is set)"
        case .send(let bytes, let peer): "send the payload (\(ByteCount.text(bytes))) to \(peer)"
        case .restore(let bundle, let objects):
            "call restoreUserActivityState on \(objects) object\(objects == 1 ? "" : "s") of \(bundle) (the restoration handler)"
        case .streams(let peer): "open continuation streams to \(peer) (getContinuationStreams)"
        }
    }
}

/// How an app was started for a continuation.
public enum LaunchKind: String, Sendable, Hashable, Codable {
    /// The app was not running: it is launched (a scene app connects a new scene).
    case cold
    /// The app was running in the background: it is brought forward.
    case warm
}

/// What `willContinueUserActivityWithType` answered.
public enum WillContinueAnswer: Sendable, Hashable {
    /// The app delegate's answer: true, the app shows the user that it is continuing; false, the
    /// system does.
    case application(appShowsProgress: Bool)
    /// A scene's delegate was told (this scene); it answers nothing and the system shows progress.
    case scene(String)
}

/// Why the continuing app did not handle a delivered activity.
public enum NotHandledReason: Sendable, Hashable, CustomStringConvertible {
    /// `application(_:continue:restorationHandler:)` returned false (or is not implemented).
    case returnedFalse
    /// The scene delegate does not implement `scene(_:continue:)`: the activity reached no code.
    case sceneContinueNotImplemented(scene: String)
    /// The scene has no delegate: the scene manifest is wrong.
    case noSceneDelegate(scene: String, SceneSetupProblem)

    public var description: String {
        switch self {
        case .returnedFalse: "continue returned false"
        case .sceneContinueNotImplemented(let scene): "\(scene)'s delegate does not implement scene(_:continue:)"
        case .noSceneDelegate(let scene, let problem): "\(scene) has no scene delegate: \(problem)"
        }
    }
}

/// What became of an activity given to the continuing app.
public enum ContinueOutcome: Sendable, Hashable {
    case handled(ContinuedBy)
    case notHandled(NotHandledReason)
}

/// How the continuing app took an activity the system counts as continued, as far as the
/// system can know: the two app models tell it different things.
public enum ContinuedBy: Sendable, Hashable {
    /// `application(_:continue:restorationHandler:)` returned true; the restoration handler
    /// restored these objects.
    case application(restoredObjects: Int)
    /// `scene(_:continue:)` was called on this scene. It returns nothing, so the system cannot
    /// learn whether the app used the activity or refused it: it counts it continued either way.
    case scene(String)
    /// AppKit reopened this document (`file`, its name) itself: the activity was an iCloud
    /// document's automatic one and the app's `continue` returned false or is not implemented,
    /// so `NSDocumentController` opened the document and sent it `restoreUserActivityState`
    /// (Handoff Programming Guide, "Supporting a User Activity in Document-Based Apps").
    case documentReopened(file: String)
}

/// Why a save is happening.
public enum SaveReason: String, Sendable, Hashable, Codable {
    /// needsSave was set and the coalescing interval passed.
    case coalesced
    /// A payload is about to leave the device and needsSave is set: save first.
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
    /// How long a locked device goes on advertising its current activity (Apple's
    /// `UAUserActivityDefaults`: the advertisement is removed 8 s after lock).
    public var advertisingAfterLock: TimeInterval
    /// The rules this device bends on purpose (``Mutant``): none, unless the explorer or a test
    /// asks for a mutation run.
    package var mutants: Set<Mutant> = []

    public init(
        saveCoalescingInterval: TimeInterval = 1, payloadWarningBytes: Int = 3 * 1024,
        payloadLimitBytes: Int = 512 * 1024, offerLifetime: TimeInterval = 256, fetchTimeout: TimeInterval = 5,
        advertisingAfterLock: TimeInterval = 8
    ) {
        self.saveCoalescingInterval = saveCoalescingInterval
        self.payloadWarningBytes = payloadWarningBytes
        self.payloadLimitBytes = payloadLimitBytes
        self.offerLifetime = offerLifetime
        self.fetchTimeout = fetchTimeout
        self.advertisingAfterLock = advertisingAfterLock
    }
}

/// Whether a device is locked, as far as Handoff cares.
public enum LockState: Sendable, Hashable {
    case unlocked
    /// Locked at `since`: the current activity is still advertised until
    /// ``DeviceConfiguration/advertisingAfterLock`` has passed.
    case locked(since: Date)
    /// Locked, and the advertisement withdrawn: nothing is offered until the device is unlocked.
    case lockedNotAdvertising

    public var isLocked: Bool { self != .unlocked }

    /// Whether the device is locked and its advertising has stopped.
    public var hasStoppedAdvertising: Bool { self == .lockedNotAdvertising }
}

/// What is in front on a device.
public enum Front: Sendable, Hashable {
    /// Nothing was brought to the front yet: any app's activity may be current.
    case notYetKnown
    /// The home screen (or the desktop): no app's activity is current.
    case home
    case app(String)
}

/// One continuation the user started on this (receiving) device.
public struct ContinuationAttempt: Sendable, Hashable {
    public let id: ContinuationID
    public let peer: PeerInfo
    public let advertisement: Advertisement
    public let chosenAt: Date

    public init(id: ContinuationID, peer: PeerInfo, advertisement: Advertisement, chosenAt: Date) {
        self.id = id
        self.peer = peer
        self.advertisement = advertisement
        self.chosenAt = chosenAt
    }
}

/// The app a continuation goes to.
public enum ContinuationTarget: Sendable, Hashable {
    /// The app of the origin's team that claims the activity type.
    case app(bundleIdentifier: String, activityType: String)
    /// No app here claims it, but it has a web page: the browser opens it (native → web).
    case browser(bundleIdentifier: String)
    /// A browsing-web activity, routed by its page's host: an app the site approves, or the browser.
    case web(bundleIdentifier: String)

    public var bundleIdentifier: String {
        switch self {
        case .app(let bundle, _), .browser(let bundle), .web(let bundle): bundle
        }
    }

    /// The type the app receives (a browser and a web route receive a browsing-web activity).
    public var activityType: String {
        switch self {
        case .app(_, let type): type
        case .browser, .web: UserActivity.browsingWebType
        }
    }
}

/// The continuation in progress on this (receiving) device, phase by phase; each phase holds only
/// what it has. The app is chosen before anything is fetched, on every path (a web page's by the
/// host its advertisement hashes), as Apple launches it and asks willContinue first.
public enum PendingContinuation: Sendable, Hashable {
    /// `willContinueUserActivityWithType` is asked; nothing is fetched yet.
    case askingApp(ContinuationAttempt, ContinuationTarget)
    /// The payload was requested at `since`; the continuation fails with 4610 at `deadline`.
    case fetching(ContinuationAttempt, ContinuationTarget, since: Date, deadline: Date)
    /// `continue(_:restorationHandler:)` has the payload; its answer is awaited.
    case delivering(ContinuationAttempt, ContinuationTarget, payload: ActivityPayload)

    public var attempt: ContinuationAttempt {
        switch self {
        case .askingApp(let attempt, _), .fetching(let attempt, _, _, _), .delivering(let attempt, _, _): attempt
        }
    }

    public var id: ContinuationID { attempt.id }
    public var peer: PeerInfo { attempt.peer }

    /// The app it goes to.
    public var target: ContinuationTarget {
        switch self {
        case .askingApp(_, let target), .fetching(_, let target, _, _), .delivering(_, let target, _): target
        }
    }
}

extension ActivitySnapshot {
    /// The hash its advertisement carries: a browsing-web activity's page host, else its type.
    public var advertisedHash: ActivityTypeHash {
        .advertised(activityType: activityType, webpageHost: webpageHost)
    }

    /// Whether it is advertised as a web page (by its host's hash).
    public var isAdvertisedAsWebPage: Bool {
        activityType == UserActivity.browsingWebType && webpageHost?.isEmpty == false
    }
}

extension ActivityPayload {
    /// The hash its activity was advertised with (``ActivitySnapshot/advertisedHash``), to match
    /// the payload with the offer.
    public var advertisedHash: ActivityTypeHash {
        .advertised(activityType: activityType, webpageHost: webpageURL?.host?.lowercased())
    }
}

extension ActivitySnapshot {
    /// The activity as lifecycle events name it.
    public var reference: ActivityReference {
        ActivityReference(id: id, activityType: activityType, title: title, bundleIdentifier: bundleIdentifier)
    }
}

extension Advertisement {
    /// What pairs this advertisement on both devices.
    public var identity: AdvertisementIdentity {
        AdvertisementIdentity(device: device, serial: activitySerial, activityTypeHash: activityTypeHash)
    }
}
