import Foundation
import HandoffCore
import Synchronization
import Testing

@testable import HandoffBench

/// The bench machinery with tiny counts: it must produce every row, sanely filled. Figures are
/// not asserted (that is what `handoff bench` in release is for).
@Suite("Bench", .serialized)
struct BenchTests {
    @Test func aTinyRunProducesSaneRows() async throws {
        let steps = StepLog()
        let options = NetworkBench.Options(
            iterations: 5, devices: 4, streamBytes: 300 * 1024, streamRuns: 1, payloadBytes: 3000, gap: 0,
            fetchTimeout: 60, connectTimeout: 30, moreDevices: [3], idleSeconds: 1, progress: { steps.append($0) })
        let report = try await NetworkBench.run(options)
        let keys = [
            NetworkBench.Key.udpFloor, NetworkBench.Key.tcpFloor, NetworkBench.Key.tlsRoundTripFloor,
            NetworkBench.Key.throughputFloor, NetworkBench.Key.sealFloor, NetworkBench.Key.openFloor,
            NetworkBench.Key.tlsFloor,
            NetworkBench.Key.tlsCopyFloor, NetworkBench.Key.beaconSealFloor, NetworkBench.Key.beaconOpenFloor,
            NetworkBench.Key.offer, NetworkBench.Key.keyPerCallSeal, NetworkBench.Key.beaconSeal,
            NetworkBench.Key.beaconOpen, NetworkBench.Key.continue, NetworkBench.continueSharingKey,
            NetworkBench.Key.streams,
            NetworkBench.Key.discoveryFloor(4), NetworkBench.Key.discovery, NetworkBench.Key.discoveryFloor(3),
            NetworkBench.Key.discovery(3), NetworkBench.Key.idleBeacons,
        ]
        #expect(report.rows.map(\.key) == keys)
        #expect(steps.count >= 6)

        for key in [
            NetworkBench.Key.udpFloor, NetworkBench.Key.tcpFloor, NetworkBench.Key.tlsRoundTripFloor,
            NetworkBench.Key.offer, NetworkBench.Key.continue,
        ] {
            let row = try #require(report.row(key))
            let p50 = try #require(row.p50)
            let p99 = try #require(row.p99)
            #expect(row.unit == "us" && row.samples == 5)
            // Shape only: how long a sample takes is the release bench's business (a loaded
            // machine made one of these take 13 s in a full run).
            #expect(p50 > 0 && p50 <= p99, "\(key): p50 \(p50), p99 \(p99)")
        }
        for key in [
            NetworkBench.Key.throughputFloor, NetworkBench.Key.sealFloor, NetworkBench.Key.openFloor,
            NetworkBench.Key.tlsFloor, NetworkBench.Key.tlsCopyFloor, NetworkBench.Key.streams,
        ] {
            let row = try #require(report.row(key))
            #expect(row.unit == "MB/s" && (row.value ?? 0) > 0)
        }
        let discovery = try #require(report.row(NetworkBench.Key.discovery)?.value)
        #expect(discovery > 0)
        // A further discovery row per extra count, labelled with it, and the idle devices' beacons.
        #expect(report.row(NetworkBench.Key.discovery(3))?.label.contains("3 devices") == true)
        #expect((report.row(NetworkBench.Key.discovery(3))?.value ?? 0) > 0)
        let idle = try #require(report.row(NetworkBench.Key.idleBeacons))
        #expect(idle.unit == "/s" && (idle.value ?? -1) >= 0)
        #expect(steps.contains { $0.hasPrefix("measured: 4 devices met") && $0.contains("; floor ") })
        // Each discovery row is compared with its own count's floor, measured in the same run.
        for (key, devices) in [(NetworkBench.Key.discovery, 4), (NetworkBench.Key.discovery(3), 3)] {
            let floor = try #require(report.row(NetworkBench.Key.discoveryFloor(devices)))
            #expect(floor.unit == "ms" && (floor.value ?? 0) > 0 && floor.label.contains("\(devices) sockets"))
            let row = try #require(report.row(key))
            #expect(row.floorKey == floor.key)
            #expect(abs((row.ratio ?? 0) - (row.value ?? 0) / (floor.value ?? 1)) < 1e-9)
        }

        // Floors have no target; each of ours is compared with its floor and judged.
        let figures: Set = [
            NetworkBench.Key.keyPerCallSeal, NetworkBench.Key.beaconSeal, NetworkBench.Key.beaconOpen,
        ]
        let discoveryFloors = [NetworkBench.Key.discoveryFloor(4), NetworkBench.Key.discoveryFloor(3)]
        for row in report.rows.prefix(10) + report.rows.filter({ discoveryFloors.contains($0.key) }) {
            #expect(row.target == nil && row.pass == nil)
        }
        for row in report.rows.dropFirst(10) where !figures.contains(row.key) && !discoveryFloors.contains(row.key) {
            #expect(row.target != nil && row.pass != nil && row.goal != nil)
        }
        // The beacon's cipher per call: each compared with swift-crypto's own call, not judged.
        for key in figures {
            let row = try #require(report.row(key))
            #expect(row.goal == nil && (row.p50 ?? 0) > 0 && (row.ratioP50 ?? 0) > 0)
        }
        // The bare TLS floor is the sessions' TLS (1.3, an AES-GCM suite), and the stream row is
        // compared with it and with the lowest of raw TCP and the cipher on one core.
        #expect(report.row(NetworkBench.Key.tlsFloor)?.label.contains("TLS 1.3, TLS_AES_") == true)
        let streams = try #require(report.row(NetworkBench.Key.streams))
        #expect(streams.floorKey == NetworkBench.Key.tlsFloor)
        let limit = try #require(streams.limitKey)
        let lowest = [NetworkBench.Key.throughputFloor, NetworkBench.Key.sealFloor, NetworkBench.Key.openFloor]
            .min { (report.row($0)?.value ?? 0) < (report.row($1)?.value ?? 0) }
        #expect(limit == lowest)
        #expect((streams.limitRatio ?? 0) > 0)
        #expect(report.row(NetworkBench.Key.offer)?.floorKey == NetworkBench.Key.udpFloor)
        #expect(report.row(NetworkBench.Key.continue)?.floorKey == NetworkBench.Key.tcpFloor)
        #expect((report.row(NetworkBench.Key.offer)?.ratioP99 ?? 0) > 0)
        #expect((report.row(NetworkBench.Key.streams)?.ratio ?? 0) > 0)
        #expect(report.row(NetworkBench.Key.continue)?.label.contains("KB payload") == true)

        let table = report.table()
        for row in report.rows { #expect(table.contains(row.label)) }
        #expect(table.contains("× floor"))
        // What the continue row's goal leaves once TLS alone has made the same round trip.
        let notes = NetworkBench.notes(on: report, options)
        #expect(notes.contains { $0.hasPrefix("Continue: a round trip on an open TLS session") })
        #expect(
            notes.contains {
                $0.hasPrefix("Its floor (N(N − 1) deliveries and opens, nothing of ours) grows as")
            })
        #expect(table.components(separatedBy: "PASS").count + table.components(separatedBy: "MISS").count - 2 == 7)

        let decoded = try JSONDecoder().decode(BenchReport.self, from: Data(try report.json().utf8))
        #expect(decoded.rows.map(\.key) == keys)
        #expect(decoded.rows.map(\.p99) == report.rows.map(\.p99))
    }

