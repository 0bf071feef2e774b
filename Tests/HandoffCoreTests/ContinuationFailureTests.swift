import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

@Suite("Continuation failures")
struct ContinuationFailureTests {
    /// Checks what every failure must leave behind: the receiving app got didFail with `code`
    /// and kept its state; the origin (when alive) still has its activity current.
    func expectFailure(
        _ world: TwoDevices, _ code: HandoffError.Code, origin activity: UserActivity?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(world.phoneReaderDelegate.failures.map(\.error.code) == [code], sourceLocation: sourceLocation)
        #expect(
            world.phoneReaderDelegate.failures.first?.type == "com.example.reader.reading",
            sourceLocation: sourceLocation)
        #expect(
            world.phoneState.state == ["page": 1], "the receiving app keeps its state", sourceLocation: sourceLocation)
        #expect(world.phoneState.restores == 0, sourceLocation: sourceLocation)
        #expect(world.phone.system.pendingContinuation == nil, sourceLocation: sourceLocation)
        let failed = world.phone.lifecycle.filter { $0.kind == .continuationFailed }
        #expect(failed.map(\.error?.code) == [code], sourceLocation: sourceLocation)
        if let activity {
            #expect(activity.isCurrent, "the origin keeps its activity", sourceLocation: sourceLocation)
            #expect(activity.isValid, sourceLocation: sourceLocation)
        }
    }

    @Test func originGoneBeforeTheFetch() throws {
        let world = TwoDevices()
        let (activity, _) = try world.startReading()
        world.hood.remove(world.laptop)
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.settle()
        expectFailure(world, .connectionUnavailable, origin: nil)
        _ = activity
    }

    @Test func originGoneDuringTheFetch() throws {
        let world = TwoDevices()
        world.hood.latency = 0.2
        try world.startReading()
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.advance(by: 0.3)  // the request has reached the origin; the answer is on its way
        world.hood.remove(world.laptop)
        world.hood.advance(by: 1)
        expectFailure(world, .connectionUnavailable, origin: nil)
    }

    @Test func aSilentOriginTimesOut() throws {
        let world = TwoDevices(configuration: DeviceConfiguration(saveCoalescingInterval: 60, fetchTimeout: 2))
        let (activity, _) = try world.startReading()
        world.hood.disconnect(world.laptop)
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.advance(by: 1.9)
        #expect(world.phoneReaderDelegate.failures.isEmpty, "still waiting")
        world.hood.advance(by: 0.2)
        expectFailure(world, .remoteApplicationTimedOut, origin: activity)
        world.hood.reconnect(world.laptop)
        world.hood.advance(by: 1)
        #expect(world.phoneState.restores == 0, "a late answer is ignored")
    }

    @Test func aPayloadOverTheOriginsLimitFailsWith4611() throws {
        let world = TwoDevices(
            configuration: DeviceConfiguration(saveCoalescingInterval: 60, payloadLimitBytes: 8 * 1024))
        let (activity, _) = try world.startReading(["page": 2, "blob": .data(Data(count: 20_000))])
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.settle()
        expectFailure(world, .userInfoTooLarge, origin: activity)
        #expect(world.events(world.laptop, .payloadRefused).first?.error?.code == .userInfoTooLarge)
        #expect(world.events(world.laptop, .payloadSizeWarning).count == 1)
    }

    @Test func aPayloadOverTheReceiversLimitFailsWith4611() throws {
        let world = TwoDevices(phoneConfiguration: DeviceConfiguration(payloadLimitBytes: 4 * 1024))
        let (activity, _) = try world.startReading(["page": 2, "blob": .data(Data(count: 6_000))])
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.settle()
        expectFailure(world, .userInfoTooLarge, origin: activity)
    }

    @Test func aPayloadOver3KBRecordsAWarningButContinues() throws {
        let world = TwoDevices()
        try world.startReading(["page": 2, "notes": .string(String(repeating: "x", count: 4_000))])
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.settle()
        #expect(world.phoneState.restores == 1)
        #expect(world.events(world.laptop, .payloadSizeWarning).count == 1)
        #expect(world.events(world.phone, .payloadSizeWarning).count == 1)
    }

    @Test func theUserCancels() throws {
        let world = TwoDevices()
        world.hood.latency = 0.2
        let (activity, _) = try world.startReading()
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.advance(by: 0.1)
        world.phone.cancelContinuation()
        world.hood.advance(by: 1)
        expectFailure(world, .userCancelled, origin: activity)
    }

    /// Apple: false from willContinue lets the system show the progress; it does not decline.
    @Test func willContinueFalseDoesNotDecline() throws {
        let world = TwoDevices()
        world.phoneReaderDelegate.acceptsContinuation = false
        let (activity, _) = try world.startReading()
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.settle()
        #expect(
            world.phone.lifecycle.contains {
                if case .willContinue(_, _, _, _, appShowsProgress: false) = $0.occurrence { true } else { false }
            })
        #expect(world.events(world.phone, .fetchStarted).count == 1, "the continuation goes on")
        #expect(world.phoneState.state == ["page": 2])
        #expect(activity.isValid)
    }

    @Test func theOriginInvalidatedItBeforeTheRequestArrived() throws {
        let world = TwoDevices()
        world.hood.latency = 0.2
        let (activity, _) = try world.startReading()
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.advance(by: 0.1)
        activity.invalidate()
        world.hood.advance(by: 1)
        #expect(world.phoneReaderDelegate.failures.map(\.error.code) == [.handoffFailed])
        #expect(world.phoneState.state == ["page": 1])
    }

    @Test func withoutAFailureHandlerTheSystemShowsTheError() throws {
        let hood = Neighbourhood()
        let laptop = hood.addDevice("Laptop", kind: .laptop)
        let phone = hood.addDevice("Phone")
        let reader = laptop.install(TestManifests.reader)
        laptop.bringToFront(reader)
        let phoneReader = phone.install(TestManifests.reader, delegate: MinimalAppDelegate())
        phone.bringToFront(phoneReader)
        try UserActivity(activityType: "com.example.reader.reading", application: reader).becomeCurrent()
        hood.settle()
        hood.remove(laptop)
        phone.chooseOffer(from: laptop.info.id)
        hood.settle()
        #expect(phone.systemAlerts.map(\.error.code) == [.connectionUnavailable])
        #expect(phone.lifecycle.contains { $0.kind == .systemShowedError && $0.error?.code == .connectionUnavailable })
    }

    @Test func aGarbledPayloadFailsWith4608AndKeepsTheReceiversState() throws {
        let world = TwoDevices()
        try world.startReading()
        world.phone.chooseOffer(from: world.laptop.info.id)
        // Answer the phone's request with garbage instead of the origin's payload.
        let pending = try #require(world.phone.system.pendingContinuation)
        world.phone.receivePayload(pending.id, .success(Data("not a payload at all".utf8)))
        #expect(world.phoneReaderDelegate.failures.map(\.error.code) == [.handoffFailed])
        #expect(world.phoneReaderDelegate.failures.first?.error.reason.contains("decoded") == true)
        #expect(world.phoneState.state == ["page": 1])
    }

    /// Step mode, paused 10 s before the fetch (longer than the 5 s timeout) and again after it
    /// started: the fetch still has its whole timeout once the device goes on, counted without
    /// the time paused; while paused the device asks its run loop for no wake-up.
    @Test func aPauseNeverEatsTheFetchTimeout() throws {
        let world = TwoDevices()
        try world.startReading()
        world.laptop.arm(.noAnswer)
        world.phone.isStepping = true
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.settle()
        #expect(world.phone.pausedAt?.name == "willContinue")
        world.phone.stepNext()
        #expect(world.phone.pausedAt?.name == "fetch")
        world.hood.advance(by: 10)
        #expect(world.phone.nextDeadline == nil, "paused: no deadline to wake for")
        #expect(world.phone.system.pendingContinuation != nil)
        world.phone.isStepping = false
        let resumed = world.hood.clock.now
        world.hood.advance(by: 4.9)
        #expect(world.events(world.phone, .continuationFailed).isEmpty, "the whole 5 s after going on")
        // The origin never answers: the timeout runs out 5 s after going on, not before.
        world.hood.advance(by: 0.2)
        let failed = try #require(world.events(world.phone, .continuationFailed).first)
        #expect(failed.error?.code == .remoteApplicationTimedOut)
        #expect(failed.time.timeIntervalSince(resumed) >= 5)
        #expect(failed.time.timeIntervalSince(resumed) < 5.2)
    }
}
