import Foundation
import HandoffCore
import Testing

/// The state machine alone: events in, effects out, time as an input.
@Suite("DeviceSystem state machine")
struct DeviceSystemTests {
    let t0 = Date(timeIntervalSinceReferenceDate: 1_000_000)
    let me = PeerInfo(id: "me", name: "Me", kind: .phone)
    let peer = PeerInfo(id: "peer", name: "Peer", kind: .laptop)

    func reading(_ id: UUID = UUID(), eligible: Bool = true, web: Bool = false) -> ActivitySnapshot {
        ActivitySnapshot(id: id, bundleIdentifier: "com.example.reader", teamIdentifier: "ABCDE12345",
                         activityType: "com.example.reader.reading", isEligibleForHandoff: eligible, hasWebpageURL: web)
    }

    func advertisements(_ effects: [DeviceSystem.Effect]) -> [Advertisement] {
        effects.compactMap { if case .advertise(let ad) = $0 { ad } else { nil } }
    }

    func actions(_ effects: [DeviceSystem.Effect]) -> [DeviceSystem.Effect] {
        effects.filter { if case .record = $0 { false } else { true } }
    }

    @Test func becomingCurrentAdvertisesAHashAndOptionsOnly() {
        var system = DeviceSystem(device: me)
        let snapshot = reading(web: true)
        _ = system.handle(.activityChanged(snapshot), at: t0)
        let effects = system.handle(.activityBecameCurrent(snapshot.id), at: t0)
        let ad = try! #require(advertisements(effects).first)
        #expect(ad.device == "me")
        #expect(ad.activityTypeHash == ActivityTypeHash(activityType: "com.example.reader.reading"))
        #expect(ad.teamHash == TeamHash(teamIdentifier: "ABCDE12345"))
        #expect(ad.options == [.hasWebpageURL, .isEligibleForHandoff])
        #expect(system.currentActivity == snapshot.id)
    }

    @Test func theActivityTypeHashFollowsApplesShape() {
        let hash = ActivityTypeHash(activityType: "com.apple.mail.compose")
        #expect(hash.bytes.count == 7)
        #expect(hash.bytes[0] & 0xC0 == 0x80)
        #expect(hash == ActivityTypeHash(activityType: "com.apple.mail.compose"))
        #expect(hash != ActivityTypeHash(activityType: "com.apple.mail.Compose"))
    }

    @Test func needsSaveWaitsForTheCoalescingInterval() {
        var system = DeviceSystem(device: me, configuration: DeviceConfiguration(saveCoalescingInterval: 2))
        let snapshot = reading()
        _ = system.handle(.activityChanged(snapshot), at: t0)
        _ = system.handle(.activityBecameCurrent(snapshot.id), at: t0)
        #expect(actions(system.handle(.activityNeedsSave(snapshot.id), at: t0)).isEmpty)
        #expect(actions(system.handle(.activityNeedsSave(snapshot.id), at: t0 + 1)).isEmpty)
        #expect(actions(system.handle(.tick, at: t0 + 1.9)).isEmpty)
        #expect(system.nextDeadline == t0 + 2)
        let effects = actions(system.handle(.tick, at: t0 + 2))
        #expect(effects.first == .save(snapshot.id, .coalesced))
        #expect(advertisements(effects).first?.savedAt == t0 + 2, "the refreshed advertisement carries its freshness")
        #expect(actions(system.handle(.tick, at: t0 + 10)).isEmpty)
    }

    @Test func aPayloadRequestAlwaysSavesFirst() {
        var system = DeviceSystem(device: me)
        let snapshot = reading()
        _ = system.handle(.activityChanged(snapshot), at: t0)
        _ = system.handle(.activityBecameCurrent(snapshot.id), at: t0)
        let request = PayloadRequestID(rawValue: 9)
        let effects = actions(system.handle(.payloadRequested(request, from: peer, activityTypeHash: ActivityTypeHash(activityType: snapshot.activityType)), at: t0 + 1))
        #expect(effects == [.save(snapshot.id, .beforeSending), .encodePayload(request, activity: snapshot.id)])
        let sent = actions(system.handle(.payloadEncoded(request, Data(count: 100)), at: t0 + 1))
        #expect(sent == [.sendPayload(request, to: peer.id, Data(count: 100))])
    }

