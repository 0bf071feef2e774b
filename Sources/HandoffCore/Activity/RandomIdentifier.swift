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
    private static let pool = Mutex(RandomBytePool())

    /// A fresh random UUID (RFC 4122 version 4).
    public static func uuid() -> UUID {
        var uuid = pool.withLock { $0.take(16) { $0.loadUnaligned(as: uuid_t.self) } }
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

/// The kernel's random bytes, read 4 KiB at a time (``RandomIdentifier/fill(_:)``) and handed out
/// a few at a time, for values that must never collide: identifiers here and beacon nonces in
/// HandoffNetwork (no secrets: they travel in clear), and in a pool of their own the stream
/// tokens (``Device``'s, secrets sent inside the TLS session). Keep one in a `Mutex`. Should the kernel
/// refuse randomness, the process stops with a message saying so, never handing out predictable
/// bytes.
public struct RandomBytePool: Sendable {
    private static let size = 4096
    private var bytes = [UInt8](repeating: 0, count: size)
    private var used = size

    public init() {}

    /// `body` with the next `count` bytes (at most 4096), never handed out again.
    public mutating func take<Result>(_ count: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        precondition(count <= Self.size, "a random byte pool hands out at most \(Self.size) bytes at a time")
        if used + count > bytes.count {
            do {
                try RandomIdentifier.fill(&bytes)
            } catch {
                fatalError("handoff: no randomness: \(error)")
            }
            used = 0
        }
        defer { used += count }
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[used..<used + count])) }
    }
}
