import Foundation

/// Which local activity an event is about.
public struct ActivityReference: Sendable, Hashable {
    public var id: UUID
    public var activityType: String
    public var title: String?
    public var bundleIdentifier: String

    public init(id: UUID, activityType: String, title: String? = nil, bundleIdentifier: String) {
        self.id = id
        self.activityType = activityType
        self.title = title
        self.bundleIdentifier = bundleIdentifier
    }
}

/// The other device of an event, by identifier and by the name people know it by.
public struct PeerReference: Sendable, Hashable {
    public var id: DeviceID
    public var name: String

    public init(id: DeviceID, name: String) {
        self.id = id
        self.name = name
    }

    public init(_ info: PeerInfo) {
        self.init(id: info.id, name: info.name)
    }
}

/// What identifies one advertisement on both sides: the origin's `advertised` event and a peer's
/// `offerReceived` for the same device, activity serial and type hash are the same beacon.
public struct AdvertisementIdentity: Sendable, Hashable {
    public var device: DeviceID
    public var serial: UInt32
    public var activityTypeHash: ActivityTypeHash

    public init(device: DeviceID, serial: UInt32, activityTypeHash: ActivityTypeHash) {
        self.device = device
        self.serial = serial
        self.activityTypeHash = activityTypeHash
    }
}

/// The userInfo of an activity at one step, as it was then.
public typealias UserInfoSnapshot = [String: UserInfoValue]

/// Why an advertisement was withdrawn.
public enum WithdrawalReason: String, Sendable, Hashable {
    /// No activity is current any more (the app went to the background, resigned or invalidated it).
    case noCurrentActivity
    /// The current activity passed its expiration date.
    case expired
    /// The device was locked long enough (Apple: removed 8 s after lock); it advertises again
    /// once unlocked.
    case deviceLocked
}

/// Why the user's choice of an offer started nothing.
public enum IgnoredChoice: Sendable, Hashable {
    /// Another continuation is in progress.
    case busy
    /// The peer offers nothing any more.
    case noOffer
    /// No app on this device can take the offer (Apple would not even show it): nothing fails.
    case unavailable(Unavailability)

    /// The name the headless JSON's `reason` uses.
    public var name: String {
        switch self {
        case .busy: "busy"
        case .noOffer: "noOffer"
        case .unavailable: "unavailable"
        }
    }
}

/// Why a web page went where it did.
public enum WebRouting: Sendable, Hashable {
    /// The association file of the app's matching `activitycontinuation:` domain approves this
    /// app (by its application identifier): web → native.
    case approved(applicationIdentifier: String, domain: AssociatedDomain)
    /// Apps name the host in their associated domains, but no site approves them: why, per app
    /// and domain (the latest outcome of the association-file fetch).
    case notApproved([WebRoutingRefusal])
    /// No app here names the host: the browser opens it.
    case noAppNamesHost
}

/// Which end of continuation streams an event is about.
public enum StreamSide: String, Sendable, Hashable {
    /// The origin's activity delegate received its end (`userActivity(_:didReceive:outputStream:)`).
    case origin
    /// The continuing app's `getContinuationStreams` completed.
    case continuing
}

/// One step of the handoff lifecycle on one device, as typed data: what happened, with its
/// values. The log line, the explanation and the headless JSON are presentations of it
/// (`LifecycleEvent+Presentation.swift`); nothing reads meaning back out of text.
public struct LifecycleEvent: Sendable, Hashable {
    /// When it happened, from the device's clock (never earlier than the device's previous event).
    public var time: Date
    /// The device's name.
    public var device: String
    public var occurrence: Occurrence

    public init(time: Date, device: String, _ occurrence: Occurrence) {
        self.time = time
        self.device = device
        self.occurrence = occurrence
    }

