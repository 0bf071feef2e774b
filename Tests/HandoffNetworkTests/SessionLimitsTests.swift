import Foundation
import HandoffCore
import HandoffTestSupport
import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization
import Testing

@testable import HandoffNetwork

#if canImport(Glibc)
import Glibc
#endif

/// What bounds a session: the read budget across connections, the handshake deadline and gate,
/// the idle closer, and a deadline that does not wait for an operation ignoring cancellation.
@Suite("Session limits", .ownThread)
struct SessionLimitsTests {
    func reader(_ budget: SessionReadBudget, maximum: Int = 8 << 20) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(SessionFrameReader(maximumFrameLength: maximum, budget: budget))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        return channel
    }

    @Test func aFrameHoldsOnlyTheBytesThatArrivedNotItsAnnouncedLength() throws {
        let budget = SessionReadBudget(total: 64 << 20)
        let channel = try reader(budget)
        // A payload answer of 8 MiB announced (kind 3), 3 bytes sent.
        try channel.writeInbound(ByteBuffer(bytes: [0x00, 0x80, 0x00, 0x00, HandoffNetwork.protocolVersion, 3, 1]))
        #expect(budget.inUse == 3)  // the version and type bytes and one body byte
        // The connection ends: the bytes are given back.
        _ = try channel.finish()
        #expect(budget.inUse == 0)
    }

    @Test func connectionsTogetherCannotHoldMoreThanTheBudget() throws {
        let budget = SessionReadBudget(total: 100_000)
        let first = try reader(budget)
        let second = try reader(budget)
        let header: [UInt8] = [0x00, 0x01, 0x00, 0x00, HandoffNetwork.protocolVersion, 9]  // 64 KiB announced
        try first.writeInbound(ByteBuffer(bytes: header + Array(repeating: 1, count: 60_000)))
        #expect(first.isActive)
        // The second would take the device past its budget: it is refused and closed, with a message.
        #expect {
            try second.writeInbound(ByteBuffer(bytes: header + Array(repeating: 2, count: 50_000)))
        } throws: { error in
            "\(error)".contains("no room for the frame") && "\(error)".contains("budget 100000")
        }
        #expect(!second.isActive)
        #expect(first.isActive)
        #expect(budget.inUse == 60_002)
        // The first completes its frame: delivered, bytes given back.
        try first.writeInbound(ByteBuffer(bytes: Array(repeating: 1, count: 65_536 - 60_002)))
        guard case .streamData(let data)? = try first.readInbound(as: SessionFrame.self) else {
            Issue.record("no frame")
            return
        }
        #expect(data.readableBytes == 65_534)
        #expect(budget.inUse == 0)
    }

    @Test func theHandshakeDeadlineClosesTheChannel() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        let promise = loop.makePromise(of: Void.self)
        let gate = HandshakeGate(total: 4, perAddress: 4)
        try channel.pipeline.syncOperations.addHandler(
            HandshakeObserver(promise: promise, deadline: .seconds(2), gate: gate))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        #expect(channel.isActive)
        #expect(gate.statistics.members == 1)
        loop.advanceTime(by: .milliseconds(1999))
        #expect(channel.isActive)
        loop.advanceTime(by: .milliseconds(2))
        #expect(!channel.isActive)
        #expect(throws: SessionError.self) { try promise.futureResult.wait() }
        #expect(gate.statistics.members == 0)
    }

    @Test func theGateClosesTheOldestPendingConnectionToAdmitANewOne() throws {
        let gate = HandshakeGate(total: 3, perAddress: 2)
        func connected(_ address: String) throws -> EmbeddedChannel {
            let channel = EmbeddedChannel()
            try channel.connect(to: SocketAddress(ipAddress: address, port: 9)).wait()
            gate.admit(channel)
            return channel
        }
        let a1 = try connected("10.0.0.1")
        let a2 = try connected("10.0.0.1")
        let a3 = try connected("10.0.0.1")  // over the per-address cap: a1 goes
        #expect(!a1.isActive && a2.isActive && a3.isActive)
        let b1 = try connected("10.0.0.2")
        let b2 = try connected("10.0.0.2")  // over the total: the oldest overall (a2) goes
        #expect(!a2.isActive && a3.isActive && b1.isActive && b2.isActive)
        #expect(gate.statistics.members == 3)
        #expect(gate.statistics.evicted == 2)
        gate.release(b1)
        #expect(gate.statistics.members == 2)
        for channel in [a1, a2, a3, b1, b2] { _ = try? channel.finish() }
    }

    @Test func anIdleSessionIsClosedAndActivityPostponesIt() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(IdleCloser(timeout: .seconds(10)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        loop.advanceTime(by: .seconds(8))
        try channel.writeInbound(SessionFrame.streamEnd)
        loop.advanceTime(by: .seconds(8))
        #expect(channel.isActive, "a frame 8 s ago: not idle yet")
        try channel.writeOutbound(SessionFrame.streamEnd)
        loop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }

    /// That the deadline returns at all is the behaviour; how soon depends on the machine (the
    /// deadline's timer shares the cooperative pool with every other suite: a loaded CI run took
    /// 32 s for 0.2 s). A hang is caught by the time limit.
    @Test(.timeLimit(.minutes(2)))
    func aDeadlineReturnsWhenTheOperationIgnoresCancellation() async throws {
        final class Latch: Sendable { let waiter = Mutex<CheckedContinuation<Void, Never>?>(nil) }
        let release = Latch()
        await #expect(throws: SessionError.self) {
            try await withDeadline(0.2, "a stuck operation") {
                // Never honours cancellation: only `release` ends it.
                await withCheckedContinuation { continuation in release.waiter.withLock { $0 = continuation } }
            }
        }
        // Let the operation end (it may not have started waiting yet on a busy machine).
        while true {
            if let waiter = release.waiter.withLock({ value -> CheckedContinuation<Void, Never>? in
                defer { value = nil }
                return value
            }) {
                waiter.resume()
                break
            }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    @Test func aDeadlinePassesTheResultOnWhenTheOperationIsInTime() async throws {
        let value = try await withDeadline(30, "a quick operation") { 42 }
        #expect(value == 42)
        await #expect(throws: CancellationError.self) {
            try await withDeadline(30, "cancelled") { throw CancellationError() }
        }
    }
}