    /// `--streams-only`: the stream row and its four floors, nothing else, with the stream row
    /// compared with the bare TLS stream and with the lowest of the others, and judged.
    @Test func aStreamsOnlyRunHasTheStreamRowAndItsFloors() async throws {
        var options = NetworkBench.Options(
            iterations: 5, devices: 4, streamBytes: 300 * 1024, streamRuns: 2, payloadBytes: 3000, gap: 0,
            fetchTimeout: 60, connectTimeout: 30, idleSeconds: 1)
        options.streamsOnly = true
        let report = try await NetworkBench.run(options, runs: 1)
        #expect(
            report.rows.map(\.key) == [
                NetworkBench.Key.throughputFloor, NetworkBench.Key.sealFloor, NetworkBench.Key.openFloor,
                NetworkBench.Key.tlsFloor, NetworkBench.Key.tlsCopyFloor, NetworkBench.Key.streams,
            ])
        for row in report.rows {
            #expect(row.unit == "MB/s" && (row.value ?? 0) > 0 && row.samples == 2, "\(row.key)")
        }
        let streams = try #require(report.row(NetworkBench.Key.streams))
        #expect(streams.floorKey == NetworkBench.Key.tlsFloor && (streams.ratio ?? 0) > 0)
        #expect(streams.limitKey != nil && (streams.limitRatio ?? 0) > 0 && streams.pass != nil)
        #expect(report.notes.contains { $0.hasPrefix("Streams: the lowest floor is") })
        // The bare TLS stream with an app's copies is a floor of its own, named in the note.
        #expect(report.row(NetworkBench.Key.tlsCopyFloor)?.label.contains("copied") == true)
        #expect(report.notes.contains { $0.contains("Copying each chunk from and into byte arrays") })
        // What each stream cost the machine, per gigabyte: measured over the same window as its
        // throughput, for the two TLS floors and our stream, and set side by side in a note.
        for key in [NetworkBench.Key.tlsFloor, NetworkBench.Key.tlsCopyFloor, NetworkBench.Key.streams] {
            #expect((report.row(key)?.cpuPerGigabyte ?? 0) > 0, "\(key)")
        }
        #expect(report.row(NetworkBench.Key.throughputFloor)?.cpuPerGigabyte == nil)
        #expect(report.notes.contains { $0.hasPrefix("CPU per GB carried") && $0.contains("over the copies") })
    }

    /// Five runs become one report: every figure is the median of the runs, with their range, and
    /// each row is judged again on the medians (so one run's noisy floor cannot decide it).
    @Test func runsCombineIntoMediansJudgedAgain() throws {
        func report(floor: Double, offer: Double, tcp: Double, stream: Double) -> BenchReport {
            var udp = BenchRow(key: NetworkBench.Key.udpFloor, label: "UDP", unit: "us", samples: 5)
            udp.p50 = floor
            udp.p99 = floor * 2
            var row = BenchRow(key: NetworkBench.Key.offer, label: "Offer", unit: "us", samples: 5)
            row.p50 = offer
            row.p99 = offer * 2
            row.compare(withLatency: udp, floorName: "UDP")
            row.goal = BenchGoal(maxRatioP50: 4, maxP99: 2_000)
            row.judge()
            var rows = [udp, row]
            for (key, value) in [
                (NetworkBench.Key.throughputFloor, tcp), (NetworkBench.Key.sealFloor, 3000.0),
                (NetworkBench.Key.openFloor, 2500.0), (NetworkBench.Key.tlsFloor, 1000.0),
            ] {
                var floorRow = BenchRow(key: key, label: key, unit: "MB/s", samples: 1)
                floorRow.value = value
                rows.append(floorRow)
            }
            var streams = BenchRow(key: NetworkBench.Key.streams, label: "Streams", unit: "MB/s", samples: 1)
            streams.value = stream
            streams.cpuPerGigabyte = 2000 / stream  // seconds per GB: a slower run cost more
            streams.compare(withThroughputs: rows)
            streams.goal = BenchGoal(minRatio: 0.9, minLimitRatio: 0.7)
            streams.judge()
            rows.append(streams)
            return BenchReport(
                build: "debug", processors: 2, iterations: 5, devices: 4, streamBytes: 1, streamRuns: 1, rows: rows)
        }
        // The offer's own time holds at 100 µs while the UDP floor moves: one run alone would pass
        // (floor 31 µs) or miss (floor 10 µs); the median floor (20 µs) decides.
        let runs = [
            report(floor: 10, offer: 100, tcp: 2000, stream: 950),
            report(floor: 31, offer: 100, tcp: 4000, stream: 900),
            report(floor: 20, offer: 110, tcp: 3000, stream: 800),
            report(floor: 12, offer: 100, tcp: 3000, stream: 990),
            report(floor: 25, offer: 90, tcp: 1000, stream: 700),
        ]
        let combined = try #require(BenchReport.combining(runs))
        #expect(combined.runs == 5)
        let offer = try #require(combined.row(NetworkBench.Key.offer))
        #expect(offer.p50 == 100)
        #expect(combined.row(NetworkBench.Key.udpFloor)?.p50 == 20)
        #expect(offer.ratioP50 == 5.5)  // the median of 10, 100/31, 5.5, 100/12 and 3.6
        #expect(offer.pass == false)
        #expect(offer.spread?.runs == 5)
        #expect(offer.spread?.ratioMin == 100.0 / 31 && offer.spread?.ratioMax == 10)
        #expect(offer.spread?.passes == 2)
        let streams = try #require(combined.row(NetworkBench.Key.streams))
        #expect(streams.value == 900 && streams.ratio == 0.9)
        #expect(streams.cpuPerGigabyte == 2000.0 / 900)  // the median of the five runs' costs
        // The lower limit: raw TCP in two runs, the cipher's opening (2500 MB/s) in the three others.
        #expect(streams.limitKey == NetworkBench.Key.openFloor)
        #expect(streams.limitRatio == 990.0 / 2500)
        #expect(streams.pass == false)
        let table = combined.table()
        #expect(table.contains("5 runs"))
        #expect(table.contains("3.2–10.0×"))
        #expect(table.contains("MISS (2/5)"))
        let decoded = try JSONDecoder().decode(BenchReport.self, from: Data(try combined.json().utf8))
        #expect(decoded == combined)
    }

    /// Each of several runs is summed up on one line as it ends: the judged latency and
    /// throughput rows with their ratios, not the floors, nor the discovery rows (the progress
    /// already says those).
    @Test func aRunIsSummedUpOnOneLine() {
        var udp = BenchRow(
            key: NetworkBench.Key.udpFloor, label: "Floor: UDP broadcast one-way", unit: "us", samples: 5)
        udp.p50 = 20
        var offer = BenchRow(
            key: NetworkBench.Key.offer, label: "Offer propagation (becomeCurrent → offer on peer)", unit: "us",
            samples: 5)
        offer.p50 = 76
        offer.compare(withLatency: udp, floorName: "UDP")
        offer.goal = BenchGoal(maxRatioP50: 4, maxP99: 2_000)
        var tls = BenchRow(key: NetworkBench.Key.tlsFloor, label: "Floor: bare TLS stream", unit: "MB/s", samples: 1)
        tls.value = 1000
        var streams = BenchRow(
            key: NetworkBench.Key.streams, label: "Continuation stream throughput", unit: "MB/s", samples: 1)
        streams.value = 720
        streams.compare(withThroughputs: [tls])
        streams.goal = BenchGoal(minRatio: 0.9, minLimitRatio: 0.7)
        var discovery = BenchRow(
            key: NetworkBench.Key.discovery, label: "Discovery of 4 devices (until the last pair)", unit: "ms",
            samples: 1)
        discovery.value = 12
        discovery.goal = BenchGoal(maxValue: 500)
        func report(_ rows: [BenchRow]) -> BenchReport {
            BenchReport(
                build: "debug", processors: 2, iterations: 5, devices: 4, streamBytes: 1, streamRuns: 1, rows: rows)
        }
        #expect(
            report([udp, offer, tls, streams, discovery]).runSummary
                == "offer propagation 76 µs, 3.8× UDP; continuation stream throughput 720 MB/s, 72% of bare TLS")
        #expect(report([udp, tls, discovery]).runSummary == nil)
    }

    /// The discovery rows' growth: the exponent of a log-log fit, said in words.
    @Test func discoveryGrowthIsClassified() throws {
        let linear = try #require(DiscoveryGrowth(points: [(64, 50), (128, 100), (256, 200), (512, 400)]))
        #expect(abs(linear.exponent - 1) < 1e-9)
        #expect(linear.shape == "about linear")
        let quadratic = try #require(DiscoveryGrowth(points: [(64, 10), (128, 40), (256, 160)]))
        #expect(abs(quadratic.exponent - 2) < 1e-9 && quadratic.shape == "about quadratic")
        #expect(quadratic.sentence.contains("64→128 devices ×4.0"))
        #expect(DiscoveryGrowth(points: [(128, 100)]) == nil)
    }

    /// Discovery's floor: every socket hears every device's broadcast and opens all but its own
    /// (it throws when one is missing or does not open), on as many threads as asked, at most one
    /// per device.
    @Test func theDiscoveryFloorHearsEveryBroadcast() async throws {
        let floor = try DiscoveryFloor.measure(devices: 16, threads: 2)
        #expect(floor.seconds > 0 && floor.threads == 2)
        #expect(try DiscoveryFloor.measure(devices: 3, threads: 8).threads == 3)
        #expect(throws: BenchError.self) { try DiscoveryFloor.measure(devices: 1) }
        // A floor that cannot be measured is said, and leaves its discovery row without one.
        let said = StepLog()
        #expect(await NetworkBench.measureDiscoveryFloor(devices: 1, progress: { said.append($0) }) == nil)
        #expect(said.contains { $0.hasPrefix("floor of 1 devices not measured: ") })
        // Its growth is said as discovery's is.
        let growth = try #require(DiscoveryGrowth(points: [(64, 10), (128, 40)]))
        #expect(growth.sentence(of: "Its floor").hasPrefix("Its floor grows as n^2.00"))
    }

    /// The continue row's limit, said from the p50s of the continuation and its two floors.
    @Test func theContinueLimitSaysWhatTLSLeaves() {
        let within = ContinueLimit(continuation: 320, tcp: 100, tls: 170, goal: 3)
        #expect(within.leftForOurs == 130)
        #expect(
            within.sentence
                == "Continue: a round trip on an open TLS session with nothing of ours takes 170 µs (1.7× the TCP floor), so the 3× goal leaves 130 µs for all of ours on the path; the continuation takes 150 µs more than that round trip (1.9× it)."
        )
        #expect(
            ContinueLimit(continuation: 400, tcp: 50, tls: 160, goal: 3).sentence.contains(
                "TLS alone is past the 3× goal"))
        #expect(
            ContinueLimit(continuation: 150, tcp: 100, tls: 170, goal: 3).sentence.contains("takes 20 µs less than"))
    }

    /// A tiny class (two pairs, one process) continues back and forth without a failure and
    /// reports every figure the classroom row prints.
    @Test func aTinyClassroomContinuesWithoutFailures() async throws {
        let result = try await ClassroomBench.run(
            ClassroomBench.Options(
                pairs: 2, seconds: 2, idleSeconds: 1, stepTimeout: 30, fetchTimeout: 30, connectTimeout: 30))
        #expect(result.failures == 0, "\(result.failureReasons)")
        #expect(result.continuations > 0)
        #expect(result.latencies.count == result.continuations)
        // Each side's first continuation opened the pair's session that way: one per side that
        // continued, and the rest reused it.
        #expect(result.firstContactLatencies.count == min(result.continuations, 4))
        #expect(result.laterLatencies.count == result.continuations - result.firstContactLatencies.count)
        #expect(result.devices == 4 && result.processes == 1)
        #expect(result.beaconsSent > 0 && result.cpuSeconds > 0)
        #expect(result.idleBeaconsPerDevice != nil)
        let table = result.table()
        for words in [
            "Continuations", "p50", "p99", "Failures                0", "Beacons on the wire", "Idle beacons",
            "CPU per device", "first contacts        4 (each opens a session", "the others",
        ] {
            #expect(table.contains(words), "\(words)")
        }
    }

    /// The first contacts are told apart from the rest by value, duplicates included, and a
    /// class's parts merge with their first contacts.
    @Test func firstContactsAreSetApartFromTheOtherContinuations() {
        var part = ClassroomBench.Result(pairs: 1, processes: 1, seconds: 1)
        part.continuations = 5
        part.latencies = [9_000, 800, 8_500, 800, 900]
        part.firstContactLatencies = [9_000, 8_500]
        #expect(part.laterLatencies == [800, 800, 900])
        var other = part
        other.latencies = [800, 700]
        other.continuations = 2
        other.firstContactLatencies = [800]
        let wholeClass = ClassroomBench.Result.merging([part, other], pairs: 2, processes: 2)
        #expect(wholeClass.firstContactLatencies == [9_000, 8_500, 800])
        #expect(wholeClass.laterLatencies.sorted() == [700, 800, 800, 900])
        let table = wholeClass.table()
        #expect(table.contains("first contacts        3 (each opens a session: TCP, TLS, both certificates): p50 "))
        #expect(table.contains("the others            4: p50 800 µs, p99 900 µs"))
    }

    /// With a pace, each pair starts a round every `pace` seconds, no faster: at most one more
    /// round than the run's length holds, and the table says the pace.
    @Test func aPacedClassroomContinuesNoFasterThanItsPace() async throws {
        let result = try await ClassroomBench.run(
            ClassroomBench.Options(
                pairs: 2, seconds: 2, pace: 0.5, idleSeconds: 0, stepTimeout: 30, fetchTimeout: 30,
                connectTimeout: 30))
        #expect(result.failures == 0, "\(result.failureReasons)")
        #expect(result.pace == 0.5)
        #expect(result.continuations > 0 && result.continuations <= 2 * 5)
        #expect(result.table().contains("a round every 0.5 s per pair (4.0 per second for the class)"))
    }

    /// Steps run from the point before to their own, over the samples that passed both; the
    /// sample's start stands before the first step and its end is the last point.
    @Test func stagesAreTheGapsBetweenConsecutivePoints() {
        let samples: [StageBench.Sample] = [
            (start: 1_000, end: 9_000, marks: [(.madeCurrent, 2_000), (.beaconSealed, 5_000), (.beaconRead, 7_000)]),
            (start: 1_000, end: 11_000, marks: [(.madeCurrent, 3_000), (.beaconSealed, 4_000), (.beaconRead, 9_000)]),
            // A mark taken before the sample started (another sample's) is not this sample's.
            (start: 1_000, end: 5_000, marks: [(.madeCurrent, 500), (.beaconSealed, 2_000)]),
        ]
        let steps = StageBench.steps(samples, from: .madeCurrent, through: .offerRecorded)
        #expect(steps.map(\.point) == ["madeCurrent", "beaconSealed", "beaconRead", "offerRecorded"])
        let byPoint = Dictionary(uniqueKeysWithValues: steps.map { ($0.point, $0) })
        #expect(byPoint["madeCurrent"]?.samples == 2)
        #expect(byPoint["madeCurrent"]?.p50 == 1)  // 1 µs and 2 µs: the lower median
        #expect(byPoint["beaconSealed"]?.samples == 3)
        #expect(byPoint["beaconSealed"]?.p90 == 3)  // 3, 1 and 1 µs
        #expect(byPoint["offerRecorded"]?.samples == 3)
        #expect(byPoint["offerRecorded"]?.p50 == 2)  // 2, 2 and 3 µs
    }

    /// `handoff bench --stages` on real devices: every offer and continuation is timed and the
    /// table names the steps of both paths. Which steps a run shows depends on how the threads
    /// were scheduled (a peer that records the offer before the sender's `sendto` has returned
    /// leaves that sample's later steps out: `stagesAreTheGapsBetweenConsecutivePoints`), so only
    /// what every run has is checked: each path's steps, in order, from its own points.
    @Test func stagesMeasureRealOffersAndContinuations() async throws {
        let report = try await StageBench.measure(
            NetworkBench.Options(iterations: 3, fetchTimeout: 30, connectTimeout: 30))
        #expect(report.offerTotal > 0 && report.continuationTotal > 0)
        let points = StageMarks.Point.allCases.map { "\($0)" }
        let offerPoints = points[...points.firstIndex(of: "offerRecorded")!]
        let continuationPoints = points[points.firstIndex(of: "offerChosen")!...]
        #expect(!report.offer.isEmpty && !report.continuation.isEmpty)
        #expect(report.offer.allSatisfy { offerPoints.contains($0.point) })
        #expect(report.continuation.allSatisfy { continuationPoints.contains($0.point) })
        #expect(
            report.offer.map(\.point) == offerPoints.filter { point in report.offer.contains { $0.point == point } })
        let table = report.table()
        for words in ["Offer (becomeCurrent → offer on peer)", "Continue (choose → restored)"] {
            #expect(table.contains(words), "\(words)")
        }
    }

    /// `--beacon-path`: every beacon fed reaches the device (a round of newcomers, then the
    /// refreshes), each peer is known once, and the table says what it measured.
    @Test func theBeaconPathFeedsEveryBeaconThroughTheDevice() async throws {
        let result = try await BeaconPathBench.measure(peers: 40, refreshRounds: 2)
        #expect(result.accepted == 40 * 3)
        #expect(result.peersKnown == 40)
        let table = result.table()
        for words in ["Beacon heard from a newcomer", "Beacon heard from a known peer", "Accepted 120 of 120 beacons"] {
            #expect(table.contains(words), "\(words)")
        }
    }

    @Test func percentilesAreNearestRank() {
        var samples = LatencySamples()
        for value in (1...100).reversed() { samples.append(UInt64(value) * 1000) }
        #expect(samples.percentile(50) == 50)
        #expect(samples.percentile(99) == 99)
        #expect(samples.percentile(100) == 100)
        #expect(LatencySamples().percentile(50) == nil)
    }

    @Test func durationsAreFormattedForPeople() {
        #expect(BenchReport.formatMicroseconds(57) == "57 µs")
        #expect(BenchReport.formatMicroseconds(1240) == "1.24 ms")
        #expect(BenchReport.formatMicroseconds(12_500) == "12.5 ms")
        #expect(BenchReport.formatMicroseconds(250_000) == "250 ms")
        #expect(BenchReport.formatMicroseconds(1_200_000) == "1.20 s")
    }

    final class StepLog: Sendable {
        private let steps = Mutex<[String]>([])
        func append(_ step: String) { steps.withLock { $0.append(step) } }
        var count: Int { steps.withLock { $0.count } }
        func contains(where predicate: (String) -> Bool) -> Bool { steps.withLock { $0.contains(where: predicate) } }
    }
}
