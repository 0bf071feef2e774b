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
public struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        // Once per test case, never around a whole suite.
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        let executor = ThreadTaskExecutor(name: "test: \(test.name)")
        defer { executor.finish() }
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
