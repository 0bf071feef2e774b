import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `handoff scenario` as a process: the version scenario checks the refusal it narrates, and an
/// interrupted run leaves no account keys and no device behind.
@Suite("Scenarios as processes", .tags(.endToEnd), .ownThread, .enabled(if: HandoffExecutable.url != nil))
struct ScenarioProcessTests {
    static let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../demos/scenarios").standardized

    /// A private temporary folder for the run (its TMPDIR), removed afterwards.
    final class PrivateTemporaryFolder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scenario-process-tests-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }

        /// The entries whose names start with `prefix`.
        func entries(_ prefix: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { $0.hasPrefix(prefix) }
        }
    }

    /// Starts `handoff scenario arguments` with TMPDIR in `folder`, its output in `output`.
    static func start(_ arguments: [String], in folder: PrivateTemporaryFolder, output: URL) throws -> ChildProcess {
        let executable = try #require(HandoffExecutable.url)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = folder.url.path
        return try ChildProcess(
            executable: executable.path, arguments: ["scenario"] + arguments, environment: environment,
            standardOutput: .file(output.path), standardError: .standardOutput)
    }

    @Test func theVersionScenarioChecksTheRefusal() throws {
        let folder = try PrivateTemporaryFolder()
        let output = folder.url.appendingPathComponent("output.txt")
        let process = try Self.start(
            [Self.scenarios.appendingPathComponent("version-mismatch.json").path], in: folder, output: output)
        let termination = process.waitForExit(timeout: 120)
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(termination == .exited(0), "\(text)")
        #expect(text.contains("✓ Phone: restored {\"userInfo\":{\"handoffVersion\":1,"), "\(text)")
        #expect(text.contains("✓ Phone: continue-refused {"), "\(text)")
        #expect(text.contains("newer Reader (version 3)"))
        #expect(text.contains("✓ Phone: notHandled {\"peer\":\"NewTablet\"}"), "\(text)")
        #expect(text.contains("✓ NewTablet: no continued-elsewhere for 2.0 s"))
        // With scenes the refusal is the app's alone: the system counts it continued and tells the origin.
        #expect(text.contains("✓ ScenePhone: continue-refused {"), "\(text)")
        #expect(text.contains("✓ ScenePhone: continued {\"peer\":\"NewTablet\"}"), "\(text)")
        #expect(text.contains("✓ NewTablet: continued-elsewhere"), "\(text)")
        #expect(text.contains("PASS ("))
        #expect(folder.entries("handoff-scenario-").isEmpty)
    }

    /// A missing file is named, with the scenario command's own words, not the top-level usage.
    @Test func aMissingFileIsNamedWithoutTheUsage() throws {
        let folder = try PrivateTemporaryFolder()
        let output = folder.url.appendingPathComponent("output.txt")
        let process = try Self.start(["/nonexistent/scenario.json"], in: folder, output: output)
        let termination = process.waitForExit(timeout: 60)
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(termination == .exited(2), "\(text)")
        #expect(text.contains("handoff scenario: /nonexistent/scenario.json: no such file or folder."), "\(text)")
        #expect(!text.contains("USAGE"), "\(text)")
        #expect(!text.contains("<subcommand>"), "\(text)")
    }

    /// A failing expectation names its step (the one that failed, not the count that passed),
    /// what was expected, and the closest line the device did report.
    @Test func aFailedStepNamesItselfTheExpectationAndTheClosestEvent() throws {
        let folder = try PrivateTemporaryFolder()
        let scenario = folder.url.appendingPathComponent("fails.json")
        try #"""
        {"name": "Fails", "devices": [{"name": "A", "kind": "laptop"}],
         "steps": [{"on": "A", "send": {"cmd": "status"}},
                   {"on": "A", "expect": {"event": "status", "device": "Nobody"}, "within": 1, "note": "the wrong name"}]}
        """#.write(to: scenario, atomically: true, encoding: .utf8)
        let output = folder.url.appendingPathComponent("output.txt")
        let process = try Self.start([scenario.path], in: folder, output: output)
        let termination = process.waitForExit(timeout: 120)
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(termination == .exited(1), "\(text)")
        #expect(
            text.contains("✗ step 2 (the wrong name): A did not report status {\"device\":\"Nobody\"} within 1.0 s"),
            "\(text)")
        #expect(
            text.contains("expected: {\"device\":\"Nobody\",\"event\":\"status\"}")
                || text.contains("expected: {\"event\":\"status\",\"device\":\"Nobody\"}"), "\(text)")
        #expect(text.contains("closest:  {"), "\(text)")
        #expect(text.contains("FAIL at step 2 of 2 (1 passed"), "\(text)")
        #expect(!text.contains("FAIL after"), "\(text)")
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedRunStopsItsDevicesAndRemovesItsAccounts(signalNumber: Int32) throws {
        let folder = try PrivateTemporaryFolder()
        let scenario = folder.url.appendingPathComponent("waits.json")
        try #"""
        {"name": "Waits", "devices": [{"name": "A", "kind": "laptop"}, {"name": "B"}],
         "steps": [{"on": "A", "send": {"cmd": "status"}}, {"on": "B", "expect": {"event": "never"}, "within": 120}]}
        """#.write(to: scenario, atomically: true, encoding: .utf8)
        let output = folder.url.appendingPathComponent("output.txt")
        let process = try Self.start([scenario.path], in: folder, output: output)
        defer { process.terminate() }
        // Wait until both devices run and the run is in its long step.
        let deadline = Date().addingTimeInterval(60)
        while !((try? String(contentsOf: output, encoding: .utf8))?.contains("✓ A ← status") ?? false) {
            guard Date() < deadline, process.isRunning else {
                Issue.record("the scenario did not start: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let accounts = folder.entries("handoff-scenario-")
        #expect(accounts.count == 1, "the run's private accounts folder exists while it runs")
        let devices = Self.processes(mentioning: folder.url.path + "/handoff-scenario-")
        #expect(devices.count == 2, "two headless devices run: \(devices)")

        process.send(signalNumber)
        let termination = process.waitForExit(timeout: 60)
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(termination == .exited(128 + signalNumber), "\(text)")
        #expect(text.contains("Stopped 2 device(s), removed 1 folder(s)."), "\(text)")
        #expect(!text.contains("✗"), "an interruption is not reported as a failed step")
        #expect(folder.entries("handoff-scenario-").isEmpty, "no account keys are left behind")
        #expect(Self.processes(mentioning: folder.url.path + "/handoff-scenario-").isEmpty, "no device is left running")
    }

    /// The ids of running processes whose command line mentions `text`.
    static func processes(mentioning text: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let commandLine = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            guard commandLine.contains(text),
                let status = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            else { return false }
            // A zombie (state Z) has exited; its parent just has not collected it yet.
            return !status.contains(") Z ")
        }
    }
}
