import Dispatch
import Foundation
import Synchronization
import Testing

/// Runs each test of a suite on a thread of its own instead of the Swift concurrency pool.
///
/// End-to-end tests wait for other processes (a tmux pane, a headless device) by polling and
/// sleeping, which blocks the thread they run on. The pool has one thread per core (two on the
/// CI machine), so two such tests at once used to stall every other test in the process: a
/// network test's tasks could not run, its sessions missed their handshake deadlines, and it
/// failed for reasons of its neighbours'. With this trait (`@Suite(.ownThread)`) a test's task
/// prefers an executor of one thread made for it, so its waits block that thread alone; awaiting
/// an actor still hops there and back as usual.
///
/// At most ``EndToEndSlots/limit`` such tests run at once (twice the cores unless
/// `HANDOFF_TEST_PROCESSES` says otherwise): without a bound, every end-to-end test of the suite
/// started its devices and tmux servers at the same moment, and on two cores the processes of
/// eighty tests made each other miss their deadlines. A test waits for a slot before its own
/// clock starts, suspended, holding no thread.
public struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        // Once per test case, never around a whole suite.
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        await EndToEndSlots.shared.acquire()
        let executor = ThreadTaskExecutor(name: "test: \(test.name)")
        defer {
            executor.finish()
            EndToEndSlots.shared.release()
        }
        try await withTaskExecutorPreference(executor) {
            try await function()
        }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Each test runs on a thread of its own, so that its blocking waits never hold a thread of
    /// the concurrency pool (see ``OwnThreadTrait``).
    public static var ownThread: Self { OwnThreadTrait() }
}

/// How many tests with their own thread (end-to-end tests, which start processes) run at once.
/// Waiters are resumed in the order they came.
final class EndToEndSlots: Sendable {
    static let shared = EndToEndSlots(limit: EndToEndSlots.configuredLimit)

    /// `HANDOFF_TEST_PROCESSES` if it is a positive number, else twice the active cores.
    static var configuredLimit: Int {
        if let text = ProcessInfo.processInfo.environment["HANDOFF_TEST_PROCESSES"], let value = Int(text), value > 0 {
            return value
        }
        return max(2, 2 * ProcessInfo.processInfo.activeProcessorCount)
    }

    private struct State {
        var free: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    let limit: Int
    private let state: Mutex<State>

    init(limit: Int) {
        self.limit = limit
        state = Mutex(State(free: limit))
    }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                guard state.free > 0 else {
                    state.waiters.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}

/// A task executor with one thread that runs its jobs in order. Once finished, its thread ends;
/// a job that still arrives (an unstructured task the test started, which inherited the
/// preference) runs on a Dispatch thread instead, never lost.
final class ThreadTaskExecutor: TaskExecutor, Sendable {
    private struct State {
        var jobs: [UnownedJob] = []
        var isFinished = false
    }

    private let state = Mutex(State())
    private let wakeUp = DispatchSemaphore(value: 0)

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = String(name.prefix(60))
        thread.start()
    }

    func enqueue(_ job: UnownedJob) {
        let accepted = state.withLock { state in
            guard !state.isFinished else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted {
            wakeUp.signal()
        } else {
            let executor = self
            DispatchQueue.global().async { job.runSynchronously(on: executor.asUnownedTaskExecutor()) }
        }
    }

    /// Ends the thread once the jobs already queued have run.
    func finish() {
        state.withLock { $0.isFinished = true }
        wakeUp.signal()
    }

    private func run() {
        while true {
            wakeUp.wait()
            let (jobs, isFinished) = state.withLock { state in
                defer { state.jobs = [] }
                return (state.jobs, state.isFinished)
            }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            if isFinished { return }
        }
    }
}
