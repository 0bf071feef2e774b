import Foundation

/// The per-device "operating system" of Handoff as a value-type state machine.
///
/// Feed it what happened with ``handle(_:at:)``; it answers with what to do (``Effect``s), in
/// order. It never reads a clock, touches the network or calls app code: time is an input and
/// every outside action is an effect, so it can be tested exhaustively and driven by any runtime
/// (the in-process ``Device``, the network, the terminal UI).
public struct DeviceSystem: Sendable {
    /// What happened.
    public enum Event: Sendable, Hashable {
        // Local apps and their activities
        case appInstalled(AppManifest)
        case appBecameFrontmost(bundleIdentifier: String?)
        case activityChanged(ActivitySnapshot)
        case activityBecameCurrent(UUID)
        case activityResignedCurrent(UUID)
        case activityInvalidated(UUID)
        case activityNeedsSave(UUID)
        case siteApproval(host: String, applicationIdentifiers: Set<String>)
        // Peers
        case advertisementReceived(Advertisement, from: PeerInfo)
        case goodbyeReceived(DeviceID)
        // The receiving side of a continuation
        case offerChosen(DeviceID)
        case willContinueAnswered(ContinuationID, accepted: Bool)
        case payloadReceived(ContinuationID, ActivityPayload, size: Int)
        case payloadFailed(ContinuationID, HandoffError)
        case continuationHandled(ContinuationID, handled: Bool, restoredObjects: Int)
        case continuationCancelled
        // The origin side of a continuation
        case payloadRequested(PayloadRequestID, from: PeerInfo, activityTypeHash: ActivityTypeHash)
        case payloadEncoded(PayloadRequestID, Data)
        case payloadUnavailable(PayloadRequestID, reason: String)
        case continuationConfirmed(activityIdentifier: UUID, by: PeerInfo)
        // Time passing
        case tick
    }

    /// What to do, in order.
    public enum Effect: Sendable, Hashable {
        case advertise(Advertisement)
        case withdraw
        /// Run the save callbacks of an activity: `userActivityWillSave`, responders'
        /// `updateUserActivityState` (with userInfo emptied first), then the app's `didUpdate`.
        case save(UUID, SaveReason)
        case callWillContinue(ContinuationID, bundleIdentifier: String, activityType: String)
        case requestPayload(ContinuationID, from: DeviceID, activityTypeHash: ActivityTypeHash)
        case cancelPayloadRequest(ContinuationID, from: DeviceID)
        /// Give the payload to the app: create the activity and call `continue(_:restorationHandler:)`.
        case deliver(ContinuationID, bundleIdentifier: String, ActivityPayload, origin: DeviceID)
        case callDidFail(bundleIdentifier: String, activityType: String, HandoffError)
        /// The app does not implement `didFailToContinue`: the system shows the error itself.
        case encodePayload(PayloadRequestID, activity: UUID)
        case sendPayload(PayloadRequestID, to: DeviceID, Data)
        case sendPayloadError(PayloadRequestID, to: DeviceID, HandoffError)
        case notifyContinued(to: DeviceID, activityIdentifier: UUID)
        case callWasContinued(UUID)
        case record(LifecycleEvent)
    }

    /// The phase of the continuation in progress on this (receiving) device.
    public struct PendingContinuation: Sendable, Hashable {
        public enum Phase: Sendable, Hashable {
            case awaitingWillContinue
            case fetching(deadline: Date)
        }

        public var id: ContinuationID
        public var peer: PeerInfo
        public var advertisement: Advertisement
        /// The app that will receive it (nil for a web activity until its payload has arrived).
        public var bundleIdentifier: String?
        public var activityType: String
        public var phase: Phase
        public var chosenAt: Date
        public var fetchStartedAt: Date?
        /// The payload, when it arrived before the app answered willContinue (web activities).
        public var payload: ActivityPayload?
        var isBrowserFallback: Bool
    }

    struct ServeRequest: Sendable, Hashable {
        var peer: DeviceID
        var activity: UUID
        var requestedAt: Date
    }

