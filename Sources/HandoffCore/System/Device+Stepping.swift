import Foundation

extension Device {
    // MARK: Step mode

    /// The next time a tick would change something, for a run loop's timer; nil while paused, as
    /// no tick reaches the state machine then (a deadline passed during the pause would otherwise
    /// wake the loop again and again until the user goes on).
    public var nextDeadline: Date? { pausedAt == nil ? system.nextDeadline : nil }

    /// What step mode holds: an effect of the state machine, or an app callback the runtime
    /// calls (a restoration, opening streams; nil phase: not a pause of its own, only behind one).
    enum HeldStep {
        case effect(DeviceSystem.Effect)
        case action(StepPhase?, () -> Void)
    }

    /// Runs `action` now, or holds it: behind a pause, or (with a phase, in step mode) as the next pause.
    func step(_ phase: StepPhase?, continuation: ContinuationID?, _ action: @escaping () -> Void) {
        if pausedAt != nil {
            held.append(.action(phase, action))
        } else if isStepping, let phase {
            held = [.action(phase, action)]
            pause(before: phase, continuation: continuation)
        } else {
            action()
        }
    }

    /// Performs a held step without pausing (the phase the device paused before).
    func run(_ step: HeldStep) {
        switch step {
        case .effect(let effect): perform(effect)
        case .action(_, let action): action()
        }
    }

    /// Performs `effect`, or holds it: behind a pause, or as the next pause in step mode.
    func dispatch(_ effect: DeviceSystem.Effect) {
        if pausedAt != nil {
            held.append(.effect(effect))
        } else if isStepping, let phase = stepPhase(of: effect) {
            held = [.effect(effect)]
            pause(before: phase, continuation: continuation(of: effect))
        } else {
            perform(effect)
        }
    }

    func pause(before phase: StepPhase, continuation: ContinuationID?) {
        pausedAt = phase
        pausedSince = clock()
        record(.stepPaused(continuation, phase))
    }

    /// Goes on from the pause: the held phase happens, then everything behind it up to the next
    /// phase (in step mode). Returns false when the device was not paused.
    @discardableResult
    public func stepNext() -> Bool {
        guard pausedAt != nil else { return false }
        let suspended = pausedSince.map { clock().timeIntervalSince($0) } ?? 0
        pausedAt = nil
        pausedSince = nil
        var pending = held
        held = []
        let wasDraining = draining
        draining = true
        if suspended > 0 { queue.append(.timeoutsSuspended(for: suspended)) }
        if !pending.isEmpty { run(pending.removeFirst()) }
        // The rest as if just made: up to the next pause, and held behind it.
        for next in pending {
            switch next {
            case .effect(let effect): dispatch(effect)
            case .action(let phase, let action): step(phase, continuation: nil, action)
            }
        }
        if !wasDraining {
            drainQueue()
            draining = false
        }
        return true
    }

    /// The phase an effect starts, for step mode (nil: it does not pause).
    func stepPhase(of effect: DeviceSystem.Effect) -> StepPhase? {
        switch effect {
        case .launch(let bundle, let kind, _, _): .launch(bundleIdentifier: bundle, kind)
        case .callWillContinue(_, let bundle, let type): .willContinue(bundleIdentifier: bundle, activityType: type)
        case .requestPayload(_, let peer, _): .fetch(from: system.name(of: peer))
        case .deliver(_, let bundle, let payload, _): .continue(bundleIdentifier: bundle, activityType: payload.activityType)
        case .save(let id, .beforeSending, _): .save(activityType: activities[id]?.activityType ?? "the activity")
        case .sendPayload(_, let peer, let data): .send(bytes: data.count, to: system.name(of: peer))
        default: nil
        }
    }

    func continuation(of effect: DeviceSystem.Effect) -> ContinuationID? {
        switch effect {
        case .launch(_, _, let id, _), .callWillContinue(let id, _, _), .requestPayload(let id, _, _), .deliver(let id, _, _, _): id
        case .save(_, _, let id): id
        case .sendPayload(let request, _, _): system.serving[request]?.continuation
        default: nil
        }
    }
}
