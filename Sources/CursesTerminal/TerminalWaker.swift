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

    /// Called by the loop when the pipe is readable. The flag is cleared before the pipe is
    /// drained, so a wake-up that races with this one leaves a byte behind, never nothing.
    func consume() {
        isPending.store(false, ordering: .sequentiallyConsistent)
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &buffer, buffer.count) > 0 {}
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
