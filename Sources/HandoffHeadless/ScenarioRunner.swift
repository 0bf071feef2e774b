import Foundation

/// Plays a ``Scenario`` with real headless device processes in a private neighbourhood (a
/// temporary accounts folder, a fresh account and a random discovery port, so that no other
/// device takes part), printing each step as it passes, and stopping at the first failure with
/// the failing device's latest lines.
public final class ScenarioRunner {
    public let scenario: Scenario
    public let executable: URL
    /// Where the run registers its accounts folder and device processes while it runs.
    public let cleanup: ScenarioCleanup
    private let write: (String) -> Void

    /// The outcome of a run.
    public struct Outcome: Sendable, Hashable {
        public var passed: Bool
        public var stepsRun: Int
        public var seconds: Double
        /// Why the run failed (nil when it passed).
        public var failure: String?
    }

    /// - Parameters:
    ///   - executable: the `handoff` binary to start devices with.
    ///   - cleanup: where the run registers what it must not leave behind if the program is
    ///     interrupted (give every run of a program the same one, and call its
    ///     ``ScenarioCleanup/cleanUpNow(grace:)`` on SIGINT and SIGTERM).
    ///   - write: receives each line of the report.
    public init(scenario: Scenario, executable: URL, cleanup: ScenarioCleanup = ScenarioCleanup(),
                write: @escaping (String) -> Void) {
        self.scenario = scenario
        self.executable = executable
        self.cleanup = cleanup
        self.write = write
    }

    /// `options` with the path after each `--install` read from `folder` when it is relative (a
    /// scenario names the Info.plist it installs relative to its own file).
    static func resolvingInstalls(_ options: [String], from folder: URL?) -> [String] {
        guard let folder else { return options }
        var resolved = options
        for index in resolved.indices.dropLast() where resolved[index] == "--install" && !resolved[index + 1].hasPrefix("/") {
            resolved[index + 1] = folder.appendingPathComponent(resolved[index + 1]).standardized.path
        }
        return resolved
    }