    /// What happened.
    public enum Occurrence: Sendable, Hashable {
        // The origin's activity
        case activityCreated(ActivityReference)
        case becameCurrent(ActivityReference)
        case resignedCurrent(ActivityReference)
        case invalidated(ActivityReference)
        case needsSaveSet(ActivityReference)
        /// `userActivityWillSave(_:)` on the activity's delegate.
        case willSave(ActivityReference, continuation: ContinuationID?)
        /// userInfo emptied, then `updateUserActivityState(_:)` on each responder.
        case updateUserActivityState(ActivityReference, responders: Int, continuation: ContinuationID?)
        /// The app delegate's `application(_:didUpdate:)`.
        case didUpdate(ActivityReference, continuation: ContinuationID?)
        case saved(ActivityReference, reason: SaveReason, userInfo: UserInfoSnapshot, continuation: ContinuationID?)
        /// A payload is leaving but needsSave was not set since the last save (at `lastSaved`, nil:
        /// never): no save callback runs, and the payload carries the state saved then. `changedAt`
        /// is when the app changed its state without setting needsSave (the bug; nil: nothing
        /// changed since, as far as the system was told, which is the normal case once the
        /// coalesced save ran).
        case saveSkipped(ActivityReference, lastSaved: Date?, changedAt: Date?, continuation: ContinuationID?)
        /// `scene(_:didUpdate:)` on the scene of the saved activity.
        case sceneDidUpdate(ActivityReference, scene: String, continuation: ContinuationID?)
        case advertised(ActivityReference, AdvertisementIdentity, isEligible: Bool)
        case withdrawn(WithdrawalReason)
        case expired(ActivityReference)
        /// The user locked the device: its current activity stays advertised for
        /// `advertisingStopsAfter` seconds, then is withdrawn until the device is unlocked.
        case deviceLocked(advertisingStopsAfter: TimeInterval)
        /// The user unlocked the device: its current activity is advertised again.
        case deviceUnlocked
        // Offers from peers
        case offerReceived(PeerReference, AdvertisementIdentity, route: Route)
        case offerUpdated(PeerReference, AdvertisementIdentity, route: Route)
        case offerWithdrawn(PeerReference)
        case offerExpired(PeerReference)
        // The continuing side
        case continueChosen(ContinuationID, PeerReference, route: Route)
        case choiceIgnored(PeerReference, IgnoredChoice)
        /// The system launched the app (cold) or brought it forward (warm) to continue an activity.
        case applicationLaunched(ContinuationID?, bundleIdentifier: String, launch: LaunchKind)
        /// The user quit the app from the app switcher: its activities and scenes are gone.
        case applicationTerminated(bundleIdentifier: String)
        /// `scene(_:willConnectTo:options:)`; `handoffUserActivityType` is the pending Handoff's type.
        case sceneWillConnect(
            ContinuationID?, bundleIdentifier: String, scene: String, handoffUserActivityType: String?)
        /// `application(_:willContinueUserActivityWithType:)` and its answer: true, the app shows
        /// its own progress; false, the system shows it.
        case willContinue(
            ContinuationID, PeerReference, bundleIdentifier: String, activityType: String, appShowsProgress: Bool)
        /// `scene(_:willContinueUserActivityWithType:)`: the system shows the progress.
        case sceneWillContinue(
            ContinuationID, PeerReference, bundleIdentifier: String, scene: String, activityType: String)
        case fetchStarted(ContinuationID, PeerReference, timeout: TimeInterval)
        case payloadReceived(
            ContinuationID, PeerReference, activityType: String, bytes: Int, milliseconds: Double,
            userInfo: UserInfoSnapshot)
        /// A payload arrived for a continuation that is no longer in progress.
        case latePayloadIgnored(ContinuationID, bytes: Int)
        case payloadSizeWarning(ContinuationID, bytes: Int, guidance: Int)
        case webRouted(ContinuationID, host: String, bundleIdentifier: String, WebRouting)
        /// The device fetched the association file for one of an app's `activitycontinuation:`
        /// domains; when the fetch failed, `keptAnswer` is the earlier answer the device keeps.
        case siteAssociationChecked(SiteAssociationCheck, keptAnswer: AssociationOutcome?)
        /// `application(_:continue:restorationHandler:)` is called.
        case continueCalled(ContinuationID, bundleIdentifier: String, activityType: String)
        /// `scene(_:continue:)` is called, once all the data arrived.
        case sceneContinue(ContinuationID, bundleIdentifier: String, scene: String, activityType: String)
        /// The restoration handler called `restoreUserActivityState(_:)` on these objects.
        case restoreUserActivityState(
            ContinuationID, bundleIdentifier: String, objects: Int, userInfo: UserInfoSnapshot)
        /// The system counts the activity continued and tells the origin: the app delegate's
        /// `continue` returned true, or a scene's `scene(_:continue:)` (which answers nothing) had it.
        case continued(ContinuationID, PeerReference, bundleIdentifier: String, ContinuedBy, milliseconds: Double)
        /// The app did not handle the activity (`continue` returned false, or no scene code took
        /// it); the origin is not told.
        case notHandled(
            ContinuationID, PeerReference, bundleIdentifier: String, milliseconds: Double, reason: NotHandledReason)
        case continuationFailed(
            ContinuationID, PeerReference, bundleIdentifier: String?, activityType: String?, HandoffError)
        /// `scene(_:didFailToContinueUserActivityWithType:error:)` is called.
        case sceneDidFailToContinue(
            ContinuationID?, bundleIdentifier: String, scene: String, activityType: String, HandoffError)
        /// The app does not implement `didFailToContinueUserActivityWithType`: the system shows the error.
        case systemShowedError(bundleIdentifier: String, activityType: String, HandoffError)
        // The origin side
        case payloadRequested(ContinuationID, PeerReference, ActivityReference?)
        case payloadSent(ContinuationID, PeerReference, ActivityReference, bytes: Int, userInfo: UserInfoSnapshot)
        case payloadRefused(ContinuationID, PeerReference, HandoffError)
        /// `userActivityWasContinued(_:)` on the activity's delegate.
        case wasContinued(ContinuationID, PeerReference, ActivityReference)
        // Continuation streams
        case streamsOpened(ContinuationID?, PeerReference, ActivityReference, side: StreamSide)
        case streamsRefused(ContinuationID?, PeerReference, activityType: String?, reason: String)
        /// Step mode paused the device before a phase; its timeouts are suspended until it goes on.
        case stepPaused(ContinuationID?, StepPhase)
        /// A fault armed in the lab struck.
        case faultInjected(ContinuationID?, Fault)
        // Documents
        case documentOpened(bundleIdentifier: String, activityType: String?, file: String)
        case documentClosed(bundleIdentifier: String, activityType: String?, file: String)
    }