@Suite("Random identifiers", .ownThread)
struct RandomIdentifierTests {
    @Test func identifiersAreVersion4AndNeverRepeat() {
        var seen = Set<UUID>()
        for _ in 0..<10_000 {
            let id = RandomIdentifier.uuid()
            let text = id.uuidString
            #expect(Array(text)[14] == "4")
            #expect("89AB".contains(Array(text)[19]))
            #expect(seen.insert(id).inserted)
        }
        #expect(!seen.contains(UUID(uuidString: "00000000-0000-4000-8000-000000000000")!))
    }

    /// The pool of read-ahead bytes is shared: threads taking identifiers at once, across many
    /// refills, still never get one twice.
    @Test func identifiersTakenOnManyThreadsAtOnceNeverRepeat() async {
        let batches = await withTaskGroup(of: [UUID].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<2_000).map { _ in RandomIdentifier.uuid() } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let all = batches.flatMap { $0 }
        #expect(all.count == 16_000)
        #expect(Set(all).count == all.count)
    }
}

/// Inputs the fuzzers found (Fuzz/, docs/fuzzing.md), kept as regressions.
@Suite("Fuzzing regressions: network", .ownThread)
struct NetworkFuzzRegressionTests {
    @Test func aHelloNameThatIsNotUTF8IsAProtocolError() throws {
        // Found by fuzz-session-frame: invalid UTF-8 was repaired with U+FFFD instead of refused.
        var body = ByteBuffer(bytes: [HandoffNetwork.protocolVersion, 1, 0, 3, 0xA6, 0xA6, 0xA6])
        #expect { _ = try SessionFrameDecoder.decodeBody(&body) } throws: {
            "\($0)".contains("hello name is not UTF-8")
        }
        var reason = ByteBuffer(bytes: [HandoffNetwork.protocolVersion, 8, 0xFF, 0xFE])
        #expect { _ = try SessionFrameDecoder.decodeBody(&reason) } throws: { "\($0)".contains("not UTF-8") }
    }

    @Test func aBeaconsExpiryEncodesTheSameAfterDecoding() throws {
        // Found by fuzz-beacon-plaintext: seconds as a difference of doubles rounded up one too many.
        let sent = Date(timeIntervalSince1970: 4_294_967.296)
        for expiry in [UInt32(15_987_657), 1, 59, 3_600, 0xFFFF_FFFE] {
            let advertisement = Advertisement(
                device: DeviceID("x"), activityTypeHash: ActivityTypeHash(bytes: Array(repeating: 1, count: 7)),
                teamHash: TeamHash(bytes: [1, 2, 3, 4]), options: Advertisement.Options(rawValue: 0),
                activitySerial: 1, savedAt: sent, expiresAt: nil)
            var plaintext = BeaconSealer.encode(
                Beacon(
                    device: PeerInfo(id: DeviceID("6b1e8b7a-2c4d-4e5f-9a0b-1c2d3e4f5a6b"), name: "P", kind: .phone),
                    bootIdentifier: 1, counter: 1, sentAt: sent, sessionPort: 1,
                    message: .advertisement(advertisement)))
            // expiresIn at plaintext offset 64.
            plaintext.replaceSubrange(64..<68, with: withUnsafeBytes(of: expiry.bigEndian) { Array($0) })
            let decoded = try BeaconSealer.decode(plaintext, receivedAt: nil)
            #expect(BeaconSealer.encode(decoded) == plaintext, "expiresIn \(expiry)")
        }
    }
}