    public let device: PeerInfo
    public var configuration: DeviceConfiguration
    public private(set) var apps: [AppManifest] = []
    /// The app in front (nil: the home screen, or no app was ever brought to the front).
    public private(set) var frontmostApp: String?
    /// False until an app (or the home screen) is first brought to the front; until then any
    /// app's activity may be current.
    public private(set) var hasFrontmostApp = false
    public private(set) var activities: [UUID: ActivitySnapshot] = [:]
    /// Per app, the activity it wants current (explicit `becomeCurrent()` or its responder chain).
    public private(set) var candidates: [String: UUID] = [:]
    public private(set) var currentActivity: UUID?
    public private(set) var advertisement: Advertisement?
    public private(set) var offers: [DeviceID: Offer] = [:]
    public private(set) var pendingContinuation: PendingContinuation?
    public private(set) var siteApprovals: [String: Set<String>] = [:]
    var saveDeadline: Date?
    var needsSave: Set<UUID> = []
    var lastSaved: [UUID: Date] = [:]
    var serving: [PayloadRequestID: ServeRequest] = [:]
    /// Names of peers that asked for payloads (they may not advertise anything themselves).
    var peerNames: [DeviceID: String] = [:]
    var nextContinuation: UInt64 = 1
    var activitySerial: UInt32 = 0

    public init(device: PeerInfo, configuration: DeviceConfiguration = DeviceConfiguration()) {
        self.device = device
        self.configuration = configuration
    }

    /// The browser installed on this device, if any (an app claiming the browsing-web type).
    public var browser: AppManifest? { apps.first(where: \.isBrowser) }

    /// Handles one event that happened at `now`; returns the effects to carry out, in order.
    public mutating func handle(_ event: Event, at now: Date) -> [Effect] {
        var effects: [Effect] = []
        switch event {
        case .appInstalled(let manifest):
            apps.removeAll { $0.bundleIdentifier == manifest.bundleIdentifier }
            apps.append(manifest)
            rerouteOffers(at: now, effects: &effects)
        case .appBecameFrontmost(let bundle):
            frontmostApp = bundle
            hasFrontmostApp = true
            chooseCurrent(at: now, effects: &effects)
        case .activityChanged(let snapshot):
            let old = activities[snapshot.id]
            activities[snapshot.id] = snapshot
            if old == nil {
                record(.activityCreated, at: now, snapshot, detail: "\(snapshot.activityType) in \(snapshot.bundleIdentifier)", into: &effects)
            }
            if snapshot.id == currentActivity, old != snapshot { advertiseCurrent(at: now, effects: &effects) }
        case .activityBecameCurrent(let id):
            guard let snapshot = activities[id] else { break }
            candidates[snapshot.bundleIdentifier] = id
            chooseCurrent(at: now, effects: &effects)
        case .activityResignedCurrent(let id):
            guard let snapshot = activities[id], candidates[snapshot.bundleIdentifier] == id else { break }
            candidates[snapshot.bundleIdentifier] = nil
            chooseCurrent(at: now, effects: &effects)
        case .activityInvalidated(let id):
            guard let snapshot = activities.removeValue(forKey: id) else { break }
            needsSave.remove(id)
            lastSaved[id] = nil
            record(.invalidated, at: now, snapshot, detail: "\(snapshot.activityType) invalidated", into: &effects)
            if candidates[snapshot.bundleIdentifier] == id { candidates[snapshot.bundleIdentifier] = nil }
            chooseCurrent(at: now, effects: &effects)
        case .activityNeedsSave(let id):
            guard let snapshot = activities[id] else { break }
            needsSave.insert(id)
            record(.needsSaveSet, at: now, snapshot, into: &effects)
            if id == currentActivity { scheduleSave(at: now, effects: &effects) }
        case .siteApproval(let host, let appIDs):
            siteApprovals[host.lowercased()] = appIDs
        case .advertisementReceived(let ad, let peer):
            receive(ad, from: peer, at: now, effects: &effects)
        case .goodbyeReceived(let peer):
            if let offer = offers.removeValue(forKey: peer) {
                effects.append(.record(makeEvent(.offerWithdrawn, at: now, peer: offer.peer.name,
                                             detail: "\(offer.peer.name) withdrew its offer")))
            }
        case .offerChosen(let peer):
            choose(peer, at: now, effects: &effects)
        case .willContinueAnswered(let id, let accepted):
            willContinueAnswered(id, accepted: accepted, at: now, effects: &effects)
        case .payloadReceived(let id, let payload, let size):
            payloadReceived(id, payload, size: size, at: now, effects: &effects)
        case .payloadFailed(let id, let error):
            guard let pending = pendingContinuation, pending.id == id else { break }
            fail(pending, error, at: now, effects: &effects)
        case .continuationHandled(let id, let handled, let restored):
            guard let pending = pendingContinuation, pending.id == id else { break }
            pendingContinuation = nil
            let elapsed = now.timeIntervalSince(pending.chosenAt) * 1000
            if handled {
                effects.append(.notifyContinued(to: pending.peer.id, activityIdentifier: pending.payload?.activityIdentifier ?? UUID()))
                effects.append(.record(makeEvent(.continued, at: now, type: pending.activityType, bundle: pending.bundleIdentifier,
                                             peer: pending.peer.name, milliseconds: elapsed,
                                             detail: "continued from \(pending.peer.name); \(restored) object(s) restored")))
            } else {
                effects.append(.record(makeEvent(.continued, at: now, type: pending.activityType, bundle: pending.bundleIdentifier,
                                             peer: pending.peer.name, milliseconds: elapsed,
                                             detail: "the app returned false from continue: it did not handle the activity")))
            }
        case .continuationCancelled:
            guard let pending = pendingContinuation else { break }
            fail(pending, HandoffError(.userCancelled, "the user cancelled the continuation"), at: now, effects: &effects)
        case .payloadRequested(let request, let peer, let hash):
            serve(request, to: peer, hash: hash, at: now, effects: &effects)
        case .payloadEncoded(let request, let data):
            payloadEncoded(request, data, at: now, effects: &effects)
        case .payloadUnavailable(let request, let reason):
            guard let serve = serving.removeValue(forKey: request) else { break }
            refuse(request, serve.peer, HandoffError(.handoffFailed, reason), at: now, effects: &effects)
        case .continuationConfirmed(let activityIdentifier, let peer):
            guard let snapshot = activities[activityIdentifier] else { break }
            let name = peer.name
            effects.append(.callWasContinued(activityIdentifier))
            record(.wasContinued, at: now, snapshot, peer: name, detail: "continued on \(name)", into: &effects)
        case .tick:
            tick(at: now, effects: &effects)
        }
        return effects
    }
}

