import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// `handoff timeline` as a user runs it: the interactive replay in a terminal, the plain text,
/// and bad recordings refused with the file and the line. The recordings are real ones, made by
/// two headless devices (`--record`), kept as the fuzzing seeds of `fuzz-recording`.
@Suite(
    "handoff timeline replay end to end", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil))
struct TimelineReplayEndToEndTests {
    static let recordings = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/fuzz-recording")
    static func recording(_ name: String) -> String { recordings.appendingPathComponent(name).path }
    static let laptop = recording("continued-laptop.jsonl")
    static let phone = recording("continued-phone.jsonl")

    /// Runs `handoff` with `arguments`, standard input empty, output captured in files.
    func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let executable = try #require(HandoffExecutable.url)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputURL = folder.appendingPathComponent("out")
        let errorURL = folder.appendingPathComponent("err")
        let process = try ChildProcess(
            executable: executable.path, arguments: arguments,
            standardOutput: .file(outputURL.path), standardError: .file(errorURL.path))
        let termination = try #require(
            process.waitForExit(timeout: 60), "handoff \(arguments.joined(separator: " ")) did not end")
        return (
            termination.status, try String(contentsOf: outputURL, encoding: .utf8),
            try String(contentsOf: errorURL, encoding: .utf8)
        )
    }

    /// This test's files, removed when it ends.
    let scratch: ScratchFolder

    init() throws { scratch = try ScratchFolder("timeline-replay") }

    func write(_ bytes: [UInt8], named name: String) throws -> String {
        let path = scratch.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func printDrawsBothLanesAndTheRequestAndPayloadInOrder() throws {
        let result = try run(["timeline", Self.laptop, Self.phone, "--print"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("Laptop (laptop)") == true && lines.first?.contains("Phone (phone)") == true)
        let request = try #require(lines.firstIndex { $0.contains("payload request") })
        let payload = try #require(lines.firstIndex { $0.contains("payload 177 bytes") })
        let continued = try #require(lines.firstIndex { $0.contains("was continued") && $0.contains("◀") })
        #expect(request < payload && payload < continued)
    }

    @Test func badRecordingsAreRefusedNamingTheFileAndTheLine() throws {
        let good = try String(contentsOfFile: Self.phone, encoding: .utf8)
        let lines = good.split(separator: "\n").map(String.init)
        let header = lines[0]
        // Truncated: the last line ends early (a device killed while writing).
        let truncated = try write(
            Array((lines.prefix(4).joined(separator: "\n") + "\n" + lines[4].prefix(40)).utf8), named: "truncated.jsonl"
        )
        // Not JSON on line 3.
        let garbage = try write(
            Array((lines.prefix(2) + ["this is not JSON"] + lines.dropFirst(3)).joined(separator: "\n").utf8 + [0x0A]),
            named: "garbage.jsonl")
        // A newer version of the format.
        let newer = try write(
            Array((header.replacingOccurrences(of: "\"version\":1", with: "\"version\":2") + "\n").utf8),
            named: "newer.jsonl")
        // Not UTF-8 on line 2.
        let binary = try write(Array((header + "\n").utf8) + [0xFF, 0xFE, 0x00, 0x0A], named: "binary.jsonl")
        // Another account's device.
        let other = try write(
            Array(
                (header.replacing(/"account":"[^"]*"/, with: "\"account\":\"someone-else\"")
                    .replacing(/"deviceID":"[^"]*"/, with: "\"deviceID\":\"other-phone\"") + "\n").utf8),
            named: "other.jsonl")
        let cases: [(arguments: [String], expected: String, reason: String)] = [
            ([truncated], "\(truncated):5:", "truncated"),
            ([garbage], "\(garbage):3:", "not JSON"),
            ([newer], "\(newer):1:", "recorded by a newer version (2); this build reads version 1"),
            ([binary], "\(binary):2:", "not UTF-8"),
            ([Self.laptop, other], "\(other):1:", "in account someone-else"),
        ]
        for (arguments, expected, reason) in cases {
            for print in [true, false] {
                let result = try run(["timeline"] + arguments + (print ? ["--print"] : []))
                #expect(result.status == 1, "\(arguments)")
                #expect(result.output.isEmpty)
                #expect(result.error.hasPrefix("handoff timeline: " + expected), "\(result.error)")
                #expect(result.error.contains(reason), "\(result.error)")
                #expect(result.error.split(separator: "\n").count == 1, "one line: \(result.error)")
            }
        }
    }

    /// Whether the lanes show an event of `kind` (marked "▸" when selected, "●" otherwise).
    static func drawsEvent(_ kind: String, in screen: String) -> Bool {
        screen.contains("●" + kind) || screen.contains("▸" + kind)
    }

    @Test(.enabled(if: TmuxSession.isAvailable))
    func theReplayStepsForwardAndBackAndPlaysAt80x24() throws {
        let executable = try #require(HandoffExecutable.url).path
        let command = "'\(executable)' timeline '\(Self.laptop)' '\(Self.phone)'; echo \"EXIT=$?\"; exec sleep 60"
        let session = try #require(try TmuxSession(width: 80, height: 24, command: command))
        defer { session.close() }
        try session.waitFor("the first event, paused") {
            $0.contains("handoff timeline · Laptop ↔ Phone · event 1 of 23 · ⏸ paused")
                && $0.contains("▸activityCreated")
                && $0.contains("→ step") && $0.contains("q quit")
        }
        try session.sendKeys("Right")
        try session.waitFor("the second event and its detail") {
            $0.contains("event 2 of 23") && $0.contains("becameCurrent on Laptop")
        }
        // The phone's continued and the laptop's wasContinued share a millisecond: the message
        // orders them, the phone's first.
        try session.sendKeys("End")
        try session.waitFor("every event, the arrows and the last event's detail") {
            $0.contains("event 23 of 23 · ■ end") && $0.contains("payload 177 bytes") && $0.contains("was continued")
                && $0.contains("wasContinued on Laptop") && $0.contains("← was continued from Phone (continued)")
        }
        try session.sendKeys("Left")
        try session.waitFor("one event back") {
            $0.contains("event 22 of 23 · ⏸ paused") && $0.contains("continued on Phone")
                && $0.contains("→ was continued to Laptop (wasContinued)")
        }
        try session.sendKeys("Space")
        try session.waitFor("played to the end") { $0.contains("event 23 of 23 · ■ end") }
        try session.sendKeys("Home")
        try session.waitFor("back at the first event") { $0.contains("event 1 of 23 · ⏸ paused") }
        try session.sendKeys("q")
        let screen = try session.waitFor("the replay quit") { $0.contains("EXIT=0") }
        #expect(!screen.contains("handoff timeline ·"))
    }

    /// The failure's detail is DeviceUI's panel, as on F9: below the lanes at 80x24, beside them
    /// at 120x40, with the error's code, name and reason whole and the continuation's identifier.
    @Test(.enabled(if: TmuxSession.isAvailable), arguments: [(80, 24), (120, 40)])
    func theFailuresDetailIsWholeBelowOrBesideTheLanes(width: Int, height: Int) throws {
        let executable = try #require(HandoffExecutable.url).path
        let failure = (Self.recording("no-answer-laptop.jsonl"), Self.recording("no-answer-phone.jsonl"))
        let command = "'\(executable)' timeline '\(failure.0)' '\(failure.1)'; echo \"EXIT=$?\"; exec sleep 60"
        let session = try #require(try TmuxSession(width: width, height: height, command: command))
        defer { session.close() }
        try session.waitFor("the replay") { $0.contains("handoff timeline · Laptop ↔ Phone · event 1 of") }
        try session.sendKeys("End")
        let screen = try session.waitFor("the failure and its detail") { screen in
            let panel = Self.panel(of: screen, width: width).joined().replacingOccurrences(of: " ", with: "")
            // The constant's name is broken at a capital where the panel is narrower than it.
            return screen.contains("■ end") && Self.drawsEvent("continuationFailed", in: screen)
                && panel.hasPrefix("continuationFailedonPhone")
                && panel.contains("4610NSUserActivityRemoteApplicationTimedOutError")
                && panel.contains("nopayloadfromLaptopwithin2s")
                && panel.contains("continuationa332af46-8707-4603-ba0d-5153fb156769")
        }
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        let title = try #require(lines.firstIndex { $0.contains("continuationFailed on Phone") })
        let lanes = try #require(lines.firstIndex { $0.contains("│Laptop (laptop)") })
        if width >= 120 {
            // Beside the lanes: its title on the lanes' first line, right of a rule.
            #expect(title == lanes && lines[title].contains("│ continuationFailed on Phone"))
        } else {
            // Below the lanes, under a rule across the screen.
            #expect(title > lanes && lines[title - 1].allSatisfy { $0 == "─" })
        }
        // Nothing of the panel is cut; when it has more pages, its last line says d turns them.
        let panel = Self.panel(of: screen, width: width)
        #expect(!panel.contains { $0.contains("…") && !$0.contains("d: more") }, "\(panel)")
        try session.sendKeys("q")
        try session.waitFor("the replay quit") { $0.contains("EXIT=0") }
    }

    /// The detail panel's lines on a replay's `screen` `width` columns wide: right of its rule
    /// beside the lanes (120 columns and more), under its rule below them.
    static func panel(of screen: String, width: Int) -> [String] {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if width >= 120 {
            let rule = width - min(66, width * 2 / 5)
            return lines.dropFirst().dropLast().map { line in
                let cells = Array(line)
                return cells.count > rule + 1 ? String(cells[(rule + 1)...]).trimmingCharacters(in: .whitespaces) : ""
            }
        }
        guard let rule = lines.lastIndex(where: { !$0.isEmpty && $0.allSatisfy { $0 == "─" } }) else { return [] }
        return lines[(rule + 1)...].dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
