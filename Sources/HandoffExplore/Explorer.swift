import Foundation
import HandoffCore
import HandoffHeadless
import HandoffRecordings
import HandoffScenarios

/// One broken rule in a run, as the explorer compares and prints it.
package struct ExploreFinding: Sendable, Hashable {
    /// The rule's identifier: two runs break "the same rule" when these are equal.
    package var rule: String
    /// What `handoff check` prints for it (the rule, its source, the slice of events).
    package var report: String

    package init(rule: String, report: String) {
        self.rule = rule
        self.report = report
    }
}

/// Checks the lifecycles of a run's devices, answering the rules they break.
package typealias ExploreChecker = @Sendable ([ExploreLifecycle]) -> [ExploreFinding]

/// What `handoff check --explore` is asked to do, within bounds.
package struct ExploreOptions: Sendable, Hashable {
    package var seed: UInt64
    /// Steps per program.
    package var steps: Int
    package var devices: Int
    /// At most this many programs…
    package var programs: Int
    /// …and at most this long (seconds) before giving up.
    package var seconds: Double
    /// The rules the simulator bends on purpose (a mutation run).
    package var mutants: Set<Mutant>
    /// The activities programs make current.
    package var activities: [ExploreActivity] = ExploreActivity.allCases

    package static let stepsRange = 1...10_000
    package static let devicesRange = 2...ExploreProgram.deviceNames.count
    package static let programsRange = 1...1_000_000
    package static let secondsRange = 0.1...3_600.0

    package init(
        seed: UInt64, steps: Int = 40, devices: Int = 3, programs: Int = 100_000, seconds: Double = 60,
        mutants: Set<Mutant> = []
    ) {
        self.seed = seed
        self.steps = steps
        self.devices = devices
        self.programs = programs
        self.seconds = seconds
        self.mutants = mutants
    }

    /// Checks every number, naming the option and its range.
    package func validated() throws(ExploreOptionError) -> ExploreOptions {
        guard Self.stepsRange.contains(steps) else {
            throw ExploreOptionError(option: "--steps", value: String(steps), range: "1 to 10000")
        }
        guard Self.devicesRange.contains(devices) else {
            throw ExploreOptionError(
                option: "--devices", value: String(devices), range: "2 to \(Self.devicesRange.upperBound)")
        }
        guard Self.programsRange.contains(programs) else {
            throw ExploreOptionError(option: "--programs", value: String(programs), range: "1 to 1000000")
        }
        guard seconds.isFinite, Self.secondsRange.contains(seconds) else {
            throw ExploreOptionError(option: "--seconds", value: String(seconds), range: "0.1 to 3600")
        }
        return self
    }
}

/// An option out of its range: the message names it, the value and the range.
package struct ExploreOptionError: Error, Sendable, Hashable, CustomStringConvertible {
    package var option: String
    package var value: String
    package var range: String

    package init(option: String, value: String, range: String) {
        self.option = option
        self.value = value
        self.range = range
    }

    package var description: String { "\(option) \(value) is out of bounds: it takes \(range)" }
}

/// One program run in the world.
package struct ProgramRun {
    package var outcomes: [ExploreWorld.Outcome]
    package var lifecycles: [ExploreLifecycle]
    package var findings: [ExploreFinding]

    /// The first step that could not happen (a scenario could not replay the program), if any.
    package var impossibility: String? {
        for outcome in outcomes { if case .impossible(let why) = outcome { return why } }
        return nil
    }

    /// The indexes of the commands that were refused.
    package var refusedSteps: Set<Int> {
        Set(outcomes.indices.filter { outcomes[$0] == .answered(ok: false) })
    }

    package var eventCount: Int { lifecycles.reduce(0) { $0 + $1.events.count } }
}

