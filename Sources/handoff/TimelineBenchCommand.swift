import ArgumentParser
import Foundation
import HandoffRecordings

#if canImport(Glibc)
import Glibc
#endif

/// `handoff timeline-bench`: `handoff timeline` on a generated recording of a million events
/// (``GeneratedRecordings``), each output timed and its peak resident memory measured as a child
/// process, next to the floor of reading the same files (`wc -l`) in the same run.
struct TimelineBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline-bench",
        abstract: "Measure handoff timeline on a generated recording of many events against reading it.",
        discussion: """
            Writes a laptop's and a phone's recordings of --events events in all (the demo \
            continuation repeated once a second), then runs this program's `timeline` on them for \
            each output (--print to /dev/null, --svg, --mermaid, --trace to files) --runs times, and \
            `wc -l` on them as the floor: the time and the peak resident memory of each run as a \
            child process (wait4's ru_maxrss), as the median with the minimum and maximum. Build \
            in release for meaningful figures: scripts/release-build handoff. \
            --generate-only writes the recordings into --folder and prints their paths.
            """
    )

    @Option(help: "Events in the recordings (both devices together).")
    var events = 1_000_000

    @Option(help: "Runs of each row.")
    var runs = 5

    @Option(help: ArgumentHelp("The outputs measured, separated by commas.", valueName: "print,svg,mermaid,trace"))
    var outputs = "print,svg,mermaid,trace"

    @Option(
        help: ArgumentHelp("Where the recordings are written (a temporary folder, removed after).", valueName: "dir"))
    var folder: String?

    @Flag(help: "Only write the recordings into --folder and print their paths.")
    var generateOnly = false

    static let known = ["print", "svg", "mermaid", "trace"]

    func validate() throws {
        guard events > 0, runs > 0 else { throw ValidationError("--events and --runs must be positive.") }
        if generateOnly, folder == nil { throw ValidationError("--generate-only needs --folder.") }
        for output in outputs.split(separator: ",") where !Self.known.contains(String(output)) {
            throw ValidationError("unknown output \"\(output)\" (outputs: \(Self.known.joined(separator: ", "))).")
        }
    }

    func run() throws {
        let temporary = folder == nil
        let folder =
            self.folder
            ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("timeline-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { if temporary { try? FileManager.default.removeItem(atPath: folder) } }
        let started = ContinuousClock.now
        let (files, count) = try GeneratedRecordings.write(events: events, into: folder)
        let bytes = files.compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }
            .reduce(0, +)
        if generateOnly {
            for file in files { print(file) }
            return
        }
        note(
            "wrote \(count) events (\(bytes / 1_000_000) MB in \(files.count) recordings) in "
                + "\(Self.seconds(ContinuousClock.now - started)) s")
        #if DEBUG
        note("note: this is a debug build; build in release for meaningful figures.")
        #endif
        let executable = Self.executablePath()
        var rows: [(name: String, samples: [Sample])] = []
        guard let wc = Self.which("wc") else { throw ValidationError("wc is not on the PATH (the floor).") }
        rows.append(("floor: wc -l", try measure(wc, ["-l"] + files)))
        for output in outputs.split(separator: ",").map(String.init) {
            let file = (folder as NSString).appendingPathComponent("out.\(output)")
            let arguments = ["timeline"] + files + (output == "print" ? ["--print"] : ["--\(output)", file])
            rows.append(("timeline --\(output)", try measure(executable, arguments)))
            try? FileManager.default.removeItem(atPath: file)
        }
        print("handoff timeline on \(count) events (\(bytes / 1_000_000) MB, \(files.count) recordings), \(runs) runs")
        print("row                    time s: median (min–max)      peak RSS MB: median (min–max)   × floor time")
        let floor = Self.median(rows[0].samples.map(\.seconds))
        for row in rows {
            let times = row.samples.map(\.seconds)
            let memory = row.samples.map { Double($0.peakKiB) / 1024 }
            let line =
                row.name.padding(toLength: 22, withPad: " ", startingAt: 0) + " "
                + "\(Self.fixed(Self.median(times), 2)) (\(Self.fixed(times.min() ?? 0, 2))–\(Self.fixed(times.max() ?? 0, 2)))"
                .padding(toLength: 30, withPad: " ", startingAt: 0)
                + "\(Self.fixed(Self.median(memory), 1)) (\(Self.fixed(memory.min() ?? 0, 1))–\(Self.fixed(memory.max() ?? 0, 1)))"
                .padding(toLength: 32, withPad: " ", startingAt: 0)
                + (floor > 0 ? "\(Self.fixed(Self.median(times) / floor, 1))" : "-")
            print(line)
        }
    }

    struct Sample {
        var seconds: Double
        var peakKiB: Int
    }

    /// `runs` runs of `executable` with `arguments`, output to /dev/null; fails on a non-zero exit.
    func measure(_ executable: String, _ arguments: [String]) throws -> [Sample] {
        var samples: [Sample] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            let (status, usage) = try Self.spawnAndWait(executable, arguments)
            let elapsed = ContinuousClock.now - start
            guard status == 0 else {
                throw ValidationError("\(executable) \(arguments.joined(separator: " ")) exited with \(status)")
            }
            samples.append(Sample(seconds: Self.seconds(elapsed), peakKiB: usage.ru_maxrss))
            note(
                "  \((executable as NSString).lastPathComponent) \(arguments.first ?? ""): \(Self.fixed(Self.seconds(elapsed), 2)) s, \(usage.ru_maxrss / 1024) MB"
            )
        }
        return samples
    }

    /// Starts `executable` with standard output to /dev/null and waits for it: its exit status and
    /// its resource usage (wait4).
    static func spawnAndWait(_ executable: String, _ arguments: [String]) throws -> (Int32, rusage) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard result == 0 else {
            throw ValidationError("\(executable) could not be started (\(String(cString: strerror(result))))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw ValidationError("wait4 failed (\(String(cString: strerror(errno))))") }
        }
        let exited = (status & 0x7F) == 0
        return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), usage)
    }

    /// This program's own path (the `timeline` it measures is this build's).
    static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    func note(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
}