// MARK: - The origin: current activity, saving, advertising, serving

extension DeviceSystem {
    /// Makes the frontmost app's candidate current (any app's when no app is frontmost).
    mutating func chooseCurrent(at now: Date, effects: inout [Effect]) {
        let chosen: UUID?
        if hasFrontmostApp {
            chosen = frontmostApp.flatMap { candidates[$0] }
        } else {
            chosen = candidates.values.max { (lastSaved[$0] ?? .distantPast) < (lastSaved[$1] ?? .distantPast) }
                ?? candidates.values.first
        }
        guard chosen != currentActivity else { return }
        if let old = currentActivity, let snapshot = activities[old] {
            record(.resignedCurrent, at: now, snapshot, into: &effects)
        }
        currentActivity = chosen
        saveDeadline = nil
        if let chosen, let snapshot = activities[chosen] {
            activitySerial &+= 1
            lastSaved[chosen] = lastSaved[chosen] ?? now
            record(.becameCurrent, at: now, snapshot, detail: snapshot.title ?? snapshot.activityType, into: &effects)
            if needsSave.contains(chosen) { scheduleSave(at: now, effects: &effects) }
            advertiseCurrent(at: now, effects: &effects)
        } else if advertisement != nil {
            advertisement = nil
            effects.append(.withdraw)
            effects.append(.record(makeEvent(.withdrawn, at: now, detail: "no current activity")))
        }
    }

