import Foundation
import HandoffCore
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What a beacon channel sent, received and dropped, and why.
package struct BeaconStatistics: Sendable, Hashable {
    /// Beacons handed to ``BeaconChannel/send(_:)`` (one per beacon, whatever the number of destinations).
    package var sent = 0
    /// Datagrams that arrived.
    package var received = 0
    /// Beacons passed on to the listener.
    package var accepted = 0
    /// This device's own beacons (every device hears its own broadcast).
    package var droppedOwn = 0
    /// Too short, too long, another layout version, or authentic but not following the layout.
    package var droppedMalformed = 0
    /// The AEAD tag did not verify: another account's beacon, or tampered bytes.
    package var droppedAuthentication = 0
    /// Not newer than the last beacon accepted from that device (a replay).
    package var droppedReplay = 0
    /// `sentAt` outside the allowed clock skew (too old, or from the future).
    package var droppedStale = 0
    /// A second copy of the beacon last accepted from that device (it came by two paths, e.g.
    /// loopback broadcast and multicast with `--lan`). A replay of the newest beacon counts here too.
    package var droppedDuplicate = 0
    /// From another host while the channel is not on the LAN.
    package var droppedNotLocal = 0
    /// Datagrams the kernel refused to send (e.g. no route for LAN broadcast).
    package var sendFailures = 0
    /// Beacons sent to one newcomer's own socket only (``BeaconChannel/reply(_:to:)``), not counted in `sent`.
    package var replies = 0

    package init() {}

    /// Every dropped datagram, whatever the reason.
    package var dropped: Int {
        droppedOwn + droppedMalformed + droppedAuthentication + droppedReplay + droppedStale + droppedDuplicate
            + droppedNotLocal
    }
}

/// Thread-safe statistics shared by a channel and its inbound handler.
final class BeaconCounters: Sendable {
    private let box = Mutex(BeaconStatistics())

    func update(_ body: (inout BeaconStatistics) -> Void) {
        box.withLock { body(&$0) }
    }

    var value: BeaconStatistics { box.withLock { $0 } }
}

/// A beacon a channel accepted: what it says, the datagram it was opened from (a device keeps
/// the last one per peer for its inspector) and the sender's address.
package struct OpenedBeacon: Sendable {
    package var beacon: Beacon
    package var datagram: [UInt8]
    package var address: SocketAddress
}

