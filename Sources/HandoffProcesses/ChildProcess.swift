import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for the drivers that start devices, servers and
/// tools (the tests, `handoff scenario`, `handoff soak`).
///
/// Not Foundation's `Process`: on this toolchain (Swift 6.3.1) its `run()` scans `/proc/self/fd`
/// by copying each directory entry's whole 256-byte name field, past the end of the record, and
/// when the record ends a mapped page the copy faults (swift-corelibs-foundation#5472, fixed
/// after 6.3.1). Spawning children from several threads at once made the test process crash
/// there: `HeadlessProcessTests` with 1,600 children from 16 threads crashed in 5 of 50 runs
/// with `Process`, in none of 25 with this.
///
/// What it keeps of `Process`: the child gets a process group of its own (a terminal's Ctrl-C
/// reaches the driver, which then ends its children), and the descriptors it is given as 0, 1
/// and 2 only: every other descriptor of this process stays here (SwiftNIO's sockets lack
/// close-on-exec). It also starts as a shell would start it: no signal blocked, whatever the
/// spawning thread blocks, and every signal's default action (this process ignores SIGPIPE).
package final class ChildProcess: Sendable {
    /// Where a standard stream of the child goes.
    package enum Stream: Sendable {
        /// `/dev/null`.
        case nullDevice
        /// A pipe to or from this process: see ``standardInput``, ``standardOutput`` and
        /// ``standardError``.
        case pipe
        /// The same descriptor as standard output (for standard error).
        case standardOutput
        /// A file, created or truncated (for standard output or error).
        case file(String)
        /// This process's own.
        case inherit
    }

    /// How a child ended.
    package enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// The exit code, or the signal's number, as Foundation's `terminationStatus` gives it.
        package var status: Int32 {
            switch self {
            case .exited(let code), .signalled(let code): code
            }
        }

        package var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    package struct SpawnError: Error, CustomStringConvertible {
        package let executable: String
        package let reason: String
        /// The system's error number when `posix_spawn` itself failed (such as ETXTBSY).
        package var errorNumber: Int32?
        package var description: String { "cannot start \(executable): \(reason)" }
    }

    package let processIdentifier: pid_t
    /// The write end of the child's standard input, when it is ``Stream/pipe``.
    package let standardInput: FileHandle?
    /// The read end of the child's standard output, when it is ``Stream/pipe``.
    package let standardOutput: FileHandle?
    /// The read end of the child's standard error, when it is ``Stream/pipe``.
    package let standardError: FileHandle?
    private let ending: Ending

    /// Starts `executable` with `arguments` and `environment` (this process's when nil), in
    /// `currentDirectory` (this process's when nil).
    package init(
        executable: String, arguments: [String], environment: [String: String]? = nil,
        currentDirectory: String? = nil,
        standardInput input: Stream = .nullDevice, standardOutput output: Stream = .nullDevice,
        standardError errors: Stream = .nullDevice
    ) throws(SpawnError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Both ends close on exec (another child never keeps them open; every spawn here also
        // closes what it does not map), and dup2 gives this child its copy without the flag.
        var parentEnds: [Int32: Int32] = [:]  // child's descriptor → this process's end
        var childEnds: [Int32] = []
        func pipeEnds() throws(SpawnError) -> (read: Int32, write: Int32) {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else {
                throw SpawnError(executable: executable, reason: "pipe: \(String(cString: strerror(errno)))")
            }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            return (ends[0], ends[1])
        }
        let closeAll = { (descriptors: [Int32]) in for descriptor in descriptors { close(descriptor) } }
        do {
            for (target, stream) in [(Int32(0), input), (1, output), (2, errors)] {
                switch stream {
                case .nullDevice:
                    posix_spawn_file_actions_addopen(
                        &actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
                case .pipe:
                    let ends = try pipeEnds()
                    let (mine, theirs) = target == 0 ? (ends.write, ends.read) : (ends.read, ends.write)
                    parentEnds[target] = mine
                    childEnds.append(theirs)
                    posix_spawn_file_actions_adddup2(&actions, theirs, target)
                case .standardOutput:
                    posix_spawn_file_actions_adddup2(&actions, 1, target)
                case .file(let path):
                    posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                case .inherit:
                    break
                }
            }
        } catch {
            closeAll(Array(parentEnds.values) + childEnds)
            throw error
        }
        closeInheritedDescriptors(&actions)
        if let currentDirectory, !changeDirectory(&actions, to: currentDirectory) {
            closeAll(Array(parentEnds.values) + childEnds)
            throw SpawnError(
                executable: executable, reason: "this C library cannot start a child in \(currentDirectory)")
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in 1..<32 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, Int32(signal)) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let variables = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        closeAll(childEnds)
        guard spawned == 0 else {
            closeAll(Array(parentEnds.values))
            throw SpawnError(executable: executable, reason: String(cString: strerror(spawned)), errorNumber: spawned)
        }
        processIdentifier = pid
        standardInput = parentEnds[0].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardOutput = parentEnds[1].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardError = parentEnds[2].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        ending = Ending()
        // Reaped by a thread of its own, which waits for this child alone.
        let ending = self.ending
        let child = pid
        let reaper = Thread {
            Thread.current.name = "reaper \(child)"  // from inside: see drainOnOwnThread
            // Wait without reaping, then reap under the lock that `send` takes: the child's
            // number is never free while a signal may still be sent to it.
            var info = siginfo_t()
            while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            ending.finish {
                var status: Int32 = 0
                var result: pid_t
                repeat { result = waitpid(child, &status, 0) } while result < 0 && errno == EINTR
                // ECHILD: someone else reaped it; it has ended, how is unknown.
                guard result >= 0 else { return .exited(-1) }
                return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
            }
        }
        reaper.start()
    }

    /// Whether the child has not yet been seen to end.
    package var isRunning: Bool { ending.termination == nil }

    /// How the child ended, or nil while it runs.
    package var termination: Termination? { ending.termination }

    /// Waits until the child ends or `timeout` passes; how it ended, or nil on timeout.
    @discardableResult
    package func waitForExit(timeout: TimeInterval? = nil) -> Termination? {
        ending.wait(until: timeout.map { Date().addingTimeInterval($0) })
    }

    /// Sends `signal` to the child, unless it has already ended (its number may since belong to
    /// another process).
    package func send(_ signal: Int32) {
        ending.whileRunning { kill(processIdentifier, signal) }
    }

    /// Asks the child to stop (SIGTERM).
    package func terminate() { send(SIGTERM) }

    /// Runs a program to its end, its standard output and error read together; how it ended
    /// and what it wrote.
    package static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        standardInput: Data? = nil
    ) throws(SpawnError) -> (termination: Termination, output: String) {
        let child = try ChildProcess(
            executable: executable, arguments: arguments, environment: environment,
            standardInput: standardInput == nil ? .nullDevice : .pipe,
            standardOutput: .pipe, standardError: .standardOutput)
        let collected = Mutex(Data())
        let done = DispatchSemaphore(value: 0)
        drainOnOwnThread(child.standardOutput!, named: "\(executable) output", atEnd: { done.signal() }) { data in
            collected.withLock { $0.append(data) }
        }
        if let standardInput, let handle = child.standardInput {
            try? handle.write(contentsOf: standardInput)
            try? handle.close()
        }
        done.wait()
        let termination = child.waitForExit()!
        return (termination, collected.withLock { String(decoding: $0, as: UTF8.self) })
    }

    /// The child's end, set once by its reaper.
    private final class Ending: Sendable {
        private let condition = NSCondition()
        private let state = Mutex<Termination?>(nil)

        var termination: Termination? { state.withLock { $0 } }

        func finish(_ reap: () -> Termination) {
            condition.lock()
            let termination = reap()
            state.withLock { $0 = termination }
            condition.broadcast()
            condition.unlock()
        }

        func wait(until deadline: Date?) -> Termination? {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let termination { return termination }
                if let deadline {
                    if !condition.wait(until: deadline) { return termination }
                } else {
                    condition.wait()
                }
            }
        }

        /// Runs `body` only while the child has not been reaped, so that it never acts on a
        /// number the system has handed to another process.
        func whileRunning(_ body: () -> Void) {
            condition.lock()
            defer { condition.unlock() }
            if termination == nil { body() }
        }
    }
}
