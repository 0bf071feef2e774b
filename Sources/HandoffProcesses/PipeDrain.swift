import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads `handle` to its end on a thread of its own and hands each chunk to `sink`, in order.
///
/// This replaces `FileHandle.readabilityHandler` for a child process's pipes. On Linux that
/// handler arms a libdispatch read source, and tearing such sources down while others are armed
/// can leave libdispatch's epoll bookkeeping pointing at freed memory: the process then crashes in
/// `_dispatch_event_loop_drain` (swift-corelibs-libdispatch#949, swift-corelibs-foundation#3276).
/// A blocking read registers nothing with libdispatch, and the thread keeps `handle` (and so its
/// descriptor) alive until the read returns end of file, so the descriptor is never closed under
/// a read either. The loop ends when every writer has closed the pipe: for a child's standard
/// output, when the child and anything it started have exited.
/// `atEnd` runs after the last chunk.
package func drainOnOwnThread(
    _ handle: FileHandle, named name: String, atEnd: (@Sendable () -> Void)? = nil,
    into sink: @escaping @Sendable (Data) -> Void
) {
    let thread = Thread {
        // Named from inside, so that the system has the name too (`/proc/self/task/*/comm`,
        // debuggers), cut to the 15 bytes it takes: set from outside before `start()`, or
        // longer, Foundation keeps it to itself.
        Thread.current.name = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        let descriptor = handle.fileDescriptor
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                sink(Data(chunk[..<count]))
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        withExtendedLifetime(handle) {}
        atEnd?()
    }
    thread.start()
}
