import Foundation
import HandoffCore
import NIOCore
import Synchronization
import Testing

@testable import HandoffBench
@testable import HandoffNetwork

/// The `lifecycle` session frame (docs/wire.md, "Lifecycle sharing"): a round trip, and hostile
/// bodies refused with an error naming what is wrong.
@Suite("Lifecycle sharing: the frame")
struct LifecycleShareFrameTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000.25)

    static func sampleEntries() -> [LifecycleEntry] {
        let activity = ActivityReference(
            id: UUID(), activityType: "com.example.reader.reading", title: "Guide",
            bundleIdentifier: "com.example.reader")
        let peer = PeerReference(id: DeviceID(rawValue: "beta-id"), name: "Beta")
        let continuation = ContinuationID()
        let info: UserInfoSnapshot = [
            "page": .integer(3), "title": .string("Guide"), "zoom": .double(1.5), "dark": .bool(true),
        ]
        let events = [
            LifecycleEvent(time: t0, device: "Alpha", .payloadRequested(continuation, peer, activity)),
            LifecycleEvent(
                time: t0.addingTimeInterval(0.004), device: "Alpha",
                .saved(activity, reason: .beforeSending, userInfo: info, continuation: continuation)),
            LifecycleEvent(
                time: t0.addingTimeInterval(0.006), device: "Alpha",
                .payloadSent(continuation, peer, activity, bytes: 412, userInfo: info)),
        ]
        return events.map(LifecycleEntry.init)
    }

    static func encoded(_ share: LifecycleShare) throws -> ByteBuffer {
        var out = ByteBuffer()
        try SessionFrameEncoder().encode(data: .lifecycle(share), out: &out)
        return out
    }

    static func decode(_ buffer: ByteBuffer) throws -> SessionFrame {
        var buffer = buffer
        let prefix = buffer.readInteger(as: UInt32.self)
        let length = try #require(prefix)
        #expect(Int(length) == buffer.readableBytes)
        return try SessionFrameDecoder.decodeBody(&buffer)
    }

    /// A frame body: version, the lifecycle type, then `rest`.
    static func body(_ rest: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(HandoffNetwork.protocolVersion)
        buffer.writeInteger(SessionFrame.Kind.lifecycle.rawValue)
        buffer.writeBytes(rest)
        return buffer
    }

    static func field(_ key: String, string: String) -> [UInt8] {
        [UInt8(key.utf8.count)] + Array(key.utf8) + [1, UInt8(string.utf8.count >> 8), UInt8(string.utf8.count & 0xff)]
            + Array(string.utf8)
    }

    /// One entry's required fields.
    static let required: [UInt8] =
        field("time", string: "2026-11-24T09:30:00.250Z") + field("device", string: "Alpha")
        + field("kind", string: "payloadSent")

    static func expectRefused(
        _ rest: [UInt8], saying words: String..., sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var buffer = body(rest)
        do {
            let frame = try SessionFrameDecoder.decodeBody(&buffer)
            Issue.record("decoded \(frame)", sourceLocation: sourceLocation)
        } catch {
            let text = "\(error)"
            for word in words { #expect(text.contains(word), "\(text)", sourceLocation: sourceLocation) }
        }
    }

    @Test func aShareRoundTripsWithEveryKindOfValue() throws {
        let share = LifecycleShare(entries: Self.sampleEntries(), dropped: 7)
        let decoded = try Self.decode(try Self.encoded(share))
        #expect(decoded == .lifecycle(share))
        guard case .lifecycle(let back) = decoded else { return }
        #expect(back.entries[2].kind == .payloadSent)
        #expect(back.entries[2].userInfo?["page"] == .integer(3))
        #expect(back.entries[2].integer("size") == 412)
        #expect(back.entries[0].peer == "Beta")
        #expect(back.entries[0].time == Self.t0)
        #expect(back.dropped == 7)
    }

    /// The fuzzers' seed (Fuzz/Sources/fuzz-seeds) round-trips too.
    @Test func theFuzzSeedRoundTrips() throws {
        let frame = SessionFrame.lifecycle(
            LifecycleShare(
                entries: [
                    LifecycleEntry(
                        LifecycleEvent(
                            time: Date(timeIntervalSince1970: 1_800_000_000.25), device: "Laptop 1",
                            .payloadSent(
                                ContinuationID(rawValue: UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!),
                                PeerReference(id: DeviceID(rawValue: "phone-1"), name: "Phone 1"),
                                ActivityReference(
                                    id: UUID(uuidString: "6B1E8B7A-2C4D-4E5F-9A0B-1C2D3E4F5A6B")!,
                                    activityType: "com.example.reader.reading", bundleIdentifier: "com.example.reader"),
                                bytes: 412, userInfo: ["page": .integer(3), "zoom": .double(1.5), "dark": .bool(true)]))
                    )
                ], dropped: 2))
        var out = ByteBuffer()
        try SessionFrameEncoder().encode(data: frame, out: &out)
        #expect(try Self.decode(out) == frame)
    }

    @Test func anEmptyShareAndAnUnknownKindDecode() throws {
        #expect(
            try Self.decode(try Self.encoded(LifecycleShare(entries: []))) == .lifecycle(LifecycleShare(entries: [])))
        // A newer peer's kind is kept as text (the receiving host drops it; the frame is sound).
        var buffer = Self.body(
            [0, 0, 0, 0, 0, 1, 3] + Self.field("time", string: "2026-11-24T09:30:00.250Z")
                + Self.field("device", string: "Alpha") + Self.field("kind", string: "somethingNew"))
        let frame = try SessionFrameDecoder.decodeBody(&buffer)
        guard case .lifecycle(let share) = frame else {
            Issue.record("not a lifecycle frame")
            return
        }
        #expect(share.entries[0].kind == nil)
        #expect(share.entries[0].kindName == "somethingNew")
    }

    @Test func hostileBodiesAreRefusedWithWhatIsWrong() {
        let header: [UInt8] = [0, 0, 0, 0]
        Self.expectRefused([0, 0], saying: "truncated lifecycle frame header")
        Self.expectRefused(header + [0, 65], saying: "65 events", "at most 64")
        Self.expectRefused(header + [0, 2, 3] + Self.required, saying: "truncated lifecycle event #2")
        Self.expectRefused(header + [0, 1, 49], saying: "49 fields")
        Self.expectRefused(header + [0, 1, 1, 0], saying: "a key must be 1 to 64 bytes")
        Self.expectRefused(header + [0, 1, 1, 2, 0xff, 0xfe, 1, 0, 0], saying: "key is not UTF-8")
        Self.expectRefused(
            header + [0, 1, 2] + Self.field("time", string: "x") + Self.field("time", string: "y"),
            saying: "key \"time\" twice")
        Self.expectRefused(header + [0, 1, 1, 1, 0x61, 9], saying: "field \"a\"", "unknown value type 9")
        Self.expectRefused(header + [0, 1, 1, 1, 0x61, 1, 0x10, 0x01], saying: "4097 bytes", "at most 4096")
        Self.expectRefused(
            header + [0, 1, 1, 1, 0x61, 1, 0, 5, 0x61], saying: "truncated lifecycle event #1, field \"a\"")
        Self.expectRefused(
            header + [0, 1, 1, 1, 0x61, 3] + withUnsafeBytes(of: Double.nan.bitPattern.bigEndian, Array.init),
            saying: "not a finite number")
        Self.expectRefused(header + [0, 1, 1, 1, 0x61, 4, 2], saying: "a truth value is 0 or 1")
        Self.expectRefused(header + [0, 1, 1, 1, 0x61, 5, 0, 1, 0, 0], saying: "65536 bytes", "at most 16384")
        Self.expectRefused(header + [0, 1, 1, 1, 0x61, 5, 0, 0, 0, 3, 1, 2, 3], saying: "field \"a\"")
        Self.expectRefused(header + [0, 1, 1] + Self.field("device", string: "Alpha"), saying: "must have \"time\"")
        Self.expectRefused(
            header + [0, 1, 3] + Self.field("time", string: "yesterday") + Self.field("device", string: "Alpha")
                + Self.field("kind", string: "saved"), saying: "must have \"time\" (ISO 8601)")
        Self.expectRefused(header + [0, 1, 3] + Self.required + [0], saying: "1 trailing bytes")
        Self.expectRefused(
            header + [0, 0] + Array(repeating: 0, count: LifecycleShare.maximumBodyBytes),
            saying: "exceeds the 262144-byte limit")
    }

    @Test func aUserInfoTooBigToShareIsLeftOutWithItsSize() throws {
        let big: UserInfoSnapshot = ["text": .string(String(repeating: "x", count: 40_000))]
        let event = LifecycleEvent(
            time: Self.t0, device: "Alpha",
            .saved(
                ActivityReference(id: UUID(), activityType: "t", bundleIdentifier: "b"), reason: .beforeSending,
                userInfo: big, continuation: nil))
        let entry = LifecycleSharing.entry(event)
        #expect(entry.userInfo == nil)
        #expect((entry.integer("userInfoOmitted") ?? 0) > 40_000)
        let share = LifecycleShare(entries: [entry])
        #expect(try Self.decode(try Self.encoded(share)) == .lifecycle(share))
    }
}

