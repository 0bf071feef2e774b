import Foundation
import HandoffCore
import HandoffNetwork
import NIOConcurrencyHelpers

/// `handoff bench`: the physical floors of loopback networking and the simulator's own figures,
/// measured in one run and reported in one table (see docs/bench.md).
package enum NetworkBench {
    package struct Options: Sendable {
        /// Samples per latency row (floors included).
        package var iterations: Int
        /// Devices in the discovery row.
        package var devices: Int
        /// Bytes per throughput run, and runs per throughput row (the median is reported).
        package var streamBytes: Int
        package var streamRuns: Int
        /// The size the continued activity's encoded payload aims at.
        package var payloadBytes: Int
        /// Idle time before each latency sample, so every sample starts from sleeping threads.
        package var gap: TimeInterval
        /// Told what is being measured (for a progress line).
        package var progress: (@Sendable (String) -> Void)?
        /// How long a continuing device waits for a payload, and for a session's handshake and
        /// greeting (tests under load give them longer).
        package var fetchTimeout: TimeInterval
        package var connectTimeout: TimeInterval
        /// More discovery rows, one per count (`--devices 128,256` gives 256 here).
        package var moreDevices: [Int]
        /// How long the first discovery row's devices stay idle after they all met, to count the
        /// beacons of devices with nothing new to say (0: no idle row).
        package var idleSeconds: TimeInterval
        /// Only the discovery rows (and the idle row): no floors, no pair of devices.
        package var discoveryOnly = false
        /// Only the stream row and its floors (raw TCP, the cipher on one core, the bare TLS
        /// stream): one offer and one continuation per stream run, no latency rows, no discovery.
        package var streamsOnly = false
        /// Told when each discovery window opens and closes, or with ``streamsOnly`` each stream
        /// run of ours (a profiler's control, `--perf-control`).
        package var perfControl: PerfControl?

        package init(
            iterations: Int = 200, devices: Int = 32, streamBytes: Int = 64 << 20, streamRuns: Int = 3,
            payloadBytes: Int = 3000, gap: TimeInterval = 0.001, fetchTimeout: TimeInterval = 5,
            connectTimeout: TimeInterval = 2, moreDevices: [Int] = [], idleSeconds: TimeInterval = 3,
            progress: (@Sendable (String) -> Void)? = nil
        ) {
            self.moreDevices = moreDevices
            self.idleSeconds = idleSeconds
            self.fetchTimeout = fetchTimeout
            self.connectTimeout = connectTimeout
            self.iterations = iterations
            self.devices = devices
            self.streamBytes = streamBytes
            self.streamRuns = streamRuns
            self.payloadBytes = payloadBytes
            self.gap = gap
            self.progress = progress
        }
    }

    /// Row keys, in table order (also the `key` of each row in the JSON output).
    package enum Key {
        package static let udpFloor = "udp-broadcast-one-way"
        package static let tcpFloor = "tcp-connect-round-trip"
        package static let tlsRoundTripFloor = "tls-round-trip"
        package static let throughputFloor = "tcp-throughput"
        package static let sealFloor = "aes-gcm-seal"
        package static let openFloor = "aes-gcm-open"
        package static let tlsFloor = "tls-throughput"
        package static let tlsCopyFloor = "tls-copy-throughput"
        package static let beaconSealFloor = "aes-gcm-beacon-seal"
        package static let beaconOpenFloor = "aes-gcm-beacon-open"
        package static let keyPerCallSeal = "beacon-seal-key-per-call"
        package static let beaconSeal = "beacon-seal"
        package static let beaconOpen = "beacon-open"
        package static let offer = "offer-propagation"
        package static let `continue` = "continue"
        package static let streams = "stream-throughput"
        package static let discovery = "discovery"
        /// A further discovery row (`discovery-256`).
        package static func discovery(_ devices: Int) -> String { "discovery-\(devices)" }
        /// The floor of a discovery row (``DiscoveryFloor``): `discovery-floor-512`.
        package static func discoveryFloor(_ devices: Int) -> String { "discovery-floor-\(devices)" }
        package static let idleBeacons = "idle-beacons"
    }

    /// Measures everything `runs` times and reports the medians, each with the range of its runs
    /// (``BenchReport/combining(_:)``); `progress` hears which run starts.
    package static func run(_ options: Options, runs: Int) async throws -> BenchReport {
        guard runs > 0 else { throw BenchError("runs must be positive") }
        var reports: [BenchReport] = []
        for index in 1...runs {
            if runs > 1 { options.progress?("measured: run \(index) of \(runs) starts") }
            let report = try await run(options)
            if runs > 1, let summary = report.runSummary {
                options.progress?("measured: run \(index) of \(runs): \(summary)")
            }
            reports.append(report)
        }
        guard var report = BenchReport.combining(reports) else { throw BenchError("no run") }
        report.notes = notes(on: report, options)
        return report
    }

    /// Measures everything, floors first.
    package static func run(_ options: Options) async throws -> BenchReport {
        guard options.iterations > 0, options.devices >= 2, options.moreDevices.allSatisfy({ $0 >= 2 }),
            options.streamBytes > 0,
            options.streamRuns > 0, options.idleSeconds >= 0
        else {
            throw BenchError(
                "iterations and stream runs must be positive, stream bytes positive, and devices at least 2")
        }
        let progress = options.progress ?? { _ in }
        if options.discoveryOnly {
            let (discovery, more) = try await measureDiscoveries(options, progress: progress)
            return BenchReport(
                build: BenchReport.currentBuild, processors: ProcessInfo.processInfo.activeProcessorCount,
                iterations: options.iterations, devices: options.devices, streamBytes: options.streamBytes,
                streamRuns: options.streamRuns, rows: discoveryRows(discovery, more, options))
        }
        if options.streamsOnly {
            let (floors, streams) = streamRows(try await measurePair(options, progress: progress))
            return BenchReport(
                build: BenchReport.currentBuild, processors: ProcessInfo.processInfo.activeProcessorCount,
                iterations: options.iterations, devices: options.devices, streamBytes: options.streamBytes,
                streamRuns: options.streamRuns, rows: floors + [streams])
        }
        let iterations = options.iterations
        let gap = options.gap

        progress("floor: UDP broadcast one-way latency")
        let udp = try await onDedicatedThread("bench-udp") {
            try FloorBench.udpBroadcastOneWay(iterations: iterations, gap: gap)
        }
        progress("floor: TCP connect + round trip")
        let payloadBytes = options.payloadBytes
        let tcp = try await onDedicatedThread("bench-tcp") {
            try FloorBench.tcpConnectRoundTrip(iterations: iterations, responseBytes: payloadBytes, gap: gap)
        }
        let pair = try await measurePair(options, progress: progress)
        let sharing = try await continueWithSharingRow(options, progress: progress)  // SharingBench.swift
        progress("the beacon's cipher, per call")
        let beaconCipher = try await onDedicatedThread("bench-beacon-cipher") {
            try BeaconCipherBench.measure(iterations: max(iterations, 1000))
        }

        let (discovery, moreDiscoveries) = try await measureDiscoveries(options, progress: progress)

        let (streamFloors, streams) = streamRows(pair)
        var rows: [BenchRow] = [
            .latency(Key.udpFloor, "Floor: UDP broadcast one-way", udp),
            .latency(Key.tcpFloor, "Floor: TCP connect + round trip (\(formatBytes(payloadBytes)) answer)", tcp),
            .latency(
                Key.tlsRoundTripFloor,
                "Floor: TLS round trip, open session (64 B asked from another thread, \(formatBytes(payloadBytes)) answer)",
                pair.tlsRoundTrip),
        ]
        rows += streamFloors
        let sealFloor = BenchRow.latency(
            Key.beaconSealFloor, "Floor: AES-256-GCM seal of one beacon (swift-crypto, key made once)",
            beaconCipher.librarySeal)
        let openFloor = BenchRow.latency(
            Key.beaconOpenFloor, "Floor: AES-256-GCM open of one beacon (swift-crypto, key made once)",
            beaconCipher.libraryOpen)
        rows += [sealFloor, openFloor]
        var offer = BenchRow.latency(Key.offer, "Offer propagation (becomeCurrent → offer on peer)", pair.offer)
        offer.compare(withLatency: rows[0], floorName: "UDP")
        offer.target = "p50 ≤ 4× UDP, p99 ≤ 2 ms"
        offer.goal = BenchGoal(maxRatioP50: 4, maxP99: 2_000)
        offer.judge()
        var resume = BenchRow.latency(
            Key.continue, "Continue (choose → restored, \(formatBytes(pair.payloadSize)) payload)",
            pair.continuation)
        resume.compare(withLatency: rows[1], floorName: "TCP")
        resume.target = "p50 ≤ 3× TCP, p99 ≤ 5 ms"
        resume.goal = BenchGoal(maxRatioP50: 3, maxP99: 5_000)
        resume.judge()
        var keyPerCall = BenchRow.latency(
            Key.keyPerCallSeal, "AES-256-GCM seal, key made per call (the sealer until 2026-11-28)",
            beaconCipher.keyPerCallSeal)
        keyPerCall.compare(withLatency: sealFloor, floorName: "seal")
        var beaconSeal = BenchRow.latency(
            Key.beaconSeal, "Beacon sealed, per call (layout, nonce, AES-GCM)", beaconCipher.beaconSeal)
        beaconSeal.compare(withLatency: sealFloor, floorName: "seal")
        var beaconOpen = BenchRow.latency(
            Key.beaconOpen, "Beacon opened, per call (AES-GCM, layout, checks)", beaconCipher.beaconOpen)
        beaconOpen.compare(withLatency: openFloor, floorName: "open")
        rows += [offer, keyPerCall, beaconSeal, beaconOpen, resume, streams]
        rows.insert(sharing, at: rows.count - 1)
        rows += discoveryRows(discovery, moreDiscoveries, options)
        return BenchReport(
            build: BenchReport.currentBuild, processors: ProcessInfo.processInfo.activeProcessorCount,
            iterations: options.iterations, devices: options.devices, streamBytes: options.streamBytes,
            streamRuns: options.streamRuns, rows: rows)
    }

    /// The stream row's floors (raw TCP, sealing and opening on one core, the bare TLS stream) and
    /// the stream row itself, compared with them and judged.
    static func streamRows(_ pair: PairResult) -> (floors: [BenchRow], streams: BenchRow) {
        let cipher = "AES-\(pair.tls?.keyBits ?? 128)-GCM"
        let suite = pair.tls.map { "\($0.version.map(describe) ?? "TLS"), \($0.suite)" } ?? "TLS"
        let floors: [BenchRow] = [
            .throughput(
                Key.throughputFloor, "Floor: TCP throughput", median(pair.floorRuns), runs: pair.floorRuns.count),
            .throughput(
                Key.sealFloor, "Floor: \(cipher) seal, 64 KiB records, one core", median(pair.sealRuns),
                runs: pair.sealRuns.count),
            .throughput(
                Key.openFloor, "Floor: \(cipher) open, 64 KiB records, one core", median(pair.openRuns),
                runs: pair.openRuns.count),
            .throughput(
                Key.tlsFloor, "Floor: bare TLS stream (NIOSSL, \(suite))", median(pair.tlsRuns),
                runs: pair.tlsRuns.count, cpuPerGigabyte: medianIfAny(pair.tlsCPURuns)),
            .throughput(
                Key.tlsCopyFloor, "Floor: bare TLS stream, each chunk copied from and into byte arrays",
                median(pair.tlsCopyRuns), runs: pair.tlsCopyRuns.count, cpuPerGigabyte: medianIfAny(pair.tlsCopyCPURuns)
            ),
        ]
        var streams = BenchRow.throughput(
            Key.streams, "Continuation stream throughput", median(pair.streamRuns),
            runs: pair.streamRuns.count, cpuPerGigabyte: medianIfAny(pair.streamCPURuns))
        streams.compare(withThroughputs: floors)
        streams.target = "≥ 90% of bare TLS, ≥ 70% of the lower of TCP and \(cipher)"
        streams.goal = BenchGoal(minRatio: 0.9, minLimitRatio: 0.7)
        streams.judge()
        return (floors, streams)
    }

    /// The discovery rows: the first count (with its idle window), then the others.
    static func measureDiscoveries(
        _ options: Options, progress: (String) -> Void
    ) async throws -> (Discovery, [Discovery]) {
        // Each count's floor just before its discovery, so that both see the same machine.
        func measure(_ count: Int, idleSeconds: TimeInterval) async throws -> Discovery {
            progress("floor: \(count) sockets hear each other's broadcast")
            let floor = await measureDiscoveryFloor(devices: count, progress: progress)
            progress("discovery of \(count) devices" + (idleSeconds > 0 ? ", then \(idleSeconds) s idle" : ""))
            var measured = try await measureDiscovery(
                devices: count, idleSeconds: idleSeconds, perfControl: options.perfControl)
            measured.floor = floor
            progress(measured.summary)
            return measured
        }
        let discovery = try await measure(options.devices, idleSeconds: options.idleSeconds)
        var more: [Discovery] = []
        for count in options.moreDevices { more.append(try await measure(count, idleSeconds: 0)) }
        return (discovery, more)
    }

    /// ``DiscoveryFloor`` for `devices` devices, on threads of its own; nil (said on `progress`)
    /// when it could not be measured, and then the discovery row has no floor but is still
    /// measured and judged.
    static func measureDiscoveryFloor(devices: Int, progress: (String) -> Void) async -> DiscoveryFloor.Result? {
        do {
            return try await onDedicatedThread("bench-discovery-floor") { try DiscoveryFloor.measure(devices: devices) }
        } catch {
            progress("floor of \(devices) devices not measured: \(error)")
            return nil
        }
    }

    /// The rows of ``measureDiscoveries(_:progress:)``: each count's floor and row, then the idle row.
    static func discoveryRows(_ discovery: Discovery, _ more: [Discovery], _ options: Options) -> [BenchRow] {
        var rows: [BenchRow] = []
        for (measured, key) in [(discovery, Key.discovery)] + more.map({ ($0, Key.discovery($0.devices)) }) {
            if let floor = measured.floorRow() { rows.append(floor) }
            rows.append(measured.row(key: key))
        }
        if let idle = discovery.idleRate, let beyond = discovery.idleBeyondRefresh {
            var row = BenchRow(
                key: Key.idleBeacons, label: "Idle beacons per device (after discovery of \(options.devices))",
                unit: "/s", samples: options.devices)
            row.value = idle
            // The instant profile refreshes once a second; a device with nothing new says no more.
            // A window of T s holds T or T + 1 refreshes: what is judged is what goes beyond them.
            row.extra = beyond
            row.target = "≤ 1 per second (none beyond the refresh)"
            row.goal = BenchGoal(maxExtra: 0.02)
            row.judge()
            rows.append(row)
        }
        return rows
    }

    struct PairResult {
        var offer = LatencySamples()
        var continuation = LatencySamples()
        /// ``TLSRoundTripFloor``, measured just before the continuations.
        var tlsRoundTrip = LatencySamples()
        var streamRuns: [Double] = []
        /// Raw TCP throughput, measured alternately with the stream runs, so that both see the
        /// same machine (a shared VM's speed drifts by tens of percent within minutes); and so
        /// are the bare TLS stream and the cipher on one core.
        var floorRuns: [Double] = []
        var tlsRuns: [Double] = []
        /// The bare TLS stream with an app's copies (a byte array into each write, each read into
        /// a byte array): what a stream of byte arrays cannot go below.
        var tlsCopyRuns: [Double] = []
        /// CPU seconds of the whole process per gigabyte, in the same runs: what each stream costs
        /// the machine, whatever its threads waited for.
        var streamCPURuns: [Double] = []
        var tlsCPURuns: [Double] = []
        var tlsCopyCPURuns: [Double] = []
        var sealRuns: [Double] = []
        var openRuns: [Double] = []
        var tls: CipherFloors.TLSStream?
        var payloadSize = 0
    }

    /// Offer propagation, continue and stream throughput between two devices.
    static func measurePair(_ options: Options, progress: (String) -> Void) async throws -> PairResult {
        let world = try BenchWorld(
            names: ["Bench Origin", "Bench Receiver"], ownEventLoops: true, fetchTimeout: options.fetchTimeout,
            connectTimeout: options.connectTimeout)
        do {
            let result = try await measurePair(world, options, progress: progress)
            await world.shutdown()
            return result
        } catch {
            await world.shutdown()
            throw error
        }
    }

    private static func measurePair(
        _ world: BenchWorld, _ options: Options, progress: (String) -> Void
    ) async throws -> PairResult {
        var result = PairResult()
        let pair = try await BenchPair.start(world)
        let (origin, receiver, originID) = (pair.origin, pair.receiver, pair.originID)
        let (originProbe, receiverProbe) = (pair.originProbe, pair.receiverProbe)
        let (originApp, receiverApp) = (pair.originApp, pair.receiverApp)
        let userInfo = payloadUserInfo(aimingAt: options.payloadBytes)

        // With only the streams measured, one offer and the continuation of each stream run are
        // all the streams need.
        progress(options.streamsOnly ? "one offer" : "offer propagation")
        for _ in 0..<(options.streamsOnly ? 1 : options.iterations) {
            try await Task.sleep(nanoseconds: UInt64(options.gap * 1e9))
            let arrived = receiverProbe.arm(receiverProbe.offer)
            let started = NIOLockedValueBox<UInt64>(0)
            origin.perform { _ in
                try? originApp.value.becomeCurrent(userInfo: userInfo, streams: true) {
                    started.withLockedValue { $0 = BenchClock.now() }
                }
            }
            guard let time = await arrived.wait(timeout: 5) else {
                throw BenchError("an offer did not reach the peer within 5 s")
            }
            result.offer.append(time &- started.withLockedValue { $0 })
        }

        if !options.streamsOnly {
            progress("floor: TLS round trip on an open session")
            result.tlsRoundTrip = try await TLSRoundTripFloor.measure(
                iterations: options.iterations, requestBytes: 64, answerBytes: options.payloadBytes, gap: options.gap,
                identities: (world.identities[0], world.identities[1]), account: world.account)
            progress("continue")
        }
        for _ in 0..<(options.streamsOnly ? 0 : options.iterations) {
            try await Task.sleep(nanoseconds: UInt64(options.gap * 1e9))
            let (elapsed, restored) = try await continueOnce(
                receiver: receiver, probe: receiverProbe, origin: originID, timeout: max(10, options.fetchTimeout + 5))
            guard restored == userInfo else { throw BenchError("the restored userInfo differs from the origin's") }
            result.continuation.append(elapsed)
        }
        result.payloadSize = receiver.performAndWait { $0.system.offers[originID]?.payloadSize ?? 0 }

        progress("continuation stream throughput (alternating with the raw TCP floor)")
        let chunk = [UInt8](repeating: 0xA5, count: StreamBridge.chunkSize)
        for _ in 0..<options.streamRuns {
            let bytes = options.streamBytes
            result.floorRuns.append(
                try await onDedicatedThread("bench-tcp-throughput") { try FloorBench.tcpThroughput(bytes: bytes) })
            let tls = try await CipherFloors.tlsThroughput(
                bytes: bytes, identities: (world.identities[0], world.identities[1]), account: world.account)
            result.tls = tls
            result.tlsRuns.append(tls.megabytesPerSecond)
            result.tlsCPURuns.append(tls.cpuSecondsPerGigabyte)
            let copying = try await CipherFloors.tlsThroughput(
                bytes: bytes, identities: (world.identities[0], world.identities[1]), account: world.account,
                copyingArrays: true)
            result.tlsCopyRuns.append(copying.megabytesPerSecond)
            result.tlsCopyCPURuns.append(copying.cpuSecondsPerGigabyte)
            let cipher = try await onDedicatedThread("bench-aes-gcm") {
                try CipherFloors.aesGCM(keyBits: tls.keyBits, bytes: bytes)
            }
            result.sealRuns.append(cipher.seal)
            result.openRuns.append(cipher.open)
            _ = try await continueOnce(
                receiver: receiver, probe: receiverProbe, origin: originID, timeout: max(10, options.fetchTimeout + 5))
            let opened = receiverProbe.arm(receiverProbe.streams)
            receiver.perform { _ in receiverApp.value.openStreams() }
            guard let outcome = await opened.wait(timeout: 10) else {
                throw BenchError("streams did not open within 10 s")
            }
            let streams = try outcome.get()
            let finished = originProbe.arm(originProbe.streamEnd)
            if options.streamsOnly { options.perfControl?.enable() }
            let start = BenchClock.Instant.now()
            var sent = 0
            while sent < options.streamBytes {
                let size = min(chunk.count, options.streamBytes - sent)
                try await streams.output.write(size == chunk.count ? chunk : Array(chunk[0..<size]))
                sent += size
            }
            await streams.output.close()
            let ended = await finished.wait(timeout: 120)
            if options.streamsOnly { options.perfControl?.disable() }
            guard let end = ended else { throw BenchError("the stream did not end within 120 s") }
            guard end.error == nil, end.bytes == options.streamBytes else {
                throw BenchError("the origin read \(end.bytes) of \(options.streamBytes) bytes: \(end.error ?? "")")
            }
            result.streamRuns.append(start.megabytesPerSecond(options.streamBytes, until: end.at))
            result.streamCPURuns.append(start.cpuSecondsPerGigabyte(options.streamBytes, until: end.at))
            for try await _ in streams.input {}
        }
        withExtendedLifetime((originApp, receiverApp)) {}
        return result
    }

    /// The user chooses the origin's offer on the receiver; returns the time until the restoring
    /// responder ran, and what it restored.
    static func continueOnce(
        receiver: DeviceHost, probe: BenchProbe, origin: DeviceID,
        timeout: TimeInterval = 10
    ) async throws -> (UInt64, UserInfo) {
        let restored = probe.arm(probe.restored)
        let started = NIOLockedValueBox<UInt64>(0)
        receiver.perform { device in
            started.withLockedValue { $0 = BenchClock.now() }
            device.chooseOffer(from: origin)
        }
        guard let done = await restored.wait(timeout: timeout) else {
            let state = receiver.performAndWait { $0.lifecycle.suffix(4).map(\.logLine) }
            throw BenchError(
                "a continuation was not restored within \(Int(timeout)) s (\(state.joined(separator: "; ")))")
        }
        return (done.time &- started.withLockedValue { $0 }, done.userInfo)
    }

    /// What one discovery run measured.
    struct Discovery: Sendable {
        var devices: Int
        /// Seconds from the start until the last device had heard every other.
        var seconds: TimeInterval
        /// Seconds until every device had bound its sockets and sent its first beacon.
        var startedSeconds: TimeInterval
        /// Beacons the devices sent until then (broadcasts and unicast replies), per device.
        var broadcastsPerDevice: Double
        var repliesPerDevice: Double
        /// Datagrams the kernel dropped for full receive buffers meanwhile (the whole machine's count).
        var kernelDrops: Int?
        /// Beacons per device per second while idle afterwards (nil: not measured).
        var idleRate: Double?
        /// Of those, the beacons beyond the once-a-second refresh, per device per second.
        var idleBeyondRefresh: Double?
        /// Beacons the devices themselves dropped until then, all devices together, by reason.
        var dropped: [(reason: String, count: Int)] = []
        /// (device, peer) pairs that had not met when the bench stopped waiting (0: all met).
        var unmetPairs = 0
        /// The same count's floor, measured just before.
        var floor: DiscoveryFloor.Result?

        /// The target: all pairs within 0.5 s up to 128 devices, 1 s up to 512, and in
        /// proportion beyond.
        var targetSeconds: TimeInterval { devices <= 128 ? 0.5 : max(1, Double(devices) / 512) }

        func row(key: String) -> BenchRow {
            var row = BenchRow(
                key: key, label: "Discovery of \(devices) devices (until the last pair)", unit: "ms", samples: 1)
            row.value = seconds * 1000
            if unmetPairs > 0 {
                row.label =
                    "Discovery of \(devices) devices (\(unmetPairs) pairs not met when the bench stopped waiting)"
            }
            row.target =
                targetSeconds < 1 ? "≤ \(Int(targetSeconds * 1000)) ms" : "≤ \(String(format: "%g", targetSeconds)) s"
            row.goal = BenchGoal(maxValue: targetSeconds * 1000)
            if let floor, floor.seconds > 0 {
                row.floorKey = Key.discoveryFloor(devices)
                row.floorLabel = "floor"
                row.ratio = seconds / floor.seconds
            }
            row.judge()
            if unmetPairs > 0 { row.pass = false }
            return row
        }

        /// The floor's row (nil when it was not measured).
        func floorRow() -> BenchRow? {
            guard let floor else { return nil }
            var row = BenchRow(
                key: Key.discoveryFloor(devices),
                label:
                    "Floor: \(devices) sockets hear one broadcast of each other and open it (AES-GCM, \(floor.threads) threads)",
                unit: "ms", samples: 1)
            row.value = floor.seconds * 1000
            return row
        }

        var summary: String {
            String(
                format:
                    "measured: %d devices met in %.0f ms (all started after %.0f ms); per device %.1f broadcasts and %.1f unicast replies; ",
                devices, seconds * 1000, startedSeconds * 1000, broadcastsPerDevice, repliesPerDevice)
                + (floor.map { String(format: "floor %.0f ms (%.1f×); ", $0.seconds * 1000, seconds / $0.seconds) }
                    ?? "")
                + "kernel receive-buffer drops \(kernelDrops.map(String.init) ?? "unknown") (whole machine)"
                + "; dropped by the devices: "
                + (dropped.filter { $0.count > 0 }.map { "\($0.count) \($0.reason)" }
                    .joined(separator: ", ").nonEmpty ?? "none")
                + (idleRate.map { String(format: "; idle: %.2f beacons per device per second", $0) } ?? "")
                + (idleBeyondRefresh.map { String(format: " (%.2f beyond the refresh)", $0) } ?? "")
                + (unmetPairs > 0
                    ? "; NOT ALL MET: \(unmetPairs) of \(devices * (devices - 1)) pairs missing when the bench stopped waiting"
                    : "")
        }
    }

    /// Starts `devices` devices at once; measures the time until every one had seen all others
    /// and what it took, then (with `idleSeconds`) how many beacons the idle devices send.
    static func measureDiscovery(
        devices count: Int, idleSeconds: TimeInterval = 0, perfControl: PerfControl? = nil
    ) async throws -> Discovery {
        let world = try BenchWorld(names: (1...count).map { "Bench \($0)" })
        let seenAll = NIOLockedValueBox<[UInt64]>([])
        let complete = BenchSignal<Void>()
        for host in world.hosts {
            let done = NIOLockedValueBox(false)
            host.onWork = { [unowned host] in
                guard host.directory.peers.count >= count - 1, !done.withLockedValue({ $0 }) else { return }
                done.withLockedValue { $0 = true }
                let now = BenchClock.now()
                if seenAll.withLockedValue({
                    $0.append(now)
                    return $0.count
                }) == count {
                    complete.fulfil(())
                }
            }
        }
        let dropsBefore = udpReceiveBufferErrors()
        perfControl?.enable()
        let start = BenchClock.now()
        do {
            try await world.start()
        } catch {
            perfControl?.disable()
            await world.shutdown()
            throw error
        }
        let started = BenchClock.now()
        let limit = Self.discoveryLimit(devices: count)
        let finished = await complete.wait(timeout: limit) != nil
        perfControl?.disable()
        let last = seenAll.withLockedValue { $0.max() }
        let dropsAfter = udpReceiveBufferErrors()
        let pairs = await world.hosts.asyncMap { host in host.performAndWait { _ in host.directory.peers.count } }
            .reduce(0, +)
        let met = await world.hosts.asyncMap { host in host.performAndWait { _ in host.beaconStatistics } }
        var idleRate: Double?
        var idleBeyondRefresh: Double?
        if finished, idleSeconds > 0 {
            // The last answers to newcomers go out up to the coalescing delay after every pair
            // has met: the idle window starts once they are out.
            try? await Task.sleep(nanoseconds: UInt64(Self.idleSettling * 1e9))
            let settled = await world.hosts.asyncMap { host in host.performAndWait { _ in host.beaconStatistics } }
            try? await Task.sleep(nanoseconds: UInt64(idleSeconds * 1e9))
            let later = await world.hosts.asyncMap { host in host.performAndWait { _ in host.beaconStatistics } }
            let perDevice = zip(settled, later).map { ($1.sent + $1.replies) - ($0.sent + $0.replies) }
            idleRate = Double(perDevice.reduce(0, +)) / Double(count) / idleSeconds
            // A window of T seconds holds T or T + 1 refreshes, depending on where it starts: only
            // beacons beyond those are a device saying more than it has to.
            let refreshes = Int((idleSeconds / BeaconSchedule.Parameters.instant.refreshInterval).rounded(.up))
            idleBeyondRefresh =
                Double(perDevice.map { max(0, $0 - refreshes) }.reduce(0, +)) / Double(count) / idleSeconds
        }
        await world.shutdown()
        guard finished, let last else {
            // A row that says so (judged a miss), so that the other sizes and runs still count.
            var missed = Discovery(
                devices: count, seconds: limit, startedSeconds: Double(started - start) / 1e9,
                broadcastsPerDevice: Double(met.map(\.sent).reduce(0, +)) / Double(count),
                repliesPerDevice: Double(met.map(\.replies).reduce(0, +)) / Double(count), kernelDrops: nil)
            missed.unmetPairs = count * (count - 1) - pairs
            return missed
        }
        let drops = dropsBefore.flatMap { before in dropsAfter.map { $0 - before } }
        func total(_ count: (BeaconStatistics) -> Int) -> Int { met.map(count).reduce(0, +) }
        return Discovery(
            devices: count, seconds: Double(last - start) / 1e9, startedSeconds: Double(started - start) / 1e9,
            broadcastsPerDevice: Double(met.map(\.sent).reduce(0, +)) / Double(count),
            repliesPerDevice: Double(met.map(\.replies).reduce(0, +)) / Double(count),
            kernelDrops: drops, idleRate: idleRate, idleBeyondRefresh: idleBeyondRefresh,
            dropped: [
                ("stale", total(\.droppedStale)), ("replayed", total(\.droppedReplay)),
                ("duplicate", total(\.droppedDuplicate)), ("unauthenticated", total(\.droppedAuthentication)),
                ("malformed", total(\.droppedMalformed)),
            ])
    }

    /// How long the discovery row waits for every pair to meet: 10 s, and 20 s from 512 devices.
    static func discoveryLimit(devices: Int) -> TimeInterval { devices >= 512 ? 20 : 10 }

    /// How long after every pair has met the idle window starts.
    static let idleSettling: TimeInterval = 0.25

    /// A userInfo whose encoded payload is about `bytes` long.
    static func payloadUserInfo(aimingAt bytes: Int) -> UserInfo {
        let overhead = 150
        let text = String(repeating: "handoff ", count: max(0, bytes - overhead) / 8)
        return ["page": .integer(42), "scroll": .double(0.25), "text": .string(text)]
    }

    static func eventually(timeout: TimeInterval, _ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return condition()
    }

    static func medianIfAny(_ values: [Double]) -> Double? { values.isEmpty ? nil : median(values) }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}

