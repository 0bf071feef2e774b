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
        let (fd, port) = try DiscoverySocket.openUDPSocket(
            bindHost: bindHost, port: 0, options: [SO_BROADCAST], receiveBufferBytes: receiveBufferBytes)
        return (BeaconReplySocket(descriptor: fd, port: port), fd)
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