/// Devices of one account see each other's lifecycle when they share it; a device of another
/// account never receives it, even when a sharing device is pointed at it.
@Suite("Lifecycle sharing between devices", .serialized)
struct LifecycleSharingTests {
    final class Inbox: Sendable {
        let items = Mutex<[(peer: String, entries: [LifecycleEntry])]>([])
    }

    final class World: Sendable {
        let directory: URL
        let hosts: [DeviceHost]
        /// What each host received: (from, entries).
        let received: [Inbox]

        /// Devices named `names` in `accounts` (by index), all on one discovery port unless `apart`
        /// (then each on its own: they never hear each other's beacons).
        init(_ devices: [(name: String, account: String, shares: Bool)], apart: Bool = false) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "handoff-share-\(UUID().uuidString)")
            let store = AccountStore(directory: directory)
            let shared = try FloorBench.freeUDPPort()
            var accounts: [String: Account] = [:]
            var hosts: [DeviceHost] = []
            var received: [Inbox] = []
            for device in devices {
                let account = try accounts[device.account] ?? store.createAccount(named: device.account)
                accounts[device.account] = account
                let identity = try store.deviceIdentity(named: device.name, kind: .phone, in: account.name)
                var options = NetworkOptions(
                    discoveryPort: apart ? try FloorBench.freeUDPPort() : shared, lan: false, timing: .instant)
                options.shareLifecycle = device.shares
                let host = try DeviceHost(identity: identity, account: account, store: store, options: options)
                hosts.append(host)
                received.append(Inbox())
            }
            self.hosts = hosts
            self.received = received
            for (index, host) in hosts.enumerated() {
                let box = self.received[index]
                host.performAndWait { _ in
                    host.onSharedLifecycle = { peer, entries, _ in
                        box.items.withLock { $0.append((peer.name, entries)) }
                    }
                }
            }
        }

        func start() async throws {
            for host in hosts { try await host.start() }
        }

        func shutdown() async {
            for host in hosts { await host.shutdown() }
            try? FileManager.default.removeItem(at: directory)
        }

        func entries(on index: Int) -> [(peer: String, entries: [LifecycleEntry])] {
            received[index].items.withLock { $0 }
        }
    }

    final class Counter: Sendable {
        let value = Mutex(0)
    }

    static let manifest = AppManifest(
        bundleIdentifier: "com.handoffsim.tests.sharing", teamIdentifier: "SIMTEAM001",
        displayName: "Sharing", activityTypes: ["com.handoffsim.tests.sharing.reading"])

    /// Makes an activity current on `host` (recording activityCreated, becameCurrent, advertised).
    static func makeActivity(on host: DeviceHost, page: Int) {
        host.performAndWait { device in
            let application = device.application(manifest.bundleIdentifier) ?? device.install(manifest)
            device.bringToFront(application)
            guard
                let activity = try? UserActivity(
                    activityType: "com.handoffsim.tests.sharing.reading", application: application)
            else { return }
            activity.userInfo = ["page": .integer(Int64(page))]
            activity.becomeCurrent()
        }
    }

    static func waitUntil(_ what: String, timeout: Duration = .seconds(30), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out after \(timeout) waiting for \(what)")
                throw CancellationError()
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    @Test func sharingIsOffUnlessAskedForAndBounded() {
        let options = NetworkOptions()
        #expect(options.shareLifecycle == false)
        #expect(
            options.lifecycleSharingPolicy
                == LifecycleSharingPolicy(eventsPerSecond: 100, backlog: 64, batchDelay: 0.05))
        // Nonsense values are clamped, never a zero rate.
        #expect(
            LifecycleSharingPolicy(eventsPerSecond: 0, backlog: -1, batchDelay: -1)
                == LifecycleSharingPolicy(eventsPerSecond: 1, backlog: 0, batchDelay: 0))
    }

    @Test func aPeerOfTheAccountReceivesTheEventsAndAnotherAccountNever() async throws {
        let world = try World([("Alpha", "one", true), ("Beta", "one", false), ("Gamma", "two", true)])
        do {
            try await world.start()
            let (alpha, beta, gamma) = (world.hosts[0], world.hosts[1], world.hosts[2])
            let betaID = beta.identity.id
            let alphaID = alpha.identity.id
            try await Self.waitUntil("Alpha and Beta to meet") {
                alpha.performAndWait { _ in alpha.directory.peers[betaID] != nil }
                    && beta.performAndWait { _ in beta.directory.peers[alphaID] != nil }
            }
            // Gamma hears beacons it cannot open: it never knows Alpha. Point Alpha at Gamma anyway.
            let gammaInfo = gamma.identity.peerInfo
            let gammaPort = gamma.sessionPort
            alpha.performAndWait { _ in
                _ = alpha.directory.heard(
                    gammaInfo, from: try! SocketAddress(ipAddress: "127.0.0.1", port: 0),
                    sessionPort: UInt16(gammaPort), boot: 1, now: Date())
            }
            Self.makeActivity(on: alpha, page: 3)
            try await Self.waitUntil("Alpha's events on Beta") {
                let kinds = world.entries(on: 1).flatMap(\.entries).compactMap(\.kind)
                return kinds.contains(.becameCurrent) && kinds.contains(.advertised)
            }
            let onBeta = world.entries(on: 1)
            #expect(onBeta.allSatisfy { $0.peer == "Alpha" })
            #expect(onBeta.flatMap(\.entries).allSatisfy { $0.device == "Alpha" })
            // A second change reaches Beta too, after which Alpha has tried Gamma twice.
            Self.makeActivity(on: alpha, page: 4)
            try await Self.waitUntil("Alpha's second activity on Beta") {
                world.entries(on: 1).flatMap(\.entries).filter { $0.kind == .activityCreated }.count >= 2
            }
            try await Task.sleep(nanoseconds: 300_000_000)
            #expect(world.entries(on: 2).isEmpty, "Gamma, of another account, received \(world.entries(on: 2))")
            // Beta does not share: Alpha received nothing from it.
            #expect(world.entries(on: 0).isEmpty)
        } catch {
            await world.shutdown()
            throw error
        }
        await world.shutdown()
    }

    /// A batch that does not reach a peer (its session could not open: on a loaded machine the
    /// handshake can miss its deadline) is not lost: the peer is tried again and gets the recent
    /// events, which end with what it missed.
    @Test func aPeerThatABatchMissedGetsItWhenTriedAgain() async throws {
        let world = try World([("Alpha", "one", true), ("Beta", "one", false)], apart: true)
        do {
            try await world.start()
            let (alpha, beta) = (world.hosts[0], world.hosts[1])
            let betaInfo = beta.identity.peerInfo
            let betaPort = beta.sessionPort
            // Alpha knows Beta only from here (they hear no beacons of each other), first at a port
            // where nothing listens.
            let nowhere = try SocketAddress(ipAddress: "127.0.0.1", port: 1)
            alpha.performAndWait { _ in
                _ = alpha.directory.heard(betaInfo, from: nowhere, sessionPort: 1, boot: 1, now: Date())
            }
            Self.makeActivity(on: alpha, page: 3)
            try await Self.waitUntil("Alpha to find that its batch missed Beta") {
                alpha.performAndWait { _ in
                    alpha.directory.heard(betaInfo, from: nowhere, sessionPort: 1, boot: 1, now: Date())
                    return alpha.lifecycleSharing?.peersAwaitingRetry.contains(betaInfo.id) == true
                }
            }
            #expect(world.entries(on: 1).isEmpty)
            let there = try SocketAddress(ipAddress: "127.0.0.1", port: betaPort)
            try await Self.waitUntil("the missed events on Beta") {
                alpha.performAndWait { _ in
                    _ = alpha.directory.heard(
                        betaInfo, from: there, sessionPort: UInt16(betaPort), boot: 1, now: Date())
                }
                let kinds = world.entries(on: 1).flatMap(\.entries).compactMap(\.kind)
                return kinds.contains(.becameCurrent) && kinds.contains(.advertised)
            }
            try await Self.waitUntil("Alpha to stop trying Beta again") {
                alpha.performAndWait { _ in alpha.lifecycleSharing?.peersAwaitingRetry.isEmpty == true }
            }
        } catch {
            await world.shutdown()
            throw error
        }
        await world.shutdown()
    }

    @Test func theRateLimitLeavesEventsOutAndSaysHowMany() async throws {
        let world = try World([("Alpha", "one", true), ("Beta", "one", false)])
        do {
            try await world.start()
            let (alpha, beta) = (world.hosts[0], world.hosts[1])
            let betaID = beta.identity.id
            try await Self.waitUntil("Alpha to know Beta") {
                alpha.performAndWait { _ in alpha.directory.peers[betaID] != nil }
            }
            let dropped = Counter()
            beta.performAndWait { _ in
                let previous = beta.onSharedLifecycle
                beta.onSharedLifecycle = { peer, entries, count in
                    previous?(peer, entries, count)
                    dropped.value.withLock { $0 += count }
                }
            }
            // 150 activities made current in one turn of the queue: 300 events and more, over 100 a second.
            alpha.performAndWait { device in
                let application = device.install(Self.manifest)
                device.bringToFront(application)
                for page in 0..<150 {
                    guard
                        let activity = try? UserActivity(
                            activityType: "com.handoffsim.tests.sharing.reading", application: application)
                    else { continue }
                    activity.userInfo = ["page": .integer(Int64(page))]
                    activity.becomeCurrent()
                }
            }
            // One more event after the burst carries the count of what was left out.
            try await Task.sleep(nanoseconds: 1_100_000_000)
            Self.makeActivity(on: alpha, page: 999)
            try await Self.waitUntil("the count of left-out events on Beta") { dropped.value.withLock { $0 } > 0 }
            let shared = world.entries(on: 1).flatMap(\.entries).count
            #expect(shared <= 100 + LifecycleSharingPolicy().backlog + 10)
            #expect(shared + dropped.value.withLock { $0 } >= 300)
        } catch {
            await world.shutdown()
            throw error
        }
        await world.shutdown()
    }
}
