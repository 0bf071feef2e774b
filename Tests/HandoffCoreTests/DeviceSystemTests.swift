import Foundation
import HandoffCore
import Testing

/// Drives a ``DeviceSystem`` and asserts the complete effect list of every transition, records
/// included (in the style of TCA's exhaustive TestStore): an effect nobody expected fails the test.
struct SystemHarness {
    var system: DeviceSystem
    var now: Date

    init(_ device: PeerInfo, configuration: DeviceConfiguration = DeviceConfiguration(), at now: Date) {
        system = DeviceSystem(device: device, configuration: configuration)
        self.now = now
    }

    /// A record effect of this device, stamped now.
    func record(_ occurrence: LifecycleEvent.Occurrence) -> DeviceSystem.Effect {
        .record(LifecycleEvent(time: now, device: system.device.name, occurrence))
    }

    /// Handles `event` (after moving the clock by `after` seconds) and expects exactly `expected`.
    mutating func send(
        _ event: DeviceSystem.Event, after seconds: TimeInterval = 0,
        _ expected: (SystemHarness) -> [DeviceSystem.Effect], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        now += seconds
        let idle = Self.isIdleTick(event, system, at: now)
        let actual = system.handle(event, at: now)
        #expect(!idle || actual.isEmpty, "a tick not due made effects: \(actual)", sourceLocation: sourceLocation)
        let wanted = expected(self)
        guard actual != wanted else { return }
        let describe = { (effects: [DeviceSystem.Effect]) in effects.map { "  \($0)" }.joined(separator: "\n") }
        Issue.record(
            Comment(
                rawValue: "effects of \(event) differ\nexpected:\n\(describe(wanted))\nactual:\n\(describe(actual))"),
            sourceLocation: sourceLocation)
    }

    /// Handles `event` without checking its effects (for setting up a state already tested).
    mutating func given(_ event: DeviceSystem.Event, after seconds: TimeInterval = 0) {
        now += seconds
        let idle = Self.isIdleTick(event, system, at: now)
        let effects = system.handle(event, at: now)
        #expect(!idle || effects.isEmpty, "a tick not due made effects: \(effects)")
    }

    /// Whether `event` is a tick that ``DeviceSystem/tickIsDue(at:)`` says is not due (the
    /// runtime does not post those): every tick the tests send checks that it then does nothing.
    static func isIdleTick(_ event: DeviceSystem.Event, _ system: DeviceSystem, at now: Date) -> Bool {
        guard case .tick = event else { return false }
        return !system.tickIsDue(at: now)
    }
}

@Suite("DeviceSystem state machine: every transition, complete effect lists")
struct DeviceSystemTests {
    static let t0 = Date(timeIntervalSinceReferenceDate: 1_000_000)
    let me = PeerInfo(id: "me", name: "Me", kind: .phone)
    let laptop = PeerInfo(id: "laptop", name: "Laptop", kind: .laptop)
    let continuation = ContinuationID(rawValue: UUID(uuidString: "00000000-0000-4000-8000-0000000000C1")!)
    let readingType = "com.example.reader.reading"
    let team = "ABCDE12345"

    func reading(
        _ id: UUID = UUID(uuidString: "00000000-0000-4000-8000-00000000000A")!, eligible: Bool = true,
        web: Bool = false,
        expires: Date? = nil
    ) -> ActivitySnapshot {
        ActivitySnapshot(
            id: id, bundleIdentifier: "com.example.reader", teamIdentifier: team, activityType: readingType,
            title: "Moby-Dick", isEligibleForHandoff: eligible, hasWebpageURL: web, expirationDate: expires)
    }

    func manifest(
        _ bundle: String, types: [String], team: String = "ABCDE12345", browser: Bool = false,
        domains: [String] = []
    ) -> AppManifest {
        AppManifest(
            bundleIdentifier: bundle, teamIdentifier: team, displayName: bundle,
            activityTypes: types + (browser ? [UserActivity.browsingWebType] : []),
            associatedDomains: domains.map { "activitycontinuation:\($0)" })
    }

    func advertisement(
        serial: UInt32 = 1, type: String = "com.example.reader.reading", savedAt: Date = t0,
        options: Advertisement.Options = [.isEligibleForHandoff], expires: Date? = nil
    ) -> Advertisement {
        Advertisement(
            device: laptop.id, activityTypeHash: ActivityTypeHash(activityType: type),
            teamHash: TeamHash(teamIdentifier: team), options: options, activitySerial: serial, savedAt: savedAt,
            expiresAt: expires)
    }

    func payload(
        type: String = "com.example.reader.reading", userInfo: UserInfo = ["page": 3], web: URL? = nil,
        expires: Date? = nil
    ) -> ActivityPayload {
        ActivityPayload(
            activityIdentifier: reading().id, activityType: type, title: "Moby-Dick", userInfo: userInfo,
            webpageURL: web, teamIdentifier: team, bundleIdentifier: "com.example.reader", expirationDate: expires)
    }

    // MARK: The origin

    /// The origin's first advertisement of `snapshot`.
    func advertisement(of snapshot: ActivitySnapshot) -> Advertisement {
        Advertisement(
            device: me.id, activityTypeHash: ActivityTypeHash(activityType: snapshot.activityType),
            teamHash: TeamHash(teamIdentifier: team),
            options: snapshot.isEligibleForHandoff ? [.isEligibleForHandoff] : [],
            activitySerial: 1, savedAt: Self.t0, expiresAt: snapshot.expirationDate)
    }

    /// An origin whose reading activity is current (its creation and advertisement checked).
    func origin(
        configuration: DeviceConfiguration = DeviceConfiguration(saveCoalescingInterval: 2),
        _ snapshot: ActivitySnapshot? = nil
    ) -> SystemHarness {
        let snapshot = snapshot ?? reading()
        var h = SystemHarness(me, configuration: configuration, at: Self.t0)
        h.send(.activityChanged(snapshot)) { [$0.record(.activityCreated(snapshot.reference))] }
        let ad = advertisement(of: snapshot)
        h.send(.activityBecameCurrent(snapshot.id)) {
            [$0.record(.becameCurrent(snapshot.reference)), .advertise(ad, snapshot.reference)]
        }
        return h
    }

    @Test func becomingCurrentAdvertisesAHashAndOptionsOnly() {
        let h = origin()
        #expect(h.system.currentActivity == reading().id)
        #expect(h.system.advertisement?.options == [.isEligibleForHandoff])
    }

