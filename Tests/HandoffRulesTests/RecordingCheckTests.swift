import Foundation
import HandoffCore
import HandoffRecordings
import HandoffRules
import Testing

/// Recordings read back as typed histories and checked together (`handoff check`): the stories
/// written as recordings keep the rules or break them as in memory; bad recordings name the file
/// and the line.
@Suite struct RecordingCheckTests {
    typealias S = Stories

    /// Writes `histories` as recordings (one file per device, its header naming `account`) and
    /// returns their paths.
    static func write(
        _ histories: [DeviceHistory], in folder: URL, account: (String) -> String = { _ in "demo" }
    )
        throws -> [String]
    {
        try histories.map { history in
            let id: DeviceID = history.device == S.laptop.name ? S.laptop.id : S.phone.id
            let path = folder.appendingPathComponent("\(history.device).jsonl").path
            let recorder = try LifecycleRecorder(
                path: path, device: PeerInfo(id: id, name: history.device, kind: .phone),
                account: account(history.device))
            for event in history.events { recorder.record(event) }
            return path
        }
    }

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func recordedStoriesKeepTheRulesAndTheSummarySaysWhatWasChecked() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let check = try RecordingCheck(files: Self.write(S.native(), in: folder))
        #expect(check.violations.isEmpty, "\(check.report.joined(separator: "\n"))")
        #expect(check.eventCount == 20)
        #expect(check.summary == "15 rules, 20 events of 2 devices (Laptop, Phone): no violation.")
    }

    @Test func aRecordedViolationIsReportedWithItsRuleSourceAndSlice() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = S.native().editing(S.phone) { events in
            guard let index = events.firstIndex(where: { $0.kind == .willContinue }) else { return }
            var moved = events.remove(at: index)
            moved.time = S.start.addingTimeInterval(0.095)
            events.insert(moved)
        }
        let check = try RecordingCheck(files: Self.write(broken, in: folder))
        #expect(check.violations.map(\.rule.id) == ["will-continue-before-fetch"])
        let report = check.report
        #expect(report.first?.hasPrefix("will-continue-before-fetch: The continuing app is told") == true)
        #expect(report.contains { $0.hasPrefix("  source: handoff-programming-guide.txt, Continuing an Activity") })
        #expect(report.contains { $0.hasPrefix("  Phone #4 ") && $0.contains("fetchStarted from Laptop") })
        #expect(report.last == "15 rules, 20 events of 2 devices (Laptop, Phone): 1 violation of 1 rule.")
    }

    @Test func badRecordingsNameTheFileAndTheLine() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try Self.write(S.native(), in: folder)
        let laptop = try String(contentsOfFile: files[0], encoding: .utf8)

        func failure(_ paths: [String]) -> RecordingError? {
            do {
                _ = try RecordingCheck(files: paths)
                return nil
            } catch {
                return error
            }
        }
        let truncated = folder.appendingPathComponent("truncated.jsonl").path
        try String(laptop.dropLast(30)).write(toFile: truncated, atomically: true, encoding: .utf8)
        let cut = try #require(failure([truncated, files[1]]))
        #expect(cut.file == truncated && cut.line == 12 && cut.reason.hasPrefix("truncated"), "\(cut)")

        let notJSON = folder.appendingPathComponent("not-json.jsonl").path
        var lines = laptop.split(separator: "\n").map(String.init)
        lines[3] = "{\"time\": oops"
        try (lines.joined(separator: "\n") + "\n").write(toFile: notJSON, atomically: true, encoding: .utf8)
        let bad = try #require(failure([notJSON, files[1]]))
        #expect(bad.file == notJSON && bad.line == 4 && bad.reason.hasPrefix("not JSON"), "\(bad)")

        let missing = folder.appendingPathComponent("missing-field.jsonl").path
        lines = laptop.split(separator: "\n").map(String.init)
        lines[4] = lines[4].replacingOccurrences(of: "\"advertiser\":", with: "\"advertizer\":")
        try (lines.joined(separator: "\n") + "\n").write(toFile: missing, atomically: true, encoding: .utf8)
        let field = try #require(failure([missing, files[1]]))
        #expect(field.file == missing && field.line == 5, "\(field)")
        #expect(field.reason == "advertised event: \"advertiser\" is missing (advertised events carry it)")

        let otherFolder = folder.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: otherFolder, withIntermediateDirectories: true)
        let other = try Self.write(S.native(), in: otherFolder) { $0 == "Phone" ? "work" : "demo" }
        let accounts = try #require(failure(other))
        #expect(
            accounts.file == other[1] && accounts.line == 1 && accounts.reason.contains("account work"), "\(accounts)")
    }
}
