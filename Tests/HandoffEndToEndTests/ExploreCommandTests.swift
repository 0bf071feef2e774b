import Foundation
import HandoffCore
import HandoffProcesses
import HandoffScenarios
import HandoffTestSupport
import Testing

/// `handoff check --explore` as a process: a mutant found, its scenario saved and played by
/// `handoff scenario` with device processes (where no rule is bent), and absurd numbers refused.
@Suite("handoff check --explore (end to end)", .tags(.endToEnd), .ownThread)
struct ExploreCommandTests {
    static func handoff(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let executable = try #require(HandoffExecutable.url, "the handoff executable was not found")
        let result = try ChildProcess.run(executable.path, arguments)
        return (result.termination.status, result.output)
    }

    @Test("a mutant is found and shrunk; its scenario plays with real devices, where nothing is bent")
    func mutantFoundAndScenarioPlays() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-explore-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let found = try Self.handoff([
            "check", "--explore", "--seed", "2026", "--steps", "40", "--devices", "3", "--mutant", "offer-resigned",
            "--print", "--save", file.path,
        ])
        #expect(found.status == 1, "\(found.output)")
        #expect(found.output.contains("broke only-current-offered; shrunk from 40 to 4 steps"))
        #expect(found.output.contains("The scenario below replays it"))
        #expect(found.output.contains("resignedCurrent"), "the timeline is printed")
        let scenario = try Scenario.load(file)
        #expect(scenario.steps.count == 4)
        // Device processes never bend a rule: the same steps break nothing there.
        let played = try Self.handoff(["scenario", file.path])
        #expect(played.status == 0, "\(played.output)")
        #expect(played.output.contains("PASS"))
    }

    @Test("scenario signals reach the device processes: stopped, a device answers only once it goes on")
    func scenarioSignals() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-signals-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(
            """
            {"name": "signals", "devices": [{"name": "Phone"}, {"name": "Laptop", "kind": "laptop"}],
             "steps": [
               {"on": "Laptop", "send": {"cmd": "become-current", "type": "com.handoffsim.reader.reading"}},
               {"on": "Laptop", "signal": "stop"},
               {"wait": 0.3},
               {"on": "Laptop", "signal": "cont"},
               {"on": "Laptop", "send": {"cmd": "status"}},
               {"on": "Phone", "signal": "kill"}
             ]}
            """.utf8
        ).write(to: file)
        let played = try Self.handoff(["scenario", file.path])
        #expect(played.status == 0, "\(played.output)")
        #expect(played.output.contains("✓ Laptop ← stop"))
        #expect(played.output.contains("✓ waited 0.300 s"))
        #expect(played.output.contains("✓ Laptop ← cont"))
        #expect(played.output.contains("✓ Phone ← kill"))
        #expect(played.output.contains("PASS (6 steps"))
    }

    @Test(
        "absurd numbers are refused with the option and its bounds, exit 2",
        arguments: [
            (["--steps", "0"], "--steps"), (["--steps", "99999999999999999999"], "--steps"),
            (["--devices", "7"], "--devices"), (["--seconds", "nan"], "--seconds"),
            (["--seed=-1"], "--seed"), (["--mutant", "everything"], "--mutant"),
        ])
    func absurdNumbers(arguments: [String], option: String) throws {
        let result = try Self.handoff(["check", "--explore"] + arguments)
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.contains("handoff check --explore: \(option) "), "\(result.output)")
        #expect(result.output.contains("out of bounds: it takes"))
    }

    @Test("an explore option without --explore is refused")
    func optionWithoutExplore() throws {
        let result = try Self.handoff(["check", "--seed", "3", "some.jsonl"])
        #expect(result.status != 0)
        #expect(result.output.contains("--seed goes with --explore."), "\(result.output)")
    }

    @Test("nothing broken in the time given: exit 0")
    func nothingFound() throws {
        // One step a program cannot continue anything: nothing to break.
        let result = try Self.handoff(["check", "--explore", "--steps", "1", "--programs", "20"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("20 programs, 20 steps"))
        #expect(result.output.contains("No rule broken."))
    }
}
