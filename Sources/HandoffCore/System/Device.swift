import Foundation

/// A simulated device: the runtime that carries out a ``DeviceSystem``'s effects on real app
/// objects (activities, responders, delegates) and a ``DeviceTransport``.
///
/// A device and everything installed on it are confined to one thread (its run loop). Events are
/// queued and handled one at a time, so app callbacks that change activities never re-enter the
/// state machine.
public final class Device {
    public var info: PeerInfo { system.device }
    public private(set) var system: DeviceSystem
    public private(set) var applications: [Application] = []
    public weak var transport: (any DeviceTransport)?
    /// The device's clock: the time of every event it handles.
    public let clock: () -> Date
    /// Every lifecycle event of this device, oldest first: the most recent `lifecycleCapacity`, and
    /// up to a quarter more between trims (the oldest are dropped in one go, not one by one: moving
    /// ten thousand events up by one for each new event made a long-running device slower with
    /// every event past the capacity).
    public private(set) var lifecycle: [LifecycleEvent] = []
    public var lifecycleCapacity = 10_000
    /// Called for each lifecycle event as it is recorded.
    public var onLifecycleEvent: ((LifecycleEvent) -> Void)?
    /// Errors the system showed itself because the app did not handle them.
    public private(set) var systemAlerts: [(bundleIdentifier: String, error: HandoffError)] = []
    /// How long a stream token from a payload stays usable.
    public var streamTokenLifetime: TimeInterval = 120
    /// The last payloads and beacons that travelled, for the inspector (bounded).
    public private(set) var traffic = DeviceTraffic()
    /// Opens a kept beacon datagram again with its fields (the network host sets it: it holds
    /// the account's beacon key).
    public var beaconInspector: (([UInt8]) -> BeaconBytes?)?

    var activities: [UUID: UserActivity] = [:]
    var streamTokens: [Data: StreamGrant] = [:]
    private var queue: [DeviceSystem.Event] = []
    private var draining = false
    private var savingActivity: UUID?
    /// The last advertise or withdraw of the events being handled: sent (and recorded) once,
    /// when the queue is empty, so a burst of changes is one beacon change.
    private var pendingBeacon: DeviceSystem.Effect?
    /// The time of the latest event recorded: the next is never earlier.
    private var lastEventTime: Date = .distantPast
    private var isBeaconFlushScheduled = false
    /// When set, a beacon change is sent later, by the work given here (the device's run loop runs
    /// it after what it is doing now), so changes made one after another by app code are one
    /// beacon; when nil, it is sent as soon as the events being handled are done.
    public var deferBeacons: ((@escaping @Sendable (Device) -> Void) -> Void)?

    /// A stream token handed out with a payload: which activity and continuation it opens.
    struct StreamGrant {
        var activity: UUID
        var continuation: ContinuationID
        var expires: Date
    }

    public init(info: PeerInfo, configuration: DeviceConfiguration = DeviceConfiguration(), clock: @escaping () -> Date = Date.init) {
        system = DeviceSystem(device: info, configuration: configuration)
        self.clock = clock
    }

    // MARK: Apps

    /// Installs an app; returns its application object. An app with a scene manifest names its
    /// scene delegate class there; `sceneDelegates` are the classes it links.
    @discardableResult
    public func install(_ manifest: AppManifest, delegate: (any ApplicationDelegate)? = nil,
                        sceneDelegates: [any SceneDelegate.Type] = []) -> Application {
        let app = Application(manifest: manifest, delegate: delegate, sceneDelegateClasses: sceneDelegates, device: self)
        applications.removeAll { $0.bundleIdentifier == manifest.bundleIdentifier }
        applications.append(app)
        post(.appInstalled(manifest))
        return app
    }

    public func application(_ bundleIdentifier: String) -> Application? {
        applications.first { $0.bundleIdentifier == bundleIdentifier }
    }

    /// Brings `app` to the front (nil: the home screen). Its activity becomes current.
    public func bringToFront(_ app: Application?) {
        post(.appBecameFrontmost(bundleIdentifier: app?.bundleIdentifier))
    }

    /// The user quits `app` from the app switcher: its scenes disconnect, its documents close,
    /// its activities end, and its next launch is cold.
    public func terminate(_ app: Application) {
        for scene in app.connectedScenes { scene.delegate?.sceneDidDisconnect(scene) }
        app.connectedScenes = []
        for document in app.openDocuments { document.close() }
        for activity in activities.values where activity.application === app { activity.invalidate() }
        post(.appTerminated(bundleIdentifier: app.bundleIdentifier))
    }

