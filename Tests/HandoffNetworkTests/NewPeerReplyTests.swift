import Foundation
import HandoffCore
import Testing

@testable import HandoffBench
@testable import HandoffNetwork

/// A device that hears a peer for the first time answers with its current state soon (coalesced
/// with other newcomers, within the rate limits) instead of leaving the newcomer to wait for the
/// next refresh: that is what lets many devices started at once all meet within a second.
@Suite("Replies to new peers")
struct NewPeerReplyTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aReplyGoesOutAfterTheCoalescingDelayAndBurstsShareOne() {
        var schedule = BeaconSchedule(profile: .instant)
        schedule.change(to: .presence, at: t0)
        #expect(schedule.due(at: t0) == .presence)
        #expect(schedule.due(at: t0) == nil)
        let heard = t0.addingTimeInterval(0.2)
        schedule.replyToNewPeer(at: heard)
        schedule.replyToNewPeer(at: heard.addingTimeInterval(0.005))
        #expect(schedule.nextWake == heard.addingTimeInterval(BeaconSchedule.replyCoalescing))
        #expect(schedule.due(at: heard.addingTimeInterval(BeaconSchedule.replyCoalescing / 2)) == nil)
        #expect(schedule.due(at: heard.addingTimeInterval(BeaconSchedule.replyCoalescing)) == .presence)
        #expect(schedule.due(at: heard.addingTimeInterval(BeaconSchedule.replyCoalescing)) == nil)
        // Then the ordinary refresh, a refresh interval after the reply.
        #expect(schedule.nextWake == heard.addingTimeInterval(BeaconSchedule.replyCoalescing + 1))
    }

    @Test func aChangeIsNeverDelayedByAWaitingReplyAndLeavingEndsReplies() {
        var schedule = BeaconSchedule(profile: .instant)
        schedule.change(to: .presence, at: t0)
        _ = schedule.due(at: t0)
        let later = t0.addingTimeInterval(0.5)
        schedule.replyToNewPeer(at: later)
        let advertisement = Beacon.Message.advertisement(
            Advertisement(
                device: "d", activityTypeHash: ActivityTypeHash(activityType: "com.example.reader.reading"),
                teamHash: TeamHash(teamIdentifier: "ABCDE12345"), options: [.isEligibleForHandoff], activitySerial: 1,
                savedAt: later))
        schedule.change(to: advertisement, at: later)
        #expect(schedule.due(at: later) == advertisement)
        // A reply while a change waits adds nothing.
        schedule.change(to: .goodbye, at: later.addingTimeInterval(0.1))
        schedule.replyToNewPeer(at: later.addingTimeInterval(0.1))
        #expect(schedule.due(at: later.addingTimeInterval(0.1)) == .goodbye)
        schedule.change(to: .leaving, at: later.addingTimeInterval(0.2))
        #expect(schedule.due(at: later.addingTimeInterval(0.2)) == .leaving)
        schedule.replyToNewPeer(at: later.addingTimeInterval(0.3))
        #expect(schedule.nextWake == nil)
    }

    @Test func repliesRespectApplesRateLimits() {
        var schedule = BeaconSchedule(profile: .apple)
        schedule.change(to: .presence, at: t0)
        #expect(schedule.due(at: t0) == .presence)
        schedule.replyToNewPeer(at: t0.addingTimeInterval(0.1))
        #expect(schedule.nextWake == t0.addingTimeInterval(0.5))
        #expect(schedule.due(at: t0.addingTimeInterval(0.2)) == nil)
        #expect(schedule.due(at: t0.addingTimeInterval(0.5)) == .presence)
    }

    /// Without the reply, the late device would wait for the first device's refresh, a second
    /// after its first beacon. Checked by what the early device sent when they met, not by the
    /// clock (a loaded machine can take longer than a refresh interval just to start a device):
    /// the late device heard either the early one's reply, or a broadcast of the early one sent
    /// while it was already listening (then no reply is needed).
    @Test func aDeviceStartedLateSeesTheOthersBeforeTheirNextRefresh() async throws {
        let world = try BenchWorld(names: ["Early", "Late"])
        let (early, late) = (world.hosts[0], world.hosts[1])
        do {
            try await early.start()
            try await Task.sleep(nanoseconds: 100_000_000)
            let before = early.performAndWait { _ in early.beaconStatistics }
            try await late.start()
            let earlyID = early.identity.id
            let met = await NetworkBench.eventually(timeout: 30) {
                late.performAndWait { _ in late.directory.peers[earlyID] != nil }
            }
            #expect(met)
            let after = early.performAndWait { _ in early.beaconStatistics }
            #expect(
                after.replies == 1 || after.sent > before.sent,
                "the late device met the early one without a reply or a later broadcast: \(before) → \(after)")
        } catch {
            await world.shutdown()
            throw error
        }
        await world.shutdown()
    }
}
