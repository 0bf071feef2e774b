import Foundation
import HandoffCore
import HandoffProcesses
import HandoffTestSupport
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing

@testable import HandoffNetwork

@Suite struct BeaconChannelTests {
    typealias F = BeaconFixtures

    // MARK: The inbound handler, on an EmbeddedChannel

    @Test func theInboundHandlerPassesOnFreshBeaconsAndCountsEveryDrop() throws {
        let received = Collector<Beacon>()
        let addresses = Collector<SocketAddress>()
        let handler = BeaconInboundHandler(sealer: F.sealer, ownDevice: F.laptopID, now: { F.now }) { beacon, address in
            received.append(beacon)
            addresses.append(address)
        }
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(handler)
        let local = try SocketAddress(ipAddress: "127.0.0.1", port: 47_820)
        func feed(_ bytes: [UInt8], from address: SocketAddress = local) throws {
            try channel.writeInbound(AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes)))
        }

        let first = F.sealer.seal(F.beacon(counter: 1, message: .advertisement(F.advertisement())))
        try feed(first)  // accepted
        try feed(F.sealer.seal(F.beacon(device: F.laptopID, name: "Me", counter: 1)))  // own
        try feed([])  // malformed: empty
        try feed([0xDE, 0xAD, 0xBE, 0xEF])  // malformed: too short
        try feed([UInt8](repeating: 1, count: 1_500))  // malformed: too long
        try feed([2] + first.dropFirst())  // malformed: version
        var generator = SplitMix64(seed: 7)
        try feed([1] + (0..<127).map { _ in UInt8.random(in: 0...255, using: &generator) })  // authentication
        try feed(first)  // duplicate
        let second = F.sealer.seal(F.beacon(counter: 2, message: .goodbye))
        try feed(second)  // accepted
        try feed(first)  // replayed
        try feed(F.otherSealer.seal(F.beacon(device: F.tabletID, counter: 1)))  // other account
        try feed(F.sealer.seal(F.beacon(counter: 3, sentAt: F.now.addingTimeInterval(-3600))))  // stale
        try feed(F.sealer.seal(F.beacon(counter: 4)), from: try SocketAddress(ipAddress: "192.0.2.7", port: 47_820))
        try feed(F.sealer.seal(F.beacon(device: F.tabletID, name: "Tablet", kind: .tablet, counter: 1)))  // accepted

        var expected = BeaconStatistics()
        expected.received = 14
        expected.accepted = 3
        expected.droppedOwn = 1
        expected.droppedMalformed = 4
        expected.droppedAuthentication = 2
        expected.droppedDuplicate = 1
        expected.droppedReplay = 1
        expected.droppedStale = 1
        expected.droppedNotLocal = 1
        #expect(handler.statistics == expected)
        #expect(expected.dropped == 11)
        #expect(received.values.map(\.counter) == [1, 2, 1])
        #expect(received.values.map(\.device.id) == [F.phoneID, F.phoneID, F.tabletID])
        #expect(received.values[1].message == .goodbye)
        guard case .advertisement(let advertisement) = received.values[0].message else {
            Issue.record("expected an advertisement")
            return
        }
        #expect(advertisement.device == F.phoneID)
        #expect(advertisement.savedAt == F.now.addingTimeInterval(-1.5))
        #expect(addresses.values.allSatisfy { $0 == local })
        // Nothing travels further down the pipeline, and the channel is still open.
        #expect(try channel.readInbound(as: AddressedEnvelope<ByteBuffer>.self) == nil)
        #expect(try channel.finish().isClean)
    }

    /// The beacons accepted in one read of the socket are handed on together when it ends, so a
    /// device does its work after a burst of newcomers once; the next read is another batch.
    @Test func theBeaconsOfOneReadAreHandedOnTogether() throws {
        let batches = Collector<[Beacon]>()
        let handler = BeaconInboundHandler(
            sealer: F.sealer, ownDevice: F.laptopID, acceptsOtherHosts: false,
            replayGuard: SharedReplayGuard(ReplayGuard()), counters: BeaconCounters(), now: { F.now },
            onBeacons: { batch in batches.append(batch.map(\.beacon)) })
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(handler)
        let local = try SocketAddress(ipAddress: "127.0.0.1", port: 47_820)
        func read(_ beacons: [Beacon]) {
            for beacon in beacons {
                channel.pipeline.fireChannelRead(
                    AddressedEnvelope(remoteAddress: local, data: ByteBuffer(bytes: F.sealer.seal(beacon))))
            }
            channel.pipeline.fireChannelReadComplete()
        }
        read([F.beacon(counter: 1), F.beacon(counter: 1), F.beacon(device: F.tabletID, counter: 1)])
        #expect(batches.values.map { $0.map(\.device.id) } == [[F.phoneID, F.tabletID]], "the copy was dropped")
        read([F.beacon(counter: 1)])
        #expect(batches.values.count == 1, "a read of nothing new hands on nothing")
        read([F.beacon(counter: 2)])
        #expect(batches.values.map(\.count) == [2, 1])
        #expect(handler.statistics.accepted == 3 && handler.statistics.droppedDuplicate == 2)
        #expect(try channel.finish().isClean)
    }

    @Test func onTheLANBeaconsFromOtherHostsAreAccepted() throws {
        let received = Collector<Beacon>()
        let handler = BeaconInboundHandler(
            sealer: F.sealer, ownDevice: F.laptopID, acceptsOtherHosts: true,
            now: { F.now }
        ) { beacon, _ in received.append(beacon) }
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.writeInbound(
            AddressedEnvelope(
                remoteAddress: try SocketAddress(ipAddress: "192.0.2.7", port: 47_820),
                data: ByteBuffer(bytes: F.sealer.seal(F.beacon()))))
        #expect(handler.statistics.accepted == 1)
        #expect(received.values.count == 1)
        #expect(try channel.finish().isClean)
    }

    @Test func thousandsOfHostileDatagramsNeverCrashTheHandler() throws {
        let handler = BeaconInboundHandler(sealer: F.sealer, ownDevice: F.laptopID, now: { F.now }) { _, _ in
            Issue.record("nothing hostile may pass")
        }
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(handler)
        let local = try SocketAddress(ipAddress: "127.0.0.1", port: 47_820)
        let valid = F.sealer.seal(F.beacon())
        var generator = SplitMix64(seed: 99)
        for round in 0..<3_000 {
            var bytes: [UInt8]
            switch round % 3 {
            case 0:
                bytes = (0..<Int.random(in: 0...300, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            case 1:
                bytes = valid
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(
                        in: 1...255, using: &generator)
                }
            default: bytes = Array(valid.prefix(Int.random(in: 0..<valid.count, using: &generator)))
            }
            try channel.writeInbound(AddressedEnvelope(remoteAddress: local, data: ByteBuffer(bytes: bytes)))
        }
        let statistics = handler.statistics
        #expect(statistics.received == 3_000)
        #expect(statistics.accepted == 0)
        #expect(statistics.droppedMalformed + statistics.droppedAuthentication == 3_000)
        #expect(try channel.finish().isClean)
    }

    // MARK: Real sockets on loopback

    /// Starts channels sharing one random port in 40000–60000, trying other ports if it is taken.
    static func startChannels(
        _ specs: [(sealer: BeaconSealer, device: DeviceID, lan: Bool)],
        onBeacon: @escaping @Sendable (Int, Beacon, SocketAddress) -> Void
    ) async throws -> [BeaconChannel] {
        var lastError: (any Error)?
        for _ in 0..<20 {
            let port = DiscoveryPort.random()
            var started: [BeaconChannel] = []
            do {
                for (index, spec) in specs.enumerated() {
                    started.append(
                        try await BeaconChannel.start(
                            on: MultiThreadedEventLoopGroup.singleton, options: .init(port: port, lan: spec.lan),
                            sealer: spec.sealer, ownDevice: spec.device
                        ) { beacon, address in onBeacon(index, beacon, address) })
                }
                return started
            } catch {
                lastError = error
                for channel in started { await channel.close() }
            }
        }
        throw lastError!
    }

    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return condition()
    }

    @Test func threeChannelsOnOnePortFindTheirAccountOnly() async throws {
        let received = Collector<(Int, Beacon, SocketAddress)>()
        let channels = try await Self.startChannels([
            (F.sealer, F.phoneID, false), (F.sealer, F.laptopID, false), (F.otherSealer, F.tabletID, false),
        ]) { index, beacon, address in received.append((index, beacon, address)) }
        let (a, b, c) = (channels[0], channels[1], channels[2])
        #expect(a.port == b.port && b.port == c.port)
        #expect(a.mode == "loopback broadcast 127.255.255.255:\(a.port)")

        let now = Date()
        let boot = UInt64((now.timeIntervalSince1970 - 5) * 1000)
        a.send(F.beacon(device: F.phoneID, boot: boot, counter: 1, sentAt: now, port: 50_001))
        b.send(
            F.beacon(
                device: F.laptopID, name: "Laptop", kind: .laptop, boot: boot, counter: 1, sentAt: now,
                port: 50_002, message: .advertisement(F.advertisement(device: F.laptopID, savedAt: now))))
        c.send(F.beacon(device: F.tabletID, boot: boot, counter: 1, sentAt: now, port: 50_003))
        a.send(F.beacon(device: F.phoneID, boot: boot, counter: 2, sentAt: now, port: 50_001, message: .leaving))

        // Each channel hears the others' broadcasts; its own never reach it: the kernel's filter
        // on its discovery socket drops them before they are queued (nothing to open and drop).
        let settled = await Self.eventually {
            a.statistics.received == 2 && b.statistics.received == 3 && c.statistics.received == 3
        }
        #expect(settled)
        try? await Task.sleep(nanoseconds: 50_000_000)
        let (sa, sb, sc) = (a.statistics, b.statistics, c.statistics)
        #expect(sa.received == 2 && sb.received == 3 && sc.received == 3)
        #expect(sa.sent == 2 && sb.sent == 1 && sc.sent == 1)
        #expect(sa.accepted == 1 && sa.droppedAuthentication == 1)
        #expect(sb.accepted == 2 && sb.droppedAuthentication == 1)
        #expect(sc.accepted == 0 && sc.droppedAuthentication == 3)
        #expect([sa, sb, sc].allSatisfy { $0.droppedOwn == 0 })
        #expect([sa, sb, sc].allSatisfy { $0.sendFailures == 0 && $0.droppedMalformed == 0 })

        let seenByA = received.values.filter { $0.0 == 0 }
        #expect(seenByA.map(\.1.device.id) == [F.laptopID])
        #expect(seenByA.first?.1.sessionPort == 50_002)
        #expect(seenByA.first?.2.ipAddress == "127.0.0.1")
        if case .advertisement(let advertisement)? = seenByA.first?.1.message {
            #expect(advertisement.device == F.laptopID)
        } else {
            Issue.record("A should have seen B's advertisement")
        }
        let seenByB = received.values.filter { $0.0 == 1 }
        #expect(seenByB.map(\.1.message) == [.presence, .leaving])
        #expect(!received.values.contains { $0.0 == 2 })

        for channel in channels { await channel.close() }
    }

    @Test func aLANChannelStillMeetsLoopbackPeersAndSaysWhichModeItUses() async throws {
        let received = Collector<(Int, Beacon)>()
        let channels = try await Self.startChannels([(F.sealer, F.phoneID, true), (F.sealer, F.laptopID, false)]) {
            index, beacon, _ in received.append((index, beacon))
        }
        let (lan, local) = (channels[0], channels[1])
        #expect(lan.mode.hasPrefix("loopback broadcast 127.255.255.255:\(lan.port) + "))
        #expect(lan.mode.contains("multicast 239.255.72.79") || lan.mode.contains("broadcast 255.255.255.255"))
        let now = Date()
        lan.send(F.beacon(device: F.phoneID, counter: 1, sentAt: now))
        local.send(F.beacon(device: F.laptopID, counter: 1, sentAt: now))
        // The whole outcome, waited for: both accepted the other's beacon, and the LAN channel's
        // own copy came back (multicast loop or LAN broadcast, on its own schedule) and was dropped.
        let met = await Self.eventually {
            lan.statistics.accepted == 1 && local.statistics.accepted == 1 && lan.statistics.droppedOwn >= 1
        }
        #expect(met, "\(lan.statistics)")
        // Copies that came another way (multicast loop, LAN broadcast) are dropped, never accepted twice.
        try? await Task.sleep(nanoseconds: 100_000_000)
        #expect(lan.statistics.accepted == 1 && local.statistics.accepted == 1)
        #expect(received.values.map(\.0).sorted() == [0, 1])
        for channel in channels { await channel.close() }
    }
}
