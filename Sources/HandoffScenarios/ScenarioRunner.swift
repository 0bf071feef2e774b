import Foundation
import HandoffCore
import HandoffProcesses
import HandoffRecordings

#if canImport(Glibc)
import Glibc
#endif

/// Plays a ``Scenario`` with real headless device processes in a private neighbourhood (a
/// temporary accounts folder, a fresh account and a random discovery port, so that no other
/// device takes part), printing each step as it passes, and stopping at the first failure with
/// the failing device's latest lines. Every device records its lifecycle (`--record`); once the
/// steps pass, the devices quit and their recordings are checked together against Apple's rules
/// (``RecordingCheck``): a violation fails the run.
package final class ScenarioRunner {
    package let scenario: Scenario
    package let executable: URL
    /// Where the run registers its accounts folder and device processes while it runs.
    package let cleanup: ScenarioCleanup
    private let write: (String) -> Void

    /// The outcome of a run.
    package struct Outcome: Sendable, Hashable {
        package var passed: Bool
        package var stepsRun: Int
        package var seconds: Double
        /// Why the run failed (nil when it passed).
        package var failure: String?
    }

    /// - Parameters:
    ///   - executable: the `handoff` binary to start devices with.
    ///   - cleanup: where the run registers what it must not leave behind if the program is
    ///     interrupted (give every run of a program the same one, and call its
    ///     ``ScenarioCleanup/cleanUpNow(grace:)`` on SIGINT and SIGTERM).
    ///   - write: receives each line of the report.
    package init(
        scenario: Scenario, executable: URL, cleanup: ScenarioCleanup = ScenarioCleanup(),
        write: @escaping (String) -> Void
    ) {
        self.scenario = scenario
        self.executable = executable
        self.cleanup = cleanup
        self.write = write
    }

    /// Where a device of a run records its lifecycle: a file per device in the run's folder.
    static func recordingPath(of device: String, number: Int, in folder: URL) -> String {
        let safe = device.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? String($0) : "-" }.joined()
        return folder.appendingPathComponent("\(number)-\(safe).jsonl").path
    }

    /// `options` with the path after each `--install` read from `folder` when it is relative (a
    /// scenario names the Info.plist it installs relative to its own file).
    static func resolvingInstalls(_ options: [String], from folder: URL?) -> [String] {
        guard let folder else { return options }
        var resolved = options
        for index in resolved.indices.dropLast()
        where resolved[index] == "--install" && !resolved[index + 1].hasPrefix("/") {
            resolved[index + 1] = folder.appendingPathComponent(resolved[index + 1]).standardized.path
        }
        return resolved
    }

    package func run() -> Outcome {
        let start = Date()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-scenario-\(UUID().uuidString)")
        cleanup.add(folder: folder)
        defer {
            try? FileManager.default.removeItem(at: folder)
            cleanup.remove(folder: folder)
        }
        let account = "scn-\(UUID().uuidString.prefix(8).lowercased())"
        let port = DiscoveryPort.random()
        write("Scenario: \(scenario.name)")
        if !scenario.about.isEmpty { write("  \(scenario.about)") }
        write(
            "  devices: " + scenario.devices.map { "\($0.name) (\($0.kind))" }.joined(separator: ", ")
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
        /// `steps` passed; the failing step is the next one (none when the devices did not start).
        func failed(_ steps: Int, _ message: String, device: String? = nil, atStep: Bool = true) -> Outcome {
            write("  ✗ \(message)")
            if let device, let process = processes[device] {
                write("    latest lines from \(device):")
                for line in process.lastRawLines(6) { write("      \(line.prefix(300))") }
                let errors = process.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
                if !errors.isEmpty { write("    stderr: \(errors.suffix(500))") }
            }
            let seconds = Date().timeIntervalSince(start)
            write(
                atStep
                    ? String(
                        format: "FAIL at step %d of %d (%d passed, %.2f s)", steps + 1, scenario.steps.count, steps,
                        seconds)
                    : steps == 0
                        ? String(format: "FAIL before the first step (%.2f s)", seconds)
                        : String(format: "FAIL after all %d steps passed (%.2f s)", steps, seconds))
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
                let server = try HeadlessProcess(
                    name: "web",
                    command: [
                        "web", "serve", "--port", "0", "--http-port", "0",
                        "--web-dir", webFolder.path,
                    ], executable: executable)
                cleanup.add(server)
                web = server
            } catch {
                return failed(0, "could not start the local web: \(error)", atStep: false)
            }
            guard web?.waitForRawLine(from: 0, timeout: 30, where: { $0.contains("Ctrl-C stops.") }) != nil else {
                let said = (web?.lastRawLines(6) ?? []).joined(separator: " / ") + " " + (web?.standardError ?? "")
                return failed(0, "the local web did not start: \(said.prefix(500))", atStep: false)
            }
            webArguments = ["--web-dir", webFolder.path]
            write("  local web: handoff web serve (its own CA and hosts map)")
        }

        var recordings: [String] = []
        for device in scenario.devices {
            var arguments =
                [
                    "--kind", device.kind, "--account", account, "--port", String(port),
                    "--config-dir", folder.path, "--strict",
                ] + webArguments
            if let apps = device.apps { arguments += ["--apps", apps.joined(separator: ",")] }
            if let team = device.team { arguments += ["--claim-team", team] }
            for claim in device.claims { arguments += ["--claim", claim] }
            arguments += Self.resolvingInstalls(device.options, from: scenario.folder)
            let recording = Self.recordingPath(of: device.name, number: recordings.count + 1, in: folder)
            arguments += ["--record", recording]
            recordings.append(recording)
            do {
                let process = try HeadlessProcess(name: device.name, arguments: arguments, executable: executable)
                cleanup.add(process)
                processes[device.name] = process
            } catch {
                return failed(0, "could not start \(device.name): \(error)", atStep: false)
            }
            cursors[device.name] = 0
            guard
                let ready = processes[device.name]?.waitForRawLine(
                    from: 0, timeout: 30, where: { $0.contains(#""event":"ready""#) })
            else {
                return failed(0, "\(device.name) did not start", device: device.name, atStep: false)
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
                guard
                    let answer = process.waitForRawLine(
                        from: cursors[device] ?? 0, timeout: 30,
                        where: { line in
                            guard let value = try? JSONValue.parse(line) else { return false }
                            return value["id"]?.integerValue == Int64(wanted)
                        })
                else {
                    return failed(index, "step \(index + 1): \(device) did not answer \(name)", device: device)
                }
                let result = try? JSONValue.parse(answer.line)
                let ok = result?["ok"]?.boolValue ?? false
                if ok == expectsError {
                    let error = result?["error"]?.description ?? answer.line
                    return failed(
                        index,
                        expectsError
                            ? "step \(index + 1): \(device) ← \(name) succeeded but should have failed"
                            : "step \(index + 1): \(device) ← \(name) failed: \(error)", device: device)
                }
                write(
                    "  ✓ \(device) ← \(name)\(expectsError ? " (refused, as expected)" : "") (\(elapsed()))\(note.map { " — \($0)" } ?? "")"
                )
            case .expect(let device, let pattern, let within, let note):
                guard let process = processes[device] else { continue }
                guard
                    let match = process.waitForRawLine(
                        from: cursors[device] ?? 0, timeout: within,
                        where: { line in
                            (try? JSONValue.parse(line))?.matches(pattern) ?? false
                        })
                else {
                    let seen = process.rawLines(from: cursors[device] ?? 0)
                    var message =
                        "step \(index + 1)\(note.map { " (\($0))" } ?? ""): \(device) did not report \(Self.summary(of: pattern)) within \(within) s"
                    message += "\n    expected: \(pattern.jsonText)"
                    if let nearest = Self.nearest(to: pattern, in: seen) {
                        message += "\n    closest:  \(nearest.prefix(300))"
                    } else {
                        message += "\n    closest:  nothing (\(device) reported no event since the last step)"
                    }
                    return failed(index, message, device: device)
                }
                cursors[device] = match.index + 1
                write("  ✓ \(device): \(Self.summary(of: pattern)) (\(elapsed()))\(note.map { " — \($0)" } ?? "")")
            case .wait(let seconds):
                Thread.sleep(forTimeInterval: seconds)
                write(String(format: "  ✓ waited %.3f s", seconds))
            case .signal(let device, let signal):
                guard let process = processes[device] else { continue }
                let number: Int32 =
                    switch signal {
                    case .kill: SIGKILL
                    case .stop: SIGSTOP
                    case .cont: SIGCONT
                    }
                process.process.send(number)
                write("  ✓ \(device) ← \(signal.rawValue)")
            case .expectNone(let device, let pattern, let within, let note):
                guard let process = processes[device] else { continue }
                if let match = process.waitForRawLine(
                    from: cursors[device] ?? 0, timeout: within,
                    where: { line in
                        (try? JSONValue.parse(line))?.matches(pattern) ?? false
                    })
                {
                    return failed(
                        index,
                        "step \(index + 1)\(note.map { " (\($0))" } ?? ""): \(device) reported \(Self.summary(of: pattern)), which it should not have within \(within) s\n    seen: \(match.line.prefix(300))",
                        device: device)
                }
                write("  ✓ \(device): no \(Self.summary(of: pattern)) for \(within) s\(note.map { " — \($0)" } ?? "")")
            }
        }
        // The devices quit (so each recording holds everything its device did), then the rules.
        for (name, process) in processes {
            process.closeInput()
            if process.waitForExit(timeout: 10) == nil {
                return failed(scenario.steps.count, "\(name) did not quit within 10 s", device: name, atStep: false)
            }
        }
        do {
            let check = try RecordingCheck(files: recordings)
            if !check.violations.isEmpty {
                for line in check.report.dropLast() { write("    \(line)") }
                return failed(scenario.steps.count, "Apple's rules: \(check.summary)", atStep: false)
            }
            write("  ✓ Apple's rules: \(check.summary)")
        } catch {
            return failed(scenario.steps.count, "the recordings could not be checked: \(error)", atStep: false)
        }
        let seconds = Date().timeIntervalSince(start)
        write(String(format: "PASS (%d steps, %.2f s)", scenario.steps.count, seconds))
        return Outcome(passed: true, stepsRun: scenario.steps.count, seconds: seconds, failure: nil)
    }

    /// Of `lines` (a device's JSON lines), the one closest to `pattern`: the most of its values
    /// equal (the kind and event count most), then the latest; nil when no line is JSON.
    static func nearest(to pattern: JSONValue, in lines: [String]) -> String? {
        var best: (score: Int, line: String)?
        for line in lines {
            guard let value = try? JSONValue.parse(line) else { continue }
            let score = closeness(of: value, to: pattern)
            if best == nil || score >= best!.score { best = (score, line) }
        }
        return best?.line
    }

    /// How many of `pattern`'s values `value` has equal; its "kind" and "event" weigh ten each.
    static func closeness(of value: JSONValue, to pattern: JSONValue) -> Int {
        guard case .object(let wanted) = pattern else { return value.matches(pattern) ? 1 : 0 }
        var score = 0
        for (key, expected) in wanted {
            guard let actual = value[key] else { continue }
            let weight = key == "kind" || key == "event" ? 10 : 1
            if case .object = expected {
                score += closeness(of: actual, to: expected)
            } else if actual.matches(expected) {
                score += weight
            }
        }
        return score
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