    @Test func anOversizedPayloadIsRefusedWith4611() {
        var system = DeviceSystem(device: me, configuration: DeviceConfiguration(payloadLimitBytes: 1000))
        let snapshot = reading()
        _ = system.handle(.activityChanged(snapshot), at: t0)
        _ = system.handle(.activityBecameCurrent(snapshot.id), at: t0)
        let request = PayloadRequestID(rawValue: 1)
        _ = system.handle(.payloadRequested(request, from: peer, activityTypeHash: ActivityTypeHash(activityType: snapshot.activityType)), at: t0)
        let effects = system.handle(.payloadEncoded(request, Data(count: 1001)), at: t0)
        guard case .sendPayloadError(_, _, let error)? = actions(effects).first else {
            Issue.record("expected a refusal, got \(effects)")
            return
        }
        #expect(error.code == .userInfoTooLarge)
        #expect(system.currentActivity == snapshot.id)
    }

    @Test func aRequestForAnotherActivityIsRefusedWith4608() {
        var system = DeviceSystem(device: me)
        let effects = actions(system.handle(.payloadRequested(PayloadRequestID(rawValue: 1), from: peer,
                                                              activityTypeHash: ActivityTypeHash(activityType: "a.b")), at: t0))
        guard case .sendPayloadError(_, _, let error)? = effects.first else {
            Issue.record("expected a refusal")
            return
        }
        #expect(error.code == .handoffFailed)
    }

    @Test func theFetchTimesOutWith4610() {
        var receiver = DeviceSystem(device: me, configuration: DeviceConfiguration(fetchTimeout: 3))
        _ = receiver.handle(.appInstalled(AppManifest(bundleIdentifier: "com.example.reader", teamIdentifier: "ABCDE12345",
                                                      activityTypes: ["com.example.reader.reading"])), at: t0)
        let ad = Advertisement(device: peer.id, activityTypeHash: ActivityTypeHash(activityType: "com.example.reader.reading"),
                               teamHash: TeamHash(teamIdentifier: "ABCDE12345"), options: [.isEligibleForHandoff],
                               activitySerial: 1, savedAt: t0)
        _ = receiver.handle(.advertisementReceived(ad, from: peer), at: t0)
        let chosen = actions(receiver.handle(.offerChosen(peer.id), at: t0))
        guard case .callWillContinue(let id, "com.example.reader", "com.example.reader.reading")? = chosen.first else {
            Issue.record("expected willContinue, got \(chosen)")
            return
        }
        #expect(actions(receiver.handle(.willContinueAnswered(id, accepted: true), at: t0)) ==
                [.requestPayload(id, from: peer.id, activityTypeHash: ad.activityTypeHash)])
        #expect(actions(receiver.handle(.tick, at: t0 + 2.9)).isEmpty)
        let failed = actions(receiver.handle(.tick, at: t0 + 3))
        #expect(failed.first == .cancelPayloadRequest(id, from: peer.id))
        guard case .callDidFail("com.example.reader", "com.example.reader.reading", let error)? = failed.last else {
            Issue.record("expected didFail, got \(failed)")
            return
        }
        #expect(error.code == .remoteApplicationTimedOut)
        #expect(receiver.pendingContinuation == nil)
    }

    @Test func aPayloadThatDoesNotMatchTheOfferIsRejected() {
        var receiver = DeviceSystem(device: me)
        _ = receiver.handle(.appInstalled(AppManifest(bundleIdentifier: "com.example.reader", teamIdentifier: "ABCDE12345",
                                                      activityTypes: ["com.example.reader.reading"])), at: t0)
        let ad = Advertisement(device: peer.id, activityTypeHash: ActivityTypeHash(activityType: "com.example.reader.reading"),
                               teamHash: TeamHash(teamIdentifier: "ABCDE12345"), options: [.isEligibleForHandoff],
                               activitySerial: 1, savedAt: t0)
        _ = receiver.handle(.advertisementReceived(ad, from: peer), at: t0)
        _ = receiver.handle(.offerChosen(peer.id), at: t0)
        let id = receiver.pendingContinuation!.id
        _ = receiver.handle(.willContinueAnswered(id, accepted: true), at: t0)
        let forged = ActivityPayload(activityType: "com.example.reader.reading", teamIdentifier: "EVILTEAM00",
                                     bundleIdentifier: "com.example.reader")
        let effects = actions(receiver.handle(.payloadReceived(id, forged, size: 50), at: t0))
        guard case .callDidFail(_, _, let error)? = effects.last else {
            Issue.record("expected didFail, got \(effects)")
            return
        }
        #expect(error.code == .handoffFailed)
    }

    @Test func ownAdvertisementsAreIgnored() {
        var system = DeviceSystem(device: me)
        let ad = Advertisement(device: me.id, activityTypeHash: ActivityTypeHash(activityType: "a.b"), teamHash: TeamHash(teamIdentifier: "T"),
                               options: [], activitySerial: 1, savedAt: t0)
        _ = system.handle(.advertisementReceived(ad, from: me), at: t0)
        #expect(system.offers.isEmpty)
    }
}
