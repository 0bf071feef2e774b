import Foundation
import TerminalCells
import Testing

/// Compares `grid.text()` with `<name>.txt` in `folder` (the test target's `Snapshots` folder).
///
/// Set `RECORD_SNAPSHOTS=1` to write the files instead (`RECORD_SNAPSHOTS=1 swift test
/// --filter SomeTests`); a test that records fails, so a recording never passes for a
/// comparison. A missing file is recorded the same way. A difference is reported row by row.
public func expectSnapshot(_ grid: Grid, named name: String, in folder: URL, sourceLocation: SourceLocation = #_sourceLocation) {
    let file = folder.appendingPathComponent(name + ".txt")
    let actual = grid.text() + "\n"
    let expected = try? String(contentsOf: file, encoding: .utf8)
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" || expected == nil {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try actual.write(to: file, atomically: true, encoding: .utf8)
            Issue.record("Recorded the snapshot \(name).txt; run the tests again to compare.", sourceLocation: sourceLocation)
        } catch {
            Issue.record("Could not record the snapshot \(name).txt: \(error)", sourceLocation: sourceLocation)
        }
        return
    }
    guard let expected, expected != actual else { return }
    let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
    var lines: [String] = []
    for row in 0..<max(old.count, new.count) {
        let was = row < old.count ? String(old[row]) : "∅"
        let now = row < new.count ? String(new[row]) : "∅"
        if was != now { lines += ["row \(row) expected: \(was)", "row \(row) actual:   \(now)"] }
    }
    Issue.record(Comment(rawValue: "The snapshot \(name).txt differs (RECORD_SNAPSHOTS=1 re-records it):\n"
        + lines.joined(separator: "\n") + "\nactual:\n" + actual), sourceLocation: sourceLocation)
}