    /// The kinds of event, by the name the log and the headless JSON use.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case activityCreated, becameCurrent, resignedCurrent, invalidated, needsSaveSet
        case willSave, updateUserActivityState, didUpdate, saved, saveSkipped, sceneDidUpdate
        case advertised, withdrawn, expired, deviceLocked, deviceUnlocked
        case offerReceived, offerUpdated, offerWithdrawn, offerExpired
        case continueChosen, choiceIgnored, applicationLaunched, applicationTerminated, sceneWillConnect
        case willContinue, sceneWillContinue, fetchStarted, payloadReceived, latePayloadIgnored
        case payloadSizeWarning, siteAssociationChecked, webRouted, continueCalled, sceneContinue,
            restoreUserActivityState, continued, notHandled
        case continuationFailed, sceneDidFailToContinue, systemShowedError
        case payloadRequested, payloadSent, payloadRefused, wasContinued
        case streamsOpened, streamsRefused
        case documentOpened, documentClosed
        case stepPaused, faultInjected
    }
}

extension LifecycleEvent {
    public var kind: Kind {
        switch occurrence {
        case .activityCreated: .activityCreated
        case .becameCurrent: .becameCurrent
        case .resignedCurrent: .resignedCurrent
        case .invalidated: .invalidated
        case .needsSaveSet: .needsSaveSet
        case .willSave: .willSave
        case .updateUserActivityState: .updateUserActivityState
        case .didUpdate: .didUpdate
        case .saved: .saved
        case .saveSkipped: .saveSkipped
        case .sceneDidUpdate: .sceneDidUpdate
        case .applicationLaunched: .applicationLaunched
        case .applicationTerminated: .applicationTerminated
        case .sceneWillConnect: .sceneWillConnect
        case .sceneWillContinue: .sceneWillContinue
        case .sceneContinue: .sceneContinue
        case .sceneDidFailToContinue: .sceneDidFailToContinue
        case .advertised: .advertised
        case .withdrawn: .withdrawn
        case .expired: .expired
        case .deviceLocked: .deviceLocked
        case .deviceUnlocked: .deviceUnlocked
        case .offerReceived: .offerReceived
        case .offerUpdated: .offerUpdated
        case .offerWithdrawn: .offerWithdrawn
        case .offerExpired: .offerExpired
        case .continueChosen: .continueChosen
        case .choiceIgnored: .choiceIgnored
        case .willContinue: .willContinue
        case .fetchStarted: .fetchStarted
        case .payloadReceived: .payloadReceived
        case .latePayloadIgnored: .latePayloadIgnored
        case .payloadSizeWarning: .payloadSizeWarning
        case .webRouted: .webRouted
        case .siteAssociationChecked: .siteAssociationChecked
        case .continueCalled: .continueCalled
        case .restoreUserActivityState: .restoreUserActivityState
        case .continued: .continued
        case .notHandled: .notHandled
        case .continuationFailed: .continuationFailed
        case .systemShowedError: .systemShowedError
        case .payloadRequested: .payloadRequested
        case .payloadSent: .payloadSent
        case .payloadRefused: .payloadRefused
        case .wasContinued: .wasContinued
        case .streamsOpened: .streamsOpened
        case .streamsRefused: .streamsRefused
        case .documentOpened: .documentOpened
        case .documentClosed: .documentClosed
        case .stepPaused: .stepPaused
        case .faultInjected: .faultInjected
        }
    }

