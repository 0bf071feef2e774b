import Foundation

extension Device {
    // MARK: Step mode

    /// Step mode: the device pauses before each phase of a continuation (launching the app,
    /// willContinue, the fetch, continue; on the origin, the save and the payload leaving) until
    /// ``stepNext()``. While it is paused its timeouts are suspended: no tick reaches the state
    /// machine, and going on moves its deadlines by the time spent paused. Turning it off goes on
    /// through everything held. What pauses is ``StepGate``'s to say.
    public var isStepping: Bool {
        get { gate.isStepping }
        set {
            if newValue {
                gate.start()
            } else if let resumption = gate.stop(at: clock()) {
                resume(resumption)
            }
        }
    }

    /// The phase the device is paused before, if it is.
    public var pausedAt: StepPhase? { gate.pause?.phase }

    /// When the device paused (nil: it is not paused): its timeouts are frozen since then.
    public var pausedSince: Date? { gate.pause?.since }

    /// The next time a tick would change something, for a run loop's timer; nil while paused, as
    /// no tick reaches the state machine then (a deadline passed during the pause would otherwise
    /// wake the loop again and again until the user goes on).
    public var nextDeadline: Date? { gate.suspendsTimeouts ? nil : Self.nextDeadline(of: &system) }

    /// The state machine's next deadline, read in place. Reading the computed property on the
    /// stored struct (or passing it borrowed) copied all 781 bytes of it first, retaining and
    /// releasing every array and dictionary in it, after every piece of work; an in-place access
    /// reads it where it is. Nothing is changed.
    private static func nextDeadline(of system: inout DeviceSystem) -> Date? { system.nextDeadline }

    /// Goes on from the pause: the held phase happens, then everything behind it up to the next
    /// phase (in step mode). Returns false when the device was not paused.
    @discardableResult
    public func stepNext() -> Bool {
        guard let resumption = gate.goOn(at: clock()) else { return false }
        resume(resumption)
        return true
    }

    /// Runs `action` now, or holds it, as the gate says.
    func step(_ phase: StepPhase?, continuation: ContinuationID?, _ action: @escaping () -> Void) {
        guard !gate.performsEverything else { return action() }
        let now = clock()
        follow(
            gate.admit(action, phase: phase, continuation: continuation, at: now), for: .callback(action, phase: phase),
            at: now)
    }

    /// Performs `effect`, or holds it, as the gate says.
    func dispatch(_ effect: DeviceSystem.Effect) {
        // Not stepping: performed at once, as the gate would answer, without wrapping the effect
        // (240 bytes) in a step twice and reading the clock for a pause that cannot come.
        guard !gate.performsEverything else { return perform(effect) }
        let now = clock()
        follow(gate.admit(effect, in: stepContext, at: now), for: .effect(effect), at: now)
    }

    /// Carries out what the gate answered for `step`.
    private func follow(_ admission: StepGate<() -> Void>.Admission, for step: StepGate<() -> Void>.Step, at now: Date)
    {
        switch admission {
        case .perform: run(step)
        case .hold: break
        case .pause(let phase, let continuation):
            record(LifecycleEvent(time: now, device: info.name, .stepPaused(continuation, phase)), stamped: true)
        }
    }

    /// Does what a resumption says: the time paused moves the deadlines, the step paused before
    /// happens, and the gate is given the rest again. Events they post are handled after.
    func resume(_ resumption: StepGate<() -> Void>.Resumption) {
        let wasDraining = draining
        draining = true
        if let suspended = resumption.timeoutsSuspended { queue.append(.timeoutsSuspended(for: suspended)) }
        if let next = resumption.next { run(next) }
        for step in resumption.behind {
            let now = clock()
            follow(gate.readmit(step, in: stepContext, at: now), for: step, at: now)
        }
        if !wasDraining {
            drainQueue()
            draining = false
        }
        gate.resumed()
    }

    /// Performs a step (an effect, or an app callback).
    private func run(_ step: StepGate<() -> Void>.Step) {
        switch step {
        case .effect(let effect): perform(effect)
        case .callback(let action, _): action()
        }
    }

    /// What the gate reads to name a phase: the state machine's peers and requests, this
    /// device's activities.
    private var stepContext: DeviceStepContext { DeviceStepContext(device: self) }
}

/// A device's names and requests, as ``StepGate`` reads them.
struct DeviceStepContext: StepContext {
    unowned let device: Device

    func name(of peer: DeviceID) -> String { device.system.name(of: peer) }
    func activityType(of activity: UUID) -> String? { device.activities[activity]?.activityType }
    func continuation(serving request: PayloadRequestID) -> ContinuationID? {
        device.system.serving[request]?.continuation
    }
}
