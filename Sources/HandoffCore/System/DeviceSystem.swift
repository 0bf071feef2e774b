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
        /// The user quit the app (from the app switcher): it is not running; its next launch is cold.
        case appTerminated(bundleIdentifier: String)
        /// The user locked the device (the lock screen, the power button).
        case deviceLocked
        /// The user unlocked the device.
        case deviceUnlocked
        case activityChanged(ActivitySnapshot)
        case activityBecameCurrent(UUID)
        case activityResignedCurrent(UUID)
        case activityInvalidated(UUID)
        case activityNeedsSave(UUID)
        /// The app changed the activity's state without setting needsSave (the commonest Handoff
        /// bug). Only the lab knows it: the forget-needs-save fault, or a headless `update` with
        /// `"needsSave": false`. A skipped save then says so; otherwise it says nothing changed.
        case activityChangedWithoutNeedsSave(UUID)
        /// The save callbacks of ``Effect/save(_:_:continuation:)`` ran; this is the userInfo now.
        case activitySaved(UUID, SaveReason, userInfo: UserInfoSnapshot, continuation: ContinuationID?)
        /// The runtime fetched the association file for one of an app's `activitycontinuation:` domains.
        case siteAssociationChecked(SiteAssociationCheck)
        /// An answer the device cached has expired: fetch the expired ones again (as swcd refreshes).
        case siteAssociationsExpired
        // Peers
        case advertisementReceived(Advertisement, from: PeerInfo)
        case goodbyeReceived(DeviceID)
        // The receiving side of a continuation
        /// The user chose `peer`'s offer; the runtime mints the continuation's identifier.
        case offerChosen(DeviceID, continuation: ContinuationID)
        /// `willContinueUserActivityWithType` returned (an app delegate's answer, or a scene's).
        case willContinueAnswered(ContinuationID, WillContinueAnswer)
        case payloadReceived(ContinuationID, ActivityPayload, size: Int)
        case payloadFailed(ContinuationID, HandoffError)
        case continuationHandled(ContinuationID, ContinueOutcome)
        case continuationCancelled
        // The origin side of a continuation
        case payloadRequested(
            PayloadRequestID, from: PeerInfo, activityTypeHash: ActivityTypeHash, continuation: ContinuationID)
        case payloadEncoded(PayloadRequestID, Data, userInfo: UserInfoSnapshot)
        case payloadUnavailable(PayloadRequestID, reason: String)
        case continuationConfirmed(activityIdentifier: UUID, by: PeerInfo, continuation: ContinuationID)
        // Time passing
        case tick
        /// Step mode held the device this long: its deadlines move by as much.
        case timeoutsSuspended(for: TimeInterval)
    }

    /// What to do, in order.
    public enum Effect: Sendable, Hashable {
        /// Advertise this activity (the runtime sends, and records, only the last of a burst).
        case advertise(Advertisement, ActivityReference)
        case withdraw(WithdrawalReason)
        /// Run the save callbacks of an activity: `userActivityWillSave`, responders'
        /// `updateUserActivityState` (with userInfo emptied first), then the app's `didUpdate`;
        /// then answer ``Event/activitySaved(_:_:userInfo:continuation:)``.
        case save(UUID, SaveReason, continuation: ContinuationID?)
        /// Launch the app (cold) or bring it forward (warm) for a continuation of `activityType`; a
        /// cold scene app connects a scene whose options carry the type.
        case launch(bundleIdentifier: String, LaunchKind, continuation: ContinuationID, activityType: String)
        case callWillContinue(ContinuationID, bundleIdentifier: String, activityType: String)
        case requestPayload(ContinuationID, from: DeviceID, activityTypeHash: ActivityTypeHash)
        case cancelPayloadRequest(ContinuationID, from: DeviceID)
        /// Give the payload to the app: create the activity and call `continue(_:restorationHandler:)`.
        case deliver(ContinuationID, bundleIdentifier: String, ActivityPayload, origin: PeerReference)
        /// The app's `didFailToContinueUserActivityWithType` (or the system's alert when it has none).
        case callDidFail(bundleIdentifier: String, activityType: String, HandoffError)
        case encodePayload(PayloadRequestID, activity: UUID, continuation: ContinuationID)
        case sendPayload(PayloadRequestID, to: DeviceID, Data)
        case sendPayloadError(PayloadRequestID, to: DeviceID, HandoffError)
        case notifyContinued(to: DeviceID, activityIdentifier: UUID, continuation: ContinuationID)
        case callWasContinued(UUID)
        /// Fetch the association files that verify these `activitycontinuation:` domains of an
        /// app, then answer ``Event/siteAssociationChecked(_:)`` for each.
        case checkSiteAssociations(bundleIdentifier: String, applicationIdentifier: String, domains: [AssociatedDomain])
        case record(LifecycleEvent)
    }

    struct ServeRequest: Sendable, Hashable {
        enum Phase: Sendable, Hashable {
            /// The origin app's save callbacks are running.
            case saving
            /// The saved activity is being encoded.
            case encoding
        }

        var peer: PeerInfo
        var activity: UUID
        var continuation: ContinuationID
        var phase: Phase
    }

    public let device: PeerInfo
    public var configuration: DeviceConfiguration
    public private(set) var apps: [AppManifest] = [] {
        didSet {
            routeInputsChanged = true
            typeClaims = Self.claims(of: apps)
        }
    }
    /// Per activity-type hash, the apps that continue a type with that hash, in `apps` order:
    /// the app's index, the first of its types with the hash, and its team's hash. Every offer
    /// is routed with it (``route(for:at:)``), so a beacon costs a look-up, not a hash of every
    /// type of every app.
    private var typeClaims: [ActivityTypeHash: [(app: Int, activityType: String, team: TeamHash)]] = [:]
    /// What is in front: nothing yet (until then any app's activity may be current), the home
    /// screen, or an app.
    public private(set) var front: Front = .notYetKnown
    public private(set) var activities: [UUID: ActivitySnapshot] = [:]
    /// Per app, the activity it wants current (explicit `becomeCurrent()` or its responder chain).
    public private(set) var candidates: [String: UUID] = [:]
    public private(set) var currentActivity: UUID?
    public private(set) var advertisement: Advertisement?
    public private(set) var offers: [DeviceID: Offer] = [:]
    public private(set) var pendingContinuation: PendingContinuation?
    /// Per app and `activitycontinuation:` domain, what the site's association file said.
    public internal(set) var siteAssociations: [SiteAssociationKey: SiteAssociationRecord] = [:] {
        didSet { routeInputsChanged = true }
    }
    /// Whether what routes an offer (the apps, the site associations) changed since ``tick(at:effects:)``
    /// last routed every offer again.
    private var routeInputsChanged = true
    /// The earliest date at which the clock could expire an offer or change its route (an
    /// offer's lifetime, an advertisement's or association answer's expiration), never later
    /// than the truth: a tick before it, with the inputs unchanged, has nothing to look at, and
    /// knows it without going through the offers (it runs after every beacon heard).
    private var offersNextDue: Date?
    var siteAssociationChecksInFlight: Set<SiteAssociationKey> = []
    /// The continuation whose web page is routed as if its association files were missing (the
    /// lab's no-site-association fault).
    var siteAssociationsWithheld: ContinuationID?
    /// The apps running (in front or in the background). Continuing into an app that is not
    /// running launches it cold.
    public private(set) var runningApps: Set<String> = []
    /// Whether the device is locked, and whether its advertising stopped for it.
    public private(set) var lock: LockState = .unlocked
    var saveDeadline: Date?
    var needsSave: Set<UUID> = []
    var lastSaved: [UUID: Date] = [:]
    /// When each activity's save callbacks last ran (nil: never).
    var savedAt: [UUID: Date] = [:]
    /// When each activity's state first changed without needsSave since its last save (the lab's
    /// rehearsal of the bug); cleared by the next save.
    var changedWithoutNeedsSave: [UUID: Date] = [:]
    var serving: [PayloadRequestID: ServeRequest] = [:]
    /// Names of peers that asked for payloads (they may not advertise anything themselves).
    var peerNames: [DeviceID: String] = [:]
    var activitySerial: UInt32 = 0
    /// The offer-resigned mutant's memory: the activity that resigned but stays offered.
    var resignedButOffered: UUID?
    /// The hashes of the last advertisement made, with the strings they were made from
    /// (``advertisedHashes(of:)``).
    private var lastAdvertisedHashes:
        (
            activityType: String, webpageHost: String?, teamIdentifier: String,
            hashes: (activityType: ActivityTypeHash, team: TeamHash)
        )?

    public init(device: PeerInfo, configuration: DeviceConfiguration = DeviceConfiguration()) {
        self.device = device
        self.configuration = configuration
    }

    /// The app in front (nil: the home screen, or nothing was ever brought to the front).
    public var frontmostApp: String? {
        if case .app(let bundle) = front { bundle } else { nil }
    }

    /// The browser installed on this device, if any (an app claiming the browsing-web type).
    public var browser: AppManifest? { apps.first(where: \.isBrowser) }

    /// Handles one event that happened at `now`; returns the effects to carry out, in order.
    public mutating func handle(_ event: Event, at now: Date) -> [Effect] {
        var effects: [Effect] = []
        // Most events make a few effects (their records among them): one allocation, not a
        // growth from one to two to four. A tick, after every piece of work, usually makes none.
        switch event {
        case .tick: break
        default: effects.reserveCapacity(4)
        }
        switch event {
        case .appInstalled(let manifest):
            apps.removeAll { $0.bundleIdentifier == manifest.bundleIdentifier }
            apps.append(manifest)
            rerouteOffers(at: now)
            checkSiteAssociations(of: manifest.bundleIdentifier, at: now, effects: &effects)
        case .appBecameFrontmost(let bundle):
            front = bundle.map { .app($0) } ?? .home
            if let bundle, !runningApps.contains(bundle) {
                checkSiteAssociations(of: bundle, at: now, effects: &effects)
            }
            if let bundle { runningApps.insert(bundle) }
            chooseCurrent(at: now, effects: &effects)
        case .appTerminated(let bundle):
            guard runningApps.remove(bundle) != nil else { break }
            candidates[bundle] = nil
            record(.applicationTerminated(bundleIdentifier: bundle), at: now, into: &effects)
            if front == .app(bundle) { front = .home }
            chooseCurrent(at: now, effects: &effects)
        case .deviceLocked:
            guard lock == .unlocked else { break }
            lock = .locked(since: now)
            record(.deviceLocked(advertisingStopsAfter: configuration.advertisingAfterLock), at: now, into: &effects)
            stopAdvertisingIfLockedLongEnough(at: now, effects: &effects)
        case .deviceUnlocked:
            guard lock != .unlocked else { break }
            let wasSilent = lock.hasStoppedAdvertising
            lock = .unlocked
            record(.deviceUnlocked, at: now, into: &effects)
            if wasSilent, currentActivity != nil {
                // A new advertisement: the peers dropped the old one with its goodbye.
                activitySerial &+= 1
                advertiseCurrent(at: now, effects: &effects)
            }
        case .activityChanged(let snapshot):
            let old = activities[snapshot.id]
            activities[snapshot.id] = snapshot
            runningApps.insert(snapshot.bundleIdentifier)
            if old == nil { record(.activityCreated(snapshot.reference), at: now, into: &effects) }
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
            if configuration.mutants.contains(.continueInvalidated), let snapshot = activities[id] {
                // Bent on purpose: recorded, but still offered and served.
                record(.invalidated(snapshot.reference), at: now, into: &effects)
                break
            }
            guard let snapshot = activities.removeValue(forKey: id) else { break }
            needsSave.remove(id)
            lastSaved[id] = nil
            savedAt[id] = nil
            changedWithoutNeedsSave[id] = nil
            record(.invalidated(snapshot.reference), at: now, into: &effects)
            if candidates[snapshot.bundleIdentifier] == id { candidates[snapshot.bundleIdentifier] = nil }
            chooseCurrent(at: now, effects: &effects)
        case .activityNeedsSave(let id):
            guard let snapshot = activities[id] else { break }
            needsSave.insert(id)
            record(.needsSaveSet(snapshot.reference), at: now, into: &effects)
            if id == currentActivity { scheduleSave(at: now, effects: &effects) }
        case .activityChangedWithoutNeedsSave(let id):
            guard activities[id] != nil, changedWithoutNeedsSave[id] == nil else { break }
            changedWithoutNeedsSave[id] = now
        case .activitySaved(let id, let reason, let userInfo, let continuation):
            activitySaved(id, reason, userInfo: userInfo, continuation: continuation, at: now, effects: &effects)
        case .siteAssociationChecked(let check):
            siteAssociationChecked(check, at: now, effects: &effects)
        case .siteAssociationsExpired:
            for app in apps { checkSiteAssociations(of: app.bundleIdentifier, at: now, effects: &effects) }
        case .advertisementReceived(let ad, let peer):
            receive(ad, from: peer, at: now, effects: &effects)
        case .goodbyeReceived(let peer):
            if let offer = offers.removeValue(forKey: peer) {
                record(.offerWithdrawn(PeerReference(offer.peer)), at: now, into: &effects)
            }
        case .offerChosen(let peer, let continuation):
            choose(peer, continuation: continuation, at: now, effects: &effects)
        case .willContinueAnswered(let id, let answer):
            willContinueAnswered(id, answer, at: now, effects: &effects)
        case .payloadReceived(let id, let payload, let size):
            payloadReceived(id, payload, size: size, at: now, effects: &effects)
        case .payloadFailed(let id, let error):
            guard let pending = pendingContinuation, pending.id == id else { break }
            if configuration.mutants.contains(.tooLargeAsGenericFailure), error.code == .userInfoTooLarge {
                // Bent on purpose: the origin's 4611 reaches the app as a generic failure.
                fail(pending, HandoffError(.handoffFailed, error.reason), at: now, effects: &effects)
                break
            }
            fail(pending, error, at: now, effects: &effects)
        case .continuationHandled(let id, let outcome):
            guard case .delivering(let attempt, let target, let payload)? = pendingContinuation, attempt.id == id else {
                break
            }
            pendingContinuation = nil
            let elapsed = now.timeIntervalSince(attempt.chosenAt) * 1000
            let peer = PeerReference(attempt.peer)
            switch outcome {
            case .handled(let by):
                // Recorded before the origin is told (send-before-receive).
                record(
                    .continued(id, peer, bundleIdentifier: target.bundleIdentifier, by, milliseconds: elapsed),
                    at: now, into: &effects)
                effects.append(
                    .notifyContinued(
                        to: attempt.peer.id, activityIdentifier: payload.activityIdentifier, continuation: id))
            case .notHandled(let reason):
                if configuration.mutants.contains(.wasContinuedOnFailure) {
                    effects.append(
                        .notifyContinued(
                            to: attempt.peer.id, activityIdentifier: payload.activityIdentifier, continuation: id))
                }
                record(
                    .notHandled(
                        id, peer, bundleIdentifier: target.bundleIdentifier, milliseconds: elapsed, reason: reason),
                    at: now, into: &effects)
            }
        case .continuationCancelled:
            guard let pending = pendingContinuation else { break }
            fail(
                pending, HandoffError(.userCancelled, "the user cancelled the continuation"), at: now, effects: &effects
            )
        case .payloadRequested(let request, let peer, let hash, let continuation):
            serve(request, to: peer, hash: hash, continuation: continuation, at: now, effects: &effects)
        case .payloadEncoded(let request, let data, let userInfo):
            payloadEncoded(request, data, userInfo: userInfo, at: now, effects: &effects)
        case .payloadUnavailable(let request, let reason):
            guard let serve = serving.removeValue(forKey: request) else { break }
            refuse(
                request, serve.peer, serve.continuation, HandoffError(.handoffFailed, reason), at: now,
                effects: &effects)
        case .continuationConfirmed(let activityIdentifier, let peer, let continuation):
            guard let snapshot = activities[activityIdentifier] else { break }
            effects.append(.callWasContinued(activityIdentifier))
            record(.wasContinued(continuation, PeerReference(peer), snapshot.reference), at: now, into: &effects)
        case .tick:
            tick(at: now, effects: &effects)
        case .timeoutsSuspended(let duration):
            saveDeadline = saveDeadline?.addingTimeInterval(duration)
            if case .locked(let since) = lock { lock = .locked(since: since.addingTimeInterval(duration)) }
            if case .fetching(let attempt, let target, let since, let deadline)? = pendingContinuation {
                pendingContinuation = .fetching(
                    attempt, target, since: since.addingTimeInterval(duration),
                    deadline: deadline.addingTimeInterval(duration))
            }
        }
        return effects
    }
}

