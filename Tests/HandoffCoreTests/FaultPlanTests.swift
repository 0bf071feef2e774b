import Foundation
import HandoffCore
import Testing

/// ``FaultPlan`` on its own: on every occasion, the complete answer (which faults strike, in
/// order, and what becomes of the request, needsSave or streams) and the whole plan after.
@Suite("FaultPlan: which faults strike, complete answers and states")
struct FaultPlanTests {
    let continuation = ContinuationID(rawValue: UUID(uuidString: "00000000-0000-4000-8000-0000000000C1")!)
    let other = ContinuationID(rawValue: UUID(uuidString: "00000000-0000-4000-8000-0000000000C2")!)
    let request = PayloadRequestID(rawValue: 7)

    func plan(_ armed: [Fault: Bool]) -> FaultPlan {
        var plan = FaultPlan()
        for (fault, sticky) in armed { plan.arm(fault, sticky: sticky) }
        return plan
    }

    // MARK: Arming

    @Test func armingAndDisarming() {
        var plan = FaultPlan()
        #expect(plan.armed.isEmpty && plan.armedFaults.isEmpty)
        plan.arm(.noAnswer)
        plan.arm(.dropBeacons, sticky: true)
        #expect(plan.armed == [.noAnswer: .once, .dropBeacons: .sticky])
        #expect(plan.armedFaults == [.noAnswer: false, .dropBeacons: true])
        plan.arm(.noAnswer, sticky: true)
        #expect(plan.armed == [.noAnswer: .sticky, .dropBeacons: .sticky])
        plan.disarm(.noAnswer)
        #expect(plan.armed == [.dropBeacons: .sticky])
        plan.arm(.slowLink)
        plan.disarm()
        #expect(plan == FaultPlan())
    }

    @Test(arguments: Fault.allCases)
    func aFaultArmedOnceStrikesOnceAndStickyEveryTime(_ fault: Fault) {
        var plan = FaultPlan()
        #expect(plan.strikes(fault) == false, "not armed")
        plan.arm(fault)
        #expect(plan.strikes(fault) == true)
        #expect(plan == FaultPlan(), "used up")
        #expect(plan.strikes(fault) == false)
        plan.arm(fault, sticky: true)
        #expect([plan.strikes(fault), plan.strikes(fault)] == [true, true])
        #expect(plan.armed == [fault: .sticky])
    }

    @Test(arguments: Fault.allCases)
    func aFaultStrikesOnlyItself(_ fault: Fault) {
        var plan = plan(Dictionary(uniqueKeysWithValues: Fault.allCases.filter { $0 != fault }.map { ($0, false) }))
        let before = plan
        #expect(plan.strikes(fault) == false)
        #expect(plan == before)
    }

    // MARK: A payload request arrives

    @Test func aPayloadRequestIsServedWhenNothingIsArmed() {
        var plan = plan([.dropBeacons: false])
        #expect(plan.payloadRequestArrives() == .served)
        #expect(plan.payloadRequestArrives().fault == nil)
        #expect(plan.armed == [.dropBeacons: .once])
    }

    @Test func noAnswerComesBeforeOriginLeaves() {
        var plan = plan([.noAnswer: false, .originLeaves: false])
        let first = plan.payloadRequestArrives()
        #expect(first == .leftUnanswered && first.fault == .noAnswer)
        #expect(plan.armed == [.originLeaves: .once])
        let second = plan.payloadRequestArrives()
        #expect(second == .hungUp && second.fault == .originLeaves)
        #expect(plan.armed.isEmpty)
        #expect(plan.payloadRequestArrives() == .served)
    }

    @Test func stickyRequestFaultsStayArmed() {
        var plan = plan([.noAnswer: true, .originLeaves: true])
        #expect(plan.payloadRequestArrives() == .leftUnanswered)
        #expect(plan.payloadRequestArrives() == .leftUnanswered)
        #expect(plan.armed == [.noAnswer: .sticky, .originLeaves: .sticky])
    }

    // MARK: needsSave

    @Test func forgetNeedsSaveArmedOnceForgetsUntilARequestIsServed() {
        var plan = plan([.forgetNeedsSave: false])
        #expect(plan.payloadRequestArrives() == .served)
        #expect(plan.armed == [.forgetNeedsSave: .once], "not struck yet: kept for its continuation")
        #expect(plan.forgetsNeedsSave() == true)
        #expect(plan.armed == [.forgetNeedsSave: .onceUntilNextPayloadRequest])
        #expect(plan.forgetsNeedsSave() == true, "every needsSave until the request")
        #expect(plan.armed == [.forgetNeedsSave: .onceUntilNextPayloadRequest])
        #expect(plan.payloadRequestArrives() == .served)
        #expect(plan.armed.isEmpty, "used up by the continuation it made stale")
        #expect(plan.forgetsNeedsSave() == false)
    }

