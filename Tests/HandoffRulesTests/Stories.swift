import Foundation
import HandoffCore
import HandoffRules

/// Hand-made histories of two devices: a continuation as Apple describes it on each path, which
/// the rule tests break one event at a time.
enum Stories {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let laptop = PeerReference(id: "laptop-id", name: "Laptop")
    static let phone = PeerReference(id: "phone-id", name: "Phone")
    static let reader = "com.example.reader"
    static let browser = "com.example.browser"
    static let readingType = "com.example.reader.reading"
    static let activity = ActivityReference(
        id: UUID(uuidString: "11111111-2222-3333-4444-555555555555")!, activityType: readingType, title: "Moby-Dick",
        bundleIdentifier: reader)
    static let webActivity = ActivityReference(
        id: UUID(uuidString: "66666666-2222-3333-4444-555555555555")!, activityType: UserActivity.browsingWebType,
        title: "Maps", bundleIdentifier: browser)
    static let continuation = ContinuationID(rawValue: UUID(uuidString: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")!)
    static let identity = AdvertisementIdentity(
        device: laptop.id, serial: 1, activityTypeHash: ActivityTypeHash(activityType: readingType))
    static let route = Route.app(bundleIdentifier: reader, activityType: readingType)
    static let userInfo: UserInfoSnapshot = ["page": .integer(3), "chapter": .string("Loomings")]

    /// One event `ms` milliseconds after the start.
    static func at(_ ms: Int, _ device: PeerReference, _ occurrence: LifecycleEvent.Occurrence) -> LifecycleEvent {
        LifecycleEvent(time: start.addingTimeInterval(Double(ms) / 1000), device: device.name, occurrence)
    }

    static func history(_ device: PeerReference, account: String = "demo", _ events: [LifecycleEvent]) -> DeviceHistory
    {
        DeviceHistory(device: device.name, account: account, events: events)
    }

    /// The origin of a native continuation: current, needsSave, advertised, saved before the
    /// payload leaves, told it continued.
    static func nativeOrigin(bytes: Int = 120) -> [LifecycleEvent] {
        let c = continuation
        return [
            at(0, laptop, .activityCreated(activity)),
            at(10, laptop, .becameCurrent(activity)),
            at(20, laptop, .needsSaveSet(activity)),
            at(30, laptop, .advertised(activity, identity, isEligible: true)),
            at(100, laptop, .payloadRequested(c, phone, activity)),
            at(101, laptop, .willSave(activity, continuation: c)),
            at(101, laptop, .updateUserActivityState(activity, responders: 1, continuation: c)),
            at(101, laptop, .didUpdate(activity, continuation: c)),
            at(102, laptop, .saved(activity, reason: .beforeSending, userInfo: userInfo, continuation: c)),
            at(103, laptop, .payloadSent(c, phone, activity, bytes: bytes, userInfo: userInfo)),
            at(130, laptop, .wasContinued(c, phone, activity)),
        ]
    }

    /// The continuing device of a native continuation through the app delegate.
    static func nativeContinuing(bytes: Int = 120) -> [LifecycleEvent] {
        let c = continuation
        return [
            at(40, phone, .offerReceived(laptop, identity, route: route)),
            at(60, phone, .continueChosen(c, laptop, route: route)),
            at(70, phone, .applicationLaunched(c, bundleIdentifier: reader, launch: .cold)),
            at(
                80, phone,
                .willContinue(c, laptop, bundleIdentifier: reader, activityType: readingType, appShowsProgress: true)),
            at(90, phone, .fetchStarted(c, laptop, timeout: 5)),
            at(
                110, phone,
                .payloadReceived(
                    c, laptop, activityType: readingType, bytes: bytes, milliseconds: 20, userInfo: userInfo)),
            at(111, phone, .continueCalled(c, bundleIdentifier: reader, activityType: readingType)),
            at(112, phone, .restoreUserActivityState(c, bundleIdentifier: reader, objects: 1, userInfo: userInfo)),
            at(
                113, phone,
                .continued(c, laptop, bundleIdentifier: reader, .application(restoredObjects: 1), milliseconds: 53)),
        ]
    }

    static func native() -> [DeviceHistory] {
        [history(laptop, nativeOrigin()), history(phone, nativeContinuing())]
    }

    /// The same continuation failing on the phone with 4610: the origin sent nothing and keeps
    /// its activity.
    static func timedOut() -> [DeviceHistory] {
        let c = continuation
        let origin = nativeOrigin().filter { $0.time < start.addingTimeInterval(0.101) }
        let continuing =
            nativeContinuing().filter { $0.time <= start.addingTimeInterval(0.090) } + [
                at(
                    5_090, phone,
                    .continuationFailed(
                        c, laptop, bundleIdentifier: reader, activityType: readingType,
                        HandoffError(.remoteApplicationTimedOut, "no answer in 5 s")))
            ]
        return [history(laptop, origin), history(phone, continuing)]
    }

    /// A scene app's cold launch: the scene connects with the type, then willContinue, the
    /// fetch, and scene(_:continue:).
    static func scene() -> [DeviceHistory] {
        let c = continuation
        let continuing: [LifecycleEvent] = [
            at(40, phone, .offerReceived(laptop, identity, route: route)),
            at(60, phone, .continueChosen(c, laptop, route: route)),
            at(70, phone, .applicationLaunched(c, bundleIdentifier: reader, launch: .cold)),
            at(
                71, phone,
                .sceneWillConnect(c, bundleIdentifier: reader, scene: "Scene 1", handoffUserActivityType: readingType)),
            at(
                80, phone,
                .sceneWillContinue(c, laptop, bundleIdentifier: reader, scene: "Scene 1", activityType: readingType)),
            at(90, phone, .fetchStarted(c, laptop, timeout: 5)),
            at(
                110, phone,
                .payloadReceived(c, laptop, activityType: readingType, bytes: 120, milliseconds: 20, userInfo: userInfo)
            ),
            at(111, phone, .sceneContinue(c, bundleIdentifier: reader, scene: "Scene 1", activityType: readingType)),
            at(113, phone, .continued(c, laptop, bundleIdentifier: reader, .scene("Scene 1"), milliseconds: 53)),
        ]
        return [history(laptop, nativeOrigin()), history(phone, continuing)]
    }

    static let mapsDomain = AssociatedDomain(host: "maps.example.com")
    static let mapsApp = "com.example.maps"

    static func approval(at ms: Int, _ outcome: AssociationOutcome = .approved) -> LifecycleEvent {
        at(
            ms, phone,
            .siteAssociationChecked(
                SiteAssociationCheck(
                    bundleIdentifier: mapsApp, applicationIdentifier: "TEAM.\(mapsApp)", domain: mapsDomain,
                    outcome: outcome, checkedAt: start.addingTimeInterval(Double(ms) / 1000),
                    expiresAt: start.addingTimeInterval(3600), milliseconds: 4),
                keptAnswer: nil))
    }

    /// Web → native: a browser's page continued in the app the site approves, with an empty
    /// userInfo; willContinue before the fetch (the app is known once the page's host is, so the
    /// system asks the approved app before it fetches).
    static func web(restoredUserInfo: UserInfoSnapshot = [:]) -> [DeviceHistory] {
        let c = continuation
        let webIdentity = AdvertisementIdentity(
            device: laptop.id, serial: 1, activityTypeHash: ActivityTypeHash(activityType: UserActivity.browsingWebType)
        )
        let webRoute = Route.web(browserBundleIdentifier: browser)
        let origin: [LifecycleEvent] = [
            at(0, laptop, .activityCreated(webActivity)),
            at(10, laptop, .becameCurrent(webActivity)),
            at(30, laptop, .advertised(webActivity, webIdentity, isEligible: true)),
            at(100, laptop, .payloadRequested(c, phone, webActivity)),
            at(
                101, laptop,
                .saveSkipped(webActivity, lastSaved: nil, changedAt: nil, continuation: c)),
            at(103, laptop, .payloadSent(c, phone, webActivity, bytes: 90, userInfo: [:])),
            at(130, laptop, .wasContinued(c, phone, webActivity)),
        ]
        let continuing: [LifecycleEvent] = [
            approval(at: 5),
            at(40, phone, .offerReceived(laptop, webIdentity, route: webRoute)),
            at(60, phone, .continueChosen(c, laptop, route: webRoute)),
            at(
                80, phone,
                .willContinue(
                    c, laptop, bundleIdentifier: mapsApp, activityType: UserActivity.browsingWebType,
                    appShowsProgress: false)),
            at(90, phone, .fetchStarted(c, laptop, timeout: 5)),
            at(
                110, phone,
                .payloadReceived(
                    c, laptop, activityType: UserActivity.browsingWebType, bytes: 90, milliseconds: 20, userInfo: [:])),
            at(
                110, phone,
                .webRouted(
                    c, host: "maps.example.com", bundleIdentifier: mapsApp,
                    .approved(applicationIdentifier: "TEAM.\(mapsApp)", domain: mapsDomain))),
            at(111, phone, .continueCalled(c, bundleIdentifier: mapsApp, activityType: UserActivity.browsingWebType)),
            at(
                112, phone,
                .restoreUserActivityState(c, bundleIdentifier: mapsApp, objects: 1, userInfo: restoredUserInfo)),
            at(
                113, phone,
                .continued(c, laptop, bundleIdentifier: mapsApp, .application(restoredObjects: 1), milliseconds: 53)),
        ]
        return [history(laptop, origin), history(phone, continuing)]
    }
}

extension [DeviceHistory] {
    /// The same histories with one device's events changed.
    func editing(_ device: PeerReference, _ edit: (inout [LifecycleEvent]) -> Void) -> [DeviceHistory] {
        map { history in
            guard history.device == device.name else { return history }
            var copy = history
            edit(&copy.events)
            return copy
        }
    }
}

extension [LifecycleEvent] {
    mutating func remove(_ kind: LifecycleEvent.Kind) { removeAll { $0.kind == kind } }

    /// Inserts `event` in time order, after the events of the same time.
    mutating func insert(_ event: LifecycleEvent) {
        insert(event, at: firstIndex { $0.time > event.time } ?? endIndex)
    }
}