// MARK: - The origin: current activity, saving, advertising, serving

extension DeviceSystem {
    /// Whether ``Event/activityChanged(_:)`` with `snapshot` would change nothing now: the system
    /// holds this very snapshot and its app is running (the event then has no effect and leaves
    /// the state as it is; the device spares itself the event).
    func holds(_ snapshot: ActivitySnapshot) -> Bool {
        activities[snapshot.id] == snapshot && runningApps.contains(snapshot.bundleIdentifier)
    }

    /// Makes the frontmost app's candidate current (any app's while nothing was brought to the front).
    mutating func chooseCurrent(at now: Date, effects: inout [Effect]) {
        let chosen: UUID? =
            switch front {
            case .notYetKnown:
                candidates.values.max { (lastSaved[$0] ?? .distantPast) < (lastSaved[$1] ?? .distantPast) }
                    ?? candidates.values.first
            case .home: nil
            case .app(let bundle): candidates[bundle]
            }
        guard chosen != currentActivity else { return }
        if chosen == nil, configuration.mutants.contains(.offerResigned), let old = currentActivity,
            let snapshot = activities[old]
        {
            // Bent on purpose: the activity says it resigned, but stays offered and served.
            if resignedButOffered != old {
                resignedButOffered = old
                record(.resignedCurrent(snapshot.reference), at: now, into: &effects)
            }
            return
        }
        resignedButOffered = nil
        if let old = currentActivity, let snapshot = activities[old] {
            record(.resignedCurrent(snapshot.reference), at: now, into: &effects)
        }
        currentActivity = chosen
        saveDeadline = nil
        if let chosen, let snapshot = activities[chosen] {
            activitySerial &+= 1
            // Its last save, now if it never had one (kept): one look-up, as `default:` inserts.
            let savedAt = Self.value(of: &lastSaved[chosen, default: now])
            // The record and the advertisement: the array grows once, not twice.
            effects.reserveCapacity(effects.count + 2)
            record(.becameCurrent(snapshot.reference), at: now, into: &effects)
            if needsSave.contains(chosen) { scheduleSave(at: now, effects: &effects) }
            // What advertiseCurrent would look up again (a save scheduled changes neither).
            advertise(snapshot, savedAt: savedAt, at: now, effects: &effects)
        } else if advertisement != nil {
            advertisement = nil
            effects.append(.withdraw(.noCurrentActivity))
        }
    }