    mutating func advertiseCurrent(at now: Date, effects: inout [Effect]) {
        guard let id = currentActivity, let snapshot = activities[id] else { return }
        if let expiration = snapshot.expirationDate, expiration <= now {
            expireCurrent(snapshot, at: now, effects: &effects)
            return
        }
        var options: Advertisement.Options = []
        if snapshot.hasWebpageURL { options.insert(.hasWebpageURL) }
        if snapshot.supportsContinuationStreams { options.insert(.supportsContinuationStreams) }
        if snapshot.isEligibleForHandoff { options.insert(.isEligibleForHandoff) }
        if snapshot.isDocument { options.insert(.isDocument) }
        let ad = Advertisement(
            device: device.id, activityTypeHash: ActivityTypeHash(activityType: snapshot.activityType),
            teamHash: TeamHash(teamIdentifier: snapshot.teamIdentifier), options: options,
            activitySerial: activitySerial, savedAt: lastSaved[id] ?? now, expiresAt: snapshot.expirationDate)
        guard ad != advertisement else { return }
        advertisement = ad
        effects.append(.advertise(ad))
        record(.advertised, at: now, snapshot,
               detail: "hash \(ad.activityTypeHash)\(snapshot.isEligibleForHandoff ? "" : ", not eligible")", into: &effects)
    }

    mutating func expireCurrent(_ snapshot: ActivitySnapshot, at now: Date, effects: inout [Effect]) {
        record(.expired, at: now, snapshot, detail: "expired; withdrawn from nearby devices", into: &effects)
        candidates[snapshot.bundleIdentifier] = nil
        currentActivity = nil
        if advertisement != nil {
            advertisement = nil
            effects.append(.withdraw)
            effects.append(.record(makeEvent(.withdrawn, at: now, type: snapshot.activityType, detail: "activity expired")))
        }
    }

    mutating func scheduleSave(at now: Date, effects: inout [Effect]) {
        if configuration.saveCoalescingInterval <= 0 {
            saveCurrent(.coalesced, at: now, effects: &effects)
        } else if saveDeadline == nil {
            saveDeadline = now.addingTimeInterval(configuration.saveCoalescingInterval)
        }
    }

    mutating func saveCurrent(_ reason: SaveReason, at now: Date, effects: inout [Effect]) {
        guard let id = currentActivity, let snapshot = activities[id] else { return }
        saveDeadline = nil
        needsSave.remove(id)
        lastSaved[id] = now
        effects.append(.save(id, reason))
        record(.saved, at: now, snapshot, detail: reason == .coalesced ? "coalesced needsSave" : "before the payload leaves", into: &effects)
        advertiseCurrent(at: now, effects: &effects)
    }

    mutating func serve(_ request: PayloadRequestID, to peerInfo: PeerInfo, hash: ActivityTypeHash, at now: Date,
                        effects: inout [Effect]) {
        let peer = peerInfo.id
        let name = peerInfo.name
        peerNames[peer] = name
        guard let id = currentActivity, let snapshot = activities[id],
              ActivityTypeHash(activityType: snapshot.activityType) == hash
        else {
            effects.append(.record(makeEvent(.payloadRequested, at: now, peer: name, detail: "requested an activity that is no longer current")))
            refuse(request, peer, HandoffError(.handoffFailed, "the activity is no longer offered by the origin"), at: now, effects: &effects)
            return
        }
        record(.payloadRequested, at: now, snapshot, peer: name, detail: "\(name) asks to continue", into: &effects)
        guard snapshot.isEligibleForHandoff else {
            refuse(request, peer, HandoffError(.handoffFailed, "the activity is not eligible for Handoff"), at: now, effects: &effects)
            return
        }
        if let expiration = snapshot.expirationDate, expiration <= now {
            refuse(request, peer, HandoffError(.handoffFailed, "the activity has expired"), at: now, effects: &effects)
            return
        }
        serving[request] = ServeRequest(peer: peer, activity: id, requestedAt: now)
        // Always save right before a payload leaves, so a continuation never restores stale state.
        needsSave.remove(id)
        saveDeadline = nil
        lastSaved[id] = now
        effects.append(.save(id, .beforeSending))
        record(.saved, at: now, snapshot, detail: "before the payload leaves", into: &effects)
        effects.append(.encodePayload(request, activity: id))
    }