    @Test func savingFollowsNeedsSaveAndItsCoalescingInterval() {
        var h = origin()
        let snapshot = reading()
        // Nothing marked dirty: nothing is saved, however long it waits.
        h.send(.tick, after: 30) { _ in [] }
        h.send(.activityNeedsSave(snapshot.id)) { [$0.record(.needsSaveSet(snapshot.reference))] }
        #expect(h.system.nextDeadline == h.now + 2)
        h.send(.activityNeedsSave(snapshot.id), after: 1) { [$0.record(.needsSaveSet(snapshot.reference))] }
        h.send(.tick, after: 0.9) { _ in [] }
        h.send(.tick, after: 0.1) { _ in [.save(snapshot.id, .coalesced, continuation: nil)] }
        var ad = advertisement(of: snapshot)
        ad.savedAt = h.now
        h.send(.activitySaved(snapshot.id, .coalesced, userInfo: ["page": 2], continuation: nil)) {
            [
                $0.record(.saved(snapshot.reference, reason: .coalesced, userInfo: ["page": 2], continuation: nil)),
                .advertise(ad, snapshot.reference),
            ]
        }
        h.send(.tick, after: 10) { _ in [] }
    }

    /// needsSave is not set: no save, the payload carries the state saved last, and the lifecycle says so.
    @Test func aPayloadRequestWithoutNeedsSaveSendsTheStateSavedLast() {
        var h = origin()
        let snapshot = reading()
        let request = PayloadRequestID(rawValue: 9)
        let hash = ActivityTypeHash(activityType: readingType)
        h.send(.payloadRequested(request, from: laptop, activityTypeHash: hash, continuation: continuation), after: 1) {
            [
                $0.record(.payloadRequested(continuation, PeerReference(laptop), snapshot.reference)),
                $0.record(.saveSkipped(snapshot.reference, lastSaved: nil, changedAt: nil, continuation: continuation)),
                .encodePayload(request, activity: snapshot.id, continuation: continuation),
            ]
        }
        h.send(.payloadEncoded(request, Data(count: 100), userInfo: ["page": 1])) {
            [
                $0.record(
                    .payloadSent(
                        continuation, PeerReference(laptop), snapshot.reference, bytes: 100, userInfo: ["page": 1])),
                .sendPayload(request, to: laptop.id, Data(count: 100)),
            ]
        }
    }

    /// The normal case of a real demo: the coalesced save ran before the user continued. The
    /// skipped save says "saved at T, unchanged since", never the forgotten-needsSave bug.
    @Test func aPayloadRequestAfterTheCoalescedSaveSaysTheStateIsUnchangedSinceThen() {
        var h = origin()
        let snapshot = reading()
        h.given(.activityNeedsSave(snapshot.id))
        h.given(.tick, after: 2)
        h.given(.activitySaved(snapshot.id, .coalesced, userInfo: ["page": 3], continuation: nil))
        let savedAt = h.now
        let request = PayloadRequestID(rawValue: 9)
        h.send(
            .payloadRequested(
                request, from: laptop, activityTypeHash: ActivityTypeHash(activityType: readingType),
                continuation: continuation), after: 5
        ) {
            [
                $0.record(.payloadRequested(continuation, PeerReference(laptop), snapshot.reference)),
                $0.record(
                    .saveSkipped(snapshot.reference, lastSaved: savedAt, changedAt: nil, continuation: continuation)),
                .encodePayload(request, activity: snapshot.id, continuation: continuation),
            ]
        }
        let skipped = LifecycleEvent(
            time: h.now, device: "Me",
            .saveSkipped(snapshot.reference, lastSaved: savedAt, changedAt: nil, continuation: continuation))
        #expect(skipped.summary.contains("not marked changed since"))
        for text in [skipped.summary, skipped.explanation] {
            #expect(!text.contains("needsSave was not set"), "\(text)")
            #expect(!text.contains("set needsSave whenever"), "\(text)")
        }
    }

    /// The bug rehearsed (the lab's fault, or a headless update without needsSave): the skipped
    /// save names when the state changed, and the explanation names the fix. The next save
    /// clears it.
    @Test func aPayloadRequestAfterAChangeWithoutNeedsSaveNamesTheChange() {
        var h = origin()
        let snapshot = reading()
        h.given(.activityNeedsSave(snapshot.id))
        h.given(.tick, after: 2)
        h.given(.activitySaved(snapshot.id, .coalesced, userInfo: ["page": 3], continuation: nil))
        let savedAt = h.now
        h.send(.activityChangedWithoutNeedsSave(snapshot.id), after: 3) { _ in [] }
        let changedAt = h.now
        h.send(.activityChangedWithoutNeedsSave(snapshot.id), after: 1) { _ in [] }
        let request = PayloadRequestID(rawValue: 9)
        let hash = ActivityTypeHash(activityType: readingType)
        h.send(.payloadRequested(request, from: laptop, activityTypeHash: hash, continuation: continuation), after: 5) {
            [
                $0.record(.payloadRequested(continuation, PeerReference(laptop), snapshot.reference)),
                $0.record(
                    .saveSkipped(
                        snapshot.reference, lastSaved: savedAt, changedAt: changedAt, continuation: continuation)),
                .encodePayload(request, activity: snapshot.id, continuation: continuation),
            ]
        }
        let skipped = LifecycleEvent(
            time: h.now, device: "Me",
            .saveSkipped(snapshot.reference, lastSaved: savedAt, changedAt: changedAt, continuation: continuation))
        #expect(skipped.summary.contains("needsSave was not set"))
        #expect(skipped.explanation.contains("set needsSave whenever the state changes"))
        // A save (needsSave set at last) clears it.
        h.given(.activityNeedsSave(snapshot.id))
        h.given(.tick, after: 2)
        h.given(.activitySaved(snapshot.id, .coalesced, userInfo: ["page": 9], continuation: nil))
        let second = ContinuationID()
        h.send(
            .payloadRequested(
                PayloadRequestID(rawValue: 10), from: laptop, activityTypeHash: hash, continuation: second)
        ) {
            [
                $0.record(.payloadRequested(second, PeerReference(laptop), snapshot.reference)),
                $0.record(.saveSkipped(snapshot.reference, lastSaved: $0.now, changedAt: nil, continuation: second)),
                .encodePayload(PayloadRequestID(rawValue: 10), activity: snapshot.id, continuation: second),
            ]
        }
    }

