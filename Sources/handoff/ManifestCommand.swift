import ArgumentParser

/// `handoff manifest`: commands about app manifests (an app's Info.plist and entitlements).
struct ManifestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manifest",
        abstract: "Inspect app manifests: the Info.plist and entitlements that say what an app can continue.",
        subcommands: [ManifestLintCommand.self]
    )
}
