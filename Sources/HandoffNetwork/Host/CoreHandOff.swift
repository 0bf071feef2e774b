#if canImport(Glibc)
import Glibc
#endif

/// A thread that has just woken the thread that takes its message next gives up its core for a
/// moment.
///
/// Linux wakes a socket's reader with a "sync" wake-up: it expects the waker to sleep at once, and
/// often puts the woken thread on the waker's own core. A device's thread does not sleep at once:
/// after sending a beacon or handing over a payload request or answer it finishes its turn (the
/// after-work, the timers, the lifecycle log) while the thread it woke waits on the same core
/// (a beacon's reader waited 18 µs, the median; on this machine kind an idle core takes some
/// 35 µs to wake, so the kernel's choice is the better one; docs/bench.md, "The woken reader
/// runs at once").
/// `sched_yield` lets the woken thread run now when it waits on this core, and returns at once
/// when nothing does.
enum CoreHandOff {
    /// Call right after the send (or the hand-over to an event loop) that woke the next thread.
    static func yieldToWokenReader() {
        sched_yield()
    }
}
