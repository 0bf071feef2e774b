import HandoffCore

/// Makes random programs from a seed (HandoffCore's ``SplitMix64``): the same seed, step count
/// and device count give the same program.
///
/// It keeps a little of the world in mind so that the programs are ones a scenario could
/// replay: no command goes to a device that was killed or is stopped, and a stopped device is
/// resumed more often than anything else happens to it. Everything else is left to chance, refused
/// commands included (an update before any activity, a continue with nothing offered): the
/// system must handle them too.
package struct ProgramGenerator {
    package let devices: Int
    package let steps: Int
    /// The activities programs make current (all of them unless a test narrows the search).
    package var activities: [ExploreActivity] = ExploreActivity.allCases

    package init(devices: Int, steps: Int, activities: [ExploreActivity] = ExploreActivity.allCases) {
        self.devices = devices
        self.steps = steps
        self.activities = activities
    }

    /// The waits a program uses, in milliseconds: within a beacon's latency, a beat, a second,
    /// past the save coalescing, past the fetch timeout.
    static let waits = [1, 5, 20, 100, 400, 1_200, 6_000]
    /// The faults programs arm: every fault of the lab that can strike here. The explorer's
    /// scripted apps use the app delegate, so `connection-options-only` (scene apps only) would
    /// stay armed and change nothing but which programs a seed makes.
    static let faults = Fault.allCases.filter { $0 != .connectionOptionsOnly }

    /// The program of `seed`.
    package func program(seed: UInt64) -> ExploreProgram {
        var random = SplitMix64(seed: seed)
        let names = Array(ExploreProgram.deviceNames.prefix(devices))
        enum State { case running, stopped, dead }
        var states = Array(repeating: State.running, count: devices)
        var result: [ExploreStep] = []
        while result.count < steps {
            let device = Int(random.next() % UInt64(devices))
            switch states[device] {
            case .dead:
                // Time still passes for the others.
                result.append(ExploreStep(device: device, .wait(milliseconds: pick(Self.waits, &random))))
                continue
            case .stopped:
                let resumes = random.next() % 3 != 0
                result.append(
                    ExploreStep(device: device, resumes ? .resume : .wait(milliseconds: pick(Self.waits, &random))))
                if resumes { states[device] = .running }
                continue
            case .running:
                break
            }
            let action = self.action(device: device, &random)
            switch action {
            case .kill:
                // Keep at least two devices alive: a world of one has nothing to hand off.
                guard states.filter({ $0 != .dead }).count > 2 else { continue }
                states[device] = .dead
            case .stop: states[device] = .stopped
            default: break
            }
            result.append(ExploreStep(device: device, action))
        }
        return ExploreProgram(devices: names, steps: result)
    }

    func pick<T>(_ values: [T], _ random: inout SplitMix64) -> T {
        values[Int(random.next() % UInt64(values.count))]
    }

    /// One action of a running device, by weight.
    func action(device: Int, _ random: inout SplitMix64) -> ExploreAction {
        let weights: [(Int, Kind)] = [
            (12, .becomeCurrent), (3, .becomeCurrentAgain), (10, .update), (4, .resign), (3, .invalidate),
            (2, .quitApp), (14, .continueFrom), (4, .cancel), (2, .declineNext), (6, .fault), (3, .streamsOpen),
            (2, .streamSend), (1, .streamClose), (18, .wait), (1, .kill), (1, .stop), (2, .lock), (2, .unlock),
        ]
        let total = weights.reduce(0) { $0 + $1.0 }
        var roll = Int(random.next() % UInt64(total))
        var kind = Kind.wait
        for (weight, candidate) in weights {
            if roll < weight {
                kind = candidate
                break
            }
            roll -= weight
        }
        switch kind {
        case .becomeCurrent:
            // Reading twice as often: the Reader is the demo's main app.
            let activity = pick(activities + (activities.contains(.reading) ? [.reading] : []), &random)
            return .becomeCurrent(activity, value: Int(random.next() % 100), streams: random.next() % 4 == 0)
        case .becomeCurrentAgain: return .becomeCurrentAgain
        case .update:
            let padding = random.next() % 6 == 0 ? 4_000 : 0
            return .update(value: Int(random.next() % 100), padding: padding, needsSave: random.next() % 4 != 0)
        case .resign: return .resign
        case .invalidate: return .invalidate
        case .quitApp: return .quitApp
        case .continueFrom:
            // Another device (any: it may be dead or stopped, as a stale offer may be).
            let offset = 1 + Int(random.next() % UInt64(devices - 1))
            return .continueFrom((device + offset) % devices)
        case .cancel: return .cancel
        case .declineNext: return .declineNext
        case .fault: return .fault(pick(Self.faults, &random), sticky: random.next() % 5 == 0)
        case .streamsOpen: return .streamsOpen
        case .streamSend: return .streamSend(bytes: pick([1, 100, 5_000], &random))
        case .streamClose: return .streamClose
        case .wait: return .wait(milliseconds: pick(Self.waits, &random))
        case .kill: return .kill
        case .stop: return .stop
        case .lock: return .lock
        case .unlock: return .unlock
        }
    }

    enum Kind {
        case becomeCurrent, becomeCurrentAgain, update, resign, invalidate, quitApp, continueFrom, cancel
        case declineNext, fault, streamsOpen, streamSend, streamClose, wait, kill, stop, lock, unlock
    }
}
