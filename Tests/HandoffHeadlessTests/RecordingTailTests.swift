import Foundation
import HandoffCore
import HandoffRecordings
import Testing

/// The lesson pane reads a device's recording as it grows: the header line, then what was
/// appended since its last read, each time as a recording of its own. Whatever the split, the
/// events must be those of the whole file, in order.
@Suite("Recordings read as they grow")
struct RecordingTailTests {
    @Test(arguments: ["demo-laptop.jsonl", "demo-phone.jsonl"])
    func everySplitGivesTheWholeFilesEvents(_ name: String) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/timeline/\(name)")
        let data = try Data(contentsOf: url)
        let whole = try LifecycleRecording(data: data, file: name).lifecycleEvents()
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
        let header = Data(lines.first!) + Data([0x0A])
        #expect(whole.count == lines.count - 1)
        for first in 1..<lines.count {
            for last in first..<min(lines.count, first + 4) {
                var text = header
                for line in lines[first...last] { text += Data(line) + Data([0x0A]) }
                let part = try LifecycleRecording(data: text, file: name).lifecycleEvents()
                #expect(part == Array(whole[(first - 1)...(last - 1)]), "lines \(first + 1)...\(last + 1)")
            }
        }
    }
}
