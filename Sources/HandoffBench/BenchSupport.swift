import Foundation
import NIOConcurrencyHelpers

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
    func wait(timeout: TimeInterval) async -> Value? {
        let timer = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
            self?.expire()
        }
        defer { timer.cancel() }
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