/// The receiving half of a beacon channel: opens every datagram with the sealer, drops own
/// beacons (by device ID) and, unless on the LAN, beacons from other hosts, applies the
/// ``ReplayGuard``, counts every drop, and hands accepted beacons with the sender's address to
/// `onBeacons`. Hostile datagrams are dropped and counted, never thrown.
///
/// The beacons accepted during one read of the socket (up to 32 datagrams per system call, a few
/// calls per turn of the event loop) are handed on together when the read ends
/// (`channelReadComplete`): a device that hears hundreds of peers start at once does its work
/// after a burst once, not after each beacon of it.
package final class BeaconInboundHandler: ChannelInboundHandler {
    package typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let sealer: BeaconSealer
    /// This device's own 16 bytes, as its beacons name it (its own beacons are dropped).
    private let ownDevice: BeaconSenderID
    private let acceptsOtherHosts: Bool
    private let now: @Sendable () -> Date
    private let onBeacons: @Sendable ([OpenedBeacon]) -> Void
    private let replayGuard: SharedReplayGuard
    let counters: BeaconCounters
    /// Accepted during the current read, handed on at its end.
    private var batch: [OpenedBeacon] = []
    /// The senders decoded so far: a known sender's beacon reuses their strings.
    private var senders: BeaconSenders? = BeaconSenders()

    /// - Parameters:
    ///   - acceptsOtherHosts: accept beacons from non-loopback addresses (`--lan`).
    ///   - now: the receiver's clock (tests pass a manual one).
    package convenience init(
        sealer: BeaconSealer, ownDevice: DeviceID, acceptsOtherHosts: Bool = false,
        replayGuard: ReplayGuard = ReplayGuard(), now: @escaping @Sendable () -> Date = { Date() },
        onBeacon: @escaping @Sendable (Beacon, SocketAddress) -> Void
    ) {
        self.init(
            sealer: sealer, ownDevice: ownDevice, acceptsOtherHosts: acceptsOtherHosts,
            replayGuard: SharedReplayGuard(replayGuard),
            counters: BeaconCounters(), now: now,
            onBeacons: { batch in for opened in batch { onBeacon(opened.beacon, opened.address) } })
    }

    /// A handler that hands on the beacons of each read together, as a ``BeaconChannel``'s do
    /// (`handoff bench --beacon-path` feeds one without a socket).
    package convenience init(
        sealer: BeaconSealer, ownDevice: DeviceID, acceptsOtherHosts: Bool = false,
        replayGuard: ReplayGuard = ReplayGuard(), now: @escaping @Sendable () -> Date = { Date() },
        onBeacons: @escaping @Sendable ([OpenedBeacon]) -> Void
    ) {
        self.init(
            sealer: sealer, ownDevice: ownDevice, acceptsOtherHosts: acceptsOtherHosts,
            replayGuard: SharedReplayGuard(replayGuard), counters: BeaconCounters(), now: now, onBeacons: onBeacons)
    }

    init(
        sealer: BeaconSealer, ownDevice: DeviceID, acceptsOtherHosts: Bool, replayGuard: SharedReplayGuard,
        counters: BeaconCounters, now: @escaping @Sendable () -> Date,
        onBeacons: @escaping @Sendable ([OpenedBeacon]) -> Void
    ) {
        self.sealer = sealer
        self.ownDevice = BeaconSenderID(ownDevice)
        self.acceptsOtherHosts = acceptsOtherHosts
        self.replayGuard = replayGuard
        self.counters = counters
        self.now = now
        self.onBeacons = onBeacons
    }

    /// What this handler received and dropped so far (thread-safe).
    package var statistics: BeaconStatistics { counters.value }

    /// One vector read (up to 32 datagrams) per readiness of the socket. NIO's epoll is
    /// level-triggered, so datagrams left after a read are reported again; NIO's default of four
    /// reads per readiness made every burst cost a second system call that only said "nothing
    /// more" (most readinesses of a discovery socket hold fewer than 32 datagrams).
    package func handlerAdded(context: ChannelHandlerContext) {
        try? context.channel.syncOptions?.setOption(.maxMessagesPerRead, value: 1)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        if let opened = open(Array(envelope.data.readableBytesView), from: envelope.remoteAddress) {
            batch.append(opened)
        }
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        if !batch.isEmpty {
            let opened = batch
            batch.removeAll(keepingCapacity: true)
            onBeacons(opened)
        }
        context.fireChannelReadComplete()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A UDP socket reports errors such as ICMP unreachables here; the channel stays usable.
    }

    /// Opens one datagram and judges it: the beacon if it is accepted, else nil (the drop counted).
    func open(_ bytes: [UInt8], from address: SocketAddress) -> OpenedBeacon? {
        StageMarks.mark(.beaconRead)
        counters.update { $0.received += 1 }
        if !acceptsOtherHosts, !Self.isLoopback(address) {
            counters.update { $0.droppedNotLocal += 1 }
            return nil
        }
        let receivedAt = now()
        let beacon: Beacon
        let sender: BeaconSenderID
        do {
            let opened = try sealer.open(bytes, receivedAt: receivedAt, senders: &senders)
            beacon = opened.beacon
            sender = opened.sender
        } catch .authenticationFailed {
            counters.update { $0.droppedAuthentication += 1 }
            return nil
        } catch {
            counters.update { $0.droppedMalformed += 1 }
            return nil
        }
        // The same test as the IDs' texts (a decoded ID is its 16 bytes as text), in two words.
        if sender == ownDevice {
            counters.update { $0.droppedOwn += 1 }
            return nil
        }
        switch replayGuard.judge(beacon, from: sender, receivedAt: receivedAt) {
        case .duplicate:
            counters.update { $0.droppedDuplicate += 1 }
        case .judged(.accepted):
            counters.update { $0.accepted += 1 }
            StageMarks.mark(.beaconOpened)
            return OpenedBeacon(beacon: beacon, datagram: bytes, address: address)
        case .judged(.replayed):
            counters.update { $0.droppedReplay += 1 }
        case .judged(.stale), .judged(.fromTheFuture):
            counters.update { $0.droppedStale += 1 }
        }
        return nil
    }

    static func isLoopback(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            // 127.0.0.0/8, read from the address itself (not its text: this runs for every datagram).
            return UInt32(bigEndian: v4.address.sin_addr.s_addr) >> 24 == 127
        case .v6:
            guard let ip = address.ipAddress else { return false }
            return ip == "::1" || ip.lowercased().hasPrefix("::ffff:127.")
        default:
            return false
        }
    }
}