    @Test func aPayloadRequestSavesFirstWhenNeedsSaveIsSetThenSendsWhatWasSaved() {
        var h = origin()
        let snapshot = reading()
        let request = PayloadRequestID(rawValue: 9)
        let hash = ActivityTypeHash(activityType: readingType)
        h.given(.activityNeedsSave(snapshot.id))
        h.send(.payloadRequested(request, from: laptop, activityTypeHash: hash, continuation: continuation), after: 1) {
            [
                $0.record(.payloadRequested(continuation, PeerReference(laptop), snapshot.reference)),
                .save(snapshot.id, .beforeSending, continuation: continuation),
            ]
        }
        var ad = advertisement(of: snapshot)
        ad.savedAt = h.now
        h.send(.activitySaved(snapshot.id, .beforeSending, userInfo: ["page": 3], continuation: continuation)) {
            [
                $0.record(
                    .saved(
                        snapshot.reference, reason: .beforeSending, userInfo: ["page": 3], continuation: continuation)),
                .encodePayload(request, activity: snapshot.id, continuation: continuation),
                .advertise(ad, snapshot.reference),
            ]
        }
        h.send(.payloadEncoded(request, Data(count: 100), userInfo: ["page": 3])) {
            [
                $0.record(
                    .payloadSent(
                        continuation, PeerReference(laptop), snapshot.reference, bytes: 100, userInfo: ["page": 3])),
                .sendPayload(request, to: laptop.id, Data(count: 100)),
            ]
        }
        // The continuing device confirms: the delegate hears userActivityWasContinued.
        h.send(.continuationConfirmed(activityIdentifier: snapshot.id, by: laptop, continuation: continuation)) {
            [
                .callWasContinued(snapshot.id),
                $0.record(.wasContinued(continuation, PeerReference(laptop), snapshot.reference)),
            ]
        }
    }

    @Test func aRequestForAnActivityNoLongerCurrentIsRefused() {
        var h = origin()
        let request = PayloadRequestID(rawValue: 1)
        let error = HandoffError(.handoffFailed, "the activity is no longer offered by the origin")
        h.send(
            .payloadRequested(
                request, from: laptop, activityTypeHash: ActivityTypeHash(activityType: "com.other.type"),
                continuation: continuation)
        ) {
            [
                $0.record(.payloadRequested(continuation, PeerReference(laptop), nil)),
                .sendPayloadError(request, to: laptop.id, error),
                $0.record(.payloadRefused(continuation, PeerReference(laptop), error)),
            ]
        }
    }

    @Test func anIneligibleOrExpiredActivityIsRefused() {
        let request = PayloadRequestID(rawValue: 1)
        let hash = ActivityTypeHash(activityType: readingType)
        var ineligible = origin(reading(eligible: false))
        let notEligible = HandoffError(.handoffFailed, "the activity is not eligible for Handoff")
        ineligible.send(.payloadRequested(request, from: laptop, activityTypeHash: hash, continuation: continuation)) {
            [
                $0.record(.payloadRequested(continuation, PeerReference(laptop), reading(eligible: false).reference)),
                .sendPayloadError(request, to: laptop.id, notEligible),
                $0.record(.payloadRefused(continuation, PeerReference(laptop), notEligible)),
            ]
        }
        let snapshot = reading(expires: Self.t0 + 5)
        var expiring = origin(snapshot)
        // At the expiry the activity is withdrawn; a late request finds nothing current.
        expiring.send(.tick, after: 5) {
            [$0.record(.expired(snapshot.reference)), .withdraw(.expired)]
        }
        let gone = HandoffError(.handoffFailed, "the activity is no longer offered by the origin")
        expiring.send(.payloadRequested(request, from: laptop, activityTypeHash: hash, continuation: continuation)) {
            [
                $0.record(.payloadRequested(continuation, PeerReference(laptop), nil)),
                .sendPayloadError(request, to: laptop.id, gone),
                $0.record(.payloadRefused(continuation, PeerReference(laptop), gone)),
            ]
        }
    }

    @Test func anOversizedPayloadWarnsThenIsRefusedWith4611() {
        var h = origin(configuration: DeviceConfiguration(saveCoalescingInterval: 2, payloadLimitBytes: 4000))
        let snapshot = reading()
        let request = PayloadRequestID(rawValue: 2)
        h.given(
            .payloadRequested(
                request, from: laptop, activityTypeHash: ActivityTypeHash(activityType: readingType),
                continuation: continuation))
        h.given(.activitySaved(snapshot.id, .beforeSending, userInfo: [:], continuation: continuation))
        let error = HandoffError(.userInfoTooLarge, "the payload is 5000 bytes, over the 4000-byte limit")
        h.send(.payloadEncoded(request, Data(count: 5000), userInfo: [:])) {
            [
                $0.record(.payloadSizeWarning(continuation, bytes: 5000, guidance: 3072)),
                .sendPayloadError(request, to: laptop.id, error),
                $0.record(.payloadRefused(continuation, PeerReference(laptop), error)),
            ]
        }
        #expect(h.system.currentActivity == snapshot.id, "the origin keeps its activity")
    }

    @Test func anActivityInvalidatedWhileServingIsRefused() {
        var h = origin()
        let request = PayloadRequestID(rawValue: 3)
        h.given(
            .payloadRequested(
                request, from: laptop, activityTypeHash: ActivityTypeHash(activityType: readingType),
                continuation: continuation))
        h.given(.activitySaved(reading().id, .beforeSending, userInfo: [:], continuation: continuation))
        let error = HandoffError(.handoffFailed, "the activity was invalidated")
        h.send(.payloadUnavailable(request, reason: "the activity was invalidated")) {
            [
                .sendPayloadError(request, to: laptop.id, error),
                $0.record(.payloadRefused(continuation, PeerReference(laptop), error)),
            ]
        }
    }

    @Test func theHomeScreenWithdrawsTheAdvertisement() {
        var h = origin()
        h.send(.appBecameFrontmost(bundleIdentifier: nil)) {
            [$0.record(.resignedCurrent(reading().reference)), .withdraw(.noCurrentActivity)]
        }
        // The app in front again: its activity is current again, with a new serial.
        h.send(.appBecameFrontmost(bundleIdentifier: "com.example.reader")) {
            let ad = Advertisement(
                device: me.id, activityTypeHash: ActivityTypeHash(activityType: readingType),
                teamHash: TeamHash(teamIdentifier: team), options: [.isEligibleForHandoff],
                activitySerial: 2, savedAt: Self.t0)
            return [$0.record(.becameCurrent(reading().reference)), .advertise(ad, reading().reference)]
        }
        h.send(.activityInvalidated(reading().id)) {
            [$0.record(.invalidated(reading().reference)), .withdraw(.noCurrentActivity)]
        }
    }

