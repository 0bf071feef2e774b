import Foundation

extension Device {
    // MARK: The interpreter

    func perform(_ effect: DeviceSystem.Effect) {
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
                _ = connectScene(
                    in: app, options: Scene.ConnectionOptions(handoffUserActivityType: type), continuation: continuation
                )
            }
        case .callWillContinue(let id, let bundle, let type):
            guard let app = application(bundle) else {
                post(.payloadFailed(id, HandoffError(.handoffFailed, "\(bundle) is not installed")))
                return
            }
            if app.usesScenes {
                let scene =
                    app.keyScene
                    ?? connectScene(
                        in: app, options: Scene.ConnectionOptions(handoffUserActivityType: type),
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
                    record(
                        .sceneDidFailToContinue(
                            nil, bundleIdentifier: bundle, scene: scene.name, activityType: type, error))
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
            guard let activity = activities[id],
                activity.isValid || system.configuration.mutants.contains(.continueInvalidated)
            else {
                post(.payloadUnavailable(request, reason: "the activity was invalidated"))
                return
            }
            var token = Data()
            if activity.supportsContinuationStreams {
                let fresh = StreamToken.random()
                let now = clock()
                streamTokens.grant(
                    StreamGrant(
                        activity: id, continuation: continuation, expires: now.addingTimeInterval(streamTokenLifetime)),
                    for: fresh, at: now)
                token = fresh.bytes
            }
            var payload = activity.makePayload(streamToken: token)
            let struck = faults.faultsOnPayload(answering: request, of: continuation)
            for fault in struck { record(.faultInjected(continuation, fault)) }
            if struck.contains(.oversizePayload) {
                // Padding past the limit: the origin's own size check refuses it.
                payload.userInfo["lab.padding"] = .data(Data(count: system.configuration.payloadLimitBytes + 1))
            }
            if struck.contains(.newerVersion) {
                payload.userInfo[Self.handoffVersionKey] = Self.nextVersion(
                    after: payload.userInfo[Self.handoffVersionKey])
            }
            // iCloud file URLs leave relative to the container: the receiver resolves them in its
            // own. The lifecycle keeps the app's userInfo; the bytes carry the references.
            var wire = payload
            if let container = ubiquityContainerURL {
                wire.userInfo = UbiquityContainer.references(in: payload.userInfo, container: container)
            }
            let encoded = wire.encoded()
            StageMarks.mark(.payloadEncoded)
            if encoded.count <= system.configuration.payloadLimitBytes * 2 {
                traffic.sent = DeviceTraffic.Payload(
                    continuation: continuation, peer: nil, bytes: encoded, time: clock())
            }
            post(.payloadEncoded(request, encoded, userInfo: payload.userInfo))
        case .sendPayload(let request, let peer, let data):
            let delay = faults.delay(answering: request, bytes: data.count)
            transport?.sendPayload(request, to: peer, result: .success(data), after: delay)
        case .sendPayloadError(let request, let peer, let error):
            faults.errorAnswers(request)
            transport?.sendPayload(request, to: peer, result: .failure(error), after: 0)
        case .notifyContinued(let peer, let activityIdentifier, let continuation):
            transport?.notifyContinued(activityIdentifier, continuation: continuation, to: peer)
        case .checkSiteAssociations(let bundle, let appID, let domains):
            siteAssociationVerifier?(
                SiteAssociationRequest(bundleIdentifier: bundle, applicationIdentifier: appID, domains: domains))
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
            if let scene = app.connectedScenes.first(where: { $0.userActivity === activity }) ?? app.keyScene,
                let delegate = scene.delegate
            {
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
        grantScopedURLs(of: id, to: app)
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
                self.record(
                    .restoreUserActivityState(
                        id, bundleIdentifier: bundle, objects: objects.count, userInfo: activity.userInfo))
            }
        }
        // Bent on purpose (``Mutant/restoreBeforeContinue``): the restoration runs, and is
        // recorded, before `continue` is.
        let restoresFirst = system.configuration.mutants.contains(.restoreBeforeContinue)
        if !restoresFirst {
            record(.continueCalled(id, bundleIdentifier: bundle, activityType: activity.activityType))
        }
        // The lab's continue-false fault: as if the app's continue returned false at once.
        let handled =
            strikes(.continueFalse, id)
            ? false
            : app.delegate?.application(app, continue: activity, restorationHandler: handler) ?? false
        if restoresFirst {
            record(.continueCalled(id, bundleIdentifier: bundle, activityType: activity.activityType))
        }
        // After the restorations held in step mode, if any.
        step(nil, continuation: id) { [weak self] in
            guard let self else { return }
            if !handled, let document = self.reopenDocument(of: activity, in: app, continuation: id) {
                self.post(
                    .continuationHandled(id, .handled(.documentReopened(file: document.fileURL.lastPathComponent))))
                return
            }
            self.post(
                .continuationHandled(
                    id, handled ? .handled(.application(restoredObjects: restored)) : .notHandled(.returnedFalse)))
        }
    }

