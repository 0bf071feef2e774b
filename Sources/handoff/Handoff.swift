import ArgumentParser
import HandoffCore

/// The `handoff` command: the root of every subcommand.
@main
struct Handoff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoff",
        abstract: "A Handoff simulator: Apple's user-activity continuation between devices, reimplemented for terminals.",
        version: HandoffVersion.current,
        subcommands: [DeviceCommand.self, DemoCommand.self, ScenarioCommand.self, AccountCommand.self, ManifestCommand.self, BenchCommand.self],
        defaultSubcommand: DeviceCommand.self
    )
}