    // MARK: Locking (issue 26 §2.6)

    /// Apple's devices remove their advertisement 8 s after lock (the notes' UAUserActivityDefaults);
    /// the activity stays current, and unlocking advertises it again with a new serial.
    @Test func aLockedOriginStopsAdvertisingEightSecondsLaterUntilUnlocked() {
        var h = origin()
        let snapshot = reading()
        h.send(.deviceLocked) { [$0.record(.deviceLocked(advertisingStopsAfter: 8))] }
        #expect(h.system.lock == .locked(since: Self.t0))
        #expect(h.system.nextDeadline == Self.t0 + 8)
        h.send(.deviceLocked, after: 1) { _ in [] }
        h.send(.tick, after: 6.9) { _ in [] }
        h.send(.tick, after: 0.1) { _ in [.withdraw(.deviceLocked)] }
        #expect(h.system.lock == .lockedNotAdvertising)
        #expect(h.system.advertisement == nil)
        #expect(h.system.currentActivity == snapshot.id)
        #expect(h.system.nextDeadline == nil)
        // Saving while locked advertises nothing.
        h.send(.activityNeedsSave(snapshot.id)) { [$0.record(.needsSaveSet(snapshot.reference))] }
        h.send(.tick, after: 2) { _ in [.save(snapshot.id, .coalesced, continuation: nil)] }
        h.send(.activitySaved(snapshot.id, .coalesced, userInfo: ["page": 4], continuation: nil)) {
            [$0.record(.saved(snapshot.reference, reason: .coalesced, userInfo: ["page": 4], continuation: nil))]
        }
        let saved = h.now
        h.send(.deviceUnlocked, after: 5) {
            var ad = advertisement(of: snapshot)
            ad.activitySerial = 2
            ad.savedAt = saved
            return [$0.record(.deviceUnlocked), .advertise(ad, snapshot.reference)]
        }
        #expect(h.system.lock == .unlocked)
        h.send(.deviceUnlocked) { _ in [] }
    }

    @Test func unlockingWithinTheDelayWithdrawsNothing() {
        var h = origin()
        h.send(.deviceLocked) { [$0.record(.deviceLocked(advertisingStopsAfter: 8))] }
        h.send(.deviceUnlocked, after: 3) { [$0.record(.deviceUnlocked)] }
        h.send(.tick, after: 10) { _ in [] }
        #expect(h.system.advertisement == advertisement(of: reading()))
    }

    @Test func anActivityMadeCurrentWhileLockedIsOfferedOnlyOnceUnlocked() {
        var h = SystemHarness(me, configuration: DeviceConfiguration(advertisingAfterLock: 0), at: Self.t0)
        // Locked with nothing current: nothing to withdraw.
        h.send(.deviceLocked) { [$0.record(.deviceLocked(advertisingStopsAfter: 0))] }
        #expect(h.system.lock == .lockedNotAdvertising)
        let snapshot = reading()
        h.send(.activityChanged(snapshot)) { [$0.record(.activityCreated(snapshot.reference))] }
        h.send(.activityBecameCurrent(snapshot.id)) { [$0.record(.becameCurrent(snapshot.reference))] }
        h.send(.deviceUnlocked, after: 1) {
            var ad = advertisement(of: snapshot)
            ad.activitySerial = 2
            return [$0.record(.deviceUnlocked), .advertise(ad, snapshot.reference)]
        }
    }

    // MARK: The continuing device

    /// A phone with the Reader (and, if asked, a browser) that has received the laptop's offer.
    func receiver(
        browser: Bool = false, reader: Bool = true, ad: Advertisement? = nil,
        configuration: DeviceConfiguration = DeviceConfiguration()
    ) -> SystemHarness {
        var h = SystemHarness(me, configuration: configuration, at: Self.t0)
        if reader { h.given(.appInstalled(manifest("com.example.reader", types: [readingType]))) }
        if browser { h.given(.appInstalled(manifest("com.example.browser", types: [], browser: true))) }
        let ad = ad ?? advertisement()
        let route = h.system.route(for: ad, at: h.now)
        h.send(.advertisementReceived(ad, from: laptop)) {
            [$0.record(.offerReceived(PeerReference(laptop), ad.identity, route: route))]
        }
        return h
    }

    var readerRoute: Route { .app(bundleIdentifier: "com.example.reader", activityType: readingType) }
    var target: ContinuationTarget { .app(bundleIdentifier: "com.example.reader", activityType: readingType) }

    /// Chooses the offer, the app accepts, the fetch starts.
    func fetching(_ h: inout SystemHarness) {
        h.send(.offerChosen(laptop.id, continuation: continuation)) {
            [
                $0.record(.continueChosen(continuation, PeerReference(laptop), route: readerRoute)),
                .launch(
                    bundleIdentifier: "com.example.reader", .cold, continuation: continuation, activityType: readingType
                ),
                .callWillContinue(continuation, bundleIdentifier: "com.example.reader", activityType: readingType),
            ]
        }
        h.send(.willContinueAnswered(continuation, .application(appShowsProgress: true))) {
            [
                $0.record(
                    .willContinue(
                        continuation, PeerReference(laptop), bundleIdentifier: "com.example.reader",
                        activityType: readingType, appShowsProgress: true)),
                $0.record(.fetchStarted(continuation, PeerReference(laptop), timeout: 5)),
                .requestPayload(
                    continuation, from: laptop.id, activityTypeHash: ActivityTypeHash(activityType: readingType)),
            ]
        }
    }

    @Test func offersAreReceivedUpdatedAndWithdrawn() {
        var h = receiver()
        h.send(.advertisementReceived(advertisement(), from: laptop), after: 1) { _ in [] }
        let fresher = advertisement(savedAt: Self.t0 + 2)
        h.send(.advertisementReceived(fresher, from: laptop), after: 1) {
            [$0.record(.offerUpdated(PeerReference(laptop), fresher.identity, route: readerRoute))]
        }
        let next = advertisement(serial: 2)
        h.send(.advertisementReceived(next, from: laptop)) {
            [$0.record(.offerReceived(PeerReference(laptop), next.identity, route: readerRoute))]
        }
        h.send(.goodbyeReceived(laptop.id)) { [$0.record(.offerWithdrawn(PeerReference(laptop)))] }
        h.send(.goodbyeReceived(laptop.id)) { _ in [] }
    }

