import Foundation

/// A typed, timestamped record of one step of the handoff lifecycle on one device.
///
/// The terminal UI's log, the tests and the headless mode all read the same stream of these.
/// Fields that do not apply to a kind are `nil`. ``jsonLine()`` writes one as a JSON line.
public struct LifecycleEvent: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        // The origin's activity
        case activityCreated, becameCurrent, resignedCurrent, invalidated, needsSaveSet
        case userActivityWillSave, updateUserActivityState, didUpdate, saved
        case advertised, withdrawn, expired
        // Offers from peers
        case offerReceived, offerUpdated, offerWithdrawn, offerExpired
        // The receiving side of a continuation
        case continueChosen, willContinue, continueDeclined, fetchStarted, payloadReceived
        case payloadSizeWarning, continueCalled, restoreUserActivityState, continued
        case continuationFailed, systemShowedError, webRouted
        // The origin side of a continuation
        case payloadRequested, payloadSent, payloadRefused, wasContinued
        // Continuation streams
        case streamsOpened, streamsRefused
        // Documents
        case documentOpened, documentClosed
    }

    public var time: Date
    public var device: String
    public var kind: Kind
    public var activityType: String?
    public var bundleIdentifier: String?
    public var peer: String?
    /// A payload size in bytes, where one is involved.
    public var size: Int?
    /// How long a step took, in milliseconds, where that is measured.
    public var milliseconds: Double?
    /// The public error code of a failure (4608–4611, 3072).
    public var errorCode: Int?
    /// What happened, for people.
    public var detail: String

    public init(time: Date, device: String, kind: Kind, activityType: String? = nil, bundleIdentifier: String? = nil,
                peer: String? = nil, size: Int? = nil, milliseconds: Double? = nil, errorCode: Int? = nil,
                detail: String = "") {
        self.time = time
        self.device = device
        self.kind = kind
        self.activityType = activityType
        self.bundleIdentifier = bundleIdentifier
        self.peer = peer
        self.size = size
        self.milliseconds = milliseconds
        self.errorCode = errorCode
        self.detail = detail
    }

    /// One line explaining this kind of step to someone learning the lifecycle.
    public var explanation: String { kind.explanation }

    /// The event as one line of JSON (no trailing newline), keys sorted, dates in ISO 8601.
    public func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(LifecycleEvent.timestampFormatter.string(from: date))
        }
        guard let data = try? encoder.encode(self), let line = String(data: data, encoding: .utf8) else {
            return "{\"kind\":\"\(kind.rawValue)\"}"
        }
        return line
    }

    nonisolated(unsafe) static let timestampFormatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}

extension LifecycleEvent.Kind {
    /// One line for learners: what this step is in Apple's Handoff.
    public var explanation: String {
        switch self {
        case .activityCreated: "An app created a user activity describing what the user is doing."
        case .becameCurrent: "The activity became current: this device now advertises it to nearby devices."
        case .resignedCurrent: "The activity stopped being current; it is no longer advertised."
        case .invalidated: "The activity was invalidated: final, it can never become current again."
        case .needsSaveSet: "The app set needsSave: its state changed and will be saved lazily."
        case .userActivityWillSave: "The system called userActivityWillSave so the delegate can refresh userInfo."
        case .updateUserActivityState: "The system emptied userInfo and asked each responder to write its state."
        case .didUpdate: "The app delegate's didUpdate: the last chance to add keys such as a version."
        case .saved: "The activity's state was saved."
        case .advertised: "A beacon now tells same-account devices about this activity (a hash of its type only)."
        case .withdrawn: "The advertisement was withdrawn (a goodbye beacon)."
        case .expired: "The activity passed its expiration date and is no longer offered."
        case .offerReceived: "A nearby device of the same account offers an activity."
        case .offerUpdated: "A nearby device refreshed its offer."
        case .offerWithdrawn: "A nearby device withdrew its offer."
        case .offerExpired: "A nearby device fell silent; its offer expired."
        case .continueChosen: "The user chose to continue the offered activity."
        case .willContinue: "willContinueUserActivity(withType:): the app learns a continuation is coming."
        case .continueDeclined: "The app declined the continuation in willContinueUserActivity(withType:)."
        case .fetchStarted: "The payload is requested from the origin, which saves first."
        case .payloadReceived: "The activity's payload arrived from the origin."
        case .payloadSizeWarning: "The payload is larger than Apple's 3 KB guidance; use streams for bulk data."
        case .continueCalled: "continue(_:restorationHandler:): the app receives the activity."
        case .restoreUserActivityState: "restoreUserActivityState was called on the objects the app passed back."
        case .continued: "The continuation completed; the origin is told."
        case .continuationFailed: "The continuation failed; didFailToContinueUserActivity(withType:error:) reports why."
        case .systemShowedError: "The app does not handle the failure, so the system shows the error."
        case .webRouted: "A web activity was routed: to an app the site approves, or to the browser."
        case .payloadRequested: "A peer asked for this activity's payload to continue it."
        case .payloadSent: "The saved payload left this device."
        case .payloadRefused: "The payload was not sent; the origin keeps its activity."
        case .wasContinued: "userActivityWasContinued: the activity was continued on another device."
        case .streamsOpened: "Continuation streams connect the two apps for more data."
        case .streamsRefused: "A request for continuation streams was refused."
        case .documentOpened: "A document was opened; its activity is created automatically."
        case .documentClosed: "A document was closed; its activity is invalidated."
        }
    }
}
