import Foundation
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A device's own UDP socket on an ephemeral port, next to the shared discovery socket.
///
/// Beacons to the loopback broadcast address leave through it, written with `sendto` on the
/// calling thread (the device's queue): a beacon costs no hop to an event loop, and the event
/// loop is not woken to send it. Because its port is this device's alone, a peer can answer a
/// newcomer with a beacon sent to this address only (a unicast reply), where a reply to the
/// shared discovery port would reach whichever device's socket the kernel picks. The socket is
/// also read (by an event loop, through NIO, with the same checks as the discovery socket) for
/// those replies.
///
/// The descriptor belongs to the NIO channel that reads it, which closes it; ``markClosed()``
/// must come first, so that no `sendto` ever reaches a descriptor number the process reused.
final class BeaconReplySocket: Sendable {
    private let descriptor: Mutex<CInt?>
    /// The ephemeral port this socket is bound to.
    let port: Int

    private init(descriptor: CInt, port: Int) {
        self.descriptor = Mutex(descriptor)
        self.port = port
    }

    /// Opens a non-blocking IPv4 UDP socket with SO_BROADCAST on `bindHost`:0. Returns it and its
    /// descriptor (hand that to NIO to read it).
    static func open(bindHost: String, receiveBufferBytes: Int) throws -> (BeaconReplySocket, CInt) {
        let fd = socket(
            AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BeaconSocketError("socket", errno) }
        do {
            var on: CInt = 1
            guard setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &on, socklen_t(MemoryLayout<CInt>.size)) == 0 else {
                throw BeaconSocketError("SO_BROADCAST", errno)
            }
            setReceiveBuffer(fd, bytes: receiveBufferBytes)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            guard inet_pton(AF_INET, bindHost, &address.sin_addr) == 1 else {
                throw BeaconSocketError("bind address \(bindHost) is not IPv4", EINVAL)
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw BeaconSocketError("bind \(bindHost):0", errno) }
            var local = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0 else { throw BeaconSocketError("getsockname", errno) }
            return (BeaconReplySocket(descriptor: fd, port: Int(UInt16(bigEndian: local.sin_port))), fd)
        } catch {
            close(fd)
            throw error
        }
    }

    /// Sends one datagram without blocking; false if the kernel refused it (full send buffer,
    /// no route) or the socket is closed.
    func send(_ bytes: [UInt8], to destination: SocketAddress) -> Bool {
        descriptor.withLock { fd in
            guard let fd else { return false }
            let sent: Int
            switch destination {
            case .v4(let address):
                var raw = address.address
                sent = withUnsafePointer(to: &raw) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                        bytes.withUnsafeBytes {
                            Glibc.sendto(
                                fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT), target,
                                socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
            default:
                return false
            }
            return sent == bytes.count
        }
    }

    /// No more sends: the NIO channel may close the descriptor now.
    func markClosed() {
        descriptor.withLock { $0 = nil }
    }

    /// Asks for a receive buffer of `bytes` (the kernel doubles it for its bookkeeping and caps
    /// it at net.core.rmem_max). With hundreds of devices started at once on one machine, each
    /// discovery socket receives a burst of hundreds of beacons at once: with the default
    /// (about 208 KiB, some 200 datagrams of this size once the kernel's overhead is counted),
    /// most of a burst was dropped (docs/bench.md, "Discovery at scale").
    static func setReceiveBuffer(_ fd: CInt, bytes: Int) {
        var size = CInt(clamping: bytes)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<CInt>.size))
    }
}

/// A system call on a beacon socket failed.
struct BeaconSocketError: Error, CustomStringConvertible {
    var description: String
    init(_ what: String, _ code: Int32) {
        description = "beacon socket: \(what) failed: \(String(cString: strerror(code)))"
    }
}
