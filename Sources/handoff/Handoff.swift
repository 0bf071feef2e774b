import ArgumentParser
import CursesTerminal
import HandoffCore

#if canImport(Glibc)
import Glibc
#endif

/// The `handoff` command: the root of every subcommand.
@main
struct Handoff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoff",
        abstract:
            "A Handoff simulator: Apple's user-activity continuation between devices, reimplemented for terminals.",
        discussion: "Without a command, runs `handoff device` (options such as --name go to it).",
        version: HandoffVersion.current,
        subcommands: [
            DeviceCommand.self, DemoCommand.self, ScenarioCommand.self, AccountCommand.self, ManifestCommand.self,
            WebCommand.self, TimelineCommand.self, CheckCommand.self, DoctorCommand.self, LearnCommand.self,
            BenchCommand.self, SoakCommand.self, WireCommand.self, TimelineBenchCommand.self,
        ],
        defaultSubcommand: DeviceCommand.self
    )

    /// Runs the command line. A first argument that is neither an option nor a command is an
    /// unknown command, reported with the top-level usage (without this, the default subcommand
    /// would take it and report an unexpected argument with the device's usage).
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let problem = unknownCommand(in: arguments) {
            exit(withError: ValidationError(problem))
        }
        // A terminal device sends crash reports to its log, which needs the runtime started with
        // other settings: re-executed now, before anything is done twice (the account read, the
        // device's lock, a new device's identity: a start took twice as long before).
        if runsTerminalDevice(argc: CommandLine.argc, argv: CommandLine.unsafeArgv) {
            CrashReports.sendToStandardError()
            if await runDevice(arguments) { return }
        }
        await main(nil)
    }

    /// Runs `handoff device` (or the default command) parsed by `DeviceCommand` alone, rather
    /// than through the whole command tree: building the tree looks up every subcommand's
    /// conformances, milliseconds of a device's start (docs/bench.md, "First frame"). Returns
    /// false, having run nothing, when the arguments do not parse that way: the whole tree then
    /// parses them again and reports any error with the usage it always gave.
    static func runDevice(_ arguments: [String]) async -> Bool {
        let deviceArguments =
            arguments.first == DeviceCommand.configuration.commandName
            ? Array(arguments.dropFirst()) : arguments
        guard let command = try? DeviceCommand.parse(deviceArguments) else { return false }
        do {
            try await command.run()
        } catch {
            exit(withError: error)
        }
        return true
    }

    /// Whether the program's arguments (`argv`, `argc` entries with the program's name first)
    /// run a device on this terminal (`device`, or the default command), rather than a headless
    /// device, another command, or help. C strings and the C library only: it runs before the
    /// Swift runtime starts too (``prepareCrashReports``).
    static func runsTerminalDevice(argc: Int32, argv: CrashReports.ArgumentVector) -> Bool {
        guard let argv else { return false }
        func equals(_ argument: UnsafePointer<CChar>, _ text: StaticString) -> Bool {
            strcmp(argument, CrashReports.cString(text)) == 0
        }
        if argc > 1, let first = argv[1], first[0] != 0x2D, !equals(first, "device") { return false }  // '-'
        for index in 1..<max(Int(argc), 1) {
            guard let argument = argv[index] else { continue }
            if equals(argument, "--headless") || equals(argument, "--help") || equals(argument, "-h")
                || equals(argument, "--version") || equals(argument, "help")
            {
                return false
            }
        }
        return true
    }

    /// The commands the first argument may name.
    static var commandNames: [String] { configuration.subcommands.map { $0._commandName } }

    /// Why `arguments` start with an unknown command, or nil when they do not.
    static func unknownCommand(in arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), first != "help",
            first != DeviceCommand.configuration.commandName, !commandNames.contains(first)
        else {
            return nil
        }
        return "unknown command \"\(first)\" (commands: \(commandNames.joined(separator: ", ")); "
            + "options alone run a device)."
    }
}
