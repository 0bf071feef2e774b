import Glibc
import TerminalCells

/// What woke a ``TerminalRunLoop``.
package enum TerminalEvent: Hashable, Sendable {
    /// A key was pressed.
    case key(Key)
    /// The terminal now has this size; the next ``CursesTerminal/draw(_:)`` repaints it all.
    case resize(Size)
    /// Another thread called ``TerminalWaker/wake()`` (or posted to a ``TerminalInbox``).
    case wake
    /// The deadline passed to ``TerminalRunLoop/nextEvent(until:)`` was reached.
    case deadline
    /// SIGINT, SIGTERM or SIGHUP arrived (SIGHUP also when the terminal went away): quit now,
    /// and let ``CursesTerminal/stop()`` restore the terminal. Once reported, it is reported
    /// by every later call; a second signal exits at once (tty settings restored).
    case signal(Int32)
    /// The program was stopped (Ctrl-Z, the loop gave the terminal back first) and continued
    /// (`fg`), or was continued after some other stop: the next ``CursesTerminal/draw(_:)``
    /// takes the terminal again and repaints everything. The size may have changed too (a
    /// ``resize(_:)`` follows when it did).
    case resumed
}

/// Where a run loop's events come from besides its waker: the terminal's keyboard and the
/// signal trap. ``CursesTerminal`` in a program; a fake in unit tests.
protocol TerminalEventSource: AnyObject {
    /// The descriptor to poll for keys, if any.
    var inputDescriptor: Int32? { get }
    /// The signal self-pipe to poll, if any.
    var signalDescriptor: Int32? { get }
    /// The terminating signal received, if any.
    var receivedSignal: Int32? { get }
    /// Empties the signal self-pipe.
    func drainSignalNotifications()
    /// Every key (and resize) available now, without blocking.
    func readEvents() -> [TerminalEvent]
    /// Handles Ctrl-Z and continuing (on the loop's thread, which owns the terminal); returns
    /// whether the process was stopped or continued, and the terminal must be repainted.
    func handleJobControl() -> Bool
}

extension TerminalEventSource {
    func handleJobControl() -> Bool { false }
}

/// The device's event loop: it sleeps in `poll(2)` on the keyboard, a wake-up pipe and the
/// signal pipe, until one of them has something or the caller's deadline passes. An idle
/// device uses no CPU.
///
/// One thread owns the loop (and the terminal); other threads talk to it through ``waker``
/// or a ``TerminalInbox``.
///
/// ```swift
/// try CursesTerminal.withTerminal { terminal in
///     let loop = try TerminalRunLoop(terminal: terminal)
///     terminal.draw(view(state, terminal.size))
///     while true {
///         switch loop.nextEvent(until: state.nextDeadline) {
///         case .key(let key): if state.handle(key) == .quit { return }
///         case .resize: break                         // the next draw uses terminal.size
///         case .wake: inbox.drain().forEach { state.update($0) }
///         case .deadline: state.tick()
///         case .resumed: break                        // the next draw repaints everything
///         case .signal: return
///         }
///         if !loop.hasPendingEvents { terminal.draw(view(state, terminal.size)) }
///     }
/// }
/// ```
package final class TerminalRunLoop {
    /// Wakes this loop from any thread.
    package let waker: TerminalWaker
    private let source: any TerminalEventSource
    private var pending: [TerminalEvent] = []
    private var pendingIndex = 0
    private var hungUp = false
    private var fruitlessReads = 0

    /// A loop reading `terminal`, which must be started.
    package convenience init(terminal: CursesTerminal) throws(CursesTerminalError) {
        guard terminal.isActive else { throw .notStarted }
        try self.init(source: terminal)
    }

    init(source: any TerminalEventSource) throws(CursesTerminalError) {
        self.source = source
        waker = try TerminalWaker()
    }

    /// Whether events already read are waiting, so that ``nextEvent(until:)`` returns at once.
    /// Skip drawing while this is true to handle a burst of keys with one draw.
    package var hasPendingEvents: Bool { pendingIndex < pending.count }

    /// Blocks until the next event, or until `deadline` (nil: no deadline).
    ///
    /// A received signal comes first, then Ctrl-Z (the terminal is given back and the process
    /// stops here until continued, then ``TerminalEvent/resumed``), then events already read
    /// (in order), then whatever the sleep brings.
    package func nextEvent(until deadline: ContinuousClock.Instant? = nil) -> TerminalEvent {
        while true {
            if let signal = source.receivedSignal { return .signal(signal) }
            if hungUp { return .signal(SIGHUP) }
            if source.handleJobControl() {
                // `kill %1` sends SIGTERM then SIGCONT: quit without taking the terminal again.
                if let signal = source.receivedSignal { return .signal(signal) }
                return .resumed
            }
            if let event = takePending() { return event }

            var timeout: Int32 = -1
            if let deadline {
                let remaining = ContinuousClock.now.duration(to: deadline)
                if remaining <= .zero { return .deadline }
                timeout = Self.milliseconds(roundingUp: remaining)
            }
            sleep(timeout: timeout)
        }
    }

    /// One `poll`, and everything it reports queued as events.
    private func sleep(timeout: Int32) {
        var descriptors = [pollfd(fd: waker.descriptor, events: Int16(POLLIN), revents: 0)]
        let signalIndex = source.signalDescriptor.map { descriptor in
            descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
            return descriptors.count - 1
        }
        let inputIndex = source.inputDescriptor.map { descriptor in
            descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
            return descriptors.count - 1
        }

        let count = poll(&descriptors, nfds_t(descriptors.count), timeout)
        if count < 0 {
            if errno == EINTR {
                enqueue(source.readEvents())  // a resize (SIGWINCH) lands here
            } else {
                hungUp = true  // poll itself failed: nothing left to wait on
            }
            return
        }
        if count == 0 { return }

        if let signalIndex, descriptors[signalIndex].revents != 0 {
            source.drainSignalNotifications()
            enqueue(source.readEvents())
        }
        if let inputIndex, descriptors[inputIndex].revents != 0 {
            let events = source.readEvents()
            enqueue(events)
            if events.isEmpty {
                // Readable yet nothing to read, again and again: the terminal is gone.
                let closed = Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
                fruitlessReads += 1
                if descriptors[inputIndex].revents & closed != 0 || fruitlessReads >= 100 { hungUp = true }
            } else {
                fruitlessReads = 0
            }
        }
        if descriptors[0].revents != 0 {
            waker.consume()
            if !pending[pendingIndex...].contains(.wake) { enqueue([.wake]) }
        }
    }

    private func enqueue(_ events: [TerminalEvent]) {
        pending.append(contentsOf: events)
    }

    private func takePending() -> TerminalEvent? {
        guard pendingIndex < pending.count else { return nil }
        let event = pending[pendingIndex]
        pendingIndex += 1
        if pendingIndex == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingIndex = 0
        }
        return event
    }

    /// `duration` in whole milliseconds, rounded up (so the loop never wakes before a deadline
    /// and spins), at least 1 and at most `Int32.max`.
    static func milliseconds(roundingUp duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64(Int32.max / 1000) else { return Int32.max }
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let milliseconds = seconds * 1000 + (attoseconds + perMillisecond - 1) / perMillisecond
        return Int32(max(1, milliseconds))
    }
}