@available(*, unavailable)
extension BeaconInboundHandler: Sendable {}

/// The UDP side of discovery: binds `bindHost:port` (default 0.0.0.0:17820) with SO_REUSEADDR,
/// SO_REUSEPORT and SO_BROADCAST, so any number of devices on one machine share the port; sends
/// to 127.255.255.255:port; with `lan` also to the multicast group 239.255.72.79 (TTL 1, loop on,
/// joined through the routing table and on every LAN interface) and, where the routing table has
/// no route for the group, to each LAN interface's subnet broadcast address (see
/// ``joinLAN(_:port:interfaces:)``). Sessions never use this port.
package final class BeaconChannel: Sendable {
    package struct Options: Sendable {
        /// The shared discovery port.
        package var port: Int = NetworkOptions.defaultDiscoveryPort
        /// Also reach other hosts of the LAN, and accept their beacons.
        package var lan: Bool = false
        package var bindHost: String = "0.0.0.0"
        /// How far a beacon's `sentAt` may be from this device's clock.
        package var maximumClockSkew: TimeInterval = 30
        /// The receive buffer asked for on both sockets (see ``BeaconReplySocket/setReceiveBuffer(_:bytes:)``).
        package var receiveBufferBytes: Int = 2 << 20

        package init(
            port: Int = NetworkOptions.defaultDiscoveryPort, lan: Bool = false, bindHost: String = "0.0.0.0",
            maximumClockSkew: TimeInterval = 30
        ) {
            self.port = port
            self.lan = lan
            self.bindHost = bindHost
            self.maximumClockSkew = maximumClockSkew
        }
    }

    package static let loopbackBroadcastAddress = "127.255.255.255"
    package static let multicastGroup = "239.255.72.79"
    package static let lanBroadcastAddress = "255.255.255.255"

    private let channel: any Channel
    private let sealer: BeaconSealer
    /// This device's ID and the 16 bytes its beacons name it by, worked out once: its own beacons
    /// (all it sends) are sealed without parsing the ID as a UUID again for each.
    private let ownDevice: (id: DeviceID, sender: BeaconSenderID)
    private let counters: BeaconCounters
    private let destinations: [SocketAddress]
    /// This device's own socket (nil if it could not be opened: then everything goes through
    /// `channel`, and peers answer this device with broadcasts), and the channel that reads it.
    private let replySocket: BeaconReplySocket?
    private let replyChannel: (any Channel)?
    /// The discovery port actually bound.
    package let port: Int
    /// The port of this device's own socket, which its loopback beacons come from and peers'
    /// unicast replies go to (nil without one).
    package var replyPort: Int? { replySocket?.port }
    /// What the channel does, e.g. "loopback broadcast 127.255.255.255:17820 + multicast 239.255.72.79:17820 (TTL 1)".
    package let mode: String

    private init(
        channel: any Channel, sealer: BeaconSealer, ownDevice: DeviceID, counters: BeaconCounters,
        destinations: [SocketAddress], replySocket: BeaconReplySocket?, replyChannel: (any Channel)?, port: Int,
        mode: String
    ) {
        self.channel = channel
        self.ownDevice = (ownDevice, BeaconSenderID(ownDevice))
        self.replySocket = replySocket
        self.replyChannel = replyChannel
        self.sealer = sealer
        self.counters = counters
        self.destinations = destinations
        self.port = port
        self.mode = mode
    }

    /// Binds the discovery socket and starts receiving. Throws if the port cannot be bound.
    package static func start(
        on group: any EventLoopGroup, options: Options, sealer: BeaconSealer, ownDevice: DeviceID,
        onBeacon: @escaping @Sendable (Beacon, SocketAddress) -> Void
    ) async throws -> BeaconChannel {
        try await start(
            on: group, options: options, sealer: sealer, ownDevice: ownDevice,
            onOpened: { batch in for opened in batch { onBeacon(opened.beacon, opened.address) } })
    }

    /// Binds the discovery socket and starts receiving, handing on accepted beacons one at a
    /// time (each with the datagram it was opened from; see the variant taking batches).
    package static func start(
        on group: any EventLoopGroup, options: Options, sealer: BeaconSealer, ownDevice: DeviceID,
        onOpened: @escaping @Sendable (Beacon, [UInt8], SocketAddress) -> Void,
        onReply: (@Sendable (Beacon, [UInt8], SocketAddress) -> Void)? = nil
    ) async throws -> BeaconChannel {
        try await start(
            on: group, options: options, sealer: sealer, ownDevice: ownDevice,
            onOpened: { batch in for opened in batch { onOpened(opened.beacon, opened.datagram, opened.address) } },
            onReply: onReply.map { onReply in
                { @Sendable batch in for opened in batch { onReply(opened.beacon, opened.datagram, opened.address) } }
            })
    }

    /// Binds the discovery socket and starts receiving; the beacons accepted in one read come
    /// together, each with the datagram it was opened from (the device keeps the last one per
    /// peer for its inspector). Beacons that arrive on this device's own socket (unicast replies)
    /// go to `onReply` when given, else to `onOpened` too.
    package static func start(
        on group: any EventLoopGroup, options: Options, sealer: BeaconSealer, ownDevice: DeviceID,
        onOpened: @escaping @Sendable ([OpenedBeacon]) -> Void,
        onReply: (@Sendable ([OpenedBeacon]) -> Void)? = nil
    ) async throws -> BeaconChannel {
        let counters = BeaconCounters()
        let lan = options.lan
        let replayGuard = SharedReplayGuard(ReplayGuard(maximumClockSkew: options.maximumClockSkew))
        let receiveBuffer = options.receiveBufferBytes
        // Up to this many datagrams per read (recvmmsg), each in a 2 KiB slot: when hundreds of
        // devices start at once, a burst costs a few system calls instead of one per beacon.
        let vectorReads = 32
        // This device's own socket first: the discovery socket's filter names its port.
        var replySocket: BeaconReplySocket?
        var replyChannel: (any Channel)?
        let reply = try? BeaconReplySocket.open(bindHost: options.bindHost, receiveBufferBytes: receiveBuffer)
        let channel: any Channel
        do {
            let descriptor = try DiscoverySocket.open(
                bindHost: options.bindHost, port: options.port, receiveBufferBytes: receiveBuffer,
                ownReplyPort: reply?.0.port)
            channel = try await DatagramBootstrap(group: group)
                .channelOption(.datagramVectorReadMessageCount, value: vectorReads)
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: vectorReads * 2048))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = BeaconInboundHandler(
                            sealer: sealer, ownDevice: ownDevice, acceptsOtherHosts: lan,
                            replayGuard: replayGuard, counters: counters, now: { Date() },
                            onBeacons: onOpened)
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                }
                .withBoundSocket(descriptor).get()
        } catch {
            if let (socket, replyDescriptor) = reply {
                socket.markClosed()
                Glibc.close(replyDescriptor)
            }
            throw error
        }
        if let (socket, descriptor) = reply {
            let onUnicast = onReply ?? onOpened
            do {
                replyChannel = try await DatagramBootstrap(group: group)
                    .channelOption(.datagramVectorReadMessageCount, value: vectorReads)
                    .channelOption(
                        .recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: vectorReads * 2048)
                    )
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                BeaconInboundHandler(
                                    sealer: sealer, ownDevice: ownDevice, acceptsOtherHosts: lan,
                                    replayGuard: replayGuard, counters: counters, now: { Date() }, onBeacons: onUnicast)
                            )
                        }
                    }
                    .withBoundSocket(descriptor).get()
                replySocket = socket
            } catch {
                socket.markClosed()
                Glibc.close(descriptor)
            }
        }
        let port = channel.localAddress?.port ?? options.port
        var destinations = [try SocketAddress(ipAddress: loopbackBroadcastAddress, port: port)]
        var mode = "loopback broadcast \(loopbackBroadcastAddress):\(port)"
        if lan {
            let (lanDestinations, lanMode) = try await joinLAN(channel, port: port, interfaces: LANInterface.all())
            destinations += lanDestinations
            mode += lanMode
        }
        return BeaconChannel(
            channel: channel, sealer: sealer, ownDevice: ownDevice, counters: counters, destinations: destinations,
            replySocket: replySocket, replyChannel: replyChannel, port: port, mode: mode)
    }

    /// Sets up the LAN side of a channel; returns the extra destinations and what they are.
    ///
    /// Multicast is joined through the routing table (the interface of the route to the group,
    /// normally the default route's) and on every other up, multicast-capable interface, so beacons
    /// are heard on whichever interface they arrive. When the routing table has no route for the
    /// group (an isolated LAN without a gateway), multicast goes out through the first LAN
    /// interface, preferring one with a carrier (`IP_MULTICAST_IF`), and every beacon is also broadcast to the subnet of each LAN
    /// interface (e.g. 10.0.0.255), which needs no route either. 255.255.255.255 is the last resort.
    static func joinLAN(
        _ channel: any Channel, port: Int, interfaces: [LANInterface]
    ) async throws
        -> (destinations: [SocketAddress], mode: String)
    {
        let group = try SocketAddress(ipAddress: multicastGroup, port: port)
        var destinations: [SocketAddress] = []
        var mode = ""
        var routed = false
        var joined: [LANInterface] = []
        var failure: (any Error)?
        if let multicast = channel as? any MulticastChannel, let provider = channel as? any SocketOptionProvider {
            do {
                try await multicast.joinGroup(group).get()
                routed = true
            } catch {
                failure = error
            }
            for interface in interfaces where interface.multicast {
                // Already a member on the routed interface: the kernel says EADDRINUSE.
                guard let device = interface.device,
                    (try? await multicast.joinGroup(group, device: device).get()) != nil
                else { continue }
                joined.append(interface)
            }
            if routed || !joined.isEmpty {
                do {
                    if !routed, let first = joined.first {
                        try await provider.setIPMulticastIF(first.address).get()
                    }
                    try await provider.setIPMulticastTTL(1).get()
                    try await provider.setIPMulticastLoop(1).get()
                    destinations.append(group)
                    mode += " + multicast \(multicastGroup):\(port) (TTL 1\(routed ? "" : ", via \(joined[0].name)"))"
                } catch {
                    failure = error
                    routed = false
                }
            }
        }
        guard !routed else { return (destinations, mode) }
        let subnets = interfaces.compactMap { interface in interface.broadcast.map { (interface.name, $0) } }
        for (name, broadcast) in subnets {
            destinations.append(try SocketAddress(ipAddress: broadcast, port: port))
            mode += " + subnet broadcast \(broadcast):\(port) (\(name))"
        }
        if destinations.isEmpty {
            destinations.append(try SocketAddress(ipAddress: lanBroadcastAddress, port: port))
            mode +=
                " + broadcast \(lanBroadcastAddress):\(port) (multicast unavailable: \(failure.map { "\($0)" } ?? "no LAN interface"))"
        }
        return (destinations, mode)
    }

    /// Seals `beacon` and broadcasts it to every destination. Never blocks; failures are counted.
    ///
    /// The loopback broadcast leaves through this device's own socket, on the calling thread;
    /// the LAN destinations (whose multicast settings are the discovery socket's) through the
    /// discovery socket's event loop.
    package func send(_ beacon: Beacon) {
        StageMarks.mark(.beaconMade)
        let bytes = sealer.seal(beacon, sender: sender(of: beacon))
        StageMarks.mark(.beaconSealed)
        counters.update { $0.sent += 1 }
        let counters = self.counters
        for (index, destination) in destinations.enumerated() {
            if index == 0, let replySocket, replySocket.send(bytes, to: destination) {
                // The loopback broadcast went out on this thread: a peer on this machine woken by
                // it may be waiting for this core.
                CoreHandOff.yieldToWokenReader()
                continue
            }
            let envelope = AddressedEnvelope(remoteAddress: destination, data: ByteBuffer(bytes: bytes))
            channel.writeAndFlush(envelope).whenFailure { _ in
                counters.update { $0.sendFailures += 1 }
            }
        }
        StageMarks.mark(.beaconSent)
    }

    /// Sends `beacon` to some devices only: `addresses`, the own sockets newcomers' beacons came
    /// from (sealed once for all of them). Other devices, which already know this one, are not
    /// disturbed. Returns the addresses it could not be sent to that way (no own socket, or the
    /// kernel refused it): the caller broadcasts instead.
    package func reply(_ beacon: Beacon, to addresses: [SocketAddress]) -> [SocketAddress] {
        guard let replySocket else { return addresses }
        let bytes = sealer.seal(beacon, sender: sender(of: beacon))
        let failed = addresses.filter { !replySocket.send(bytes, to: $0) }
        counters.update {
            $0.replies += addresses.count - failed.count
            $0.sendFailures += failed.count
        }
        return failed
    }

    /// The bytes `beacon` names its sender by, when it is this device (nil: the sealer works them out).
    private func sender(of beacon: Beacon) -> BeaconSenderID? {
        beacon.device.id == ownDevice.id ? ownDevice.sender : nil
    }

    /// Sent, received and dropped counts (thread-safe).
    package var statistics: BeaconStatistics { counters.value }

    /// Closes the sockets. Send a `leaving` beacon first, and give it a moment to go out.
    package func close() async {
        replySocket?.markClosed()
        try? await replyChannel?.close().get()
        try? await channel.close().get()
    }
}

