import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

@testable import HandoffRecordings

@Suite("Recordings and the timeline")
struct TimelineTests {
    /// This test's files, removed when it ends.
    let scratch: ScratchFolder

    init() throws { scratch = try ScratchFolder("timeline") }

    /// Two devices continue once while both record (the origin with `fault` armed, if any);
    /// returns the two recording files.
    func record(fault: Fault? = nil) throws -> (laptop: String, phone: String) {
        let folder = scratch.url.path
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        var recorders: [LifecycleRecorder] = []
        for node in [laptop, phone] {
            let recorder = try LifecycleRecorder(
                path: "\(folder)/\(node.device.info.name).jsonl", device: node.device.info, account: "demo")
            recorders.append(recorder)
            node.device.addLifecycleObserver { event in recorder.record(event) }
        }
        laptop.ok([
            "cmd": "become-current", "type": .string(readingType), "title": "Moby-Dick", "userInfo": ["page": 3],
        ])
        if let fault { laptop.ok(["cmd": "fault", "kind": .string(fault.rawValue)]) }
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "Laptop"])
        world.hood.settle()
        if fault == nil {
            #expect(phone.events("restored").count == 1)
        } else {
            world.hood.advance(by: 6)
            #expect(phone.events("lifecycle").contains { $0["kind"] == "continuationFailed" })
        }
        withExtendedLifetime(recorders) {}
        return ("\(folder)/Laptop.jsonl", "\(folder)/Phone.jsonl")
    }

    /// A recording longer than the timeline reads is read from its header and its last part:
    /// memory and time stay bounded (a 256 MiB recording used to take 1.15 GB and 27 s).
    @Test func aLongRecordingIsReadFromItsHeaderAndItsLastPart() throws {
        let (laptopFile, _) = try record()
        let lines = try String(contentsOfFile: laptopFile, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = try #require(lines.first)
        let event = try #require(lines.dropFirst().first)
        let long = laptopFile + ".long.jsonl"
        try Data().write(to: URL(fileURLWithPath: long))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: long))
        try handle.write(contentsOf: Data((header + "\n").utf8))
        let block = Data(String(repeating: event + "\n", count: 1000).utf8)
        var written = 0
        while written <= LifecycleRecording.maximumBytes + 4 * block.count {
            try handle.write(contentsOf: block)
            written += block.count
        }
        try handle.write(contentsOf: Data((lines.dropFirst().joined(separator: "\n") + "\n").utf8))
        try handle.close()

        let recording = try LifecycleRecording(contentsOf: long)
        #expect(recording.skippedBytes > 0)
        let kept = recording.events.count
        #expect(kept < written / (event.utf8.count + 1), "only the last part was read: \(kept) events")
        #expect(kept > LifecycleRecording.maximumBytes / (event.utf8.count + 1) / 2)
        // The newest events are there, whole.
        let whole = try LifecycleRecording(contentsOf: laptopFile)
        #expect(recording.events.suffix(whole.events.count - 1).map(\.kind) == whole.events.dropFirst().map(\.kind))
    }

    @Test func bothDevicesAreLanesAndTheRequestAndPayloadAreArrowsInOrder() throws {
        let (laptopFile, phoneFile) = try record()
        let recordings = try LifecycleRecording.load([laptopFile, phoneFile])
        let timeline = Timeline(recordings: recordings)
        #expect(timeline.lanes.map(\.name) == ["Laptop", "Phone"])
        let labels = timeline.arrows.map(\.label)
        let request = try #require(labels.firstIndex(of: "payload request"))
        let payload = try #require(labels.firstIndex { $0.hasPrefix("payload ") && $0 != "payload request" })
        let continued = try #require(labels.firstIndex(of: "was continued"))
        #expect(labels.contains { $0.hasPrefix("beacon") })
        // In time order: the request goes to the laptop, the payload comes back, then "was continued".
        let rows = timeline.arrows.map { ($0.from, $0.to) }
        #expect(rows[request].0 < rows[payload].0 && rows[payload].0 < rows[continued].0)
        #expect(
            timeline.rows[timeline.arrows[request].from].lane == 1
                && timeline.rows[timeline.arrows[request].to].lane == 0)
        #expect(
            timeline.rows[timeline.arrows[payload].from].lane == 0
                && timeline.rows[timeline.arrows[payload].to].lane == 1)
        let svg = timeline.svg()
        #expect(svg.hasPrefix("<svg") && svg.contains("Laptop") && svg.contains("marker-end"))
    }

    /// A request the origin received but left unanswered (no-answer) or hung up on (origin-leaves)
    /// still crossed the network: its arrow ends at the fault on the origin's lane.
    @Test(arguments: [Fault.noAnswer, .originLeaves])
    func aRequestStruckByAFaultStillCrosses(fault: Fault) throws {
        let (laptopFile, phoneFile) = try record(fault: fault)
        let timeline = Timeline(recordings: try LifecycleRecording.load([laptopFile, phoneFile]))
        let request = try #require(timeline.arrows.first { $0.label == "payload request" })
        #expect(timeline.rows[request.from].lane == 1 && timeline.rows[request.from].event.kind == .fetchStarted)
        #expect(timeline.rows[request.to].lane == 0 && timeline.rows[request.to].event.kind == .faultInjected)
        #expect(
            !timeline.arrows.contains { $0.label.hasPrefix("payload ") && $0.label != "payload request" },
            "no payload came back")
    }

    @Test func oneContinuationKeepsItsEventsAndItsBeacon() throws {
        let (laptopFile, phoneFile) = try record()
        let recordings = try LifecycleRecording.load([laptopFile, phoneFile])
        let id = try #require(recordings[1].events.first { $0.kind == .continueChosen }?.continuation)
        let timeline = Timeline(recordings: recordings, continuation: String(id.prefix(8)))
        #expect(
            timeline.rows.allSatisfy {
                $0.event.continuation == id || $0.event.kind == .advertised
                    || $0.event.kind == .offerReceived || $0.event.kind == .offerUpdated
            })
        #expect(timeline.rows.contains { $0.event.kind == .payloadSent })
        #expect(!timeline.rows.contains { $0.event.kind == .activityCreated })
    }

    func write(_ text: String) throws -> String {
        let path = scratch.path("bad-\(UUID().uuidString).jsonl")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func badRecordingsNameTheFileAndTheLine() throws {
        let header =
            #"{"recording":"handoff-lifecycle","version":1,"device":"Laptop","deviceID":"l","kind":"laptop","account":"demo"}"#
        let event =
            #"{"time":"2026-11-24T09:30:00.250Z","device":"Laptop","kind":"activityCreated","detail":"x","explanation":"y"}"#
        func failure(_ text: String) throws -> RecordingError? {
            let path = try write(text)
            do {
                _ = try LifecycleRecording(contentsOf: path)
                return nil
            } catch {
                #expect(error.file == path)
                return error
            }
        }
        #expect(try failure("")?.reason.contains("empty") == true)
        #expect(try failure("hello\n")?.line == 1)
        #expect(try failure(#"{"a":1}"# + "\n")?.reason.contains("not a lifecycle recording") == true)
        #expect(
            try failure(header.replacingOccurrences(of: "\"version\":1", with: "\"version\":7") + "\n")?.reason
                .contains("newer version") == true)
        let truncated = try failure(header + "\n" + event + "\n" + String(event.prefix(30)))
        #expect(truncated?.line == 3)
        #expect(truncated?.reason.contains("truncated") == true)
        #expect(
            try failure(header + "\n" + event.replacingOccurrences(of: "activityCreated", with: "teleported") + "\n")?
                .reason
                .contains("unknown event kind") == true)
        #expect(
            try failure(
                header + "\n" + event.replacingOccurrences(of: "\"device\":\"Laptop\"", with: "\"device\":\"Phone\"")
                    + "\n")?.line == 2)
        #expect(
            try failure(
                header + "\n" + event.replacingOccurrences(of: "2026-11-24T09:30:00.250Z", with: "soon") + "\n")?.reason
                .contains("ISO 8601") == true)
        let nameless = try failure(
            header.replacingOccurrences(of: "\"device\":\"Laptop\"", with: "\"device\":\"\"") + "\n")
        #expect(nameless?.line == 1 && nameless?.reason.contains("\"device\" is empty") == true)
        // A good one reads.
        let good = try LifecycleRecording(contentsOf: try write(header + "\n" + event + "\n"))
        #expect(good.events.count == 1 && good.device == "Laptop")
    }

    @Test func recordingsOfTwoAccountsAreRefused() throws {
        let a = try write(
            #"{"recording":"handoff-lifecycle","version":1,"device":"Laptop","deviceID":"l","kind":"laptop","account":"demo"}"#
                + "\n")
        let b = try write(
            #"{"recording":"handoff-lifecycle","version":1,"device":"Phone","deviceID":"p","kind":"phone","account":"other"}"#
                + "\n")
        #expect(throws: RecordingError.self) { try LifecycleRecording.load([a, b]) }
        do {
            _ = try LifecycleRecording.load([a, b])
        } catch {
            #expect(error.description.contains("account other") && error.description.contains(b))
        }
    }

    /// A recording's lines are split as its characters split them (a carriage return and a line
    /// feed are one character, and split nothing), and the picture's text is escaped the same
    /// whether it is printable ASCII or not.
    @Test func linesAndEscapesAreTheCharactersOnes() {
        let texts = [
            "", "\n", "\n\n", "a", "a\n", "a\nb", "a\r\nb\nc", "\r\n\n\r", "x\u{301}\n\u{301}y\n", "é\r\n\n",
            "{\"a\":1}\n{\"b\":\"<&>\"}\n",
        ]
        for text in texts {
            #expect(
                LifecycleRecording.lines(of: text)
                    == text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
                "\(text.debugDescription)")
        }
        for text in ["plain", "a < b & \"c\" > d", "", "tab\there", "é & <ü>", "bell\u{7}&"] {
            var general = ""
            for character in text {
                switch character {
                case "&": general += "&amp;"
                case "<": general += "&lt;"
                case ">": general += "&gt;"
                case "\"": general += "&quot;"
                default:
                    if character.unicodeScalars.allSatisfy({ $0.value >= 0x20 || $0 == "\t" }) {
                        general.append(character)
                    }
                }
            }
            #expect(Timeline.escape(text) == general, "\(text.debugDescription)")
        }
    }
}
