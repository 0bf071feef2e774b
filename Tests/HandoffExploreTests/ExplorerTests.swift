import Foundation
import HandoffCore
import HandoffExplore
import HandoffRecordings
import HandoffScenarios
import Testing

/// A synthetic checker: "a continuation was continued" is the broken rule, so the explorer's
/// search, shrinking and replay are tested apart from the rule book.
let continuedIsForbidden: ExploreChecker = { lifecycles in
    lifecycles.flatMap { lifecycle in
        lifecycle.events.filter { $0.kind == .continued }.map { event in
            ExploreFinding(rule: "synthetic.no-continued", report: "\(lifecycle.device) continued at \(event.time)")
        }
    }
}

@Suite("Explorer: programs, the world, shrinking")
struct ExplorerTests {
    @Test("the same seed makes the same program; another seed another")
    func sameSeedSameProgram() {
        let generator = ProgramGenerator(devices: 3, steps: 200)
        let first = generator.program(seed: 42)
        #expect(first == generator.program(seed: 42))
        #expect(first.steps.count == 200)
        #expect(first.devices == ["Phone", "Laptop", "Tablet"])
        #expect(first != generator.program(seed: 43))
        #expect(Explorer.nextSeed(after: 42) == Explorer.nextSeed(after: 42))
        #expect(Explorer.nextSeed(after: 42) != 42)
    }

    @Test("a generated program never commands a killed or stopped device")
    func programsAreReplayable() {
        let explorer = Explorer(options: ExploreOptions(seed: 7, steps: 120, devices: 3)) { _ in [] }
        var seed: UInt64 = 7
        for _ in 0..<20 {
            let program = explorer.generator.program(seed: seed)
            let run = explorer.run(program)
            #expect(run.impossibility == nil, "seed \(seed): \(run.impossibility ?? "")")
            #expect(run.outcomes.count == program.steps.count)
            seed = Explorer.nextSeed(after: seed)
        }
    }

    @Test("the same program runs the same way: the same events, kind by kind")
    func sameProgramSameRun() {
        let explorer = Explorer(options: ExploreOptions(seed: 3, steps: 150, devices: 3)) { _ in [] }
        let program = explorer.generator.program(seed: 3)
        let kinds = { (run: ProgramRun) in run.lifecycles.map { $0.events.map(\.kind) } }
        let first = explorer.run(program)
        #expect(first.eventCount > 20, "the program does something")
        #expect(kinds(first) == kinds(explorer.run(program)))
        #expect(first.outcomes == explorer.run(program).outcomes)
    }

    @Test("the shrinker finds the minimal failing input of a synthetic predicate, and counts its runs")
    func shrinkerFindsMinimum() {
        // Fails when a 3 comes before a 7 (anywhere); numbers simplify towards 0.
        var calls = 0
        var shrinker = Shrinker<Int>(simplify: { $0 > 0 ? [0, $0 - 1] : [] }) { input in
            calls += 1
            guard let three = input.firstIndex(of: 3) else { return false }
            return input[(three + 1)...].contains(7)
        }
        let input = [9, 1, 3, 4, 8, 2, 5, 7, 6, 0, 7, 3]
        let result = shrinker.shrink(input)
        #expect(result == [3, 7])
        #expect(shrinker.runs == calls)
        #expect(shrinker.runs > 0)
    }

    @Test("the shrinker simplifies what it cannot remove")
    func shrinkerSimplifies() {
        // Fails when the sum is at least 10: one element of 10 is the simplest.
        var shrinker = Shrinker<Int>(simplify: { $0 > 0 ? [$0 - 1] : [] }) { $0.reduce(0, +) >= 10 }
        // [4, 9] is the smallest failing part; the 4 simplifies to 1, the 9 cannot go lower.
        #expect(shrinker.shrink([4, 9, 6, 2]) == [1, 9])
    }

    @Test("the shrinker stops at its budget with a failing input")
    func shrinkerBudget() {
        var shrinker = Shrinker<Int>(budget: 5) { $0.contains(1) }
        let result = shrinker.shrink(Array(repeating: 1, count: 64) + [2])
        #expect(shrinker.runs == 5)
        #expect(result.contains(1))
    }

