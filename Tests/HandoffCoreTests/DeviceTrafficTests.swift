import Foundation
import Testing

@testable import HandoffCore

/// The inspector's record of beacons: the last one of each peer, for the 32 peers heard last.
@Suite("Device traffic: kept beacons")
struct DeviceTrafficTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func beacon(_ peer: Int, byte: UInt8 = 0, at time: Date) -> DeviceTraffic.Beacon {
        DeviceTraffic.Beacon(
            peer: PeerInfo(id: DeviceID("peer-\(peer)"), name: "Peer \(peer)", kind: .phone), datagram: [byte],
            time: time)
    }

    @Test func eachPeersLastBeaconIsKept() {
        var traffic = DeviceTraffic()
        traffic.keep(beacon(1, byte: 1, at: t0))
        traffic.keep(beacon(2, byte: 2, at: t0))
        traffic.keep(beacon(1, byte: 3, at: t0.addingTimeInterval(1)))
        #expect(traffic.beacons.count == 2)
        #expect(traffic.beacons[DeviceID("peer-1")]?.datagram == [3])
        #expect(traffic.beacons[DeviceID("peer-2")]?.datagram == [2])
    }

    /// Beyond 32 peers the one kept longest ago goes, even when the times are all equal (a
    /// manual clock), and a peer kept again is as new as any: whatever the number of beacons.
    @Test func beyondThirtyTwoPeersTheOneKeptLongestAgoGoes() {
        var traffic = DeviceTraffic()
        let limit = DeviceTraffic.maximumBeaconPeers
        for peer in 0..<limit { traffic.keep(beacon(peer, at: t0)) }
        // Peer 0 is heard again: peer 1 is now the one kept longest ago.
        traffic.keep(beacon(0, byte: 9, at: t0))
        traffic.keep(beacon(limit, at: t0))
        #expect(traffic.beacons.count == limit)
        #expect(traffic.beacons[DeviceID("peer-1")] == nil)
        #expect(traffic.beacons[DeviceID("peer-0")]?.datagram == [9])
        #expect(traffic.beacons[DeviceID("peer-\(limit)")] != nil)

        // Many rounds of refreshes and newcomers: always the last 32 peers heard.
        var heard: [Int] = Array(2..<limit) + [0, limit]
        for round in 0..<200 {
            let peer = round % 3 == 0 ? heard[round % heard.count] : 1000 + round
            traffic.keep(beacon(peer, at: t0.addingTimeInterval(Double(round))))
            heard.removeAll { $0 == peer }
            heard.append(peer)
            #expect(traffic.beacons.count == limit)
        }
        #expect(Set(traffic.beacons.keys) == Set(heard.suffix(limit).map { DeviceID("peer-\($0)") }))
    }

    @Test func equalityIsAboutWhatIsKept() {
        var first = DeviceTraffic()
        var second = DeviceTraffic()
        first.keep(beacon(1, at: t0))
        first.keep(beacon(1, byte: 2, at: t0))
        second.keep(beacon(1, byte: 2, at: t0))
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        second.keep(beacon(2, at: t0))
        #expect(first != second)
    }
}

/// A slot is found by its ID's hash and then the ID itself: IDs that are equal as strings
/// (canonically equivalent, other bytes) are one peer, as before.
@Suite("Device traffic: kept beacons by ID")
struct DeviceTrafficIDTests {
    @Test func equalIDsWithOtherBytesAreOnePeer() {
        var traffic = DeviceTraffic()
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        let composed = DeviceID("caf\u{E9}")
        let decomposed = DeviceID("cafe\u{301}")
        #expect(Array(composed.rawValue.utf8) != Array(decomposed.rawValue.utf8))
        traffic.keep(
            DeviceTraffic.Beacon(peer: PeerInfo(id: composed, name: "A", kind: .phone), datagram: [1], time: time))
        traffic.keep(
            DeviceTraffic.Beacon(peer: PeerInfo(id: decomposed, name: "A", kind: .phone), datagram: [2], time: time))
        #expect(traffic.beacons.count == 1)
        #expect(traffic.beacons[composed]?.datagram == [2])
    }
}
