import CNcursesw
import Glibc
import Synchronization

// Everything a signal handler touches is a global that `SignalTrap.init()` initialises
// before any handler is set (a global's first use runs `swift_once`, which a handler must not).

/// The first terminating signal received (0: none yet). Lock-free, so async-signal-safe.
private let firstSignal = Atomic<Int32>(0)
/// The write end of the self-pipe that wakes the run loop (-1: none).
private let notificationDescriptor = Atomic<Int32>(-1)
/// ncurses's own SIGWINCH handler (raw function pointer bits; 0: none), which ours calls first.
private let previousResizeHandler = Atomic<Int>(0)
private let previousResizeHandlerTakesInfo = Atomic<Bool>(false)
/// Whether `savedSettings` and `resetSequence` hold what a second signal needs.
private let hasSavedSettings = Atomic<Bool>(false)
private let resetSequenceLength = Atomic<Int>(0)
private let resetSequenceCapacity = 256
/// The tty settings from before curses started, restored by the emergency exit.
/// Written only while no handler is installed, read only by handlers.
nonisolated(unsafe) private let savedSettings = UnsafeMutablePointer<termios>.allocate(capacity: 1)
/// The terminfo strings that leave the alternate screen, show the cursor and reset attributes.
nonisolated(unsafe) private let resetSequence = UnsafeMutablePointer<UInt8>.allocate(capacity: resetSequenceCapacity)

/// The signals a crash raises (`fatalError` and failed preconditions trap with SIGILL or SIGTRAP).
private let crashSignals: [Int32] = [SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV]
/// The dispositions the crash handler replaced (the Swift runtime's backtracer, say), by signal.
nonisolated(unsafe) private let previousCrashActions = UnsafeMutablePointer<sigaction>.allocate(capacity: 32)

/// Writes one byte to the self-pipe, keeping `errno` as it was. Async-signal-safe.
private func notifyRunLoop() {
    let descriptor = notificationDescriptor.load(ordering: .acquiring)
    guard descriptor >= 0 else { return }
    var byte: UInt8 = 1
    _ = write(descriptor, &byte, 1)     // a full pipe already holds a pending wake-up
}

/// The handler for SIGINT, SIGTERM and SIGHUP: record the signal and wake the run loop, which
/// then reports it so the program can quit and restore the terminal. A second terminating
/// signal means the program did not manage to: restore the tty settings directly and exit.
private func handleTerminatingSignal(_ signal: Int32) {
    let savedErrno = errno
    if firstSignal.exchange(signal, ordering: .sequentiallyConsistent) != 0 {
        restoreTerminalAndExit(signal)
    }
    notifyRunLoop()
    errno = savedErrno
}

/// The SIGWINCH handler chained after ncurses's: ncurses records the resize (it reports
/// `KEY_RESIZE` on the next read), and the run loop is woken even when the signal lands on
/// another thread than the one sleeping in `poll`.
private func handleResizeSignal(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?,
                                _ context: UnsafeMutableRawPointer?) {
    let savedErrno = errno
    let previous = previousResizeHandler.load(ordering: .acquiring)
    if previous != 0 {
        if previousResizeHandlerTakesInfo.load(ordering: .relaxed) {
            typealias Handler = @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void
            unsafeBitCast(previous, to: Handler.self)(signal, info, context)
        } else {
            typealias Handler = @convention(c) (Int32) -> Void
            unsafeBitCast(previous, to: Handler.self)(signal)
        }
    }
    notifyRunLoop()
    errno = savedErrno
}

/// Puts the tty back as it was before curses: only async-signal-safe calls.
private func restoreTerminal() {
    let length = resetSequenceLength.load(ordering: .acquiring)
    if length > 0 { _ = write(STDOUT_FILENO, resetSequence, length) }
    if hasSavedSettings.load(ordering: .acquiring) { _ = tcsetattr(STDIN_FILENO, TCSANOW, savedSettings) }
}

/// The last resort, in a signal handler, when the program did not quit after the first signal.
private func restoreTerminalAndExit(_ signal: Int32) -> Never {
    restoreTerminal()
    _exit(128 + signal)
}

/// The handler for crashes: restore the tty, then let the previous disposition (default, or the
/// Swift runtime's backtracer) deal with the signal, so the crash report lands on a sane terminal.
private func handleCrashSignal(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?,
                               _ context: UnsafeMutableRawPointer?) {
    restoreTerminal()
    sigaction(signal, previousCrashActions + Int(signal), nil)
    // A fault happens again when the handler returns; a sent signal (abort, kill) must be re-sent.
    // It stays blocked until this handler returns, then goes to the previous disposition.
    if let info, info.pointee.si_code <= 0 { raise(signal) }
}