    /// Connects a new scene to `app` (a launch, a continuation or a request for a new window),
    /// with a delegate of the class its scene manifest names.
    func connectScene(in app: Application, options: Scene.ConnectionOptions, continuation: ContinuationID?) -> Scene {
        app.sceneSerial += 1
        let configuration = app.sceneConfiguration
        let session = SceneSession(persistentIdentifier: "\(app.manifest.displayName)-\(app.sceneSerial)",
                                   role: configuration?.role ?? "UIWindowSceneSessionRoleApplication",
                                   configurationName: configuration?.name)
        let delegateClass = app.sceneDelegateClass()
        let delegate: (any SceneDelegate)? = (try? delegateClass.get()).map { $0.init() }
        let scene = Scene(session: session, delegate: delegate, application: app)
        if case .failure(let problem) = delegateClass { scene.setupProblem = problem }
        app.connectedScenes.insert(scene, at: 0)
        record(.sceneWillConnect(continuation, bundleIdentifier: app.bundleIdentifier, scene: scene.name,
                                 handoffUserActivityType: options.handoffUserActivityType))
        delegate?.scene(scene, willConnectTo: session, options: options)
        return scene
    }

    /// The device's current activity object.
    public var currentActivity: UserActivity? { system.currentActivity.flatMap { activities[$0] } }

    /// The activity object with this identifier, if it is still valid on this device.
    public func activity(_ id: UUID) -> UserActivity? { activities[id] }

    // MARK: The user

    /// The user chose to continue the activity `peer` offers.
    public func chooseOffer(from peer: DeviceID) { post(.offerChosen(peer, continuation: ContinuationID())) }

    /// The user cancelled the continuation in progress.
    public func cancelContinuation() {
        if pausedAt != nil {
            // Paused in step mode: the held steps of the receiving side are dropped (the
            // continuation ends here); anything else held happens now.
            held.removeAll { step in
                switch step {
                case .effect(.launch), .effect(.callWillContinue), .effect(.requestPayload), .effect(.deliver): true
                case .action(.restore?, _): true
                default: false
                }
            }
            let stepping = isStepping
            isStepping = false
            if held.isEmpty { pausedAt = nil; pausedSince = nil } else { stepNext() }
            isStepping = stepping
        }
        post(.continuationCancelled)
    }

    /// Time passed: lets coalesced saves, timeouts and expiries happen.
    public func tick() {
        // Paused in step mode: the timeouts are suspended.
        guard pausedAt == nil else { return }
        post(.tick)
    }

    /// Fetches the association files that verify an app's `activitycontinuation:` domains (set
    /// by the runtime: the local web's `SiteAssociationVerifier`). Called on the device's run
    /// loop when an app is installed or launched, for the domains never checked or whose answer
    /// expired; the verifier answers each with ``siteAssociationChecked(_:)``, on the run loop.
    /// Without one, the domains stay unchecked and web pages open in the browser.
    public var siteAssociationVerifier: ((SiteAssociationRequest) -> Void)?

    /// One domain's association file was fetched (or the fetch failed): the device keeps the
    /// answer for routing web pages, and records it.
    public func siteAssociationChecked(_ check: SiteAssociationCheck) {
        post(.siteAssociationChecked(check))
    }

    // MARK: From the transport

    public func receiveAdvertisement(_ advertisement: Advertisement, from peer: PeerInfo) {
        post(.advertisementReceived(advertisement, from: peer))
    }

    public func receiveGoodbye(from peer: DeviceID) { post(.goodbyeReceived(peer)) }

    /// The network opened and accepted this beacon datagram from `peer`: kept (the last per
    /// peer) for the inspector.
    public func beaconOpened(_ datagram: [UInt8], from peer: PeerInfo) {
        traffic.keep(DeviceTraffic.Beacon(peer: peer, datagram: datagram, time: clock()))
    }

    public func receivePayloadRequest(_ request: PayloadRequestID, from peer: PeerInfo, activityTypeHash: ActivityTypeHash,
                                      continuation: ContinuationID) {
        // The lab's no-answer fault: the request is never answered, not even by the serving
        // deadline; the requester's fetch timeout ends it.
        if strikes(.noAnswer, continuation) {
            transport?.leaveUnanswered(request, to: peer.id)
            return
        }
        // The lab's origin-leaves fault: the connection closes under the request.
        if strikes(.originLeaves, continuation) {
            transport?.hangUp(request, to: peer.id)
            return
        }
        if forgetNeedsSaveStruck {
            // A forget-needs-save armed once is used up by the continuation it made stale.
            forgetNeedsSaveStruck = false
            if armedFaults[.forgetNeedsSave] == false { armedFaults[.forgetNeedsSave] = nil }
        }
        post(.payloadRequested(request, from: peer, activityTypeHash: activityTypeHash, continuation: continuation))
    }

