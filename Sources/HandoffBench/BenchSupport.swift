import Dispatch
import Foundation
import NIOConcurrencyHelpers
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The monotonic clock every bench figure is taken with (CLOCK_MONOTONIC, nanoseconds). It is
/// the same for every thread of the process, so a timestamp taken on one device's queue can be
/// compared with one taken on another's.
enum BenchClock {
    static func now() -> UInt64 { reading(CLOCK_MONOTONIC) }

    /// The CPU time every thread of this process has used, in nanoseconds.
    static func processCPU() -> UInt64 { reading(CLOCK_PROCESS_CPUTIME_ID) }

    private static func reading(_ clock: clockid_t) -> UInt64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// A moment of a throughput run: the wall clock and the process's CPU time.
    struct Instant: Sendable {
        var time: UInt64
        var cpu: UInt64

        static func now() -> Instant { Instant(time: BenchClock.now(), cpu: processCPU()) }

        /// Megabytes per second from `self` to `end`, for `bytes` carried.
        func megabytesPerSecond(_ bytes: Int, until end: Instant) -> Double {
            Double(bytes) / (Double(end.time &- time) / 1e9) / 1e6
        }

        /// CPU seconds (of every thread of the process) per gigabyte, for `bytes` carried.
        func cpuSecondsPerGigabyte(_ bytes: Int, until end: Instant) -> Double {
            (Double(end.cpu &- cpu) / 1e9) / (Double(bytes) / 1e9)
        }
    }
}

/// A set of latency samples in nanoseconds, summarised by nearest-rank percentiles.
struct LatencySamples: Sendable {
    private(set) var values: [UInt64] = []

    mutating func append(_ nanoseconds: UInt64) { values.append(nanoseconds) }

    var count: Int { values.count }

    /// The nearest-rank percentile `p` (0...100) in microseconds, or nil without samples.
    func percentile(_ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return Double(sorted[min(max(rank, 1), sorted.count) - 1]) / 1000
    }
}

/// Why the bench could not take a measurement.
package struct BenchError: Error, Sendable, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }

    static func posix(_ what: String) -> BenchError {
        BenchError("\(what): \(String(cString: strerror(errno)))")
    }
}

/// A value that arrives once from another thread (a device queue, a socket thread) and is awaited
/// with a deadline, so that a bench step that never completes fails instead of hanging.
final class BenchSignal<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var expired = false
        var waiter: CheckedContinuation<Value?, Never>?
    }

    private let state = NIOLockedValueBox(State())

    /// Delivers the value (only the first call, and only before the deadline, counts).
    func fulfil(_ value: Value) {
        state.withLockedValue { state in
            guard state.value == nil, !state.expired else { return }
            state.value = value
            state.waiter?.resume(returning: value)
            state.waiter = nil
        }
    }

    /// Waits for the value for at most `timeout` seconds; nil if it did not come.
    ///
    /// The deadline is kept by ``BenchDeadlines``, not by a task of its own: a sleeping task
    /// made for every wait woke a thread of the concurrency pool and libdispatch's timer thread
    /// just as the step it waits for began, on the cores that step needs, while the floors'
    /// raw sockets wait with nothing of the kind.
    func wait(timeout: TimeInterval) async -> Value? {
        let deadline = BenchDeadlines.shared.add(after: timeout) { [weak self] in self?.expire() }
        defer { BenchDeadlines.shared.remove(deadline) }
        return await withCheckedContinuation { continuation in
            state.withLockedValue { state in
                if let value = state.value {
                    continuation.resume(returning: value)
                } else if state.expired {
                    continuation.resume(returning: nil)
                } else {
                    state.waiter = continuation
                }
            }
        }
    }

    private func expire() {
        state.withLockedValue { state in
            guard state.value == nil else { return }
            state.expired = true
            state.waiter?.resume(returning: nil)
            state.waiter = nil
        }
    }
}

/// The deadlines of every ``BenchSignal`` wait, kept by one thread of their own that sleeps until
/// the earliest of them. Adding a deadline wakes that thread only when it is earlier than the one
/// it sleeps until, and removing one never does: a wait that ends in time makes no thread
/// wake-up at all, so the steps the bench times share the cores with nothing of the bench's.
final class BenchDeadlines: Sendable {
    static let shared = BenchDeadlines()

    /// A deadline added with ``add(after:expire:)``, to remove it with.
    struct Token: Hashable, Sendable {
        fileprivate let rawValue: UInt64
    }

    private struct Entry {
        var deadline: UInt64
        var expire: @Sendable () -> Void
    }

    private struct State {
        var entries: [Token: Entry] = [:]
        var next: UInt64 = 0
        /// What the keeper sleeps until (nil: it is awake).
        var sleepingUntil: UInt64?
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the keeper (``shared`` is made on first use).
    private init() {
        let thread = Thread { [self] in keep() }
        thread.name = "bench deadlines"
        thread.start()
    }

    /// Calls `expire` on the keeper's thread `seconds` from now, unless removed before.
    func add(after seconds: TimeInterval, expire: @escaping @Sendable () -> Void) -> Token {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, seconds) * 1e9)
        let (token, poke) = state.withLock { state in
            state.next += 1
            let token = Token(rawValue: state.next)
            state.entries[token] = Entry(deadline: deadline, expire: expire)
            let poke = state.sleepingUntil.map { deadline < $0 } ?? false
            if poke { state.sleepingUntil = nil }
            return (token, poke)
        }
        if poke { wake.signal() }
        return token
    }

    /// Forgets a deadline (its wait ended in time).
    func remove(_ token: Token) {
        state.withLock { _ = $0.entries.removeValue(forKey: token) }
    }

    private func keep() {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let (due, earliest): ([@Sendable () -> Void], UInt64?) = state.withLock { state in
                let due = state.entries.filter { $0.value.deadline <= now }
                for token in due.keys { state.entries[token] = nil }
                let earliest = state.entries.values.map(\.deadline).min()
                state.sleepingUntil = earliest ?? .max
                return (due.values.map(\.expire), earliest)
            }
            for expire in due { expire() }
            _ = wake.wait(timeout: earliest.map { DispatchTime(uptimeNanoseconds: $0) } ?? .distantFuture)
        }
    }
}

/// Runs blocking work (raw sockets) on a thread of its own, never on the concurrency pool.
func onDedicatedThread<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.name = name
        thread.start()
    }
}

/// Sleeps the calling (dedicated) thread.
func sleepThread(_ seconds: TimeInterval) {
    guard seconds > 0 else { return }
    usleep(UInt32(seconds * 1_000_000))
}

/// The kernel's count of UDP datagrams dropped because a socket's receive buffer was full
/// (RcvbufErrors in /proc/net/snmp), for the whole machine; nil where it cannot be read.
func udpReceiveBufferErrors() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/net/snmp", encoding: .utf8) else { return nil }
    let lines = text.split(separator: "\n").filter { $0.hasPrefix("Udp:") }
    guard lines.count >= 2 else { return nil }
    let names = lines[0].split(separator: " ")
    let values = lines[1].split(separator: " ")
    guard let index = names.firstIndex(of: "RcvbufErrors"), index < values.count else { return nil }
    return Int(values[index])
}
