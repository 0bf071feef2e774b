// Recordings handed to `handoff check` (and read back by every scenario run): the typed reader
// (`LifecycleEvent(fields:)` through `LifecycleRecording.lifecycleEvents()`) and the rule book
// over what it reads. The input is one or two recordings, split at the first NUL byte (two
// devices of one run). Checking never crashes; a refusal names one of the files and, when a
// line is at fault, a line that is in that file; every violation's slice is made of events of
// the histories checked, and the report ends with the summary.
import Foundation

@testable import HandoffRecordings
@testable import HandoffRules

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecordingCheck(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    let parts: [Data] =
        if let split = data.firstIndex(of: 0) {
            [data[data.startIndex..<split], data[(split + 1)...]].map { Data($0) }
        } else {
            [data]
        }
    let files = parts.indices.map { "device-\($0).jsonl" }
    do {
        var recordings: [LifecycleRecording] = []
        for (part, file) in zip(parts, files) {
            recordings.append(try LifecycleRecording(data: part, file: file))
        }
        let checked = try RecordingCheck(recordings: recordings)
        check(checked.histories.count == recordings.count, "a history per recording")
        for violation in checked.violations {
            check(!violation.slice.isEmpty, "a violation of \(violation.rule.id) with no events")
            for point in violation.slice {
                let history = checked.histories.first { $0.device == point.device }
                check(history.map { $0.events.indices.contains(point.index) } ?? false, "a slice outside the histories")
            }
        }
        check(checked.report.last == checked.summary, "the report ends with the summary")
    } catch {
        guard let index = files.firstIndex(of: error.file) else {
            fatalError("the error names \(error.file), not one of the files")
        }
        let lines = parts[index].split(separator: 0x0A, omittingEmptySubsequences: false).count
        if let line = error.line { check(line >= 1 && line <= lines, "line \(line) of a \(lines)-line file") }
        check(error.description.utf8.count <= 4096, "an error message of \(error.description.utf8.count) bytes")
    }
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
