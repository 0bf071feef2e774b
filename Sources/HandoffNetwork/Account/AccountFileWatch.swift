#if canImport(Glibc)
import Glibc
#endif

/// Tells whether anything in the account file's folder may have changed since the last look,
/// without a `stat` of the file: the kernel queues an inotify event during the very `rename`,
/// `write` or `unlink` that changes it, so a look after a revocation returned always sees it.
///
/// A look reads the events queued so far (a non-blocking `read` that usually finds none). When
/// the watch cannot be set up, or the kernel drops it or overflows its queue, every look says
/// "maybe changed" from then on, and the caller examines the file as before.
final class AccountFileWatch: Sendable {
    private let descriptor: Int32

    /// Watches `folder`; nil when inotify is not available (then the caller always examines).
    init?(folder: String) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let events =
            UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM) | UInt32(IN_CREATE)
            | UInt32(IN_DELETE) | UInt32(IN_MODIFY) | UInt32(IN_ATTRIB) | UInt32(IN_DELETE_SELF)
            | UInt32(IN_MOVE_SELF)
        guard inotify_add_watch(descriptor, folder, events) >= 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// What the events queued since the last look say. Call it from one thread at a time (the
    /// caller's lock), so that the events one look drains are acted on before the next look.
    enum Look: Equatable {
        case unchanged
        case maybeChanged
        /// The watch ended (its folder went away, or the queue overflowed): look at the file
        /// itself from now on.
        case watchEnded
    }

    func look() -> Look {
        var result = Look.unchanged
        // Room for many events at once; each is 16 bytes and a name of up to NAME_MAX + 1.
        let capacity = 16 * (16 + Int(NAME_MAX) + 1)
        return withUnsafeTemporaryAllocation(byteCount: capacity, alignment: 8) { buffer in
            while true {
                let count = read(descriptor, buffer.baseAddress, capacity)
                if count < 0 {
                    if errno == EINTR { continue }
                    // EAGAIN: nothing more is queued. Anything else: the watch cannot be trusted.
                    return errno == EAGAIN || errno == EWOULDBLOCK ? result : .watchEnded
                }
                if count == 0 { return .watchEnded }
                var offset = 0
                while offset + 16 <= count {
                    let mask = buffer.load(fromByteOffset: offset + 4, as: UInt32.self)
                    let nameLength = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                    let ends =
                        UInt32(IN_IGNORED) | UInt32(IN_Q_OVERFLOW) | UInt32(IN_DELETE_SELF)
                        | UInt32(IN_MOVE_SELF) | UInt32(IN_UNMOUNT)
                    if mask & ends != 0 { return .watchEnded }
                    result = .maybeChanged
                    offset += 16 + nameLength
                }
            }
        }
    }
}
