import Foundation

/// What ``StepGate`` reads about a device to name the phase an effect starts, and its
/// continuation.
public protocol StepContext {
    /// A peer's name, as the fetch and send phases show it.
    func name(of peer: DeviceID) -> String
    /// The type of one of this device's activities, if it is still there (the save phase).
    func activityType(of activity: UUID) -> String?
    /// The continuation a payload request being served belongs to (the send phase).
    func continuation(serving request: PayloadRequestID) -> ContinuationID?
}

/// Step mode as a value: given the next step of a continuation (an effect of the
/// ``DeviceSystem``, or an app callback the runtime calls), the gate says whether to perform it,
/// hold it behind a pause, or pause before it; going on and cancelling say what to run.
///
/// It decides only: the runtime performs, records `stepPaused` and posts `timeoutsSuspended`
/// as it is told. `Callback` is what the runtime calls for a held app callback (a closure on a
/// ``Device``; anything comparable in tests).
public struct StepGate<Callback> {
    /// What the gate holds: an effect, or an app callback the runtime calls (a restoration,
    /// opening streams). A callback without a phase is not a pause of its own, only held behind one.
    public enum Step {
        case effect(DeviceSystem.Effect)
        case callback(Callback, phase: StepPhase?)
    }

    /// The device paused before `next`, since `since` (its timeouts are frozen since then).
    public struct Pause {
        public var phase: StepPhase
        public var since: Date
        /// The step the device paused before.
        public var next: Step
        /// What waits behind it, in order.
        public var behind: [Step]

        public init(phase: StepPhase, since: Date, next: Step, behind: [Step] = []) {
            self.phase = phase
            self.since = since
            self.next = next
            self.behind = behind
        }
    }

    public enum State {
        /// Step mode is off: every step is performed at once.
        case off
        /// Step mode is on and nothing is held: the next step that starts a phase pauses.
        case stepping
        case paused(Pause)
        /// Step mode is on, but what a cancelled pause held is being run: nothing pauses until
        /// ``resumed()``.
        case flushing
    }

    /// What to do with a step given to the gate.
    public enum Admission: Sendable, Hashable {
        /// Perform it now.
        case perform
        /// The gate holds it behind the pause.
        case hold
        /// The gate holds it and the device pauses before it: record `stepPaused`.
        case pause(StepPhase, continuation: ContinuationID?)
    }

    /// What going on from a pause (or cancelling it) asks the runtime to do, in order: post
    /// `timeoutsSuspended` (when time passed), run `next` without asking the gate, then give the
    /// gate each of `behind` again (``readmit(_:in:at:)``), as if just made.
    public struct Resumption {
        public var timeoutsSuspended: TimeInterval?
        public var next: Step?
        public var behind: [Step]

        public init(timeoutsSuspended: TimeInterval?, next: Step?, behind: [Step] = []) {
            self.timeoutsSuspended = timeoutsSuspended
            self.next = next
            self.behind = behind
        }
    }

    public private(set) var state: State

    public init(_ state: State = .off) {
        self.state = state
    }

    /// Whether step mode is on.
    public var isStepping: Bool {
        if case .off = state { false } else { true }
    }

    /// The pause, if the device is paused.
    public var pause: Pause? {
        if case .paused(let pause) = state { pause } else { nil }
    }

    /// While paused, no tick reaches the state machine: its timeouts are suspended.
    public var suspendsTimeouts: Bool { pause != nil }

    /// Turns step mode on (nothing changes if it is on).
    public mutating func start() {
        if case .off = state { state = .stepping }
    }

    /// Turns step mode off: a pause goes on through everything it held, none of it paused.
    public mutating func stop(at now: Date) -> Resumption? {
        defer { state = .off }
        guard let pause else { return nil }
        return Resumption(
            timeoutsSuspended: Self.suspended(since: pause.since, at: now), next: pause.next, behind: pause.behind)
    }

    /// Goes on from the pause: the step paused before is run, and what was behind it is admitted
    /// again (up to the next pause, and held behind it). Nil when the device is not paused.
    public mutating func goOn(at now: Date) -> Resumption? {
        guard let pause else { return nil }
        state = .stepping
        return Resumption(
            timeoutsSuspended: Self.suspended(since: pause.since, at: now), next: pause.next, behind: pause.behind)
    }

    /// The user cancelled the continuation: the held steps of the receiving side are dropped
    /// (the continuation ends here) and anything else held is run now, none of it paused, until
    /// ``resumed()``. Nil when the device is not paused.
    public mutating func cancel(at now: Date) -> Resumption? {
        guard let pause else { return nil }
        let kept = ([pause.next] + pause.behind).filter { !Self.isReceivingSide($0) }
        state = .flushing
        return Resumption(
            timeoutsSuspended: Self.suspended(since: pause.since, at: now), next: kept.first,
            behind: Array(kept.dropFirst()))
    }