    /// A tick routes the offers again only when something a route depends on changed: the
    /// clock passing the advertisement's expiration, or the apps. Ticks in between change nothing.
    @Test func aTickReroutesAnOfferWhenItsExpirationPassesOrTheAppsChange() {
        let ad = advertisement(expires: Self.t0 + 10)
        var h = receiver(ad: ad)
        h.send(.tick, after: 1) { _ in [] }
        h.send(.tick, after: 1) { _ in [] }
        h.send(.tick, after: 8) {
            [$0.record(.offerUpdated(PeerReference(laptop), ad.identity, route: .unavailable(.expired)))]
        }
        h.send(.tick, after: 1) { _ in [] }
        // A fresh advertisement is routed when it arrives; a later app change reroutes it.
        let fresh = advertisement(serial: 2)
        h.send(.advertisementReceived(fresh, from: laptop)) {
            [$0.record(.offerReceived(PeerReference(laptop), fresh.identity, route: readerRoute))]
        }
        h.send(.tick, after: 1) { _ in [] }
        h.given(.appInstalled(manifest("com.example.reader", types: [])))
        #expect(h.system.offers[laptop.id]?.route == .unavailable(.noAppClaimsType))
        h.send(.tick) { _ in [] }
        // The offer outlives its lifetime: the tick at that moment expires it.
        h.send(.tick, after: DeviceConfiguration().offerLifetime) {
            [$0.record(.offerExpired(PeerReference(laptop)))]
        }
    }

    @Test func aContinuationFromChoiceToContinued() {
        var h = receiver()
        fetching(&h)
        #expect(h.system.nextDeadline == h.now + 5)
        let payload = payload()
        h.send(.payloadReceived(continuation, payload, size: 120), after: 0.05) {
            [
                $0.record(
                    .payloadReceived(
                        continuation, PeerReference(laptop), activityType: readingType, bytes: 120,
                        milliseconds: $0.now.timeIntervalSince(Self.t0) * 1000, userInfo: ["page": 3])),
                .deliver(continuation, bundleIdentifier: "com.example.reader", payload, origin: PeerReference(laptop)),
            ]
        }
        h.send(.continuationHandled(continuation, .handled(.application(restoredObjects: 1)))) {
            [
                $0.record(
                    .continued(
                        continuation, PeerReference(laptop), bundleIdentifier: "com.example.reader",
                        .application(restoredObjects: 1),
                        milliseconds: $0.now.timeIntervalSince(Self.t0) * 1000)),
                .notifyContinued(
                    to: laptop.id, activityIdentifier: payload.activityIdentifier, continuation: continuation),
            ]
        }
        #expect(h.system.pendingContinuation == nil)
    }

    /// Issue 26 §2.9: the app a continuation launches comes to the front, so the next
    /// continuation into it is no launch at all (not "warm: it was in the background").
    @Test func theContinuedAppComesToTheFrontAndTheNextContinuationIsNoLaunch() {
        var h = receiver()
        fetching(&h)
        #expect(h.system.front == .app("com.example.reader"))
        h.given(.payloadReceived(continuation, payload(), size: 120))
        h.given(.continuationHandled(continuation, .handled(.application(restoredObjects: 1))))
        #expect(h.system.frontmostApp == "com.example.reader")
        let next = advertisement(serial: 2)
        h.given(.advertisementReceived(next, from: laptop))
        let second = ContinuationID(rawValue: UUID(uuidString: "00000000-0000-4000-8000-0000000000C2")!)
        h.send(.offerChosen(laptop.id, continuation: second)) {
            [
                $0.record(.continueChosen(second, PeerReference(laptop), route: readerRoute)),
                .callWillContinue(second, bundleIdentifier: "com.example.reader", activityType: readingType),
            ]
        }
    }

    /// An app in the background that a continuation brings forward is in front: its own activity
    /// becomes current again and is advertised (a new serial), before willContinue.
    @Test func aWarmLaunchBringsTheAppForwardWithItsOwnActivity() {
        var h = receiver()
        let own = reading(UUID(uuidString: "00000000-0000-4000-8000-00000000000B")!)
        h.given(.activityChanged(own))
        h.given(.activityBecameCurrent(own.id))
        h.send(.appBecameFrontmost(bundleIdentifier: nil)) {
            [$0.record(.resignedCurrent(own.reference)), .withdraw(.noCurrentActivity)]
        }
        h.send(.offerChosen(laptop.id, continuation: continuation)) {
            let ad = Advertisement(
                device: me.id, activityTypeHash: ActivityTypeHash(activityType: readingType),
                teamHash: TeamHash(teamIdentifier: team), options: [.isEligibleForHandoff], activitySerial: 2,
                savedAt: Self.t0)
            return [
                $0.record(.continueChosen(continuation, PeerReference(laptop), route: readerRoute)),
                .launch(
                    bundleIdentifier: "com.example.reader", .warm, continuation: continuation, activityType: readingType
                ),
                $0.record(.becameCurrent(own.reference)),
                .advertise(ad, own.reference),
                .callWillContinue(continuation, bundleIdentifier: "com.example.reader", activityType: readingType),
            ]
        }
        #expect(h.system.frontmostApp == "com.example.reader")
    }

    @Test func continueReturningFalseIsNotHandledAndTheOriginIsNotTold() {
        var h = receiver()
        fetching(&h)
        h.given(.payloadReceived(continuation, payload(), size: 120))
        h.send(.continuationHandled(continuation, .notHandled(.returnedFalse))) {
            [
                $0.record(
                    .notHandled(
                        continuation, PeerReference(laptop), bundleIdentifier: "com.example.reader", milliseconds: 0,
                        reason: .returnedFalse))
            ]
        }
    }

