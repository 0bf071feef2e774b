import Foundation
import HandoffCore
import Testing

@testable import HandoffBench
@testable import HandoffNetwork

/// Revocation with real devices on loopback: mutual-TLS sessions between `DeviceHost`s in this
/// process, the account re-read by both sides, nothing restarted after `revokeDevice`.
@Suite("Revocation on running devices", .serialized)
struct RevocationTests {
    @Test func aRevokedDeviceIsRefusedAtItsVeryNextSessionOnBothSides() async throws {
        // Generous deadlines: under a full test run, tests that block the shared thread pool can
        // hold the sessions' tasks for seconds; the outcome, not the speed, is what is checked.
        try await withStartedWorld(
            ["Laptop", "Phone", "Tablet", "Fresh"], fetchTimeout: 60, connectTimeout: 30, scenario)
    }

    private func scenario(_ world: BenchWorld) async throws {
        let hosts = world.hosts
        let (laptop, phone, tablet, fresh) = (hosts[0], hosts[1], hosts[2], hosts[3])
        LoopbackApp.install(on: hosts)
        laptop.performAndWait { device in LoopbackApp.becomeCurrent(on: device, page: 1) }
        for host in [phone, tablet, fresh] { try await waitForOffer(from: laptop, on: host) }

        // Trusted: the phone continues, and keeps its pooled session to the laptop afterwards.
        try await expectContinued(phone, from: laptop)
        // "Continued" travels on its own after each continuation: the origin must have heard it
        // before the phone is revoked (which stops the laptop listening to the phone).
        let wasContinued = {
            laptop.performAndWait { device in device.lifecycle.filter { $0.kind == .wasContinued }.count }
        }
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
}