    public func run() -> Outcome {
        let start = Date()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-scenario-\(UUID().uuidString)")
        cleanup.add(folder: folder)
        defer {
            try? FileManager.default.removeItem(at: folder)
            cleanup.remove(folder: folder)
        }
        let account = "scn-\(UUID().uuidString.prefix(8).lowercased())"
        let port = DiscoveryPort.random()
        write("Scenario: \(scenario.name)")
        if !scenario.about.isEmpty { write("  \(scenario.about)") }
        write("  devices: " + scenario.devices.map { "\($0.name) (\($0.kind))" }.joined(separator: ", ")
              + " · account \(account) · port \(port)")

        var processes: [String: HeadlessProcess] = [:]
        var cursors: [String: Int] = [:]
        defer {
            for process in processes.values {
                process.closeInput()
                if process.waitForExit(timeout: 5) == nil { process.kill() }
                cleanup.remove(process)
            }
        }
        func failed(_ steps: Int, _ message: String, device: String? = nil) -> Outcome {
            write("  ✗ \(message)")
            if let device, let process = processes[device] {
                write("    latest lines from \(device):")
                for line in process.lastRawLines(6) { write("      \(line.prefix(300))") }
                let errors = process.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
                if !errors.isEmpty { write("    stderr: \(errors.suffix(500))") }
            }
            let seconds = Date().timeIntervalSince(start)
            write(String(format: "FAIL after %d steps (%.2f s)", steps, seconds))
            return Outcome(passed: false, stepsRun: steps, seconds: seconds, failure: message)
        }

        // A local web of the run's own (its own certificate authority and hosts map, in the run's
        // folder), when the scenario asks for one.
        var webArguments: [String] = []
        var web: HeadlessProcess?
        defer {
            if let web {
                web.terminate()
                if web.waitForExit(timeout: 5) == nil { web.kill() }
                cleanup.remove(web)
            }
        }
        if scenario.web {
            let webFolder = folder.appendingPathComponent("web")
            do {
                let server = try HeadlessProcess(name: "web", command: ["web", "serve", "--port", "0", "--http-port", "0",
                                                                        "--web-dir", webFolder.path], executable: executable)
                cleanup.add(server)
                web = server
            } catch {
                return failed(0, "could not start the local web: \(error)")
            }
            guard web?.waitForRawLine(from: 0, timeout: 30, where: { $0.contains("Ctrl-C stops.") }) != nil else {
                let said = (web?.lastRawLines(6) ?? []).joined(separator: " / ") + " " + (web?.standardError ?? "")
                return failed(0, "the local web did not start: \(said.prefix(500))")
            }
            webArguments = ["--web-dir", webFolder.path]
            write("  local web: handoff web serve (its own CA and hosts map)")
        }

        for device in scenario.devices {
            var arguments = ["--kind", device.kind, "--account", account, "--port", String(port),
                             "--config-dir", folder.path, "--strict"] + webArguments
            if let apps = device.apps { arguments += ["--apps", apps.joined(separator: ",")] }
            if let team = device.team { arguments += ["--claim-team", team] }
            for claim in device.claims { arguments += ["--claim", claim] }
            arguments += Self.resolvingInstalls(device.options, from: scenario.folder)
            do {
                let process = try HeadlessProcess(name: device.name, arguments: arguments, executable: executable)
                cleanup.add(process)
                processes[device.name] = process
            } catch {
                return failed(0, "could not start \(device.name): \(error)")
            }
            cursors[device.name] = 0
            guard let ready = processes[device.name]?.waitForRawLine(from: 0, timeout: 30, where: { $0.contains(#""event":"ready""#) }) else {
                return failed(0, "\(device.name) did not start", device: device.name)
            }
            cursors[device.name] = ready.index + 1
        }

        var commandID = 1000
        for (index, step) in scenario.steps.enumerated() {
            let stepStart = Date()
            func elapsed() -> String { String(format: "%.0f ms", Date().timeIntervalSince(stepStart) * 1000) }
            switch step {
            case .say(let text):
                write("  ▸ \(text)")
            case .send(let device, let command, let expectsError, let note):
                guard let process = processes[device], case .object(var object) = command else { continue }
                commandID += 1
                object["id"] = .integer(Int64(commandID))
                let name = object["cmd"]?.stringValue ?? "?"
                process.sendLine(JSONValue.object(object).jsonText)
                let wanted = commandID
                guard let answer = process.waitForRawLine(from: cursors[device] ?? 0, timeout: 30, where: { line in
                    guard let value = try? JSONValue.parse(line) else { return false }
                    return value["id"]?.integerValue == Int64(wanted)
                }) else {
                    return failed(index, "\(device) did not answer \(name) (step \(index + 1))", device: device)
                }
                let result = try? JSONValue.parse(answer.line)
                let ok = result?["ok"]?.boolValue ?? false
                if ok == expectsError {
                    let error = result?["error"]?.description ?? answer.line
                    return failed(index, expectsError ? "\(device) ← \(name) succeeded but should have failed (step \(index + 1))"
                                                      : "\(device) ← \(name) failed: \(error) (step \(index + 1))", device: device)
                }
                write("  ✓ \(device) ← \(name)\(expectsError ? " (refused, as expected)" : "") (\(elapsed()))\(note.map { " — \($0)" } ?? "")")
            case .expect(let device, let pattern, let within, let note):
                guard let process = processes[device] else { continue }
                guard let match = process.waitForRawLine(from: cursors[device] ?? 0, timeout: within, where: { line in
                    (try? JSONValue.parse(line))?.matches(pattern) ?? false
                }) else {
                    return failed(index, "\(device): no line matching \(pattern.jsonText) within \(within) s (step \(index + 1))", device: device)
                }
                cursors[device] = match.index + 1
                write("  ✓ \(device): \(Self.summary(of: pattern)) (\(elapsed()))\(note.map { " — \($0)" } ?? "")")
            case .expectNone(let device, let pattern, let within, let note):
                guard let process = processes[device] else { continue }
                if let match = process.waitForRawLine(from: cursors[device] ?? 0, timeout: within, where: { line in
                    (try? JSONValue.parse(line))?.matches(pattern) ?? false
                }) {
                    return failed(index, "\(device): unexpected \(match.line.prefix(200)) (step \(index + 1))", device: device)
                }
                write("  ✓ \(device): no \(Self.summary(of: pattern)) for \(within) s\(note.map { " — \($0)" } ?? "")")
            }
        }
        let seconds = Date().timeIntervalSince(start)
        write(String(format: "PASS (%d steps, %.2f s)", scenario.steps.count, seconds))
        return Outcome(passed: true, stepsRun: scenario.steps.count, seconds: seconds, failure: nil)
    }

    /// A short description of a pattern: the event and kind first, then the rest.
    static func summary(of pattern: JSONValue) -> String {
        guard case .object(var object) = pattern else { return pattern.jsonText }
        var parts: [String] = []
        if let event = object.removeValue(forKey: "event")?.stringValue, event != "lifecycle" { parts.append(event) }
        if let kind = object.removeValue(forKey: "kind")?.stringValue { parts.append(kind) }
        if !object.isEmpty { parts.append(JSONValue.object(object).jsonText) }
        return parts.joined(separator: " ")
    }
}
