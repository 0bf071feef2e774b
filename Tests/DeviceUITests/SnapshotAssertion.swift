import Foundation
import TerminalCells
import Testing

/// Where the snapshot files live: Tests/DeviceUITests/Snapshots, next to this file.
let snapshotDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

/// The legend of style masks: one character per role that carries meaning; `.` for the rest.
let meaningLegend: [Role: Character] = [
    .continuable: "c", .unavailable: "u", .error: "E", .badge: "B", .selection: "S", .success: "s",
    .warning: "w", .lockScreen: "L", .accent: "a", .statusBar: "=",
]

/// Compares `grid` with `Snapshots/<name>.txt` (its text) and, with a legend, with
/// `Snapshots/<name>.style.txt` (its style mask). On a mismatch, the differing lines are shown
/// side by side. With `RECORD_SNAPSHOTS=1` in the environment (or when a file is missing), the
/// files are written instead and the test fails, so a recording is never mistaken for a pass.
func assertSnapshot(_ grid: Grid, named name: String, styles legend: [Role: Character]? = nil,
                    sourceLocation: SourceLocation = #_sourceLocation) {
    compare(grid.text(), file: "\(name).txt", sourceLocation: sourceLocation)
    if let legend {
        let header = "legend: " + legend.sorted { $0.value < $1.value }.map { "\($0.value)=\($0.key.rawValue)" }.joined(separator: " ")
        compare(header + "\n" + grid.styleMask(legend), file: "\(name).style.txt", sourceLocation: sourceLocation)
    }
}

private func compare(_ actual: String, file: String, sourceLocation: SourceLocation) {
    let url = snapshotDirectory.appendingPathComponent(file)
    let recording = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1"
    let stored = try? String(contentsOf: url, encoding: .utf8)
    if recording || stored == nil {
        do {
            try FileManager.default.createDirectory(at: snapshotDirectory, withIntermediateDirectories: true)
            try (actual + "\n").write(to: url, atomically: true, encoding: .utf8)
            Issue.record("Recorded snapshot \(file); run again without RECORD_SNAPSHOTS to compare.", sourceLocation: sourceLocation)
        } catch {
            Issue.record("Could not write snapshot \(file): \(error)", sourceLocation: sourceLocation)
        }
        return
    }
    guard let stored else { return }
    var expected = stored
    if expected.hasSuffix("\n") { expected.removeLast() }
    guard expected != actual else { return }
    Issue.record(Comment(rawValue: "Snapshot \(file) differs (RECORD_SNAPSHOTS=1 re-records it):\n" + difference(expected, actual)),
                 sourceLocation: sourceLocation)
}

/// The lines that differ, numbered, expected above actual; then the whole actual text.
func difference(_ expected: String, _ actual: String) -> String {
    let old = expected.components(separatedBy: "\n"), new = actual.components(separatedBy: "\n")
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
