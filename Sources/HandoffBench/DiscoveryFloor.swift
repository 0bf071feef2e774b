import Crypto
import Foundation
import HandoffNetwork
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// Discovery's floor: what `devices` devices hearing each other once costs this machine with
/// nothing of ours on the way. Each device has the two sockets a device has, opened as the device
/// opens them (``DiscoverySocket``): a discovery socket on the shared port (SO_REUSEADDR,
/// SO_REUSEPORT, the same receive buffer, the filter that drops its own device's broadcasts in the
/// kernel) and a socket of its own to send from. Each device broadcasts one beacon-sized,
/// AES-GCM-sealed datagram to 127.255.255.255, and every discovery socket reads the N − 1 others
/// and opens them through swift-crypto, as a beacon is: N(N − 1) deliveries and opens, the least
/// that every device hearing every other needs. The devices are shared out over one thread per
/// processor; each sends its devices' broadcasts, then reads their discovery sockets, 64 datagrams
/// per `recvmmsg` (the sockets made blocking, with a 2 s limit). The figure is the time from the
/// threads' release to the last datagram opened.
///
/// Not in it: starting the devices (their listeners and contexts), everything a device does with a
/// beacon once opened, the replies to newcomers and any second round.
enum DiscoveryFloor {
    struct Result: Sendable {
        var seconds: TimeInterval
        var threads: Int
    }

    static func measure(
        devices count: Int, threads requested: Int = ProcessInfo.processInfo.activeProcessorCount
    ) throws -> Result {
        guard count >= 2 else { throw BenchError("the discovery floor needs at least 2 devices") }
        let threads = max(1, min(requested, count))
        let receive = try RecvMMsg.load()
        let key = SymmetricKey(size: .bits256)
        // Each thread makes its own key from these bytes (a `SymmetricKey` is not `Sendable`).
        let keyBytes = key.withUnsafeBytes { Array($0) }
        let associatedData = BeaconCipherBench.associatedData
        // One sealed datagram per device, beacon-sized: version, nonce, ciphertext, tag.
        let datagrams: [[UInt8]] = try (0..<count).map { index in
            var plaintext = [UInt8](repeating: 0x42, count: Beacon.maximumLength - 29)
            withUnsafeBytes(of: UInt32(index).littleEndian) { plaintext.replaceSubrange(0..<4, with: $0) }
            let box = try AES.GCM.seal(plaintext, using: key, authenticating: associatedData)
            guard let combined = box.combined else { throw BenchError("AES-GCM gave no combined box") }
            return [Beacon.version] + Array(combined)
        }
        // Every socket is made before any thread starts: a failure then leaves no thread waiting.
        let buffer = BeaconChannel.Options().receiveBufferBytes
        let senders = try (0..<count).map { _ in
            let (descriptor, port) = try DiscoverySocket.openUDPSocket(
                bindHost: "0.0.0.0", port: 0, options: [SO_BROADCAST], receiveBufferBytes: buffer)
            return (socket: RawSocket(descriptor: descriptor), port: port)
        }
        var port = 0
        var opened: [RawSocket] = []
        for sender in senders {
            let socket = RawSocket(
                descriptor: try DiscoverySocket.open(
                    bindHost: "0.0.0.0", port: port, receiveBufferBytes: buffer, ownReplyPort: sender.port))
            if port == 0 { port = try socket.localPort() }
            // Blocking reads, limited: a datagram the kernel dropped (a receive buffer capped by
            // net.core.rmem_max) ends the floor after 2 s, not every socket's wait in turn.
            _ = fcntl(socket.descriptor, F_SETFL, fcntl(socket.descriptor, F_GETFL) & ~O_NONBLOCK)
            try socket.set(SOL_SOCKET, SO_RCVTIMEO, timeval(tv_sec: 2, tv_usec: 0))
            opened.append(socket)
        }
        let sockets = opened
        let destination = RawSocket.address(inet_addr(BeaconChannel.loopbackBroadcastAddress), port: port)

        let go = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        let outcome = NIOLockedValueBox<(end: UInt64, failure: String?)>((0, nil))
        for thread in 0..<threads {
            let mine = Array(stride(from: thread, to: count, by: threads))
            finished.enter()
            Thread {
                defer { finished.leave() }
                let key = SymmetricKey(data: keyBytes)
                let batch = RecvMMsg.Batch(messages: 64, bytesEach: 256)
                defer { batch.deallocate() }
                go.wait()
                var failure: String?
                do {
                    for device in mine {
                        try senders[device].socket.sendDatagram(datagrams[device], to: destination)
                    }
                    for device in mine {
                        try hearAll(
                            count - 1, on: sockets[device], key: key, associatedData: associatedData,
                            receive: receive, into: batch)
                    }
                } catch {
                    failure = "\(error)"
                }
                let now = BenchClock.now()
                outcome.withLockedValue { outcome in
                    outcome.end = max(outcome.end, now)
                    if outcome.failure == nil { outcome.failure = failure }
                }
            }.start()
        }
        let start = BenchClock.now()
        for _ in 0..<threads { go.signal() }
        finished.wait()
        let (end, failure) = outcome.withLockedValue { $0 }
        if let failure { throw BenchError("the discovery floor of \(count) devices failed: \(failure)") }
        return Result(seconds: Double(end &- start) / 1e9, threads: threads)
    }