    /// The answer to a payload request: the encoded payload, or the error the origin or the
    /// connection reported. Decoding happens here, hostile-input safe.
    public func receivePayload(_ continuation: ContinuationID, _ result: Result<Data, HandoffError>) {
        switch result {
        case .failure(let error):
            post(.payloadFailed(continuation, error))
        case .success(let data):
            let limit = system.configuration.payloadLimitBytes
            if data.count <= limit {
                traffic.received = DeviceTraffic.Payload(
                    continuation: continuation, peer: system.pendingContinuation.map { PeerReference(id: $0.peer.id, name: $0.peer.name) },
                    bytes: data, time: clock())
            }
            guard data.count <= limit else {
                post(.payloadFailed(continuation, HandoffError(.userInfoTooLarge,
                    "the payload is \(data.count) bytes, over this device's \(limit)-byte limit")))
                return
            }
            do {
                let payload = try ActivityPayload(decoding: data, limits: PayloadLimits(maximumPayloadBytes: limit))
                if case .fetching(let attempt, .routedByPage, _, _)? = system.pendingContinuation, attempt.id == continuation,
                   strikes(.noSiteAssociation, continuation) {
                    // The lab's no-site-association fault: the page's association file is missing.
                    system.siteAssociationsWithheld = continuation
                }
                post(.payloadReceived(continuation, payload, size: data.count))
            } catch {
                post(.payloadFailed(continuation, HandoffError(.handoffFailed, "the payload could not be decoded: \(error)")))
            }
        }
    }

    public func receiveContinued(_ activityIdentifier: UUID, by peer: PeerInfo, continuation: ContinuationID) {
        post(.continuationConfirmed(activityIdentifier: activityIdentifier, by: peer, continuation: continuation))
    }

    /// A peer opens continuation streams with a token from a payload this device sent. On success
    /// the origin's activity delegate receives its end and the peer's end is returned.
    public func acceptContinuationStreams(token: Data, from peer: DeviceID) -> Result<ContinuationStreams, ContinuationStreamError> {
        let reference = PeerReference(id: peer, name: system.name(of: peer))
        if let grant = streamTokens[token], strikes(.refuseStreams, grant.continuation) {
            streamTokens[token] = nil
            record(.streamsRefused(grant.continuation, reference, activityType: nil, reason: "refused on purpose (the refuse-streams fault)"))
            return .failure(.refused("refused on purpose (the refuse-streams fault)"))
        }
        guard let grant = streamTokens.removeValue(forKey: token), grant.expires > clock() else {
            record(.streamsRefused(nil, reference, activityType: nil, reason: "unknown, used or expired stream token"))
            return .failure(.refused("unknown, used or expired stream token"))
        }
        guard let activity = activities[grant.activity], activity.supportsContinuationStreams, let activityReference = activity.reference else {
            record(.streamsRefused(grant.continuation, reference, activityType: nil, reason: "the activity is gone or no longer supports streams"))
            return .failure(.refused("the activity is gone or no longer supports streams"))
        }
        var (mine, theirs) = ContinuationStreams.makePipe()
        if slowContinuations.contains(grant.continuation) || strikes(.slowLink, grant.continuation) {
            // The lab's slow link: what the origin's app writes leaves slowly.
            mine = ContinuationStreams(input: mine.input, output: mine.output.throttled(by: slowLink))
        }
        record(.streamsOpened(grant.continuation, reference, activityReference, side: .origin))
        activity.delegate?.userActivity(activity, didReceive: mine)
        return .success(theirs)
    }

    // MARK: From activities and apps

    func activityCreated(_ activity: UserActivity) {
        activities[activity.identifier] = activity
        post(.activityChanged(activity.snapshot))
    }

    func activityPropertiesChanged(_ activity: UserActivity) {
        guard activities[activity.identifier] != nil else { return }
        post(.activityChanged(activity.snapshot))
    }

    func activityNeedsSave(_ activity: UserActivity) {
        guard activity.identifier != savingActivity, activities[activity.identifier] != nil else { return }
        if let sticky = armedFaults[.forgetNeedsSave] {
            // As if the app never set it: the flag goes back down unseen. Armed once, it forgets
            // every needsSave until the next payload request (its occasion is one continuation),
            // so a demo's few page changes are all lost, not only the first.
            record(.faultInjected(nil, .forgetNeedsSave))
            if !sticky { forgetNeedsSaveStruck = true }
            savingActivity = activity.identifier
            activity.needsSave = false
            savingActivity = nil
            post(.activityChangedWithoutNeedsSave(activity.identifier))
            return
        }
        post(.activityNeedsSave(activity.identifier))
    }