    mutating func advertiseCurrent(at now: Date, effects: inout [Effect]) {
        guard let id = currentActivity, let snapshot = activities[id] else { return }
        advertise(snapshot, savedAt: lastSaved[id] ?? now, at: now, effects: &effects)
    }

    /// Advertises `snapshot`, the current activity, last saved at `savedAt`.
    private mutating func advertise(
        _ snapshot: ActivitySnapshot, savedAt: Date, at now: Date, effects: inout [Effect]
    ) {
        // Locked long enough: the activity stays current but is not offered until unlocked.
        guard !lock.hasStoppedAdvertising else { return }
        if let expiration = snapshot.expirationDate, expiration <= now {
            expireCurrent(snapshot, at: now, effects: &effects)
            return
        }
        var options: Advertisement.Options = []
        if snapshot.hasWebpageURL { options.insert(.hasWebpageURL) }
        if snapshot.supportsContinuationStreams { options.insert(.supportsContinuationStreams) }
        if snapshot.isEligibleForHandoff { options.insert(.isEligibleForHandoff) }
        if snapshot.isDocument { options.insert(.isDocument) }
        if snapshot.isAdvertisedAsWebPage { options.insert(.isBrowsingWeb) }
        let hashes = advertisedHashes(of: snapshot)
        let ad = Advertisement(
            device: device.id, activityTypeHash: hashes.activityType, teamHash: hashes.team, options: options,
            activitySerial: activitySerial, savedAt: savedAt, expiresAt: snapshot.expirationDate)
        guard ad != advertisement else { return }
        advertisement = ad
        effects.append(.advertise(ad, snapshot.reference))
    }