    @Test func aRequestNotServedDoesNotUseUpForgetNeedsSave() {
        var plan = plan([.forgetNeedsSave: false, .noAnswer: false])
        #expect(plan.forgetsNeedsSave() == true)
        #expect(plan.payloadRequestArrives() == .leftUnanswered)
        #expect(plan.armed == [.forgetNeedsSave: .onceUntilNextPayloadRequest])
    }

    @Test func armingForgetNeedsSaveAgainStartsItAfresh() {
        var plan = plan([.forgetNeedsSave: false])
        #expect(plan.forgetsNeedsSave() == true)
        plan.arm(.forgetNeedsSave)
        #expect(plan.armed == [.forgetNeedsSave: .once])
        plan.arm(.forgetNeedsSave, sticky: true)
        #expect(plan.forgetsNeedsSave() == true)
        #expect(plan.payloadRequestArrives() == .served)
        #expect(plan.armed == [.forgetNeedsSave: .sticky])
    }

    // MARK: The payload leaves

    @Test func nothingStrikesOnAPayloadWhenNothingIsArmed() {
        var plan = plan([.noAnswer: false])
        #expect(plan.faultsOnPayload(answering: request, of: continuation) == [])
        #expect(plan.delay(answering: request, bytes: 10_000) == 0)
        #expect(plan.paceOfStreams(of: continuation) == .full)
        #expect(plan.armed == [.noAnswer: .once])
    }

    @Test func everyPayloadFaultStrikesInOrder() {
        var plan = plan([.slowLink: false, .newerVersion: false, .oversizePayload: false, .refuseStreams: false])
        #expect(
            plan.faultsOnPayload(answering: request, of: continuation) == [.oversizePayload, .newerVersion, .slowLink])
        #expect(plan.armed == [.refuseStreams: .once])
        #expect(plan.slowRequests == [request: continuation])
        #expect(plan.slowContinuations == [continuation])
        #expect(plan.faultsOnPayload(answering: PayloadRequestID(rawValue: 8), of: other) == [], "armed once: used up")
    }

    @Test func theSlowLinkHoldsTheAnswerBackOnce() {
        var plan = plan([.slowLink: true])
        plan.slowLink = SlowLink(latency: 1, bytesPerSecond: 1024)
        #expect(plan.faultsOnPayload(answering: request, of: continuation) == [.slowLink])
        #expect(plan.delay(answering: request, bytes: 2048) == 3)
        #expect(plan.slowRequests.isEmpty)
        #expect(plan.delay(answering: request, bytes: 2048) == 0, "forgotten once sent")
        #expect(plan.slowContinuations == [continuation], "its streams stay slow")
    }

    @Test func anErrorAnswerIsNotHeldBack() {
        var plan = plan([.slowLink: false])
        #expect(plan.faultsOnPayload(answering: request, of: continuation) == [.slowLink])
        plan.errorAnswers(request)
        #expect(plan.slowRequests.isEmpty)
        #expect(plan.delay(answering: request, bytes: 100) == 0)
        #expect(plan.slowContinuations == [continuation])
    }

    @Test func theSlowLinkRemembersAtMost64Continuations() {
        var plan = plan([.slowLink: true])
        for serial in 0..<100 {
            _ = plan.faultsOnPayload(answering: PayloadRequestID(rawValue: UInt64(serial)), of: ContinuationID())
        }
        #expect(plan.slowContinuations.count == 64)
        #expect(plan.slowRequests.count == 100)
    }

    // MARK: Streams

    @Test func streamsOfASlowedPayloadAreSlowWithoutAStrike() {
        var plan = plan([.slowLink: false])
        _ = plan.faultsOnPayload(answering: request, of: continuation)
        plan.arm(.slowLink)
        #expect(plan.paceOfStreams(of: continuation) == .slowedWithPayload)
        #expect(plan.armed == [.slowLink: .once], "not used up")
        #expect(plan.paceOfStreams(of: other) == .slowedNow)
        #expect(plan.armed.isEmpty)
        #expect(plan.paceOfStreams(of: other) == .full)
    }
}
