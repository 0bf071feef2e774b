import Foundation
import HandoffCore
import Testing

/// The names a gate reads, without a device.
private struct Names: StepContext {
    var peers: [DeviceID: String] = ["laptop": "Laptop"]
    var activityTypes: [UUID: String] = [:]
    var serving: [PayloadRequestID: ContinuationID] = [:]

    func name(of peer: DeviceID) -> String { peers[peer] ?? peer.rawValue }
    func activityType(of activity: UUID) -> String? { activityTypes[activity] }
    func continuation(serving request: PayloadRequestID) -> ContinuationID? { serving[request] }
}

/// ``StepGate`` on its own: for every effect and callback in every state, the complete answer
/// (perform, hold, pause with its record's phase and continuation, or the resumption) and the
/// state after, as `DeviceSystemTests` does for the state machine.
@Suite("StepGate: step mode's decisions, complete answers and states")
struct StepGateTests {
    typealias Gate = StepGate<String>

    static let t0 = Date(timeIntervalSinceReferenceDate: 1_000_000)
    let continuation = ContinuationID(rawValue: UUID(uuidString: "00000000-0000-4000-8000-0000000000C1")!)
    let served = ContinuationID(rawValue: UUID(uuidString: "00000000-0000-4000-8000-0000000000C2")!)
    let activity = UUID(uuidString: "00000000-0000-4000-8000-00000000000A")!
    let request = PayloadRequestID(rawValue: 7)
    let bundle = "com.example.reader"
    let type = "com.example.reader.reading"

    private var names: Names {
        Names(activityTypes: [activity: type], serving: [request: served])
    }

    var payload: ActivityPayload {
        ActivityPayload(
            activityIdentifier: activity, activityType: type, title: "Moby-Dick", userInfo: ["page": 3],
            webpageURL: nil, teamIdentifier: "ABCDE12345", bundleIdentifier: bundle, expirationDate: nil)
    }

    var reference: ActivityReference { ActivityReference(id: activity, activityType: type, bundleIdentifier: bundle) }

    /// Every effect of the state machine, with what a stepping gate answers (nil: perform).
    var everyEffect: [(DeviceSystem.Effect, Gate.Admission)] {
        let hash = ActivityTypeHash(activityType: type)
        let failure = HandoffError(.handoffFailed, "no")
        let ad = Advertisement(
            device: "me", activityTypeHash: hash, teamHash: TeamHash(teamIdentifier: "ABCDE12345"),
            options: [.isEligibleForHandoff], activitySerial: 1, savedAt: Self.t0, expiresAt: nil)
        let effects: [(DeviceSystem.Effect, Gate.Admission)] = [
            (.advertise(ad, reference), .perform),
            (.withdraw(.noCurrentActivity), .perform),
            (.save(activity, .coalesced, continuation: nil), .perform),
            (
                .save(activity, .beforeSending, continuation: served),
                .pause(.save(activityType: type), continuation: served)
            ),
            (
                .launch(bundleIdentifier: bundle, .cold, continuation: continuation, activityType: type),
                .pause(.launch(bundleIdentifier: bundle, .cold), continuation: continuation)
            ),
            (
                .launch(bundleIdentifier: bundle, .warm, continuation: continuation, activityType: type),
                .pause(.launch(bundleIdentifier: bundle, .warm), continuation: continuation)
            ),
            (
                .callWillContinue(continuation, bundleIdentifier: bundle, activityType: type),
                .pause(.willContinue(bundleIdentifier: bundle, activityType: type), continuation: continuation)
            ),
            (
                .requestPayload(continuation, from: "laptop", activityTypeHash: hash),
                .pause(.fetch(from: "Laptop"), continuation: continuation)
            ),
            (.cancelPayloadRequest(continuation, from: "laptop"), .perform),
            (
                .deliver(
                    continuation, bundleIdentifier: bundle, payload, origin: PeerReference(id: "laptop", name: "Laptop")
                ),
                .pause(.continue(bundleIdentifier: bundle, activityType: type), continuation: continuation)
            ),
            (.callDidFail(bundleIdentifier: bundle, activityType: type, failure), .perform),
            (.encodePayload(request, activity: activity, continuation: served), .perform),
            (
                .sendPayload(request, to: "laptop", Data(count: 300)),
                .pause(.send(bytes: 300, to: "Laptop"), continuation: served)
            ),
            (.sendPayloadError(request, to: "laptop", failure), .perform),
            (.notifyContinued(to: "laptop", activityIdentifier: activity, continuation: continuation), .perform),
            (.callWasContinued(activity), .perform),
            (
                .checkSiteAssociations(
                    bundleIdentifier: bundle, applicationIdentifier: "ABCDE12345.\(bundle)", domains: []), .perform
            ),
            (.record(LifecycleEvent(time: Self.t0, device: "Me", .activityCreated(reference))), .perform),
        ]
        return effects
    }

