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

/// How one device of an ``ExploreWorld`` is set up: its name and kind, the apps installed on it
/// (driven by the scripted delegate) and how they talk to the system.
package struct ExploreDevice: Sendable {
    package var name: String
    package var kind: String
    package var apps: [AppManifest]
    package var appModel: ScriptedAppModel

    /// By default every scripted stand-in, through the app delegate.
    package init(
        name: String, kind: String, apps: [AppManifest] = ScriptedApps.manifests(),
        appModel: ScriptedAppModel = .delegate
    ) {
        self.name = name
        self.kind = kind
        self.apps = apps
        self.appModel = appModel
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
    package convenience init(devices: [(name: String, kind: String)], mutants: Set<Mutant> = [], seed: UInt64 = 1) {
        self.init(setups: devices.map { ExploreDevice(name: $0.name, kind: $0.kind) }, mutants: mutants, seed: seed)
    }

    /// A world of devices set up as `setups` say, with the rules in `mutants` bent on every
    /// device. With `cloud`, every device's iCloud container is that folder (the account's cloud,
    /// as `handoff device` links each device's container to it); `sites` are the local web's
    /// association files by host: a device checks its apps' `activitycontinuation:` domains
    /// against them (a host without one answers 404) a moment after it asks, on the world's clock.
    package init(
        setups: [ExploreDevice], mutants: Set<Mutant> = [], seed: UInt64 = 1, cloud: URL? = nil,
        sites: [String: SiteAssociationFile]? = nil
    ) {
        neighbourhood = Neighbourhood(seed: seed)
        var configuration = DeviceConfiguration()
        configuration.mutants = mutants
        for setup in setups {
            let device = neighbourhood.addDevice(
                setup.name, kind: PeerInfo.Kind(rawValue: setup.kind) ?? .phone, configuration: configuration)
            device.ubiquityContainerURL = cloud
            if let sites { attachSites(sites, to: device) }
            let results = ResultLines()
            let controller = HeadlessController(
                device: device, apps: setup.apps, output: LineWriter { results.append($0) },
                appModel: setup.appModel)
            let node = Node(name: setup.name, device: device, controller: controller, results: results)
            device.addLifecycleObserver { [unowned node] event in node.events.append(event) }
            nodes.append(node)
        }
    }

    /// How long the in-process web takes to answer an association-file fetch.
    static let siteLatency: TimeInterval = 0.05

    /// Makes `device` fetch its apps' association files from `sites` (before its apps are
    /// installed, which asks for them): each answer arrives on the world's clock.
    private func attachSites(_ sites: [String: SiteAssociationFile], to device: Device) {
        let id = device.info.id
        let clock = neighbourhood.clock
        device.siteAssociationVerifier = { [unowned neighbourhood] request in
            for domain in request.domains {
                let outcome: AssociationOutcome =
                    switch sites[domain.fileHost.lowercased()] {
                    case let file? where file.approvedApplicationIdentifiers.contains(request.applicationIdentifier):
                        .approved
                    case let file?: .notListed(approving: file.approvedApplicationIdentifiers.sorted())
                    case nil: .notFound
                    }
                neighbourhood.enqueue(from: id, to: id, after: Self.siteLatency, beacon: false) { device in
                    let now = clock.now
                    device.siteAssociationChecked(
                        SiteAssociationCheck(
                            bundleIdentifier: request.bundleIdentifier,
                            applicationIdentifier: request.applicationIdentifier, domain: domain, outcome: outcome,
                            checkedAt: now, expiresAt: now.addingTimeInterval(outcome.isAnswer ? 3600 : 0),
                            milliseconds: Self.siteLatency * 1000))
                }
            }
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
