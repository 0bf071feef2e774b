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
        let report = try await NetworkBench.run(
            NetworkBench.Options(
                iterations: 5, devices: 4, streamBytes: 300 * 1024, streamRuns: 1, payloadBytes: 3000, gap: 0,
                fetchTimeout: 60, connectTimeout: 30, moreDevices: [3], idleSeconds: 1, progress: { steps.append($0) }))
        let keys = [
            NetworkBench.Key.udpFloor, NetworkBench.Key.tcpFloor, NetworkBench.Key.throughputFloor,
            NetworkBench.Key.offer, NetworkBench.Key.continue, NetworkBench.continueSharingKey,
            NetworkBench.Key.streams,
            NetworkBench.Key.discovery, NetworkBench.Key.discovery(3), NetworkBench.Key.idleBeacons,
        ]
        #expect(report.rows.map(\.key) == keys)
        #expect(steps.count >= 6)

        for key in [
            NetworkBench.Key.udpFloor, NetworkBench.Key.tcpFloor, NetworkBench.Key.offer, NetworkBench.Key.continue,
        ] {
            let row = try #require(report.row(key))
            let p50 = try #require(row.p50)
            let p99 = try #require(row.p99)
            #expect(row.unit == "us" && row.samples == 5)
            // Shape only: how long a sample takes is the release bench's business (a loaded
            // machine made one of these take 13 s in a full run).
            #expect(p50 > 0 && p50 <= p99, "\(key): p50 \(p50), p99 \(p99)")
        }
        for key in [NetworkBench.Key.throughputFloor, NetworkBench.Key.streams] {
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
        #expect(steps.contains { $0.hasPrefix("measured: 4 devices met") })

        // Floors have no target; each of ours is compared with its floor and judged.
        for row in report.rows.prefix(3) { #expect(row.target == nil && row.pass == nil) }
        for row in report.rows.dropFirst(3) { #expect(row.target != nil && row.pass != nil) }
        #expect(report.row(NetworkBench.Key.offer)?.floorKey == NetworkBench.Key.udpFloor)
        #expect(report.row(NetworkBench.Key.continue)?.floorKey == NetworkBench.Key.tcpFloor)
        #expect((report.row(NetworkBench.Key.offer)?.ratioP99 ?? 0) > 0)
        #expect((report.row(NetworkBench.Key.streams)?.ratio ?? 0) > 0)
        #expect(report.row(NetworkBench.Key.continue)?.label.contains("KB payload") == true)

        let table = report.table()
        for row in report.rows { #expect(table.contains(row.label)) }
        #expect(table.components(separatedBy: "PASS").count + table.components(separatedBy: "MISS").count - 2 == 7)

        let decoded = try JSONDecoder().decode(BenchReport.self, from: Data(try report.json().utf8))
        #expect(decoded.rows.map(\.key) == keys)
        #expect(decoded.rows.map(\.p99) == report.rows.map(\.p99))
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
