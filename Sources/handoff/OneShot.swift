import Synchronization

/// A value set once from any thread (the first one wins) and awaited by the command: the exit
/// status of the headless device, the terminal thread's outcome.
final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiter: CheckedContinuation<Value, Never>?
    }

    private let state = Mutex(State())

    func set(_ value: Value) {
        state.withLock { state in
            guard state.value == nil else { return }
            state.value = value
            state.waiter?.resume(returning: value)
            state.waiter = nil
        }
    }

    func wait() async -> Value {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                if let value = state.value {
                    continuation.resume(returning: value)
                } else {
                    state.waiter = continuation
                }
            }
        }
    }
}
