import Foundation
import HandoffCore
import HandoffProcesses
import NIOCore
import NIOPosix
import Testing

@testable import HandoffBench
@testable import HandoffNetwork

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
        #expect(
            shared.judge(BeaconFixtures.beacon(counter: 4, sentAt: Date()), receivedAt: Date()) == .judged(.replayed))
    }

    /// A beacon broadcast from a device's own socket says where that socket is; a reply sent there
    /// reaches that device only, on its own socket, and is not a broadcast.
    @Test func aReplyReachesTheNewcomerOnlyOnItsOwnSocket() async throws {
        typealias F = BeaconFixtures
        let heard = Collector<(Int, Bool, Beacon, SocketAddress)>()
        var channels: [BeaconChannel] = []
        var lastError: (any Error)?
        for _ in 0..<20 where channels.isEmpty {
            let port = DiscoveryPort.random()
            do {
                for (index, device) in [F.phoneID, F.laptopID, F.tabletID].enumerated() {
                    channels.append(
                        try await BeaconChannel.start(
                            on: MultiThreadedEventLoopGroup.singleton, options: .init(port: port), sealer: F.sealer,
                            ownDevice: device,
                            onOpened: { beacon, _, address in heard.append((index, false, beacon, address)) },
                            onReply: { beacon, _, address in heard.append((index, true, beacon, address)) }))
                }
            } catch {
                lastError = error
                for channel in channels { await channel.close() }
                channels = []
            }
        }
        try #require(channels.count == 3, "no free discovery port: \(lastError.map { "\($0)" } ?? "")")
        let (newcomer, known, bystander) = (channels[0], channels[1], channels[2])
        let now = Date()
        let boot = UInt64((now.timeIntervalSince1970 - 5) * 1000)
        newcomer.send(F.beacon(device: F.phoneID, boot: boot, counter: 1, sentAt: now, port: 50_001))
        #expect(await BeaconChannelTests.eventually { heard.values.filter { !$0.1 }.count == 2 })
        let seen = try #require(heard.values.first { $0.0 == 1 })
        #expect(seen.3.port == newcomer.replyPort, "the broadcast came from the newcomer's own socket")

        let failed = known.reply(
            F.beacon(
                device: F.laptopID, name: "Laptop", kind: .laptop, boot: boot, counter: 1, sentAt: now,
                port: 50_002), to: [seen.3])
        #expect(failed.isEmpty)
        #expect(await BeaconChannelTests.eventually { heard.values.contains { $0.0 == 0 && $0.1 } })
        try await Task.sleep(nanoseconds: 50_000_000)
        let replies = heard.values.filter { $0.1 }
        #expect(replies.count == 1 && replies.first?.0 == 0 && replies.first?.2.device.id == F.laptopID)
        #expect(known.statistics.replies == 1 && known.statistics.sent == 0)
        #expect(bystander.statistics.received == 1, "the bystander heard the broadcast only")
        for channel in channels { await channel.close() }
    }

    /// A peer that was listening (its boot identifier: when its discovery socket was bound)
    /// before this device's last broadcast heard it, even if its own first beacon came later:
    /// it is not answered. One bound after that broadcast is.
    @Test func aPeerListeningBeforeTheLastBroadcastIsNotAnswered() async throws {
        typealias F = BeaconFixtures
        var channel: BeaconChannel?
        for _ in 0..<20 where channel == nil {
            channel = try? await BeaconChannel.start(
                on: MultiThreadedEventLoopGroup.singleton, options: .init(port: DiscoveryPort.random()),
                sealer: F.sealer, ownDevice: F.laptopID, onOpened: { _, _, _ in })
        }
        let own = try #require(channel, "no free discovery port")
        let announcer = BeaconAnnouncer(
            device: PeerInfo(id: F.laptopID, name: "Laptop", kind: .laptop), bootIdentifier: 1,
            schedule: BeaconSchedule(profile: .instant))
        announcer.attach(own, sessionPort: 50_000, listeningSince: UInt64(Date().timeIntervalSince1970 * 1000))
        let broadcastAt = Date()
        announcer.change(to: .presence, at: broadcastAt)
        announcer.sendDue(at: broadcastAt)
        let refresh = try #require(announcer.nextWake)
        let newcomerSocket = try SocketAddress(ipAddress: "127.0.0.1", port: 40_001)
        func milliseconds(_ date: Date) -> UInt64 { UInt64(date.timeIntervalSince1970 * 1000) }

        // Bound 50 ms before the broadcast, its first beacon sent after it: it heard the broadcast.
        announcer.answer(
            newcomer: F.beacon(
                device: F.phoneID, boot: milliseconds(broadcastAt.addingTimeInterval(-0.05)), counter: 1,
                sentAt: broadcastAt.addingTimeInterval(0.05)),
            at: newcomerSocket)
        #expect(announcer.nextWake == refresh, "no reply waits")

        // Bound after the broadcast: answered (a unicast reply waits the coalescing delay).
        announcer.answer(
            newcomer: F.beacon(
                device: F.tabletID, boot: milliseconds(broadcastAt.addingTimeInterval(0.01)), counter: 1,
                sentAt: broadcastAt.addingTimeInterval(0.05)),
            at: newcomerSocket)
        let wake = try #require(announcer.nextWake)
        #expect(wake < refresh, "a reply waits")
        announcer.sendDue(at: wake)
        #expect(own.statistics.replies == 1)
        await own.close()
    }

    /// Two devices started one after the other meet, each answering the other at most once.
    @Test func aLateDeviceIsAnsweredOnItsOwnSocket() async throws {
        let world = try BenchWorld(names: ["Early", "Late"])
        let (early, late) = (world.hosts[0], world.hosts[1])
        do {
            try await early.start()
            try await Task.sleep(nanoseconds: 100_000_000)
            try await late.start()
            let earlyID = early.identity.id
            let lateID = late.identity.id
            let met = await NetworkBench.eventually(timeout: 30) {
                late.performAndWait { _ in late.directory.peers[earlyID] != nil }
                    && early.performAndWait { _ in early.directory.peers[lateID] != nil }
            }
            #expect(met)
            let stats = early.performAndWait { _ in early.beaconStatistics }
            let lateStats = late.performAndWait { _ in late.beaconStatistics }
            // The early device answers the late one's presence on its own socket, unless a
            // refresh of the early one reached the late one first (a slow start); a reply is
            // never answered, so neither sends more than one.
            #expect(stats.replies <= 1 && lateStats.replies <= 1, "early: \(stats); late: \(lateStats)")
            #expect(stats.replies == 1 || stats.sent > 1, "the late device heard the early one somehow: \(stats)")
        } catch {
            await world.shutdown()
            throw error
        }
        await world.shutdown()
    }
}
