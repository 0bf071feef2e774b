import Foundation
@testable import HandoffBench
import HandoffCore
@testable import HandoffNetwork
import Testing

/// A newcomer is answered on its own socket: the devices that already know the answering device
/// hear nothing more, so many devices started at once exchange one beacon per pair instead of a
/// broadcast per newcomer (docs/bench.md, "Discovery at scale").
@Suite("Unicast replies to newcomers", .serialized)
struct UnicastReplyTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func theInstantProfileRepliesAtOnceAndTheAppleProfileDoesNot() {
        var instant = BeaconSchedule(profile: .instant)
        #expect(instant.immediateReply() == nil, "nothing to say before the first state")
        instant.change(to: .presence, at: t0)
        _ = instant.due(at: t0)
        #expect(instant.immediateReply() == .presence)
        // A unicast reply is not a refresh: the next broadcast stays a refresh interval after the last one.
        #expect(instant.nextWake == t0.addingTimeInterval(1))
        instant.change(to: .leaving, at: t0.addingTimeInterval(0.5))
        #expect(instant.immediateReply() == nil)

        var apple = BeaconSchedule(profile: .apple)
        apple.change(to: .presence, at: t0)
        _ = apple.due(at: t0)
        #expect(apple.immediateReply() == nil, "Apple's rate limits: the coalesced broadcast reply instead")
    }

    @Test func oneReplyGuardServesBothSockets() {
        let shared = SharedReplayGuard(ReplayGuard())
        let beacon = BeaconFixtures.beacon(counter: 5, sentAt: Date())
        #expect(shared.judge(beacon, receivedAt: Date()) == .judged(.accepted))
        // The same beacon on the other socket is a second copy; an older one is a replay.
        #expect(shared.judge(beacon, receivedAt: Date()) == .duplicate)
        #expect(shared.judge(BeaconFixtures.beacon(counter: 4, sentAt: Date()), receivedAt: Date()) == .judged(.replayed))
    }

    /// The early device answers the late one on the late one's own socket, and does not broadcast
    /// again before its next refresh.
    @Test func aLateDeviceIsAnsweredOnItsOwnSocket() async throws {
        let world = try BenchWorld(names: ["Early", "Late"])
        let (early, late) = (world.hosts[0], world.hosts[1])
        do {
            try await early.start()
            try await Task.sleep(nanoseconds: 100_000_000)
            try await late.start()
            let earlyID = early.identity.id, lateID = late.identity.id
            let met = await NetworkBench.eventually(timeout: 30) {
                late.performAndWait { _ in late.peers[earlyID] != nil } && early.performAndWait { _ in early.peers[lateID] != nil }
            }
            #expect(met)
            let stats = early.performAndWait { _ in early.beaconStatistics }
            let lateStats = late.performAndWait { _ in late.beaconStatistics }
            #expect(stats.replies == 1, "early: \(stats)")
            // The late device started after the early one's presence went out: the reply is
            // what it heard of it, and a reply is not answered.
            #expect(lateStats.replies == 0, "late: \(lateStats)")
        } catch {
            await world.shutdown()
            throw error
        }
        await world.shutdown()
    }
}