    /// The type's (or page host's) and the team's hashes `snapshot` is advertised with: those of
    /// the last advertisement when it has the same type, host and team (compared as strings, which
    /// are mostly the very same strings again), else looked up in the process's caches (a hash of
    /// each string, under a lock) and kept.
    private mutating func advertisedHashes(
        of snapshot: ActivitySnapshot
    ) -> (activityType: ActivityTypeHash, team: TeamHash) {
        if let kept = lastAdvertisedHashes, kept.activityType == snapshot.activityType,
            kept.webpageHost == snapshot.webpageHost, kept.teamIdentifier == snapshot.teamIdentifier
        {
            return kept.hashes
        }
        let hashes = (snapshot.advertisedHash, TeamHash(teamIdentifier: snapshot.teamIdentifier))
        lastAdvertisedHashes = (snapshot.activityType, snapshot.webpageHost, snapshot.teamIdentifier, hashes)
        return hashes
    }

    /// `value` itself (reading a dictionary's `[key, default:]` through `inout` inserts the default
    /// and reads the value with one look-up of the key).
    private static func value<T>(of value: inout T) -> T { value }

    /// Apple's devices remove their advertisement a while after the device is locked (the notes'
    /// `UAUserActivityDefaults`: 8 s after lock); the current activity stays current.
    mutating func stopAdvertisingIfLockedLongEnough(at now: Date, effects: inout [Effect]) {
        guard case .locked(let since) = lock, since.addingTimeInterval(configuration.advertisingAfterLock) <= now
        else { return }
        if configuration.mutants.contains(.advertiseWhileLocked) {
            // Bent: the delay starts again, so advertising never stops (and no deadline stays
            // in the past, which would wake the device again and again).
            lock = .locked(since: now)
            return
        }
        lock = .lockedNotAdvertising
        if advertisement != nil {
            advertisement = nil
            effects.append(.withdraw(.deviceLocked))
        }
    }

    mutating func expireCurrent(_ snapshot: ActivitySnapshot, at now: Date, effects: inout [Effect]) {
        record(.expired(snapshot.reference), at: now, into: &effects)
        candidates[snapshot.bundleIdentifier] = nil
        currentActivity = nil
        if advertisement != nil {
            advertisement = nil
            effects.append(.withdraw(.expired))
        }
    }

    mutating func scheduleSave(at now: Date, effects: inout [Effect]) {
        if configuration.saveCoalescingInterval <= 0 {
            saveCurrent(.coalesced, at: now, effects: &effects)
        } else if saveDeadline == nil {
            saveDeadline = now.addingTimeInterval(configuration.saveCoalescingInterval)
        }
    }

    /// Saves the current activity because needsSave was set (never when it was not).
    mutating func saveCurrent(_ reason: SaveReason, at now: Date, effects: inout [Effect]) {
        guard let id = currentActivity, activities[id] != nil else { return }
        saveDeadline = nil
        needsSave.remove(id)
        effects.append(.save(id, reason, continuation: nil))
    }

