import Foundation

/// A value of one field of a lifecycle event, for the headless JSON and the log.
public enum LifecycleField: Sendable, Hashable {
    case string(String)
    case integer(Int)
    case double(Double)
    case bool(Bool)
    case userInfo(UserInfoSnapshot)
}

/// The presentations of a lifecycle event, made in one place from the typed value: the line the
/// log shows, the explanation for learners, and the fields of the headless JSON.
extension LifecycleEvent {
    /// What happened, in a few words, for the log (after the time and the kind).
    public var summary: String {
        switch occurrence {
        case .activityCreated(let a): return "\(a.activityType) in \(a.bundleIdentifier)"
        case .becameCurrent(let a): return a.title.map { "“\($0)” · \(a.activityType)" } ?? a.activityType
        case .resignedCurrent(let a), .invalidated(let a), .needsSaveSet(let a), .expired(let a): return a.activityType
        case .willSave(let a, _), .didUpdate(let a, _): return a.activityType
        case .updateUserActivityState(let a, let responders, _):
            return "\(a.activityType): userInfo emptied, \(Self.count(responders, "responder")) asked"
        case .saved(let a, let reason, let info, _):
            return
                "\(a.activityType) (\(reason == .coalesced ? "coalesced needsSave" : "before the payload leaves")), \(Self.count(info.count, "key"))"
        case .saveSkipped(let a, let lastSaved, let changedAt, _):
            let saved = lastSaved.map { "saved at \(Self.clock($0))" } ?? "never saved"
            guard let changedAt else {
                // The normal case: the coalesced save already ran and nothing changed since.
                return lastSaved == nil
                    ? "\(a.activityType): never saved, nothing marked changed: the payload carries userInfo as it stands"
                    : "\(a.activityType): \(saved), not marked changed since: the payload carries that state"
            }
            return "\(a.activityType): the state changed at \(Self.clock(changedAt)) but needsSave was not set: "
                + (lastSaved == nil
                    ? "the payload carries userInfo as it stands" : "the payload carries the older state \(saved)")
        case .sceneDidUpdate(let a, let scene, _): return "\(a.activityType) in \(scene)"
        case .applicationLaunched(_, let bundle, let launch):
            return launch == .cold
                ? "\(bundle) launched (cold: it was not running)"
                : "\(bundle) brought forward (warm: it was in the background)"
        case .applicationTerminated(let bundle): return "\(bundle) quit: its next launch is cold"
        case .sceneWillConnect(_, let bundle, let scene, let type):
            return "\(scene) of \(bundle)"
                + (type.map { " · handoffUserActivityType \($0); userActivities is empty" } ?? "")
        case .sceneWillContinue(_, _, let bundle, let scene, let type):
            return "\(scene) of \(bundle) · \(type) · the system shows the progress"
        case .sceneContinue(_, let bundle, let scene, let type): return "\(scene) of \(bundle) · \(type)"
        case .sceneDidFailToContinue(_, let bundle, let scene, _, let error):
            return "\(scene) of \(bundle): \(Self.describe(error))"
        case .advertised(let a, let identity, let eligible):
            return
                "\(a.activityType) · serial \(identity.serial) · hash \(identity.activityTypeHash)\(eligible ? "" : " · not eligible")"
        case .withdrawn(let reason): return reason == .expired ? "the activity expired" : "no current activity"
        case .offerReceived(let peer, let identity, let route), .offerUpdated(let peer, let identity, let route):
            return "\(peer.name) · serial \(identity.serial) · \(route)"
        case .offerWithdrawn(let peer): return "\(peer.name) withdrew its offer"
        case .offerExpired(let peer): return "\(peer.name) fell silent"
        case .continueChosen(_, let peer, let route): return "\(peer.name) · \(route)"
        case .choiceIgnored(let peer, let why):
            switch why {
            case .busy: return "\(peer.name): another continuation is in progress"
            case .noOffer: return "\(peer.name) offers nothing"
            case .unavailable(let reason):
                return "\(peer.name)'s offer: \(reason); nothing was continued, nothing failed"
            }
        case .willContinue(_, _, let bundle, let type, let appShowsProgress):
            return "\(bundle) · \(type) · "
                + (appShowsProgress
                    ? "returned true: the app shows its progress" : "returned false: the system shows the progress")
        case .fetchStarted(_, let peer, let timeout):
            return "from \(peer.name), gives up after \(Self.seconds(timeout))"
        case .payloadReceived(_, let peer, let type, _, _, let info):
            return "\(type) from \(peer.name), \(Self.count(info.count, "key"))"
        case .latePayloadIgnored: return "no continuation is waiting for it"
        case .payloadSizeWarning(_, _, let guidance): return "over Apple's \(ByteCount.text(guidance)) guidance"
        case .webRouted(_, let host, _, let routing):
            switch routing {
            case .approved(let app, let domain):
                return "\(host) → \(app): \(domain.fileHost)'s association file approves it (web → native)"
            case .notApproved(let refusals):
                return "opened in the browser: " + refusals.map { $0.description }.joined(separator: "; ")
            case .noAppNamesHost: return "opened in the browser: no app names \(host) in its associated domains"
            }
        case .siteAssociationChecked(let check, let kept):
            let kept = kept.map { "; keeps the earlier answer: \($0)" } ?? ""
            return "\(check.bundleIdentifier) · activitycontinuation:\(check.domain) · \(check.outcome)\(kept)"
        case .continueCalled(_, let bundle, let type): return "\(bundle) · \(type)"
        case .restoreUserActivityState(_, let bundle, let objects, _):
            return "\(Self.count(objects, "object")) in \(bundle)"
        case .continued(_, let peer, let bundle, .application(let restored), _):
            return "from \(peer.name) in \(bundle), \(Self.count(restored, "object")) restored"
        case .continued(_, let peer, let bundle, .scene(let scene), _):
            return
                "from \(peer.name) in \(bundle): \(scene) had it (scene(_:continue:) answers nothing), so it counts as continued"
        case .notHandled(_, let peer, let bundle, _, let reason):
            return "\(bundle), the activity from \(peer.name): \(reason)"
        case .continuationFailed(_, let peer, _, _, let error): return "from \(peer.name): \(Self.describe(error))"
        case .systemShowedError(let bundle, _, let error):
            return "\(bundle) does not handle \(error.code.rawValue): the system shows it"
        case .payloadRequested(_, let peer, let activity):
            return activity.map { "\(peer.name) asks for \($0.activityType)" }
                ?? "\(peer.name) asks for an activity that is no longer current"
        case .payloadSent(_, let peer, let a, _, let info):
            return "\(a.activityType) to \(peer.name), \(Self.count(info.count, "key"))"
        case .payloadRefused(_, let peer, let error):
            return "to \(peer.name): \(Self.describe(error)); this device keeps its activity"
        case .wasContinued(_, let peer, let a): return "\(a.activityType) on \(peer.name)"
        case .streamsOpened(_, let peer, let a, let side):
            return side == .origin
                ? "\(peer.name) connected to \(a.bundleIdentifier)'s delegate" : "to \(peer.name) for \(a.activityType)"
        case .streamsRefused(_, let peer, _, let reason): return "\(peer.name): \(reason)"
        case .documentOpened(_, _, let file), .documentClosed(_, _, let file): return file
        case .stepPaused(_, let phase): return "next: \(phase); timeouts suspended until you go on"
        case .faultInjected(_, let fault): return "\(fault) (on purpose): \(fault.expectedOutcome)"
        }
    }

