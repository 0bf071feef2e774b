import ArgumentParser
import Foundation
import HandoffBench

/// `handoff bench`: measures the loopback floors and the simulator's own latencies and throughput
/// in one run, and prints them in one table with the targets (see docs/bench.md).
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure discovery, continuation and stream performance against the loopback floors.",
        discussion: """
            Runs real devices in this process (each with its own sockets, in a private temporary \
            account on a private discovery port, so no other device is involved), and the raw UDP and \
            TCP floors they are compared with. Build in release for meaningful figures: \
            swift build -c release && .build/release/handoff bench
            """
    )

    @Option(help: "Samples per latency row (floors included).")
    var iterations = 200

    @Option(
        help: ArgumentHelp(
            "Devices started at once for the discovery rows: one count, or several separated by commas.",
            valueName: "N[,N…]"))
    var devices = "128,256"

    @Option(help: "Seconds the first discovery row's devices stay idle afterwards, to count their beacons (0: skip).")
    var idleSeconds: Double = 3

    @Option(help: ArgumentHelp("Mebibytes per throughput run.", valueName: "MiB"))
    var streamMib = 64

    @Option(help: "Throughput runs per row (the median is reported).")
    var streamRuns = 3

    @Flag(help: "Print the report as JSON on standard output (the table goes to standard error).")
    var json = false

    func validate() throws {
        guard iterations > 0 else { throw ValidationError("--iterations must be positive.") }
        guard let counts = deviceCounts, !counts.isEmpty, counts.allSatisfy({ $0 >= 2 }) else {
            throw ValidationError(
                "--devices takes counts of at least 2, separated by commas (e.g. 128,256); got '\(devices)'.")
        }
        guard idleSeconds >= 0 else { throw ValidationError("--idle-seconds must not be negative.") }
        guard streamMib > 0, streamRuns > 0 else {
            throw ValidationError("--stream-mib and --stream-runs must be positive.")
        }
    }

    func run() async throws {
        let note = Self.note
        if BenchReport.currentBuild == "debug" {
            note(
                "note: this is a debug build; the figures mean something only in release "
                    + "(swift build -c release && .build/release/handoff bench).")
        }
        let options = NetworkBench.Options(
            iterations: iterations, devices: deviceCounts?.first ?? 128, streamBytes: streamMib << 20,
            streamRuns: streamRuns,
            moreDevices: Array((deviceCounts ?? []).dropFirst()), idleSeconds: idleSeconds,
            progress: { step in Self.note(step.hasPrefix("measured") ? step : "measuring \(step)…") })
        let report = try await NetworkBench.run(options)
        if json {
            note(report.table())
            print(try report.json())
        } else {
            print(report.table())
        }
    }

    /// The counts of `--devices`, or nil if one is not a number.
    var deviceCounts: [Int]? {
        let counts = devices.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        return counts.contains(nil) ? nil : counts.compactMap { $0 }
    }

    /// A line on standard error (progress and notes stay out of the table and the JSON).
    @Sendable static func note(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