    mutating func payloadEncoded(_ request: PayloadRequestID, _ data: Data, at now: Date, effects: inout [Effect]) {
        guard let serve = serving.removeValue(forKey: request) else { return }
        let snapshot = activities[serve.activity]
        let name = name(of: serve.peer)
        if data.count > configuration.payloadWarningBytes {
            effects.append(.record(makeEvent(.payloadSizeWarning, at: now, type: snapshot?.activityType, bundle: snapshot?.bundleIdentifier,
                                         size: data.count,
                                         detail: "\(data.count) bytes exceeds the \(configuration.payloadWarningBytes)-byte guidance")))
        }
        guard data.count <= configuration.payloadLimitBytes else {
            refuse(request, serve.peer, HandoffError(.userInfoTooLarge,
                "the payload is \(data.count) bytes, over the \(configuration.payloadLimitBytes)-byte limit"), at: now, effects: &effects)
            return
        }
        effects.append(.sendPayload(request, to: serve.peer, data))
        effects.append(.record(makeEvent(.payloadSent, at: now, type: snapshot?.activityType, bundle: snapshot?.bundleIdentifier,
                                     peer: name, size: data.count, detail: "\(data.count) bytes to \(name)")))
    }

    mutating func refuse(_ request: PayloadRequestID, _ peer: DeviceID, _ error: HandoffError, at now: Date,
                         effects: inout [Effect]) {
        let name = name(of: peer)
        effects.append(.sendPayloadError(request, to: peer, error))
        let type = currentActivity.flatMap { activities[$0]?.activityType }
        effects.append(.record(makeEvent(.payloadRefused, at: now, type: type, peer: name, errorCode: error.code.rawValue,
                                     detail: "\(error.reason); this device keeps its activity")))
    }
}

// MARK: - The receiver: offers, routing, continuing

extension DeviceSystem {
    mutating func receive(_ ad: Advertisement, from peer: PeerInfo, at now: Date, effects: inout [Effect]) {
        guard peer.id != device.id else { return }
        let route = self.route(for: ad, at: now)
        if var offer = offers[peer.id] {
            let changed = offer.advertisement.activitySerial != ad.activitySerial
                || offer.advertisement.activityTypeHash != ad.activityTypeHash
            offer.lastSeen = now
            offer.peer = peer
            if changed { offer.firstSeen = now; offer.payloadSize = nil }
            let moved = offer.route != route || !offer.advertisement.isSameState(as: ad)
            offer.advertisement = ad
            offer.route = route
            offers[peer.id] = offer
            if changed {
                effects.append(.record(makeEvent(.offerReceived, at: now, peer: peer.name, detail: "\(peer.name): \(route)")))
            } else if moved {
                effects.append(.record(makeEvent(.offerUpdated, at: now, peer: peer.name, detail: "\(peer.name): \(route)")))
            }
        } else {
            offers[peer.id] = Offer(peer: peer, advertisement: ad, firstSeen: now, lastSeen: now, route: route)
            effects.append(.record(makeEvent(.offerReceived, at: now, peer: peer.name, detail: "\(peer.name): \(route)")))
        }
    }

    mutating func rerouteOffers(at now: Date, effects: inout [Effect]) {
        for (id, offer) in offers {
            let route = self.route(for: offer.advertisement, at: now)
            offers[id]?.route = route
        }
    }

    /// Decides where an advertised activity would go on this device, or why it cannot.
    public func route(for ad: Advertisement, at now: Date) -> Route {
        if !ad.options.contains(.isEligibleForHandoff) { return .unavailable(.notEligible) }
        if let expiration = ad.expiresAt, expiration <= now { return .unavailable(.expired) }
        if ad.activityTypeHash == ActivityTypeHash(activityType: UserActivity.browsingWebType) {
            let hasDomainApps = apps.contains { !$0.activityContinuationDomains.isEmpty }
            if browser == nil && !hasDomainApps { return .unavailable(.noAppClaimsType) }
            return .web(browserBundleIdentifier: browser?.bundleIdentifier)
        }
        var claimants: [String] = []
        for app in apps {
            guard let type = app.continuableActivityTypes.first(where: { ActivityTypeHash(activityType: $0) == ad.activityTypeHash })
            else { continue }
            if TeamHash(teamIdentifier: app.teamIdentifier) == ad.teamHash {
                return .app(bundleIdentifier: app.bundleIdentifier, activityType: type)
            }
            claimants.append(app.bundleIdentifier)
        }
        let why: Unavailability = claimants.isEmpty ? .noAppClaimsType : .teamDiffers(bundleIdentifiers: claimants)
        if ad.options.contains(.hasWebpageURL), let browser {
            return .browser(bundleIdentifier: browser.bundleIdentifier, because: why)
        }
        return .unavailable(why)
    }

