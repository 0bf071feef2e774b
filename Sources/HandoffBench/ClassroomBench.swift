import Foundation
import HandoffCore
import HandoffNetwork
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// `handoff bench --classroom N`: a class running `handoff demo` on one LAN. N pairs of devices
/// (one shared account, so every device hears every other's beacons and offers) continue back
/// and forth for a fixed time: A makes an activity current, B waits for that offer and continues
/// it, then B makes one current and A continues it, and so on. Each pair starts a round every
/// `pace` seconds (the pairs out of step, as a class's students are), or with a pace of 0 the
/// next round as soon as the last has ended (back to back: the class's capacity). In one
/// process, or with `--processes` one process per pair (``ClassroomPair``), as the class's
/// machines would be.
package enum ClassroomBench {
    package struct Options: Sendable {
        /// Pairs of devices (2N devices).
        package var pairs: Int
        /// How long the pairs continue back and forth.
        package var seconds: TimeInterval
        /// Seconds between the starts of a pair's rounds (0: back to back).
        package var pace: TimeInterval
        /// `handoff bench --classroom`'s pace: a busy class, every pair continuing twice a second
        /// (a person takes a few seconds to notice an offer and choose it).
        package static let busyClassPace: TimeInterval = 0.5
        /// How long the devices then stay idle while their beacons are counted (0: not counted).
        package var idleSeconds: TimeInterval
        package var payloadBytes: Int
        /// A continuation or an offer not done within this is a failure.
        package var stepTimeout: TimeInterval
        package var fetchTimeout: TimeInterval
        package var connectTimeout: TimeInterval
        package var progress: (@Sendable (String) -> Void)?

        package init(
            pairs: Int, seconds: TimeInterval = 10, pace: TimeInterval = 0, idleSeconds: TimeInterval = 3,
            payloadBytes: Int = 3000,
            stepTimeout: TimeInterval = 5, fetchTimeout: TimeInterval = 5, connectTimeout: TimeInterval = 2,
            progress: (@Sendable (String) -> Void)? = nil
        ) {
            self.pairs = pairs
            self.seconds = seconds
            self.pace = pace
            self.idleSeconds = idleSeconds
            self.payloadBytes = payloadBytes
            self.stepTimeout = stepTimeout
            self.fetchTimeout = fetchTimeout
            self.connectTimeout = connectTimeout
            self.progress = progress
        }
    }

    /// What a classroom run measured (one pair's share in a child process, or the whole class).
    package struct Result: Sendable, Codable, Hashable {
        package var pairs: Int
        package var processes: Int
        package var seconds: Double
        /// Seconds between the starts of a pair's rounds (0: back to back).
        package var pace = 0.0
        package var continuations = 0
        /// Choose → restored, in microseconds, one per continuation.
        package var latencies: [Double] = []
        /// Those of ``latencies`` that were each side's first continuation from its partner: each
        /// opened the pair's session in that direction (TCP, the TLS handshake with both
        /// certificates checked), so they are slower than the rest by design.
        package var firstContactLatencies: [Double] = []
        package var failures = 0
        /// The first few failures, said in words.
        package var failureReasons: [String] = []
        /// Beacons sent (broadcasts and unicast replies) during the run, all devices together.
        package var beaconsSent = 0
        /// Beacons sent during the idle window afterwards, and the window's length.
        package var idleBeacons = 0
        package var idleSeconds = 0.0
        /// CPU time (user + system) of the process(es) during the run, in seconds.
        package var cpuSeconds = 0.0

        package init(pairs: Int, processes: Int, seconds: Double) {
            self.pairs = pairs
            self.processes = processes
            self.seconds = seconds
        }

        package var devices: Int { pairs * 2 }
        package var continuationsPerSecond: Double { seconds > 0 ? Double(continuations) / seconds : 0 }
        package var beaconsPerSecond: Double { seconds > 0 ? Double(beaconsSent) / seconds : 0 }
        package var idleBeaconsPerDevice: Double? {
            idleSeconds > 0 ? Double(idleBeacons) / Double(devices) / idleSeconds : nil
        }
        /// The share of one core each device used during the run.
        package var cpuPerDevice: Double { seconds > 0 ? cpuSeconds / seconds / Double(devices) : 0 }

        package func percentile(_ p: Double) -> Double? { Self.percentile(p, of: latencies) }

        /// The continuations that reused a session (all but the first contacts).
        package var laterLatencies: [Double] {
            var firsts = firstContactLatencies.sorted()
            return latencies.filter { latency in
                guard let index = firsts.firstIndex(of: latency) else { return true }
                firsts.remove(at: index)
                return false
            }
        }

        static func percentile(_ p: Double, of latencies: [Double]) -> Double? {
            var samples = LatencySamples()
            for latency in latencies { samples.append(UInt64(latency * 1000)) }
            return samples.percentile(p)
        }

        /// The goal for 32 pairs on a 2-core machine (issue 29): no failure, p99 ≤ 20 ms, idle
        /// beacons ≤ 1 per device per second.
        package var meetsGoal: Bool {
            failures == 0 && continuations > 0 && (percentile(99) ?? .infinity) <= 20_000
                && (idleBeaconsPerDevice ?? 0) <= 1.02
        }

        /// Several pairs' results (one per child process) as the class's.
        package static func merging(_ parts: [Result], pairs: Int, processes: Int) -> Result {
            var total = Result(pairs: pairs, processes: processes, seconds: parts.map(\.seconds).max() ?? 0)
            total.pace = parts.first?.pace ?? 0
            for part in parts {
                total.continuations += part.continuations
                total.latencies += part.latencies
                total.firstContactLatencies += part.firstContactLatencies
                total.failures += part.failures
                total.failureReasons += part.failureReasons.prefix(max(0, 5 - total.failureReasons.count))
                total.beaconsSent += part.beaconsSent
                total.idleBeacons += part.idleBeacons
                total.idleSeconds = max(total.idleSeconds, part.idleSeconds)
                total.cpuSeconds += part.cpuSeconds
            }
            return total
        }

        /// The report's lines.
        package func table() -> String {
            let p50 = percentile(50).map(BenchReport.formatMicroseconds) ?? "—"
            let p99 = percentile(99).map(BenchReport.formatMicroseconds) ?? "—"
            var lines = [
                "handoff bench --classroom \(pairs): \(BenchReport.currentBuild) build, "
                    + "\(ProcessInfo.processInfo.activeProcessorCount) CPUs, \(devices) devices in one account, "
                    + (processes > 1 ? "\(processes) processes (one per pair)" : "one process")
                    + String(format: ", %.0f s of continuing back and forth", seconds),
                pace > 0
                    ? String(
                        format: "Pace                    a round every %g s per pair (%.1f per second for the class)",
                        pace, Double(pairs) / pace)
                    : "Pace                    back to back (each pair's next round as soon as its last ended)",
                "",
                String(
                    format: "Continuations           %d (%.1f per second)", continuations, continuationsPerSecond),
                "Choose → restored       p50 \(p50), p99 \(p99)",
            ]
            if !firstContactLatencies.isEmpty {
                func figure(_ p: Double, _ latencies: [Double]) -> String {
                    Self.percentile(p, of: latencies).map(BenchReport.formatMicroseconds) ?? "—"
                }
                let later = laterLatencies
                lines += [
                    "  first contacts        \(firstContactLatencies.count) (each opens a session: TCP, TLS, both certificates): "
                        + "p50 \(figure(50, firstContactLatencies)), max \(figure(100, firstContactLatencies))",
                    "  the others            \(later.count): p50 \(figure(50, later)), p99 \(figure(99, later))",
                ]
            }
            lines += [
                "Failures                \(failures)"
                    + (failureReasons.isEmpty ? "" : ": " + failureReasons.joined(separator: "; ")),
                String(
                    format: "Beacons on the wire     %.1f per second while continuing (%.2f per device)",
                    beaconsPerSecond, beaconsPerSecond / Double(max(1, devices))),
            ]
            if let idle = idleBeaconsPerDevice {
                lines.append(String(format: "Idle beacons            %.2f per device per second", idle))
            }
            lines.append(
                String(format: "CPU per device          %.1f%% of a core while continuing", cpuPerDevice * 100))
            lines.append(
                "Goal (32 pairs, 2 cores): 0 failures, p99 ≤ 20 ms, idle beacons ≤ 1 per device per second: "
                    + (meetsGoal ? "met" : "missed"))
            return lines.joined(separator: "\n")
        }
    }

    /// The whole class in this process.
    package static func run(_ options: Options) async throws -> Result {
        guard options.pairs > 0, options.seconds > 0, options.idleSeconds >= 0, options.pace >= 0 else {
            throw BenchError("the classroom needs at least one pair, a positive duration and a pace of 0 or more")
        }
        let names = studentNames(pairs: options.pairs)
        let world = try BenchWorld(
            names: names, fetchTimeout: options.fetchTimeout, connectTimeout: options.connectTimeout)
        do {
            try await world.start()
            let pairs = (0..<options.pairs).map { index in
                ClassroomPair(first: world.hosts[2 * index], second: world.hosts[2 * index + 1])
            }
            let result = try await run(pairs, processes: 1, options: options)
            await world.shutdown()
            return result
        } catch {
            await world.shutdown()
            throw error
        }
    }

    /// Runs started pairs: waits until every pair's devices know each other, continues back and
    /// forth for `options.seconds` (starting at `startAt` when given), then counts idle beacons.
    static func run(
        _ pairs: [ClassroomPair], processes: Int, options: Options, startAt: Date? = nil
    ) async throws -> Result {
        let progress = options.progress ?? { _ in }
        for pair in pairs { try await pair.waitUntilMet(timeout: 30) }
        if let startAt, startAt > Date() {
            try await Task.sleep(nanoseconds: UInt64(startAt.timeIntervalSinceNow * 1e9))
        }
        progress("\(pairs.count) pairs continuing back and forth for \(options.seconds) s")
        let hosts = pairs.flatMap { [$0.first, $0.second] }
        let beaconsBefore = hosts.map(\.sentBeacons).reduce(0, +)
        let cpuBefore = processCPUSeconds()
        let start = BenchClock.now()
        let deadline = start + UInt64(options.seconds * 1e9)
        let parts = await withTaskGroup(of: Result.self) { group in
            for pair in pairs {
                group.addTask { await pair.continueBackAndForth(until: deadline, options: options) }
            }
            var parts: [Result] = []
            for await part in group { parts.append(part) }
            return parts
        }
        let elapsed = Double(BenchClock.now() - start) / 1e9
        var result = Result.merging(parts, pairs: pairs.count, processes: processes)
        result.seconds = elapsed
        result.pace = options.pace
        result.cpuSeconds = processCPUSeconds() - cpuBefore
        result.beaconsSent = hosts.map(\.sentBeacons).reduce(0, +) - beaconsBefore
        if options.idleSeconds > 0 {
            progress("idle for \(options.idleSeconds) s, counting beacons")
            // The last advertisements' answers are out by then (as in the discovery row's idle window).
            try await Task.sleep(nanoseconds: UInt64(NetworkBench.idleSettling * 1e9))
            let before = hosts.map(\.sentBeacons).reduce(0, +)
            try await Task.sleep(nanoseconds: UInt64(options.idleSeconds * 1e9))
            result.idleBeacons = hosts.map(\.sentBeacons).reduce(0, +) - before
            result.idleSeconds = options.idleSeconds
        }
        return result
    }

    /// User and system CPU time of this process so far, in seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

extension DeviceHost {
    /// Beacons this device sent so far: broadcasts and unicast replies.
    fileprivate var sentBeacons: Int {
        performAndWait { _ in
            let statistics = self.beaconStatistics
            return statistics.sent + statistics.replies
        }
    }
}

/// Two devices of the classroom that continue each other's activities back and forth.
final class ClassroomPair: Sendable {
    let first: DeviceHost
    let second: DeviceHost
    private let sides: [Side]

    /// One device's app and what the driver waits for on it.
    final class Side: Sendable {
        let host: DeviceHost
        let probe = BenchProbe()
        let app: Confined<BenchApp>
        /// The identity of this device's newest advertisement (set on its queue).
        let advertised = NIOLockedValueBox<AdvertisementIdentity?>(nil)
        /// Fulfilled when this device hears an offer from its partner, with the offer's identity.
        let heard = NIOLockedValueBox<BenchSignal<AdvertisementIdentity>?>(nil)
        /// Continuations that failed on this device, said in words.
        let failed = NIOLockedValueBox<[String]>([])

        init(host: DeviceHost, partner: DeviceID) {
            self.host = host
            let probe = probe
            let advertised = advertised
            let heard = heard
            let failed = failed
            app = host.performAndWait { device in
                let app = BenchApp(on: device, probe: probe)
                _ = device.addLifecycleObserver { event in
                    switch event.occurrence {
                    case .advertised(_, let identity, _):
                        advertised.withLockedValue { $0 = identity }
                    case .offerReceived(let peer, let identity, _), .offerUpdated(let peer, let identity, _):
                        if peer.id == partner { heard.withLockedValue { $0 }?.fulfil(identity) }
                    case .continuationFailed(_, let peer, _, _, let error):
                        failed.withLockedValue { $0.append("\(event.device) from \(peer.name): \(error)") }
                    default:
                        break
                    }
                }
                return Confined(app)
            }
        }
    }

    init(first: DeviceHost, second: DeviceHost) {
        self.first = first
        self.second = second
        sides = [Side(host: first, partner: second.identity.id), Side(host: second, partner: first.identity.id)]
    }

    /// Waits until each device of the pair has heard the other.
    func waitUntilMet(timeout: TimeInterval) async throws {
        let ids = (first.identity.id, second.identity.id)
        let met = await NetworkBench.eventually(timeout: timeout) { [first, second] in
            first.performAndWait { _ in first.directory.peers[ids.1] != nil }
                && second.performAndWait { _ in second.directory.peers[ids.0] != nil }
        }
        guard met else {
            throw BenchError("\(first.identity.name) and \(second.identity.name) did not meet within \(Int(timeout)) s")
        }
    }

    /// Continues back and forth until `deadline` (BenchClock); this pair's share of the result.
    /// With a pace, a round starts every `options.pace` seconds from a moment of its own within
    /// the first (so the class's pairs are out of step); a round that ends late is followed at
    /// once by the next, never by several at once.
    func continueBackAndForth(until deadline: UInt64, options: ClassroomBench.Options) async -> ClassroomBench.Result {
        var result = ClassroomBench.Result(pairs: 1, processes: 1, seconds: options.seconds)
        result.pace = options.pace
        var round = 0
        /// The sides that have continued from their partner already (over the session they opened).
        var contacted: Set<Int> = []
        func fail(_ reason: String) {
            result.failures += 1
            if result.failureReasons.count < 5 { result.failureReasons.append(reason) }
        }
        let interval = UInt64(options.pace * 1e9)
        var nextRound = BenchClock.now() + (interval > 0 ? UInt64.random(in: 0..<interval) : 0)
        while BenchClock.now() < deadline {
            if interval > 0 {
                let now = BenchClock.now()
                if nextRound > now {
                    guard nextRound < deadline else { break }
                    try? await Task.sleep(nanoseconds: nextRound - now)
                }
                nextRound = max(nextRound, now) + interval
            }
            let origin = sides[round % 2]
            let receiverSide = (round + 1) % 2
            let receiver = sides[receiverSide]
            round += 1
            var userInfo = NetworkBench.payloadUserInfo(aimingAt: options.payloadBytes)
            userInfo["round"] = .integer(Int64(round))
            let failedBefore = receiver.failed.withLockedValue { $0.count }
            // The origin's new activity, until the receiver has its offer.
            let heard = BenchSignal<AdvertisementIdentity>()
            receiver.heard.withLockedValue { $0 = heard }
            let app = origin.app
            let shared = userInfo
            origin.host.perform { _ in try? app.value.becomeCurrent(userInfo: shared, streams: false) }
            var signal = heard
            var arrived = false
            let offerDeadline = Date().addingTimeInterval(options.stepTimeout)
            while !arrived, let identity = await signal.wait(timeout: max(0, offerDeadline.timeIntervalSinceNow)) {
                if identity == origin.advertised.withLockedValue({ $0 }) {
                    arrived = true
                } else {
                    // An older advertisement of the origin (a refresh): wait for the new one.
                    signal = BenchSignal<AdvertisementIdentity>()
                    receiver.heard.withLockedValue { $0 = signal }
                    let expected = origin.advertised.withLockedValue { $0 }
                    let current = receiver.host.performAndWait { device in
                        device.system.offers[origin.host.identity.id]?.advertisement.identity
                    }
                    if let expected, current == expected { arrived = true }
                }
            }
            receiver.heard.withLockedValue { $0 = nil }
            guard arrived else {
                fail("\(receiver.host.identity.name) did not get \(origin.host.identity.name)'s offer")
                continue
            }
            do {
                let (elapsed, restored) = try await NetworkBench.continueOnce(
                    receiver: receiver.host, probe: receiver.probe, origin: origin.host.identity.id,
                    timeout: options.stepTimeout)
                if restored["round"] != .integer(Int64(round)) {
                    fail(
                        "\(receiver.host.identity.name) restored round \(restored["round"].map { "\($0)" } ?? "none"), not \(round)"
                    )
                } else {
                    result.continuations += 1
                    result.latencies.append(Double(elapsed) / 1000)
                    if contacted.insert(receiverSide).inserted {
                        result.firstContactLatencies.append(Double(elapsed) / 1000)
                    }
                }
            } catch {
                let reasons = receiver.failed.withLockedValue { Array($0.dropFirst(failedBefore)) }
                fail(reasons.first ?? "\(error)")
            }
        }
        return result
    }
}
