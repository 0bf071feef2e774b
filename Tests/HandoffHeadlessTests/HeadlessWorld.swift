import Foundation
import HandoffCore
import HandoffHeadless
import HandoffTestSupport
import Synchronization
import Testing

/// Output lines collected from any thread.
final class CollectedLines: Sendable {
    private let storage = Mutex<[String]>([])

    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}

/// One device of the neighbourhood driven by a headless controller.
final class HeadlessNode {
    let device: Device
    let controller: HeadlessController
    let collected = CollectedLines()

    init(
        device: Device, apps: [AppManifest], strict: Bool = false, appModel: ScriptedAppModel = .delegate,
        behaviours: [String: ScriptedBehaviour] = [:]
    ) {
        self.device = device
        let collected = self.collected
        controller = HeadlessController(
            device: device, apps: apps, output: LineWriter { collected.append($0) }, strict: strict,
            appModel: appModel, behaviours: behaviours)
    }

    /// Every output line, parsed.
    var output: [JSONValue] {
        collected.lines.map { line in
            #expect(!line.contains("\n"), "one line per output")
            do {
                return try JSONValue.parse(line)
            } catch {
                Issue.record("output is not JSON: \(line): \(error)")
                return .null
            }
        }
    }

    func events(_ name: String) -> [JSONValue] { output.filter { $0["event"]?.stringValue == name } }
    var lifecycleKinds: [String] { events("lifecycle").compactMap { $0["kind"]?.stringValue } }

    /// Sends one raw line; returns the result line it produced and whether to go on.
    @discardableResult
    func send(raw line: String) -> (result: JSONValue, goOn: Bool) {
        let before = collected.lines.count
        let goOn = controller.handle(line: line)
        let new = collected.lines.dropFirst(before).compactMap { try? JSONValue.parse($0) }
        let results = new.filter { $0["result"] != nil }
        #expect(results.count == 1, "exactly one result line for \(line)")
        return (results.last ?? .null, goOn)
    }

    /// Sends a command object; returns its result line.
    @discardableResult
    func send(_ command: JSONValue) -> JSONValue { send(raw: command.jsonText).result }

    /// Sends a command that must succeed.
    @discardableResult
    func ok(_ command: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue {
        let result = send(command)
        #expect(result["ok"] == true, "\(command.jsonText) → \(result.jsonText)", sourceLocation: sourceLocation)
        return result
    }

    /// Sends a command that must fail; returns its error message.
    @discardableResult
    func fails(raw line: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let (result, goOn) = send(raw: line)
        #expect(result["ok"] == false, "\(line) → \(result.jsonText)", sourceLocation: sourceLocation)
        #expect(goOn, "a non-strict controller keeps running", sourceLocation: sourceLocation)
        let message = result["error"]?.stringValue ?? ""
        #expect(!message.isEmpty, sourceLocation: sourceLocation)
        return message
    }

    /// Waits (off the device thread's work, which is all synchronous here) for an event.
    /// The default deadline is generous: end-to-end tests running at the same time can hold the
    /// threads that the stream tasks need for many seconds on a 2-core machine.
    func waitForEvent(
        _ name: String, count: Int = 1, timeout: Double = 60,
        where predicate: (JSONValue) -> Bool = { _ in true }
    ) async throws -> [JSONValue] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let found = events(name).filter(predicate)
            if found.count >= count { return found }
            if Date() > deadline {
                let tail = collected.lines.suffix(20).joined(separator: "\n")
                Issue.record("no \(name) event within \(timeout) s; output:\n\(tail)")
                return found
            }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }
}

/// Devices of an in-memory neighbourhood, each driven by a headless controller.
final class HeadlessWorld {
    let hood = Neighbourhood()
    static let apps = [TestManifests.reader, TestManifests.browser]

    func add(
        _ name: String, kind: PeerInfo.Kind = .phone, apps: [AppManifest] = HeadlessWorld.apps,
        strict: Bool = false, appModel: ScriptedAppModel = .delegate, behaviours: [String: ScriptedBehaviour] = [:]
    ) -> HeadlessNode {
        let device = hood.addDevice(
            name, kind: kind,
            configuration: DeviceConfiguration(saveCoalescingInterval: 60, fetchTimeout: 5))
        return HeadlessNode(device: device, apps: apps, strict: strict, appModel: appModel, behaviours: behaviours)
    }
}

/// The reading activity type the test reader app claims.
let readingType = "com.example.reader.reading"
