import ArgumentParser
import Dispatch
import Foundation
import HandoffScenarios

/// `handoff scenario`: replays scripted continuation flows with real headless devices.
struct ScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Replay scripted continuation flows with headless devices (see demos/scenarios).",
        discussion: """
            Each scenario file names its devices and steps: commands sent to a device, events \
            expected from one within a deadline, and narration. The devices run as separate \
            `handoff device --headless` processes in a private account on a private discovery \
            port. Exit status: 0 when every scenario passes, 1 when one fails, 2 when a file is missing or \
            not a valid scenario; on SIGINT (Ctrl-C) or SIGTERM the devices are stopped and the \
            private accounts folder is removed before it exits (130, 143). The format is in \
            docs/headless.md.
            """
    )

    @Argument(help: ArgumentHelp("Scenario files (JSON), or folders of them.", valueName: "file"))
    var files: [String]

    @Flag(help: "Only check that the files are valid scenarios.")
    var check = false

    func run() throws {
        var urls: [URL] = []
        var invalid = false
        for path in files {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                // Said here rather than as a usage error, which ArgumentParser prints with the
                // top-level usage (`handoff <subcommand>`) for errors thrown by run().
                FileHandle.standardError.write(Data("handoff scenario: \(path): no such file or folder.\n".utf8))
                invalid = true
                continue
            }
            if isDirectory.boolValue {
                // Every scenario in the folder and its subfolders (demos/scenarios/failures/…).
                let entries = (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])
                    .filter { $0.hasSuffix(".json") }.sorted()
                urls += entries.map { URL(fileURLWithPath: path).appendingPathComponent($0) }
            } else {
                urls.append(URL(fileURLWithPath: path))
            }
        }
        var scenarios: [Scenario] = []
        for url in urls {
            do {
                scenarios.append(try Scenario.load(url))
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                invalid = true
            }
        }
        if invalid { throw ExitCode(2) }
        if check {
            for (url, scenario) in zip(urls, scenarios) {
                print("ok \(url.path): \(scenario.name) (\(scenario.steps.count) steps)")
            }
            return
        }
        let executable = URL(fileURLWithPath: DemoCommand.currentExecutable())
        let cleanup = ScenarioCleanup()
        let signalSources = Self.cleanUpOnSignals(cleanup)
        defer { withExtendedLifetime(signalSources) {} }
        var failures = 0
        for scenario in scenarios {
            let outcome = ScenarioRunner(scenario: scenario, executable: executable, cleanup: cleanup) { line in
                // Once interrupted, the devices are being stopped on purpose: no failure reports.
                guard !cleanup.isCleaningUp else { return }
                StandardOutput.shared.write(line)
            }.run()
            if !outcome.passed { failures += 1 }
            StandardOutput.shared.write("")
        }
        StandardOutput.shared.write("\(scenarios.count - failures) of \(scenarios.count) scenarios passed.")
        if failures > 0 { throw ExitCode(1) }
    }

    /// On SIGINT, SIGTERM or SIGHUP: stop the running scenario's devices, remove its accounts
    /// folder (it holds account keys), then exit with 128 + the signal's number.
    /// - Returns: The signal sources; keep them while the scenarios run.
    static func cleanUpOnSignals(_ cleanup: ScenarioCleanup) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM, SIGHUP].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                guard !cleanup.isCleaningUp else { return }
                let name = signalNumber == SIGINT ? "SIGINT" : signalNumber == SIGTERM ? "SIGTERM" : "SIGHUP"
                FileHandle.standardError.write(
                    Data("\nInterrupted (\(name)): stopping the devices and removing the scenario's accounts.\n".utf8))
                let removed = cleanup.cleanUpNow()
                FileHandle.standardError.write(
                    Data("Stopped \(removed.processes) device(s), removed \(removed.folders) folder(s).\n".utf8))
                Foundation.exit(128 + signalNumber)
            }
            source.resume()
            return source
        }
    }
}