    /// The runtime ran a resumption: after a cancel, stepping pauses again.
    public mutating func resumed() {
        if case .flushing = state { state = .stepping }
    }

    /// Whether every step is performed as it comes (step mode off, or a cancel flushing what was
    /// held): then ``admit(_:in:at:)`` would answer ``Admission/perform`` and change nothing, so
    /// the runtime performs the step without asking.
    public var performsEverything: Bool {
        switch state {
        case .off, .flushing: true
        case .paused, .stepping: false
        }
    }

    /// The state machine's next effect: performed, held behind a pause, or (in step mode, when it
    /// starts a phase) the step the device pauses before.
    public mutating func admit(_ effect: DeviceSystem.Effect, in context: some StepContext, at now: Date) -> Admission {
        admit(
            .effect(effect), phase: { Self.phase(of: effect, in: context) },
            continuation: { Self.continuation(of: effect, in: context) }, at: now)
    }

    /// An app callback: run now, held behind a pause, or (with a phase, in step mode) the step
    /// the device pauses before.
    public mutating func admit(
        _ callback: Callback, phase: StepPhase?, continuation: ContinuationID?,
        at now: Date
    ) -> Admission {
        admit(.callback(callback, phase: phase), phase: { phase }, continuation: { continuation }, at: now)
    }

    /// A step a ``Resumption`` left behind, admitted again as if just made. A callback's
    /// continuation was not kept: a pause before it records none.
    public mutating func readmit(_ step: Step, in context: some StepContext, at now: Date) -> Admission {
        switch step {
        case .effect(let effect): admit(effect, in: context, at: now)
        case .callback(let callback, let phase): admit(callback, phase: phase, continuation: nil, at: now)
        }
    }

    private mutating func admit(
        _ step: Step, phase: () -> StepPhase?, continuation: () -> ContinuationID?,
        at now: Date
    ) -> Admission {
        switch state {
        case .off, .flushing:
            return .perform
        case .paused(var pause):
            state = .stepping  // the array below is then held once, and appended in place
            pause.behind.append(step)
            state = .paused(pause)
            return .hold
        case .stepping:
            guard let phase = phase() else { return .perform }
            state = .paused(Pause(phase: phase, since: now, next: step))
            return .pause(phase, continuation: continuation())
        }
    }

    /// The phase an effect starts (nil: it does not pause).
    public static func phase(of effect: DeviceSystem.Effect, in context: some StepContext) -> StepPhase? {
        switch effect {
        case .launch(let bundle, let kind, _, _): .launch(bundleIdentifier: bundle, kind)
        case .callWillContinue(_, let bundle, let type): .willContinue(bundleIdentifier: bundle, activityType: type)
        case .requestPayload(_, let peer, _): .fetch(from: context.name(of: peer))
        case .deliver(_, let bundle, let payload, _):
            .continue(bundleIdentifier: bundle, activityType: payload.activityType)
        case .save(let id, .beforeSending, _): .save(activityType: context.activityType(of: id) ?? "the activity")
        case .sendPayload(_, let peer, let data): .send(bytes: data.count, to: context.name(of: peer))
        default: nil
        }
    }

    /// The continuation an effect belongs to, as a pause before it records it.
    static func continuation(of effect: DeviceSystem.Effect, in context: some StepContext) -> ContinuationID? {
        switch effect {
        case .launch(_, _, let id, _), .callWillContinue(let id, _, _), .requestPayload(let id, _, _),
            .deliver(let id, _, _, _):
            id
        case .save(_, _, let id): id
        case .sendPayload(let request, _, _): context.continuation(serving: request)
        default: nil
        }
    }

    /// The steps of the continuing side, which a cancel drops.
    static func isReceivingSide(_ step: Step) -> Bool {
        switch step {
        case .effect(.launch), .effect(.callWillContinue), .effect(.requestPayload), .effect(.deliver): true
        case .callback(_, .restore?): true
        default: false
        }
    }

    /// Time spent paused, when any passed.
    static func suspended(since: Date, at now: Date) -> TimeInterval? {
        let suspended = now.timeIntervalSince(since)
        return suspended > 0 ? suspended : nil
    }
}

extension StepGate: Sendable where Callback: Sendable {}
extension StepGate.Step: Sendable where Callback: Sendable {}
extension StepGate.Pause: Sendable where Callback: Sendable {}
extension StepGate.State: Sendable where Callback: Sendable {}
extension StepGate.Resumption: Sendable where Callback: Sendable {}
extension StepGate: Equatable where Callback: Equatable {}
extension StepGate.Step: Equatable where Callback: Equatable {}
extension StepGate.Pause: Equatable where Callback: Equatable {}
extension StepGate.State: Equatable where Callback: Equatable {}
extension StepGate.Resumption: Equatable where Callback: Equatable {}
