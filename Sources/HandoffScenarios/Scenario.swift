import Foundation
import HandoffCore
import HandoffProcesses

/// A scripted continuation flow for headless devices: which devices take part, and the steps —
/// commands sent to a device, events expected from one (within a deadline), and narration.
///
/// Scenarios are JSON files (see `demos/scenarios/` and docs/headless.md):
///
/// ```json
/// {"name": "Reader hand-off", "about": "…",
///  "devices": [{"name": "Laptop", "kind": "laptop"}, {"name": "Phone", "kind": "phone", "apps": ["reader"]}],
///  "steps": [
///    {"say": "The laptop reads page 3."},
///    {"on": "Laptop", "send": {"cmd": "become-current", "type": "com.handoffsim.reader.document", "userInfo": {"page": 3}}},
///    {"on": "Phone", "expect": {"event": "lifecycle", "kind": "offerReceived"}, "within": 10},
///    {"on": "Phone", "send": {"cmd": "continue", "peer": "Laptop"}},
///    {"on": "Phone", "expect": {"event": "restored", "userInfo": {"page": 3}}}
///  ]}
/// ```
///
/// An `expect` pattern matches a line when every key it names is present with a matching value:
/// objects match as subsets, recursively; arrays and other values must be equal (numbers compare
/// by value). Each device's lines are searched in order from just after its last match.
package struct Scenario: Sendable, Hashable {
    package struct Device: Sendable, Hashable {
        package var name: String
        /// phone, tablet or laptop.
        package var kind: String
        /// The stand-in apps the headless device has (reader, map, browser); nil: all.
        package var apps: [String]?
        /// The team identifier of the device's scripted app (to stage a third-party app).
        package var team: String?
        /// Extra activity types the scripted app claims.
        package var claims: [String]
        /// Any other `handoff device` options, as given.
        package var options: [String]
    }

    package enum Step: Sendable, Hashable {
        /// Narration, printed as is.
        case say(String)
        /// Sends `command` to `device` and waits for its result; it must succeed unless
        /// `expectsError`, in which case it must fail.
        case send(device: String, command: JSONValue, expectsError: Bool, note: String?)
        /// Waits up to `within` seconds for a line of `device` matching `pattern`.
        case expect(device: String, pattern: JSONValue, within: Double, note: String?)
        /// Waits up to `within` seconds to make sure no line of `device` matches `pattern`.
        case expectNone(device: String, pattern: JSONValue, within: Double, note: String?)
        /// Lets `seconds` pass (`{"wait": 0.5}`): what `handoff check --explore` writes between
        /// the commands of a program it found.
        case wait(seconds: Double)
        /// Sends `device`'s process a signal (`{"on": "Phone", "signal": "stop"}`): it dies, is
        /// stopped, or goes on.
        case signal(device: String, DeviceSignal)
    }

    /// What a scenario can do to a device's process besides its commands.
    package enum DeviceSignal: String, Sendable, Hashable, CaseIterable {
        /// SIGKILL: the device dies without a goodbye.
        case kill
        /// SIGSTOP: the device stops (nothing it sends or answers, its peers notice by silence).
        case stop
        /// SIGCONT: a stopped device goes on.
        case cont
    }

    package var name: String
    package var about: String
    package var devices: [Device]
    package var steps: [Step]
    /// Whether the run starts a local web (`handoff web serve`) that every device fetches
    /// association files through (`"web": true`).
    package var web = false
    /// The folder of the scenario's file: relative paths in devices' `--install` options are
    /// read from there.
    package var folder: URL?

    /// The kinds of device a scenario may name.
    static let kinds: Set<String> = ["phone", "tablet", "laptop"]
    /// The stand-in apps of a headless device.
    package static let headlessApps: Set<String> = ["reader", "map", "browser"]

    /// Reads a scenario from JSON text; `file` names the source in errors.
    package static func parse(_ text: String, file: String) throws(ScenarioError) -> Scenario {
        let root: JSONValue
        do {
            root = try JSONValue.parse(text)
        } catch {
            throw ScenarioError(file: file, path: "", message: "not valid JSON: \(error)")
        }
        var reader = Reader(file: file)
        return try reader.scenario(root)
    }

    /// Reads the scenario file at `url`.
    package static func load(_ url: URL) throws(ScenarioError) -> Scenario {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ScenarioError(
                file: url.path, path: "", message: "cannot read the file: \(error.localizedDescription)")
        }
        guard data.count <= 1 << 20 else { throw ScenarioError(file: url.path, path: "", message: "larger than 1 MiB") }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ScenarioError(file: url.path, path: "", message: "not UTF-8 text")
        }
        var scenario = try parse(text, file: url.path)
        scenario.folder = url.deletingLastPathComponent()
        return scenario
    }

    /// Validates the JSON tree, naming the path of anything wrong.
    private struct Reader {
        let file: String

        func fail(_ path: String, _ message: String) -> ScenarioError {
            ScenarioError(file: file, path: path, message: message)
        }

        func object(_ value: JSONValue, _ path: String) throws(ScenarioError) -> [String: JSONValue] {
            guard let object = value.objectValue else {
                throw fail(path, "expected an object, found \(value.kindDescription)")
            }
            return object
        }

        func string(_ value: JSONValue?, _ path: String, required: Bool = true) throws(ScenarioError) -> String? {
            guard let value, !value.isNull else {
                if required { throw fail(path, "missing") }
                return nil
            }
            guard let text = value.stringValue else {
                throw fail(path, "expected a string, found \(value.kindDescription)")
            }
            return text
        }

        func strings(_ value: JSONValue?, _ path: String) throws(ScenarioError) -> [String]? {
            guard let value, !value.isNull else { return nil }
            guard let array = value.arrayValue else {
                throw fail(path, "expected an array of strings, found \(value.kindDescription)")
            }
            var result: [String] = []
            for (index, element) in array.enumerated() {
                guard let text = element.stringValue else {
                    throw fail("\(path)[\(index)]", "expected a string, found \(element.kindDescription)")
                }
                result.append(text)
            }
            return result
        }

        func checkKeys(_ object: [String: JSONValue], _ allowed: Set<String>, _ path: String) throws(ScenarioError) {
            if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw fail(
                    path.isEmpty ? unknown : "\(path).\(unknown)",
                    "unknown key (known: \(allowed.sorted().joined(separator: ", ")))")
            }
        }

        mutating func scenario(_ root: JSONValue) throws(ScenarioError) -> Scenario {
            let object = try self.object(root, "")
            try checkKeys(object, ["name", "about", "devices", "steps", "web"], "")
            let name = try string(object["name"], "name")!
            let about = try string(object["about"], "about", required: false) ?? ""
            guard let deviceValues = object["devices"]?.arrayValue, !deviceValues.isEmpty else {
                throw fail("devices", "expected a non-empty array of devices")
            }
            guard deviceValues.count <= 8 else { throw fail("devices", "at most 8 devices") }
            var devices: [Device] = []
            for (index, value) in deviceValues.enumerated() {
                let path = "devices[\(index)]"
                let device = try self.object(value, path)
                try checkKeys(device, ["name", "kind", "apps", "team", "claims", "options"], path)
                let deviceName = try string(device["name"], "\(path).name")!
                guard !deviceName.isEmpty, deviceName.count <= 30 else {
                    throw fail("\(path).name", "must be 1 to 30 characters")
                }
                guard !devices.contains(where: { $0.name == deviceName }) else {
                    throw fail("\(path).name", "\"\(deviceName)\" is named twice")
                }
                let kind = try string(device["kind"], "\(path).kind", required: false) ?? "phone"
                guard Scenario.kinds.contains(kind) else {
                    throw fail("\(path).kind", "\"\(kind)\" is not phone, tablet or laptop")
                }
                let apps = try strings(device["apps"], "\(path).apps")
                if let unknown = apps?.first(where: { !Scenario.headlessApps.contains($0) }) {
                    throw fail(
                        "\(path).apps",
                        "no app \"\(unknown)\" (known: \(Scenario.headlessApps.sorted().joined(separator: ", ")))")
                }
                devices.append(
                    Device(
                        name: deviceName, kind: kind, apps: apps,
                        team: try string(device["team"], "\(path).team", required: false),
                        claims: try strings(device["claims"], "\(path).claims") ?? [],
                        options: try strings(device["options"], "\(path).options") ?? []))
            }
            guard let stepValues = object["steps"]?.arrayValue, !stepValues.isEmpty else {
                throw fail("steps", "expected a non-empty array of steps")
            }
            var steps: [Step] = []
            let names = Set(devices.map(\.name))
            for (index, value) in stepValues.enumerated() {
                let path = "steps[\(index)]"
                let step = try self.object(value, path)
                try checkKeys(
                    step, ["say", "on", "send", "expect", "expectNone", "wait", "signal", "within", "error", "note"],
                    path)
                let actions = ["say", "send", "expect", "expectNone", "wait", "signal"].filter { step[$0] != nil }
                guard actions.count == 1 else {
                    throw fail(
                        path,
                        "needs exactly one of say, send, expect, expectNone, wait, signal (found \(actions.isEmpty ? "none" : actions.joined(separator: ", ")))"
                    )
                }
                let note = try string(step["note"], "\(path).note", required: false)
                if let say = step["say"] {
                    steps.append(.say(try string(say, "\(path).say")!))
                    continue
                }
                if let wait = step["wait"] {
                    guard let seconds = wait.doubleValue, seconds >= 0, seconds <= 300 else {
                        throw fail("\(path).wait", "expected seconds between 0 and 300")
                    }
                    steps.append(.wait(seconds: seconds))
                    continue
                }
                let device = try string(step["on"], "\(path).on")!
                guard names.contains(device) else { throw fail("\(path).on", "no device named \"\(device)\"") }
                var within = 10.0
                if let value = step["within"] {
                    guard let seconds = value.doubleValue, seconds > 0, seconds <= 300 else {
                        throw fail("\(path).within", "expected seconds between 0 and 300")
                    }
                    within = seconds
                }
                if let signal = step["signal"] {
                    let text = try string(signal, "\(path).signal")!
                    guard let parsed = DeviceSignal(rawValue: text) else {
                        throw fail(
                            "\(path).signal",
                            "\"\(text.prefix(40))\" is not "
                                + DeviceSignal.allCases.map(\.rawValue).joined(separator: ", "))
                    }
                    steps.append(.signal(device: device, parsed))
                } else if let command = step["send"] {
                    let commandObject = try self.object(command, "\(path).send")
                    guard commandObject["cmd"]?.stringValue != nil else { throw fail("\(path).send.cmd", "missing") }
                    guard commandObject["id"] == nil else {
                        throw fail("\(path).send.id", "set by the runner; leave it out")
                    }
                    let expectsError = step["error"]?.boolValue ?? false
                    steps.append(.send(device: device, command: command, expectsError: expectsError, note: note))
                } else if let pattern = step["expect"] {
                    _ = try self.object(pattern, "\(path).expect")
                    steps.append(.expect(device: device, pattern: pattern, within: within, note: note))
                } else if let pattern = step["expectNone"] {
                    _ = try self.object(pattern, "\(path).expectNone")
                    steps.append(
                        .expectNone(
                            device: device, pattern: pattern, within: step["within"] == nil ? 1 : within, note: note))
                }
            }
            var scenario = Scenario(name: name, about: about, devices: devices, steps: steps)
            switch object["web"] {
            case nil: break
            case .bool(let web)?: scenario.web = web
            case let other?: throw fail("web", "must be true or false, not \(other.kindDescription)")
            }
            return scenario
        }
    }
}

/// A scenario file that cannot be used: the file, the JSON path and what is wrong.
package struct ScenarioError: Error, Hashable, CustomStringConvertible {
    package var file: String
    package var path: String
    package var message: String

    package var description: String {
        path.isEmpty ? "\(file): \(message)" : "\(file): \(path): \(message)"
    }
}

extension JSONValue {
    /// Whether `self` matches `pattern`: objects as subsets (recursively), numbers by value,
    /// everything else by equality.
    package func matches(_ pattern: JSONValue) -> Bool {
        switch (self, pattern) {
        case (.object(let object), .object(let wanted)):
            return wanted.allSatisfy { key, value in object[key].map { $0.matches(value) } ?? false }
        case (.array(let array), .array(let wanted)):
            return array.count == wanted.count && zip(array, wanted).allSatisfy { $0.matches($1) }
        case (.integer, .double), (.double, .integer), (.double, .double):
            return doubleValue == pattern.doubleValue
        default:
            return self == pattern
        }
    }
}