    mutating func activitySaved(
        _ id: UUID, _ reason: SaveReason, userInfo: UserInfoSnapshot, continuation: ContinuationID?,
        at now: Date, effects: inout [Effect]
    ) {
        guard let snapshot = activities[id] else { return }
        lastSaved[id] = now
        savedAt[id] = now
        changedWithoutNeedsSave[id] = nil
        record(
            .saved(snapshot.reference, reason: reason, userInfo: userInfo, continuation: continuation), at: now,
            into: &effects)
        // The payload leaves right after the save it waited for.
        for (request, serve) in serving.sorted(by: { $0.key.rawValue < $1.key.rawValue })
        where serve.activity == id && serve.phase == .saving {
            serving[request]?.phase = .encoding
            effects.append(.encodePayload(request, activity: id, continuation: serve.continuation))
        }
        if id == currentActivity { advertiseCurrent(at: now, effects: &effects) }
    }

    mutating func serve(
        _ request: PayloadRequestID, to peer: PeerInfo, hash: ActivityTypeHash, continuation: ContinuationID,
        at now: Date, effects: inout [Effect]
    ) {
        peerNames[peer.id] = peer.name
        let reference = PeerReference(peer)
        guard let id = currentActivity, let snapshot = activities[id], snapshot.advertisedHash == hash else {
            record(.payloadRequested(continuation, reference, nil), at: now, into: &effects)
            refuse(
                request, peer, continuation,
                HandoffError(.handoffFailed, "the activity is no longer offered by the origin"),
                at: now, effects: &effects)
            return
        }
        record(.payloadRequested(continuation, reference, snapshot.reference), at: now, into: &effects)
        guard snapshot.isEligibleForHandoff else {
            refuse(
                request, peer, continuation, HandoffError(.handoffFailed, "the activity is not eligible for Handoff"),
                at: now, effects: &effects)
            return
        }
        if let expiration = snapshot.expirationDate, expiration <= now {
            refuse(
                request, peer, continuation, HandoffError(.handoffFailed, "the activity has expired"), at: now,
                effects: &effects)
            return
        }
        // Save before the payload leaves if and only if needsSave is set (Apple: the delegate gets
        // userActivityWillSave "if true"); otherwise the payload carries the state saved last.
        let saves = needsSave.remove(id) != nil || configuration.mutants.contains(.saveWithoutNeedsSave)
        if saves {
            serving[request] = ServeRequest(peer: peer, activity: id, continuation: continuation, phase: .saving)
            saveDeadline = nil
            effects.append(.save(id, .beforeSending, continuation: continuation))
        } else {
            serving[request] = ServeRequest(peer: peer, activity: id, continuation: continuation, phase: .encoding)
            record(
                .saveSkipped(
                    snapshot.reference, lastSaved: savedAt[id], changedAt: changedWithoutNeedsSave[id],
                    continuation: continuation),
                at: now, into: &effects)
            effects.append(.encodePayload(request, activity: id, continuation: continuation))
        }
    }

    mutating func payloadEncoded(
        _ request: PayloadRequestID, _ data: Data, userInfo: UserInfoSnapshot, at now: Date,
        effects: inout [Effect]
    ) {
        guard let serve = serving[request], serve.phase == .encoding else { return }
        serving[request] = nil
        guard let snapshot = activities[serve.activity] else {
            refuse(
                request, serve.peer, serve.continuation, HandoffError(.handoffFailed, "the activity was invalidated"),
                at: now, effects: &effects)
            return
        }
        if data.count > configuration.payloadWarningBytes, !configuration.mutants.contains(.skipSizeWarning) {
            record(
                .payloadSizeWarning(serve.continuation, bytes: data.count, guidance: configuration.payloadWarningBytes),
                at: now, into: &effects)
        }
        guard data.count <= configuration.payloadLimitBytes else {
            refuse(
                request, serve.peer, serve.continuation,
                HandoffError(
                    .userInfoTooLarge,
                    "the payload is \(data.count) bytes, over the \(configuration.payloadLimitBytes)-byte limit"),
                at: now, effects: &effects)
            return
        }
        // Recorded as it leaves, so that on a shared timeline it comes before the peer's payloadReceived.
        record(
            .payloadSent(
                serve.continuation, PeerReference(serve.peer), snapshot.reference, bytes: data.count, userInfo: userInfo
            ),
            at: now, into: &effects)
        effects.append(.sendPayload(request, to: serve.peer.id, data))
    }

    mutating func refuse(
        _ request: PayloadRequestID, _ peer: PeerInfo, _ continuation: ContinuationID, _ error: HandoffError,
        at now: Date, effects: inout [Effect]
    ) {
        effects.append(.sendPayloadError(request, to: peer.id, error))
        record(.payloadRefused(continuation, PeerReference(peer), error), at: now, into: &effects)
    }
}

// MARK: - The receiver: offers, routing, continuing

extension DeviceSystem {
    mutating func receive(_ ad: Advertisement, from peer: PeerInfo, at now: Date, effects: inout [Effect]) {
        guard peer.id != device.id else { return }
        let route = self.route(for: ad, at: now)
        let reference = PeerReference(peer)
        offerMayBeDue(lastSeen: now, expiresAt: ad.expiresAt)
        if let index = offers.index(forKey: peer.id) {
            // Updated in place: one look-up of the peer, and its offer is not copied.
            let (changed, moved) = Self.update(&offers.values[index], with: ad, from: peer, route: route, at: now)
            if changed {
                record(.offerReceived(reference, ad.identity, route: route), at: now, into: &effects)
            } else if moved {
                record(.offerUpdated(reference, ad.identity, route: route), at: now, into: &effects)
            }
        } else {
            offers[peer.id] = Offer(peer: peer, advertisement: ad, firstSeen: now, lastSeen: now, route: route)
            record(.offerReceived(reference, ad.identity, route: route), at: now, into: &effects)
        }
    }

    /// `offer` as `ad`, just heard from `peer` and routed to `route`: whether it advertises
    /// another activity (`changed`), or the same one in another state or route (`moved`).
    private static func update(
        _ offer: inout Offer, with ad: Advertisement, from peer: PeerInfo, route: Route, at now: Date
    ) -> (changed: Bool, moved: Bool) {
        let changed =
            offer.advertisement.activitySerial != ad.activitySerial
            || offer.advertisement.activityTypeHash != ad.activityTypeHash
        offer.lastSeen = now
        offer.peer = peer
        if changed {
            offer.firstSeen = now
            offer.payloadSize = nil
        }
        let moved = offer.route != route || !offer.advertisement.isSameState(as: ad)
        offer.advertisement = ad
        offer.route = route
        return (changed, moved)
    }