    /// Measured facts shown after the summary: size and duration.
    public var facts: [String] {
        var facts: [String] = []
        if let bytes { facts.append(ByteCount.text(bytes)) }
        if let milliseconds { facts.append("\(Int(milliseconds.rounded())) ms") }
        return facts
    }

    /// The log's line for this event (without its time): the kind, the summary, the facts.
    public var logLine: String {
        let facts = self.facts
        return "\(kind.rawValue) \(summary)" + (facts.isEmpty ? "" : " (" + facts.joined(separator: ", ") + ")")
    }

    /// One line for learners: what Apple does at this step and why, naming the API. Where the
    /// values change the story (a skipped save with or without a forgotten needsSave, a
    /// continuation counted by an app delegate's answer or by a scene that answers nothing), the
    /// line is this event's own.
    public var explanation: String {
        switch occurrence {
        case .saveSkipped(_, nil, nil, _):
            "Nothing marked the activity changed and it was never saved, so no save callback runs before the payload leaves: it carries userInfo as the app set it."
        case .saveSkipped(_, _, nil, _):
            "Nothing marked the activity changed since its last save (the coalesced save already ran), so no save callback runs before the payload leaves: it carries the state saved then."
        case .saveSkipped(_, nil, _, _):
            "The state changed but needsSave was not set, and the activity was never saved, so no save callback runs before the payload leaves: it carries userInfo as it stands, without what the callbacks would write (set needsSave whenever the state changes)."
        case .continuationFailed(_, _, nil, _, _):
            "The continuation failed before an app was chosen, so no app is told: the system shows the error, with a public error code."
        case .continued(_, _, _, .scene, _):
            "scene(_:continue:) returns nothing, so the system cannot learn whether the app took the activity: once the scene has it, the continuation counts as done and the origin is told (userActivityWasContinued), even when the app refuses it and says so itself."
        default:
            kind.explanation
        }
    }

