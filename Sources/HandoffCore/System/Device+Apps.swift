import Foundation

extension Device {
    // MARK: Apps

    /// Installs an app; returns its application object. An app with a scene manifest names its
    /// scene delegate class there; `sceneDelegates` are the classes it links.
    @discardableResult
    public func install(
        _ manifest: AppManifest, delegate: (any ApplicationDelegate)? = nil,
        sceneDelegates: [any SceneDelegate.Type] = []
    ) -> Application {
        let app = Application(
            manifest: manifest, delegate: delegate, sceneDelegateClasses: sceneDelegates, device: self)
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
        SecurityScopedResources.revokeAll(of: app.bundleIdentifier, on: self)
        post(.appTerminated(bundleIdentifier: app.bundleIdentifier))
    }

    /// Connects a new scene to `app` (a launch, a continuation or a request for a new window),
    /// with a delegate of the class its scene manifest names.
    func connectScene(in app: Application, options: Scene.ConnectionOptions, continuation: ContinuationID?) -> Scene {
        app.sceneSerial += 1
        let configuration = app.sceneConfiguration
        let session = SceneSession(
            persistentIdentifier: "\(app.manifest.displayName)-\(app.sceneSerial)",
            role: configuration?.role ?? "UIWindowSceneSessionRoleApplication",
            configurationName: configuration?.name)
        let delegateClass = app.sceneDelegateClass()
        let delegate: (any SceneDelegate)? = (try? delegateClass.get()).map { $0.init() }
        let scene = Scene(session: session, delegate: delegate, application: app)
        if case .failure(let problem) = delegateClass { scene.setupProblem = problem }
        app.connectedScenes.insert(scene, at: 0)
        record(
            .sceneWillConnect(
                continuation, bundleIdentifier: app.bundleIdentifier, scene: scene.name,
                handoffUserActivityType: options.handoffUserActivityType))
        delegate?.scene(scene, willConnectTo: session, options: options)
        return scene
    }

    /// The device's current activity object.
    public var currentActivity: UserActivity? { system.currentActivity.flatMap { activities[$0] } }

    /// The activity object with this identifier, if it is still valid on this device.
    public func activity(_ id: UUID) -> UserActivity? { activities[id] }

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
        if faults.forgetsNeedsSave() {
            // As if the app never set it: the flag goes back down unseen (armed once, until the
            // next payload request: FaultPlan).
            record(.faultInjected(nil, .forgetNeedsSave))
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
        if activities.index(forKey: activity.identifier) == nil {
            // A continued activity the app makes current is adopted: this device now offers it,
            // so it can be handed back.
            guard activity.isReceived, activity.isValid else { return }
            activity.isAdopted = true
            activities[activity.identifier] = activity
        }
        // The system is told the activity's properties first, unless it holds them already and
        // nothing is queued before them: that event would change nothing (one event less on the
        // offer's path, where the activity was just made and told).
        let snapshot = activity.snapshot
        if !queue.isEmpty || !system.holds(snapshot) { post(.activityChanged(snapshot)) }
        post(.activityBecameCurrent(activity.identifier))
    }

    func activityResignedCurrent(_ activity: UserActivity) {
        post(.activityResignedCurrent(activity.identifier))
    }

    func activityInvalidated(_ activity: UserActivity) {
        if system.configuration.mutants.contains(.continueInvalidated), activities[activity.identifier] != nil {
            // Bent on purpose (``Mutant/continueInvalidated``): kept, so it can still be served.
            post(.activityInvalidated(activity.identifier))
            return
        }
        guard activities.removeValue(forKey: activity.identifier) != nil else { return }
        streamTokens.revoke(activity: activity.identifier)
        post(.activityInvalidated(activity.identifier))
    }

    func documentOpened(_ document: Document, in app: Application) {
        record(
            .documentOpened(
                bundleIdentifier: app.bundleIdentifier,
                activityType: document.isUbiquitous ? document.documentType.ubiquitousActivityType : nil,
                file: document.fileURL.lastPathComponent))
    }

    func documentClosed(_ document: Document, in app: Application) {
        record(
            .documentClosed(
                bundleIdentifier: app.bundleIdentifier,
                activityType: document.isUbiquitous ? document.documentType.ubiquitousActivityType : nil,
                file: document.fileURL.lastPathComponent))
    }

    func systemShowsError(_ error: HandoffError, activityType: String, application: Application) {
        systemAlerts.append((application.bundleIdentifier, error))
        record(.systemShowedError(bundleIdentifier: application.bundleIdentifier, activityType: activityType, error))
    }
}
