import Foundation
import Glibc

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
/// module does not declare.
private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

private let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
    .map { unsafeBitCast($0, to: AddCloseFrom.self) }

/// Makes a spawned child start with only the descriptors its actions give it (0, 1 and 2):
/// `posix_spawn` otherwise hands it every descriptor of this process that lacks close-on-exec,
/// and SwiftNIO's sockets lack it. A child that outlives the call (tmux's server does) would
/// then hold, say, the listening socket of a server this process has since stopped, and that
/// port would go on accepting connections that nobody answers.
package func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    if let addCloseFrom {
        _ = addCloseFrom(&actions, 3)
        return
    }
    // An older C library: close each descriptor open now (one opened by another thread in the
    // meantime may still be inherited).
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for descriptor in open.compactMap(Int32.init) where descriptor > 2 && fcntl(descriptor, F_GETFD) >= 0 {
        posix_spawn_file_actions_addclose(&actions, descriptor)
    }
}

/// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), likewise undeclared.
private typealias AddChdir =
    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

private let addChdir: AddChdir? = dlsym(nil, "posix_spawn_file_actions_addchdir_np")
    .map { unsafeBitCast($0, to: AddChdir.self) }

/// Makes a spawned child start in `directory`; false when the C library cannot.
func changeDirectory(_ actions: inout posix_spawn_file_actions_t, to directory: String) -> Bool {
    guard let addChdir else { return false }
    return addChdir(&actions, directory) == 0
}

/// Replaces this process with `executable` started as a shell would start it, as
/// ``ChildProcess`` starts its children: no signal blocked (the calling thread's mask is what
/// an exec keeps, and a thread of Swift's concurrency pool blocks nearly every signal), every
/// signal's default action (an ignored signal stays ignored across exec; this process ignores
/// SIGPIPE), and no descriptor but 0, 1 and 2 (SwiftNIO's sockets lack close-on-exec). Returns
/// only when the exec failed, with its `errno`.
///
/// `handoff demo` runs tmux so: a tmux server started from a blocked mask kept SIGHUP, SIGTERM,
/// SIGCHLD and SIGWINCH blocked in every pane, so a resize never reached the devices and ending
/// the session left its processes running.
package func replaceProcess(executable: String, arguments: [String]) -> Int32 {
    for signal in 1..<32 where signal != SIGKILL && signal != SIGSTOP {
        Glibc.signal(Int32(signal), SIG_DFL)
    }
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
        let flags = fcntl(descriptor, F_GETFD)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
    }
    var empty = sigset_t()
    sigemptyset(&empty)
    pthread_sigmask(SIG_SETMASK, &empty, nil)
    let argv = arguments.map { strdup($0) } + [nil]
    execv(executable, argv)
    let failure = errno
    for pointer in argv { free(pointer) }
    return failure
}