    /// The lab's rehearsal of the commonest bug: the app changed `activity`'s state and did not
    /// set needsSave. Nothing is saved; a payload that leaves before the next save says so
    /// (`saveSkipped` with the time of the change).
    public func stateChangedWithoutNeedsSave(_ activity: UserActivity) {
        guard activities[activity.identifier] != nil else { return }
        post(.activityChangedWithoutNeedsSave(activity.identifier))
    }

    func activityBecameCurrent(_ activity: UserActivity) {
        if activities[activity.identifier] == nil, activity.isReceived, activity.isValid {
            // A continued activity the app makes current is adopted: this device now offers it,
            // so it can be handed back.
            activity.isAdopted = true
            activities[activity.identifier] = activity
        }
        guard activities[activity.identifier] != nil else { return }
        post(.activityChanged(activity.snapshot))
        post(.activityBecameCurrent(activity.identifier))
    }

    func activityResignedCurrent(_ activity: UserActivity) {
        post(.activityResignedCurrent(activity.identifier))
    }

    func activityInvalidated(_ activity: UserActivity) {
        guard activities.removeValue(forKey: activity.identifier) != nil else { return }
        streamTokens = streamTokens.filter { $0.value.activity != activity.identifier }
        post(.activityInvalidated(activity.identifier))
    }

    func documentOpened(_ document: Document, in app: Application) {
        record(.documentOpened(bundleIdentifier: app.bundleIdentifier, activityType: document.documentType.ubiquitousActivityType,
                               file: document.fileURL.lastPathComponent))
    }

    func documentClosed(_ document: Document, in app: Application) {
        record(.documentClosed(bundleIdentifier: app.bundleIdentifier, activityType: document.documentType.ubiquitousActivityType,
                               file: document.fileURL.lastPathComponent))
    }

    func systemShowsError(_ error: HandoffError, activityType: String, application: Application) {
        systemAlerts.append((application.bundleIdentifier, error))
        record(.systemShowedError(bundleIdentifier: application.bundleIdentifier, activityType: activityType, error))
    }

    func openContinuationStreams(for activity: UserActivity, from origin: ReceivedFrom,
                                 completion: @escaping (ContinuationStreams?, (any Error)?) -> Void) {
        guard let transport else {
            completion(nil, ContinuationStreamError.unavailable("the device has no network"))
            return
        }
        step(.streams(from: origin.peer.name), continuation: origin.continuation) { [weak self] in
            self?.openStreams(with: transport, for: activity, from: origin, completion: completion)
        }
    }

