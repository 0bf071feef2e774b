import Foundation
import HandoffCore
import Testing

@testable import HandoffRecordings

/// `handoff timeline` streamed: the rows, arrows and lost messages of a ``TimelineStream`` are
/// those of the whole ``Timeline``, whatever its window, on the real recordings and on generated
/// ones; a checkpoint goes on as the stream went on; the reader reads and refuses what the whole
/// reader does.
@Suite("Timeline streamed")
struct TimelineStreamTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static func fixture(_ path: String) -> String { root.appendingPathComponent(path).path }
    static let demo = ["laptop", "phone"].map { fixture("Tests/Fixtures/timeline/demo-\($0).jsonl") }
    static let continued = ["laptop", "phone"].map { fixture("Fuzz/Corpus/fuzz-recording/continued-\($0).jsonl") }
    static let noAnswer = ["laptop", "phone"].map { fixture("Fuzz/Corpus/fuzz-recording/no-answer-\($0).jsonl") }
    static let recordings = [demo, continued, noAnswer, [demo[1]], demo.reversed(), noAnswer.reversed()]

    /// A row as the two compare it: its lane and line, the (lane, line) of each arrow's receipt
    /// and the lanes of its lost messages, with their labels.
    struct Compared: Hashable, CustomStringConvertible {
        var lane: Int
        var line: Int
        var arrows: [String]
        var lost: [String]
        var description: String { "\(lane):\(line) \(arrows) \(lost)" }
    }

    static func whole(_ files: [String]) throws -> [Compared] {
        let timeline = Timeline(recordings: try LifecycleRecording.load(files))
        return timeline.rows.enumerated().map { index, row in
            Compared(
                lane: row.lane, line: row.event.line,
                arrows: timeline.arrows.filter { $0.from == index }.map {
                    "\($0.label)→\(timeline.rows[$0.to].lane):\(timeline.rows[$0.to].event.line)"
                },
                lost: timeline.lost.filter { $0.from == index }.map { "\($0.label)→\($0.toLane)" })
        }
    }

    static func streamed(_ files: [String], window: Int, readAhead: Int = 0) throws -> [Compared] {
        var stream = try TimelineStream(files: files, window: window, readAhead: readAhead)
        var rows: [Compared] = []
        while let row = try stream.next() {
            #expect(row.index == rows.count)
            rows.append(compared(row))
        }
        return rows
    }

    static func compared(_ row: TimelineStream.Row) -> Compared {
        Compared(
            lane: row.lane, line: row.event.line,
            arrows: row.arrows.map { "\($0.label)→\($0.receipt!.lane):\($0.receipt!.line)" },
            lost: row.lost.map { "\($0.label)→\($0.toLane)" })
    }

    @Test(arguments: TimelineStreamTests.recordings)
    func theStreamIsTheWholeTimelineWhateverItsWindow(files: [String]) throws {
        let whole = try Self.whole(files)
        #expect(!whole.isEmpty)
        for window in [8, 12, 16, 32, 4096] {
            let streamed = try Self.streamed(files, window: window)
            #expect(streamed == whole, "window \(window)")
        }
        for (window, readAhead) in [(8, 20), (12, 60)] {
            #expect(try Self.streamed(files, window: window, readAhead: readAhead) == whole, "window \(window)")
        }
    }

    /// Generated recordings of 100 repetitions, with windows far smaller than them.
    @Test func aLongTimelineStreamsAsItIsLaidOutWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (files, count) = try GeneratedRecordings.write(events: 2100, into: folder.path)
        #expect(count == 2100)
        let whole = try Self.whole(files)
        #expect(whole.count == count)
        #expect(whole.flatMap(\.arrows).count == 100 * 4, "four arrows a repetition")
        #expect(whole.flatMap(\.lost).count == 100, "and a beacon lost")
        for window in [16, 64, 1000] {
            #expect(try Self.streamed(files, window: window) == whole, "window \(window)")
        }
        // Read further ahead (what `--print` does): fewer, longer batches, the same rows.
        for (window, readAhead) in [(16, 40), (16, 100), (64, 160), (1000, 2500)] {
            #expect(
                try Self.streamed(files, window: window, readAhead: readAhead) == whole,
                "window \(window), \(readAhead) ahead")
        }
        // The incoming arrows of each row are the outgoing ones of the rows that sent them.
        var stream = try TimelineStream(files: files, window: 64)
        var senders: [Int: TimelineStream.Row] = [:]
        var received = 0
        while let row = try stream.next() {
            senders[row.index] = row
            for message in row.received {
                let sender = try #require(senders[message.from])
                #expect(sender.arrows.contains { $0.receipt == row.id && $0.label == message.label })
                #expect(message.fromLane == sender.lane)
                received += 1
            }
        }
        #expect(received == 400)
    }

    /// Rows kept after their batch (the window refers to its events without holding them) have
    /// their events' values, as the whole recording read has them; the first batch is the rows
    /// handed out first, and handing them out takes nothing from it until they are.
    @Test func rowsKeepTheirEventsAfterTheirBatch() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-kept-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (files, count) = try GeneratedRecordings.write(events: 700, into: folder.path)
        let recordings = try LifecycleRecording.load(files)
        var stream = try TimelineStream(files: files, window: 16)
        let first = try stream.firstBatch()
        #expect(!first.isEmpty && first.count < count)
        #expect(try stream.firstBatch().map(Self.compared) == first.map(Self.compared))
        var all: [TimelineStream.Row] = []
        while let row = try stream.next() { all.append(row) }
        #expect(all.count == count)
        #expect(all.prefix(first.count).map(Self.compared) == first.map(Self.compared))
        for row in all {
            let recorded = try #require(recordings[row.lane].events.first { $0.line == row.event.line })
            #expect(row.event.timeText == recorded.timeText)
            #expect(row.event.detail == recorded.detail)
            #expect(row.event.continuation == recorded.continuation)
            #expect(row.event.integer("serial") == recorded.integer("serial"))
            #expect(row.event.string("typeHash") == recorded.string("typeHash"))
        }
    }

    /// The index's pages are the stream's rows, from any checkpoint, while it is built or after.
    @Test func pagesReadFromCheckpointsAreTheStreamsRows() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (files, count) = try GeneratedRecordings.write(events: 2100, into: folder.path)
        var stream = try TimelineStream(files: files, window: 32)
        var all: [TimelineStream.Row] = []
        while let row = try stream.next() { all.append(row) }
        let index = try TimelineIndex(files: files, window: 32)
        // Before it is built: from the first checkpoint.
        #expect(try index.rows(0..<40).map(Self.compared) == all[0..<40].map(Self.compared))
        index.build()
        #expect(index.progress == TimelineIndex.Progress(rows: count, isComplete: true))
        for range in [0..<10, 17..<300, 1000..<1100, 2050..<2100, 2090..<3000] {
            let rows = try index.rows(range)
            let expected = all[range.clamped(to: 0..<count)]
            #expect(rows.map(Self.compared) == expected.map(Self.compared), "\(range)")
            #expect(rows.map(\.index) == expected.map(\.index))
            #expect(rows.map(\.received) == expected.map(\.received))
        }
    }

    /// One continuation, streamed, is the whole timeline's `--continuation`.
    @Test func oneContinuationIsTheWholeTimelines() throws {
        for prefix in ["bb22", "BB22EF34", "nothing"] {
            let whole = Timeline(recordings: try LifecycleRecording.load(Self.demo), continuation: prefix)
            let streamed = try TimelineStream.timeline(files: Self.demo, continuation: prefix, window: 8)
            #expect(streamed.rows.map(\.event.line) == whole.rows.map(\.event.line), "\(prefix)")
            #expect(streamed.arrows == whole.arrows)
            #expect(streamed.lost == whole.lost)
            #expect(streamed.mermaid() == whole.mermaid())
        }
    }

    /// The Mermaid diagram written row by row is the whole timeline's.
    @Test(arguments: TimelineStreamTests.recordings)
    func mermaidWrittenRowByRowIsTheWholeDiagram(files: [String]) throws {
        let whole = Timeline(recordings: try LifecycleRecording.load(files)).mermaid()
        var stream = try TimelineStream(files: files, window: 8)
        var lines = Timeline.mermaidHeader(stream.lanes)
        while let row = try stream.next() {
            lines += Timeline.mermaidLines(
                lane: row.lane, event: row.event, arrows: row.arrows.map { ($0.toLane, $0.label) },
                lost: row.lost.map { ($0.toLane, $0.label) })
        }
        #expect(lines.joined(separator: "\n") + "\n" == whole)
    }

    // MARK: Reading

    func write(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).jsonl")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static func wholeError(_ path: String) -> RecordingError? {
        let result = Result { () throws(RecordingError) in try LifecycleRecording(contentsOf: path) }
        if case .failure(let error) = result { return error }
        return nil
    }

    static func streamError(_ path: String) -> RecordingError? {
        let result = Result { () throws(RecordingError) in
            let reader = try RecordingReader(path: path)
            while try reader.next() != nil {}
        }
        if case .failure(let error) = result { return error }
        return nil
    }

    /// Broken recordings are refused by the streaming reader with the whole reader's message.
    @Test func theReaderRefusesWhatTheWholeReaderRefuses() throws {
        let lines = try String(contentsOfFile: Self.demo[1], encoding: .utf8).split(separator: "\n").map(String.init)
        let header = lines[0]
        let event = lines[1]
        var cases: [String] = []
        cases.append(lines.prefix(4).joined(separator: "\n") + "\n" + lines[4].prefix(40))
        cases.append((lines.prefix(2) + ["this is not JSON"] + lines.dropFirst(3)).joined(separator: "\n") + "\n")
        cases.append(header.replacingOccurrences(of: "\"version\":1", with: "\"version\":2") + "\n")
        cases.append("")
        cases.append("\n" + lines.joined(separator: "\n"))
        cases.append(header + "\n[1, 2]\n")
        cases.append(header + "\n" + event.replacingOccurrences(of: "offerReceived", with: "someNewKind") + "\n")
        cases.append(
            header + "\n" + event.replacingOccurrences(of: "\"device\":\"Phone\"", with: "\"device\":\"Tablet\"")
                + "\n")
        cases.append(header + "\n" + event.replacingOccurrences(of: "2026-11-28T", with: "2026-13-28T") + "\n")
        cases.append("{\"recording\":\"something-else\"}\n")
        for text in cases {
            let path = try write(text)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let wholeError = Self.wholeError(path)
            let streamError = Self.streamError(path)
            #expect(wholeError != nil, "\(text.prefix(80))")
            #expect(streamError == wholeError, "\(text.prefix(80))")
        }
        // A binary line: not UTF-8, on its line.
        let binary = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString)")
        try Data(Array((lines[0] + "\n").utf8) + [0xFF, 0xFE, 0x00, 0x0A]).write(to: binary)
        defer { try? FileManager.default.removeItem(at: binary) }
        let reader = try RecordingReader(path: binary.path)
        #expect(throws: RecordingError(file: binary.path, line: 2, reason: "not UTF-8 text (not a recording?)")) {
            _ = try reader.next()
        }
    }

    /// The reader reads into one buffer that it reuses: lines longer than a read, lines across
    /// two reads, a last line without its newline and a position to go on from read as the
    /// whole reader reads them; a line longer than the longest a recording has is refused on
    /// its line.
    @Test func linesLongerThanAReadAreReadWhole() throws {
        let lines = try String(contentsOfFile: Self.demo[1], encoding: .utf8).split(separator: "\n").map(String.init)
        let long = String(repeating: "long detail ", count: 3 * RecordingReader.chunkBytes / 12 / 2)
        let longLine = lines[2].replacingOccurrences(of: "\"detail\":\"", with: "\"detail\":\"\(long)")
        #expect(longLine.utf8.count > RecordingReader.chunkBytes)
        let text = ([lines[0], lines[1], longLine] + lines[3...] + [longLine, lines[1]]).joined(separator: "\n")
        let path = try write(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = try LifecycleRecording(contentsOf: path)
        let reader = try RecordingReader(path: path)
        var read: [(event: RecordedEvent, position: RecordingReader.Position)] = []
        while let next = try reader.next() { read.append(next) }
        #expect(read.map(\.event.line) == whole.events.map(\.line))
        #expect(read.map(\.event.json) == whole.events.map(\.json))
        #expect(read.map(\.event.detail).filter { $0.hasPrefix("long detail") }.count == 2)
        // From the position of the second long line, the same lines again.
        let second = try #require(read.last { $0.event.detail.hasPrefix("long detail") })
        let resumed = try RecordingReader(path: path, from: second.position)
        var again: [Int] = []
        while let next = try resumed.next() { again.append(next.event.line) }
        #expect(again == read.suffix(2).map(\.event.line))

        let tooLong = try write(
            lines[0] + "\n" + lines[1] + "\n" + String(repeating: "x", count: RecordingReader.maximumLineBytes + 2))
        defer { try? FileManager.default.removeItem(atPath: tooLong) }
        #expect(
            Self.streamError(tooLong)
                == RecordingError(file: tooLong, line: 3, reason: "a line longer than 16 MiB (not a recording?)"))
    }

    /// Times as devices write them are read as Foundation reads them, and the time column shows
    /// them as Foundation's ISO 8601 time does.
    /// Times are read as Foundation reads them, and shown as they were written (Foundation's own
    /// formatting cuts the binary fraction: .392 read back shows as .391).
    @Test func timesAreReadAsFoundationDoesAndShownAsWritten() throws {
        var random = SplitMix64(seed: 29)
        var texts = ["2026-11-28T09:42:20.205Z", "2024-02-29T23:59:59.999Z", "1970-01-01T00:00:00.000Z"]
        for _ in 0..<2000 {
            let milliseconds = Int64(random.next() % 4_000_000_000_000)
            texts.append(GeneratedRecordings.time(milliseconds))
        }
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for text in texts {
            let foundation = try Date(text, strategy: style)
            let fast = try #require(RecordingReader.date(text))
            #expect(fast == foundation, "\(text)")
            #expect(RecordingReader.clock(fast) == String(text.dropFirst(11).prefix(12)), "\(text)")
            #expect(GeneratedRecordings.time(RecordingReader.millisecondsSince1970(text)!) == text)
        }
        #expect(RecordingReader.clock(try #require(RecordingReader.date("2026-11-24T06:43:08.392Z"))) == "06:43:08.392")
        #expect(RecordingReader.clock(try #require(RecordingReader.date("1969-12-31T23:59:59.999Z"))) == "23:59:59.999")
        // Other forms go through Foundation.
        #expect(RecordingReader.date("2026-11-28T09:42:20.2051Z") != nil)
        let impossible = "2026-02-30T09:42:20.205Z"
        #expect(RecordingReader.date(impossible) == (try? Date(impossible, strategy: style)))
    }
}
