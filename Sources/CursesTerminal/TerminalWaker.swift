import Glibc
import Synchronization

/// Wakes a ``TerminalRunLoop`` from any thread: the loop then reports ``TerminalEvent/wake``.
///
/// Wake-ups coalesce: several calls before the loop runs produce one event. Whoever calls
/// ``wake()`` must have stored its news (say, in a ``TerminalInbox``) before the call, and the
/// loop's owner reads that news after each `.wake`.
package final class TerminalWaker: Sendable {
    /// The read end of the pipe the loop sleeps on.
    let descriptor: Int32
    private let writeDescriptor: Int32
    private let isPending = Atomic<Bool>(false)

    init() throws(CursesTerminalError) {
        (descriptor, writeDescriptor) = try makeWakePipe()
    }

    deinit {
        close(descriptor)
        close(writeDescriptor)
    }

    /// Makes the loop return ``TerminalEvent/wake`` soon. Safe from any thread, never blocks.
    package func wake() {
        guard !isPending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Called by the loop when the pipe is readable: drains the pipe, then clears the flag. A
    /// wake-up that races with this either finds the flag still set (it writes nothing, and the
    /// frame the loop draws next, after this returns, sees its work) or finds it cleared (its
    /// byte wakes the next poll). Clearing first, as this did until 2026-11-28, let a racing
    /// wake-up's byte be drained with the flag left set: from then on every wake-up was skipped
    /// and the screen stayed as it was until a key or a deadline (a device listing no one while
    /// its peer listed it). `midway` runs between the two steps (tests race a wake-up there).
    func consume(midway: () -> Void = {}) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &buffer, buffer.count) > 0 {}
        midway()
        isPending.store(false, ordering: .sequentiallyConsistent)
    }
}

/// A thread-safe mailbox for a ``TerminalRunLoop``: other threads ``post(_:)`` messages, which
/// wakes the loop; the loop's owner calls ``drain()`` when it gets ``TerminalEvent/wake``.
///
/// ```swift
/// let inbox = TerminalInbox<DeviceMessage>(waker: loop.waker)
/// network.onBeacon = { beacon in inbox.post(.beaconReceived(beacon)) }   // any thread
/// // on the loop: case .wake: for message in inbox.drain() { state.update(message) }
/// ```
package final class TerminalInbox<Message: Sendable>: Sendable {
    private let messages = Mutex<[Message]>([])
    private let waker: TerminalWaker

    package init(waker: TerminalWaker) {
        self.waker = waker
    }

    /// Appends `message` and wakes the loop. Safe from any thread.
    package func post(_ message: Message) {
        messages.withLock { $0.append(message) }
        waker.wake()
    }

    /// Takes every message posted so far, oldest first.
    package func drain() -> [Message] {
        messages.withLock { messages in
            defer { messages.removeAll() }
            return messages
        }
    }
}
