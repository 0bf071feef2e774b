import ArgumentParser
import Foundation
import HandoffHeadless

/// `handoff scenario`: replays scripted continuation flows with real headless devices.
struct ScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Replay scripted continuation flows with headless devices (see demos/scenarios).",
        discussion: """
            Each scenario file names its devices and steps: commands sent to a device, events \
            expected from one within a deadline, and narration. The devices run as separate \
            `handoff device --headless` processes in a private account on a private discovery \
            port. Exit status: 0 when every scenario passes, 1 when one fails, 2 when a file is \
            not a valid scenario. The format is in docs/headless.md.
            """
    )

    @Argument(help: ArgumentHelp("Scenario files (JSON), or folders of them.", valueName: "file"))
    var files: [String]

    @Flag(help: "Only check that the files are valid scenarios.")
    var check = false

    func run() throws {
        var urls: [URL] = []
        for path in files {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ValidationError("\(path): no such file or folder.")
            }
            if isDirectory.boolValue {
                let entries = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".json") }.sorted()
                urls += entries.map { URL(fileURLWithPath: path).appendingPathComponent($0) }
            } else {
                urls.append(URL(fileURLWithPath: path))
            }
        }
        var scenarios: [Scenario] = []
        var invalid = false
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
            for (url, scenario) in zip(urls, scenarios) { print("ok \(url.path): \(scenario.name) (\(scenario.steps.count) steps)") }
            return
        }
        let executable = URL(fileURLWithPath: DemoCommand.currentExecutable())
        var failures = 0
        for scenario in scenarios {
            let outcome = ScenarioRunner(scenario: scenario, executable: executable) { line in
                StandardOutput.shared.write(line)
            }.run()
            if !outcome.passed { failures += 1 }
            StandardOutput.shared.write("")
        }
        StandardOutput.shared.write("\(scenarios.count - failures) of \(scenarios.count) scenarios passed.")
        if failures > 0 { throw ExitCode(1) }
    }
}