    /// AppKit reopened the document after continue returned false: the system counts the
    /// continuation done and tells the origin (Handoff Programming Guide).
    @Test func aDocumentAppKitReopenedIsContinuedAndTheOriginIsTold() {
        var h = receiver()
        fetching(&h)
        let payload = payload()
        h.given(.payloadReceived(continuation, payload, size: 120))
        h.send(.continuationHandled(continuation, .handled(.documentReopened(file: "Walden.txt")))) {
            [
                $0.record(
                    .continued(
                        continuation, PeerReference(laptop), bundleIdentifier: "com.example.reader",
                        .documentReopened(file: "Walden.txt"), milliseconds: 0)),
                .notifyContinued(
                    to: laptop.id, activityIdentifier: payload.activityIdentifier, continuation: continuation),
            ]
        }
        #expect(h.system.pendingContinuation == nil)
    }

    /// Apple: false lets the system show that the activity is being continued; it does not cancel.
    @Test func willContinueFalseLetsTheSystemShowProgressAndStillFetches() {
        var h = receiver()
        h.given(.offerChosen(laptop.id, continuation: continuation))
        h.send(.willContinueAnswered(continuation, .application(appShowsProgress: false))) {
            [
                $0.record(
                    .willContinue(
                        continuation, PeerReference(laptop), bundleIdentifier: "com.example.reader",
                        activityType: readingType, appShowsProgress: false)),
                $0.record(.fetchStarted(continuation, PeerReference(laptop), timeout: 5)),
                .requestPayload(
                    continuation, from: laptop.id, activityTypeHash: ActivityTypeHash(activityType: readingType)),
            ]
        }
        // A stale answer changes nothing.
        h.send(.willContinueAnswered(continuation, .application(appShowsProgress: true))) { _ in [] }
    }

    @Test func aSecondChoiceWhileBusyAndAChoiceWithoutAnOfferAreIgnored() {
        var h = receiver()
        h.given(.offerChosen(laptop.id, continuation: continuation))
        let other = ContinuationID()
        h.send(.offerChosen(laptop.id, continuation: other)) {
            [$0.record(.choiceIgnored(PeerReference(laptop), .busy))]
        }
        var idle = SystemHarness(me, at: Self.t0)
        idle.send(.offerChosen("ghost", continuation: other)) {
            [$0.record(.choiceIgnored(PeerReference(id: "ghost", name: "ghost"), .noOffer))]
        }
    }

    /// Apple would not even offer it: choosing it starts nothing and fails nothing; the reason is said.
    @Test func choosingAnOfferNothingHereClaimsIsIgnoredWithTheReason() {
        var h = receiver(reader: false)
        h.send(.offerChosen(laptop.id, continuation: continuation)) {
            [$0.record(.choiceIgnored(PeerReference(laptop), .unavailable(.noAppClaimsType)))]
        }
        #expect(h.system.pendingContinuation == nil)
    }

    /// The failures of a fetch in progress: each cancels the request, records the failure with
    /// its public code and calls the app's didFailToContinue; nothing else changes.
    func expectFetchFailure(
        _ h: inout SystemHarness, _ event: DeviceSystem.Event, after seconds: TimeInterval = 0,
        _ error: HandoffError, before: [LifecycleEvent.Occurrence] = [], bundle: String = "com.example.reader",
        type: String = "com.example.reader.reading", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        h.send(
            event, after: seconds,
            { harness in
                before.map { harness.record($0) } + [
                    .cancelPayloadRequest(continuation, from: laptop.id),
                    harness.record(
                        .continuationFailed(
                            continuation, PeerReference(laptop), bundleIdentifier: bundle, activityType: type, error)),
                    .callDidFail(bundleIdentifier: bundle, activityType: type, error),
                ]
            }, sourceLocation: sourceLocation)
        #expect(h.system.pendingContinuation == nil, sourceLocation: sourceLocation)
    }

    @Test func theFetchTimesOutWith4610() {
        var h = receiver()
        fetching(&h)
        h.send(.tick, after: 4.9) { _ in [] }
        expectFetchFailure(
            &h, .tick, after: 0.1, HandoffError(.remoteApplicationTimedOut, "no payload from Laptop within 5 s"))
        // The payload that comes after all is dropped.
        h.send(.payloadReceived(continuation, payload(), size: 10)) {
            [$0.record(.latePayloadIgnored(continuation, bytes: 10))]
        }
    }

    @Test func theOriginGoneFailsWith4609() {
        var h = receiver()
        fetching(&h)
        let error = HandoffError(.connectionUnavailable, "the connection to Laptop was lost during the fetch")
        expectFetchFailure(&h, .payloadFailed(continuation, error), error)
    }

    @Test func anUndecodablePayloadFailsWith4608() {
        var h = receiver()
        fetching(&h)
        let error = HandoffError(.handoffFailed, "the payload could not be decoded: truncated")
        expectFetchFailure(&h, .payloadFailed(continuation, error), error)
    }

    @Test func theUserCancellingFailsWith3072() {
        var h = receiver()
        fetching(&h)
        expectFetchFailure(
            &h, .continuationCancelled, HandoffError(.userCancelled, "the user cancelled the continuation"))
        h.send(.continuationCancelled) { _ in [] }
    }

    @Test func aPayloadTooLargeForThisDeviceFailsWith4611() {
        var h = receiver(configuration: DeviceConfiguration(payloadLimitBytes: 4000))
        fetching(&h)
        let big = payload()
        expectFetchFailure(
            &h, .payloadReceived(continuation, big, size: 5000),
            HandoffError(.userInfoTooLarge, "the payload is 5000 bytes, over this device's 4000-byte limit"),
            before: [
                .payloadReceived(
                    continuation, PeerReference(laptop), activityType: readingType, bytes: 5000,
                    milliseconds: 0, userInfo: ["page": 3]),
                .payloadSizeWarning(continuation, bytes: 5000, guidance: 3072),
            ])
    }

    @Test func aPayloadThatDoesNotMatchTheOfferFailsWith4608() {
        var h = receiver()
        fetching(&h)
        let other = payload(type: "com.example.other")
        expectFetchFailure(
            &h, .payloadReceived(continuation, other, size: 50),
            HandoffError(.handoffFailed, "the payload does not match the offered activity"),
            before: [
                .payloadReceived(
                    continuation, PeerReference(laptop), activityType: "com.example.other", bytes: 50,
                    milliseconds: 0, userInfo: ["page": 3])
            ])
    }

    @Test func anActivityThatExpiresMidFetchFails() {
        var h = receiver()
        fetching(&h)
        let expired = payload(expires: Self.t0 + 0.5)
        expectFetchFailure(
            &h, .payloadReceived(continuation, expired, size: 50), after: 1,
            HandoffError(.handoffFailed, "the activity expired before it arrived"),
            before: [
                .payloadReceived(
                    continuation, PeerReference(laptop), activityType: readingType, bytes: 50,
                    milliseconds: 1000, userInfo: ["page": 3])
            ])
    }

