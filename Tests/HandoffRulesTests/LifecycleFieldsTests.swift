import Foundation
import HandoffCore
import HandoffHeadless
import HandoffRecordings
import Testing

/// `LifecycleEvent(fields:)` is the exact inverse of `fields`: every kind, with every shape of
/// its nested values, reads back equal, from the fields and from a recording's JSON lines; bad
/// fields are errors naming the field.
@Suite struct LifecycleFieldsTests {
    /// A time the fields write exactly (milliseconds).
    static let time = LifecycleEntry(fields: [
        .init("time", .string("2026-11-28T06:30:00.250Z")), .init("device", .string("Laptop")),
        .init("kind", .string("withdrawn")),
    ])!.time
    static let peer = PeerReference(id: "peer-id", name: "Phone 1")
    static let id = ContinuationID(rawValue: UUID(uuidString: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")!)
    static let activity = ActivityReference(
        id: UUID(uuidString: "11111111-2222-3333-4444-555555555555")!, activityType: "com.example.reader.reading",
        title: "Moby-Dick", bundleIdentifier: "com.example.reader")
    static let untitled = ActivityReference(
        id: UUID(uuidString: "11111111-2222-3333-4444-666666666666")!, activityType: "com.example.map.viewing",
        bundleIdentifier: "com.example.map")
    static let identity = AdvertisementIdentity(
        device: "laptop-id", serial: 7, activityTypeHash: ActivityTypeHash(activityType: "com.example.reader.reading"))
    static let info: UserInfoSnapshot = [
        "page": .integer(3), "ratio": .double(0.5), "when": .date(time), "tags": .array([.string("a"), .bool(true)]),
    ]
    static let domain = AssociatedDomain(host: "maps.example.com")
    static let wildcard = AssociatedDomain(host: "example.com", isWildcard: true)
    static let error = HandoffError(.remoteApplicationTimedOut, "no answer in 5 s")
    static let unavailable: [Unavailability] = [
        .noAppClaimsType, .teamDiffers(bundleIdentifiers: ["com.other.a", "com.other.b"]), .expired, .notEligible,
    ]
    static let routes: [Route] =
        [
            .app(bundleIdentifier: "com.example.reader", activityType: "com.example.reader.reading"),
            .web(browserBundleIdentifier: "com.example.browser"), .web(browserBundleIdentifier: nil),
        ] + unavailable.map { .browser(bundleIdentifier: "com.example.browser", because: $0) }
        + unavailable.map { .unavailable($0) }
    static let outcomes: [AssociationOutcome] = [
        .approved, .notListed(approving: []), .notListed(approving: ["T.a", "T.b"]), .notFound, .httpStatus(500),
        .notJSON("it starts “<”"), .malformed("no activitycontinuation"), .wrongContentType(""),
        .redirected(status: 301, location: "https://elsewhere.example/x y"), .tooLarge(bytes: 200_000),
        .timedOut(seconds: 2.5), .unreachable("connection refused"),
    ]
    static let phases: [StepPhase] = [
        .launch(bundleIdentifier: "com.example.reader", .cold), .launch(bundleIdentifier: "com.example.reader", .warm),
        .willContinue(bundleIdentifier: "com.example.reader", activityType: "t"), .fetch(from: "Laptop"),
        .continue(bundleIdentifier: "com.example.reader", activityType: "t"), .save(activityType: "t"),
        .send(bytes: 1200, to: "Phone"), .restore(bundleIdentifier: "com.example.reader", objects: 2),
        .streams(from: "Laptop"),
    ]

    /// Occurrences of `kind`, every shape of its values. The switch is exhaustive: a new kind does
    /// not build until it has samples here.
    static func samples(_ kind: LifecycleEvent.Kind) -> [LifecycleEvent.Occurrence] {
        let (a, p, c) = (activity, peer, id)
        switch kind {
        case .activityCreated: return [.activityCreated(a), .activityCreated(untitled)]
        case .becameCurrent: return [.becameCurrent(a)]
        case .resignedCurrent: return [.resignedCurrent(a)]
        case .invalidated: return [.invalidated(untitled)]
        case .needsSaveSet: return [.needsSaveSet(a)]
        case .willSave: return [.willSave(a, continuation: nil), .willSave(a, continuation: c)]
        case .updateUserActivityState: return [.updateUserActivityState(a, responders: 2, continuation: c)]
        case .didUpdate: return [.didUpdate(a, continuation: nil)]
        case .saved:
            return [
                .saved(a, reason: .coalesced, userInfo: info, continuation: nil),
                .saved(a, reason: .beforeSending, userInfo: [:], continuation: c),
            ]
        case .saveSkipped:
            return [
                .saveSkipped(a, lastSaved: nil, changedAt: nil, continuation: c),
                .saveSkipped(a, lastSaved: time, changedAt: time.addingTimeInterval(1), continuation: c),
            ]
        case .sceneDidUpdate: return [.sceneDidUpdate(a, scene: "Scene 1", continuation: c)]
        case .advertised:
            return [.advertised(a, identity, isEligible: true), .advertised(a, identity, isEligible: false)]
        case .withdrawn: return [.withdrawn(.noCurrentActivity), .withdrawn(.expired)]
        case .expired: return [.expired(a)]
        case .offerReceived: return routes.map { .offerReceived(p, identity, route: $0) }
        case .offerUpdated: return [.offerUpdated(p, identity, route: routes[0])]
        case .offerWithdrawn: return [.offerWithdrawn(p)]
        case .offerExpired: return [.offerExpired(p)]
        case .continueChosen: return routes.prefix(3).map { .continueChosen(c, p, route: $0) }
        case .choiceIgnored:
            return [.choiceIgnored(p, .busy), .choiceIgnored(p, .noOffer)]
                + unavailable.map {
                    .choiceIgnored(p, .unavailable($0))
                }
        case .applicationLaunched:
            return [
                .applicationLaunched(c, bundleIdentifier: "com.example.reader", launch: .cold),
                .applicationLaunched(nil, bundleIdentifier: "com.example.reader", launch: .warm),
            ]
        case .applicationTerminated: return [.applicationTerminated(bundleIdentifier: "com.example.reader")]
        case .sceneWillConnect:
            return [
                .sceneWillConnect(c, bundleIdentifier: "b", scene: "Scene 1", handoffUserActivityType: "t"),
                .sceneWillConnect(nil, bundleIdentifier: "b", scene: "Scene 2", handoffUserActivityType: nil),
            ]
        case .willContinue:
            return [.willContinue(c, p, bundleIdentifier: "b", activityType: "t", appShowsProgress: false)]
        case .sceneWillContinue:
            return [.sceneWillContinue(c, p, bundleIdentifier: "b", scene: "Scene 1", activityType: "t")]
        case .fetchStarted: return [.fetchStarted(c, p, timeout: 5), .fetchStarted(c, p, timeout: 0.75)]
        case .payloadReceived:
            return [
                .payloadReceived(c, p, activityType: "t", bytes: 812, milliseconds: 15.279173851013184, userInfo: info)
            ]
        case .latePayloadIgnored: return [.latePayloadIgnored(c, bytes: 10)]
        case .payloadSizeWarning: return [.payloadSizeWarning(c, bytes: 4000, guidance: 3072)]
        case .siteAssociationChecked:
            return outcomes.map { outcome in
                .siteAssociationChecked(
                    SiteAssociationCheck(
                        bundleIdentifier: "com.example.maps", applicationIdentifier: "TEAM.com.example.maps",
                        domain: outcome == .approved ? wildcard : domain, outcome: outcome, checkedAt: time,
                        expiresAt: time.addingTimeInterval(3600), milliseconds: outcome == .notFound ? nil : 4.5),
                    keptAnswer: outcome.isAnswer ? nil : outcomes[2])
            }
        case .webRouted:
            return [
                .webRouted(
                    c, host: "maps.example.com", bundleIdentifier: "com.example.maps",
                    .approved(applicationIdentifier: "TEAM.com.example.maps", domain: domain)),
                .webRouted(c, host: "maps.example.com", bundleIdentifier: "com.example.browser", .noAppNamesHost),
                .webRouted(c, host: "maps.example.com", bundleIdentifier: "com.example.browser", .notApproved([])),
                .webRouted(
                    c, host: "maps.example.com", bundleIdentifier: "com.example.browser",
                    .notApproved(
                        outcomes.map {
                            WebRoutingRefusal(
                                bundleIdentifier: "com.example.maps", applicationIdentifier: "T.m", domain: wildcard,
                                outcome: $0)
                        } + [
                            WebRoutingRefusal(
                                bundleIdentifier: "com.example.maps", applicationIdentifier: "T.m", domain: domain,
                                outcome: nil)
                        ])),
            ]
        case .continueCalled: return [.continueCalled(c, bundleIdentifier: "b", activityType: "t")]
        case .sceneContinue: return [.sceneContinue(c, bundleIdentifier: "b", scene: "Scene 1", activityType: "t")]
        case .restoreUserActivityState:
            return [.restoreUserActivityState(c, bundleIdentifier: "b", objects: 2, userInfo: info)]
        case .continued:
            return [
                .continued(c, p, bundleIdentifier: "b", .application(restoredObjects: 1), milliseconds: 16.25),
                .continued(c, p, bundleIdentifier: "b", .scene("Scene 1"), milliseconds: 3),
            ]
        case .notHandled:
            return [
                NotHandledReason.returnedFalse, .sceneContinueNotImplemented(scene: "Scene 1"),
                .noSceneDelegate(scene: "Scene 1", .noConfiguration),
                .noSceneDelegate(scene: "Scene 1", .noDelegateClassName),
                .noSceneDelegate(scene: "Scene 1", .unknownClass("ReaderSceneDelegate")),
            ].map { .notHandled(c, p, bundleIdentifier: "b", milliseconds: 9, reason: $0) }
        case .continuationFailed:
            return [
                .continuationFailed(c, p, bundleIdentifier: "b", activityType: "t", error),
                .continuationFailed(c, p, bundleIdentifier: nil, activityType: nil, HandoffError(.userCancelled, "x")),
            ]
        case .sceneDidFailToContinue:
            return [.sceneDidFailToContinue(nil, bundleIdentifier: "b", scene: "Scene 1", activityType: "t", error)]
        case .systemShowedError: return [.systemShowedError(bundleIdentifier: "b", activityType: "t", error)]
        case .payloadRequested: return [.payloadRequested(c, p, a), .payloadRequested(c, p, nil)]
        case .payloadSent: return [.payloadSent(c, p, a, bytes: 300, userInfo: info)]
        case .payloadRefused: return [.payloadRefused(c, p, HandoffError(.userInfoTooLarge, "over the limit"))]
        case .wasContinued: return [.wasContinued(c, p, a)]
        case .streamsOpened:
            return [.streamsOpened(c, p, a, side: .origin), .streamsOpened(nil, p, a, side: .continuing)]
        case .streamsRefused:
            return [
                .streamsRefused(c, p, activityType: "t", reason: "refused"),
                .streamsRefused(nil, p, activityType: nil, reason: "no streams"),
            ]
        case .documentOpened: return [.documentOpened(bundleIdentifier: "b", activityType: "t", file: "a.txt")]
        case .documentClosed: return [.documentClosed(bundleIdentifier: "b", activityType: nil, file: "a.txt")]
        case .stepPaused: return phases.map { .stepPaused(c, $0) } + [.stepPaused(nil, phases[0])]
        case .faultInjected: return Fault.allCases.map { .faultInjected(nil, $0) } + [.faultInjected(c, .noAnswer)]
        }
    }

    static var everyEvent: [LifecycleEvent] {
        LifecycleEvent.Kind.allCases.flatMap { samples($0) }.map { LifecycleEvent(time: time, device: "Laptop", $0) }
    }

    @Test func everyKindReadsBackFromItsFields() throws {
        let events = Self.everyEvent
        #expect(Set(events.map(\.kind)) == Set(LifecycleEvent.Kind.allCases))
        for event in events {
            let fields = event.fields.map { LifecycleEntry.Field($0.key, $0.value) }
            let read = try LifecycleEvent(fields: fields)
            #expect(read == event, "\(event.kind.rawValue): \(event.summary)")
        }
    }

    @Test func everyKindReadsBackFromARecording() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fields-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let events = Self.everyEvent
        do {
            let recorder = try LifecycleRecorder(
                path: file.path, device: PeerInfo(id: "laptop-id", name: "Laptop", kind: .laptop), account: "demo")
            for event in events { recorder.record(event) }
        }
        let recording = try LifecycleRecording(contentsOf: file.path)
        let read = try recording.lifecycleEvents()
        #expect(read.count == events.count)
        for (event, back) in zip(events, read) {
            #expect(back == event, "\(event.kind.rawValue): \(event.summary)")
        }
    }

    func error(_ fields: [LifecycleEntry.Field]) -> LifecycleFieldError? {
        do {
            _ = try LifecycleEvent(fields: fields)
            return nil
        } catch {
            return error
        }
    }

    func fields(_ occurrence: LifecycleEvent.Occurrence) -> [LifecycleEntry.Field] {
        LifecycleEvent(time: Self.time, device: "Laptop", occurrence).fields.map {
            LifecycleEntry.Field($0.key, $0.value)
        }
    }

    @Test func everyMissingFieldIsNamed() {
        // Each field the reader needs, taken away in turn, is named; the presentation's own
        // (detail, explanation, route, outcomes…) are not needed.
        let needed = fields(
            .payloadReceived(Self.id, Self.peer, activityType: "t", bytes: 9, milliseconds: 1, userInfo: [:]))
        for field in needed where !["detail", "explanation"].contains(field.key) {
            let error = error(needed.filter { $0.key != field.key })
            #expect(error?.field == field.key, "\(field.key): \(String(describing: error))")
            #expect(error?.description.contains("missing") == true || field.key == "kind")
        }
    }

    @Test func wrongTypesAndValuesAreNamed() {
        func replacing(
            _ key: String, with value: LifecycleField, in fields: [LifecycleEntry.Field]
        ) -> LifecycleFieldError? {
            error(fields.map { $0.key == key ? LifecycleEntry.Field(key, value) : $0 })
        }
        let advertised = fields(.advertised(Self.activity, Self.identity, isEligible: true))
        #expect(
            replacing("serial", with: .string("7"), in: advertised)?.description
                == "\"serial\" must be an integer, not a string")
        #expect(replacing("serial", with: .integer(-1), in: advertised)?.field == "serial")
        #expect(
            replacing("typeHash", with: .string("zz"), in: advertised)?.description.contains("14 hex digits") == true)
        #expect(
            replacing("activity", with: .string("not-a-uuid"), in: advertised)?.description.contains("must be a UUID")
                == true)
        #expect(
            replacing("eligible", with: .integer(1), in: advertised)?.description
                == "\"eligible\" must be true or false, not an integer")
        #expect(
            replacing("kind", with: .string("teleported"), in: advertised)?.description.contains("names no event kind")
                == true)
        #expect(replacing("time", with: .string("yesterday"), in: advertised)?.field == "time")
        let failed = fields(
            .continuationFailed(Self.id, Self.peer, bundleIdentifier: nil, activityType: nil, Self.error))
        #expect(
            replacing("errorCode", with: .integer(4612), in: failed)?.description.contains("4608–4611 or 3072") == true)
        let routed = fields(
            .webRouted(Self.id, host: "h", bundleIdentifier: "b", .notApproved([])))
        #expect(replacing("refusals", with: .string("[1]"), in: routed)?.field == "refusals[0]")
        #expect(
            replacing("refusals", with: .string("[{\"bundleIdentifier\":\"b\"}]"), in: routed)?.field
                == "refusals[0].applicationIdentifier")
        #expect(error(advertised + [advertised[0]])?.description == "\"time\" appears twice")
    }
}
