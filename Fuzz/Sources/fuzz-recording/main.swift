// Lifecycle recordings (`handoff timeline FILE…`): files anyone may hand over in a bug report.
// Reading one never crashes; a refusal names the file and, when a line is at fault, a line that
// is in the file, in a short message; what is read lays out as a timeline whose arrows join its
// rows going down, whose picture, Mermaid diagram and trace are whole, and whose replay stays
// within its events.
import Foundation
import HandoffCore

@testable import HandoffRecordings

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecording(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    let file = "fuzz.jsonl"
    do {
        let recording = try LifecycleRecording(data: data, file: file)
        let timeline = Timeline(recordings: [recording])
        check(timeline.rows.count == recording.events.count, "the timeline lost or made events")
        for arrow in timeline.arrows {
            check(
                timeline.rows.indices.contains(arrow.from) && timeline.rows.indices.contains(arrow.to),
                "an arrow outside the rows")
            check(arrow.from < arrow.to, "an arrow going up")
        }
        for message in timeline.lost {
            check(
                timeline.rows.indices.contains(message.from) && timeline.lanes.indices.contains(message.toLane),
                "a lost message outside the rows")
        }
        check(timeline.svg().hasSuffix("</svg>\n"), "the picture is not closed")
        check(timeline.mermaid().hasPrefix("sequenceDiagram\n"), "the Mermaid diagram does not start")
        check((try? JSONValue.parse(timeline.trace())) != nil, "the trace is not JSON")
        var replay = TimelineReplay(eventCount: timeline.rows.count)
        let commands: [TimelineReplay.Command] = [
            .step, .togglePlay, .tick, .tick, .pageForward, .end, .step, .back, .pageBack, .start, .back,
        ]
        for command in commands {
            replay.apply(command)
            check(
                replay.played <= timeline.rows.count && (timeline.rows.isEmpty || replay.played >= 1),
                "the replay left its events")
        }
    } catch {
        check(error.file == file, "the error names \(error.file), not the file")
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false).count
        if let line = error.line { check(line >= 1 && line <= lines, "line \(line) of a \(lines)-line file") }
        check(error.description.utf8.count <= 4096, "an error message of \(error.description.utf8.count) bytes")
    }
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