    @Test func aWithdrawalMidFetchLeavesTheFetchRunning() {
        var h = receiver()
        fetching(&h)
        h.send(.goodbyeReceived(laptop.id)) { [$0.record(.offerWithdrawn(PeerReference(laptop)))] }
        #expect(h.system.pendingContinuation?.id == continuation)
        h.send(.payloadReceived(continuation, payload(), size: 10)) {
            [
                $0.record(
                    .payloadReceived(
                        continuation, PeerReference(laptop), activityType: readingType, bytes: 10, milliseconds: 0,
                        userInfo: ["page": 3])),
                .deliver(
                    continuation, bundleIdentifier: "com.example.reader", payload(), origin: PeerReference(laptop)),
            ]
        }
    }

    @Test func theBrowserOpensAnActivityNoAppClaims() {
        let web = URL(string: "https://reader.example.com/moby-dick?page=3")!
        var h = receiver(
            browser: true, reader: false, ad: advertisement(options: [.isEligibleForHandoff, .hasWebpageURL]))
        let route = Route.browser(bundleIdentifier: "com.example.browser", because: .noAppClaimsType)
        h.send(.offerChosen(laptop.id, continuation: continuation)) {
            [
                $0.record(.continueChosen(continuation, PeerReference(laptop), route: route)),
                .launch(
                    bundleIdentifier: "com.example.browser", .cold, continuation: continuation,
                    activityType: UserActivity.browsingWebType),
                .callWillContinue(
                    continuation, bundleIdentifier: "com.example.browser", activityType: UserActivity.browsingWebType),
            ]
        }
        h.given(.willContinueAnswered(continuation, .application(appShowsProgress: true)))
        let native = payload(web: web)
        let delivered = ActivityPayload(
            activityIdentifier: native.activityIdentifier, activityType: UserActivity.browsingWebType,
            title: native.title, webpageURL: web, teamIdentifier: team, bundleIdentifier: "com.example.reader")
        h.send(.payloadReceived(continuation, native, size: 80)) {
            [
                $0.record(
                    .payloadReceived(
                        continuation, PeerReference(laptop), activityType: readingType, bytes: 80, milliseconds: 0,
                        userInfo: ["page": 3])),
                .deliver(
                    continuation, bundleIdentifier: "com.example.browser", delivered, origin: PeerReference(laptop)),
            ]
        }
    }

    /// A browsing-web offer as the laptop's browser advertises it: its page's host hashed.
    func webAdvertisement(host: String = "maps.example.com") -> Advertisement {
        Advertisement(
            device: laptop.id, activityTypeHash: ActivityTypeHash(webpageHost: host),
            teamHash: TeamHash(teamIdentifier: team), options: [.isEligibleForHandoff, .hasWebpageURL, .isBrowsingWeb],
            activitySerial: 1, savedAt: Self.t0)
    }

    /// A phone with the Map (naming maps.example.com, approved unless `approved` is false) and a
    /// browser, which has received the laptop's web page offer.
    func webReceiver(approved: Bool = true, host: String = "maps.example.com") -> SystemHarness {
        var h = SystemHarness(me, at: Self.t0)
        h.given(
            .appInstalled(manifest("com.example.map", types: ["com.example.map.region"], domains: ["maps.example.com"]))
        )
        h.given(.appInstalled(manifest("com.example.browser", types: [], browser: true)))
        if approved {
            h.given(
                .siteAssociationChecked(
                    SiteAssociationCheck(
                        bundleIdentifier: "com.example.map", applicationIdentifier: "ABCDE12345.com.example.map",
                        domain: AssociatedDomain(host: "maps.example.com"), outcome: .approved, checkedAt: Self.t0,
                        expiresAt: Self.t0 + 300)))
        }
        h.given(.advertisementReceived(webAdvertisement(host: host), from: laptop))
        return h
    }

    var mapApproval: WebRouting {
        .approved(
            applicationIdentifier: "ABCDE12345.com.example.map", domain: AssociatedDomain(host: "maps.example.com"))
    }

    /// Issue 26 §2.2: the host the advertisement hashes picks the app before the fetch; it is
    /// launched and asked willContinue first, as for a native activity, and receives the page only.
    @Test func aWebPageGoesToTheAppItsSiteApprovesWhichIsAskedBeforeTheFetch() {
        let page = URL(string: "https://maps.example.com/place/paris")!
        var h = webReceiver()
        let ad = webAdvertisement()
        let route = Route.web(browserBundleIdentifier: "com.example.browser")
        #expect(h.system.offers[laptop.id]?.route == route)
        h.send(.offerChosen(laptop.id, continuation: continuation)) {
            [
                $0.record(.continueChosen(continuation, PeerReference(laptop), route: route)),
                $0.record(
                    .webRouted(
                        continuation, host: "maps.example.com", bundleIdentifier: "com.example.map", mapApproval)),
                .launch(
                    bundleIdentifier: "com.example.map", .cold, continuation: continuation,
                    activityType: UserActivity.browsingWebType),
                .callWillContinue(
                    continuation, bundleIdentifier: "com.example.map", activityType: UserActivity.browsingWebType),
            ]
        }
        h.send(.willContinueAnswered(continuation, .application(appShowsProgress: true))) {
            [
                $0.record(
                    .willContinue(
                        continuation, PeerReference(laptop), bundleIdentifier: "com.example.map",
                        activityType: UserActivity.browsingWebType, appShowsProgress: true)),
                $0.record(.fetchStarted(continuation, PeerReference(laptop), timeout: 5)),
                .requestPayload(continuation, from: laptop.id, activityTypeHash: ad.activityTypeHash),
            ]
        }
        // The browser's state stays behind: the app gets the page only.
        let browsing = payload(type: UserActivity.browsingWebType, userInfo: ["scroll": 2], web: page)
        let delivered = ActivityPayload(
            activityIdentifier: browsing.activityIdentifier, activityType: UserActivity.browsingWebType,
            title: browsing.title, webpageURL: page, teamIdentifier: team, bundleIdentifier: "com.example.reader")
        h.send(.payloadReceived(continuation, browsing, size: 60)) {
            [
                $0.record(
                    .payloadReceived(
                        continuation, PeerReference(laptop), activityType: UserActivity.browsingWebType, bytes: 60,
                        milliseconds: 0, userInfo: ["scroll": 2])),
                .deliver(continuation, bundleIdentifier: "com.example.map", delivered, origin: PeerReference(laptop)),
            ]
        }
    }

