import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Tells whether anything in the account file's folder may have changed since the last look,
/// without a `stat` of the file: the kernel queues an inotify event during the very `rename`,
/// `write` or `unlink` that changes it, so a look after a revocation returned always sees it.
///
/// Every watch of the process shares one inotify instance (``FolderWatches``): the kernel allows
/// a user 128 instances (`fs.inotify.max_user_instances`), which a bench of hundreds of devices,
/// or a test process running many devices beside other processes of the same user, used up, one
/// per device. A look drains the instance's queue and compares the folder's count of events with
/// the count this watch last saw. When the watch cannot be set up, or the kernel drops it or
/// overflows the queue, every look says so from then on, and the caller examines the file as
/// before.
final class AccountFileWatch: Sendable {
    private let folder: Int32
    /// The folder's event count at this watch's last look.
    private let seen: Mutex<UInt64>

    /// Watches `folder`; nil when inotify is not available (then the caller always examines).
    init?(folder: String) {
        guard let (descriptor, count) = FolderWatches.shared.watch(folder) else { return nil }
        self.folder = descriptor
        seen = Mutex(count)
    }

    enum Look: Equatable {
        case unchanged
        case maybeChanged
        /// The watch ended (its folder went away, or the queue overflowed): look at the file
        /// itself from now on.
        case watchEnded
    }

    /// What the events queued since this watch's last look say.
    func look() -> Look {
        guard let count = FolderWatches.shared.eventCount(of: folder) else { return .watchEnded }
        return seen.withLock { seen in
            defer { seen = count }
            return count == seen ? .unchanged : .maybeChanged
        }
    }
}

/// The process's one inotify instance and what it has seen of each folder watched: a count of
/// events per watch descriptor, and which watches ended.
final class FolderWatches: Sendable {
    static let shared = FolderWatches()

    private struct State {
        /// The instance (opened at the first watch; -1 when it could not be).
        var descriptor: Int32?
        var counts: [Int32: UInt64] = [:]
        var ended: Set<Int32> = []
        /// The queue overflowed: no watch can be trusted any more.
        var overflowed = false
    }

    private let state = Mutex(State())

    private static let events =
        UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM) | UInt32(IN_CREATE)
        | UInt32(IN_DELETE) | UInt32(IN_MODIFY) | UInt32(IN_ATTRIB) | UInt32(IN_DELETE_SELF)
        | UInt32(IN_MOVE_SELF)

    /// Watches `folder` (the same descriptor for a folder already watched); its descriptor and
    /// its event count now, or nil when it cannot be watched.
    func watch(_ folder: String) -> (Int32, UInt64)? {
        state.withLock { state in
            if state.descriptor == nil { state.descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
            guard let descriptor = state.descriptor, descriptor >= 0, !state.overflowed else { return nil }
            Self.drain(descriptor, into: &state)
            let watch = inotify_add_watch(descriptor, folder, Self.events)
            // A folder removed and made again gets a new descriptor (the kernel hands them out
            // in increasing order); one that ended is never trusted again.
            guard watch >= 0, !state.ended.contains(watch) else { return nil }
            return (watch, state.counts[watch, default: 0])
        }
    }

    /// The events seen so far in `folder` (its watch descriptor), the queue drained first; nil
    /// once its watch ended.
    func eventCount(of folder: Int32) -> UInt64? {
        state.withLock { state in
            guard let descriptor = state.descriptor, descriptor >= 0 else { return nil }
            Self.drain(descriptor, into: &state)
            guard !state.overflowed, !state.ended.contains(folder) else { return nil }
            return state.counts[folder, default: 0]
        }
    }

    /// Reads every event queued (a non-blocking `read` that usually finds none) and counts it.
    private static func drain(_ descriptor: Int32, into state: inout State) {
        // Room for many events at once; each is 16 bytes and a name of up to NAME_MAX + 1.
        let capacity = 16 * (16 + Int(NAME_MAX) + 1)
        withUnsafeTemporaryAllocation(byteCount: capacity, alignment: 8) { buffer in
            while true {
                let count = read(descriptor, buffer.baseAddress, capacity)
                if count < 0 {
                    if errno == EINTR { continue }
                    // EAGAIN: nothing more is queued. Anything else: no watch can be trusted.
                    if errno != EAGAIN && errno != EWOULDBLOCK { state.overflowed = true }
                    return
                }
                if count == 0 {
                    state.overflowed = true
                    return
                }
                var offset = 0
                while offset + 16 <= count {
                    let watch = buffer.load(fromByteOffset: offset, as: Int32.self)
                    let mask = buffer.load(fromByteOffset: offset + 4, as: UInt32.self)
                    let nameLength = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 { state.overflowed = true }
                    let ends =
                        UInt32(IN_IGNORED) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_UNMOUNT)
                    if mask & ends != 0 { state.ended.insert(watch) }
                    state.counts[watch, default: 0] &+= 1
                    offset += 16 + nameLength
                }
            }
        }
    }
}
