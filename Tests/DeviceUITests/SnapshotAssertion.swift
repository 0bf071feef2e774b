import Foundation
import GridSnapshots
import TerminalCells
import Testing

/// Where the snapshot files live: Tests/DeviceUITests/Snapshots, next to this file.
let snapshotDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

/// The legend of style masks: one character per role that carries meaning; `.` for the rest.
let meaningLegend: [Role: Character] = [
    .continuable: "c", .unavailable: "u", .error: "E", .badge: "B", .selection: "S", .success: "s",
    .warning: "w", .lockScreen: "L", .accent: "a", .statusBar: "=",
]

/// Compares `grid` with `Snapshots/<name>.txt` and, with a legend, `Snapshots/<name>.style.txt`
/// (GridSnapshots' `expectSnapshot`, which says how to record them).
func assertSnapshot(
    _ grid: Grid, named name: String, styles legend: [Role: Character]? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectSnapshot(grid, named: name, in: snapshotDirectory, styles: legend, sourceLocation: sourceLocation)
}
