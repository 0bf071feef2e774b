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

    @Option(help: "Devices started at once for the discovery row.")
    var devices = 32

    @Option(help: ArgumentHelp("Mebibytes per throughput run.", valueName: "MiB"))
    var streamMib = 64

    @Option(help: "Throughput runs per row (the median is reported).")
    var streamRuns = 3

    @Flag(help: "Print the report as JSON on standard output (the table goes to standard error).")
    var json = false

    func validate() throws {
        guard iterations > 0 else { throw ValidationError("--iterations must be positive.") }
        guard devices >= 2 else { throw ValidationError("--devices must be at least 2.") }
        guard streamMib > 0, streamRuns > 0 else { throw ValidationError("--stream-mib and --stream-runs must be positive.") }
    }

    func run() async throws {
        let note = Self.note
        if BenchReport.currentBuild == "debug" {
            note("note: this is a debug build; the figures mean something only in release "
                 + "(swift build -c release && .build/release/handoff bench).")
        }
        let options = NetworkBench.Options(
            iterations: iterations, devices: devices, streamBytes: streamMib << 20, streamRuns: streamRuns,
            progress: { step in Self.note("measuring \(step)…") })
        let report = try await NetworkBench.run(options)
        if json {
            note(report.table())
            print(try report.json())
        } else {
            print(report.table())
        }
    }

    /// A line on standard error (progress and notes stay out of the table and the JSON).
    @Sendable static func note(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
