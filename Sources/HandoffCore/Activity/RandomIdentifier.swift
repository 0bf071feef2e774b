import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Random version-4 UUIDs for identifiers that must never collide (activities, continuations,
/// account and device identities), read from the kernel with `getentropy(3)` (the `getrandom(2)` system call).
///
/// Foundation's `UUID()` on Linux reads `/dev/urandom` through a file descriptor; in a process
/// that has run out of descriptors (a peer holding hundreds of connections open) it silently
/// returned `00000000-0000-4000-8000-000000000000` for every call. `getrandom` needs no
/// descriptor. Should the kernel refuse randomness anyway, the process stops with a message
/// saying so, never handing out a predictable identifier.
///
/// The kernel's bytes are taken 4 KiB at a time and handed out 16 at a time: a system call per
/// identifier was several microseconds of every offer and continuation (a new activity and a new
/// continuation each take one). The bytes are the kernel's all the same, and identifiers are not
/// secrets (they travel in beacons and requests). The program never forks without `exec`, so no
/// two processes share the pool.
public enum RandomIdentifier {
    /// Random bytes read ahead, and how many of them were handed out.
    private struct Pool {
        static let size = 4096
        var bytes = [UInt8](repeating: 0, count: size)
        var used = size

        mutating func take() -> uuid_t {
            if used + 16 > bytes.count {
                do {
                    try RandomIdentifier.fill(&bytes)
                } catch {
                    fatalError("handoff: no randomness for a new identifier: \(error)")
                }
                used = 0
            }
            defer { used += 16 }
            return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: used, as: uuid_t.self) }
        }
    }

    private static let pool = Mutex(Pool())

    /// A fresh random UUID (RFC 4122 version 4).
    public static func uuid() -> UUID {
        var uuid = pool.withLock { $0.take() }
        uuid.6 = (uuid.6 & 0x0F) | 0x40
        uuid.8 = (uuid.8 & 0x3F) | 0x80
        return UUID(uuid: uuid)
    }

    /// Why the kernel gave no random bytes.
    public struct Unavailable: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Fills `bytes` with random bytes from the kernel, or throws ``Unavailable``. A result of
    /// all zero bytes (never seen from a working kernel) counts as a failure too.
    public static func fill(_ bytes: inout [UInt8]) throws(Unavailable) {
        #if os(Linux)
        // getentropy(3) is the getrandom(2) system call, at most 256 bytes at a time.
        var offset = 0
        while offset < bytes.count {
            let count = min(256, bytes.count - offset)
            let status = bytes.withUnsafeMutableBytes { getentropy($0.baseAddress! + offset, count) }
            guard status == 0 else {
                throw Unavailable(description: "getentropy failed: \(String(cString: strerror(errno)))")
            }
            offset += count
        }
        #else
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        #endif
        if bytes.count >= 8, bytes.allSatisfy({ $0 == 0 }) {
            throw Unavailable(description: "the kernel returned only zero bytes")
        }
    }
}
