import CNcursesw
import Glibc
import Synchronization

// Everything a signal handler touches is a global that `SignalTrap.init()` initialises
// before any handler is set (a global's first use runs `swift_once`, which a handler must not).

/// The first terminating signal received (0: none yet). Lock-free, so async-signal-safe.
private let firstSignal = Atomic<Int32>(0)
/// Whether curses has the terminal (program mode, alternate screen): set while it draws, cleared
/// when the terminal is given back. The emergency restore acts only then: restoring twice would
/// move the shell's cursor (`rmcup` restores a saved position), and a process continued in the
/// background must not touch the terminal (it would be stopped with SIGTTOU).
private let terminalIsTaken = Atomic<Bool>(false)
/// Whether Ctrl-Z (SIGTSTP) asked the run loop to give the terminal back and stop, and the loop
/// has not taken the request yet.
private let suspendRequested = Atomic<Bool>(false)
/// Whether the process was continued (SIGCONT) since the run loop last looked.
private let continuedSinceLastLook = Atomic<Bool>(false)
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
    _ = write(descriptor, &byte, 1)  // a full pipe already holds a pending wake-up
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
private func handleResizeSignal(
    _ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?,
    _ context: UnsafeMutableRawPointer?
) {
    let savedErrno = errno
    let previous = previousResizeHandler.load(ordering: .acquiring)
    if previous != 0 {
        if previousResizeHandlerTakesInfo.load(ordering: .relaxed) {
            typealias Handler =
                @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void
            unsafeBitCast(previous, to: Handler.self)(signal, info, context)
        } else {
            typealias Handler = @convention(c) (Int32) -> Void
            unsafeBitCast(previous, to: Handler.self)(signal)
        }
    }
    notifyRunLoop()
    errno = savedErrno
}

/// The SIGTSTP handler (Ctrl-Z): ask the run loop to hand the terminal back and stop the
/// process. A second Ctrl-Z before the loop took the first means the loop is stuck: restore the
/// tty settings here and stop at once (SIGSTOP, which cannot be blocked, so the process stops
/// inside this handler); once continued, the loop redraws when it can.
private func handleStopSignal(_ signal: Int32) {
    let savedErrno = errno
    if suspendRequested.exchange(true, ordering: .sequentiallyConsistent) {
        restoreTerminal()
        _ = kill(getpid(), SIGSTOP)
        suspendRequested.store(false, ordering: .sequentiallyConsistent)
    }
    notifyRunLoop()
    errno = savedErrno
}

/// The SIGCONT handler: the process runs again (after Ctrl-Z and `fg`, or any SIGSTOP), and the
/// shell may have changed the tty meanwhile: the run loop takes the terminal back and repaints.
private func handleContinueSignal(_ signal: Int32) {
    let savedErrno = errno
    continuedSinceLastLook.store(true, ordering: .sequentiallyConsistent)
    notifyRunLoop()
    errno = savedErrno
}

