import Crypto
import Foundation
import HandoffCore
import HandoffNetwork

/// The beacon's cipher per call: what swift-crypto's AES-GCM costs for one beacon-sized message
/// (the floor: a key made once, nothing else), what it costs when the key is made again for each
/// call (as the sealer did before 2026-11-28), and what a beacon's sealing and opening cost in all
/// (the plaintext layout, the nonce, the datagram's bytes). One thread, `iterations` calls each, every call timed.
enum BeaconCipherBench {
    struct Result: Sendable {
        var librarySeal = LatencySamples()
        var libraryOpen = LatencySamples()
        var keyPerCallSeal = LatencySamples()
        var beaconSeal = LatencySamples()
        var beaconOpen = LatencySamples()
    }

    /// Associated data of a beacon's size and shape, for the floors that seal without `BeaconSealer`.
    static let associatedData = [Beacon.version] + Array("handoff-sim beacon v1".utf8)

    static func measure(iterations: Int) throws -> Result {
        var result = Result()
        let accountKey = SymmetricKey(size: .bits256)
        let sealer = BeaconSealer(accountKey: accountKey)
        let key = SymmetricKey(size: .bits256)
        let keyBytes = key.withUnsafeBytes { Array($0) }
        let plaintext = [UInt8](repeating: 0x42, count: Beacon.maximumLength - 29)
        let associatedData = Self.associatedData
        let beacon = Beacon(
            device: PeerInfo(id: DeviceID(UUID().uuidString.lowercased()), name: "Bench Origin", kind: .laptop),
            bootIdentifier: 1, counter: 1, sentAt: Date(), sessionPort: 40_000,
            message: .advertisement(
                Advertisement(
                    device: DeviceID("bench"), activityTypeHash: ActivityTypeHash(bytes: [1, 2, 3, 4, 5, 6, 7]),
                    teamHash: TeamHash(bytes: [1, 2, 3, 4]), options: [.isEligibleForHandoff], activitySerial: 7,
                    savedAt: Date())))
        var box = try AES.GCM.seal(plaintext, using: key, authenticating: associatedData)
        var datagram = sealer.seal(beacon)
        // Warm up, then time each call.
        for _ in 0..<100 {
            box = try AES.GCM.seal(plaintext, using: key, authenticating: associatedData)
            _ = try AES.GCM.open(box, using: key, authenticating: associatedData)
        }
        for _ in 0..<iterations {
            var start = BenchClock.now()
            box = try AES.GCM.seal(plaintext, using: key, authenticating: associatedData)
            result.librarySeal.append(BenchClock.now() - start)

            start = BenchClock.now()
            let opened = try AES.GCM.open(box, using: key, authenticating: associatedData)
            result.libraryOpen.append(BenchClock.now() - start)
            guard opened.count == plaintext.count else { throw BenchError("AES-GCM opened \(opened.count) bytes") }

            start = BenchClock.now()
            let rebuilt = try AES.GCM.seal(
                plaintext, using: SymmetricKey(data: keyBytes), nonce: AES.GCM.Nonce(),
                authenticating: [Beacon.version] + Array("handoff-sim beacon v1".utf8))
            let old = [Beacon.version] + Array(rebuilt.combined ?? Data())
            result.keyPerCallSeal.append(BenchClock.now() - start)
            guard old.count == Beacon.maximumLength else {
                throw BenchError("a rebuilt-key seal made \(old.count) bytes")
            }

            start = BenchClock.now()
            datagram = sealer.seal(beacon)
            result.beaconSeal.append(BenchClock.now() - start)

            start = BenchClock.now()
            let back = try sealer.open(datagram, receivedAt: Date())
            result.beaconOpen.append(BenchClock.now() - start)
            guard back.counter == beacon.counter else { throw BenchError("a beacon did not open to itself") }
        }
        return result
    }
}