/// Catches the signals that end a terminal program, so that it can restore the terminal first.
///
/// Only one trap is installed at a time (signal dispositions are per process).
final class SignalTrap {
    /// The signals that end the program: Ctrl-C, `kill`, and the terminal going away.
    static let terminatingSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// The read end of the self-pipe: readable after a signal arrived.
    let descriptor: Int32
    private let writeDescriptor: Int32
    private var previousActions: [Int32: sigaction] = [:]
    private var isInstalled = false

    /// Creates the self-pipe, unblocks the signals, saves the tty settings and installs the
    /// handlers for the terminating signals and for crashes. Call before curses starts, so that ncurses leaves
    /// SIGINT and SIGTERM to us.
    init() throws(CursesTerminalError) {
        (descriptor, writeDescriptor) = try makeWakePipe()

        // Initialise every global a handler reads, before any handler exists.
        firstSignal.store(0, ordering: .sequentiallyConsistent)
        previousResizeHandler.store(0, ordering: .sequentiallyConsistent)
        previousResizeHandlerTakesInfo.store(false, ordering: .sequentiallyConsistent)
        resetSequenceLength.store(0, ordering: .sequentiallyConsistent)
        hasSavedSettings.store(tcgetattr(STDIN_FILENO, savedSettings) == 0, ordering: .sequentiallyConsistent)
        notificationDescriptor.store(writeDescriptor, ordering: .sequentiallyConsistent)

        // A process started from a libdispatch thread inherits a mask that blocks nearly every
        // signal; Ctrl-C, kill and resizes must get through.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in Self.terminatingSignals + [SIGWINCH] { sigaddset(&unblocked, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)

        for signal in Self.terminatingSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handleTerminatingSignal
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0                 // no SA_RESTART: a blocking call returns EINTR
            var previous = sigaction()
            sigaction(signal, &action, &previous)
            previousActions[signal] = previous
        }
        for signal in crashSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = handleCrashSignal
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_SIGINFO | SA_ONSTACK
            sigaction(signal, &action, previousCrashActions + Int(signal))
            previousActions[signal] = previousCrashActions[Int(signal)]
        }
        isInstalled = true
    }

    deinit {
        uninstall()
        close(descriptor)
        close(writeDescriptor)
    }

    /// Chains our SIGWINCH handler after the one ncurses installed in `newterm`: call once
    /// curses has started.
    func chainResizeHandler() {
        var current = sigaction()
        sigaction(SIGWINCH, nil, &current)
        let takesInfo = current.sa_flags & SA_SIGINFO != 0
        let bits = takesInfo
            ? unsafeBitCast(current.__sigaction_handler.sa_sigaction, to: Int.self)
            : unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
        // SIG_DFL (0), SIG_IGN (1) and SIG_ERR (-1) are not functions to call.
        previousResizeHandler.store(bits == 0 || bits == 1 || bits == -1 ? 0 : bits, ordering: .sequentiallyConsistent)
        previousResizeHandlerTakesInfo.store(takesInfo, ordering: .sequentiallyConsistent)

        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = handleResizeSignal
        action.sa_mask = current.sa_mask
        action.sa_flags = SA_SIGINFO | (current.sa_flags & SA_RESTART)
        sigaction(SIGWINCH, &action, nil)
        previousActions[SIGWINCH] = current
    }

    /// Remembers the terminal's reset strings (leave the alternate screen, show the cursor,
    /// reset attributes, leave keypad mode) for the emergency exit. Call once curses has started.
    func saveResetSequence() {
        var bytes: [UInt8] = []
        for capability in ["rmcup", "cnorm", "sgr0", "rmkx"] {
            if let value = shim_terminfo_string(capability) {
                bytes += Array(String(cString: value).utf8)
            }
        }
        let count = min(bytes.count, resetSequenceCapacity)
        for index in 0..<count { resetSequence[index] = bytes[index] }
        resetSequenceLength.store(count, ordering: .sequentiallyConsistent)
    }

    /// The first terminating signal received, if any.
    var receivedSignal: Int32? {
        let signal = firstSignal.load(ordering: .sequentiallyConsistent)
        return signal == 0 ? nil : signal
    }

    /// Empties the self-pipe.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &buffer, buffer.count) > 0 {}
    }

    /// Puts back the signal dispositions from before (ncurses's for SIGWINCH). Idempotent.
    func uninstall() {
        guard isInstalled else { return }
        isInstalled = false
        for (signal, previous) in previousActions {
            var action = previous
            sigaction(signal, &action, nil)
        }
        previousActions = [:]
        notificationDescriptor.store(-1, ordering: .sequentiallyConsistent)
        resetSequenceLength.store(0, ordering: .sequentiallyConsistent)
    }
}