    /// A gate paused before the payload request, since t0.
    var pausedBeforeFetch: Gate {
        var gate = Gate(.stepping)
        _ = gate.admit(
            .requestPayload(continuation, from: "laptop", activityTypeHash: ActivityTypeHash(activityType: type)),
            in: names, at: Self.t0)
        return gate
    }

    var fetch: Gate.Step {
        .effect(.requestPayload(continuation, from: "laptop", activityTypeHash: ActivityTypeHash(activityType: type)))
    }

    /// The case of an effect; no default, so a new effect does not compile here until it is
    /// listed in ``everyEffect``.
    static func caseName(_ effect: DeviceSystem.Effect) -> String {
        switch effect {
        case .advertise: "advertise"
        case .withdraw: "withdraw"
        case .save: "save"
        case .launch: "launch"
        case .callWillContinue: "callWillContinue"
        case .requestPayload: "requestPayload"
        case .cancelPayloadRequest: "cancelPayloadRequest"
        case .deliver: "deliver"
        case .callDidFail: "callDidFail"
        case .encodePayload: "encodePayload"
        case .sendPayload: "sendPayload"
        case .sendPayloadError: "sendPayloadError"
        case .notifyContinued: "notifyContinued"
        case .callWasContinued: "callWasContinued"
        case .checkSiteAssociations: "checkSiteAssociations"
        case .record: "record"
        }
    }

    @Test func theListHoldsEveryEffect() {
        #expect(Set(everyEffect.map { Self.caseName($0.0) }).count == 16)
    }

    // MARK: Admitting