    mutating func choose(_ peerID: DeviceID, at now: Date, effects: inout [Effect]) {
        guard pendingContinuation == nil else {
            effects.append(.record(makeEvent(.continueChosen, at: now, peer: peerID.rawValue,
                                         detail: "ignored: another continuation is in progress")))
            return
        }
        guard let offer = offers[peerID] else {
            effects.append(.record(makeEvent(.continueChosen, at: now, peer: peerID.rawValue, detail: "ignored: no offer from this device")))
            return
        }
        let route = self.route(for: offer.advertisement, at: now)
        effects.append(.record(makeEvent(.continueChosen, at: now, peer: offer.peer.name, detail: "\(offer.peer.name): \(route)")))
        let id = ContinuationID(rawValue: nextContinuation)
        nextContinuation += 1
        var pending = PendingContinuation(id: id, peer: offer.peer, advertisement: offer.advertisement, bundleIdentifier: nil,
                                          activityType: UserActivity.browsingWebType, phase: .awaitingWillContinue,
                                          chosenAt: now, isBrowserFallback: false)
        switch route {
        case .unavailable(let why):
            effects.append(.record(makeEvent(.continuationFailed, at: now, peer: offer.peer.name,
                                         errorCode: HandoffError.Code.handoffFailed.rawValue, detail: "cannot continue: \(why)")))
            return
        case .app(let bundle, let type):
            pending.bundleIdentifier = bundle
            pending.activityType = type
        case .browser(let bundle, _):
            pending.bundleIdentifier = bundle
            pending.isBrowserFallback = true
        case .web:
            // The page's host decides the app: fetch first, then route.
            pendingContinuation = pending
            startFetch(at: now, effects: &effects)
            return
        }
        pendingContinuation = pending
        effects.append(.callWillContinue(id, bundleIdentifier: pending.bundleIdentifier!, activityType: pending.activityType))
    }

    mutating func willContinueAnswered(_ id: ContinuationID, accepted: Bool, at now: Date, effects: inout [Effect]) {
        guard var pending = pendingContinuation, pending.id == id, pending.phase == .awaitingWillContinue else { return }
        effects.append(.record(makeEvent(.willContinue, at: now, type: pending.activityType, bundle: pending.bundleIdentifier,
                                     peer: pending.peer.name, detail: accepted ? "the app shows it is loading" : "the app declined")))
        guard accepted else {
            pendingContinuation = nil
            effects.append(.record(makeEvent(.continueDeclined, at: now, type: pending.activityType, bundle: pending.bundleIdentifier,
                                         peer: pending.peer.name, detail: "nothing was fetched; both devices keep their state")))
            return
        }
        if let payload = pending.payload, let bundle = pending.bundleIdentifier {
            pendingContinuation = pending
            deliver(&pending, bundle, payload, at: now, effects: &effects)
        } else {
            pendingContinuation = pending
            startFetch(at: now, effects: &effects)
        }
    }

    mutating func startFetch(at now: Date, effects: inout [Effect]) {
        guard var pending = pendingContinuation else { return }
        pending.phase = .fetching(deadline: now.addingTimeInterval(configuration.fetchTimeout))
        pending.fetchStartedAt = now
        pendingContinuation = pending
        effects.append(.requestPayload(pending.id, from: pending.peer.id, activityTypeHash: pending.advertisement.activityTypeHash))
        effects.append(.record(makeEvent(.fetchStarted, at: now, type: pending.bundleIdentifier == nil ? nil : pending.activityType,
                                     bundle: pending.bundleIdentifier, peer: pending.peer.name,
                                     detail: "requesting the payload from \(pending.peer.name)")))
    }