    /// The continuation this event belongs to, on either device.
    public var continuation: ContinuationID? {
        switch occurrence {
        case .willSave(_, let id), .updateUserActivityState(_, _, let id), .didUpdate(_, let id),
            .saved(_, _, _, let id),
            .saveSkipped(_, _, _, let id), .sceneDidUpdate(_, _, let id), .applicationLaunched(let id, _, _),
            .sceneWillConnect(let id, _, _, _), .sceneDidFailToContinue(let id, _, _, _, _), .stepPaused(let id, _),
            .faultInjected(let id, _):
            id
        case .sceneWillContinue(let id, _, _, _, _), .sceneContinue(let id, _, _, _):
            id
        case .continueChosen(let id, _, _), .willContinue(let id, _, _, _, _), .fetchStarted(let id, _, _),
            .payloadReceived(let id, _, _, _, _, _), .latePayloadIgnored(let id, _), .payloadSizeWarning(let id, _, _),
            .webRouted(let id, _, _, _), .continueCalled(let id, _, _), .restoreUserActivityState(let id, _, _, _),
            .continued(let id, _, _, _, _), .notHandled(let id, _, _, _, _), .continuationFailed(let id, _, _, _, _),
            .payloadRequested(let id, _, _), .payloadSent(let id, _, _, _, _), .payloadRefused(let id, _, _),
            .wasContinued(let id, _, _):
            id
        case .streamsOpened(let id, _, _, _), .streamsRefused(let id, _, _, _):
            id
        default:
            nil
        }
    }

    /// The other device, where one is involved.
    public var peer: PeerReference? {
        switch occurrence {
        case .offerReceived(let peer, _, _), .offerUpdated(let peer, _, _), .offerWithdrawn(let peer),
            .offerExpired(let peer),
            .continueChosen(_, let peer, _), .choiceIgnored(let peer, _), .willContinue(_, let peer, _, _, _),
            .fetchStarted(_, let peer, _), .payloadReceived(_, let peer, _, _, _, _), .continued(_, let peer, _, _, _),
            .notHandled(_, let peer, _, _, _), .continuationFailed(_, let peer, _, _, _),
            .payloadRequested(_, let peer, _),
            .sceneWillContinue(_, let peer, _, _, _),
            .payloadSent(_, let peer, _, _, _), .payloadRefused(_, let peer, _), .wasContinued(_, let peer, _),
            .streamsOpened(_, let peer, _, _), .streamsRefused(_, let peer, _, _):
            peer
        default:
            nil
        }
    }

    /// The scene the event is about, on the scene path.
    public var scene: String? {
        switch occurrence {
        case .sceneDidUpdate(_, let scene, _), .sceneWillConnect(_, _, let scene, _),
            .sceneWillContinue(_, _, _, let scene, _),
            .sceneContinue(_, _, let scene, _), .sceneDidFailToContinue(_, _, let scene, _, _),
            .continued(_, _, _, .scene(let scene), _):
            scene
        default:
            nil
        }
    }