/// A violation the explorer found, shrunk, and checked it replays.
package struct ExploreDiscovery {
    /// The seed of the program that broke the rule (`--seed` it with `--programs 1` to run it alone).
    package var programSeed: UInt64
    package var original: ExploreProgram
    package var shrunk: ExploreProgram
    /// The shrunk program's run, and the finding it keeps.
    package var run: ProgramRun
    package var finding: ExploreFinding
    /// How many runs the shrinking took.
    package var shrinkRuns: Int
    package var shrinkSeconds: Double
    /// The shrunk program as a scenario file.
    package var scenarioText: String
    /// nil when the scenario, read back as `handoff scenario` reads it and played in a fresh
    /// world, answers every command as the file says and breaks the same rule; else why not.
    package var replayProblem: String?
}

/// What an exploration did.
package struct ExploreReport {
    package var programs: Int
    package var steps: Int
    package var events: Int
    package var seconds: Double
    package var discovery: ExploreDiscovery?
}

/// `handoff check --explore`: random programs run in the in-process world and checked; the first
/// that breaks a rule is shrunk to a minimal program that still breaks it.
package struct Explorer {
    package let options: ExploreOptions
    package let check: ExploreChecker

    package init(options: ExploreOptions, check: @escaping ExploreChecker) {
        self.options = options
        self.check = check
    }

    /// The seeds of the programs, one after another: the first is the seed given, each next one
    /// the ``SplitMix64`` output of the one before.
    package static func nextSeed(after seed: UInt64) -> UInt64 {
        var random = SplitMix64(seed: seed)
        return random.next()
    }

    package var generator: ProgramGenerator {
        ProgramGenerator(devices: options.devices, steps: options.steps, activities: options.activities)
    }

    /// Runs `program` in a fresh world (the world's own randomness seeded by `seed`), lets every
    /// continuation end, and checks the lifecycles.
    package func run(_ program: ExploreProgram, seed: UInt64 = 1) -> ProgramRun {
        let scenarioSteps = program.steps.map { $0.scenarioStep(devices: program.devices) }
        return run(devices: program.devices, steps: scenarioSteps, seed: seed)
    }

    func run(devices: [String], steps: [Scenario.Step], seed: UInt64) -> ProgramRun {
        let world = ExploreWorld(
            devices: devices.enumerated().map { ($1, ExploreProgram.kinds[$0 % ExploreProgram.kinds.count]) },
            mutants: options.mutants, seed: seed)
        var outcomes: [ExploreWorld.Outcome] = []
        for step in steps {
            let outcome = world.perform(step)
            outcomes.append(outcome)
            if case .impossible = outcome { break }
        }
        world.finish()
        let lifecycles = world.lifecycles
        return ProgramRun(outcomes: outcomes, lifecycles: lifecycles, findings: check(lifecycles))
    }

    /// Runs programs until one breaks a rule, the programs are done or the time is up; shrinks
    /// the one that broke a rule. `progress` hears a line now and then.
    package func explore(progress: (String) -> Void = { _ in }) -> ExploreReport {
        let start = ContinuousClock.now
        let limit = Duration.milliseconds(Int64(options.seconds * 1000))
        var seed = options.seed
        var report = ExploreReport(programs: 0, steps: 0, events: 0, seconds: 0, discovery: nil)
        while report.programs < options.programs, ContinuousClock.now - start < limit {
            let program = generator.program(seed: seed)
            let run = self.run(program)
            report.programs += 1
            report.steps += program.steps.count
            report.events += run.eventCount
            if let finding = run.findings.first {
                progress(
                    "program \(report.programs) (seed \(seed)) breaks \(finding.rule) in \(program.steps.count) steps; shrinking"
                )
                report.discovery = discover(program, seed: seed, finding: finding)
                report.seconds = Self.seconds(since: start)
                return report
            }
            if report.programs % 500 == 0 {
                progress("\(report.programs) programs, \(report.steps) steps, nothing broken")
            }
            seed = Self.nextSeed(after: seed)
        }
        report.seconds = Self.seconds(since: start)
        return report
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Whether `program` still breaks `rule` and is one a scenario can replay.
    package func breaks(_ rule: String, _ program: ExploreProgram) -> Bool {
        let run = self.run(program)
        return run.impossibility == nil && run.findings.contains { $0.rule == rule }
    }

    /// Shrinks `program`, which broke `finding`'s rule, and checks the result replays.
    package func discover(_ program: ExploreProgram, seed: UInt64, finding: ExploreFinding) -> ExploreDiscovery {
        let start = ContinuousClock.now
        let devices = program.devices
        var shrinker = Shrinker<ExploreStep>(simplify: { $0.simplifications }) { steps in
            breaks(finding.rule, ExploreProgram(devices: devices, steps: steps))
        }
        var steps = program.steps
        // A program cut short by an impossible step is replayable only up to it.
        if !breaks(finding.rule, program) {
            steps = Array(steps.prefix(self.run(program).outcomes.count))
        }
        steps = shrinker.shrink(steps)
        let shrunk = ExploreProgram(devices: devices, steps: steps)
        let run = self.run(shrunk)
        let kept = run.findings.first { $0.rule == finding.rule } ?? finding
        let text = shrunk.scenarioText(
            name: "explore: \(kept.rule)",
            about:
                "Found by handoff check --explore --seed \(seed) --steps \(options.steps) --devices \(options.devices)"
                + (options.mutants.isEmpty
                    ? "" : " with " + options.mutants.map(\.rawValue).sorted().joined(separator: ", ") + " bent")
                + "; shrunk from \(program.steps.count) steps to \(shrunk.steps.count) in \(shrinker.runs) runs.",
            failed: run.refusedSteps)
        return ExploreDiscovery(
            programSeed: seed, original: program, shrunk: shrunk, run: run, finding: kept,
            shrinkRuns: shrinker.runs, shrinkSeconds: Self.seconds(since: start), scenarioText: text,
            replayProblem: replayProblem(text, rule: kept.rule))
    }

    /// Reads `text` back as `handoff scenario` reads a file and plays it in a fresh world: nil
    /// when every command is answered as the file expects and the rule is broken again.
    package func replayProblem(_ text: String, rule: String) -> String? {
        let scenario: Scenario
        do {
            scenario = try Scenario.parse(text, file: "the shrunk program")
        } catch {
            return "the scenario does not read back: \(error)"
        }
        let run = self.run(devices: scenario.devices.map(\.name), steps: scenario.steps, seed: 1)
        for (index, (step, outcome)) in zip(scenario.steps, run.outcomes).enumerated() {
            if case .impossible(let why) = outcome { return "step \(index + 1) cannot happen: \(why)" }
            if case .send(let device, let command, let expectsError, _) = step, case .answered(let ok) = outcome,
                ok == expectsError
            {
                return "step \(index + 1): \(device) \(ok ? "accepted" : "refused") \(command.jsonText)"
            }
        }
        guard run.findings.contains(where: { $0.rule == rule }) else {
            return "played again, it breaks no \(rule)"
        }
        return nil
    }
}

/// The timeline of a run's lifecycles (HandoffRecordings' ``Timeline``, laid out as `handoff
/// timeline` lays out recordings; the executable prints it as `--print` does).
package enum ExploreTimeline {
    /// - Throws: ``RecordingError`` when a lifecycle does not read back as a recording.
    package static func timeline(
        _ lifecycles: [ExploreLifecycle], kinds: [String]
    ) throws(RecordingError)
        -> Timeline
    {
        var recordings: [LifecycleRecording] = []
        for (index, lifecycle) in lifecycles.enumerated() {
            var lines = [
                JSONValue.object([
                    "recording": .string(LifecycleRecorder.format),
                    "version": .integer(Int64(LifecycleRecorder.version)),
                    "device": .string(lifecycle.device), "deviceID": .string(lifecycle.device.lowercased()),
                    "kind": .string(kinds[index % kinds.count]), "account": .string(ExploreWorld.account),
                ]).jsonText
            ]
            for event in lifecycle.events {
                var object = HeadlessController.fields(of: event)
                object["event"] = nil
                lines.append(JSONValue.object(object).jsonText)
            }
            let data = Data((lines.joined(separator: "\n") + "\n").utf8)
            recordings.append(try LifecycleRecording(data: data, file: lifecycle.device))
        }
        return Timeline(recordings: recordings)
    }
}
