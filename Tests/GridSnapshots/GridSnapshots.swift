import Foundation
import TerminalCells
import Testing

/// Compares `grid` with `<name>.txt` in `folder` (its text) and, given a legend, with
/// `<name>.style.txt` (its style mask: one character per role of the legend, `.` for the rest,
/// under a line that spells the legend). The folder is the test target's `Snapshots`.
///
/// Set `RECORD_SNAPSHOTS=1` to write the files instead (`RECORD_SNAPSHOTS=1 swift test
/// --filter SomeTests`); a test that records fails, so a recording never passes for a
/// comparison. A missing file is recorded the same way. A difference is reported line by line,
/// expected above actual, then the whole actual text.
package func expectSnapshot(
    _ grid: Grid, named name: String, in folder: URL, styles legend: [Role: Character]? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    compare(grid.text(), file: "\(name).txt", in: folder, sourceLocation: sourceLocation)
    if let legend {
        let header =
            "legend: "
            + legend.sorted { $0.value < $1.value }.map { "\($0.value)=\($0.key.rawValue)" }.joined(separator: " ")
        compare(
            header + "\n" + grid.styleMask(legend), file: "\(name).style.txt", in: folder,
            sourceLocation: sourceLocation)
    }
}

/// Compares `actual` with the file, which holds it followed by one newline.
private func compare(_ actual: String, file: String, in folder: URL, sourceLocation: SourceLocation) {
    let url = folder.appendingPathComponent(file)
    let stored = try? String(contentsOf: url, encoding: .utf8)
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" || stored == nil {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try (actual + "\n").write(to: url, atomically: true, encoding: .utf8)
            Issue.record(
                "Recorded the snapshot \(file); run the tests again to compare.", sourceLocation: sourceLocation)
        } catch {
            Issue.record("Could not record the snapshot \(file): \(error)", sourceLocation: sourceLocation)
        }
        return
    }
    guard var expected = stored else { return }
    if expected.hasSuffix("\n") { expected.removeLast() }
    guard expected != actual else { return }
    Issue.record(
        Comment(
            rawValue: "The snapshot \(file) differs (RECORD_SNAPSHOTS=1 re-records it):\n"
                + difference(expected, actual)),
        sourceLocation: sourceLocation)
}

/// The lines that differ, numbered, expected above actual; then the whole actual text.
private func difference(_ expected: String, _ actual: String) -> String {
    let old = expected.components(separatedBy: "\n")
    let new = actual.components(separatedBy: "\n")
    var report: [String] = []
    for index in 0..<max(old.count, new.count) {
        let a = index < old.count ? old[index] : "(no line)"
        let b = index < new.count ? new[index] : "(no line)"
        guard a != b else { continue }
        report.append(String(format: "%3d - ", index + 1) + a)
        report.append(String(format: "%3d + ", index + 1) + b)
    }
    return report.joined(separator: "\n") + "\n--- actual ---\n" + actual
}
