import Foundation
import HandoffCore
import HandoffHeadless
import HandoffScenarios

/// A program the explorer runs: devices, and what happens to them step by step. Each step is
/// typed (``ExploreAction``); what it does to a device is the headless command it stands for
/// (``ExploreStep/scenarioStep(devices:)``), so a program is a scenario file too.
package struct ExploreProgram: Sendable, Hashable {
    /// The devices' names (and kinds, from ``ExploreProgram/kinds``), at least two.
    package var devices: [String]
    package var steps: [ExploreStep]

    package init(devices: [String], steps: [ExploreStep]) {
        self.devices = devices
        self.steps = steps
    }

    /// The names the explorer gives its devices, in order.
    package static let deviceNames = ["Phone", "Laptop", "Tablet", "Desk", "Pad", "Book"]
    /// The kind of each device, by position.
    package static let kinds = ["phone", "laptop", "tablet", "laptop", "tablet", "laptop"]
}

/// One step of a program: an action on one device.
package struct ExploreStep: Sendable, Hashable {
    /// The device it happens on (an index into ``ExploreProgram/devices``).
    package var device: Int
    package var action: ExploreAction

    package init(device: Int, _ action: ExploreAction) {
        self.device = device
        self.action = action
    }
}

/// The activities programs make current.
package enum ExploreActivity: String, Sendable, Hashable, CaseIterable {
    /// The Reader's reading activity, with a page in its userInfo.
    case reading
    /// The Map's region.
    case region
    /// A page in the Browser (`NSUserActivityTypeBrowsingWeb` with a webpageURL).
    case web

    var type: String {
        switch self {
        case .reading: ScriptedApps.readingType
        case .region: ScriptedApps.regionType
        case .web: UserActivity.browsingWebType
        }
    }
}

/// What a program can do on a device: the user's and the app's actions, the lab's faults,
/// time passing, and the device's process dying, stopping and going on.
package enum ExploreAction: Sendable, Hashable {
    /// The app makes a new activity current (`value` goes in its userInfo, or in the page's URL).
    case becomeCurrent(ExploreActivity, value: Int, streams: Bool)
    /// The last activity becomes current again.
    case becomeCurrentAgain
    /// The app changes its state: with `needsSave`, or forgetting it. `padding` characters of
    /// text go with it (a payload past Apple's 3 KB guidance).
    case update(value: Int, padding: Int, needsSave: Bool)
    case resign
    case invalidate
    /// The user quits the activity's app from the app switcher; its next launch is cold.
    case quitApp
    /// The user continues what the device at this index offers.
    case continueFrom(Int)
    case cancel
    /// The next `willContinue` answers false.
    case declineNext
    case fault(Fault, sticky: Bool)
    case streamsOpen
    case streamSend(bytes: Int)
    case streamClose
    /// The user locks the device (its offer stays for Apple's 8 s, then is withdrawn).
    case lock
    /// The user unlocks the device.
    case unlock
    /// Time passes (for every device).
    case wait(milliseconds: Int)
    /// The device's process dies (SIGKILL): it says no goodbye and never comes back.
    case kill
    /// The device's process stops (SIGSTOP): nothing reaches it or leaves it.
    case stop
    /// A stopped device goes on (SIGCONT).
    case resume
}