    /// ``typeClaims`` for `apps`.
    private static func claims(
        of apps: [AppManifest]
    ) -> [ActivityTypeHash: [(app: Int, activityType: String, team: TeamHash)]] {
        var claims: [ActivityTypeHash: [(app: Int, activityType: String, team: TeamHash)]] = [:]
        for (index, app) in apps.enumerated() {
            let team = TeamHash(teamIdentifier: app.teamIdentifier)
            var hashes = Set<ActivityTypeHash>()
            for type in app.continuableActivityTypes {
                let hash = ActivityTypeHash(activityType: type)
                // An app is a claimant once per hash, with its first type of that hash.
                if hashes.insert(hash).inserted { claims[hash, default: []].append((index, type, team)) }
            }
        }
        return claims
    }

    mutating func rerouteOffers(at now: Date) {
        let routes = offers.mapValues { route(for: $0.advertisement, at: now) }
        for (id, route) in routes { offers[id]?.route = route }
    }

    /// Decides where an advertised activity would go on this device, or why it cannot.
    public func route(for ad: Advertisement, at now: Date) -> Route {
        if !ad.options.contains(.isEligibleForHandoff) { return .unavailable(.notEligible) }
        if let expiration = ad.expiresAt, expiration <= now { return .unavailable(.expired) }
        if ad.isWebPage {
            // The host's hash decides: an app the site approves, else the browser.
            guard webRoute(hostHash: ad.activityTypeHash, at: now).bundleIdentifier != nil else {
                return .unavailable(.noAppClaimsType)
            }
            return .web(browserBundleIdentifier: browser?.bundleIdentifier)
        }
        var claimants: [String] = []
        for claim in typeClaims[ad.activityTypeHash] ?? [] {
            // The app's bundle identifier only (not a copy of its whole manifest).
            let bundleIdentifier = apps[claim.app].bundleIdentifier
            if claim.team == ad.teamHash {
                return .app(bundleIdentifier: bundleIdentifier, activityType: claim.activityType)
            }
            claimants.append(bundleIdentifier)
        }
        let why: Unavailability = claimants.isEmpty ? .noAppClaimsType : .teamDiffers(bundleIdentifiers: claimants)
        if ad.options.contains(.hasWebpageURL), let browser {
            return .browser(bundleIdentifier: browser.bundleIdentifier, because: why)
        }
        return .unavailable(why)
    }

    mutating func choose(_ peerID: DeviceID, continuation: ContinuationID, at now: Date, effects: inout [Effect]) {
        let reference = PeerReference(id: peerID, name: name(of: peerID))
        guard pendingContinuation == nil else {
            record(.choiceIgnored(reference, .busy), at: now, into: &effects)
            return
        }
        guard let offer = offers[peerID] else {
            record(.choiceIgnored(reference, .noOffer), at: now, into: &effects)
            return
        }
        let route = self.route(for: offer.advertisement, at: now)
        if case .unavailable(let why) = route {
            // No app here can take it: there is nothing to continue, so nothing fails; say why.
            record(.choiceIgnored(PeerReference(offer.peer), .unavailable(why)), at: now, into: &effects)
            return
        }
        let target: ContinuationTarget
        var routed: (host: String, routing: WebRouting)?
        switch route {
        case .unavailable:
            return
        case .app(let bundle, let type):
            target = .app(bundleIdentifier: bundle, activityType: type)
        case .browser(let bundle, _):
            target = .browser(bundleIdentifier: bundle)
        case .web:
            // Web → native: the host the advertisement hashes decides the app before anything is
            // fetched (the guide: "iOS launches the native app"), so it is launched and asked
            // willContinue first, as for a native activity.
            let withheld = siteAssociationsWithheld == continuation
            siteAssociationsWithheld = nil
            let decision = webRoute(
                hostHash: offer.advertisement.activityTypeHash, at: now, withholdingAssociations: withheld)
            guard let bundle = decision.bundleIdentifier else {
                record(
                    .choiceIgnored(PeerReference(offer.peer), .unavailable(.noAppClaimsType)), at: now, into: &effects)
                return
            }
            target = .web(bundleIdentifier: bundle)
            routed = decision.host.map { ($0, decision.routing) }
        }
        let attempt = ContinuationAttempt(
            id: continuation, peer: offer.peer, advertisement: offer.advertisement, chosenAt: now)
        record(.continueChosen(attempt.id, PeerReference(offer.peer), route: route), at: now, into: &effects)
        if let routed {
            record(
                .webRouted(attempt.id, host: routed.host, bundleIdentifier: target.bundleIdentifier, routed.routing),
                at: now, into: &effects)
        }
        askApp(attempt, target, at: now, effects: &effects)
    }

    /// Launches the target app if it is not in front, then asks it `willContinueUserActivityWithType`.
    ///
    /// The launched app comes to the front, as on a device (the guide: "iOS launches the native
    /// app"; the user sees the app continue): its own activity, if it has one, becomes current,
    /// and the next continuation into it is not a launch.
    mutating func askApp(
        _ attempt: ContinuationAttempt, _ target: ContinuationTarget, at now: Date, effects: inout [Effect]
    ) {
        let bundle = target.bundleIdentifier
        let launch: LaunchKind? = !runningApps.contains(bundle) ? .cold : (frontmostApp == bundle ? nil : .warm)
        runningApps.insert(bundle)
        if let launch {
            effects.append(
                .launch(bundleIdentifier: bundle, launch, continuation: attempt.id, activityType: target.activityType))
            front = .app(bundle)
            chooseCurrent(at: now, effects: &effects)
        }
        if configuration.mutants.contains(.skipWillContinue) {
            // Bent on purpose: straight to the fetch, the app never asked.
            startFetch(attempt, target, at: now, effects: &effects)
            return
        }
        pendingContinuation = .askingApp(attempt, target)
        effects.append(.callWillContinue(attempt.id, bundleIdentifier: bundle, activityType: target.activityType))
    }