    /// The fields of the headless JSON object, in order (`time` and `device` first, then `kind`).
    public var fields: [(key: String, value: LifecycleField)] {
        var fields: [(key: String, value: LifecycleField)] = [
            ("time", .string(Self.timestamp(time))), ("device", .string(device)), ("kind", .string(kind.rawValue)),
        ]
        func add(_ key: String, _ value: LifecycleField?) { if let value { fields.append((key, value)) } }
        add("continuation", continuation.map { .string($0.description) })
        if let activity {
            add("activity", .string(activity.id.uuidString.lowercased()))
            add("activityType", .string(activity.activityType))
            add("title", activity.title.map { .string($0) })
            add("bundleIdentifier", .string(activity.bundleIdentifier))
        } else {
            add("activityType", activityType.map { .string($0) })
            add("bundleIdentifier", bundleIdentifier.map { .string($0) })
        }
        add("scene", scene.map { .string($0) })
        if let peer {
            add("peer", .string(peer.name))
            add("peerID", .string(peer.id.rawValue))
        }
        func add(_ identity: AdvertisementIdentity) {
            add("serial", .integer(Int(identity.serial)))
            add("typeHash", .string(identity.activityTypeHash.description))
            add("advertiser", .string(identity.device.rawValue))
        }
        func add(_ unavailable: Unavailability) {
            add("unavailable", .string(unavailable.description))
            add("unavailableKind", .string(unavailable.name))
            if case .teamDiffers(let apps) = unavailable {
                add("unavailableApps", .string(apps.joined(separator: ",")))
            }
        }
        func add(_ route: Route) {
            add("route", .string(route.description))
            add("continuable", .bool(route.isContinuable))
            switch route {
            case .app(let bundle, let type):
                add("routeKind", .string("app"))
                add("routeApp", .string(bundle))
                add("routeActivityType", .string(type))
            case .browser(let bundle, let why):
                add("routeKind", .string("browser"))
                add("routeApp", .string(bundle))
                add(why)
            case .web(let browser):
                add("routeKind", .string("web"))
                add("routeApp", browser.map { .string($0) })
            case .unavailable(let why):
                add("routeKind", .string("unavailable"))
                add(why)
            }
        }
        switch occurrence {
        case .updateUserActivityState(_, let responders, _): add("responders", .integer(responders))
        case .saved(_, let reason, _, _): add("saveReason", .string(reason.rawValue))
        case .advertised(_, let identity, let eligible):
            add(identity)
            add("eligible", .bool(eligible))
        case .offerReceived(_, let identity, let route), .offerUpdated(_, let identity, let route):
            add(identity)
            add(route)
        case .continueChosen(_, _, let route): add(route)
        case .withdrawn(let reason): add("reason", .string(reason.rawValue))
        case .choiceIgnored(_, let why):
            add("reason", .string(why.name))
            if case .unavailable(let unavailable) = why { add(unavailable) }
        case .willContinue(_, _, _, _, let appShowsProgress): add("appShowsProgress", .bool(appShowsProgress))
        case .saveSkipped(_, let lastSaved, let changedAt, _):
            add("lastSaved", lastSaved.map { .string(Self.timestamp($0)) })
            add("changedAt", changedAt.map { .string(Self.timestamp($0)) })
        case .applicationLaunched(_, _, let launch): add("launch", .string(launch.rawValue))
        case .sceneWillConnect(_, _, _, let type): add("handoffUserActivityType", type.map { .string($0) })
        case .notHandled(_, _, _, _, let reason):
            add("notHandled", .string(reason.description))
            for (key, value) in reason.fields { add(key, value) }
        case .fetchStarted(_, _, let timeout): add("timeout", .double(timeout))
        case .payloadSizeWarning(_, _, let guidance): add("guidance", .integer(guidance))
        case .webRouted(_, let host, _, let routing):
            add("host", .string(host))
            switch routing {
            case .approved(let app, let domain):
                add("approved", .bool(true))
                add("applicationIdentifier", .string(app))
                add("domain", .string(domain.description))
            case .notApproved(let refusals):
                add("approved", .bool(false))
                add(
                    "outcomes",
                    .string(
                        refusals.map { "\($0.bundleIdentifier) \($0.domain): \($0.outcome?.name ?? "notChecked")" }
                            .joined(separator: "; ")))
                add("refusals", .string(WebRoutingRefusal.jsonText(refusals)))
            case .noAppNamesHost:
                add("approved", .bool(false))
            }
        case .siteAssociationChecked(let check, let kept):
            add("domain", .string(check.domain.description))
            add("host", .string(check.domain.fileHost))
            add("applicationIdentifier", .string(check.applicationIdentifier))
            add("outcome", .string(check.outcome.name))
            for (key, value) in check.outcome.fields(prefix: "outcome") { add(key, value) }
            add("approved", .bool(check.outcome == .approved))
            add("checkedAt", .string(Self.timestamp(check.checkedAt)))
            add("expiresAt", .string(Self.timestamp(check.expiresAt)))
            add("keptAnswer", kept.map { .string($0.name) })
            for (key, value) in kept?.fields(prefix: "keptAnswer") ?? [] { add(key, value) }
        case .restoreUserActivityState(_, _, let objects, _): add("objects", .integer(objects))
        case .continued(_, _, _, .application(let restored), _): add("objects", .integer(restored))
        case .streamsOpened(_, _, _, let side): add("side", .string(side.rawValue))
        case .streamsRefused(_, _, _, let reason): add("reason", .string(reason))
        case .documentOpened(_, _, let file), .documentClosed(_, _, let file): add("file", .string(file))
        case .faultInjected(_, let fault):
            add("fault", .string(fault.rawValue))
            add("expected", .string(fault.expectedOutcome))
        case .stepPaused(_, let phase):
            add("phase", .string(phase.name))
            add("next", .string(phase.description))
            for (key, value) in phase.fields { add(key, value) }
        default: break
        }
        add("size", bytes.map { .integer($0) })
        add("milliseconds", milliseconds.map { .double($0) })
        if let error {
            add("errorCode", .integer(error.code.rawValue))
            add("error", .string(error.code.constantName))
            add("reason", .string(error.reason))
        }
        add("userInfo", userInfo.map { .userInfo($0) })
        fields.append(("detail", .string(summary)))
        fields.append(("explanation", .string(explanation)))
        return fields
    }