    /// The local activity, where the event is about one.
    public var activity: ActivityReference? {
        switch occurrence {
        case .activityCreated(let a), .becameCurrent(let a), .resignedCurrent(let a), .invalidated(let a),
            .needsSaveSet(let a),
            .willSave(let a, _), .updateUserActivityState(let a, _, _), .didUpdate(let a, _), .saved(let a, _, _, _),
            .saveSkipped(let a, _, _, _), .sceneDidUpdate(let a, _, _),
            .advertised(let a, _, _), .expired(let a), .payloadSent(_, _, let a, _, _), .wasContinued(_, _, let a),
            .streamsOpened(_, _, let a, _):
            a
        case .payloadRequested(_, _, let a):
            a
        default:
            nil
        }
    }

    /// The app the event concerns, where one is known.
    public var bundleIdentifier: String? {
        if let activity { return activity.bundleIdentifier }
        switch occurrence {
        case .willContinue(_, _, let bundle, _, _), .webRouted(_, _, let bundle, _), .continueCalled(_, let bundle, _),
            .restoreUserActivityState(_, let bundle, _, _), .continued(_, _, let bundle, _, _),
            .notHandled(_, _, let bundle, _, _),
            .systemShowedError(let bundle, _, _), .documentOpened(let bundle, _, _), .documentClosed(let bundle, _, _):
            return bundle
        case .applicationLaunched(_, let bundle, _), .applicationTerminated(let bundle),
            .sceneWillConnect(_, let bundle, _, _),
            .sceneWillContinue(_, _, let bundle, _, _), .sceneContinue(_, let bundle, _, _),
            .sceneDidFailToContinue(_, let bundle, _, _, _):
            return bundle
        case .continuationFailed(_, _, let bundle, _, _):
            return bundle
        case .siteAssociationChecked(let check, _):
            return check.bundleIdentifier
        default:
            return nil
        }
    }

    /// The activity type the event concerns, where one is known.
    public var activityType: String? {
        if let activity { return activity.activityType }
        switch occurrence {
        case .willContinue(_, _, _, let type, _), .payloadReceived(_, _, let type, _, _, _),
            .continueCalled(_, _, let type),
            .systemShowedError(_, let type, _), .sceneWillContinue(_, _, _, _, let type),
            .sceneContinue(_, _, _, let type),
            .sceneDidFailToContinue(_, _, _, let type, _):
            return type
        case .sceneWillConnect(_, _, _, let type):
            return type
        case .continuationFailed(_, _, _, let type, _), .streamsRefused(_, _, let type, _),
            .documentOpened(_, let type, _),
            .documentClosed(_, let type, _):
            return type
        default:
            return nil
        }
    }

    /// The failure, for the events that are one.
    public var error: HandoffError? {
        switch occurrence {
        case .continuationFailed(_, _, _, _, let error), .systemShowedError(_, _, let error),
            .payloadRefused(_, _, let error),
            .sceneDidFailToContinue(_, _, _, _, let error):
            error
        default:
            nil
        }
    }

    /// A payload's size in bytes, where one is involved.
    public var bytes: Int? {
        switch occurrence {
        case .payloadReceived(_, _, _, let bytes, _, _), .latePayloadIgnored(_, let bytes),
            .payloadSizeWarning(_, let bytes, _),
            .payloadSent(_, _, _, let bytes, _):
            bytes
        default:
            nil
        }
    }

    /// How long the step took, in milliseconds, where that is measured.
    public var milliseconds: Double? {
        switch occurrence {
        case .payloadReceived(_, _, _, _, let ms, _), .continued(_, _, _, _, let ms), .notHandled(_, _, _, let ms, _):
            ms
        case .siteAssociationChecked(let check, _):
            check.milliseconds
        default:
            nil
        }
    }

    /// The userInfo at this step, on the events where state moves.
    public var userInfo: UserInfoSnapshot? {
        switch occurrence {
        case .saved(_, _, let info, _), .payloadReceived(_, _, _, _, _, let info),
            .restoreUserActivityState(_, _, _, let info),
            .payloadSent(_, _, _, _, let info):
            info
        default:
            nil
        }
    }
}
