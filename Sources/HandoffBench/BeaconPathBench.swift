import Foundation
import HandoffCore
import HandoffNetwork
import NIOCore
import NIOEmbedded

/// `handoff bench --beacon-path N`: what one beacon costs the device that hears it, without the
/// sockets. One started device (a real ``DeviceHost``) hears N peers of its account: their sealed
/// datagrams go through the discovery channel's inbound handler on an embedded channel (its open,
/// judgement and batching, in reads of 32 datagrams as the socket's vector reads give them), and
/// each read's batch through the device's own handling of it
/// (``DeviceHost/beaconHandler(byReply:)``). First a round of newcomers (each peer's first
/// beacon: what the first round of discovery costs), then rounds of refreshes (each peer's next
/// beacon: what every refresh round costs). The datagrams are sealed before the clock starts.
///
/// The work is the same in every run (the peers' IDs come from a fixed seed), so under
/// `valgrind --tool=callgrind` the instructions of ``feedNewcomers(_:)`` and ``feedRefreshes(_:)``
/// divided by the beacons fed are repeatable per-beacon figures, whatever the machine's load.
package enum BeaconPathBench {
    package struct Result: Sendable, Hashable, Codable {
        package var peers: Int
        package var refreshRounds: Int
        /// Wall-clock nanoseconds per beacon of the newcomers' round.
        package var newcomerNanoseconds: Double
        /// Wall-clock nanoseconds per beacon over the refresh rounds.
        package var refreshNanoseconds: Double
        /// Beacons the handler accepted (every one fed, if the path works).
        package var accepted: Int
        /// Peers the device knows at the end.
        package var peersKnown: Int

        package func table() -> String {
            [
                "handoff bench --beacon-path: \(BenchReport.currentBuild) build, \(peers) peers, "
                    + "1 round of newcomers and \(refreshRounds) of refreshes, reads of \(BeaconPathBench.readSize)",
                "",
                "Beacon heard from a newcomer   \(Self.format(newcomerNanoseconds)) µs per beacon",
                "Beacon heard from a known peer \(Self.format(refreshNanoseconds)) µs per beacon",
                "",
                "Accepted \(accepted) of \(peers * (refreshRounds + 1)) beacons; the device knows \(peersKnown) peers.",
            ].joined(separator: "\n")
        }

        static func format(_ nanoseconds: Double) -> String { String(format: "%.2f", nanoseconds / 1000) }
    }

    /// Datagrams per read, as the discovery socket's vector reads give at most.
    package static let readSize = 32

    /// Feeds `peers` peers' beacons, one round of newcomers and `refreshRounds` of refreshes.
    package static func measure(peers: Int, refreshRounds: Int = 3) async throws -> Result {
        precondition(peers > 0 && refreshRounds > 0, "a beacon path needs peers and refresh rounds")
        let world = try BenchWorld(names: ["Bench Listener"])
        do {
            try await world.start()
            let result = try run(
                host: world.hosts[0], sealer: BeaconSealer(accountKey: world.account.beaconKey), peers: peers,
                refreshRounds: refreshRounds)
            await world.shutdown()
            return result
        } catch {
            await world.shutdown()
            throw error
        }
    }

    /// The reads of one round: each datagram as the socket would hand it on.
    struct Round {
        var reads: [[AddressedEnvelope<ByteBuffer>]]
        var channel: EmbeddedChannel
        var host: DeviceHost
        var count: Int { reads.reduce(0) { $0 + $1.count } }
    }

    /// Everything on the calling thread, from the embedded channel's creation to its end.
    static func run(host: DeviceHost, sealer: BeaconSealer, peers: Int, refreshRounds: Int) throws -> Result {
        var generator = SplitMix64(seed: 29)
        let ids = (0..<peers).map { _ in
            DeviceID(UUID(uuid: uuid(generator.next(), generator.next())).uuidString.lowercased())
        }
        // Listening for a minute already: every peer was listening before this device's broadcast,
        // so none is answered (as most newcomers of a discovery of hundreds are not).
        let boot = UInt64((Date().timeIntervalSince1970 - 60) * 1000)
        func round(_ counter: UInt64) throws -> [[AddressedEnvelope<ByteBuffer>]] {
            let now = Date()
            let envelopes = try ids.enumerated().map { index, id in
                let beacon = Beacon(
                    device: PeerInfo(id: id, name: "Bench \(index + 2)", kind: .phone), bootIdentifier: boot,
                    counter: counter, sentAt: now, sessionPort: UInt16(40_000 + index % 20_000), message: .presence)
                return AddressedEnvelope(
                    remoteAddress: try SocketAddress(ipAddress: "127.0.0.1", port: 20_000 + index % 20_000),
                    data: ByteBuffer(bytes: sealer.seal(beacon)))
            }
            return stride(from: 0, to: envelopes.count, by: readSize).map {
                Array(envelopes[$0..<min($0 + readSize, envelopes.count)])
            }
        }
        let handler = BeaconInboundHandler(
            sealer: sealer, ownDevice: host.identity.id, onBeacons: host.beaconHandler(byReply: false))
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(handler)
        let newcomers = Round(reads: try round(1), channel: channel, host: host)
        let refreshes = try (0..<refreshRounds).map {
            Round(reads: try round(UInt64($0 + 2)), channel: channel, host: host)
        }

        var start = BenchClock.now()
        feedNewcomers(newcomers)
        let newcomerTime = BenchClock.now() - start
        start = BenchClock.now()
        feedRefreshes(refreshes)
        let refreshTime = BenchClock.now() - start
        _ = try channel.finish()
        let known = host.performAndWait { _ in host.directory.peers.count }
        return Result(
            peers: peers, refreshRounds: refreshRounds,
            newcomerNanoseconds: Double(newcomerTime) / Double(newcomers.count),
            refreshNanoseconds: Double(refreshTime) / Double(refreshes.reduce(0) { $0 + $1.count }),
            accepted: handler.statistics.accepted, peersKnown: known)
    }

    /// The newcomers' round (its own function, so that a profile tells it apart).
    @inline(never)
    static func feedNewcomers(_ round: Round) { feed(round) }

    /// The refresh rounds (its own function, so that a profile tells it apart).
    @inline(never)
    static func feedRefreshes(_ rounds: [Round]) {
        for round in rounds { feed(round) }
    }

    private static func feed(_ round: Round) {
        for read in round.reads {
            for envelope in read { round.channel.pipeline.fireChannelRead(envelope) }
            round.channel.pipeline.fireChannelReadComplete()
        }
        // Work that found the device's queue busy (a timer of its own) ran there: wait for it.
        round.host.performAndWait { _ in }
    }

    static func uuid(_ high: UInt64, _ low: UInt64) -> uuid_t {
        var value = uuid_t(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { bytes in
            bytes.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return value
    }
}
