import ArgumentParser
import Foundation
import HandoffCore
import HandoffExplore
import HandoffRecordings

/// The options of `handoff check --explore` (the check command embeds them).
///
/// Numbers are read here, not by the argument parser, so that every bad one, however absurd,
/// gets the same answer: the option, what it was given, its range, and exit status 2.
struct CheckExploreOptions: ParsableArguments {
    @Flag(
        help:
            "Explore: run random programs of the lab (becoming current, updates, resigning, continuing, cancelling, faults, streams, killing and stopping devices) in the in-process world, check them, and shrink the first that breaks a rule to a minimal scenario."
    )
    var explore = false

    @Option(
        help: ArgumentHelp(
            "With --explore: the seed of the first program (the same seed, the same programs).", valueName: "n"))
    var seed = "1"

    @Option(help: ArgumentHelp("With --explore: steps per program, 1 to 10000.", valueName: "m"))
    var steps = "40"

    @Option(help: ArgumentHelp("With --explore: devices in the world, 2 to 6.", valueName: "k"))
    var devices = "3"

    @Option(help: ArgumentHelp("With --explore: at most this many programs, 1 to 1000000.", valueName: "count"))
    var programs = "100000"

    @Option(help: ArgumentHelp("With --explore: give up after this many seconds, 0.1 to 3600.", valueName: "seconds"))
    var seconds = "60"

    @Option(
        name: .customLong("mutant"),
        help: ArgumentHelp(
            "With --explore: bend this rule of the simulator on purpose, to show the explorer finds it (repeatable): \(Mutant.names).",
            valueName: "name"))
    var mutants: [String] = []

    @Flag(name: .customLong("print"), help: "With --explore: also print the shrunk program's timeline.")
    var printTimeline = false

    @Option(
        name: .customLong("save"),
        help: ArgumentHelp("With --explore: write the shrunk program's scenario to this file.", valueName: "file"))
    var scenarioFile: String?

    /// The first option given that only `--explore` takes, when it is not given (nil if none).
    var optionWithoutExplore: String? {
        guard !explore else { return nil }
        let given: [(String, Bool)] = [
            ("--seed", seed != "1"), ("--steps", steps != "40"), ("--devices", devices != "3"),
            ("--programs", programs != "100000"), ("--seconds", seconds != "60"), ("--mutant", !mutants.isEmpty),
            ("--print", printTimeline), ("--save", scenarioFile != nil),
        ]
        return given.first { $0.1 }?.0
    }

    /// The numbers and names read and bounded.
    func exploreOptions() throws(ExploreOptionError) -> ExploreOptions {
        func integer(_ option: String, _ text: String, _ range: ClosedRange<Int>) throws(ExploreOptionError) -> Int {
            guard let value = Int(text), range.contains(value) else {
                throw ExploreOptionError(
                    option: option, value: "\"\(text.prefix(40))\"", range: "\(range.lowerBound) to \(range.upperBound)"
                )
            }
            return value
        }
        guard let seed = UInt64(seed) else {
            throw ExploreOptionError(option: "--seed", value: "\"\(seed.prefix(40))\"", range: "0 to \(UInt64.max)")
        }
        guard let seconds = Double(seconds), seconds.isFinite, ExploreOptions.secondsRange.contains(seconds) else {
            throw ExploreOptionError(option: "--seconds", value: "\"\(seconds.prefix(40))\"", range: "0.1 to 3600")
        }
        var bent: Set<Mutant> = []
        for name in mutants {
            guard let mutant = Mutant(rawValue: name) else {
                throw ExploreOptionError(
                    option: "--mutant", value: "\"\(name.prefix(40))\"", range: "one of " + Mutant.names)
            }
            bent.insert(mutant)
        }
        return try ExploreOptions(
            seed: seed, steps: integer("--steps", steps, ExploreOptions.stepsRange),
            devices: integer("--devices", devices, ExploreOptions.devicesRange),
            programs: integer("--programs", programs, ExploreOptions.programsRange), seconds: seconds,
            mutants: bent
        ).validated()
    }
}

/// `handoff check --explore`: runs the explorer and prints what it found.
enum CheckExplore {
    /// Exit status: 0 when nothing broke a rule, 1 when a program did (shrunk and printed), 2 for
    /// a bad option.
    static func run(_ arguments: CheckExploreOptions) -> Int32 {
        let options: ExploreOptions
        do {
            options = try arguments.exploreOptions()
        } catch {
            FileHandle.standardError.write(Data("handoff check --explore: \(error)\n".utf8))
            return 2
        }
        let bent = options.mutants.map(\.rawValue).sorted()
        print(
            "Exploring: seed \(options.seed), \(options.steps) steps a program, \(options.devices) devices"
                + (bent.isEmpty ? "" : ", bent on purpose: " + bent.joined(separator: ", ")))
        let explorer = Explorer(options: options, check: RuleBookChecker.checker(for: options.mutants))
        let report = explorer.explore { line in print("  \(line)") }
        print(
            String(
                format: "%d programs, %d steps, %d events in %.2f s", report.programs, report.steps, report.events,
                report.seconds))
        guard let found = report.discovery else {
            print("No rule broken.")
            return 0
        }
        print("")
        print(
            "Program seed \(found.programSeed) broke \(found.finding.rule); shrunk from \(found.original.steps.count) to \(found.shrunk.steps.count) steps in \(found.shrinkRuns) runs"
                + String(format: " (%.2f s).", found.shrinkSeconds))
        print("")
        print(found.finding.report)
        print("")
        print(
            found.replayProblem.map { "The scenario below does NOT replay it: \($0)" }
                ?? "The scenario below replays it (read back and played again, it breaks \(found.finding.rule)):")
        print(found.scenarioText, terminator: "")
        if let path = arguments.scenarioFile {
            do {
                try Data(found.scenarioText.utf8).write(to: URL(fileURLWithPath: path))
                print("Saved to \(path) (handoff scenario \(path) plays it with device processes).")
            } catch {
                FileHandle.standardError.write(Data("handoff check --explore: cannot write \(path): \(error)\n".utf8))
                return 2
            }
        }
        if arguments.printTimeline {
            print("")
            do {
                let timeline = try ExploreTimeline.timeline(found.run.lifecycles, kinds: ExploreProgram.kinds)
                // Drawn as `handoff timeline --print` draws recordings.
                print(TimelineReplayView.lanes(of: timeline).text(laneWidth: 44), terminator: "")
            } catch {
                print("(the timeline could not be drawn: \(error))")
            }
        }
        return 1
    }
}
