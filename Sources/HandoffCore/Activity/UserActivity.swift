import Foundation

/// Receives an activity's callbacks (Apple's `NSUserActivityDelegate`). Every method is optional.
public protocol UserActivityDelegate: AnyObject {
    /// The activity is about to be saved (always right before it leaves for another device):
    /// update `userInfo` now.
    func userActivityWillSave(_ userActivity: UserActivity)
    /// The activity was continued on another device.
    func userActivityWasContinued(_ userActivity: UserActivity)
    /// The continuing app opened continuation streams back to this activity.
    func userActivity(_ userActivity: UserActivity, didReceive streams: ContinuationStreams)
}

extension UserActivityDelegate {
    public func userActivityWillSave(_ userActivity: UserActivity) {}
    public func userActivityWasContinued(_ userActivity: UserActivity) {}
    public func userActivity(_ userActivity: UserActivity, didReceive streams: ContinuationStreams) {}
}

/// What the user is doing in an app, in a form another device can continue (Apple's `NSUserActivity`).
///
/// Create one with the app it belongs to, fill in its state, and make it current; or attach it
/// to a ``Responder`` and let the system manage it. Set ``needsSave`` when the state changes
/// instead of rewriting ``userInfo`` each time: the system saves lazily, and always right before
/// the activity leaves the device. Objects are confined to their device's run loop.
public final class UserActivity {
    /// Apple's `NSUserActivityTypeBrowsingWeb`: a web page being browsed.
    public static let browsingWebType = "NSUserActivityTypeBrowsingWeb"
    /// Apple's `NSUserActivityDocumentURLKey`: where a document activity keeps its document's URL.
    public static let documentURLKey = "NSUserActivityDocumentURL"

    /// The type, set at creation and never changed: any non-empty string, best reverse-DNS such as `com.example.reading`.
    public let activityType: String
    /// Apple's `uniqueIdentifier`-like identity of this activity, kept across a continuation.
    public let identifier: UUID
    /// The app the activity belongs to (the continuing app, for a received activity).
    public private(set) weak var application: Application?

    public var title: String? { didSet { if title != oldValue { propertiesChanged() } } }
    /// The activity's state: property-list-like values only (enforced by ``UserInfoValue``).
    public var userInfo: UserInfo = [:]
    /// Set when the state changed and should be saved before the activity is next sent.
    public var needsSave = false {
        didSet { if needsSave && !oldValue && isValid { application?.device?.activityNeedsSave(self) } }
    }
    public private(set) var webpageURL: URL?
    /// The keys the receiving app needs; when not empty, only these keys (and the document URL key)
    /// leave the device.
    public var requiredUserInfoKeys: Set<String> = []
    public var expirationDate: Date? { didSet { if expirationDate != oldValue { propertiesChanged() } } }
    public var isEligibleForHandoff = true { didSet { if isEligibleForHandoff != oldValue { propertiesChanged() } } }
    public var targetContentIdentifier: String?
    public var supportsContinuationStreams = false {
        didSet { if supportsContinuationStreams != oldValue { propertiesChanged() } }
    }
    public weak var delegate: (any UserActivityDelegate)?

    /// False once ``invalidate()`` was called.
    public private(set) var isValid = true
    /// Whether this is the device's current (advertised) activity.
    public var isCurrent: Bool { application?.device?.system.currentActivity == identifier }

    /// Responders sharing this activity (the system asks each to update it).
    var responders: [WeakResponder] = []
    /// True once the activity was attached to a responder: the system manages it.
    var isManagedByResponders = false
    /// Set on an activity received from another device: where it came from.
    var origin: ReceivedFrom?
    /// True once a received activity was made current on this device: it is offered from here.
    var isAdopted = false
    /// Whether the activity came from another device (a continued activity).
    public var isReceived: Bool { origin != nil }
    var isDocumentActivity = false

    /// Creates an activity of `activityType` for `application`.
    ///
    /// Apple advises reverse-DNS types (`com.example.reader.reading`) but accepts any non-empty
    /// string (NetNewsWire's `ReadArticle`); `handoff manifest lint` warns about the others.
    ///
    /// - Throws: ``UserActivityError`` when the type is empty or only whitespace.
    public init(activityType: String, application: Application) throws(UserActivityError) {
        if activityType.allSatisfy(\.isWhitespace) {
            throw UserActivityError(
                .invalidActivityType(activityType), "invalid activity type \"\(activityType)\": it is empty")
        }
        self.activityType = activityType
        self.identifier = RandomIdentifier.uuid()
        self.application = application
        application.device?.activityCreated(self)
    }

