import Foundation
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TLS key log (NSS key log format, the `SSLKEYLOGFILE` convention): every session's secrets
/// appended as NIOSSL hands them over (`TLSConfiguration.keyLogCallback`), one line each, so that
/// Wireshark or tshark can decrypt a capture of the sessions (docs/wire.md, "Looking at the wire").
///
/// A teaching and debugging aid that **weakens secrecy**: whoever reads the file can read every
/// session it covers. Opt-in only: `handoff device` opens one when `SSLKEYLOGFILE` is set for
/// its process; the library never reads the environment, so tests pass a file explicitly.
/// Several devices may share one file: each line is written with one `write(2)` on an
/// `O_APPEND` descriptor while holding an exclusive `flock`, so lines never interleave. The file
/// is created readable by its owner only (0600).
package final class KeyLogFile: Sendable {
    package let path: String
    /// The open descriptor; writes hold the lock, so this process's threads take turns too.
    private let descriptor: Mutex<Int32>

    /// Opens `path` for appending, creating it with mode 0600.
    package init(path: String) throws(KeyLogError) {
        guard !path.isEmpty else { throw KeyLogError(path: path, reason: "the path is empty") }
        let opened = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard opened >= 0 else { throw KeyLogError(path: path, reason: String(cString: strerror(errno))) }
        self.path = path
        descriptor = Mutex(opened)
    }

    deinit {
        _ = descriptor.withLock { close($0) }
    }

    /// Appends one key log line (NIOSSL gives it with its newline; one is added if missing).
    package func append(_ line: ByteBuffer) {
        var bytes = Array(line.readableBytesView)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        descriptor.withLock { fd in
            _ = flock(fd, LOCK_EX)
            defer { _ = flock(fd, LOCK_UN) }
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }

    /// What a device says on its log (and a headless device on standard error) while it writes
    /// a key log.
    package var warning: String {
        "SSLKEYLOGFILE is set: this device appends its TLS session secrets to \(path); "
            + "anyone who can read that file can decrypt its sessions (secrecy is weakened; for teaching and debugging only)"
    }
}

/// The key log file could not be opened.
package struct KeyLogError: Error, Sendable, Hashable, CustomStringConvertible {
    package var path: String
    package var reason: String
    package var description: String { "cannot open the TLS key log \(path): \(reason)" }
}
