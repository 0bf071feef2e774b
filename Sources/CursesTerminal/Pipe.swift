import Glibc

/// A pipe whose ends are non-blocking and closed on exec: the run loop's wake-up channels.
/// Returns (read end, write end).
func makeWakePipe() throws(CursesTerminalError) -> (Int32, Int32) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { throw .systemCallFailed("pipe", errno) }
    for end in ends {
        _ = fcntl(end, F_SETFD, fcntl(end, F_GETFD) | FD_CLOEXEC)
        _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    return (ends[0], ends[1])
}
