import Foundation
import HandoffCore
import HandoffRules

/// Recordings of one run checked against Apple's rules (`handoff check`, and every scenario run):
/// each recording read back as a typed history, one per device, and the rule book's verdict.
package struct RecordingCheck: Sendable {
    package var recordings: [LifecycleRecording]
    package var histories: [DeviceHistory]
    package var violations: [Violation]

    /// Reads the recordings at `files` (one per device of one account) and checks them together.
    ///
    /// - Throws: ``RecordingError`` naming the file and the line: unreadable, truncated, not
    ///   JSON, another account's, an event whose fields do not read back, or a recording too long
    ///   to be read whole.
    package init(files: [String]) throws(RecordingError) {
        try self.init(recordings: LifecycleRecording.load(files))
    }

    package init(recordings: [LifecycleRecording]) throws(RecordingError) {
        self.recordings = recordings
        var histories: [DeviceHistory] = []
        for recording in recordings {
            guard recording.skippedBytes == 0 else {
                throw RecordingError(
                    file: recording.file, line: nil,
                    reason:
                        "longer than \(LifecycleRecording.maximumBytes / (1024 * 1024)) MiB: the rules need a recording from its first event"
                )
            }
            histories.append(
                DeviceHistory(
                    device: recording.device, account: recording.account, deviceID: DeviceID(recording.deviceID),
                    events: try recording.lifecycleEvents()))
        }
        self.histories = histories
        violations = RuleBook.check(histories)
    }

    /// How many events were checked.
    package var eventCount: Int { RuleBook.eventCount(histories) }

    /// The verdict in one line: how many rules and events, and how many violations.
    package var summary: String {
        let devices = histories.map(\.device).joined(separator: ", ")
        let checked =
            "\(RuleBook.rules.count) rules, \(eventCount) event\(eventCount == 1 ? "" : "s") of \(histories.count) device\(histories.count == 1 ? "" : "s") (\(devices))"
        guard !violations.isEmpty else { return "\(checked): no violation." }
        let rules = Set(violations.map(\.rule.id)).count
        return
            "\(checked): \(violations.count) violation\(violations.count == 1 ? "" : "s") of \(rules) rule\(rules == 1 ? "" : "s")."
    }

    /// The report: each violation (its rule, sentence, source, what happened and the slice of
    /// events, one a line with its device, position, time and log line), then the summary.
    package var report: [String] {
        violations.flatMap { $0.description.split(separator: "\n").map(String.init) + [""] } + [summary]
    }
}
