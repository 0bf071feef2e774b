import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// The shared discovery socket, opened here rather than by NIO so that a socket filter can be
/// attached before it is bound: ``open(bindHost:port:receiveBufferBytes:ownReplyPort:)``.
///
/// Every device on the machine binds the discovery port (SO_REUSEADDR, SO_REUSEPORT), and a
/// beacon sent to 127.255.255.255 is delivered to each of them: to the sender's own discovery
/// socket too. Without a filter that copy woke the sender's event loop, which opened the beacon
/// (AES-GCM) only to find its own device ID inside and drop it, on a core the receiving peer
/// needed at that very moment. The filter drops, in the kernel and before anything is queued or
/// woken, a datagram that comes from 127.0.0.0/8 and from this device's own reply socket's port:
/// on one host that port is this device's alone, so nothing else can match it.
package enum DiscoverySocket {
    /// Opens a non-blocking IPv4 UDP socket with SO_REUSEADDR, SO_REUSEPORT, SO_BROADCAST and the
    /// receive buffer asked for, with the own-broadcast filter when `ownReplyPort` is given, and
    /// binds it to `bindHost:port`. Returns the descriptor (to be handed to NIO, which owns it
    /// from then on). A port another program holds without sharing it throws
    /// `IOError(errnoCode: EADDRINUSE)`, as NIO's own bind does.
    package static func open(bindHost: String, port: Int, receiveBufferBytes: Int, ownReplyPort: Int?) throws -> CInt {
        try openUDPSocket(
            bindHost: bindHost, port: port, options: [SO_REUSEADDR, SO_REUSEPORT, SO_BROADCAST],
            receiveBufferBytes: receiveBufferBytes,
            filter: ownReplyPort.flatMap(UInt16.init(exactly:)).map(OwnBroadcastFilter.init(replyPort:))
        ).descriptor
    }

    /// Opens a non-blocking IPv4 UDP socket with the SOL_SOCKET `options` turned on, the receive
    /// buffer asked for and `filter` attached, bound to `bindHost:port` (0: any free port); returns
    /// its descriptor and the port bound. The discovery socket and each device's own socket
    /// (``BeaconReplySocket``) are opened here. Failures throw `IOError` naming the call.
    package static func openUDPSocket(
        bindHost: String, port: Int, options: [Int32], receiveBufferBytes: Int, filter: OwnBroadcastFilter? = nil
    ) throws -> (descriptor: CInt, port: Int) {
        guard let portNumber = UInt16(exactly: port) else {
            throw IOError(errnoCode: EINVAL, reason: "port \(port) is not a port number")
        }
        let fd = socket(
            AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        do {
            for option in options {
                var on: CInt = 1
                guard setsockopt(fd, SOL_SOCKET, option, &on, socklen_t(MemoryLayout<CInt>.size)) == 0 else {
                    throw IOError(errnoCode: errno, reason: "setsockopt(SOL_SOCKET, \(option))")
                }
            }
            BeaconReplySocket.setReceiveBuffer(fd, bytes: receiveBufferBytes)
            try filter?.attach(to: fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = portNumber.bigEndian
            guard inet_pton(AF_INET, bindHost, &address.sin_addr) == 1 else {
                throw IOError(errnoCode: EINVAL, reason: "bind address \(bindHost) is not IPv4")
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw IOError(errnoCode: errno, reason: "bind(\(bindHost):\(port))") }
            var local = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0 else { throw IOError(errnoCode: errno, reason: "getsockname") }
            return (fd, Int(UInt16(bigEndian: local.sin_port)))
        } catch {
            close(fd)
            throw error
        }
    }
}

/// A classic BPF socket filter (SO_ATTACH_FILTER) that drops the datagrams this device sent
/// itself from its reply socket: UDP source port `replyPort` and IPv4 source in 127.0.0.0/8.
/// Everything else is accepted whole.
///
/// A UDP socket's filter sees the datagram from its UDP header on (offset 0 is the source port);
/// the IP header is reached through the kernel's `SKF_NET_OFF` base.
package struct OwnBroadcastFilter: Sendable, Hashable {
    var replyPort: UInt16

    /// One instruction, laid out as the kernel's `struct sock_filter` (8 bytes).
    struct Instruction: Sendable, Hashable {
        var code: UInt16
        var jumpIfTrue: UInt8
        var jumpIfFalse: UInt8
        var operand: UInt32
    }

    // Opcodes of linux/filter.h (classic BPF).
    private static let loadHalfAbsolute: UInt16 = 0x28  // BPF_LD | BPF_H | BPF_ABS
    private static let loadWordAbsolute: UInt16 = 0x20  // BPF_LD | BPF_W | BPF_ABS
    private static let shiftRight: UInt16 = 0x74  // BPF_ALU | BPF_RSH | BPF_K
    private static let jumpIfEqual: UInt16 = 0x15  // BPF_JMP | BPF_JEQ | BPF_K
    private static let returnConstant: UInt16 = 0x06  // BPF_RET | BPF_K
    /// `SKF_NET_OFF` (-0x100000): offsets from the network header; 12 is the IPv4 source address.
    private static let networkSourceAddress = UInt32(bitPattern: -0x10_0000 + 12)

    /// The program: drop (return 0) a datagram from 127.x.x.x:`replyPort`, keep any other whole.
    var program: [Instruction] {
        [
            Instruction(code: Self.loadHalfAbsolute, jumpIfTrue: 0, jumpIfFalse: 0, operand: 0),
            Instruction(code: Self.jumpIfEqual, jumpIfTrue: 0, jumpIfFalse: 4, operand: UInt32(replyPort)),
            Instruction(code: Self.loadWordAbsolute, jumpIfTrue: 0, jumpIfFalse: 0, operand: Self.networkSourceAddress),
            Instruction(code: Self.shiftRight, jumpIfTrue: 0, jumpIfFalse: 0, operand: 24),
            Instruction(code: Self.jumpIfEqual, jumpIfTrue: 0, jumpIfFalse: 1, operand: 127),
            Instruction(code: Self.returnConstant, jumpIfTrue: 0, jumpIfFalse: 0, operand: 0),
            Instruction(code: Self.returnConstant, jumpIfTrue: 0, jumpIfFalse: 0, operand: UInt32.max),
        ]
    }

    /// Attaches the program to `fd` (the kernel copies it).
    func attach(to fd: CInt) throws {
        // struct sock_fprog { unsigned short len; struct sock_filter *filter; }: the pointer at
        // its natural alignment after the length, written byte for byte rather than through a
        // Swift struct whose layout the language does not promise.
        let pointerOffset = MemoryLayout<UnsafeRawPointer>.alignment
        let size = pointerOffset + MemoryLayout<UnsafeRawPointer>.size
        let program = self.program.flatMap(Self.bytes(of:))
        let result = program.withUnsafeBytes { instructions in
            withUnsafeTemporaryAllocation(byteCount: size, alignment: pointerOffset) { header in
                header.initializeMemory(as: UInt8.self, repeating: 0)
                header.storeBytes(of: UInt16(self.program.count), toByteOffset: 0, as: UInt16.self)
                header.storeBytes(of: instructions.baseAddress, toByteOffset: pointerOffset, as: UnsafeRawPointer?.self)
                return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, header.baseAddress, socklen_t(size))
            }
        }
        guard result == 0 else { throw IOError(errnoCode: errno, reason: "setsockopt(SO_ATTACH_FILTER)") }
    }

    /// An instruction's 8 bytes in this machine's order, as `struct sock_filter` holds them.
    private static func bytes(of instruction: Instruction) -> [UInt8] {
        withUnsafeBytes(of: instruction.code, Array.init) + [instruction.jumpIfTrue, instruction.jumpIfFalse]
            + withUnsafeBytes(of: instruction.operand, Array.init)
    }
}
