import Foundation
import HandoffCore
import Testing

@testable import HandoffBench
@testable import HandoffNetwork

// Continuations between real devices on loopback, driven from a test: choose an offer, wait for
// the continuation to end, check how it ended. Shared by the suites that run `BenchWorld`s.

/// Chooses the origin's offer on `host` and returns the lifecycle events that followed, once the
/// continuation ended (continued or failed).
func continueOffer(_ host: DeviceHost, from origin: DeviceHost) async throws -> [LifecycleEvent] {
    let id = origin.identity.id
    let mark = host.performAndWait { device in
        let mark = device.lifecycle.count
        device.chooseOffer(from: id)
        return mark
    }
    var events: [LifecycleEvent] = []
    try await waitUntil("the continuation on \(host.identity.name) ends") {
        events = host.performAndWait { device in Array(device.lifecycle.dropFirst(mark)) }
        return events.contains { $0.kind == .continued || $0.kind == .continuationFailed }
    }
    return events
}

/// Continues the origin's offer on `host` and expects it restored.
func expectContinued(
    _ host: DeviceHost, from origin: DeviceHost,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let events = try await continueOffer(host, from: origin)
    #expect(
        events.contains { $0.kind == .restoreUserActivityState }, "\(events.map(\.kind))",
        sourceLocation: sourceLocation)
    #expect(
        !events.contains { $0.kind == .continuationFailed }, "\(events.map(\.logLine))", sourceLocation: sourceLocation)
}

/// Continues the origin's offer on `host`, expects it to fail with nothing restored, and returns
/// the failure.
func expectFailed(
    _ host: DeviceHost, from origin: DeviceHost,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> LifecycleEvent {
    let events = try await continueOffer(host, from: origin)
    #expect(
        !events.contains { $0.kind == .restoreUserActivityState }, "nothing restored", sourceLocation: sourceLocation)
    return try #require(events.first { $0.kind == .continuationFailed }, sourceLocation: sourceLocation)
}

/// Runs `body` with a started ``BenchWorld`` of `names` (made with `fetchTimeout` and
/// `connectTimeout`), and shuts the world down afterwards, whether `body` threw or not.
func withStartedWorld(
    _ names: [String], fetchTimeout: TimeInterval, connectTimeout: TimeInterval,
    _ body: (BenchWorld) async throws -> Void
) async throws {
    let world = try BenchWorld(names: names, fetchTimeout: fetchTimeout, connectTimeout: connectTimeout)
    do {
        try await world.start()
        try await body(world)
    } catch {
        await world.shutdown()
        throw error
    }
    await world.shutdown()
}

/// Waits until `host` offers the activity `origin` advertises.
func waitForOffer(from origin: DeviceHost, on host: DeviceHost) async throws {
    let id = origin.identity.id
    try await waitUntil("\(host.identity.name) hears \(origin.identity.name)") {
        host.performAndWait { device in device.system.offers[id] != nil }
    }
}

/// Polls `condition` until it holds; the deadline is generous (the outcome, not the speed, is
/// checked), and missing it throws.
func waitUntil(_ what: String, timeout: Duration = .seconds(90), _ condition: () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(10))
    }
}

struct WaitTimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting until \(what)" }
}

/// The app on every device of such a test: the origin makes an activity current; a receiver
/// restores it with a responder that keeps nothing. Stateless, so one instance serves every
/// device (each uses it on its own queue only).
final class LoopbackApp: ApplicationDelegate, Sendable {
    static let shared = LoopbackApp()
    static let activityType = "com.handoffsim.tests.loopback"
    static let manifest = AppManifest(
        bundleIdentifier: "com.handoffsim.tests.loopback", teamIdentifier: "SIMTEAM001",
        displayName: "Loopback", activityTypes: [activityType])

    /// Installs the app on every device of `hosts`.
    static func install(on hosts: [DeviceHost]) {
        for host in hosts { host.performAndWait { device in _ = device.install(manifest, delegate: shared) } }
    }

    static func becomeCurrent(on device: Device, page: Int) {
        guard let application = device.applications.first(where: { $0.bundleIdentifier == manifest.bundleIdentifier }),
            let activity = try? UserActivity(activityType: activityType, application: application)
        else { return }
        activity.userInfo = ["page": .integer(Int64(page))]
        activity.becomeCurrent()
    }

    func application(
        _ application: Application, continue userActivity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool {
        restorationHandler([Responder()])
        return true
    }
}
