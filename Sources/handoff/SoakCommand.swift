import ArgumentParser
import Foundation
import HandoffScenarios
import MapApp

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
            slow connections held against its session port, garbage datagrams on the discovery \
            port, or hostile clients of the local web server (bad Host headers, idle and slow \
            connections). The local web (handoff web serve, on free ports) runs in the loop: every \
            fourth continuation is a web page of the Map's domain, which the continuing device opens \
            in the Map after checking the site's association file (expiring every 2 s, so fetched \
            again and again). Both devices share their lifecycle events. Every continuation must end \
            restored or with a documented code (4608, 4609, 4610) within --deadline; memory and open \
            descriptors (the web server's too) are compared after warm-up and at the end. Exits 1 \
            when anything hung, ended otherwise, grew or leaked.
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

    @Flag(inversion: .prefixedNo, help: "Run the local web server in the loop, with web pages continued into the Map.")
    var web = true

    @Flag(inversion: .prefixedNo, help: "Both devices share their lifecycle events (--share-lifecycle).")
    var shareLifecycle = true

    func validate() throws {
        guard continuations > 0 else { throw ValidationError("--continuations must be positive.") }
        guard (0...1).contains(faultRate) else { throw ValidationError("--fault-rate must be between 0 and 1.") }
        guard deadline > 0 else { throw ValidationError("--deadline must be positive.") }
    }

    func run() throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var map: URL?
        let appFolder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-soak-map-\(getpid())", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: appFolder) }
        if web { map = try Self.mapApp(in: appFolder) }
        let runner = SoakRunner(
            executable: executable,
            options: SoakRunner.Options(
                continuations: continuations, faultRate: faultRate, seed: seed, deadline: deadline,
                mapManifest: map, shareLifecycle: shareLifecycle,
                progress: { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }))
        let report = try runner.run()
        print(report)
        if !report.passed { throw ExitCode(1) }
    }

    /// The Map as an app folder a device installs (`--install`): its Info.plist and entitlements
    /// from the Map's resources, and the build settings the Map app itself uses.
    static func mapApp(in folder: URL) throws -> URL {
        let resources: MapResources
        do throws(MapError) {
            resources = try MapResources.locate()
        } catch {
            throw ValidationError(
                "the Map's Info.plist is needed for the web in the loop (--no-web runs without it): \(error)")
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["Info.plist", "Map.entitlements"] {
            let target = folder.appendingPathComponent(name)
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: resources.folder.appendingPathComponent(name), to: target)
        }
        let settings = MapApp.buildSettings.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)\n" }.joined()
        try Data(settings.utf8).write(to: folder.appendingPathComponent("BuildSettings.xcconfig"))
        return folder.appendingPathComponent("Info.plist")
    }
}