    mutating func willContinueAnswered(
        _ id: ContinuationID, _ answer: WillContinueAnswer, at now: Date, effects: inout [Effect]
    ) {
        guard case .askingApp(let attempt, let target)? = pendingContinuation, attempt.id == id else {
            return
        }
        switch answer {
        case .application(let appShowsProgress):
            // Apple: true means the app tells the user itself, false lets the system show that the
            // activity is being continued. It never cancels (see DECISIONS.md).
            record(
                .willContinue(
                    id, PeerReference(attempt.peer), bundleIdentifier: target.bundleIdentifier,
                    activityType: target.activityType, appShowsProgress: appShowsProgress), at: now, into: &effects)
        case .scene(let scene):
            record(
                .sceneWillContinue(
                    id, PeerReference(attempt.peer), bundleIdentifier: target.bundleIdentifier, scene: scene,
                    activityType: target.activityType), at: now, into: &effects)
        }
        startFetch(attempt, target, at: now, effects: &effects)
    }

    mutating func startFetch(
        _ attempt: ContinuationAttempt, _ target: ContinuationTarget, at now: Date, effects: inout [Effect]
    ) {
        pendingContinuation = .fetching(
            attempt, target, since: now, deadline: now.addingTimeInterval(configuration.fetchTimeout))
        // Recorded before the request leaves, so the record is never later than the origin's
        // receipt of it (the rule book's send-before-receive).
        record(
            .fetchStarted(attempt.id, PeerReference(attempt.peer), timeout: configuration.fetchTimeout), at: now,
            into: &effects)
        effects.append(
            .requestPayload(attempt.id, from: attempt.peer.id, activityTypeHash: attempt.advertisement.activityTypeHash)
        )
    }

    mutating func payloadReceived(
        _ id: ContinuationID, _ payload: ActivityPayload, size: Int, at now: Date,
        effects: inout [Effect]
    ) {
        guard let pending = pendingContinuation, case .fetching(let attempt, let target, let since, _) = pending,
            attempt.id == id
        else {
            record(.latePayloadIgnored(id, bytes: size), at: now, into: &effects)
            return
        }
        // Changed in place through the values' view: the optional subscript moved the whole
        // offer out of the table and back for one number.
        if let index = offers.index(forKey: attempt.peer.id) { offers.values[index].payloadSize = size }
        record(
            .payloadReceived(
                id, PeerReference(attempt.peer), activityType: payload.activityType, bytes: size,
                milliseconds: now.timeIntervalSince(since) * 1000, userInfo: payload.userInfo),
            at: now, into: &effects)
        if size > configuration.payloadWarningBytes, !configuration.mutants.contains(.skipSizeWarning) {
            record(
                .payloadSizeWarning(id, bytes: size, guidance: configuration.payloadWarningBytes), at: now,
                into: &effects)
        }
        guard size <= configuration.payloadLimitBytes else {
            fail(
                pending,
                HandoffError(
                    .userInfoTooLarge,
                    "the payload is \(size) bytes, over this device's \(configuration.payloadLimitBytes)-byte limit"),
                at: now, effects: &effects)
            return
        }
        guard payload.advertisedHash == attempt.advertisement.activityTypeHash,
            TeamHash(teamIdentifier: payload.teamIdentifier) == attempt.advertisement.teamHash
        else {
            fail(
                pending, HandoffError(.handoffFailed, "the payload does not match the offered activity"), at: now,
                effects: &effects)
            return
        }
        if let expiration = payload.expirationDate, expiration <= now {
            fail(
                pending, HandoffError(.handoffFailed, "the activity expired before it arrived"), at: now,
                effects: &effects)
            return
        }
        var delivered = payload
        switch target {
        case .app:
            break
        case .browser(let bundle), .web(let bundle):
            // Native → web, and a web page in an app: the app receives a browsing-web activity
            // with the page only, an empty userInfo (the guide: "the userInfo dictionary is empty").
            delivered = ActivityPayload(
                activityIdentifier: payload.activityIdentifier, activityType: UserActivity.browsingWebType,
                title: payload.title, webpageURL: payload.webpageURL,
                teamIdentifier: payload.teamIdentifier, bundleIdentifier: payload.bundleIdentifier)
            guard let url = delivered.webpageURL else {
                fail(
                    pending, HandoffError(.handoffFailed, "the activity has no webpageURL for \(bundle)"), at: now,
                    effects: &effects)
                return
            }
            if case .web = target, let host = url.host?.lowercased(),
                webRoute(hostHash: attempt.advertisement.activityTypeHash, at: now).host == nil,
                case (_, .noAppNamesHost) = webRoute(host: host, at: now)
            {
                // No app here names the host: only now that the page is here can the log say which.
                record(.webRouted(id, host: host, bundleIdentifier: bundle, .noAppNamesHost), at: now, into: &effects)
            }
        }
        deliver(attempt, target, delivered, effects: &effects)
    }

    mutating func deliver(
        _ attempt: ContinuationAttempt, _ target: ContinuationTarget, _ payload: ActivityPayload,
        effects: inout [Effect]
    ) {
        pendingContinuation = .delivering(attempt, target, payload: payload)
        effects.append(
            .deliver(
                attempt.id, bundleIdentifier: target.bundleIdentifier, payload, origin: PeerReference(attempt.peer)))
    }

    mutating func fail(_ pending: PendingContinuation, _ error: HandoffError, at now: Date, effects: inout [Effect]) {
        pendingContinuation = nil
        let attempt = pending.attempt
        if configuration.mutants.contains(.wasContinuedOnFailure) {
            switch pending {
            case .delivering(_, _, let payload):
                effects.append(
                    .notifyContinued(
                        to: attempt.peer.id, activityIdentifier: payload.activityIdentifier, continuation: attempt.id))
            default: break
            }
        }
        if case .fetching = pending {
            effects.append(.cancelPayloadRequest(attempt.id, from: attempt.peer.id))
        }
        let target = pending.target
        record(
            .continuationFailed(
                attempt.id, PeerReference(attempt.peer), bundleIdentifier: target.bundleIdentifier,
                activityType: target.activityType, error), at: now, into: &effects)
        effects.append(
            .callDidFail(bundleIdentifier: target.bundleIdentifier, activityType: target.activityType, error))
    }