/// An IPv4 interface that can reach other hosts: up and not loopback.
struct LANInterface: Sendable {
    var name: String
    var address: in_addr
    /// The subnet's broadcast address (e.g. "10.0.0.255"), if the interface broadcasts.
    var broadcast: String?
    var multicast: Bool
    /// Whether it has a carrier now (IFF_RUNNING). An interface that is up but still waiting for
    /// its carrier (a link coming up as the device starts) is used too, but chosen last.
    var running: Bool
    /// The same interface as NIO describes it (to join a multicast group on it).
    var device: NIONetworkDevice?

    /// The LAN interfaces of this host: those with a carrier first, otherwise in the kernel's order.
    static func all() -> [LANInterface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        let devices = (try? System.enumerateDevices()) ?? []
        var result: [LANInterface] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard let raw = entry.pointee.ifa_addr, raw.pointee.sa_family == sa_family_t(AF_INET),
                flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
            else { continue }
            let name = String(cString: entry.pointee.ifa_name)
            let address = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            var broadcast: String?
            if flags & Int32(IFF_BROADCAST) != 0 {
                // The configured broadcast address; without one (`ip addr add` without `brd`),
                // getifaddrs reports the address itself, so the subnet's is computed from the mask.
                var configured: in_addr?
                if let raw = entry.pointee.ifa_ifu.ifu_broadaddr, raw.pointee.sa_family == sa_family_t(AF_INET) {
                    configured = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                }
                if let configured, configured.s_addr != 0, configured.s_addr != address.s_addr {
                    broadcast = Self.text(configured)
                } else if let raw = entry.pointee.ifa_netmask, raw.pointee.sa_family == sa_family_t(AF_INET) {
                    let mask = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
                    // /31 and /32 subnets have no broadcast address.
                    if UInt32(bigEndian: mask).nonzeroBitCount < 31 {
                        broadcast = Self.text(in_addr(s_addr: address.s_addr | ~mask))
                    }
                }
            }
            let text = Self.text(address)
            let device = devices.first { $0.name == name && $0.address?.ipAddress == text }
            result.append(
                LANInterface(
                    name: name, address: address, broadcast: broadcast,
                    multicast: flags & Int32(IFF_MULTICAST) != 0,
                    running: flags & Int32(IFF_RUNNING) != 0, device: device))
        }
        return result.filter(\.running) + result.filter { !$0.running }
    }

    static func text(_ address: in_addr) -> String {
        var address = address
        var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        guard inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count)) != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
