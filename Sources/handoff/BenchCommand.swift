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
            scripts/release-build && .build-release/release/handoff bench
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

    @Option(help: "Runs of the whole bench: every figure and ratio is the median of the runs, with their range.")
    var runs = 5

    @Option(
        help: ArgumentHelp(
            "Instead of the table: N pairs of devices in one account continue back and forth (a classroom).",
            valueName: "N"))
    var classroom: Int?

    @Flag(help: "With --classroom: one process per pair instead of all in this one.")
    var processes = false

    @Option(help: "With --classroom: seconds of continuing back and forth.")
    var seconds: Double = 10

    @Option(
        help: ArgumentHelp(
            "With --classroom: seconds between the starts of a pair's rounds (0: back to back, the class's capacity).",
            valueName: "SECONDS"))
    var pace: Double = ClassroomBench.Options.busyClassPace

    @Flag(
        help:
            "Instead of the table: where an offer's and a continuation's time goes, step by step (--iterations of each)."
    )
    var stages = false

    @Flag(help: "Only the discovery rows (and the idle row): no floors, offers, continuations or streams.")
    var discoveryOnly = false

    @Flag(
        help:
            "Only the stream row and its floors (raw TCP, AES-GCM on one core, bare TLS): no latency rows, no discovery."
    )
    var streamsOnly = false

    @Option(
        help: ArgumentHelp(
            "perf's control FIFOs (perf record -D -1 --control fifo:CTL,ACK): the profile holds the discovery windows only (with --streams-only, our stream runs only).",
            valueName: "CTL[,ACK]"))
    var perfControl: String?

    @Option(
        help: ArgumentHelp(
            "Instead of the table: N peers' beacons through one device's receive path without sockets (open, judgement, the device's handling), a round of newcomers and 3 of refreshes: the cost per beacon of each.",
            valueName: "N"))
    var beaconPath: Int?

    @Option(help: .hidden) var classroomChild: Int?
    @Option(help: .hidden) var classroomDirectory: String?
    @Option(help: .hidden) var classroomPort: Int?
    @Option(help: .hidden) var classroomStart: Double?

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
        guard runs > 0 else { throw ValidationError("--runs must be positive.") }
        if let classroom, classroom < 1 { throw ValidationError("--classroom takes a number of pairs, at least 1.") }
        if pace < 0 { throw ValidationError("--pace takes seconds between a pair's rounds, 0 or more.") }
        guard seconds > 0 else { throw ValidationError("--seconds must be positive.") }
        if processes, classroom == nil { throw ValidationError("--processes goes with --classroom N.") }
        if stages, classroom != nil { throw ValidationError("--stages and --classroom are separate benches.") }
        if let beaconPath {
            guard beaconPath > 0 else { throw ValidationError("--beacon-path takes a number of peers, at least 1.") }
            if stages || classroom != nil || discoveryOnly || streamsOnly || perfControl != nil {
                throw ValidationError("--beacon-path is a bench of its own: no --stages, --classroom or table options.")
            }
        }
        if discoveryOnly || streamsOnly || perfControl != nil, stages || classroom != nil {
            throw ValidationError(
                "--discovery-only, --streams-only and --perf-control go with the table, not --stages or --classroom.")
        }
        if discoveryOnly, streamsOnly {
            throw ValidationError("--discovery-only and --streams-only exclude each other.")
        }
        if let perfControl, perfControl.split(separator: ",").isEmpty {
            throw ValidationError(
                "--perf-control takes perf's control FIFO, and optionally its acknowledgement FIFO: CTL[,ACK].")
        }
    }

    func run() async throws {
        let note = Self.note
        if let caveat = BenchReport.buildCaveat { note(caveat) }
        if classroomChild != nil || classroom != nil {
            try await runClassroom()
            return
        }
        if let beaconPath {
            let result = try await BeaconPathBench.measure(peers: beaconPath)
            try report(result, table: result.table())
            return
        }
        if stages {
            let report = try await StageBench.measure(NetworkBench.Options(iterations: iterations))
            try self.report(report, table: report.table())
            return
        }
        var options = NetworkBench.Options(
            iterations: iterations, devices: deviceCounts?.first ?? 128, streamBytes: streamMib << 20,
            streamRuns: streamRuns,
            moreDevices: Array((deviceCounts ?? []).dropFirst()), idleSeconds: idleSeconds,
            progress: { step in Self.note(step.hasPrefix("measured") ? step : "measuring \(step)…") })
        options.discoveryOnly = discoveryOnly
        options.streamsOnly = streamsOnly
        if let perfControl {
            let paths = perfControl.split(separator: ",", maxSplits: 1).map(String.init)
            options.perfControl = try PerfControl(control: paths[0], acknowledgement: paths.count > 1 ? paths[1] : nil)
        }
        let report = try await NetworkBench.run(options, runs: runs)
        if json {
            note(report.table())
            print(try report.json())
        } else {
            print(report.table())
        }
    }

    /// `--classroom N` (with `--processes`, one child per pair), or one of those children.
    private func runClassroom() async throws {
        // A child's progress would be one line per pair: only the driver says what it measures.
        var progress: (@Sendable (String) -> Void)?
        if classroomChild == nil { progress = { step in BenchCommand.note("measuring \(step)…") } }
        let options = ClassroomBench.Options(
            pairs: classroom ?? 1, seconds: seconds, pace: pace, idleSeconds: idleSeconds, progress: progress)
        if let pair = classroomChild {
            guard let classroomDirectory, let classroomPort, let classroomStart else {
                throw ValidationError("--classroom-child goes with --classroom-directory, -port and -start.")
            }
            let result = try await ClassroomBench.runChild(
                ClassroomBench.ChildOptions(
                    directory: URL(fileURLWithPath: classroomDirectory), port: classroomPort, pair: pair,
                    startAt: Date(timeIntervalSince1970: classroomStart), classroom: options))
            print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
            return
        }
        let result =
            processes
            ? try await ClassroomBench.runInProcesses(
                options, executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path)
            : try await ClassroomBench.run(options)
        try report(result, table: result.table())
    }

    /// A bench's result: its table on standard output, or with `--json` the result as pretty JSON
    /// there and the table on standard error.
    private func report(_ result: some Encodable, table: String) throws {
        guard json else {
            print(table)
            return
        }
        Self.note(table)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(result), as: UTF8.self))
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