    /// Reads `count` datagrams from `socket` (the other devices' broadcasts: its filter drops its
    /// own device's) and opens each.
    private static func hearAll(
        _ count: Int, on socket: RawSocket, key: SymmetricKey, associatedData: [UInt8], receive: RecvMMsg,
        into batch: RecvMMsg.Batch
    ) throws {
        var heard = 0
        while heard < count {
            let received = receive.read(socket.descriptor, into: batch, upTo: min(64, count - heard))
            if received < 0, errno == EINTR { continue }
            guard received > 0 else { throw BenchError.posix("recvmmsg after \(heard) of \(count) datagrams") }
            for index in 0..<received {
                let datagram = batch.message(index)
                guard datagram.count == Beacon.maximumLength else {
                    throw BenchError("a datagram of \(datagram.count) bytes")
                }
                let box = try AES.GCM.SealedBox(combined: UnsafeRawBufferPointer(rebasing: datagram[1...]))
                let opened = try AES.GCM.open(box, using: key, authenticating: associatedData)
                guard opened.count == Beacon.maximumLength - 29 else { throw BenchError("a datagram did not open") }
            }
            heard += received
        }
    }
}

/// `recvmmsg(2)`, which Swift's Glibc module does not declare (glibc declares it under
/// `_GNU_SOURCE` only): looked up by name, with `struct mmsghdr` laid out by hand (a `msghdr`, then
/// the message's length as a 32-bit integer, padded to the `msghdr`'s alignment).
struct RecvMMsg {
    private typealias Function =
        @convention(c) (Int32, UnsafeMutableRawPointer?, UInt32, Int32, UnsafeMutableRawPointer?) -> Int32
    private let function: Function

    static func load() throws -> RecvMMsg {
        guard let symbol = dlsym(nil, "recvmmsg") else { throw BenchError("recvmmsg is not in this C library") }
        return RecvMMsg(function: unsafeBitCast(symbol, to: Function.self))
    }

    /// Room for `messages` datagrams of up to `bytesEach` bytes, and their headers.
    struct Batch {
        static let lengthOffset = MemoryLayout<msghdr>.size
        static let stride =
            (MemoryLayout<msghdr>.size + MemoryLayout<UInt32>.size + MemoryLayout<msghdr>.alignment - 1)
            / MemoryLayout<msghdr>.alignment * MemoryLayout<msghdr>.alignment
        let messages: Int
        let bytesEach: Int
        let headers: UnsafeMutableRawPointer
        let vectors: UnsafeMutablePointer<iovec>
        let bytes: UnsafeMutableRawPointer

        init(messages: Int, bytesEach: Int) {
            self.messages = messages
            self.bytesEach = bytesEach
            headers = .allocate(byteCount: messages * Self.stride, alignment: MemoryLayout<msghdr>.alignment)
            headers.initializeMemory(as: UInt8.self, repeating: 0, count: messages * Self.stride)
            vectors = .allocate(capacity: messages)
            bytes = .allocate(byteCount: messages * bytesEach, alignment: 16)
            for index in 0..<messages {
                vectors[index] = iovec(iov_base: bytes + index * bytesEach, iov_len: bytesEach)
                var header = msghdr()
                header.msg_iov = vectors + index
                header.msg_iovlen = 1
                (headers + index * Self.stride).storeBytes(of: header, as: msghdr.self)
            }
        }

        /// The bytes of message `index` of the last read.
        func message(_ index: Int) -> UnsafeRawBufferPointer {
            let length = (headers + index * Self.stride + Self.lengthOffset).load(as: UInt32.self)
            return UnsafeRawBufferPointer(start: bytes + index * bytesEach, count: Int(length))
        }

        func deallocate() {
            headers.deallocate()
            vectors.deallocate()
            bytes.deallocate()
        }
    }

    /// `MSG_WAITFORONE`: block for the first datagram only, then take what is queued.
    private static let waitForOne: Int32 = 0x10000

    /// Blocks until at least one datagram is queued, then reads up to `limit` (the count read, or
    /// -1 with `errno` set).
    func read(_ descriptor: Int32, into batch: Batch, upTo limit: Int) -> Int {
        Int(function(descriptor, batch.headers, UInt32(min(limit, batch.messages)), Self.waitForOne, nil))
    }
}