    @Test("a synthetic rule is found, shrunk to the few steps that break it, and its scenario replays")
    func findsAndShrinks() throws {
        let explorer = Explorer(options: ExploreOptions(seed: 11, steps: 60, devices: 3, seconds: 30)) {
            continuedIsForbidden($0)
        }
        let report = explorer.explore()
        let found = try #require(report.discovery, "a continuation succeeds in some program")
        #expect(found.finding.rule == "synthetic.no-continued")
        // Become current, let the beacon arrive, continue (and let the payload come back: the
        // world settles at the end).
        #expect(found.shrunk.steps.count <= 3, "\(found.shrunk.steps)")
        #expect(found.shrinkRuns > 0)
        #expect(found.replayProblem == nil, "\(found.replayProblem ?? "")")
        let scenario = try Scenario.parse(found.scenarioText, file: "found")
        #expect(scenario.steps.count == found.shrunk.steps.count)
        // The same seed finds the same program and shrinks it the same way.
        let again = try #require(explorer.explore().discovery)
        #expect(again.shrunk == found.shrunk)
        #expect(again.programSeed == found.programSeed)
    }

    @Test("the timeline of a found program has a lane per device")
    func timeline() throws {
        let program = ExploreProgram(
            devices: ["Phone", "Laptop"],
            steps: [
                ExploreStep(device: 1, .becomeCurrent(.reading, value: 3, streams: false)),
                ExploreStep(device: 0, .wait(milliseconds: 20)),
                ExploreStep(device: 0, .continueFrom(1)),
            ])
        let run = Explorer(options: ExploreOptions(seed: 1)) { _ in [] }.run(program)
        let timeline = try ExploreTimeline.timeline(run.lifecycles, kinds: ExploreProgram.kinds)
        #expect(timeline.lanes.map(\.name) == ["Phone", "Laptop"])
        #expect(timeline.rows.contains { $0.event.kind == .continued })
        #expect(timeline.arrows.contains { $0.label == "was continued" })
    }

    @Test("kill, stop and resume: a killed device answers nothing, a stopped one is cut off until it goes on")
    func signals() {
        let explorer = Explorer(options: ExploreOptions(seed: 1)) { _ in [] }
        let stopped = ExploreProgram(
            devices: ["Phone", "Laptop"],
            steps: [
                ExploreStep(device: 1, .becomeCurrent(.reading, value: 1, streams: false)),
                ExploreStep(device: 1, .stop),
                ExploreStep(device: 0, .wait(milliseconds: 20)),
                ExploreStep(device: 0, .continueFrom(1)),
            ])
        let run = explorer.run(stopped)
        #expect(run.impossibility == nil)
        // The offer never arrived: the continue is refused.
        #expect(run.outcomes.last == .answered(ok: false))
        let commandingStopped = ExploreProgram(
            devices: ["Phone", "Laptop"],
            steps: [ExploreStep(device: 1, .stop), ExploreStep(device: 1, .resign)])
        #expect(explorer.run(commandingStopped).impossibility?.contains("Laptop is stopped") == true)
        let commandingKilled = ExploreProgram(
            devices: ["Phone", "Laptop"],
            steps: [ExploreStep(device: 1, .kill), ExploreStep(device: 1, .resume)])
        #expect(explorer.run(commandingKilled).impossibility?.contains("Laptop was killed") == true)
    }

