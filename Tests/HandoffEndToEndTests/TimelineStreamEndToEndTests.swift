import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// `handoff timeline` streamed, as a user runs it: the text and the Mermaid diagram are byte for
/// byte what the build that read recordings whole wrote (Tests/Fixtures/timeline/golden, written
/// by it), and the replay of a long generated recording opens on its first event and goes to its
/// last without reading it whole first.
@Suite(
    "handoff timeline streamed end to end", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil))
struct TimelineStreamEndToEndTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
    static let pairs: [(name: String, files: [String])] = [
        ("demo", ["Tests/Fixtures/timeline/demo-laptop.jsonl", "Tests/Fixtures/timeline/demo-phone.jsonl"]),
        (
            "continued",
            ["Fuzz/Corpus/fuzz-recording/continued-laptop.jsonl", "Fuzz/Corpus/fuzz-recording/continued-phone.jsonl"]
        ),
        (
            "no-answer",
            ["Fuzz/Corpus/fuzz-recording/no-answer-laptop.jsonl", "Fuzz/Corpus/fuzz-recording/no-answer-phone.jsonl"]
        ),
        ("phone-only", ["Tests/Fixtures/timeline/demo-phone.jsonl"]),
    ]

    /// Runs `handoff` with `arguments`; its status and standard output.
    func run(_ arguments: [String]) throws -> (status: Int32, output: Data) {
        let executable = try #require(HandoffExecutable.url)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out")
        let process = try ChildProcess(
            executable: executable.path, arguments: arguments, standardOutput: .file(output.path),
            standardError: .file(folder.appendingPathComponent("err").path))
        let termination = try #require(process.waitForExit(timeout: 120), "handoff \(arguments) did not end")
        return (termination.status, try Data(contentsOf: output))
    }

    func golden(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: Self.path("Tests/Fixtures/timeline/golden/\(name)")))
    }

    @Test func theTextIsByteForByteTheWholeReadersText() throws {
        for (name, files) in Self.pairs {
            let paths = files.map(Self.path)
            for (suffix, options) in [
                ("", [String]()), ("-w20", ["--lane-width", "20"]), ("-w70", ["--lane-width", "70"]),
            ] {
                let result = try run(["timeline"] + paths + ["--print"] + options)
                #expect(result.status == 0)
                #expect(result.output == (try golden("\(name)\(suffix).txt")), "\(name)\(suffix)")
            }
        }
        let demo = Self.pairs[0].files.map(Self.path)
        let one = try run(["timeline"] + demo + ["--print", "--continuation", "bb22"])
        #expect(one.output == (try golden("demo-bb22.txt")))
    }

    @Test func theMermaidDiagramIsByteForByteTheWholeReadersDiagram() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-mmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, files) in Self.pairs + [("demo-bb22", Self.pairs[0].files)] {
            let output = folder.appendingPathComponent("\(name).mmd").path
            let options = name == "demo-bb22" ? ["--continuation", "bb22"] : []
            let result = try run(["timeline"] + files.map(Self.path) + ["--mermaid", output] + options)
            #expect(result.status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == (try golden("\(name).mmd")), "\(name)")
        }
    }

    /// 42,000 events (a size a debug build indexes in seconds): the first screen shows the first
    /// event, PgDn and PgUp page, End shows the last, and Home goes back.
    @Test(.enabled(if: TmuxSession.isAvailable))
    func theReplayOfALongRecordingOpensAndPages() throws {
        let executable = try #require(HandoffExecutable.url).path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-long-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let generated = try run(
            ["timeline-bench", "--generate-only", "--folder", folder.path, "--events", "42000"])
        #expect(generated.status == 0)
        let files = String(decoding: generated.output, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(files.count == 2)
        let command =
            "'\(executable)' timeline \(files.map { "'\($0)'" }.joined(separator: " ")); echo \"EXIT=$?\"; exec sleep 60"
        let session = try #require(try TmuxSession(width: 100, height: 30, command: command))
        defer { session.close() }
        try session.waitFor("the first event", timeout: .seconds(30)) {
            $0.contains("handoff timeline · Laptop ↔ Phone · event 1 of") && $0.contains("▸activityCreated")
                && $0.contains("activityCreated on Laptop") && $0.contains("09:42:20.205 UTC")
        }
        try session.sendKeys("PageDown")
        try session.waitFor("a page on", timeout: .seconds(30)) { $0.contains("· event 11 of") }
        // 2,000 repetitions of 21 events; the last is the laptop's wasContinued, 1,999 s after the
        // first repetition's (09:42:20.356), in the time column and the detail panel alike.
        try session.sendKeys("End")
        try session.waitFor("the last event", timeout: .seconds(180)) {
            $0.contains("event 42000 of 42000 · ■ end") && $0.contains("10:15:39.356 │")
                && $0.contains("wasContinued on Laptop") && $0.contains("10:15:39.356 UTC")
                && $0.contains("← was continued from Phone")
        }
        try session.sendKeys("PageUp")
        try session.waitFor("a page back", timeout: .seconds(30)) {
            $0.contains("event 41990 of 42000 · ⏸ paused")
        }
        try session.sendKeys("Home")
        try session.waitFor("the first event again", timeout: .seconds(30)) {
            $0.contains("event 1 of 42000 · ⏸ paused") && $0.contains("▸activityCreated")
        }
        try session.sendKeys("q")
        try session.waitFor("the replay quit", timeout: .seconds(10)) { $0.contains("EXIT=0") }
    }
}
