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
    /// Every lifecycle event of this device, oldest first (the most recent `lifecycleCapacity`).
    public private(set) var lifecycle: [LifecycleEvent] = []
    public var lifecycleCapacity = 10_000
    /// Called for each lifecycle event as it is recorded.
    public var onLifecycleEvent: ((LifecycleEvent) -> Void)?
    /// Errors the system showed itself because the app did not handle them.
    public private(set) var systemAlerts: [(bundleIdentifier: String, error: HandoffError)] = []
    /// Called whenever the device's state changed (after a batch of events), e.g. to redraw.
    public var onChange: (() -> Void)?
    /// How long a stream token from a payload stays usable.
    public var streamTokenLifetime: TimeInterval = 120

    var activities: [UUID: UserActivity] = [:]
    var received: [ContinuationID: UserActivity] = [:]
    var streamTokens: [Data: (activity: UUID, expires: Date)] = [:]
    private var queue: [DeviceSystem.Event] = []
    private var draining = false
    private var savingActivity: UUID?

    public init(info: PeerInfo, configuration: DeviceConfiguration = DeviceConfiguration(), clock: @escaping () -> Date = Date.init) {
        system = DeviceSystem(device: info, configuration: configuration)
        self.clock = clock
    }

    // MARK: Apps

    /// Installs an app; returns its application object.
    @discardableResult
    public func install(_ manifest: AppManifest, delegate: (any ApplicationDelegate)? = nil) -> Application {
        let app = Application(manifest: manifest, delegate: delegate, device: self)
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

    /// The device's current activity object.
    public var currentActivity: UserActivity? { system.currentActivity.flatMap { activities[$0] } }

    /// The activity object with this identifier, if it is still valid on this device.
    public func activity(_ id: UUID) -> UserActivity? { activities[id] }

    // MARK: The user

    /// The user chose to continue the activity `peer` offers.
    public func chooseOffer(from peer: DeviceID) { post(.offerChosen(peer)) }

    /// The user cancelled the continuation in progress.
    public func cancelContinuation() { post(.continuationCancelled) }

    /// Time passed: lets coalesced saves, timeouts and expiries happen.
    public func tick() { post(.tick) }

    /// Records which apps a site approves for `activitycontinuation` (its association file).
    public func setSiteApproval(host: String, applicationIdentifiers: Set<String>) {
        post(.siteApproval(host: host, applicationIdentifiers: applicationIdentifiers))
    }

    // MARK: From the transport

    public func receiveAdvertisement(_ advertisement: Advertisement, from peer: PeerInfo) {
        post(.advertisementReceived(advertisement, from: peer))
    }

    public func receiveGoodbye(from peer: DeviceID) { post(.goodbyeReceived(peer)) }

    public func receivePayloadRequest(_ request: PayloadRequestID, from peer: PeerInfo, activityTypeHash: ActivityTypeHash) {
        post(.payloadRequested(request, from: peer, activityTypeHash: activityTypeHash))
    }

    /// The answer to a payload request: the encoded payload, or the error the origin or the
    /// connection reported. Decoding happens here, hostile-input safe.
    public func receivePayload(_ continuation: ContinuationID, _ result: Result<Data, HandoffError>) {
        switch result {
        case .failure(let error):
            post(.payloadFailed(continuation, error))
        case .success(let data):
            let limit = system.configuration.payloadLimitBytes
            guard data.count <= limit else {
                post(.payloadFailed(continuation, HandoffError(.userInfoTooLarge,
                    "the payload is \(data.count) bytes, over this device's \(limit)-byte limit")))
                return
            }
            do {
                let payload = try ActivityPayload(decoding: data, limits: PayloadLimits(maximumPayloadBytes: limit))
                post(.payloadReceived(continuation, payload, size: data.count))
            } catch {
                post(.payloadFailed(continuation, HandoffError(.handoffFailed, "the payload could not be decoded: \(error)")))
            }
        }
    }

    public func receiveContinued(_ activityIdentifier: UUID, by peer: PeerInfo) {
        post(.continuationConfirmed(activityIdentifier: activityIdentifier, by: peer))
    }

    /// A peer opens continuation streams with a token from a payload this device sent. On success
    /// the origin's activity delegate receives its end and the peer's end is returned.
    public func acceptContinuationStreams(token: Data, from peer: DeviceID) -> Result<ContinuationStreams, ContinuationStreamError> {
        let now = clock()
        let name = system.offers[peer]?.peer.name ?? peer.rawValue
        guard let entry = streamTokens.removeValue(forKey: token), entry.expires > now else {
            record(LifecycleEvent(time: now, device: info.name, kind: .streamsRefused, peer: name,
                                  detail: "unknown, used or expired stream token"))
            return .failure(.refused("unknown, used or expired stream token"))
        }
        guard let activity = activities[entry.activity], activity.supportsContinuationStreams else {
            record(LifecycleEvent(time: now, device: info.name, kind: .streamsRefused, peer: name,
                                  detail: "the activity is gone or no longer supports streams"))
            return .failure(.refused("the activity is gone or no longer supports streams"))
        }
        let (mine, theirs) = ContinuationStreams.makePipe()
        record(LifecycleEvent(time: now, device: info.name, kind: .streamsOpened, activityType: activity.activityType,
                              bundleIdentifier: activity.application?.bundleIdentifier, peer: name,
                              detail: "the origin's delegate receives its end"))
        activity.delegate?.userActivity(activity, didReceive: mine)
        onChange?()
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
        post(.activityNeedsSave(activity.identifier))
    }

    func activityBecameCurrent(_ activity: UserActivity) {
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
        record(LifecycleEvent(time: clock(), device: info.name, kind: .documentOpened, activityType: document.documentType.ubiquitousActivityType,
                              bundleIdentifier: app.bundleIdentifier, detail: document.fileURL.lastPathComponent))
    }

    func documentClosed(_ document: Document, in app: Application) {
        record(LifecycleEvent(time: clock(), device: info.name, kind: .documentClosed, activityType: document.documentType.ubiquitousActivityType,
                              bundleIdentifier: app.bundleIdentifier, detail: document.fileURL.lastPathComponent))
    }

    func systemShowsError(_ error: HandoffError, activityType: String, application: Application) {
        systemAlerts.append((application.bundleIdentifier, error))
        record(LifecycleEvent(time: clock(), device: info.name, kind: .systemShowedError, activityType: activityType,
                              bundleIdentifier: application.bundleIdentifier, errorCode: error.code.rawValue,
                              detail: "alert: \(error.code.meaning) (\(error.code.rawValue))"))
    }

    func openContinuationStreams(for activity: UserActivity, to peer: DeviceID, token: Data,
                                 completion: @escaping (ContinuationStreams?, (any Error)?) -> Void) {
        guard let transport else {
            completion(nil, ContinuationStreamError.unavailable("the device has no network"))
            return
        }
        transport.openContinuationStreams(to: peer, token: token) { [weak self] result in
            guard let self else { return }
            let now = self.clock()
            switch result {
            case .success(let streams):
                self.record(LifecycleEvent(time: now, device: self.info.name, kind: .streamsOpened, activityType: activity.activityType,
                                           bundleIdentifier: activity.application?.bundleIdentifier, peer: peer.rawValue,
                                           detail: "the continuing app has its streams"))
                completion(streams, nil)
            case .failure(let error):
                self.record(LifecycleEvent(time: now, device: self.info.name, kind: .streamsRefused, activityType: activity.activityType,
                                           peer: peer.rawValue, detail: "\(error)"))
                completion(nil, error)
            }
            self.onChange?()
        }
    }

    // MARK: The event loop

    func post(_ event: DeviceSystem.Event) {
        queue.append(event)
        guard !draining else { return }
        draining = true
        while !queue.isEmpty {
            let next = queue.removeFirst()
            let effects = system.handle(next, at: clock())
            for effect in effects { perform(effect) }
        }
        draining = false
        onChange?()
    }

    func record(_ event: LifecycleEvent) {
        lifecycle.append(event)
        if lifecycle.count > lifecycleCapacity { lifecycle.removeFirst(lifecycle.count - lifecycleCapacity) }
        onLifecycleEvent?(event)
    }

    private func perform(_ effect: DeviceSystem.Effect) {
        switch effect {
        case .record(let event):
            record(event)
        case .advertise(let ad):
            transport?.advertise(ad, from: info)
        case .withdraw:
            transport?.withdraw(from: info)
        case .save(let id, _):
            if let activity = activities[id] { save(activity) }
        case .callWillContinue(let id, let bundle, let type):
            guard let app = application(bundle) else {
                post(.payloadFailed(id, HandoffError(.handoffFailed, "\(bundle) is not installed")))
                return
            }
            let accepted = app.delegate?.application(app, willContinueUserActivityWithType: type) ?? true
            post(.willContinueAnswered(id, accepted: accepted))
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
            if let app = application(bundle) {
                if let delegate = app.delegate {
                    delegate.application(app, didFailToContinueUserActivityWithType: type, error: error)
                } else {
                    systemShowsError(error, activityType: type, application: app)
                }
            }
        case .encodePayload(let request, let id):
            guard let activity = activities[id], activity.isValid else {
                post(.payloadUnavailable(request, reason: "the activity was invalidated"))
                return
            }
            var token = Data()
            if activity.supportsContinuationStreams {
                token = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
                streamTokens[token] = (id, clock().addingTimeInterval(streamTokenLifetime))
            }
            post(.payloadEncoded(request, activity.makePayload(streamToken: token).encoded()))
        case .sendPayload(let request, let peer, let data):
            transport?.sendPayload(request, to: peer, result: .success(data))
        case .sendPayloadError(let request, let peer, let error):
            transport?.sendPayload(request, to: peer, result: .failure(error))
        case .notifyContinued(let peer, let activityIdentifier):
            transport?.notifyContinued(activityIdentifier, to: peer)
        case .callWasContinued(let id):
            if let activity = activities[id] { activity.delegate?.userActivityWasContinued(activity) }
        }
    }

    /// The save callbacks, in Apple's order: the delegate's `userActivityWillSave`, then (for an
    /// activity shared by responders) `userInfo` emptied and every responder's
    /// `updateUserActivityState`, then the app delegate's `didUpdate`.
    private func save(_ activity: UserActivity) {
        let now = clock()
        let type = activity.activityType
        let bundle = activity.application?.bundleIdentifier
        savingActivity = activity.identifier
        defer { savingActivity = nil }
        if let delegate = activity.delegate {
            delegate.userActivityWillSave(activity)
            record(LifecycleEvent(time: now, device: info.name, kind: .userActivityWillSave, activityType: type, bundleIdentifier: bundle))
        }
        let responders = activity.liveResponders
        if !responders.isEmpty {
            activity.userInfo = [:]
            for responder in responders { responder.updateUserActivityState(activity) }
            record(LifecycleEvent(time: now, device: info.name, kind: .updateUserActivityState, activityType: type,
                                  bundleIdentifier: bundle, detail: "\(responders.count) responder(s)"))
        }
        if let app = activity.application, let delegate = app.delegate {
            delegate.application(app, didUpdate: activity)
            record(LifecycleEvent(time: now, device: info.name, kind: .didUpdate, activityType: type, bundleIdentifier: bundle))
        }
        activity.needsSave = false
    }

    private func deliver(_ id: ContinuationID, _ bundle: String, _ payload: ActivityPayload, origin: DeviceID) {
        guard let app = application(bundle) else {
            post(.payloadFailed(id, HandoffError(.handoffFailed, "\(bundle) is not installed")))
            return
        }
        let activity = UserActivity(received: payload, application: app, origin: origin)
        received[id] = activity
        var restored = 0
        let now = clock()
        let handler: ([Responder]) -> Void = { [weak self] objects in
            guard let self else { return }
            for object in objects { object.restoreUserActivityState(activity) }
            restored += objects.count
            self.record(LifecycleEvent(time: self.clock(), device: self.info.name, kind: .restoreUserActivityState,
                                       activityType: activity.activityType, bundleIdentifier: bundle,
                                       detail: "\(objects.count) object(s) restored"))
        }
        let handled = app.delegate?.application(app, continue: activity, restorationHandler: handler) ?? false
        record(LifecycleEvent(time: now, device: info.name, kind: .continueCalled, activityType: activity.activityType,
                              bundleIdentifier: bundle, detail: handled ? "the app handled the activity" : "the app returned false"))
        received[id] = nil
        post(.continuationHandled(id, handled: handled, restoredObjects: restored))
    }
}
