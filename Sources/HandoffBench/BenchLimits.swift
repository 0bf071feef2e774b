import Foundation
import NIOSSL

extension BenchRow {
    /// The stream row's two comparisons: with the bare TLS stream (``ratio``), and with the lower
    /// of raw TCP and the cipher's one-core rate, sealing or opening (``limitRatio``, and which
    /// of the three was lowest in ``limitKey``).
    mutating func compare(withThroughputs floors: [BenchRow]) {
        func floor(_ key: String) -> Double? { floors.first { $0.key == key }?.value }
        guard let value else { return }
        if let tls = floor(NetworkBench.Key.tlsFloor), tls > 0 {
            ratio = value / tls
            floorKey = NetworkBench.Key.tlsFloor
            floorLabel = "bare TLS"
        }
        let limits: [(key: String, label: String, value: Double)] = [
            (NetworkBench.Key.throughputFloor, "TCP", floor(NetworkBench.Key.throughputFloor)),
            (NetworkBench.Key.sealFloor, "seal", floor(NetworkBench.Key.sealFloor)),
            (NetworkBench.Key.openFloor, "open", floor(NetworkBench.Key.openFloor)),
        ].compactMap { key, label, value in value.map { (key, label, $0) } }
        if let lowest = limits.min(by: { $0.value < $1.value }), lowest.value > 0 {
            limitRatio = value / lowest.value
            limitKey = lowest.key
            limitLabel = lowest.label
        }
    }
}

extension NetworkBench {
    /// "TLS 1.3".
    static func describe(_ version: TLSVersion) -> String {
        switch version {
        case .tlsv13: "TLS 1.3"
        case .tlsv12: "TLS 1.2"
        case .tlsv11: "TLS 1.1"
        case .tlsv1: "TLS 1.0"
        }
    }

    /// The lines under the table: which limit binds the streams, and how discovery grows with the
    /// number of devices.
    static func notes(on report: BenchReport, _ options: Options) -> [String] {
        var notes: [String] = []
        if let streams = report.row(Key.streams), let tls = report.row(Key.tlsFloor)?.value,
            let limitKey = streams.limitKey, let limit = report.row(limitKey)?.value, limit > 0
        {
            let limitName =
                switch limitKey {
                case Key.throughputFloor: "raw TCP"
                case Key.sealFloor: "AES-GCM sealing on one core"
                default: "AES-GCM opening on one core"
                }
            let tlsShare = tls / limit
            let ours = streams.ratio ?? 0
            var sentence = "Streams: the lowest floor is \(limitName) (\(Int(limit.rounded())) MB/s). "
            sentence += String(format: "The bare TLS stream reaches %.0f%% of it", tlsShare * 100)
            sentence +=
                tlsShare < 0.7
                ? ", so TLS in user space (NIOSSL and BoringSSL around the cipher) binds before that floor does"
                : ""
            sentence += String(format: "; our stream reaches %.0f%% of the bare TLS stream", ours * 100)
            sentence +=
                ours < 0.9
                ? String(format: ", so our layers cost a further %.0f%%.", (1 - ours) * 100)
                : ", so our layers are within the 10% allowed."
            if let copying = report.row(Key.tlsCopyFloor)?.value, copying > 0, let value = streams.value {
                sentence += String(
                    format:
                        " Copying each chunk from and into byte arrays alone takes the bare TLS stream to %.0f%% of itself; our stream reaches %.0f%% of that.",
                    copying / tls * 100, value / copying * 100)
            }
            notes.append(sentence)
        }
        if let ours = report.row(Key.streams)?.cpuPerGigabyte, let bare = report.row(Key.tlsFloor)?.cpuPerGigabyte,
            bare > 0
        {
            var sentence = String(
                format: "CPU per GB carried (every thread of this process): bare TLS %.2f s", bare)
            if let copying = report.row(Key.tlsCopyFloor)?.cpuPerGigabyte, copying > 0 {
                sentence += String(format: ", with the copies %.2f s", copying)
                sentence += String(
                    format: ", our stream %.2f s (%+.0f%% over the copies).", ours, (ours / copying - 1) * 100)
            } else {
                sentence += String(format: ", our stream %.2f s (%+.0f%%).", ours, (ours / bare - 1) * 100)
            }
            notes.append(sentence)
        }
        if let resume = report.row(Key.continue), let p50 = resume.p50, let goal = resume.goal?.maxRatioP50,
            let tcp = report.row(Key.tcpFloor)?.p50, let tls = report.row(Key.tlsRoundTripFloor)?.p50, tcp > 0,
            tls > 0
        {
            notes.append(ContinueLimit(continuation: p50, tcp: tcp, tls: tls, goal: goal).sentence)
        }
        // Each discovery size's time, then its floor's, as (devices, ms) points.
        let sizes = [options.devices] + options.moreDevices
        func points(_ key: (_ index: Int, _ devices: Int) -> String) -> [(Double, Double)] {
            sizes.enumerated().compactMap { index, devices -> (Double, Double)? in
                guard let milliseconds = report.row(key(index, devices))?.value, milliseconds > 0 else { return nil }
                return (Double(devices), milliseconds)
            }.sorted { $0.0 < $1.0 }
        }
        if let growth = DiscoveryGrowth(points: points { $0 == 0 ? Key.discovery : Key.discovery($1) }) {
            notes.append(growth.sentence)
        }
        if let growth = DiscoveryGrowth(points: points { Key.discoveryFloor($1) }) {
            notes.append(growth.sentence(of: "Its floor (N(N − 1) deliveries and opens, nothing of ours)"))
        }
        return notes
    }
}

