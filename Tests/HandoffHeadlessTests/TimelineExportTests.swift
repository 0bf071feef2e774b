import Foundation
import HandoffCore
import Testing

@testable import HandoffRecordings

/// `handoff timeline`'s outputs for other tools, from real recordings: the demo continuation in
/// Tests/Fixtures/timeline (recorded by two headless devices) and the no-answer failure of the
/// fuzzing seeds. The trace is checked against the Trace Event Format's rules here; that a real
/// Mermaid parser and a real trace reader take them is HandoffEndToEndTests' TimelineConsumerTests.
@Suite("Timeline exports")
struct TimelineExportTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let demo = ["laptop", "phone"].map {
        root.appendingPathComponent("Tests/Fixtures/timeline/demo-\($0).jsonl").path
    }
    static let noAnswer = ["laptop", "phone"].map {
        root.appendingPathComponent("Fuzz/Corpus/fuzz-recording/no-answer-\($0).jsonl").path
    }

    static func timeline(_ files: [String], continuation: String? = nil) throws -> Timeline {
        Timeline(recordings: try LifecycleRecording.load(files), continuation: continuation)
    }

    // MARK: Order

    /// The fixture's arrows all go down, and the no-answer fault comes after the request it struck.
    @Test(arguments: [TimelineExportTests.demo, TimelineExportTests.noAnswer])
    func everyArrowGoesDown(files: [String]) throws {
        let timeline = try Self.timeline(files)
        #expect(!timeline.arrows.isEmpty)
        for arrow in timeline.arrows { #expect(arrow.from < arrow.to, "\(arrow.label)") }
        let kinds = timeline.rows.map(\.event.kind)
        if let fault = kinds.firstIndex(of: .faultInjected) {
            #expect(try #require(kinds.firstIndex(of: .fetchStarted)) < fault)
        }
        if let continued = kinds.firstIndex(of: .continued) {
            #expect(continued < (kinds.firstIndex(of: .wasContinued) ?? -1))
        }
    }

    // MARK: SVG

    /// Each `<text>` of the picture's rows, its lines joined.
    func rowTexts(_ svg: String) -> [String] {
        svg.split(separator: "\n").filter { $0.contains("<tspan") }.map { line in
            line.matches(of: /<tspan[^>]*>([^<]*)<\/tspan>/).map { String($0.output.1) }.joined(separator: " ")
        }
    }

    /// A failure's code, name and reason are whole in the picture, and within its width.
    @Test func theSVGCutsNothing() throws {
        let timeline = try Self.timeline(Self.noAnswer)
        let svg = timeline.svg()
        let texts = rowTexts(svg)
        #expect(texts.count == timeline.rows.count)
        let failure = try #require(timeline.rows.first { $0.event.kind == .continuationFailed })
        #expect(failure.event.detail.contains("4610 NSUserActivityRemoteApplicationTimedOutError: no payload"))
        #expect(texts.contains(Timeline.escape(Timeline.label(failure.event))))
        #expect(!texts.joined().contains("…"))
        // Every line fits: 6.7 px a character from where it starts.
        let width = try #require(svg.firstMatch(of: /width="(\d+)"/).flatMap { Int($0.output.1) })
        for match in svg.matches(of: /<tspan x="(\d+)"[^>]*>([^<]*)<\/tspan>/) {
            let x = Int(match.output.1) ?? 0
            let characters = match.output.2.replacing(/&[a-z]+;/, with: "x").count
            #expect(Double(x) + Double(characters) * 6.7 <= Double(width), "\(match.output.2)")
        }
        // Arrows go down; the colour table names the lab's kinds.
        for match in svg.matches(of: /class="arrow" x1="-?\d+" y1="(\d+)" x2="-?\d+" y2="(\d+)"/) {
            #expect((Int(match.output.1) ?? 0) < (Int(match.output.2) ?? 0))
        }
        #expect(svg.contains("faultInjected") && svg.contains("stepPaused"))
        let legend = svg.split(separator: "\n").filter { $0.contains("class=\"legend\"") }
        #expect(legend.contains { $0.contains("warning") && $0.contains("faultInjected") && $0.contains("stepPaused") })
    }

    // MARK: Mermaid

    @Test func theMermaidDiagramHasTheDevicesMessagesAndNotes() throws {
        let timeline = try Self.timeline(Self.demo)
        let mermaid = timeline.mermaid()
        let lines = mermaid.split(separator: "\n").map(String.init)
        #expect(lines.first == "sequenceDiagram")
        #expect(lines.filter { $0.hasPrefix("    participant D") }.count == timeline.lanes.count)
        #expect(lines.filter { $0.contains("->>") }.count == timeline.arrows.count)
        #expect(lines.filter { $0.contains("-x") && $0.hasPrefix("    D") }.count == timeline.lost.count)
        let notes = timeline.rows.filter { !Timeline.messageKinds.contains($0.event.kind) }.count
        #expect(lines.filter { $0.hasPrefix("    Note over ") }.count == notes)
        #expect(mermaid.contains("beacon #35;1"))
        // Nothing the grammar reads is left raw after a message's colon.
        for line in lines.dropFirst() {
            let text = line.split(separator: ":", maxSplits: 1).dropFirst().first ?? ""
            #expect(!text.contains(";") || text.contains("#"), "\(line)")
            #expect(!text.contains("<") && !text.contains(">") && !text.contains("%"))
        }
    }

    @Test func mermaidTextIsEscaped() {
        #expect(Timeline.mermaidText("a#b;c<d>e%f:g\nh") == "a#35;b#59;c#lt;d#gt;e#37;f#58;g h")
        #expect(Timeline.mermaidText("\u{1B}[2J") == "[2J")
        #expect(Timeline.mermaidText("  ") == "-")
        // Printable ASCII is escaped byte by byte: the same text as character by character.
        for text in [
            "", " ", "  x  ", "a#b;c<d>e%f:g h", "#;<>%:", "payload 161 B", " beacon #12 (lost) ",
            "~!@$^&*()_+{}|\"'?,./",
        ] {
            #expect(Timeline.mermaidASCIIText(text) == Timeline.mermaidCharacterText(text), "\(text)")
        }
        #expect(Timeline.mermaidASCIIText("Zoë") == nil)
        #expect(Timeline.mermaidASCIIText("a\tb") == nil)
    }

    // MARK: Trace

    /// The Trace Event Format's rules, checked on our own: the JSON object form, known phases,
    /// names for every process and thread used, flows whose ids pair (one start, one end, not
    /// before it), and times that never go back on a track.
    static func checkTraceRules(_ text: String) throws -> [[String: JSONValue]] {
        let trace = try JSONValue.parse(text)
        let object = try #require(trace.objectValue)
        let events = try #require(object["traceEvents"]?.arrayValue).compactMap(\.objectValue)
        #expect(object["displayTimeUnit"]?.stringValue == "ms")
        var processNames: Set<Int64> = []
        var threadNames: Set<[Int64]> = []
        var used: Set<[Int64]> = []
        var lastOnTrack: [[Int64]: Double] = [:]
        var flowStarts: [Int64: Double] = [:]
        var flowEnds: [Int64: Double] = [:]
        for event in events {
            let phase = try #require(event["ph"]?.stringValue)
            #expect(["M", "X", "s", "f"].contains(phase), "phase \(phase)")
            let pid = try #require(event["pid"]?.integerValue)
            let tid = try #require(event["tid"]?.integerValue)
            #expect(event["name"]?.stringValue?.isEmpty == false)
            if phase == "M" {
                let name = event["name"]?.stringValue
                if name == "process_name" { processNames.insert(pid) }
                if name == "thread_name" { threadNames.insert([pid, tid]) }
                if name == "process_name" || name == "thread_name" {
                    #expect(event["args"]?.objectValue?["name"]?.stringValue?.isEmpty == false)
                }
                continue
            }
            let ts = try #require(event["ts"]?.doubleValue)
            #expect(ts >= 0)
            used.insert([pid, tid])
            #expect(ts >= lastOnTrack[[pid, tid]] ?? 0, "time goes back on \(pid)/\(tid)")
            lastOnTrack[[pid, tid]] = ts
            switch phase {
            case "X":
                #expect((event["dur"]?.doubleValue ?? -1) >= 0)
            case "s", "f":
                let id = try #require(event["id"]?.integerValue)
                #expect(event["cat"]?.stringValue == "network")
                if phase == "s" {
                    #expect(flowStarts[id] == nil, "flow \(id) starts twice")
                    flowStarts[id] = ts
                } else {
                    #expect(flowEnds[id] == nil, "flow \(id) ends twice")
                    #expect(event["bp"]?.stringValue == "e")
                    flowEnds[id] = ts
                }
            default: break
            }
        }
        #expect(Set(flowStarts.keys) == Set(flowEnds.keys), "every flow id pairs")
        for (id, start) in flowStarts { #expect(start <= flowEnds[id] ?? .infinity, "flow \(id) goes back") }
        for track in used {
            #expect(processNames.contains(track[0]), "process \(track[0]) is named")
            #expect(threadNames.contains(track), "thread \(track) is named")
        }
        return events
    }

    @Test(arguments: [TimelineExportTests.demo, TimelineExportTests.noAnswer])
    func theTraceFollowsTheFormatsRules(files: [String]) throws {
        let timeline = try Self.timeline(files)
        let events = try Self.checkTraceRules(timeline.trace())
        let slices = events.filter {
            $0["ph"]?.stringValue == "X" && $0["cat"]?.stringValue?.hasPrefix("lifecycle") == true
        }
        #expect(slices.count == timeline.rows.count)
        #expect(events.filter { $0["ph"]?.stringValue == "s" }.count == timeline.arrows.count)
        // A track per device and per app.
        let threads = events.filter { $0["name"]?.stringValue == "thread_name" }.compactMap {
            $0["args"]?.objectValue?["name"]?.stringValue
        }
        #expect(threads.contains("system") && threads.contains { $0.hasPrefix("com.") })
    }

    /// The continuing device's phases, in order, and the userInfo and size as args.
    @Test func theTraceHasAPhasePerStepAndTheUserInfo() throws {
        let timeline = try Self.timeline(Self.demo)
        let events = try Self.checkTraceRules(timeline.trace())
        let phases = events.filter { $0["cat"]?.stringValue == "phase" }.compactMap(\.["name"]?.stringValue)
        for phase in ["willContinue", "fetch", "continue", "restore", "serve payload"] {
            #expect(phases.contains(phase), "\(phase)")
        }
        let names = ["willContinue", "fetch", "continue", "restore"]
        #expect(phases.filter(names.contains).prefix(4) == ArraySlice(names))
        let received = try #require(events.first { $0["name"]?.stringValue == "payloadReceived" })
        #expect(received["args"]?.objectValue?["userInfo"]?.objectValue?.isEmpty == false)
        #expect(received["args"]?.objectValue?["size"]?.integerValue ?? 0 > 0)
    }

    /// `--continuation` shows the same events in every output.
    @Test func oneContinuationIsTheSameInEveryOutput() throws {
        let all = try Self.timeline(Self.demo)
        let id = try #require(all.rows.first { $0.event.kind == .continueChosen }?.event.continuation)
        let one = try Self.timeline(Self.demo, continuation: String(id.prefix(8)))
        #expect(one.rows.count < all.rows.count)
        #expect(one.svg().components(separatedBy: "<circle").count - 1 == one.rows.count + TimelineTone.allCases.count)
        let slices = try Self.checkTraceRules(one.trace()).filter {
            $0["cat"]?.stringValue?.hasPrefix("lifecycle") == true
        }
        #expect(
            slices.compactMap { $0["args"]?.objectValue?["recordedTime"]?.stringValue }.sorted()
                == one.rows.map(\.event.timeText).sorted())
        let notes = one.rows.filter { !Timeline.messageKinds.contains($0.event.kind) }.count
        #expect(one.mermaid().components(separatedBy: "Note over").count - 1 == notes)
    }
}
