import Foundation
import HandoffCore
import HandoffNetwork
import NIOConcurrencyHelpers

/// The bench row "continue with lifecycle sharing on": the same continuation as the continue
/// row, between two devices that share their lifecycle with each other (`--share-lifecycle`),
/// measured alternately with a pair that does not share, so both see the same machine. Sharing
/// must not slow a continuation by more than 10% (issue 11).
extension NetworkBench {
    package static let continueSharingKey = "continue-sharing"

    /// The row, compared with its interleaved pair without sharing.
    static func continueWithSharingRow(_ options: Options, progress: (String) -> Void) async throws -> BenchRow {
        progress("continue with lifecycle sharing on (alternating with a pair without)")
        let plain = try BenchWorld(
            names: ["Plain Origin", "Plain Receiver"], ownEventLoops: true, fetchTimeout: options.fetchTimeout,
            connectTimeout: options.connectTimeout)
        let sharing: BenchWorld
        do {
            sharing = try BenchWorld(
                names: ["Sharing Origin", "Sharing Receiver"], ownEventLoops: true,
                fetchTimeout: options.fetchTimeout, connectTimeout: options.connectTimeout)
        } catch {
            await plain.shutdown()
            throw error
        }
        do {
            let (without, with) = try await measureAlternately(plain: plain, sharing: sharing, options)
            // The last batch of shared events leaves before the event loops stop.
            try await Task.sleep(nanoseconds: UInt64((NetworkOptions().lifecycleSharingPolicy.batchDelay + 0.2) * 1e9))
            await plain.shutdown()
            await sharing.shutdown()
            let baseline = BenchRow.latency(Key.continue, "continue without sharing", without)
            var row = BenchRow.latency(
                continueSharingKey, "Continue with lifecycle sharing on (choose → restored)", with)
            row.compare(withLatency: baseline, floorName: "no sharing")
            row.target = "p50 ≤ 110% of no sharing"
            row.goal = BenchGoal(maxRatioP50: 1.1)
            row.judge()
            return row
        } catch {
            await plain.shutdown()
            await sharing.shutdown()
            throw error
        }
    }

    /// One continuation on each pair in turn, `options.iterations` times; (without, with) sharing.
    private static func measureAlternately(
        plain: BenchWorld, sharing: BenchWorld, _ options: Options
    ) async throws
        -> (LatencySamples, LatencySamples)
    {
        try await plain.start()
        try await sharing.start()
        let userInfo = payloadUserInfo(aimingAt: options.payloadBytes)
        var pairs: [(receiver: DeviceHost, probe: BenchProbe, origin: DeviceID, apps: Confined<(BenchApp, BenchApp)>)] =
            []
        for (index, world) in [plain, sharing].enumerated() {
            let origin = world.hosts[0]
            let receiver = world.hosts[1]
            let originProbe = BenchProbe()
            let receiverProbe = BenchProbe()
            let originApp = origin.performAndWait { Confined(BenchApp(on: $0, probe: originProbe)) }
            let receiverApp = receiver.performAndWait { Confined(BenchApp(on: $0, probe: receiverProbe)) }
            if index == 1 {
                // After the bench app took the lifecycle observer: both devices share from now on.
                for host in world.hosts { host.performAndWait { _ in host.startSharingLifecycle() } }
            }
            let originID = origin.identity.id
            guard
                await eventually(
                    timeout: 5, { receiver.performAndWait { _ in receiver.directory.peers[originID] != nil } })
            else {
                throw BenchError("the two bench devices did not discover each other within 5 s")
            }
            let arrived = receiverProbe.arm(receiverProbe.offer)
            origin.perform { _ in try? originApp.value.becomeCurrent(userInfo: userInfo, streams: false) }
            guard await arrived.wait(timeout: 5) != nil else {
                throw BenchError("an offer did not reach the peer within 5 s")
            }
            pairs.append((receiver, receiverProbe, originID, Confined((originApp.value, receiverApp.value))))
        }
        var samples = [LatencySamples(), LatencySamples()]
        let timeout = max(10, options.fetchTimeout + 5)
        for _ in 0..<options.iterations {
            for (index, pair) in pairs.enumerated() {
                try await Task.sleep(nanoseconds: UInt64(options.gap * 1e9))
                let (elapsed, restored) = try await continueOnce(
                    receiver: pair.receiver, probe: pair.probe, origin: pair.origin,
                    timeout: timeout)
                guard restored == userInfo else { throw BenchError("the restored userInfo differs from the origin's") }
                samples[index].append(elapsed)
            }
        }
        withExtendedLifetime(pairs.map(\.apps)) {}
        return (samples[0], samples[1])
    }
}
