import Foundation
import HandoffCore

/// Manifests of the sample apps that tests install.
public enum TestManifests {
    public static let team = "ABCDE12345"
    public static let otherTeam = "ZYXWV98765"

    /// A reading app: a reading activity, and a document type whose ubiquitous activity type is
    /// its document activity.
    public static let reader = AppManifest(
        bundleIdentifier: "com.example.reader", teamIdentifier: team, displayName: "Reader",
        activityTypes: ["com.example.reader.reading"],
        documentTypes: [
            .init(
                name: "Text Document", contentTypes: ["public.plain-text"],
                ubiquitousActivityType: "com.example.reader.document")
        ])
    public static let map = AppManifest(
        bundleIdentifier: "com.example.map", teamIdentifier: team, displayName: "Map",
        activityTypes: ["com.example.map.region"],
        associatedDomains: ["activitycontinuation:maps.example.com"])
    public static let browser = AppManifest(
        bundleIdentifier: "com.example.browser", teamIdentifier: team, displayName: "Browser",
        activityTypes: [UserActivity.browsingWebType])
    /// An app of another team claiming the reader's activity type.
    public static let thirdPartyReader = AppManifest(
        bundleIdentifier: "org.thirdparty.reader", teamIdentifier: otherTeam, displayName: "Other Reader",
        activityTypes: ["com.example.reader.reading"])
    /// One app producing three kinds of activity (the asymmetric case's origin).
    public static let suite = AppManifest(
        bundleIdentifier: "com.example.suite", teamIdentifier: team, displayName: "Suite",
        activityTypes: ["com.example.reader.reading", "com.example.map.region", "com.example.notes.editing"])
    public static let notes = AppManifest(
        bundleIdentifier: "com.example.notes", teamIdentifier: team, displayName: "Notes",
        activityTypes: ["com.example.notes.editing"])
}

/// A responder holding a piece of state that it writes into and restores from activities.
public final class StateResponder: Responder {
    public var state: UserInfo
    public private(set) var updates = 0
    public private(set) var restores = 0
    /// Called in order, across responders: the shared log lets tests check ordering.
    public var log: CallLog?
    public let name: String

    /// A view on screen (``Responder/isOnScreen``), as the tests' views are unless they say otherwise.
    public init(name: String = "responder", state: UserInfo = [:], log: CallLog? = nil) {
        self.name = name
        self.state = state
        self.log = log
        super.init()
        isOnScreen = true
    }

    public override func updateUserActivityState(_ activity: UserActivity) {
        updates += 1
        log?.append("\(name).update(userInfo: \(activity.userInfo.count) keys)")
        activity.addUserInfoEntries(from: state)
    }

    public override func restoreUserActivityState(_ activity: UserActivity) {
        restores += 1
        log?.append("\(name).restore")
        state = activity.userInfo
    }
}

/// An ordered record of callbacks, shared by delegates and responders.
public final class CallLog {
    public private(set) var entries: [String] = []
    public init() {}
    public func append(_ entry: String) { entries.append(entry) }
    public func clear() { entries.removeAll() }
}

/// An app delegate that records every callback and restores into its responders.
public final class RecordingAppDelegate: ApplicationDelegate {
    public let log: CallLog
    public var acceptsContinuation = true
    public var handlesContinuation = true
    /// The responders that `continue` passes to the restoration handler.
    public var restorationTargets: [Responder] = []
    public private(set) var continued: [UserActivity] = []
    public private(set) var failures: [(type: String, error: HandoffError)] = []
    /// Called during `didUpdate` (e.g. to add a version key).
    public var onDidUpdate: ((UserActivity) -> Void)?
    /// Called during `continue`, before the restoration handler.
    public var onContinue: ((UserActivity) -> Void)?

    public init(log: CallLog = CallLog()) { self.log = log }

    public func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        log.append("\(application.bundleIdentifier).willContinue(\(activityType))")
        return acceptsContinuation
    }

    public func application(
        _ application: Application, continue userActivity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool {
        log.append("\(application.bundleIdentifier).continue(\(userActivity.activityType))")
        continued.append(userActivity)
        onContinue?(userActivity)
        guard handlesContinuation else { return false }
        restorationHandler(restorationTargets)
        return true
    }

    public func application(
        _ application: Application, didFailToContinueUserActivityWithType activityType: String,
        error: HandoffError
    ) {
        log.append("\(application.bundleIdentifier).didFail(\(activityType), \(error.code.rawValue))")
        failures.append((activityType, error))
    }

    public func application(_ application: Application, didUpdate userActivity: UserActivity) {
        log.append("\(application.bundleIdentifier).didUpdate")
        onDidUpdate?(userActivity)
    }
}

/// An app delegate that implements nothing: every callback gets Apple's default.
public final class MinimalAppDelegate: ApplicationDelegate {
    public init() {}
}

/// An activity delegate that records its callbacks.
public final class RecordingActivityDelegate: UserActivityDelegate {
    public let log: CallLog
    public var onWillSave: ((UserActivity) -> Void)?
    public private(set) var wasContinuedCount = 0
    public private(set) var receivedStreams: [ContinuationStreams] = []

    public init(log: CallLog = CallLog()) { self.log = log }

    public func userActivityWillSave(_ userActivity: UserActivity) {
        log.append("willSave(\(userActivity.activityType))")
        onWillSave?(userActivity)
    }

    public func userActivityWasContinued(_ userActivity: UserActivity) {
        wasContinuedCount += 1
        log.append("wasContinued(\(userActivity.activityType))")
    }

    public func userActivity(_ userActivity: UserActivity, didReceive streams: ContinuationStreams) {
        log.append("didReceiveStreams(\(userActivity.activityType))")
        receivedStreams.append(streams)
    }
}
