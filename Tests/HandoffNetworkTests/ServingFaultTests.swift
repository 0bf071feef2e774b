import Foundation
import HandoffCore
import Testing

@testable import HandoffBench
@testable import HandoffNetwork

/// The lab's faults on the origin's serving path with real devices on loopback: payload requests
/// over an open session are served on the origin's event loop (``PayloadRequestTap``), and each
/// fault ends as its expected outcome says, on a session that then carries the next
/// continuation.
@Suite("Serving faults on running devices", .serialized)
struct ServingFaultTests {
    @Test func eachServingFaultEndsAsExpectedAndTheNextContinuationSucceeds() async throws {
        // Generous deadlines (see RevocationTests): the outcome, not the speed, is checked.
        try await withStartedWorld(["Laptop", "Phone"], fetchTimeout: 60, connectTimeout: 30, scenario)
    }

    /// The no-answer fault: the origin says nothing at all, not even when its 2 s serving
    /// deadline passes, so the phone's own fetch timeout (3 s here) ends the wait with 4610; the
    /// session is left open and carries the next continuation.
    @Test func aRequestTheOriginNeverAnswersEndsByTheRequestersFetchTimeout() async throws {
        try await withStartedWorld(["Laptop", "Phone"], fetchTimeout: 3, connectTimeout: 30) { world in
            let (laptop, phone) = try await phoneSeesLaptopsOffer(world)
            laptop.performAndWait { $0.arm(.noAnswer) }
            let silent = try await expectFailed(phone, from: laptop)
            #expect(silent.error?.code == .remoteApplicationTimedOut, "\(silent.logLine)")
            #expect(
                silent.error?.reason == "no payload from Laptop within 3 s",
                "the phone's fetch timeout, not an answer: \(silent.logLine)")
            #expect(laptop.performAndWait { $0.currentActivity != nil }, "the origin keeps its activity")
            let kinds = laptop.performAndWait { device in device.lifecycle.map(\.kind) }
            #expect(
                kinds.contains(.faultInjected) && !kinds.contains(.payloadSent) && !kinds.contains(.payloadRefused),
                "\(kinds)")
        }
    }

    /// The origin does not answer at once (its device, in step mode, pauses before the answer
    /// leaves): the request was taken inline without an answer, so the serving deadline is armed
    /// then, and 2 s after the request the origin answers that its app did not save in time,
    /// well before the phone's own fetch timeout (30 s here).
    @Test func aRequestLeftUnansweredInlineIsAnsweredByTheServingDeadline() async throws {
        try await withStartedWorld(["Laptop", "Phone"], fetchTimeout: 30, connectTimeout: 30) { world in
            let (laptop, phone) = try await phoneSeesLaptopsOffer(world)
            // Opens the pooled session, so the next request is taken by the origin's tap.
            try await expectContinued(phone, from: laptop)
            laptop.performAndWait { $0.isStepping = true }
            let started = Date()
            let failed = try await expectFailed(phone, from: laptop)
            #expect(failed.error?.code == .remoteApplicationTimedOut, "\(failed.logLine)")
            #expect(failed.error?.reason == "the origin app did not save in time", "\(failed.logLine)")
            #expect(Date().timeIntervalSince(started) < 25, "the serving deadline, not the phone's fetch timeout")
            let paused = laptop.performAndWait { device in device.lifecycle.map(\.kind) }
            #expect(paused.last == .stepPaused, "held before its answer leaves: \(paused)")
            #expect(laptop.performAndWait { $0.currentActivity != nil }, "the origin keeps its activity")
        }
    }

    /// The world's two devices with the app, the laptop's activity current and offered to the
    /// phone: (laptop, phone).
    private func phoneSeesLaptopsOffer(_ world: BenchWorld) async throws -> (DeviceHost, DeviceHost) {
        let (laptop, phone) = (world.hosts[0], world.hosts[1])
        LoopbackApp.install(on: world.hosts)
        laptop.performAndWait { device in LoopbackApp.becomeCurrent(on: device, page: 7) }
        try await waitForOffer(from: laptop, on: phone)
        return (laptop, phone)
    }

    private func scenario(_ world: BenchWorld) async throws {
        let (laptop, phone) = try await phoneSeesLaptopsOffer(world)

        // Opens the pooled session; every request below goes over a session already greeted.
        try await expectContinued(phone, from: laptop)

        // The origin leaves mid-fetch: its end of the connection closes (4609).
        laptop.performAndWait { $0.arm(.originLeaves) }
        let left = try await expectFailed(phone, from: laptop)
        #expect(left.error?.code == .connectionUnavailable, "\(left.logLine)")
        #expect(laptop.performAndWait { $0.currentActivity != nil }, "the origin keeps its activity")

        // A new session, then a slow link: the payload leaves late, and is restored.
        try await expectContinued(phone, from: laptop)
        let slowMark = laptop.performAndWait { $0.lifecycle.count }
        laptop.performAndWait { $0.arm(.slowLink) }
        try await expectContinued(phone, from: laptop)
        let slow = laptop.performAndWait { device in device.lifecycle.dropFirst(slowMark).map(\.kind) }
        #expect(slow.contains(.faultInjected) && slow.contains(.payloadSent), "\(slow)")

        // The payload is over the limit: the origin refuses it (4611).
        laptop.performAndWait { $0.arm(.oversizePayload) }
        let oversize = try await expectFailed(phone, from: laptop)
        #expect(oversize.error?.code == .userInfoTooLarge, "\(oversize.logLine)")

        // The session still carries continuations, in the usual order on the origin.
        let mark = laptop.performAndWait { $0.lifecycle.count }
        try await expectContinued(phone, from: laptop)
        let served = laptop.performAndWait { device in device.lifecycle.dropFirst(mark).map(\.kind) }
        let requested = try #require(served.firstIndex(of: .payloadRequested), "\(served)")
        let sent = try #require(served.firstIndex(of: .payloadSent), "\(served)")
        #expect(requested < sent, "\(served)")
    }
}