    /// Whether a tick at `now` would do anything: each check of ``tick(at:effects:)``, without
    /// its work. The runtime posts no tick when none is due (after every piece of work).
    public func tickIsDue(at now: Date) -> Bool {
        saveIsDue(at: now) || lockEndsAdvertising(at: now) || currentActivityExpires(at: now)
            || fetchTimesOut(at: now) || offersMayChange(at: now)
    }

    private func saveIsDue(at now: Date) -> Bool { saveDeadline.map { $0 <= now } ?? false }

    private func lockEndsAdvertising(at now: Date) -> Bool {
        guard case .locked(let since) = lock else { return false }
        return since.addingTimeInterval(configuration.advertisingAfterLock) <= now
    }

    private func currentActivityExpires(at now: Date) -> Bool {
        guard let id = currentActivity, let expiration = activities[id]?.expirationDate else { return false }
        return expiration <= now
    }

    private func fetchTimesOut(at now: Date) -> Bool {
        guard case .fetching(_, _, _, let deadline)? = pendingContinuation else { return false }
        return deadline <= now
    }

    mutating func tick(at now: Date, effects: inout [Effect]) {
        if saveIsDue(at: now) {
            saveCurrent(.coalesced, at: now, effects: &effects)
        }
        if lockEndsAdvertising(at: now) { stopAdvertisingIfLockedLongEnough(at: now, effects: &effects) }
        if currentActivityExpires(at: now), let id = currentActivity, let snapshot = activities[id] {
            expireCurrent(snapshot, at: now, effects: &effects)
            chooseCurrent(at: now, effects: &effects)
        }
        if fetchTimesOut(at: now), let pending = pendingContinuation, case .fetching(let attempt, _, _, _) = pending {
            fail(
                pending,
                HandoffError(
                    .remoteApplicationTimedOut,
                    "no payload from \(attempt.peer.name) within \(Self.format(configuration.fetchTimeout)) s"),
                at: now, effects: &effects)
        }
        guard offersMayChange(at: now) else { return }
        routeInputsChanged = false
        defer { offersNextDue = nextDue(after: now) }
        for (id, offer) in offers.sorted(by: { $0.key < $1.key }) {
            if offer.lastSeen.addingTimeInterval(configuration.offerLifetime) <= now {
                offers[id] = nil
                record(.offerExpired(PeerReference(offer.peer)), at: now, into: &effects)
            } else {
                let route = self.route(for: offer.advertisement, at: now)
                if route != offer.route {
                    offers[id]?.route = route
                    record(
                        .offerUpdated(PeerReference(offer.peer), offer.advertisement.identity, route: route), at: now,
                        into: &effects)
                }
            }
        }
    }

    /// Whether a tick at `now` could expire an offer or change its route: the apps or the site
    /// associations changed, or the clock reached ``offersNextDue``. Each offer's route was made
    /// when it arrived, from the same inputs.
    private func offersMayChange(at now: Date) -> Bool {
        if offers.isEmpty { return false }
        if routeInputsChanged { return true }
        return offersNextDue.map { $0 <= now } ?? false
    }

    /// Brings ``offersNextDue`` forward to what an offer just received (last seen at `lastSeen`,
    /// its advertisement expiring at `expiresAt`) can be due at.
    private mutating func offerMayBeDue(lastSeen: Date, expiresAt: Date?) {
        var due = lastSeen.addingTimeInterval(configuration.offerLifetime)
        if let expiration = expiresAt { due = min(due, expiration) }
        offersNextDue = min(offersNextDue ?? due, due)
    }

    /// The earliest date after `now` at which the clock could expire an offer or change its route.
    private func nextDue(after now: Date) -> Date? {
        var earliest: Date?
        func consider(_ date: Date) {
            if let known = earliest, known <= date { return }
            earliest = date
        }
        for offer in offers.values {
            consider(offer.lastSeen.addingTimeInterval(configuration.offerLifetime))
            if let expiration = offer.advertisement.expiresAt, expiration > now { consider(expiration) }
        }
        for record in siteAssociations.values {
            if let answer = record.lastAnswer, answer.expiresAt > now { consider(answer.expiresAt) }
        }
        return earliest
    }

    func name(of peer: DeviceID) -> String {
        offers[peer]?.peer.name ?? peerNames[peer] ?? peer.rawValue
    }

    static func format(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.2f", seconds)
    }

    /// The next time at which a ``Event/tick`` would change something, so a run loop can sleep until then.
    /// (Asked after every turn of a device's queue: the earliest date is kept as it is found,
    /// with no list of dates made.)
    public var nextDeadline: Date? {
        var earliest: Date?
        func consider(_ date: Date) {
            if let known = earliest, known <= date { return }
            earliest = date
        }
        if let saveDeadline { consider(saveDeadline) }
        if case .locked(let since) = lock { consider(since.addingTimeInterval(configuration.advertisingAfterLock)) }
        if case .fetching(_, _, _, let deadline)? = pendingContinuation { consider(deadline) }
        if let id = currentActivity, let expiration = activities[id]?.expirationDate { consider(expiration) }
        let lifetime = configuration.offerLifetime
        for offer in offers.values {
            consider(offer.lastSeen.addingTimeInterval(lifetime))
            if let expiration = offer.advertisement.expiresAt, offer.route.isContinuable { consider(expiration) }
        }
        return earliest
    }
}

// MARK: - Recording

extension DeviceSystem {
    func record(_ occurrence: LifecycleEvent.Occurrence, at now: Date, into effects: inout [Effect]) {
        effects.append(.record(LifecycleEvent(time: now, device: device.name, occurrence)))
    }
}
