import Foundation
import HandoffCore
import HandoffNetwork
import NIOConcurrencyHelpers

/// `handoff bench --stages`: where an offer's and a continuation's time goes, step by step,
/// from marks taken at fixed points of the path (``StageMarks``) in a release build's real
/// devices, the same pair and payload as the offer and continue rows.
package enum StageBench {
    /// One step's figures over every sample that passed both of its points.
    package struct Step: Sendable, Hashable, Codable {
        package var point: String
        package var description: String
        package var p50: Double
        package var p90: Double
        package var samples: Int
    }

    package struct Report: Sendable, Hashable, Codable {
        package var iterations: Int
        package var udpFloor: Double
        package var tcpFloor: Double
        package var offer: [Step]
        package var offerTotal: Double
        package var continuation: [Step]
        package var continuationTotal: Double

        /// The two tables, in microseconds.
        package func table() -> String {
            var lines = [
                "handoff bench --stages: \(BenchReport.currentBuild) build, \(iterations) offers and \(iterations) "
                    + "continuations, medians (p50) and p90 of each step in µs",
                "",
                "Offer (becomeCurrent → offer on peer): p50 \(Self.format(offerTotal)) µs; "
                    + "floor UDP one-way p50 \(Self.format(udpFloor)) µs",
            ]
            lines += rows(offer)
            lines += [
                "",
                "Continue (choose → restored): p50 \(Self.format(continuationTotal)) µs; "
                    + "floor TCP connect + round trip p50 \(Self.format(tcpFloor)) µs",
            ]
            lines += rows(continuation)
            lines += [
                "",
                "Each step runs from the point before it to its own; a step's median is over the samples that",
                "passed both points. The medians of the steps need not add up to the median of the whole.",
            ]
            return lines.joined(separator: "\n")
        }

        private func rows(_ steps: [Step]) -> [String] {
            let width = max(40, steps.map(\.description.count).max() ?? 0)
            let header = "Step".padding(toLength: width, withPad: " ", startingAt: 0) + "      p50      p90"
            return [header, String(repeating: "-", count: header.count)]
                + steps.map { step in
                    step.description.padding(toLength: width, withPad: " ", startingAt: 0)
                        + Self.format(step.p50).leftPadded(to: 9) + Self.format(step.p90).leftPadded(to: 9)
                }
        }

        static func format(_ microseconds: Double) -> String { String(format: "%.1f", microseconds) }
    }

    /// Measures `options.iterations` offers and continuations between two devices with marks on.
    package static func measure(_ options: NetworkBench.Options) async throws -> Report {
        let iterations = options.iterations
        let gap = options.gap
        let udp = try await onDedicatedThread("bench-udp") {
            try FloorBench.udpBroadcastOneWay(iterations: iterations, gap: gap)
        }
        let payloadBytes = options.payloadBytes
        let tcp = try await onDedicatedThread("bench-tcp") {
            try FloorBench.tcpConnectRoundTrip(iterations: iterations, responseBytes: payloadBytes, gap: gap)
        }
        let world = try BenchWorld(
            names: ["Bench Origin", "Bench Receiver"], ownEventLoops: true, fetchTimeout: options.fetchTimeout,
            connectTimeout: options.connectTimeout)
        do {
            let (offers, continuations) = try await measure(world, options)
            await world.shutdown()
            return Report(
                iterations: iterations, udpFloor: udp.percentile(50) ?? 0, tcpFloor: tcp.percentile(50) ?? 0,
                offer: steps(offers, from: .madeCurrent, through: .offerRecorded),
                offerTotal: total(offers),
                continuation: steps(continuations, from: .offerChosen, through: .restored),
                continuationTotal: total(continuations))
        } catch {
            await world.shutdown()
            throw error
        }
    }

    /// One sample: when it started and the marks taken until it ended.
    typealias Sample = (start: UInt64, end: UInt64, marks: [(StageMarks.Point, UInt64)])

    private static func measure(
        _ world: BenchWorld, _ options: NetworkBench.Options
    ) async throws -> (offers: [Sample], continuations: [Sample]) {
        let pair = try await BenchPair.start(world)
        let (origin, receiver, originID) = (pair.origin, pair.receiver, pair.originID)
        let (receiverProbe, originApp, receiverApp) = (pair.receiverProbe, pair.originApp, pair.receiverApp)
        let userInfo = NetworkBench.payloadUserInfo(aimingAt: options.payloadBytes)
        var offers: [Sample] = []
        for _ in 0..<options.iterations {
            try await Task.sleep(nanoseconds: UInt64(options.gap * 1e9))
            let arrived = receiverProbe.arm(receiverProbe.offer)
            let started = NIOLockedValueBox<UInt64>(0)
            StageMarks.begin()
            origin.perform { _ in
                try? originApp.value.becomeCurrent(userInfo: userInfo, streams: true) {
                    started.withLockedValue { $0 = BenchClock.now() }
                }
            }
            guard let time = await arrived.wait(timeout: 5) else {
                _ = StageMarks.end()
                throw BenchError("an offer did not reach the peer within 5 s")
            }
            offers.append((started.withLockedValue { $0 }, time, StageMarks.end()))
        }
        var continuations: [Sample] = []
        for _ in 0..<options.iterations {
            try await Task.sleep(nanoseconds: UInt64(options.gap * 1e9))
            let start = BenchClock.now()
            StageMarks.begin()
            let (elapsed, restored) = try await NetworkBench.continueOnce(
                receiver: receiver, probe: receiverProbe, origin: originID, timeout: max(10, options.fetchTimeout + 5))
            let marks = StageMarks.end()
            guard restored == userInfo else { throw BenchError("the restored userInfo differs from the origin's") }
            let chosen = marks.first { $0.0 == .offerChosen }?.1 ?? start
            continuations.append((chosen, chosen &+ elapsed, marks))
        }
        withExtendedLifetime((originApp, receiverApp)) {}
        return (offers, continuations)
    }

    /// The steps between consecutive points from `first` through `last` (the start stands before
    /// `first`'s step and the sample's end is `last`), each over the samples that passed both.
    static func steps(_ samples: [Sample], from first: StageMarks.Point, through last: StageMarks.Point) -> [Step] {
        let points = StageMarks.Point.allCases.filter { $0 >= first && $0 <= last }
        var durations: [StageMarks.Point: [Double]] = [:]
        for sample in samples {
            // The first time each point was passed in this sample, the end standing for `last`.
            var times: [StageMarks.Point: UInt64] = [:]
            for (point, time) in sample.marks where times[point] == nil && time >= sample.start {
                times[point] = time
            }
            times[last] = sample.end
            var previous = sample.start
            for point in points {
                guard let time = times[point], time >= previous else { continue }
                durations[point, default: []].append(Double(time - previous) / 1000)
                previous = time
            }
        }
        return points.compactMap { point in
            guard let values = durations[point]?.sorted(), !values.isEmpty else { return nil }
            return Step(
                point: "\(point)", description: point.step, p50: percentile(values, 0.5),
                p90: percentile(values, 0.9), samples: values.count)
        }
    }

    private static func total(_ samples: [Sample]) -> Double {
        percentile(samples.map { Double($0.end &- $0.start) / 1000 }.sorted(), 0.5)
    }

    private static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
