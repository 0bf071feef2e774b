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
    /// ours ÷ floor for throughput (`ratio`, a fraction) and for discovery (`ratio`, a time over
    /// the floor's time). With several runs, `ratio` is the median of the runs' ratios, not the
    /// median figure over the median floor.
    package var floorKey: String?
    package var ratioP50: Double?
    package var ratioP99: Double?
    package var ratio: Double?
    package var target: String?
    /// nil for floors (no target).
    package var pass: Bool?
    /// What ``pass`` is judged on (kept so that the medians of several runs can be judged again).
    package var goal: BenchGoal?
    /// A throughput row's second comparison: with the lower of two floors (the stream row: raw TCP
    /// and the cipher on one core), and which of them was lower (the limit that binds).
    package var limitRatio: Double?
    package var limitKey: String?
    /// A second figure the goal judges: the idle row's beacons beyond the refresh, per device per second.
    package var extra: Double?
    /// With several runs: the figures above are medians, and these are their ranges.
    package var spread: BenchSpread?
    /// A stream row's cost: CPU seconds of every thread of the process per gigabyte carried.
    package var cpuPerGigabyte: Double?

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

    static func throughput(
        _ key: String, _ label: String, _ megabytesPerSecond: Double, runs: Int, cpuPerGigabyte: Double? = nil
    ) -> BenchRow {
        var row = BenchRow(key: key, label: label, unit: "MB/s", samples: runs)
        row.value = megabytesPerSecond
        row.cpuPerGigabyte = cpuPerGigabyte
        return row
    }

    mutating func compare(withLatency floor: BenchRow, floorName: String) {
        floorKey = floor.key
        floorLabel = floorName
        if let p50, let floor50 = floor.p50, floor50 > 0 { ratioP50 = p50 / floor50 }
        if let p99, let floor99 = floor.p99, floor99 > 0 { ratioP99 = p99 / floor99 }
    }

    /// Short name of the floor in the table ("UDP", "TCP"), and of the lower floor ("TCP", "AES-GCM").
    var floorLabel: String?
    var limitLabel: String?

    enum CodingKeys: String, CodingKey {
        case key, label, unit, p50, p99, max, value, samples, floorKey, ratioP50, ratioP99, ratio, target, pass,
            goal, limitRatio, limitKey, extra, spread, floorLabel, limitLabel, cpuPerGigabyte
    }

    /// Sets ``pass`` from ``goal`` and the row's figures (nil without a goal).
    mutating func judge() {
        pass = goal?.isMet(by: self)
    }
}

/// What a row must reach. Every bound present must hold.
package struct BenchGoal: Sendable, Hashable, Codable {
    /// Latency: p50 over the floor's p50, at most.
    package var maxRatioP50: Double?
    /// Latency: p99 in microseconds, at most.
    package var maxP99: Double?
    /// Throughput: the fraction of the floor (``BenchRow/ratio``), at least.
    package var minRatio: Double?
    /// Throughput: the fraction of the lower floor (``BenchRow/limitRatio``), at least.
    package var minLimitRatio: Double?
    /// Durations and rates: ``BenchRow/value`` at most.
    package var maxValue: Double?
    /// ``BenchRow/extra`` (the idle row: beacons beyond the refresh), at most.
    package var maxExtra: Double?

    package init(
        maxRatioP50: Double? = nil, maxP99: Double? = nil, minRatio: Double? = nil, minLimitRatio: Double? = nil,
        maxValue: Double? = nil, maxExtra: Double? = nil
    ) {
        self.maxRatioP50 = maxRatioP50
        self.maxP99 = maxP99
        self.minRatio = minRatio
        self.minLimitRatio = minLimitRatio
        self.maxValue = maxValue
        self.maxExtra = maxExtra
    }

    func isMet(by row: BenchRow) -> Bool {
        if let bound = maxRatioP50, (row.ratioP50 ?? .infinity) > bound { return false }
        if let bound = maxP99, (row.p99 ?? .infinity) > bound { return false }
        if let bound = minRatio, (row.ratio ?? 0) < bound { return false }
        if let bound = minLimitRatio, (row.limitRatio ?? 0) < bound { return false }
        if let bound = maxValue, (row.value ?? .infinity) > bound { return false }
        if let bound = maxExtra, (row.extra ?? .infinity) > bound { return false }
        return true
    }
}

/// The range of a row's figures over several runs (the row itself holds their medians).
package struct BenchSpread: Sendable, Hashable, Codable {
    package var runs: Int
    /// The headline figure (p50 for latencies, the value otherwise): lowest and highest run.
    package var valueMin: Double
    package var valueMax: Double
    /// The ratio to the floor (p50 ratio for latencies): lowest and highest run.
    package var ratioMin: Double?
    package var ratioMax: Double?
    /// The ratio to the lower floor (streams): lowest and highest run.
    package var limitRatioMin: Double?
    package var limitRatioMax: Double?
    /// How many of the runs met the goal on their own.
    package var passes: Int?
}

