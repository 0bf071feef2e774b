import Foundation

/// One row of the bench table. Latencies are in microseconds (`p50`, `p99`), throughputs in MB/s
/// (10^6 bytes per second) and durations in milliseconds (`value`).
package struct BenchRow: Sendable, Hashable, Codable {
    package var key: String
    package var label: String
    /// "us", "MB/s", "ms" or "/s" (events per second).
    package var unit: String
    package var p50: Double?
    package var p99: Double?
    /// The slowest latency sample (the first continuation, which opens the session, is often it).
    package var max: Double?
    package var value: Double?
    /// Latency samples, throughput runs, or 1.
    package var samples: Int
    /// The floor this row is compared with, and how: ours ÷ floor for latencies (p50 and p99),
    /// ours ÷ floor for throughput (`ratio`, a fraction).
    package var floorKey: String?
    package var ratioP50: Double?
    package var ratioP99: Double?
    package var ratio: Double?
    package var target: String?
    /// nil for floors (no target).
    package var pass: Bool?

    package init(key: String, label: String, unit: String, samples: Int) {
        self.key = key
        self.label = label
        self.unit = unit
        self.samples = samples
    }

    static func latency(_ key: String, _ label: String, _ samples: LatencySamples) -> BenchRow {
        var row = BenchRow(key: key, label: label, unit: "us", samples: samples.count)
        row.p50 = samples.percentile(50)
        row.p99 = samples.percentile(99)
        row.max = samples.percentile(100)
        return row
    }

    static func throughput(_ key: String, _ label: String, _ megabytesPerSecond: Double, runs: Int) -> BenchRow {
        var row = BenchRow(key: key, label: label, unit: "MB/s", samples: runs)
        row.value = megabytesPerSecond
        return row
    }

    mutating func compare(withLatency floor: BenchRow, floorName: String) {
        floorKey = floor.key
        floorLabel = floorName
        if let p50, let floor50 = floor.p50, floor50 > 0 { ratioP50 = p50 / floor50 }
        if let p99, let floor99 = floor.p99, floor99 > 0 { ratioP99 = p99 / floor99 }
    }

    /// Short name of the floor in the table ("UDP", "TCP").
    var floorLabel: String?

    enum CodingKeys: String, CodingKey {
        case key, label, unit, p50, p99, max, value, samples, floorKey, ratioP50, ratioP99, ratio, target, pass
    }
}

/// Everything one `handoff bench` run measured.
package struct BenchReport: Sendable, Hashable, Codable {
    /// "release" or "debug".
    package var build: String
    package var processors: Int
    package var iterations: Int
    package var devices: Int
    package var streamBytes: Int
    package var streamRuns: Int
    package var rows: [BenchRow]

    package init(
        build: String, processors: Int, iterations: Int, devices: Int, streamBytes: Int, streamRuns: Int,
        rows: [BenchRow]
    ) {
        self.build = build
        self.processors = processors
        self.iterations = iterations
        self.devices = devices
        self.streamBytes = streamBytes
        self.streamRuns = streamRuns
        self.rows = rows
    }

    package static var currentBuild: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }

    package func row(_ key: String) -> BenchRow? { rows.first { $0.key == key } }

    /// Whether every row with a target met it.
    package var allPass: Bool { rows.allSatisfy { $0.pass ?? true } }

    /// The report as pretty-printed JSON with sorted keys.
    package func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The table, one line per row, preceded by a line saying what was run.
    package func table() -> String {
        let header = ["Measurement", "p50 / value", "p99", "vs floor", "Target", "Result"]
        var lines: [[String]] = []
        for row in rows {
            var cells = [row.label, "", "", "", row.target ?? "", row.pass.map { $0 ? "PASS" : "MISS" } ?? ""]
            switch row.unit {
            case "us":
                cells[1] = row.p50.map(Self.formatMicroseconds) ?? "—"
                cells[2] = row.p99.map(Self.formatMicroseconds) ?? "—"
                if let r50 = row.ratioP50, let r99 = row.ratioP99 {
                    cells[3] = String(format: "%.1f× / %.1f× ", r50, r99) + (row.floorLabel ?? "floor")
                }
            case "/s":
                cells[1] = row.value.map { String(format: "%.2f /s", $0) } ?? "—"
            case "MB/s":
                cells[1] = row.value.map { String(format: "%.0f MB/s", $0) } ?? "—"
                if let ratio = row.ratio { cells[3] = String(format: "%.0f%% of TCP", ratio * 100) }
            default:
                cells[1] = row.value.map { Self.formatMicroseconds($0 * 1000) } ?? "—"
            }
            lines.append(cells)
        }
        let widths = header.indices.map { column in
            ([header] + lines).map { $0[column].count }.max() ?? 0
        }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                return index == 0 || index >= 4 ? cell + padding : padding + cell
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        let title =
            "handoff bench: \(build) build, \(processors) CPUs, \(iterations) samples per latency row, "
            + "\(streamRuns) × \(String(format: "%g", Double(streamBytes) / 1_048_576)) MiB per throughput row (median), \(devices) devices"
        var output = [title, "", render(header), render(widths.map { String(repeating: "-", count: $0) })]
        output += lines.map(render)
        return output.joined(separator: "\n")
    }

    /// 57 µs, 1.24 ms, 12.5 ms, 250 ms, 1.20 s.
    static func formatMicroseconds(_ value: Double) -> String {
        switch value {
        case ..<1000: String(format: "%.0f µs", value)
        case ..<10_000: String(format: "%.2f ms", value / 1000)
        case ..<100_000: String(format: "%.1f ms", value / 1000)
        case ..<1_000_000: String(format: "%.0f ms", value / 1000)
        default: String(format: "%.2f s", value / 1_000_000)
        }
    }
}
