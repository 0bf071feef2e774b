import Foundation
import HandoffCore
import HandoffHeadless
import HandoffScenarios
import Synchronization

/// One device's lifecycle in a run of the world.
package struct ExploreLifecycle: Sendable {
    package var device: String
    /// Its events, oldest first; a killed device's stop where it died.
    package var events: [LifecycleEvent]

    package init(device: String, events: [LifecycleEvent]) {
        self.device = device
        self.events = events
    }
}

/// Devices in one process, on the in-memory neighbourhood and its manual clock, each driven by
/// the headless device's controller and its scripted apps: where the explorer runs programs,
/// thousands of steps a second, the same way every time.
///
/// It plays a ``Scenario``'s steps: `send` goes to the device's ``HeadlessController`` as the
/// headless device's standard input would, `wait` moves the clock, `signal` kills (the device
/// leaves the neighbourhood), stops (it is cut off) or resumes a device. Every device's typed
/// lifecycle is kept as it is recorded. Confined to the thread that made it.
package final class ExploreWorld {
    /// What became of one step.
    package enum Outcome: Sendable, Hashable {
        /// The command was answered (`ok` or refused).
        case answered(ok: Bool)
        /// A wait, a signal or narration: nothing to answer.
        case done
        /// The step cannot happen: a command to a device that was killed or is stopped (its
        /// process would never answer), or a signal that does not apply. The program is not one
        /// a scenario could replay.
        case impossible(String)
    }

    /// A device's state as a process.
    enum Liveness { case running, stopped, dead }

    final class Node {
        let name: String
        let device: Device
        let controller: HeadlessController
        let results: ResultLines
        var events: [LifecycleEvent] = []
        var liveness = Liveness.running

        init(name: String, device: Device, controller: HeadlessController, results: ResultLines) {
            self.name = name
            self.device = device
            self.controller = controller
            self.results = results
        }
    }

    /// The result lines of a controller (its other lines are not kept), written from any thread.
    final class ResultLines: Sendable {
        private let storage = Mutex<[String]>([])
        func append(_ line: String) {
            guard line.contains("\"result\"") else { return }
            storage.withLock { $0.append(line) }
        }
        func take() -> [String] {
            storage.withLock { lines in
                defer { lines.removeAll() }
                return lines
            }
        }
    }

    package let neighbourhood: Neighbourhood
    private var nodes: [Node] = []
    /// The account every device of the world belongs to.
    package static let account = "explore"
    /// How long ``finish()`` lets time pass: past the fetch timeout, so every continuation ends.
    package static let settleSeconds: TimeInterval = 12

    /// A world of `devices` (name and kind), with the scripted apps installed on each and the
    /// rules in `mutants` bent on every device.
    package init(devices: [(name: String, kind: String)], mutants: Set<Mutant> = [], seed: UInt64 = 1) {
        neighbourhood = Neighbourhood(seed: seed)
        var configuration = DeviceConfiguration()
        configuration.mutants = mutants
        for (name, kind) in devices {
            let device = neighbourhood.addDevice(
                name, kind: PeerInfo.Kind(rawValue: kind) ?? .phone, configuration: configuration)
            let results = ResultLines()
            let controller = HeadlessController(
                device: device, apps: ScriptedApps.manifests(), output: LineWriter { results.append($0) })
            let node = Node(name: name, device: device, controller: controller, results: results)
            device.addLifecycleObserver { [unowned node] event in node.events.append(event) }
            nodes.append(node)
        }
    }

    /// Plays one step.
    package func perform(_ step: Scenario.Step) -> Outcome {
        switch step {
        case .say, .expect, .expectNone:
            return .done
        case .wait(let seconds):
            neighbourhood.advance(by: seconds)
            return .done
        case .send(let name, let command, _, _):
            guard let node = node(name) else { return .impossible("no device named \(name)") }
            switch node.liveness {
            case .dead: return .impossible("\(name) was killed: nothing answers its commands")
            case .stopped: return .impossible("\(name) is stopped: it answers nothing until it goes on")
            case .running: break
            }
            _ = node.results.take()
            _ = node.controller.handle(line: command.jsonText)
            let answer = node.results.take().last.flatMap { try? JSONValue.parse($0) }
            return .answered(ok: answer?["ok"]?.boolValue ?? false)
        case .signal(let name, let signal):
            guard let node = node(name) else { return .impossible("no device named \(name)") }
            switch (signal, node.liveness) {
            case (_, .dead):
                return .impossible("\(name) was killed already")
            case (.kill, _):
                node.liveness = .dead
                neighbourhood.remove(node.device)
            case (.stop, .running):
                node.liveness = .stopped
                neighbourhood.disconnect(node.device)
            case (.cont, .stopped):
                node.liveness = .running
                neighbourhood.reconnect(node.device)
            case (.stop, .stopped), (.cont, .running):
                // As a process: stopping a stopped one or continuing a running one changes nothing.
                break
            }
            return .done
        }
    }

    /// Lets time pass until every continuation in progress has ended.
    package func finish() {
        neighbourhood.advance(by: Self.settleSeconds)
    }

    /// Every device's lifecycle so far, in the order the devices were given.
    package var lifecycles: [ExploreLifecycle] {
        nodes.map { ExploreLifecycle(device: $0.name, events: $0.events) }
    }

    private func node(_ name: String) -> Node? { nodes.first { $0.name == name } }
}