    private func openStreams(with transport: any DeviceTransport, for activity: UserActivity, from origin: ReceivedFrom,
                             completion: @escaping (ContinuationStreams?, (any Error)?) -> Void) {
        transport.openContinuationStreams(to: origin.peer.id, token: origin.streamToken) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(var streams):
                if self.slowContinuations.contains(origin.continuation) || self.strikes(.slowLink, origin.continuation) {
                    // The lab's slow link: what the continuing app writes leaves slowly.
                    streams = ContinuationStreams(input: streams.input, output: streams.output.throttled(by: self.slowLink))
                }
                if let reference = activity.reference {
                    self.record(.streamsOpened(origin.continuation, origin.peer, reference, side: .continuing))
                }
                completion(streams, nil)
            case .failure(let error):
                self.record(.streamsRefused(origin.continuation, origin.peer, activityType: activity.activityType, reason: "\(error)"))
                completion(nil, error)
            }
        }
    }

    // MARK: The event loop

    func post(_ event: DeviceSystem.Event) {
        queue.append(event)
        guard !draining else { return }
        draining = true
        drainQueue()
        draining = false
    }

    private func drainQueue() {
        while !queue.isEmpty {
            let next = queue.removeFirst()
            let effects = system.handle(next, at: clock())
            for effect in effects { dispatch(effect) }
            if queue.isEmpty, pendingBeacon != nil {
                if let deferBeacons {
                    if !isBeaconFlushScheduled {
                        isBeaconFlushScheduled = true
                        deferBeacons { device in device.flushBeacon() }
                    }
                } else {
                    flushBeacon()
                }
            }
        }
    }

    // MARK: Faults

    /// The faults armed on this device: true when it stays armed, false for the next time only.
    public private(set) var armedFaults: [Fault: Bool] = [:]
    /// A forget-needs-save armed once has forgotten a needsSave: the next payload request uses it up.
    private var forgetNeedsSaveStruck = false
    /// How slow the slow-link fault makes what this device sends.
    public var slowLink = SlowLink.standard
    /// Payload answers the slow link holds back, and the continuations it slowed (their streams too).
    private var slowRequests: [PayloadRequestID: ContinuationID] = [:]
    private var slowContinuations: Set<ContinuationID> = [] {
        didSet { if slowContinuations.count > 64 { slowContinuations.removeFirst() } }
    }

    /// The `userInfo` key of the app's handoff version, as Apple's WWDC 2014 session names it.
    static let handoffVersionKey = "handoffVersion"

    /// The version after `version`: a number one up, a "2.0" string one major up; an activity
    /// without a version is version 1, so the newer one is 2.
    static func nextVersion(after version: UserInfoValue?) -> UserInfoValue {
        switch version {
        case .integer(let number)?: return .integer(number == .max ? number : number + 1)
        case .double(let number)?: return .double(number.rounded(.down) + 1)
        case .string(let text)?:
            let major = text.split(separator: ".", maxSplits: 1).first.flatMap { Int($0) }
            return .string(major.map { "\($0 + 1).0" } ?? "2.0")
        default: return .integer(2)
        }
    }

    /// Arms `fault` for its next occasion, or for every one while `sticky`.
    public func arm(_ fault: Fault, sticky: Bool = false) {
        armedFaults[fault] = sticky
        if fault == .forgetNeedsSave { forgetNeedsSaveStruck = false }
    }

    /// Disarms `fault`, or every fault.
    public func disarm(_ fault: Fault? = nil) {
        if let fault { armedFaults[fault] = nil } else { armedFaults = [:] }
    }

    /// Whether `fault` strikes now (recorded when it does; a one-time fault is used up).
    func strikes(_ fault: Fault, _ continuation: ContinuationID? = nil) -> Bool {
        guard let sticky = armedFaults[fault] else { return false }
        if !sticky { armedFaults[fault] = nil }
        record(.faultInjected(continuation, fault))
        return true
    }

    // MARK: Step mode

    /// Step mode: the device pauses before each phase of a continuation (launching the app,
    /// willContinue, the fetch, continue; on the origin, the save and the payload leaving) until
    /// ``stepNext()``. While it is paused its timeouts are suspended: no tick reaches the state
    /// machine, and going on moves its deadlines by the time spent paused. Turning it off goes on
    /// through everything held.
    public var isStepping = false {
        didSet { if !isStepping { while pausedAt != nil { stepNext() } } }
    }
    /// The phase the device is paused before, if it is.
    public private(set) var pausedAt: StepPhase?
    /// What waits behind the pause, in order.
    private var held: [HeldStep] = []
    /// When the device paused (nil: it is not paused): its timeouts are frozen since then.
    public private(set) var pausedSince: Date?

    /// The next time a tick would change something, for a run loop's timer; nil while paused, as
    /// no tick reaches the state machine then (a deadline passed during the pause would otherwise
    /// wake the loop again and again until the user goes on).
    public var nextDeadline: Date? { pausedAt == nil ? system.nextDeadline : nil }

    /// What step mode holds: an effect of the state machine, or an app callback the runtime
    /// calls (a restoration, opening streams; nil phase: not a pause of its own, only behind one).
    private enum HeldStep {
        case effect(DeviceSystem.Effect)
        case action(StepPhase?, () -> Void)
    }

    /// Runs `action` now, or holds it: behind a pause, or (with a phase, in step mode) as the next pause.
    private func step(_ phase: StepPhase?, continuation: ContinuationID?, _ action: @escaping () -> Void) {
        if pausedAt != nil {
            held.append(.action(phase, action))
        } else if isStepping, let phase {
            held = [.action(phase, action)]
            pause(before: phase, continuation: continuation)
        } else {
            action()
        }
    }

    /// Performs a held step without pausing (the phase the device paused before).
    private func run(_ step: HeldStep) {
        switch step {
        case .effect(let effect): perform(effect)
        case .action(_, let action): action()
        }
    }

    /// Performs `effect`, or holds it: behind a pause, or as the next pause in step mode.
    private func dispatch(_ effect: DeviceSystem.Effect) {
        if pausedAt != nil {
            held.append(.effect(effect))
        } else if isStepping, let phase = stepPhase(of: effect) {
            held = [.effect(effect)]
            pause(before: phase, continuation: continuation(of: effect))
        } else {
            perform(effect)
        }
    }

    private func pause(before phase: StepPhase, continuation: ContinuationID?) {
        pausedAt = phase
        pausedSince = clock()
        record(.stepPaused(continuation, phase))
    }

    /// Goes on from the pause: the held phase happens, then everything behind it up to the next
    /// phase (in step mode). Returns false when the device was not paused.
    @discardableResult
    public func stepNext() -> Bool {
        guard pausedAt != nil else { return false }
        let suspended = pausedSince.map { clock().timeIntervalSince($0) } ?? 0
        pausedAt = nil
        pausedSince = nil
        var pending = held
        held = []
        let wasDraining = draining
        draining = true
        if suspended > 0 { queue.append(.timeoutsSuspended(for: suspended)) }
        if !pending.isEmpty { run(pending.removeFirst()) }
        // The rest as if just made: up to the next pause, and held behind it.
        for next in pending {
            switch next {
            case .effect(let effect): dispatch(effect)
            case .action(let phase, let action): step(phase, continuation: nil, action)
            }
        }
        if !wasDraining {
            drainQueue()
            draining = false
        }
        return true
    }

    /// The phase an effect starts, for step mode (nil: it does not pause).
    private func stepPhase(of effect: DeviceSystem.Effect) -> StepPhase? {
        switch effect {
        case .launch(let bundle, let kind, _, _): .launch(bundleIdentifier: bundle, kind)
        case .callWillContinue(_, let bundle, let type): .willContinue(bundleIdentifier: bundle, activityType: type)
        case .requestPayload(_, let peer, _): .fetch(from: system.name(of: peer))
        case .deliver(_, let bundle, let payload, _): .continue(bundleIdentifier: bundle, activityType: payload.activityType)
        case .save(let id, .beforeSending, _): .save(activityType: activities[id]?.activityType ?? "the activity")
        case .sendPayload(_, let peer, let data): .send(bytes: data.count, to: system.name(of: peer))
        default: nil
        }
    }

    private func continuation(of effect: DeviceSystem.Effect) -> ContinuationID? {
        switch effect {
        case .launch(_, _, let id, _), .callWillContinue(let id, _, _), .requestPayload(let id, _, _), .deliver(let id, _, _, _): id
        case .save(_, _, let id): id
        case .sendPayload(let request, _, _): system.serving[request]?.continuation
        default: nil
        }
    }

    /// Records what happened, stamped with one read of the device's clock (never earlier than the
    /// previous event), and tells the observer.
    func record(_ occurrence: LifecycleEvent.Occurrence) {
        record(LifecycleEvent(time: clock(), device: info.name, occurrence), stamped: true)
    }

    /// `stamped`: the event's time was read from the device's clock just now; otherwise (an
    /// event the state machine made) it is stamped here. Either way, one read per event.
    func record(_ event: LifecycleEvent, stamped: Bool = false) {
        var event = event
        event.time = max(stamped ? event.time : clock(), lastEventTime)
        lastEventTime = event.time
        lifecycle.append(event)
        if lifecycle.count > lifecycleCapacity + max(1, lifecycleCapacity / 4) {
            lifecycle.removeFirst(lifecycle.count - lifecycleCapacity)
        }
        onLifecycleEvent?(event)
    }

    /// Sends (and records) the last beacon change, if one is waiting.
    public func flushBeacon() {
        isBeaconFlushScheduled = false
        guard let beacon = pendingBeacon else { return }
        pendingBeacon = nil
        switch beacon {
        case .advertise(let ad, let activity):
            if strikes(.dropBeacons) { return }
            transport?.advertise(ad, from: info)
            record(.advertised(activity, ad.identity, isEligible: ad.options.contains(.isEligibleForHandoff)))
        case .withdraw(let reason):
            transport?.withdraw(from: info)
            record(.withdrawn(reason))
        default:
            break
        }
    }

    private func perform(_ effect: DeviceSystem.Effect) {
        switch effect {
        case .record(let event):
            record(event)
        case .advertise, .withdraw:
            pendingBeacon = effect
        case .save(let id, let reason, let continuation):
            guard let activity = activities[id] else { return }
            save(activity, continuation: continuation)
            post(.activitySaved(id, reason, userInfo: activity.userInfo, continuation: continuation))
        case .launch(let bundle, let kind, let continuation, let type):
            guard let app = application(bundle) else { return }
            record(.applicationLaunched(continuation, bundleIdentifier: bundle, launch: kind))
            if app.usesScenes && (kind == .cold || app.connectedScenes.isEmpty) {
                _ = connectScene(in: app, options: Scene.ConnectionOptions(handoffUserActivityType: type), continuation: continuation)
            }
        case .callWillContinue(let id, let bundle, let type):
            guard let app = application(bundle) else {
                post(.payloadFailed(id, HandoffError(.handoffFailed, "\(bundle) is not installed")))
                return
            }
            if app.usesScenes {
                let scene = app.keyScene ?? connectScene(in: app, options: Scene.ConnectionOptions(handoffUserActivityType: type),
                                                         continuation: id)
                scene.delegate?.scene(scene, willContinueUserActivityWithType: type)
                post(.willContinueAnswered(id, .scene(scene.name)))
            } else {
                var showsProgress = app.delegate?.application(app, willContinueUserActivityWithType: type) ?? false
                // The lab's will-continue-false fault: whatever the app did, its answer is false.
                if strikes(.willContinueFalse, id) { showsProgress = false }
                post(.willContinueAnswered(id, .application(appShowsProgress: showsProgress)))
            }
        case .requestPayload(let id, let peer, let hash):
            guard let transport else {
                post(.payloadFailed(id, HandoffError(.connectionUnavailable, "the device has no network")))
                return
            }
            transport.requestPayload(id, from: peer, activityTypeHash: hash)
        case .cancelPayloadRequest(let id, let peer):
            transport?.cancelPayloadRequest(id, from: peer)
        case .deliver(let id, let bundle, let payload, let origin):
            deliver(id, bundle, payload, origin: origin)
        case .callDidFail(let bundle, let type, let error):
            if let app = application(bundle), strikes(.noDidFail) {
                // The lab's no-did-fail fault: as if the app did not implement it.
                systemShowsError(error, activityType: type, application: app)
            } else if let app = application(bundle) {
                if app.usesScenes, let scene = app.keyScene {
                    record(.sceneDidFailToContinue(nil, bundleIdentifier: bundle, scene: scene.name, activityType: type, error))
                    if let delegate = scene.delegate {
                        delegate.scene(scene, didFailToContinueUserActivityWithType: type, error: error)
                    } else {
                        systemShowsError(error, activityType: type, application: app)
                    }
                } else if let delegate = app.delegate {
                    delegate.application(app, didFailToContinueUserActivityWithType: type, error: error)
                } else {
                    systemShowsError(error, activityType: type, application: app)
                }
            }
        case .encodePayload(let request, let id, let continuation):
            guard let activity = activities[id], activity.isValid else {
                post(.payloadUnavailable(request, reason: "the activity was invalidated"))
                return
            }
            var token = Data()
            if activity.supportsContinuationStreams {
                token = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
                streamTokens[token] = StreamGrant(activity: id, continuation: continuation,
                                                  expires: clock().addingTimeInterval(streamTokenLifetime))
            }
            var payload = activity.makePayload(streamToken: token)
            if strikes(.oversizePayload, continuation) {
                // Padding past the limit: the origin's own size check refuses it.
                payload.userInfo["lab.padding"] = .data(Data(count: system.configuration.payloadLimitBytes + 1))
            }
            if strikes(.newerVersion, continuation) {
                payload.userInfo[Self.handoffVersionKey] = Self.nextVersion(after: payload.userInfo[Self.handoffVersionKey])
            }
            if strikes(.slowLink, continuation) {
                slowRequests[request] = continuation
                slowContinuations.insert(continuation)
            }
            let encoded = payload.encoded()
            if encoded.count <= system.configuration.payloadLimitBytes * 2 {
                traffic.sent = DeviceTraffic.Payload(continuation: continuation, peer: nil, bytes: encoded, time: clock())
            }
            post(.payloadEncoded(request, encoded, userInfo: payload.userInfo))
        case .sendPayload(let request, let peer, let data):
            let delay = slowRequests.removeValue(forKey: request) != nil ? slowLink.delay(forBytes: data.count) : 0
            transport?.sendPayload(request, to: peer, result: .success(data), after: delay)
        case .sendPayloadError(let request, let peer, let error):
            slowRequests[request] = nil
            transport?.sendPayload(request, to: peer, result: .failure(error), after: 0)
        case .notifyContinued(let peer, let activityIdentifier, let continuation):
            transport?.notifyContinued(activityIdentifier, continuation: continuation, to: peer)
        case .checkSiteAssociations(let bundle, let appID, let domains):
            siteAssociationVerifier?(SiteAssociationRequest(bundleIdentifier: bundle, applicationIdentifier: appID, domains: domains))
        case .callWasContinued(let id):
            if let activity = activities[id] { activity.delegate?.userActivityWasContinued(activity) }
        }
    }

    /// The save callbacks, in Apple's order: the delegate's `userActivityWillSave`, then (for an
    /// activity shared by responders) `userInfo` emptied and every responder's
    /// `updateUserActivityState`, then the app delegate's `didUpdate`. Each is recorded as it
    /// returns.
    private func save(_ activity: UserActivity, continuation: ContinuationID?) {
        guard let reference = activity.reference else { return }
        savingActivity = activity.identifier
        defer { savingActivity = nil }
        if let delegate = activity.delegate {
            delegate.userActivityWillSave(activity)
            record(.willSave(reference, continuation: continuation))
        }
        let responders = activity.liveResponders
        if !responders.isEmpty {
            activity.userInfo = [:]
            for responder in responders { responder.updateUserActivityState(activity) }
            record(.updateUserActivityState(reference, responders: responders.count, continuation: continuation))
        }
        if let app = activity.application, app.usesScenes {
            if let scene = app.connectedScenes.first(where: { $0.userActivity === activity }) ?? app.keyScene, let delegate = scene.delegate {
                delegate.scene(scene, didUpdate: activity)
                record(.sceneDidUpdate(reference, scene: scene.name, continuation: continuation))
            }
        } else if let app = activity.application, let delegate = app.delegate {
            delegate.application(app, didUpdate: activity)
            record(.didUpdate(reference, continuation: continuation))
        }
        activity.needsSave = false
    }

    /// `continue(_:restorationHandler:)`, recorded as it is called; each restoration the app asks
    /// for is recorded after it, with the userInfo it restored from.
    private func deliver(_ id: ContinuationID, _ bundle: String, _ payload: ActivityPayload, origin: PeerReference) {
        guard let app = application(bundle) else {
            post(.payloadFailed(id, HandoffError(.handoffFailed, "\(bundle) is not installed")))
            return
        }
        let activity = UserActivity(received: payload, application: app, origin: origin, continuation: id)
        if app.usesScenes {
            deliverToScene(id, app, activity)
            return
        }
        var restored = 0
        let handler: ([Responder]) -> Void = { [weak self] objects in
            guard let self else { return }
            // Each restoration is a phase of its own in step mode (the app's call returns at once,
            // as it may when it calls the handler later).
            self.step(.restore(bundleIdentifier: bundle, objects: objects.count), continuation: id) { [weak self] in
                guard let self else { return }
                for object in objects { object.restoreUserActivityState(activity) }
                restored += objects.count
                self.record(.restoreUserActivityState(id, bundleIdentifier: bundle, objects: objects.count, userInfo: activity.userInfo))
            }
        }
        record(.continueCalled(id, bundleIdentifier: bundle, activityType: activity.activityType))
        // The lab's continue-false fault: as if the app's continue returned false at once.
        let handled = strikes(.continueFalse, id) ? false
            : app.delegate?.application(app, continue: activity, restorationHandler: handler) ?? false
        // After the restorations held in step mode, if any.
        step(nil, continuation: id) { [weak self] in
            self?.post(.continuationHandled(id, handled ? .handled(.application(restoredObjects: restored)) : .notHandled(.returnedFalse)))
        }
    }

    /// `scene(_:continue:)` on the scene the activity's `targetContentIdentifier` picks (Apple's
    /// activation conditions), else a new scene when the app supports several, else the key scene.
    private func deliverToScene(_ id: ContinuationID, _ app: Application, _ activity: UserActivity) {
        let scene: Scene
        if let chosen = Scene.choose(for: activity.targetContentIdentifier, among: app.connectedScenes) {
            scene = chosen
        } else if app.manifest.sceneManifest?.supportsMultipleScenes == true || app.connectedScenes.isEmpty {
            scene = connectScene(in: app, options: Scene.ConnectionOptions(handoffUserActivityType: activity.activityType), continuation: id)
        } else {
            scene = app.connectedScenes[0]
        }
        app.activate(scene)
        record(.sceneContinue(id, bundleIdentifier: app.bundleIdentifier, scene: scene.name, activityType: activity.activityType))
        guard let delegate = scene.delegate else {
            let problem = scene.setupProblem ?? .noConfiguration
            post(.continuationHandled(id, .notHandled(.noSceneDelegate(scene: scene.name, problem))))
            return
        }
        scene.continueIsNotImplemented = false
        delegate.scene(scene, continue: activity)
        let outcome: ContinueOutcome = scene.continueIsNotImplemented
            ? .notHandled(.sceneContinueNotImplemented(scene: scene.name)) : .handled(.scene(scene.name))
        post(.continuationHandled(id, outcome))
    }
}

extension UserActivity {
    /// The activity as lifecycle events name it (nil once it has no app).
    var reference: ActivityReference? {
        guard let bundle = application?.bundleIdentifier else { return nil }
        return ActivityReference(id: identifier, activityType: activityType, title: title, bundleIdentifier: bundle)
    }
}