/// The caps on established sessions, and accepting when descriptors run out.
@Suite("Session roster and accept pause", .ownThread)
struct SessionRosterTests {
    func connected(_ address: String = "127.0.0.1") throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: address, port: 9)).wait()
        return channel
    }

    @Test func theIdlestSessionOfThePeerGoesFirstAndActivityKeepsOneOpen() throws {
        let roster = ConnectionRoster<DeviceID>(total: 10, perGroup: 3)
        let mallory = DeviceID("mallory")
        let phone = DeviceID("phone")
        let m1 = try connected()
        let m2 = try connected()
        let m3 = try connected()
        for channel in [m1, m2, m3] { roster.admit(channel, group: mallory) }
        roster.touch(m1)  // m1 is now the most recently active: m2 is the idlest
        let m4 = try connected()
        roster.admit(m4, group: mallory)
        #expect(m1.isActive && !m2.isActive && m3.isActive && m4.isActive)
        // Another peer is not touched by Mallory's cap.
        let p1 = try connected()
        roster.admit(p1, group: phone)
        #expect(p1.isActive)
        #expect(roster.count(of: mallory) == 3 && roster.count(of: phone) == 1)
        #expect(roster.statistics.members == 4 && roster.statistics.evicted == 1)
        for channel in [m1, m2, m3, m4, p1] { _ = try? channel.finish() }
    }

    @Test func overTheTotalTheIdlestOfAnyPeerGoes() throws {
        let roster = ConnectionRoster<DeviceID>(total: 3, perGroup: 3)
        let a = try connected()
        let b = try connected()
        let c = try connected()
        roster.admit(a, group: DeviceID("a"))
        roster.admit(b, group: DeviceID("b"))
        roster.admit(c, group: DeviceID("c"))
        roster.touch(a)
        let d = try connected()
        roster.admit(d, group: DeviceID("d"))
        #expect(a.isActive && !b.isActive && c.isActive && d.isActive)
        roster.release(c)
        #expect(roster.statistics.members == 2)
        for channel in [a, b, c, d] { _ = try? channel.finish() }
    }

    @Test func capsFollowTheDescriptorsLeft() {
        #expect(DescriptorLimit.cap(128, share: 0.5, soft: 1024) == 128)
        #expect(DescriptorLimit.cap(128, share: 0.5, soft: 128) == 40)
        #expect(DescriptorLimit.cap(64, share: 0.25, soft: 128) == 20)
        #expect(DescriptorLimit.cap(128, share: 0.5, soft: 16) == 4)
    }

    @Test func runningOutOfDescriptorsPausesAcceptingAndItResumes() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await ServerBootstrap(group: group)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(AcceptPause()) }
            }
            .childChannelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        #expect(try await server.getOption(.autoRead).get())
        // What NIO fires when accept(2) fails with EMFILE.
        server.pipeline.fireErrorCaught(IOError(errnoCode: EMFILE, reason: "accept"))
        #expect(try await server.getOption(.autoRead).get() == false)
        // On again after the first delay (10 ms).
        let deadline = ContinuousClock.now + .seconds(5)
        while try await server.getOption(.autoRead).get() == false, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(try await server.getOption(.autoRead).get())
        // Other errors pass on untouched.
        server.pipeline.fireErrorCaught(IOError(errnoCode: ECONNABORTED, reason: "accept"))
        #expect(try await server.getOption(.autoRead).get())
        try await server.close()
        try await group.shutdownGracefully()
    }
}
