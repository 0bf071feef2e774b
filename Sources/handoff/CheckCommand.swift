import ArgumentParser
import Foundation
import HandoffCore
import HandoffExplore
import HandoffRecordings
import HandoffRules

/// `handoff check FILE…`: recordings of one run checked against Apple's rules (docs/rules.md).
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check recorded lifecycles (handoff device --record FILE) against Apple's rules of Handoff.",
        discussion: """
            Give the recordings of one run, one per device of one account: they are read back as \
            typed histories and checked together against every rule of the rule book \
            (docs/rules.md): only the current activity is offered, every chosen continuation ends \
            exactly once, willContinue comes before the fetch, a send precedes its receipt, and the \
            rest. Each violation is printed with the rule's identifier, its sentence, its source \
            (the Apple document and section) and the fewest events that show it: each with its \
            device, its position in that device's recording, its time and its log line.

            Exit status: 0 when no rule is broken, 1 when one is, 2 when a recording cannot be \
            read (truncated, not JSON, another account's, an event whose fields do not read back: \
            the message names the file and the line).

            With --explore (and no files) it searches instead: random programs of M steps on K \
            devices, from seed N on, run in the in-process world and checked; the first that \
            breaks a rule is shrunk to a minimal program, printed as a scenario file that replays \
            it (and with --print as a timeline). Exit status 0 when nothing broke, 1 when a \
            program did, 2 for an option out of bounds (docs/explore.md).
            """
    )

    @Argument(help: ArgumentHelp("The recordings, one per device of one run.", valueName: "file"))
    var files: [String] = []

    @OptionGroup var exploring: CheckExploreOptions

    func validate() throws {
        if exploring.explore {
            guard files.isEmpty else { throw ValidationError("--explore takes no recordings.") }
            return
        }
        if let option = exploring.optionWithoutExplore { throw ValidationError("\(option) goes with --explore.") }
        if files.isEmpty {
            throw ValidationError("Give at least one recording (handoff device --record FILE makes one).")
        }
    }

    func run() throws {
        if exploring.explore {
            let status = CheckExplore.run(exploring)
            if status != 0 { throw ExitCode(status) }
            return
        }
        let check: RecordingCheck
        do {
            check = try RecordingCheck(files: files)
        } catch {
            FileHandle.standardError.write(Data("handoff check: \(error)\n".utf8))
            throw ExitCode(2)
        }
        for line in check.report { Swift.print(line) }
        if !check.violations.isEmpty { throw ExitCode(1) }
    }
}