    mutating func payloadReceived(_ id: ContinuationID, _ payload: ActivityPayload, size: Int, at now: Date,
                                  effects: inout [Effect]) {
        guard var pending = pendingContinuation, pending.id == id, case .fetching = pending.phase else {
            effects.append(.record(makeEvent(.payloadReceived, at: now, size: size, detail: "late payload ignored")))
            return
        }
        let elapsed = pending.fetchStartedAt.map { now.timeIntervalSince($0) * 1000 }
        offers[pending.peer.id]?.payloadSize = size
        effects.append(.record(makeEvent(.payloadReceived, at: now, type: payload.activityType, bundle: pending.bundleIdentifier,
                                     peer: pending.peer.name, size: size, milliseconds: elapsed,
                                     detail: "\(size) bytes from \(pending.peer.name)")))
        if size > configuration.payloadWarningBytes {
            effects.append(.record(makeEvent(.payloadSizeWarning, at: now, type: payload.activityType, size: size,
                                         detail: "\(size) bytes exceeds the \(configuration.payloadWarningBytes)-byte guidance")))
        }
        guard size <= configuration.payloadLimitBytes else {
            fail(pending, HandoffError(.userInfoTooLarge, "the payload is \(size) bytes, over this device's \(configuration.payloadLimitBytes)-byte limit"),
                 at: now, effects: &effects)
            return
        }
        guard ActivityTypeHash(activityType: payload.activityType) == pending.advertisement.activityTypeHash,
              TeamHash(teamIdentifier: payload.teamIdentifier) == pending.advertisement.teamHash
        else {
            fail(pending, HandoffError(.handoffFailed, "the payload does not match the offered activity"), at: now, effects: &effects)
            return
        }
        if let expiration = payload.expirationDate, expiration <= now {
            fail(pending, HandoffError(.handoffFailed, "the activity expired before it arrived"), at: now, effects: &effects)
            return
        }
        if pending.bundleIdentifier == nil {
            // A browsing-web activity: an app whose associated domain the site approves, else the browser.
            guard let url = payload.webpageURL, let host = url.host?.lowercased() else {
                fail(pending, HandoffError(.handoffFailed, "the web activity has no webpageURL"), at: now, effects: &effects)
                return
            }
            let approved = siteApprovals[host] ?? []
            if let app = apps.first(where: { $0.activityContinuationDomains.contains(host) && approved.contains($0.applicationIdentifier) }) {
                pending.bundleIdentifier = app.bundleIdentifier
                pending.activityType = UserActivity.browsingWebType
                effects.append(.record(makeEvent(.webRouted, at: now, type: payload.activityType, bundle: app.bundleIdentifier,
                                             detail: "\(host) approves \(app.applicationIdentifier): web → native")))
            } else if let browser {
                pending.bundleIdentifier = browser.bundleIdentifier
                let claimant = apps.first { $0.activityContinuationDomains.contains(host) }
                let why = claimant.map { "\($0.bundleIdentifier) names \(host), but the site does not approve \($0.applicationIdentifier)" }
                    ?? "no app names \(host) in its associated domains"
                effects.append(.record(makeEvent(.webRouted, at: now, type: payload.activityType, bundle: browser.bundleIdentifier,
                                             detail: "opened in the browser: \(why)")))
            } else {
                fail(pending, HandoffError(.handoffFailed, "no app the site approves and no browser for \(host)"), at: now, effects: &effects)
                return
            }
            pending.payload = payload
            pending.phase = .awaitingWillContinue
            pendingContinuation = pending
            effects.append(.callWillContinue(pending.id, bundleIdentifier: pending.bundleIdentifier!, activityType: pending.activityType))
            return
        }
        var delivered = payload
        if pending.isBrowserFallback {
            // Native → web: the browser receives a browsing-web activity with the page only.
            delivered = ActivityPayload(activityIdentifier: payload.activityIdentifier, activityType: UserActivity.browsingWebType,
                                        title: payload.title, webpageURL: payload.webpageURL,
                                        teamIdentifier: payload.teamIdentifier, bundleIdentifier: payload.bundleIdentifier)
            guard delivered.webpageURL != nil else {
                fail(pending, HandoffError(.handoffFailed, "the activity has no webpageURL for the browser"), at: now, effects: &effects)
                return
            }
        }
        deliver(&pending, pending.bundleIdentifier!, delivered, at: now, effects: &effects)
    }