    /// Issue 26 §2.2: a failed fetch on the web path reaches the app the host chose (its
    /// didFailToContinue, or the system's alert), not "no app".
    @Test func aFailedWebFetchReachesTheAppTheHostChose() {
        var h = webReceiver()
        h.given(.offerChosen(laptop.id, continuation: continuation))
        h.given(.willContinueAnswered(continuation, .application(appShowsProgress: false)))
        let error = HandoffError(.connectionUnavailable, "the connection to Laptop was lost during the fetch")
        h.send(.payloadFailed(continuation, error)) {
            [
                .cancelPayloadRequest(continuation, from: laptop.id),
                $0.record(
                    .continuationFailed(
                        continuation, PeerReference(laptop), bundleIdentifier: "com.example.map",
                        activityType: UserActivity.browsingWebType, error)),
                .callDidFail(bundleIdentifier: "com.example.map", activityType: UserActivity.browsingWebType, error),
            ]
        }
    }

    @Test func aWebPageStaysInTheBrowserWhenTheSiteDoesNotApprove() {
        var h = webReceiver(approved: false)
        h.send(.offerChosen(laptop.id, continuation: continuation)) {
            [
                $0.record(
                    .continueChosen(
                        continuation, PeerReference(laptop),
                        route: .web(browserBundleIdentifier: "com.example.browser"))),
                $0.record(
                    .webRouted(
                        continuation, host: "maps.example.com", bundleIdentifier: "com.example.browser",
                        .notApproved([
                            WebRoutingRefusal(
                                bundleIdentifier: "com.example.map",
                                applicationIdentifier: "ABCDE12345.com.example.map",
                                domain: AssociatedDomain(host: "maps.example.com"), outcome: nil)
                        ]))),
                .launch(
                    bundleIdentifier: "com.example.browser", .cold, continuation: continuation,
                    activityType: UserActivity.browsingWebType),
                .callWillContinue(
                    continuation, bundleIdentifier: "com.example.browser", activityType: UserActivity.browsingWebType),
            ]
        }
    }

    /// A page on a host no app here names opens in the browser, asked before the fetch too; the
    /// log names the host once the page is here.
    @Test func aWebPageOnAHostNoAppNamesOpensInTheBrowser() {
        let page = URL(string: "https://news.example.org/today")!
        var h = webReceiver(host: "news.example.org")
        h.send(.offerChosen(laptop.id, continuation: continuation)) {
            [
                $0.record(
                    .continueChosen(
                        continuation, PeerReference(laptop),
                        route: .web(browserBundleIdentifier: "com.example.browser"))),
                .launch(
                    bundleIdentifier: "com.example.browser", .cold, continuation: continuation,
                    activityType: UserActivity.browsingWebType),
                .callWillContinue(
                    continuation, bundleIdentifier: "com.example.browser", activityType: UserActivity.browsingWebType),
            ]
        }
        h.given(.willContinueAnswered(continuation, .application(appShowsProgress: false)))
        let browsing = payload(type: UserActivity.browsingWebType, userInfo: [:], web: page)
        h.send(.payloadReceived(continuation, browsing, size: 60)) {
            [
                $0.record(
                    .payloadReceived(
                        continuation, PeerReference(laptop), activityType: UserActivity.browsingWebType, bytes: 60,
                        milliseconds: 0, userInfo: [:])),
                $0.record(
                    .webRouted(
                        continuation, host: "news.example.org", bundleIdentifier: "com.example.browser",
                        .noAppNamesHost)),
                .deliver(
                    continuation, bundleIdentifier: "com.example.browser", browsing, origin: PeerReference(laptop)),
            ]
        }
    }

    /// The payload must be the page the offer hashed: another host is refused with 4608, told to
    /// the app the host chose.
    @Test func aWebPayloadOnAnotherHostThanTheOfferFailsWith4608() {
        var h = webReceiver()
        h.given(.offerChosen(laptop.id, continuation: continuation))
        h.given(.willContinueAnswered(continuation, .application(appShowsProgress: true)))
        let other = payload(
            type: UserActivity.browsingWebType, userInfo: [:], web: URL(string: "https://evil.example.net/")!)
        expectFetchFailure(
            &h, .payloadReceived(continuation, other, size: 40),
            HandoffError(.handoffFailed, "the payload does not match the offered activity"),
            before: [
                .payloadReceived(
                    continuation, PeerReference(laptop), activityType: UserActivity.browsingWebType, bytes: 40,
                    milliseconds: 0, userInfo: [:])
            ], bundle: "com.example.map", type: UserActivity.browsingWebType)
    }

    /// The origin advertises a web page by its host, with the web-page option.
    @Test func aWebPageIsAdvertisedByItsHost() {
        let web = ActivitySnapshot(
            id: reading().id, bundleIdentifier: "com.example.browser", teamIdentifier: team,
            activityType: UserActivity.browsingWebType, title: "Paris", hasWebpageURL: true,
            webpageHost: "Maps.Example.com")
        var h = SystemHarness(me, at: Self.t0)
        h.given(.activityChanged(web))
        h.send(.activityBecameCurrent(web.id)) {
            let ad = Advertisement(
                device: me.id, activityTypeHash: ActivityTypeHash(webpageHost: "maps.example.com"),
                teamHash: TeamHash(teamIdentifier: team),
                options: [.hasWebpageURL, .isEligibleForHandoff, .isBrowsingWeb],
                activitySerial: 1, savedAt: Self.t0)
            return [$0.record(.becameCurrent(web.reference)), .advertise(ad, web.reference)]
        }
        #expect(ActivityTypeHash(webpageHost: "maps.example.com") != ActivityTypeHash(activityType: "maps.example.com"))
    }

    @Test func theActivityTypeHashFollowsApplesShape() {
        let hash = ActivityTypeHash(activityType: "com.apple.mail.compose")
        #expect(hash.bytes.count == 7)
        #expect(hash.bytes[0] & 0xC0 == 0x80)
        #expect(hash == ActivityTypeHash(activityType: "com.apple.mail.compose"))
        #expect(hash != ActivityTypeHash(activityType: "com.apple.mail.Compose"))
    }
}