/// How the time until every pair met grows with the number of devices: the exponent k of a
/// least-squares fit of time ∝ n^k on a log-log scale (1: linear; n log n gives about 1.2 between 64
/// and 512 devices; 2: quadratic).
struct DiscoveryGrowth {
    var exponent: Double
    var points: [(devices: Double, milliseconds: Double)]

    init?(points: [(Double, Double)]) {
        let distinct = Set(points.map(\.0))
        guard distinct.count >= 2 else { return nil }
        let logs = points.map { (log($0.0), log($0.1)) }
        let meanX = logs.map(\.0).reduce(0, +) / Double(logs.count)
        let meanY = logs.map(\.1).reduce(0, +) / Double(logs.count)
        let covariance = logs.map { ($0.0 - meanX) * ($0.1 - meanY) }.reduce(0, +)
        let variance = logs.map { ($0.0 - meanX) * ($0.0 - meanX) }.reduce(0, +)
        guard variance > 0 else { return nil }
        exponent = covariance / variance
        self.points = points.map { (devices: $0.0, milliseconds: $0.1) }
    }

    var shape: String {
        switch exponent {
        case ..<1.1: "about linear"
        case ..<1.45: "about n log n"
        case ..<1.8: "between n log n and quadratic"
        default: "about quadratic"
        }
    }

    var sentence: String { sentence(of: "Discovery") }

    func sentence(of subject: String) -> String {
        let steps = zip(points, points.dropFirst()).map { low, high in
            String(
                format: "%.0f→%.0f devices ×%.1f", low.devices, high.devices, high.milliseconds / low.milliseconds)
        }
        return subject + String(format: " grows as n^%.2f (%@): ", exponent, shape) + steps.joined(separator: ", ")
            + "."
    }
}

/// What the continue row's goal (`goal` times the TCP floor, the row's own ``BenchGoal``) leaves
/// for our work, once NIO and TLS alone have made the same round trip on an open session
/// (``TLSRoundTripFloor``): p50s in microseconds.
struct ContinueLimit {
    var continuation: Double
    var tcp: Double
    var tls: Double
    var goal: Double

    /// The goal's allowance in microseconds, less the bare TLS round trip (negative: TLS alone is
    /// past the goal).
    var leftForOurs: Double { goal * tcp - tls }

    var sentence: String {
        var sentence = String(
            format:
                "Continue: a round trip on an open TLS session with nothing of ours takes %.0f µs (%.1f× the TCP floor)",
            tls, tls / tcp)
        sentence +=
            leftForOurs > 0
            ? String(format: ", so the %g× goal leaves %.0f µs for all of ours on the path", goal, leftForOurs)
            : String(format: ", so TLS alone is past the %g× goal", goal)
        sentence += String(
            format: "; the continuation takes %.0f µs %@ than that round trip (%.1f× it).", abs(continuation - tls),
            continuation >= tls ? "more" : "less", continuation / tls)
        return sentence
    }
}
