import ArgumentParser
import Foundation
import HandoffHeadless

/// `handoff soak`: two headless device processes and many continuations under random faults
/// (docs/soak.md).
struct SoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Continue an activity thousands of times between two device processes while injecting faults.",
        discussion: """
            Starts two headless devices (this executable) in a private account and discovery port, and \
            continues the origin's activity again and again. At random (--fault-rate), a continuation \
            gets a fault: the origin killed and restarted, stopped (SIGSTOP) and continued, silent or \
            slow connections held against its session port, or garbage datagrams on the discovery \
            port. Every continuation must end restored or with a documented code (4608, 4609, 4610) \
            within --deadline; memory and open descriptors are compared after warm-up and at the end. \
            Exits 1 when anything hung, ended otherwise, grew or leaked.
            """
    )

    @Option(help: "Continuations to run.")
    var continuations = 2000

    @Option(help: ArgumentHelp("Chance that a continuation gets a fault, 0 to 1.", valueName: "rate"))
    var faultRate = 0.25

    @Option(help: "Seed of the fault choices (the same seed makes the same choices).")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Seconds a continuation may take to end, either way.", valueName: "seconds"))
    var deadline: Double = 20

    func validate() throws {
        guard continuations > 0 else { throw ValidationError("--continuations must be positive.") }
        guard (0...1).contains(faultRate) else { throw ValidationError("--fault-rate must be between 0 and 1.") }
        guard deadline > 0 else { throw ValidationError("--deadline must be positive.") }
    }

    func run() throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let runner = SoakRunner(executable: executable, options: SoakRunner.Options(
            continuations: continuations, faultRate: faultRate, seed: seed, deadline: deadline,
            progress: { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }))
        let report = try runner.run()
        print(report)
        if !report.passed { throw ExitCode(1) }
    }
}