/// Puts the tty back as it was before curses, if curses has it: only async-signal-safe calls.
private func restoreTerminal() {
    guard terminalIsTaken.exchange(false, ordering: .sequentiallyConsistent) else { return }
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
///
/// A fault (a bad access, a trap) happens again when this handler returns, and goes to the
/// previous disposition. A sent signal (`kill -SEGV`, `abort`) does not: the previous handler is
/// called here, then the signal's default action ends the process. (The Swift 6.3 runtime's
/// handler returns after reporting a sent signal, and the program would go on running, with the
/// runtime's memory-server thread spinning.)
private func handleCrashSignal(
    _ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?,
    _ context: UnsafeMutableRawPointer?
) {
    restoreTerminal()
    let previous = previousCrashActions + Int(signal)
    sigaction(signal, previous, nil)
    guard let info, info.pointee.si_code <= 0 else { return }
    let flags = previous.pointee.sa_flags
    // The signal mask the kernel would give that handler: its own mask added, and the signal
    // itself unblocked when it asked for SA_NODEFER. (The runtime's handler blocks nearly
    // everything but the crash signals, and its memory-server thread, which inherits this
    // mask, recovers from the faults its reads may cause: with SIGSEGV still blocked, as in
    // this handler, such a fault would kill the process before the report is written.)
    var mask = sigset_t()
    pthread_sigmask(SIG_BLOCK, nil, &mask)
    for other in 1..<Int32(65) where sigismember(&previous.pointee.sa_mask, other) == 1 { sigaddset(&mask, other) }
    if flags & SA_NODEFER != 0 { sigdelset(&mask, signal) }
    pthread_sigmask(SIG_SETMASK, &mask, nil)
    if flags & SA_SIGINFO != 0 {
        if let handler = previous.pointee.__sigaction_handler.sa_sigaction { handler(signal, info, context) }
    } else {
        let bits = unsafeBitCast(previous.pointee.__sigaction_handler.sa_handler, to: Int.self)
        if bits == 1 { return }  // SIG_IGN: ignored before us, ignored now
        if bits != 0, let handler = previous.pointee.__sigaction_handler.sa_handler { handler(signal) }
    }
    var defaultAction = sigaction()
    sigemptyset(&defaultAction.sa_mask)
    sigaction(signal, &defaultAction, nil)
    // Now the default action ends the process: at once when the signal is unblocked here, else
    // when this handler returns.
    raise(signal)
}

/// Catches the signals that end a terminal program, so that it can restore the terminal first.
///
/// Only one trap is installed at a time (signal dispositions are per process).
final class SignalTrap {
    /// The signals that end the program: Ctrl-C, `kill`, and the terminal going away.
    static let terminatingSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    /// The job-control signals: Ctrl-Z (SIGTSTP) and continuing (SIGCONT).
    static let jobControlSignals: [Int32] = [SIGTSTP, SIGCONT]

    /// The read end of the self-pipe: readable after a signal arrived.
    let descriptor: Int32
    private let writeDescriptor: Int32
    private var previousActions: [Int32: sigaction] = [:]
    private var isInstalled = false

    /// Whether Ctrl-Z is ours to handle: false when SIGTSTP was ignored when the program
    /// started (a shell without job control), which stays so.
    private(set) var handlesStopSignal = false

    /// Creates the self-pipe, unblocks the signals, saves the tty settings and installs the
    /// handlers for the terminating signals, job control and crashes. Call before curses
    /// starts, so that ncurses leaves SIGINT, SIGTERM and SIGTSTP to us (its own SIGTSTP handler
    /// calls curses from the signal handler, which crashed when a signal arrived meanwhile).
    init() throws(CursesTerminalError) {
        (descriptor, writeDescriptor) = try makeWakePipe()

        // Initialise every global a handler reads, before any handler exists.
        firstSignal.store(0, ordering: .sequentiallyConsistent)
        terminalIsTaken.store(false, ordering: .sequentiallyConsistent)
        suspendRequested.store(false, ordering: .sequentiallyConsistent)
        continuedSinceLastLook.store(false, ordering: .sequentiallyConsistent)
        previousResizeHandler.store(0, ordering: .sequentiallyConsistent)
        previousResizeHandlerTakesInfo.store(false, ordering: .sequentiallyConsistent)
        resetSequenceLength.store(0, ordering: .sequentiallyConsistent)
        hasSavedSettings.store(tcgetattr(STDIN_FILENO, savedSettings) == 0, ordering: .sequentiallyConsistent)
        notificationDescriptor.store(writeDescriptor, ordering: .sequentiallyConsistent)

        // A process started from a libdispatch thread inherits a mask that blocks nearly every
        // signal; Ctrl-C, kill and resizes must get through.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in Self.terminatingSignals + Self.jobControlSignals + [SIGWINCH] { sigaddset(&unblocked, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)

        for signal in Self.terminatingSignals { install(handleTerminatingSignal, for: signal) }
        var stopAction = sigaction()
        sigaction(SIGTSTP, nil, &stopAction)
        if unsafeBitCast(stopAction.__sigaction_handler.sa_handler, to: Int.self) != 1 {  // not SIG_IGN
            install(handleStopSignal, for: SIGTSTP)
            handlesStopSignal = true
        }
        install(handleContinueSignal, for: SIGCONT)
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

    /// Sets `handler` for `signal`, remembering the previous disposition. No SA_RESTART: a
    /// blocking call returns EINTR, and the run loop looks at the flags.
    private func install(_ handler: @convention(c) (Int32) -> Void, for signal: Int32) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        sigaction(signal, &action, &previous)
        previousActions[signal] = previous
    }

    /// Whether curses has the terminal now (see `terminalIsTaken`).
    var isTerminalTaken: Bool {
        get { terminalIsTaken.load(ordering: .sequentiallyConsistent) }
        set { terminalIsTaken.store(newValue, ordering: .sequentiallyConsistent) }
    }

    /// Takes a pending Ctrl-Z request, if any: the caller hands the terminal back, then calls
    /// ``stopProcess()``.
    func takeSuspendRequest() -> Bool {
        suspendRequested.exchange(false, ordering: .sequentiallyConsistent)
    }

    /// Whether the process was continued since the last call.
    func takeContinued() -> Bool {
        continuedSinceLastLook.exchange(false, ordering: .sequentiallyConsistent)
    }

    /// Stops the process the way Ctrl-Z does without a handler (so the shell reports the job as
    /// stopped, and `fg` continues it); returns once it is continued. Call after handing the
    /// terminal back. Does nothing when Ctrl-Z is not ours (ignored on entry).
    func stopProcess() {
        guard isInstalled, handlesStopSignal else { return }
        var defaultAction = sigaction()
        defaultAction.__sigaction_handler.sa_handler = nil  // SIG_DFL
        sigemptyset(&defaultAction.sa_mask)
        var ours = sigaction()
        sigaction(SIGTSTP, &defaultAction, &ours)
        var stopOnly = sigset_t()
        sigemptyset(&stopOnly)
        sigaddset(&stopOnly, SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &stopOnly, nil)
        // Sent to this thread and not blocked, so delivered before raise returns: the whole
        // process stops there. (In an orphaned process group the kernel discards it instead.)
        raise(SIGTSTP)
        sigaction(SIGTSTP, &ours, nil)
    }

    /// Chains our SIGWINCH handler after the one ncurses installed in `newterm`: call once
    /// curses has started.
    func chainResizeHandler() {
        var current = sigaction()
        sigaction(SIGWINCH, nil, &current)
        let takesInfo = current.sa_flags & SA_SIGINFO != 0
        let bits =
            takesInfo
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

    /// Remembers the terminal's reset strings (leave the alternate screen, or clear the screen
    /// when there is none, show the cursor, reset attributes, leave keypad mode) for the
    /// emergency exit and crashes. Call once curses has started.
    func saveResetSequence(clearScreen: [UInt8]) {
        var bytes: [UInt8] = []
        for capability in ["rmcup", "cnorm", "sgr0", "rmkx"] {
            if let value = shim_terminfo_string(capability) {
                bytes += Array(String(cString: value).utf8)
            }
        }
        bytes += clearScreen
        let count = min(bytes.count, resetSequenceCapacity)
        for index in 0..<count { resetSequence[index] = bytes[index] }
        resetSequenceLength.store(count, ordering: .sequentiallyConsistent)
    }

    /// The first terminating signal received, if any.
    var receivedSignal: Int32? {
        let signal = firstSignal.load(ordering: .sequentiallyConsistent)
        return signal == 0 ? nil : signal
    }

    /// Makes the self-pipe readable, so that the run loop reads the keyboard once more: after
    /// a stop, the first draw notices a size change made meanwhile, and curses queues the
    /// resize as a key.
    func wakeRunLoop() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
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
        terminalIsTaken.store(false, ordering: .sequentiallyConsistent)
    }
}
