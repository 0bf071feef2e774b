import Foundation
import HandoffNetwork
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// The physical floors: what the kernel alone does on loopback, with plain blocking POSIX sockets
/// on dedicated threads (no event loop, no TLS, no framing). Every figure of the simulator is
/// compared with one of these.
enum FloorBench {
    /// A UDP datagram of beacon size (128 bytes) broadcast to 127.255.255.255 carrying its send
    /// time, received by another socket on another thread: one-way latency.
    static func udpBroadcastOneWay(iterations: Int, gap: TimeInterval) throws -> LatencySamples {
        let receiver = try RawSocket(type: SOCK_DGRAM)
        try receiver.set(SOL_SOCKET, SO_REUSEADDR, Int32(1))
        try receiver.set(SOL_SOCKET, SO_RCVTIMEO, timeval(tv_sec: 2, tv_usec: 0))
        try receiver.bind(address: INADDR_ANY, port: 0)
        let port = try receiver.localPort()
        let sender = try RawSocket(type: SOCK_DGRAM)
        try sender.set(SOL_SOCKET, SO_BROADCAST, Int32(1))
        let destination = RawSocket.address(inet_addr(BeaconChannel.loopbackBroadcastAddress), port: port)

        let samples = NIOLockedValueBox(LatencySamples())
        let arrivals = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let receiverThread = Thread {
            var buffer = [UInt8](repeating: 0, count: 256)
            for _ in 0..<iterations {
                let count = buffer.withUnsafeMutableBytes { recv(receiver.descriptor, $0.baseAddress, $0.count, 0) }
                let now = BenchClock.now()
                guard count >= 8 else { break }
                let sent = buffer.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                samples.withLockedValue { $0.append(now &- sent) }
                arrivals.signal()
            }
            done.signal()
        }
        receiverThread.start()
        var datagram = [UInt8](repeating: 0, count: Beacon.maximumLength)
        for _ in 0..<iterations {
            sleepThread(gap)
            var stamp = BenchClock.now()
            withUnsafeBytes(of: &stamp) { source in datagram.withUnsafeMutableBytes { $0.copyMemory(from: source) } }
            try sender.sendDatagram(datagram, to: destination)
            guard arrivals.wait(timeout: .now() + 2) == .success else {
                throw BenchError("a UDP broadcast was not received within 2 s")
            }
        }
        done.wait()
        return samples.withLockedValue { $0 }
    }