/// Everything one `handoff bench` run measured.
package struct BenchReport: Sendable, Hashable, Codable {
    /// ``currentBuild`` of the binary that measured: "cross-module optimized release", "release"
    /// or "debug".
    package var build: String
    package var processors: Int
    package var iterations: Int
    package var devices: Int
    package var streamBytes: Int
    package var streamRuns: Int
    package var rows: [BenchRow]
    /// Runs combined into this report (1: a single run).
    package var runs: Int = 1
    /// Lines printed under the table (how discovery grows, which limit binds the streams).
    package var notes: [String] = []

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

    /// "debug", "release", or "cross-module optimized release" for a build of
    /// `scripts/release-build`, whose every module (the dependencies' too) was compiled with
    /// `-cross-module-optimization` and `-D HANDOFF_CROSS_MODULE_OPTIMIZED`: swift-crypto's generic
    /// AES-GCM entry points are then specialized for the beacon's bytes (docs/bench.md).
    package static var currentBuild: String {
        #if DEBUG
        "debug"
        #elseif HANDOFF_CROSS_MODULE_OPTIMIZED
        "cross-module optimized release"
        #else
        "release"
        #endif
    }

    /// What a bench prints first on standard error when its build is not the one the docs quote
    /// (nil for `scripts/release-build`'s).
    package static var buildCaveat: String? {
        #if DEBUG
        "note: this is a debug build; the figures mean something only in release "
            + "(scripts/release-build && .build-release/release/handoff bench)."
        #elseif HANDOFF_CROSS_MODULE_OPTIMIZED
        nil
        #else
        "note: this release build was not made by scripts/release-build (no cross-module "
            + "optimization): the beacon's AES-GCM calls run unspecialized, so offers and discovery "
            + "read slower than the figures in docs/bench.md."
        #endif
    }

    package func row(_ key: String) -> BenchRow? { rows.first { $0.key == key } }

    /// One run's judged latency and throughput rows on one line, each with its ratio to its floor
    /// ("offer 80.8 µs, 3.8× UDP; continue 290 µs, 3.1× TCP; streams 900 MB/s, 72% of bare TLS"),
    /// so that the runs behind a table's medians can be read as they end; nil when the report has
    /// none of those rows (a discovery-only run).
    package var runSummary: String? {
        let parts = rows.compactMap { row -> String? in
            guard row.goal != nil else { return nil }
            let name = row.label.prefix { $0 != "(" }.trimmingCharacters(in: .whitespaces).lowercased()
            switch row.unit {
            case "us":
                guard let p50 = row.p50 else { return nil }
                let ratio = row.ratioP50.map { String(format: ", %.1f× ", $0) + (row.floorLabel ?? "floor") } ?? ""
                return "\(name) \(Self.formatMicroseconds(p50))" + ratio
            case "MB/s":
                guard let value = row.value else { return nil }
                let ratio =
                    row.ratio.map { String(format: ", %.0f%% of ", $0 * 100) + (row.floorLabel ?? "floor") } ?? ""
                return "\(name) " + String(format: "%.0f MB/s", value) + ratio
            default:
                return nil
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// Whether every row with a target met it.
    package var allPass: Bool { rows.allSatisfy { $0.pass ?? true } }

    /// The report as pretty-printed JSON with sorted keys.
    package func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The table, one line per row, preceded by a line saying what was run, and followed by the notes.
    package func table() -> String {
        let header = ["Measurement", "p50 / value", "p99", "vs floor", "Runs: min–max", "Target", "Result"]
        var lines: [[String]] = []
        for row in rows {
            var cells = [row.label, "", "", "", "", row.target ?? "", row.pass.map { $0 ? "PASS" : "MISS" } ?? ""]
            if let passes = row.spread?.passes, row.pass != nil, runs > 1 { cells[6] += " (\(passes)/\(runs))" }
            switch row.unit {
            case "us":
                cells[1] = row.p50.map(Self.formatMicroseconds) ?? "—"
                cells[2] = row.p99.map(Self.formatMicroseconds) ?? "—"
                if let r50 = row.ratioP50, let r99 = row.ratioP99 {
                    cells[3] = String(format: "%.1f× / %.1f× ", r50, r99) + (row.floorLabel ?? "floor")
                }
                if let spread = row.spread {
                    cells[4] =
                        if let low = spread.ratioMin, let high = spread.ratioMax {
                            String(format: "%.1f–%.1f×", low, high)
                        } else {
                            Self.formatMicroseconds(spread.valueMin) + "–" + Self.formatMicroseconds(spread.valueMax)
                        }
                }
            case "/s":
                cells[1] = row.value.map { String(format: "%.2f /s", $0) } ?? "—"
                if let spread = row.spread {
                    cells[4] = String(format: "%.2f–%.2f /s", spread.valueMin, spread.valueMax)
                }
            case "MB/s":
                cells[1] = row.value.map { String(format: "%.0f MB/s", $0) } ?? "—"
                var comparisons: [String] = []
                var ranges: [String] = []
                if let ratio = row.ratio {
                    comparisons.append(String(format: "%.0f%% of ", ratio * 100) + (row.floorLabel ?? "TCP"))
                    if let low = row.spread?.ratioMin, let high = row.spread?.ratioMax {
                        ranges.append(String(format: "%.0f–%.0f%%", low * 100, high * 100))
                    }
                }
                if let ratio = row.limitRatio {
                    comparisons.append(String(format: "%.0f%% of ", ratio * 100) + (row.limitLabel ?? "limit"))
                    if let low = row.spread?.limitRatioMin, let high = row.spread?.limitRatioMax {
                        ranges.append(String(format: "%.0f–%.0f%%", low * 100, high * 100))
                    }
                }
                cells[3] = comparisons.joined(separator: ", ")
                cells[4] =
                    ranges.isEmpty
                    ? row.spread.map { String(format: "%.0f–%.0f MB/s", $0.valueMin, $0.valueMax) } ?? ""
                    : ranges.joined(separator: ", ")
            default:
                cells[1] = row.value.map { Self.formatMicroseconds($0 * 1000) } ?? "—"
                if let ratio = row.ratio { cells[3] = String(format: "%.1f× ", ratio) + (row.floorLabel ?? "floor") }
                if let spread = row.spread {
                    cells[4] =
                        Self.formatMicroseconds(spread.valueMin * 1000) + "–"
                        + Self.formatMicroseconds(spread.valueMax * 1000)
                }
            }
            lines.append(cells)
        }
        let widths = header.indices.map { column in
            ([header] + lines).map { $0[column].count }.max() ?? 0
        }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                return index == 0 || index >= 5 ? cell + padding : padding + cell
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        let title =
            "handoff bench: \(build) build, \(processors) CPUs, \(iterations) samples per latency row, "
            + "\(streamRuns) × \(String(format: "%g", Double(streamBytes) / 1_048_576)) MiB per throughput row (median), \(devices) devices"
            + (runs > 1 ? "; \(runs) runs: every figure is the median of the runs" : "")
        var output = [title, "", render(header), render(widths.map { String(repeating: "-", count: $0) })]
        output += lines.map(render)
        if !notes.isEmpty { output += [""] + notes }
        return output.joined(separator: "\n")
    }

    /// Several runs of the same bench as one report: every figure and ratio is the median of the
    /// runs (the upper median for an even count), the ranges go into each row's ``BenchSpread``, and
    /// each row is judged again on the medians, so that no single noisy floor passes or fails it.
    package static func combining(_ reports: [BenchReport]) -> BenchReport? {
        guard var combined = reports.first else { return nil }
        guard reports.count > 1 else { return combined }
        combined.runs = reports.count
        combined.rows = combined.rows.map { first in
            let runs = reports.compactMap { $0.row(first.key) }
            var row = first
            func median(_ figure: (BenchRow) -> Double?) -> Double? {
                let values = runs.compactMap(figure).sorted()
                return values.isEmpty ? nil : values[values.count / 2]
            }
            row.p50 = median(\.p50)
            row.p99 = median(\.p99)
            row.max = median(\.max)
            row.value = median(\.value)
            row.ratioP50 = median(\.ratioP50)
            row.ratioP99 = median(\.ratioP99)
            row.ratio = median(\.ratio)
            row.limitRatio = median(\.limitRatio)
            row.extra = median(\.extra)
            row.cpuPerGigabyte = median(\.cpuPerGigabyte)
            let headline = runs.compactMap { $0.unit == "us" ? $0.p50 : $0.value }
            let ratios = runs.compactMap { $0.unit == "us" ? $0.ratioP50 : $0.ratio }
            let limits = runs.compactMap(\.limitRatio)
            row.spread = BenchSpread(
                runs: runs.count, valueMin: headline.min() ?? 0, valueMax: headline.max() ?? 0,
                ratioMin: ratios.min(), ratioMax: ratios.max(), limitRatioMin: limits.min(),
                limitRatioMax: limits.max(), passes: first.goal == nil ? nil : runs.filter { $0.pass == true }.count)
            // The binding limit is the one that was lower in most runs.
            let keys = runs.compactMap(\.limitKey)
            if let common = Set(keys).max(by: { a, b in keys.count { $0 == a } < keys.count { $0 == b } }) {
                row.limitKey = common
                row.limitLabel = runs.first { $0.limitKey == common }?.limitLabel
            }
            row.judge()
            return row
        }
        return combined
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