    @Test func offPerformsEveryEffectAndCallback() {
        var gate = Gate()
        for (effect, _) in everyEffect {
            #expect(gate.admit(effect, in: names, at: Self.t0) == .perform, "\(effect)")
        }
        #expect(
            gate.admit(
                "restore", phase: .restore(bundleIdentifier: bundle, objects: 1), continuation: continuation,
                at: Self.t0)
                == .perform)
        #expect(gate.state == .off)
        #expect(!gate.isStepping && !gate.suspendsTimeouts)
    }

    /// The runtime skips asking the gate when it performs everything: then every effect and
    /// callback must be performed, and the gate left as it was; in the other states some step
    /// is not performed.
    @Test func performingEverythingMeansEveryAdmissionIsPerformAndChangesNothing() {
        for state in [Gate.State.off, .flushing, .stepping, pausedBeforeFetch.state] {
            let before = Gate(state)
            var answers: [Gate.Admission] = []
            for (effect, _) in everyEffect {
                var gate = before
                answers.append(gate.admit(effect, in: names, at: Self.t0))
                if before.performsEverything { #expect(gate == before, "\(state) \(effect)") }
            }
            var gate = before
            answers.append(
                gate.admit(
                    "restore", phase: .restore(bundleIdentifier: bundle, objects: 1), continuation: continuation,
                    at: Self.t0))
            if before.performsEverything { #expect(gate == before, "\(state)") }
            #expect(answers.allSatisfy { $0 == .perform } == before.performsEverything, "\(state)")
        }
    }

    @Test func steppingPausesBeforeEveryPhaseAndPerformsTheRest() {
        for (effect, admission) in everyEffect {
            var gate = Gate(.stepping)
            #expect(gate.admit(effect, in: names, at: Self.t0) == admission, "\(effect)")
            if case .pause(let phase, _) = admission {
                #expect(
                    gate.state == .paused(Gate.Pause(phase: phase, since: Self.t0, next: .effect(effect))), "\(effect)")
                #expect(gate.suspendsTimeouts)
            } else {
                #expect(gate.state == .stepping, "\(effect)")
            }
        }
    }

    @Test func aSaveOfAnActivityGoneIsNamedGenerically() {
        var gate = Gate(.stepping)
        #expect(
            gate.admit(.save(UUID(), .beforeSending, continuation: nil), in: names, at: Self.t0)
                == .pause(.save(activityType: "the activity"), continuation: nil))
    }

    @Test func aPayloadSentForNoRequestServedPausesWithoutAContinuation() {
        var gate = Gate(.stepping)
        #expect(
            gate.admit(
                .sendPayload(PayloadRequestID(rawValue: 99), to: "tablet", Data(count: 1)), in: names, at: Self.t0)
                == .pause(.send(bytes: 1, to: "tablet"), continuation: nil))
    }

    @Test func aCallbackPausesOnlyWithAPhase() {
        var gate = Gate(.stepping)
        #expect(gate.admit("handled", phase: nil, continuation: continuation, at: Self.t0) == .perform)
        #expect(gate.state == .stepping)
        let restore = StepPhase.restore(bundleIdentifier: bundle, objects: 2)
        #expect(
            gate.admit("restore", phase: restore, continuation: continuation, at: Self.t0)
                == .pause(restore, continuation: continuation))
        #expect(
            gate.state
                == .paused(Gate.Pause(phase: restore, since: Self.t0, next: .callback("restore", phase: restore))))
    }

    @Test func behindAPauseEverythingIsHeldInOrder() {
        var gate = pausedBeforeFetch
        var behind: [Gate.Step] = []
        for (effect, _) in everyEffect {
            #expect(gate.admit(effect, in: names, at: Self.t0 + 1) == .hold, "\(effect)")
            behind.append(.effect(effect))
        }
        #expect(
            gate.admit(
                "restore", phase: .restore(bundleIdentifier: bundle, objects: 1), continuation: continuation,
                at: Self.t0 + 2)
                == .hold)
        #expect(gate.admit("handled", phase: nil, continuation: nil, at: Self.t0 + 2) == .hold)
        behind += [
            .callback("restore", phase: .restore(bundleIdentifier: bundle, objects: 1)),
            .callback("handled", phase: nil),
        ]
        #expect(
            gate.state
                == .paused(Gate.Pause(phase: .fetch(from: "Laptop"), since: Self.t0, next: fetch, behind: behind)))
    }

    // MARK: Going on

    @Test func goingOnRunsThePausedStepAndGivesBackTheRest() {
        var gate = pausedBeforeFetch
        let deliver = DeviceSystem.Effect.deliver(
            continuation, bundleIdentifier: bundle, payload,
            origin: PeerReference(id: "laptop", name: "Laptop"))
        let record = DeviceSystem.Effect.record(
            LifecycleEvent(time: Self.t0, device: "Me", .activityCreated(reference)))
        _ = gate.admit(record, in: names, at: Self.t0)
        _ = gate.admit(deliver, in: names, at: Self.t0)
        _ = gate.admit("handled", phase: nil, continuation: continuation, at: Self.t0)

        let resumption = gate.goOn(at: Self.t0 + 3)
        #expect(
            resumption
                == Gate.Resumption(
                    timeoutsSuspended: 3, next: fetch,
                    behind: [.effect(record), .effect(deliver), .callback("handled", phase: nil)]))
        #expect(gate.state == .stepping)
        // The runtime gives the rest back: up to the next phase, and held behind it.
        #expect(gate.readmit(.effect(record), in: names, at: Self.t0 + 3) == .perform)
        #expect(
            gate.readmit(.effect(deliver), in: names, at: Self.t0 + 3)
                == .pause(.continue(bundleIdentifier: bundle, activityType: type), continuation: continuation))
        #expect(gate.readmit(.callback("handled", phase: nil), in: names, at: Self.t0 + 3) == .hold)
        #expect(
            gate.state
                == .paused(
                    Gate.Pause(
                        phase: .continue(bundleIdentifier: bundle, activityType: type), since: Self.t0 + 3,
                        next: .effect(deliver), behind: [.callback("handled", phase: nil)])))
    }

    @Test func goingOnAtOnceSuspendsNoTimeouts() {
        var gate = pausedBeforeFetch
        #expect(gate.goOn(at: Self.t0) == Gate.Resumption(timeoutsSuspended: nil, next: fetch))
        #expect(gate.state == .stepping)
        #expect(!gate.suspendsTimeouts)
    }

    @Test func goingOnWhenNotPausedDoesNothing() {
        for state in [Gate.State.off, .stepping, .flushing] {
            var gate = Gate(state)
            #expect(gate.goOn(at: Self.t0) == nil)
            #expect(gate.state == state)
        }
    }

    @Test func aReadmittedCallbackPausesWithoutItsContinuation() {
        var gate = Gate(.stepping)
        let restore = StepPhase.restore(bundleIdentifier: bundle, objects: 1)
        #expect(
            gate.readmit(.callback("restore", phase: restore), in: names, at: Self.t0)
                == .pause(restore, continuation: nil))
        #expect(
            gate.state
                == .paused(Gate.Pause(phase: restore, since: Self.t0, next: .callback("restore", phase: restore))))
    }

    // MARK: Cancelling

    @Test func cancellingDropsTheContinuingSideAndRunsTheRestUnpaused() {
        var gate = pausedBeforeFetch
        let restore = Gate.Step.callback("restore", phase: .restore(bundleIdentifier: bundle, objects: 1))
        let streams = Gate.Step.callback("streams", phase: .streams(from: "Laptop"))
        let handled = Gate.Step.callback("handled", phase: nil)
        let send = Gate.Step.effect(.sendPayload(request, to: "laptop", Data(count: 3)))
        let dropped: [Gate.Step] = [
            .effect(.launch(bundleIdentifier: bundle, .cold, continuation: continuation, activityType: type)),
            .effect(.callWillContinue(continuation, bundleIdentifier: bundle, activityType: type)),
            .effect(
                .deliver(
                    continuation, bundleIdentifier: bundle, payload, origin: PeerReference(id: "laptop", name: "Laptop")
                )),
            restore,
        ]
        for step in [restore, handled, dropped[0], send, dropped[1], streams, dropped[2]] {
            #expect(gate.readmit(step, in: names, at: Self.t0) == .hold)
        }

        #expect(
            gate.cancel(at: Self.t0 + 2)
                == Gate.Resumption(timeoutsSuspended: 2, next: handled, behind: [send, streams]))
        #expect(gate.state == .flushing)
        #expect(gate.isStepping && !gate.suspendsTimeouts)
        // Nothing pauses while the runtime runs them, phases included.
        #expect(gate.readmit(send, in: names, at: Self.t0 + 2) == .perform)
        #expect(gate.readmit(streams, in: names, at: Self.t0 + 2) == .perform)
        #expect(
            gate.admit(
                .requestPayload(continuation, from: "laptop", activityTypeHash: ActivityTypeHash(activityType: type)),
                in: names, at: Self.t0 + 2) == .perform)
        gate.resumed()
        #expect(gate.state == .stepping)
    }

    @Test func cancellingWhatHeldOnlyTheContinuingSideStillMovesTheDeadlines() {
        var gate = pausedBeforeFetch
        #expect(gate.cancel(at: Self.t0 + 5) == Gate.Resumption(timeoutsSuspended: 5, next: nil))
        #expect(gate.state == .flushing)
        gate.resumed()
        #expect(gate.state == .stepping)
    }

    @Test func cancellingWhenNotPausedDoesNothing() {
        for state in [Gate.State.off, .stepping, .flushing] {
            var gate = Gate(state)
            #expect(gate.cancel(at: Self.t0) == nil)
            #expect(gate.state == state)
        }
    }

    @Test func resumedChangesOnlyAFlush() {
        for state in [Gate.State.off, .stepping] {
            var gate = Gate(state)
            gate.resumed()
            #expect(gate.state == state)
        }
        var gate = pausedBeforeFetch
        gate.resumed()
        #expect(gate == pausedBeforeFetch)
    }

    // MARK: Turning step mode on and off

    @Test func startingStepsAndKeepsAnyPause() {
        var gate = Gate()
        gate.start()
        #expect(gate.state == .stepping)
        gate.start()
        #expect(gate.state == .stepping)
        var paused = pausedBeforeFetch
        paused.start()
        #expect(paused == pausedBeforeFetch)
        var flushing = Gate(.flushing)
        flushing.start()
        #expect(flushing.state == .flushing)
    }

    @Test func stoppingGoesOnThroughEverythingUnpaused() {
        var gate = pausedBeforeFetch
        let send = Gate.Step.effect(.sendPayload(request, to: "laptop", Data(count: 3)))
        _ = gate.readmit(send, in: names, at: Self.t0)
        #expect(gate.stop(at: Self.t0 + 1) == Gate.Resumption(timeoutsSuspended: 1, next: fetch, behind: [send]))
        #expect(gate.state == .off)
        #expect(gate.readmit(send, in: names, at: Self.t0 + 1) == .perform)
        gate.resumed()
        #expect(gate.state == .off)
    }

    @Test func stoppingWhenNotPausedOnlyTurnsItOff() {
        for state in [Gate.State.off, .stepping, .flushing] {
            var gate = Gate(state)
            #expect(gate.stop(at: Self.t0) == nil)
            #expect(gate.state == .off)
        }
    }
}