    /// A new TCP connection (TCP_NODELAY) to a server on 127.0.0.1, a 64-byte request and a
    /// `responseBytes`-byte answer: the time from `socket()` to the last byte of the answer.
    static func tcpConnectRoundTrip(iterations: Int, responseBytes: Int, gap: TimeInterval) throws -> LatencySamples {
        let listener = try RawSocket(type: SOCK_STREAM)
        try listener.set(SOL_SOCKET, SO_REUSEADDR, Int32(1))
        try listener.bind(address: inet_addr("127.0.0.1"), port: 0)
        try listener.listen()
        let port = try listener.localPort()
        let serverThread = Thread {
            var request = [UInt8](repeating: 0, count: 64)
            let response = [UInt8](repeating: 0x5A, count: responseBytes)
            while let connection = try? listener.accept() {
                try? connection.set(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1))
                guard (try? connection.readExactly(&request)) != nil else { continue }
                try? connection.writeAll(response)
                connection.drainUntilClosed()
            }
        }
        serverThread.start()
        defer { listener.shutdown() }
        var samples = LatencySamples()
        var answer = [UInt8](repeating: 0, count: responseBytes)
        let request = [UInt8](repeating: 0x41, count: 64)
        for _ in 0..<iterations {
            sleepThread(gap)
            let start = BenchClock.now()
            let client = try RawSocket(type: SOCK_STREAM)
            try client.set(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1))
            try client.connect(address: inet_addr("127.0.0.1"), port: port)
            try client.writeAll(request)
            try client.readExactly(&answer)
            samples.append(BenchClock.now() - start)
        }
        return samples
    }

    /// `bytes` written in 64 KiB chunks over one loopback TCP connection, read by another thread:
    /// the time from the first write to the last byte read, in MB/s (10^6 bytes per second).
    static func tcpThroughput(bytes: Int, chunk: Int = StreamBridge.chunkSize) throws -> Double {
        let listener = try RawSocket(type: SOCK_STREAM)
        try listener.set(SOL_SOCKET, SO_REUSEADDR, Int32(1))
        try listener.bind(address: inet_addr("127.0.0.1"), port: 0)
        try listener.listen()
        let port = try listener.localPort()
        let finished = NIOLockedValueBox<(UInt64, Int)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let readerThread = Thread {
            defer { done.signal() }
            guard let connection = try? listener.accept() else { return }
            var buffer = [UInt8](repeating: 0, count: 256 * 1024)
            var total = 0
            while total < bytes {
                let count = buffer.withUnsafeMutableBytes { recv(connection.descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                total += count
            }
            finished.withLockedValue { $0 = (BenchClock.now(), total) }
        }
        readerThread.start()
        defer { listener.shutdown() }
        let client = try RawSocket(type: SOCK_STREAM)
        try client.connect(address: inet_addr("127.0.0.1"), port: port)
        let block = [UInt8](repeating: 0xA5, count: chunk)
        let start = BenchClock.now()
        var sent = 0
        while sent < bytes {
            let size = min(chunk, bytes - sent)
            try client.writeAll(block[0..<size])
            sent += size
        }
        guard done.wait(timeout: .now() + 60) == .success, let (end, total) = finished.withLockedValue({ $0 }),
            total == bytes
        else {
            throw BenchError("the TCP reader did not receive \(bytes) bytes")
        }
        return Double(bytes) / (Double(end - start) / 1e9) / 1e6
    }

    /// A port no socket uses right now, from the kernel (for the bench's private discovery port).
    static func freeUDPPort() throws -> Int {
        let socket = try RawSocket(type: SOCK_DGRAM)
        try socket.bind(address: INADDR_ANY, port: 0)
        return try socket.localPort()
    }
}

/// A blocking IPv4 socket, closed when released.
final class RawSocket: Sendable {
    let descriptor: Int32

    init(type: __socket_type) throws {
        descriptor = socket(AF_INET, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw BenchError.posix("socket") }
    }

    /// Takes over `descriptor` (closed when released).
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    static func address(_ ip: in_addr_t, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = ip
        return address
    }

    func set<Value: BitwiseCopyable>(_ level: Int32, _ name: Int32, _ value: Value) throws {
        var value = value
        guard setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Value>.size)) == 0 else {
            throw BenchError.posix("setsockopt \(name)")
        }
    }

    func bind(address ip: in_addr_t, port: Int) throws {
        var address = Self.address(ip, port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw BenchError.posix("bind") }
    }

    func connect(address ip: in_addr_t, port: Int) throws {
        var address = Self.address(ip, port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw BenchError.posix("connect") }
    }

    /// Sends one datagram to `destination` (with SO_BROADCAST, a broadcast address).
    func sendDatagram(_ datagram: [UInt8], to destination: sockaddr_in) throws {
        var address = destination
        let sent = datagram.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard sent == datagram.count else { throw BenchError.posix("UDP send") }
    }

    func listen() throws {
        guard Glibc.listen(descriptor, 128) == 0 else { throw BenchError.posix("listen") }
    }

    func accept() throws -> RawSocket {
        let connection = Glibc.accept(descriptor, nil, nil)
        guard connection >= 0 else { throw BenchError.posix("accept") }
        _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
        return RawSocket(descriptor: connection)
    }

    /// Wakes a thread blocked in `accept` (the listener then fails with EINVAL).
    func shutdown() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    func localPort() throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { throw BenchError.posix("getsockname") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    func writeAll<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws {
        try bytes.withContiguousStorageIfAvailable { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                guard written > 0 else { throw BenchError.posix("send") }
                offset += written
            }
        } ?? { throw BenchError("non-contiguous bytes") }()
    }

    func readExactly(_ buffer: inout [UInt8]) throws {
        var offset = 0
        let total = buffer.count
        try buffer.withUnsafeMutableBytes { raw in
            while offset < total {
                let count = recv(descriptor, raw.baseAddress! + offset, total - offset, 0)
                guard count > 0 else { throw BenchError.posix("recv") }
                offset += count
            }
        }
    }

    /// Reads and discards until the peer closes.
    func drainUntilClosed() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ recv(descriptor, $0.baseAddress, $0.count, 0) }) > 0 {}
    }
}