    /// An activity received from another device, before it is handed to the continuing app.
    init(
        received payload: ActivityPayload, application: Application, origin: PeerReference, continuation: ContinuationID
    ) {
        activityType = payload.activityType
        identifier = payload.activityIdentifier
        self.application = application
        title = payload.title
        userInfo = payload.userInfo
        webpageURL = payload.webpageURL
        requiredUserInfoKeys = payload.requiredUserInfoKeys
        expirationDate = payload.expirationDate
        targetContentIdentifier = payload.targetContentIdentifier
        supportsContinuationStreams = payload.supportsContinuationStreams
        self.origin = ReceivedFrom(peer: origin, continuation: continuation, streamToken: payload.streamToken)
    }

    /// Adds entries to ``userInfo``, replacing values of keys it already has.
    public func addUserInfoEntries(from entries: UserInfo) {
        userInfo.merge(entries) { _, new in new }
    }

    /// Sets the web page to open on a device without the app. Only http and https are allowed;
    /// any other scheme throws and leaves the activity unchanged.
    public func setWebpageURL(_ url: URL?) throws(UserActivityError) {
        if let url {
            let scheme = url.scheme?.lowercased() ?? ""
            guard scheme == "http" || scheme == "https" else {
                throw UserActivityError(
                    .unsupportedWebpageURLScheme(scheme),
                    "webpageURL must use http or https, not \"\(scheme.isEmpty ? "(none)" : scheme)\": \(url.absoluteString)"
                )
            }
        }
        guard url != webpageURL else { return }
        webpageURL = url
        propertiesChanged()
    }

    /// Makes this the device's current activity (the previous one stops being current).
    /// Does nothing after ``invalidate()``.
    public func becomeCurrent() {
        guard isValid else { return }
        application?.device?.activityBecameCurrent(self)
    }

    /// Stops advertising the activity without invalidating it.
    public func resignCurrent() {
        guard isValid else { return }
        application?.device?.activityResignedCurrent(self)
    }

    /// Ends the activity for good: it disappears from every device and later calls do nothing.
    public func invalidate() {
        guard isValid else { return }
        isValid = false
        application?.device?.activityInvalidated(self)
    }

    /// Opens continuation streams to the originating app (on the continuing side), Apple's
    /// `getContinuationStreams(completionHandler:)`.
    public func getContinuationStreams(completionHandler: @escaping (ContinuationStreams?, (any Error)?) -> Void) {
        guard let origin, supportsContinuationStreams else {
            completionHandler(nil, ContinuationStreamError.notSupported)
            return
        }
        guard let device = application?.device else {
            completionHandler(nil, ContinuationStreamError.unavailable("the app is not installed on a device"))
            return
        }
        device.openContinuationStreams(for: self, from: origin, completion: completionHandler)
    }

    /// The payload of this activity as it would leave the device now (no saving; see ``Device``).
    public func makePayload(streamToken: Data = Data()) -> ActivityPayload {
        var info = userInfo
        if !requiredUserInfoKeys.isEmpty {
            info = info.filter { requiredUserInfoKeys.contains($0.key) || $0.key == Self.documentURLKey }
        }
        return ActivityPayload(
            activityIdentifier: identifier, activityType: activityType, title: title, userInfo: info,
            webpageURL: webpageURL,
            teamIdentifier: application?.manifest.teamIdentifier ?? "",
            bundleIdentifier: application?.manifest.bundleIdentifier ?? "",
            expirationDate: expirationDate, requiredUserInfoKeys: requiredUserInfoKeys,
            targetContentIdentifier: targetContentIdentifier, supportsContinuationStreams: supportsContinuationStreams,
            streamToken: supportsContinuationStreams ? streamToken : Data())
    }

    var snapshot: ActivitySnapshot {
        let application = self.application  // one load of the weak reference
        return ActivitySnapshot(
            id: identifier, bundleIdentifier: application?.manifest.bundleIdentifier ?? "",
            teamIdentifier: application?.manifest.teamIdentifier ?? "", activityType: activityType, title: title,
            isEligibleForHandoff: isEligibleForHandoff, hasWebpageURL: webpageURL != nil,
            supportsContinuationStreams: supportsContinuationStreams, expirationDate: expirationDate,
            isDocument: isDocumentActivity, webpageHost: webpageURL?.host?.lowercased())
    }

    private func propertiesChanged() {
        guard isValid, origin == nil || isAdopted else { return }
        application?.device?.activityPropertiesChanged(self)
    }

    // MARK: Responders

    var liveResponders: [Responder] {
        responders.compactMap(\.value)
    }

    func attach(_ responder: Responder) {
        responders.removeAll { $0.value == nil || $0.value === responder }
        responders.append(WeakResponder(value: responder))
        isManagedByResponders = true
    }

    func detach(_ responder: Responder) {
        responders.removeAll { $0.value == nil || $0.value === responder }
        if isManagedByResponders && responders.isEmpty {
            invalidate()
        }
    }
}

struct WeakResponder {
    weak var value: Responder?
}

/// Where a received activity came from: the origin device, the continuation that brought it and
/// the token for its continuation streams.
struct ReceivedFrom {
    var peer: PeerReference
    var continuation: ContinuationID
    var streamToken: Data
}