extension ExploreStep {
    /// The scenario step this step is; `failed`: the command was refused when the program ran
    /// (the scenario then expects it refused).
    package func scenarioStep(devices: [String], failed: Bool = false) -> Scenario.Step {
        let name = devices[device]
        func send(_ command: JSONValue) -> Scenario.Step {
            .send(device: name, command: command, expectsError: failed, note: nil)
        }
        switch action {
        case .becomeCurrent(let activity, let value, let streams):
            var command: [String: JSONValue] = ["cmd": "become-current", "type": .string(activity.type)]
            if activity == .web {
                command["webpageURL"] = .string("https://pages.example.com/\(value)")
            } else {
                command["userInfo"] = ["value": .integer(Int64(value))]
            }
            if streams { command["streams"] = true }
            return send(.object(command))
        case .becomeCurrentAgain:
            return send(["cmd": "become-current"])
        case .update(let value, let padding, let needsSave):
            var userInfo: [String: JSONValue] = ["value": .integer(Int64(value))]
            if padding > 0 { userInfo["padding"] = .string(String(repeating: "p", count: padding)) }
            var command: [String: JSONValue] = ["cmd": "update", "userInfo": .object(userInfo)]
            if !needsSave { command["needsSave"] = false }
            return send(.object(command))
        case .resign: return send(["cmd": "resign"])
        case .invalidate: return send(["cmd": "invalidate"])
        case .quitApp: return send(["cmd": "quit-app"])
        case .continueFrom(let peer):
            return send(["cmd": "continue", "peer": .string(devices[peer])])
        case .cancel: return send(["cmd": "cancel"])
        case .declineNext: return send(["cmd": "decline-next"])
        case .fault(let fault, let sticky):
            var command: [String: JSONValue] = ["cmd": "fault", "kind": .string(fault.rawValue)]
            if sticky { command["sticky"] = true }
            return send(.object(command))
        case .streamsOpen: return send(["cmd": "streams-open"])
        case .streamSend(let bytes):
            return send(["cmd": "stream-send", "text": .string(String(repeating: "s", count: bytes))])
        case .streamClose: return send(["cmd": "stream-close"])
        case .lock: return send(["cmd": "lock"])
        case .unlock: return send(["cmd": "unlock"])
        case .wait(let milliseconds): return .wait(seconds: Double(milliseconds) / 1000)
        case .kill: return .signal(device: name, .kill)
        case .stop: return .signal(device: name, .stop)
        case .resume: return .signal(device: name, .cont)
        }
    }

    /// Simpler versions of this step, simplest first, for the shrinker: shorter waits, plainer
    /// activities and updates, faults for one occasion only.
    package var simplifications: [ExploreStep] {
        var simpler: [ExploreAction] = []
        switch action {
        case .becomeCurrent(let activity, let value, let streams):
            if streams { simpler.append(.becomeCurrent(activity, value: value, streams: false)) }
            if activity != .reading { simpler.append(.becomeCurrent(.reading, value: value, streams: streams)) }
            if value != 0 { simpler.append(.becomeCurrent(activity, value: 0, streams: streams)) }
        case .update(let value, let padding, let needsSave):
            if padding > 0 { simpler.append(.update(value: value, padding: 0, needsSave: needsSave)) }
            if value != 0 { simpler.append(.update(value: 0, padding: padding, needsSave: needsSave)) }
        case .fault(let fault, let sticky):
            if sticky { simpler.append(.fault(fault, sticky: false)) }
        case .streamSend(let bytes):
            if bytes > 1 { simpler.append(.streamSend(bytes: 1)) }
        case .wait(let milliseconds):
            if milliseconds > 1 { simpler.append(.wait(milliseconds: milliseconds / 2)) }
        default:
            break
        }
        return simpler.map { ExploreStep(device: device, $0) }
    }
}

extension ExploreProgram {
    /// The program as a scenario file that replays it (the JSON `handoff scenario` plays), one
    /// step a line: every step, with a command the run refused marked `"error": true` (`failed`
    /// holds the indexes of those steps).
    package func scenarioText(name: String, about: String, failed: Set<Int> = []) -> String {
        let deviceLines = devices.enumerated().map { index, device -> String in
            let object: JSONValue = [
                "name": .string(device), "kind": .string(Self.kinds[index % Self.kinds.count]),
            ]
            return "    " + object.jsonText
        }
        let stepLines = steps.enumerated().map { index, step -> String in
            let object: JSONValue
            switch step.scenarioStep(devices: devices, failed: failed.contains(index)) {
            case .send(let device, let command, let expectsError, _):
                object =
                    expectsError
                    ? ["on": .string(device), "send": command, "error": true]
                    : ["on": .string(device), "send": command]
            case .wait(let seconds):
                object = ["wait": .double(seconds)]
            case .signal(let device, let signal):
                object = ["on": .string(device), "signal": .string(signal.rawValue)]
            case .say(let text):
                object = ["say": .string(text)]
            case .expect, .expectNone:
                object = [:]
            }
            return "    " + object.jsonText
        }
        return """
            {
              "name": \(JSONValue.string(name).jsonText),
              "about": \(JSONValue.string(about).jsonText),
              "devices": [
            \(deviceLines.joined(separator: ",\n"))
              ],
              "steps": [
            \(stepLines.joined(separator: ",\n"))
              ]
            }

            """
    }
}