    // MARK: Formatting, once

    /// A time as ISO 8601 with milliseconds, in UTC.
    public static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// A time of day (HH:mm:ss, this machine's time zone), as the log shows it.
    static func clock(_ date: Date) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String {
            let n = n ?? 0
            return n < 10 ? "0\(n)" : "\(n)"
        }
        return "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.2f s", value)
    }

    static func describe(_ error: HandoffError) -> String {
        "\(error.code.rawValue) \(error.code.constantName): \(error.reason)"
    }
}

extension LifecycleEvent.Kind {
    /// One line for learners: what this step is in Apple's Handoff, naming the API.
    public var explanation: String {
        switch self {
        case .activityCreated: "An app created an NSUserActivity describing what the user is doing."
        case .becameCurrent:
            "The activity is current: its app is in front and made it current (becomeCurrent(), or by setting it on a responder), so the system advertises it."
        case .resignedCurrent:
            "resignCurrent() (or another app came to the front): the activity is no longer advertised."
        case .invalidated: "invalidate(): final; the activity can never become current again."
        case .needsSaveSet:
            "needsSave = true: the state changed; the system saves lazily, and always before the payload leaves."
        case .willSave: "userActivityWillSave(_:): the delegate's chance to refresh userInfo before it is saved."
        case .updateUserActivityState:
            "The system emptied userInfo and called updateUserActivityState(_:) on each responder sharing the activity."
        case .didUpdate: "application(_:didUpdate:): the app delegate's last chance to add keys, such as a version."
        case .saved:
            "The activity's state was saved; a payload leaving now carries this userInfo (only its requiredUserInfoKeys, when the app set some)."
        case .saveSkipped:
            "The state changed but needsSave was not set, so no save callback runs before the payload leaves: it carries the older state saved last (set needsSave whenever the state changes)."
        case .sceneDidUpdate: "scene(_:didUpdate:): the scene delegate's last chance to add keys after a save."
        case .applicationLaunched:
            "To continue, the system launches the app (cold: a new process, a scene app connects a scene) or brings it forward (warm)."
        case .applicationTerminated:
            "The user quit the app from the app switcher: its activities end and its next launch is cold."
        case .sceneWillConnect:
            "scene(_:willConnectTo:options:): on a cold launch for Handoff the options carry only handoffUserActivityType; the activity itself comes later, to scene(_:continue:), never in userActivities."
        case .sceneWillContinue:
            "scene(_:willContinueUserActivityWithType:): the scene prepares; after it returns the system shows that the activity is being continued."
        case .sceneContinue:
            "scene(_:continue:): called once all the activity's data has arrived; the scene restores it."
        case .sceneDidFailToContinue:
            "scene(_:didFailToContinueUserActivityWithType:error:): the scene is told why, with a public error code (not implemented: the system shows it)."
        case .advertised:
            "A beacon tells same-account devices about the activity: a hash of its type, never its content."
        case .withdrawn: "The advertisement was withdrawn with a goodbye beacon."
        case .expired: "The activity passed its expirationDate and is no longer offered."
        case .offerReceived:
            "A nearby device of the same account advertises an activity; this device works out which app could continue it."
        case .offerUpdated:
            "A nearby device's offer changed: its activity was saved again or its properties changed, or it expired here."
        case .offerWithdrawn: "A nearby device withdrew its offer."
        case .offerExpired: "A nearby device fell silent; its offer expired."
        case .continueChosen:
            "The user chose to continue the offered activity (the lock screen, the dock or the app switcher)."
        case .choiceIgnored:
            "The choice started nothing: one continuation at a time, only for an offer that is there, and only into an app that can take it."
        case .willContinue:
            "application(_:willContinueUserActivityWithType:): true, the app tells the user itself that it is continuing and the system shows nothing; false, the system shows its progress. Either way it goes on: false does not cancel."
        case .fetchStarted: "The system asks the origin for the payload; the origin saves first if needsSave is set."
        case .payloadReceived: "The activity's payload (type, title, userInfo, webpageURL) arrived from the origin."
        case .latePayloadIgnored:
            "A payload arrived after its continuation ended (cancelled, failed or timed out); it is dropped."
        case .payloadSizeWarning:
            "The payload is larger than Apple's 3 KB guidance; bulk data belongs in continuation streams."
        case .siteAssociationChecked:
            "When an app with activitycontinuation: domains is installed or launched, the device fetches each site's apple-app-site-association (HTTPS, no redirects, application/json, at most 128 KB) and keeps the answer as long as Cache-Control allows."
        case .webRouted:
            "A web page continues in a native app only if the app names the host in its associated domains and the site's apple-app-site-association approves the app; otherwise in the browser."
        case .continueCalled:
            "application(_:continue:restorationHandler:): the app receives the activity and may pass objects to restore."
        case .restoreUserActivityState:
            "The restoration handler called restoreUserActivityState(_:) on the objects the app passed back."
        case .continued:
            "application(_:continue:restorationHandler:) returned true: the continuation completed, and the origin is told."
        case .notHandled:
            "The app did not handle the activity (continue returned false, or no scene code received it), so the origin is not told it was continued."
        case .continuationFailed:
            "didFailToContinueUserActivityWithType tells the app (its scene, in a scene app) why, with a public error code."
        case .systemShowedError:
            "The app does not implement didFailToContinueUserActivityWithType, so the system shows the error."
        case .payloadRequested: "A nearby device asks for this activity's payload to continue it."
        case .payloadSent: "The saved payload left this device."
        case .payloadRefused: "The payload was not sent; this device keeps its activity."
        case .wasContinued: "userActivityWasContinued(_:): the activity was continued on another device."
        case .streamsOpened: "Continuation streams connect the two apps for data too large for userInfo."
        case .streamsRefused: "A request for continuation streams was refused."
        case .documentOpened:
            "A document was opened; the system creates its activity from NSUbiquitousDocumentUserActivityType. "
                + "On a laptop (AppKit) it becomes current with the document's window; on a phone or tablet (UIKit) it does not: "
                + "the app sets it on a responder on screen, which makes it current."
        case .documentClosed: "A document was closed; its activity is invalidated."
        case .faultInjected:
            "The lab made this fail on purpose, to rehearse what real apps and networks do; Apple's behaviour follows as it would."
        case .stepPaused:
            "Step mode: the device waits before this phase of the continuation; its timeouts are suspended until you go on."
        }
    }
}