    /// AppKit's own restoration of a document activity: on a laptop, when a document-based app's
    /// `continue` returned false or is not implemented and the activity is an iCloud document's
    /// automatic one (its type is a document type's `NSUbiquitousDocumentUserActivityType`, its
    /// document URL in this device's container), the system opens the document
    /// (`NSDocumentController.openDocument(withContentsOf:display:)`) and sends it
    /// `restoreUserActivityState` (Handoff Programming Guide, "Supporting a User Activity in
    /// Document-Based Apps"). The URL needs no security-scoped access then (the guide's
    /// exception). Nil when the rule does not apply or the document cannot be opened.
    private func reopenDocument(
        of activity: UserActivity, in app: Application, continuation id: ContinuationID
    ) -> Document? {
        guard info.kind == .laptop, !app.usesScenes, let container = ubiquityContainerURL,
            case .url(let url)? = activity.userInfo[UserActivity.documentURLKey],
            UbiquityContainer.contains(url, in: container),
            let type = app.manifest.documentTypes.first(where: { $0.ubiquitousActivityType == activity.activityType })
        else { return nil }
        SecurityScopedResources.revoke(url)
        guard let document = try? app.openDocument(at: url, contentType: type.contentTypes.first ?? type.name) else {
            return nil
        }
        document.restoreUserActivityState(activity)
        record(
            .restoreUserActivityState(
                id, bundleIdentifier: app.bundleIdentifier, objects: 1, userInfo: activity.userInfo))
        return document
    }

    /// Grants `app` security-scoped access to the file URLs resolved from iCloud references when
    /// the payload of continuation `id` arrived (``resolvingUbiquitousURLs(_:for:)``).
    private func grantScopedURLs(of id: ContinuationID, to app: Application) {
        guard let scoped = scopedURLs, scoped.continuation == id else { return }
        scopedURLs = nil
        for url in scoped.urls { SecurityScopedResources.grant(url, to: app.bundleIdentifier, on: self) }
    }

    /// `scene(_:continue:)` on the scene the activity's `targetContentIdentifier` picks (Apple's
    /// activation conditions), else a new scene when the app supports several, else the key scene.
    private func deliverToScene(_ id: ContinuationID, _ app: Application, _ activity: UserActivity) {
        let scene: Scene
        if let chosen = Scene.choose(for: activity.targetContentIdentifier, among: app.connectedScenes) {
            scene = chosen
        } else if app.manifest.sceneManifest?.supportsMultipleScenes == true || app.connectedScenes.isEmpty {
            scene = connectScene(
                in: app, options: Scene.ConnectionOptions(handoffUserActivityType: activity.activityType),
                continuation: id)
        } else {
            scene = app.connectedScenes[0]
        }
        app.activate(scene)
        record(
            .sceneContinue(
                id, bundleIdentifier: app.bundleIdentifier, scene: scene.name, activityType: activity.activityType))
        guard let delegate = scene.delegate else {
            let problem = scene.setupProblem ?? .noConfiguration
            post(.continuationHandled(id, .notHandled(.noSceneDelegate(scene: scene.name, problem))))
            return
        }
        // The lab's connection-options-only fault: as if the scene delegate had no
        // scene(_:continue:) and looked for the activity only in its connection options.
        if strikes(.connectionOptionsOnly, id) {
            post(.continuationHandled(id, .notHandled(.sceneContinueNotImplemented(scene: scene.name))))
            return
        }
        scene.continueIsNotImplemented = false
        delegate.scene(scene, continue: activity)
        let outcome: ContinueOutcome =
            scene.continueIsNotImplemented
            ? .notHandled(.sceneContinueNotImplemented(scene: scene.name)) : .handled(.scene(scene.name))
        post(.continuationHandled(id, outcome))
    }
}