    @Test("a scenario with waits and signals reads back as handoff scenario reads it")
    func scenarioText() throws {
        let program = ExploreProgram(
            devices: ["Phone", "Laptop"],
            steps: [
                ExploreStep(device: 1, .becomeCurrent(.web, value: 5, streams: true)),
                ExploreStep(device: 0, .wait(milliseconds: 250)),
                ExploreStep(device: 0, .fault(.slowLink, sticky: true)),
                ExploreStep(device: 1, .update(value: 2, padding: 10, needsSave: false)),
                ExploreStep(device: 1, .stop),
                ExploreStep(device: 1, .resume),
                ExploreStep(device: 0, .kill),
            ])
        let scenario = try Scenario.parse(program.scenarioText(name: "n", about: "a", failed: [3]), file: "t")
        #expect(scenario.devices.map(\.name) == ["Phone", "Laptop"])
        #expect(scenario.devices.map(\.kind) == ["phone", "laptop"])
        #expect(scenario.steps[1] == .wait(seconds: 0.25))
        #expect(scenario.steps[4] == .signal(device: "Laptop", .stop))
        #expect(scenario.steps[5] == .signal(device: "Laptop", .cont))
        #expect(scenario.steps[6] == .signal(device: "Phone", .kill))
        guard case .send(let device, let command, let expectsError, _) = scenario.steps[3] else {
            Issue.record("step 4 is a send")
            return
        }
        #expect(device == "Laptop")
        #expect(expectsError)
        #expect(command["needsSave"] == false)
        guard case .send(_, let first, let firstError, _) = scenario.steps[0] else {
            Issue.record("step 1 is a send")
            return
        }
        #expect(!firstError)
        #expect(first["webpageURL"] == "https://pages.example.com/5")
        #expect(first["streams"] == true)
    }

    @Test("bad scenario signals and waits are named")
    func badScenarioSteps() {
        let devices = #"[{"name": "A"}]"#
        #expect(throws: ScenarioError.self) {
            try Scenario.parse(#"{"name":"x","devices":\#(devices),"steps":[{"on":"A","signal":"hup"}]}"#, file: "f")
        }
        do {
            _ = try Scenario.parse(#"{"name":"x","devices":\#(devices),"steps":[{"wait":-1}]}"#, file: "f")
            Issue.record("a negative wait is refused")
        } catch {
            #expect(error.path == "steps[0].wait")
        }
        do {
            _ = try Scenario.parse(
                #"{"name":"x","devices":\#(devices),"steps":[{"on":"A","signal":"hup"}]}"#, file: "f")
        } catch {
            #expect(error.path == "steps[0].signal")
            #expect(error.message.contains("kill, stop, cont"))
        }
    }

    @Test(
        "absurd numbers get a clear bound naming the option",
        arguments: [
            (ExploreOptions(seed: 1, steps: 0), "--steps"), (ExploreOptions(seed: 1, steps: 10_001), "--steps"),
            (ExploreOptions(seed: 1, devices: 1), "--devices"), (ExploreOptions(seed: 1, devices: 99), "--devices"),
            (ExploreOptions(seed: 1, programs: 0), "--programs"),
            (ExploreOptions(seed: 1, seconds: .infinity), "--seconds"),
            (ExploreOptions(seed: 1, seconds: 0), "--seconds"),
        ])
    func bounds(options: ExploreOptions, option: String) {
        do {
            _ = try options.validated()
            Issue.record("\(options) is refused")
        } catch {
            #expect(error.option == option)
            #expect(error.description.contains("it takes"))
        }
    }
}

@Suite("Explorer: a locked device in the world")
struct LockedWorldTests {
    func run(_ actions: [(Int, ExploreAction)]) -> ProgramRun {
        let explorer = Explorer(options: ExploreOptions(seed: 1, steps: 1, devices: 3)) { _ in [] }
        let program = ExploreProgram(
            devices: ["Phone", "Laptop", "Tablet"], steps: actions.map { ExploreStep(device: $0.0, $0.1) })
        return explorer.run(program)
    }

    @Test("a locked origin withdraws its offer 8 s after the lock")
    func lockedOriginWithdraws() {
        let run = run([
            (1, .lock), (1, .becomeCurrent(.reading, value: 0, streams: false)), (0, .wait(milliseconds: 6_000)),
            (0, .wait(milliseconds: 6_000)),
        ])
        let laptop = run.lifecycles[1].events.map(\.kind)
        #expect(laptop.contains(.withdrawn), "\(laptop)")
    }

    @Test("a locked origin that continues another's activity and stops still withdraws")
    func lockedOriginContinuingWithdraws() {
        let run = run([
            (1, .lock), (2, .becomeCurrent(.reading, value: 0, streams: false)),
            (1, .becomeCurrent(.reading, value: 0, streams: false)), (0, .wait(milliseconds: 6_000)),
            (1, .continueFrom(2)), (1, .stop),
        ])
        let laptop = run.lifecycles[1].events.map(\.kind)
        #expect(laptop.contains(.withdrawn), "\(laptop)")
    }
}
