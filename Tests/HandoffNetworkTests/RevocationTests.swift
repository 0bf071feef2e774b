import Foundation
@testable import HandoffBench
import HandoffCore
@testable import HandoffNetwork
import Testing

/// Revocation with real devices on loopback: mutual-TLS sessions between `DeviceHost`s in this
/// process, the account re-read by both sides, nothing restarted after `revokeDevice`.
@Suite("Revocation on running devices", .serialized)
struct RevocationTests {
    @Test func aRevokedDeviceIsRefusedAtItsVeryNextSessionOnBothSides() async throws {
        // Generous deadlines: under a full test run, tests that block the shared thread pool can
        // hold the sessions' tasks for seconds; the outcome, not the speed, is what is checked.
        let world = try BenchWorld(names: ["Laptop", "Phone", "Tablet", "Fresh"], fetchTimeout: 60, connectTimeout: 30)
        do {
            try await world.start()
            try await scenario(world)
        } catch {
            await world.shutdown()
            throw error
        }
        await world.shutdown()
    }

    private func scenario(_ world: BenchWorld) async throws {
        let hosts = world.hosts
        let (laptop, phone, tablet, fresh) = (hosts[0], hosts[1], hosts[2], hosts[3])
        for host in hosts { host.performAndWait { device in _ = device.install(RevocationApp.manifest, delegate: RevocationApp.shared) } }
        laptop.performAndWait { device in RevocationApp.becomeCurrent(on: device, page: 1) }
        for host in [phone, tablet, fresh] { try await waitForOffer(from: laptop, on: host) }

        // Trusted: the phone continues, and keeps its pooled session to the laptop afterwards.
        try await expectContinued(phone, from: laptop)
        // "Continued" travels on its own after each continuation: the origin must have heard it
        // before the phone is revoked (which stops the laptop listening to the phone).
        let wasContinued = { laptop.performAndWait { device in device.lifecycle.filter { $0.kind == .wasContinued }.count } }
        try await waitUntil("the laptop hears that the phone continued") { wasContinued() >= 1 }

        // Revoke the phone (and a device that never connected) while everything runs.
        let store = AccountStore(directory: world.directory)
        try store.revokeDevice(phone.identity.id, in: "bench")
        try store.revokeDevice(fresh.identity.id, in: "bench")

        // The phone's next continuation reuses its open session: the laptop checks the account
        // again before serving the request and refuses it.
        let refused = try await expectFailed(phone, from: laptop)
        #expect(refused.error?.code.rawValue == HandoffError.Code.connectionUnavailable.rawValue)
        #expect(refused.summary.contains("no longer trusts this device"), "\(refused.summary)")
        #expect(refused.summary.contains("revoked"), "\(refused.summary)")
        // A revoked device without a session is refused at its first one (the laptop closes it
        // without a greeting).
        let freshRefused = try await expectFailed(fresh, from: laptop)
        #expect(freshRefused.error?.code.rawValue == HandoffError.Code.connectionUnavailable.rawValue)
        // Its next attempt too: nothing was cached in between.
        _ = try await expectFailed(fresh, from: laptop)

        // A device still trusted continues as before, on a session that stays open.
        try await expectContinued(tablet, from: laptop)
        // The same before the origin itself is revoked (which stops the tablet talking to it).
        try await waitUntil("the laptop hears that its two trusted continuations continued") { wasContinued() >= 2 }

        // Now the origin itself is revoked: the tablet, the client of an open session, checks the
        // account before reusing it and refuses the laptop.
        try store.revokeDevice(laptop.identity.id, in: "bench")
        let originRefused = try await expectFailed(tablet, from: laptop)
        #expect(originRefused.error?.code.rawValue == HandoffError.Code.connectionUnavailable.rawValue)
        #expect(originRefused.summary.contains("revoked"), "\(originRefused.summary)")
        #expect(wasContinued() == 2, "only the two trusted continuations reached the origin")
    }

    // MARK: Helpers

    private func waitForOffer(from origin: DeviceHost, on host: DeviceHost) async throws {
        let id = origin.identity.id
        try await waitUntil("\(host.identity.name) hears \(origin.identity.name)") {
            host.performAndWait { device in device.system.offers[id] != nil }
        }
    }

    /// Chooses the origin's offer on `host` and returns the lifecycle events that followed, once
    /// the continuation ended (continued or failed).
    private func continueOffer(_ host: DeviceHost, from origin: DeviceHost) async throws -> [LifecycleEvent] {
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

    private func expectContinued(_ host: DeviceHost, from origin: DeviceHost,
                                 sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let events = try await continueOffer(host, from: origin)
        #expect(events.contains { $0.kind == .restoreUserActivityState }, "\(events.map(\.kind))", sourceLocation: sourceLocation)
        #expect(!events.contains { $0.kind == .continuationFailed }, "\(events.map(\.logLine))", sourceLocation: sourceLocation)
    }

    private func expectFailed(_ host: DeviceHost, from origin: DeviceHost,
                              sourceLocation: SourceLocation = #_sourceLocation) async throws -> LifecycleEvent {
        let events = try await continueOffer(host, from: origin)
        #expect(!events.contains { $0.kind == .restoreUserActivityState }, "nothing restored", sourceLocation: sourceLocation)
        return try #require(events.first { $0.kind == .continuationFailed }, sourceLocation: sourceLocation)
    }

    private func waitUntil(_ what: String, timeout: Duration = .seconds(90), _ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while try !condition() {
            guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    private struct WaitTimedOut: Error, CustomStringConvertible {
        var what: String
        var description: String { "timed out waiting until \(what)" }
    }
}

/// The app on every device of the test: the origin makes an activity current; a receiver
/// restores it with a responder that keeps nothing. Stateless, so one instance serves every
/// device (each uses it on its own queue only).
private final class RevocationApp: ApplicationDelegate, Sendable {
    static let shared = RevocationApp()
    static let activityType = "com.handoffsim.tests.revocation"
    static let manifest = AppManifest(bundleIdentifier: "com.handoffsim.tests.revocation", teamIdentifier: "SIMTEAM001",
                                      displayName: "Revocation", activityTypes: [activityType])

    static func becomeCurrent(on device: Device, page: Int) {
        guard let application = device.applications.first(where: { $0.bundleIdentifier == manifest.bundleIdentifier }),
              let activity = try? UserActivity(activityType: activityType, application: application)
        else { return }
        activity.userInfo = ["page": .integer(Int64(page))]
        activity.becomeCurrent()
    }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([Responder]) -> Void) -> Bool {
        restorationHandler([Responder()])
        return true
    }
}