extension Array where Element: Sendable {
    fileprivate func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var result: [T] = []
        for element in self { result.append(await transform(element)) }
        return result
    }
}

func formatBytes(_ bytes: Int) -> String {
    bytes >= 1000 ? String(format: "%.1f KB", Double(bytes) / 1000) : "\(bytes) B"
}

/// The offer and continue rows' two devices, started, with the bench app on each, once the
/// receiver has heard the origin.
struct BenchPair {
    let origin: DeviceHost
    let receiver: DeviceHost
    let originID: DeviceID
    let originProbe = BenchProbe()
    let receiverProbe = BenchProbe()
    let originApp: Confined<BenchApp>
    let receiverApp: Confined<BenchApp>

    static func start(_ world: BenchWorld) async throws -> BenchPair {
        try await world.start()
        let pair = BenchPair(origin: world.hosts[0], receiver: world.hosts[1])
        let (receiver, originID) = (pair.receiver, pair.originID)
        guard
            await NetworkBench.eventually(
                timeout: 5,
                {
                    receiver.performAndWait { _ in receiver.directory.peers[originID] != nil }
                })
        else {
            throw BenchError("the two bench devices did not discover each other within 5 s")
        }
        return pair
    }

    private init(origin: DeviceHost, receiver: DeviceHost) {
        self.origin = origin
        self.receiver = receiver
        originID = origin.identity.id
        let (originProbe, receiverProbe) = (self.originProbe, self.receiverProbe)
        originApp = origin.performAndWait { Confined(BenchApp(on: $0, probe: originProbe)) }
        receiverApp = receiver.performAndWait { Confined(BenchApp(on: $0, probe: receiverProbe)) }
    }
}