    mutating func deliver(_ pending: inout PendingContinuation, _ bundle: String, _ payload: ActivityPayload, at now: Date,
                          effects: inout [Effect]) {
        pending.payload = payload
        pendingContinuation = pending
        effects.append(.deliver(pending.id, bundleIdentifier: bundle, payload, origin: pending.peer.id))
    }

    mutating func fail(_ pending: PendingContinuation, _ error: HandoffError, at now: Date, effects: inout [Effect]) {
        pendingContinuation = nil
        if case .fetching = pending.phase {
            effects.append(.cancelPayloadRequest(pending.id, from: pending.peer.id))
        }
        effects.append(.record(makeEvent(.continuationFailed, at: now, type: pending.activityType, bundle: pending.bundleIdentifier,
                                     peer: pending.peer.name, errorCode: error.code.rawValue, detail: error.description)))
        if let bundle = pending.bundleIdentifier {
            effects.append(.callDidFail(bundleIdentifier: bundle, activityType: pending.activityType, error))
        }
    }

    mutating func tick(at now: Date, effects: inout [Effect]) {
        if let deadline = saveDeadline, deadline <= now {
            saveCurrent(.coalesced, at: now, effects: &effects)
        }
        if let id = currentActivity, let snapshot = activities[id], let expiration = snapshot.expirationDate, expiration <= now {
            expireCurrent(snapshot, at: now, effects: &effects)
            chooseCurrent(at: now, effects: &effects)
        }
        if let pending = pendingContinuation, case .fetching(let deadline) = pending.phase, deadline <= now {
            fail(pending, HandoffError(.remoteApplicationTimedOut,
                "no payload from \(pending.peer.name) within \(Self.format(configuration.fetchTimeout)) s"), at: now, effects: &effects)
        }
        for (id, offer) in offers.sorted(by: { $0.key < $1.key }) {
            if offer.lastSeen.addingTimeInterval(configuration.offerLifetime) <= now {
                offers[id] = nil
                effects.append(.record(makeEvent(.offerExpired, at: now, peer: offer.peer.name, detail: "\(offer.peer.name) fell silent")))
            } else {
                let route = self.route(for: offer.advertisement, at: now)
                if route != offer.route {
                    offers[id]?.route = route
                    effects.append(.record(makeEvent(.offerUpdated, at: now, peer: offer.peer.name, detail: "\(offer.peer.name): \(route)")))
                }
            }
        }
    }

    func name(of peer: DeviceID) -> String {
        offers[peer]?.peer.name ?? peerNames[peer] ?? peer.rawValue
    }

    static func format(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.2f", seconds)
    }

    /// The next time at which a ``Event/tick`` would change something, so a run loop can sleep until then.
    public var nextDeadline: Date? {
        var dates: [Date] = []
        if let saveDeadline { dates.append(saveDeadline) }
        if let pending = pendingContinuation, case .fetching(let deadline) = pending.phase { dates.append(deadline) }
        if let id = currentActivity, let expiration = activities[id]?.expirationDate { dates.append(expiration) }
        for offer in offers.values {
            dates.append(offer.lastSeen.addingTimeInterval(configuration.offerLifetime))
            if let expiration = offer.advertisement.expiresAt, offer.route.isContinuable { dates.append(expiration) }
        }
        return dates.min()
    }
}

// MARK: - Recording

extension DeviceSystem {
    func makeEvent(_ kind: LifecycleEvent.Kind, at now: Date, type: String? = nil, bundle: String? = nil, peer: String? = nil,
               size: Int? = nil, milliseconds: Double? = nil, errorCode: Int? = nil, detail: String = "") -> LifecycleEvent {
        LifecycleEvent(time: now, device: device.name, kind: kind, activityType: type, bundleIdentifier: bundle, peer: peer,
                       size: size, milliseconds: milliseconds, errorCode: errorCode, detail: detail)
    }

    func record(_ kind: LifecycleEvent.Kind, at now: Date, _ snapshot: ActivitySnapshot, peer: String? = nil,
                detail: String = "", into effects: inout [Effect]) {
        effects.append(.record(makeEvent(kind, at: now, type: snapshot.activityType, bundle: snapshot.bundleIdentifier,
                                     peer: peer, detail: detail)))
    }
}
