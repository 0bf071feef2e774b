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
            return "\(a.activityType) (\(reason == .coalesced ? "coalesced needsSave" : "before the payload leaves")), \(Self.count(info.count, "key"))"
        case .advertised(let a, let identity, let eligible):
            return "\(a.activityType) · serial \(identity.serial) · hash \(identity.activityTypeHash)\(eligible ? "" : " · not eligible")"
        case .withdrawn(let reason): return reason == .expired ? "the activity expired" : "no current activity"
        case .offerReceived(let peer, let identity, let route), .offerUpdated(let peer, let identity, let route):
            return "\(peer.name) · serial \(identity.serial) · \(route)"
        case .offerWithdrawn(let peer): return "\(peer.name) withdrew its offer"
        case .offerExpired(let peer): return "\(peer.name) fell silent"
        case .continueChosen(_, let peer, let route): return "\(peer.name) · \(route)"
        case .choiceIgnored(let peer, let why):
            return why == .busy ? "\(peer.name): another continuation is in progress" : "\(peer.name) offers nothing"
        case .willContinue(_, _, let bundle, let type, let accepted):
            return "\(bundle) · \(type) · \(accepted ? "returned true: shows it is loading" : "returned false: declined")"
        case .fetchStarted(_, let peer, let timeout): return "from \(peer.name), gives up after \(Self.seconds(timeout))"
        case .payloadReceived(_, let peer, let type, _, _, let info): return "\(type) from \(peer.name), \(Self.count(info.count, "key"))"
        case .latePayloadIgnored: return "no continuation is waiting for it"
        case .payloadSizeWarning(_, _, let guidance): return "over Apple's \(ByteCount.text(guidance)) guidance"
        case .webRouted(_, let host, _, let routing):
            switch routing {
            case .approved(let app): return "\(host) approves \(app): web → native"
            case .notApproved(let bundle, let app): return "opened in the browser: \(bundle) names \(host), but the site does not approve \(app)"
            case .noAppNamesHost: return "opened in the browser: no app names \(host) in its associated domains"
            }
        case .continueCalled(_, let bundle, let type): return "\(bundle) · \(type)"
        case .restoreUserActivityState(_, let bundle, let objects, _): return "\(Self.count(objects, "object")) in \(bundle)"
        case .continued(_, let peer, let bundle, let restored, _):
            return "from \(peer.name) in \(bundle), \(Self.count(restored, "object")) restored"
        case .notHandled(_, let peer, let bundle, _): return "\(bundle) returned false for the activity from \(peer.name)"
        case .continuationFailed(_, let peer, _, _, let error): return "from \(peer.name): \(Self.describe(error))"
        case .systemShowedError(let bundle, _, let error): return "\(bundle) does not handle \(error.code.rawValue): the system shows it"
        case .payloadRequested(_, let peer, let activity):
            return activity.map { "\(peer.name) asks for \($0.activityType)" } ?? "\(peer.name) asks for an activity that is no longer current"
        case .payloadSent(_, let peer, let a, _, let info): return "\(a.activityType) to \(peer.name), \(Self.count(info.count, "key"))"
        case .payloadRefused(_, let peer, let error): return "to \(peer.name): \(Self.describe(error)); this device keeps its activity"
        case .wasContinued(_, let peer, let a): return "\(a.activityType) on \(peer.name)"
        case .streamsOpened(_, let peer, let a, let side):
            return side == .origin ? "\(peer.name) connected to \(a.bundleIdentifier)'s delegate" : "to \(peer.name) for \(a.activityType)"
        case .streamsRefused(_, let peer, _, let reason): return "\(peer.name): \(reason)"
        case .documentOpened(_, _, let file), .documentClosed(_, _, let file): return file
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

    /// One line for learners: what Apple does at this step and why, naming the API.
    public var explanation: String { kind.explanation }

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
        if let peer {
            add("peer", .string(peer.name))
            add("peerID", .string(peer.id.rawValue))
        }
        func add(_ identity: AdvertisementIdentity) {
            add("serial", .integer(Int(identity.serial)))
            add("typeHash", .string(identity.activityTypeHash.description))
        }
        func add(_ route: Route) {
            add("route", .string(route.description))
            add("continuable", .bool(route.isContinuable))
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
        case .choiceIgnored(_, let why): add("reason", .string(why.rawValue))
        case .willContinue(_, _, _, _, let accepted): add("accepted", .bool(accepted))
        case .fetchStarted(_, _, let timeout): add("timeout", .double(timeout))
        case .payloadSizeWarning(_, _, let guidance): add("guidance", .integer(guidance))
        case .webRouted(_, let host, _, let routing):
            add("host", .string(host))
            if case .approved = routing { add("approved", .bool(true)) } else { add("approved", .bool(false)) }
        case .restoreUserActivityState(_, _, let objects, _): add("objects", .integer(objects))
        case .continued(_, _, _, let restored, _): add("objects", .integer(restored))
        case .streamsOpened(_, _, _, let side): add("side", .string(side.rawValue))
        case .streamsRefused(_, _, _, let reason): add("reason", .string(reason))
        case .documentOpened(_, _, let file), .documentClosed(_, _, let file): add("file", .string(file))
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
        case .becameCurrent: "becomeCurrent(): the activity is current, so the system advertises it to nearby devices."
        case .resignedCurrent: "resignCurrent() (or another app came to the front): the activity is no longer advertised."
        case .invalidated: "invalidate(): final; the activity can never become current again."
        case .needsSaveSet: "needsSave = true: the state changed; the system saves lazily, and always before the payload leaves."
        case .willSave: "userActivityWillSave(_:): the delegate's chance to refresh userInfo before it is saved."
        case .updateUserActivityState: "The system emptied userInfo and called updateUserActivityState(_:) on each responder sharing the activity."
        case .didUpdate: "application(_:didUpdate:): the app delegate's last chance to add keys, such as a version."
        case .saved: "The activity's state was saved; this userInfo is what a continuing device would receive."
        case .advertised: "A beacon tells same-account devices about the activity: a hash of its type, never its content."
        case .withdrawn: "The advertisement was withdrawn with a goodbye beacon."
        case .expired: "The activity passed its expirationDate and is no longer offered."
        case .offerReceived: "A nearby device of the same account advertises an activity; this device works out which app could continue it."
        case .offerUpdated: "A nearby device's offer changed (saved again, or this device's apps changed)."
        case .offerWithdrawn: "A nearby device withdrew its offer."
        case .offerExpired: "A nearby device fell silent; its offer expired."
        case .continueChosen: "The user chose to continue the offered activity (the lock screen, the dock or the app switcher)."
        case .choiceIgnored: "The choice started nothing: one continuation at a time, and only for an offer that is there."
        case .willContinue: "application(_:willContinueUserActivityWithType:): the app says whether it will continue and shows it is loading."
        case .fetchStarted: "The system asks the origin for the payload; the origin saves first."
        case .payloadReceived: "The activity's payload (type, title, userInfo, webpageURL) arrived from the origin."
        case .latePayloadIgnored: "A payload arrived after its continuation ended (cancelled, failed or timed out); it is dropped."
        case .payloadSizeWarning: "The payload is larger than Apple's 3 KB guidance; bulk data belongs in continuation streams."
        case .webRouted: "A web page continues in a native app only if the site's apple-app-site-association approves the app; otherwise in the browser."
        case .continueCalled: "application(_:continue:restorationHandler:): the app receives the activity and may pass objects to restore."
        case .restoreUserActivityState: "The restoration handler called restoreUserActivityState(_:) on the objects the app passed back."
        case .continued: "continue returned true: the continuation completed, and the origin is told."
        case .notHandled: "continue returned false: the app did not handle the activity, so the origin is not told it was continued."
        case .continuationFailed: "application(_:didFailToContinueUserActivityWithType:error:) reports why, with a public error code."
        case .systemShowedError: "The app does not implement didFailToContinueUserActivityWithType, so the system shows the error."
        case .payloadRequested: "A nearby device asks for this activity's payload to continue it."
        case .payloadSent: "The saved payload left this device."
        case .payloadRefused: "The payload was not sent; this device keeps its activity."
        case .wasContinued: "userActivityWasContinued(_:): the activity was continued on another device."
        case .streamsOpened: "Continuation streams connect the two apps for data too large for userInfo."
        case .streamsRefused: "A request for continuation streams was refused."
        case .documentOpened: "A document was opened; the system creates its activity from NSUbiquitousDocumentUserActivityType."
        case .documentClosed: "A document was closed; its activity is invalidated."
        }
    }
}
