import Foundation
import HandoffCore
import NIOCore
import Testing

@testable import HandoffNetwork

/// The receiving side's per-sender shortcuts (2026-11-29): the sender's 16 bytes as the key, and
/// the strings of a sender decoded before reused. Each must give exactly what the full path gives.
@Suite struct BeaconSendersTests {
    typealias F = BeaconFixtures

    // MARK: The sender's bytes

    @Test func aSendersBytesAreItsIDsUUIDWhateverTheCaseOfItsText() throws {
        let opened = try open(F.sealer.seal(F.beacon(device: F.phoneID)))
        #expect(opened.sender == BeaconSenderID(F.phoneID))
        #expect(opened.sender == BeaconSenderID(DeviceID(F.phoneID.rawValue.uppercased())))
        #expect(opened.sender != BeaconSenderID(F.tabletID))
        // An ID that is not a UUID travels as its name-based UUID: the same bytes as its wire ID's.
        let named = DeviceID("laptop")
        #expect(BeaconSenderID(named) == BeaconSenderID(Beacon.wireID(for: named)))
        #expect(try open(F.sealer.seal(F.beacon(device: named))).sender == BeaconSenderID(named))
    }

    /// A channel seals its own beacons with the sender's bytes worked out once: the plaintext is
    /// the one the ID gives when parsed for each beacon, for a UUID and for an ID that is not one.
    @Test func aSenderWorkedOutOnceLaysOutTheSamePlaintext() {
        for id in [F.phoneID, DeviceID(F.phoneID.rawValue.uppercased()), DeviceID("laptop")] {
            let beacon = F.beacon(device: id, message: .advertisement(F.advertisement()))
            var fields: [ByteField]?
            #expect(
                BeaconSealer.encode(beacon, sender: BeaconSenderID(id), annotating: &fields)
                    == BeaconSealer.encode(beacon))
            #expect(BeaconSenderID(id).uuid == Beacon.uuid(for: id))
            #expect(BeaconSenderID(DeviceID(BeaconSenderID(id).uuid.uuidString)) == BeaconSenderID(id))
        }
    }

    // MARK: Senders remembered

    @Test func aRememberedSenderDecodesAsAFreshOne() throws {
        var senders: BeaconSenders? = BeaconSenders()
        for counter in 1...3 {
            let datagram = F.sealer.seal(F.beacon(counter: UInt64(counter), message: .advertisement(F.advertisement())))
            let cached = try F.sealer.open(datagram, receivedAt: F.now, senders: &senders)
            #expect(cached.beacon == (try F.sealer.open(datagram, receivedAt: F.now)))
        }
        #expect(senders?.count == 1)
        let first = try F.sealer.open(F.sealer.seal(F.beacon(counter: 4)), receivedAt: F.now, senders: &senders)
        let second = try F.sealer.open(F.sealer.seal(F.beacon(counter: 5)), receivedAt: F.now, senders: &senders)
        #expect(first.beacon.device == second.beacon.device)
        #expect(senders?.peer(first.sender) == first.beacon.device)
    }

    @Test func aNewNameOrKindIsDecodedAgain() throws {
        var senders: BeaconSenders? = BeaconSenders()
        _ = try F.sealer.open(F.sealer.seal(F.beacon(name: "Phone 1")), receivedAt: F.now, senders: &senders)
        let renamed = try F.sealer.open(
            F.sealer.seal(F.beacon(name: "Phone 2", counter: 2)), receivedAt: F.now, senders: &senders)
        #expect(renamed.beacon.device.name == "Phone 2")
        let rekinded = try F.sealer.open(
            F.sealer.seal(F.beacon(name: "Phone 2", kind: .tablet, counter: 3)), receivedAt: F.now, senders: &senders)
        #expect(rekinded.beacon.device.kind == .tablet)
        #expect(senders?.peer(renamed.sender)?.kind == .tablet)
        #expect(senders?.count == 1)
    }

    /// A name that was sanitized is not its bytes: never remembered, so its checks always run,
    /// and a name that fails them fails even after a sender's good name was remembered.
    @Test func namesAreStillCheckedWhenTheSenderIsKnown() throws {
        var senders: BeaconSenders? = BeaconSenders()
        let invisible = try F.sealer.open(
            F.sealer.seal(F.beacon(name: "Tablet\u{200B}")), receivedAt: F.now, senders: &senders)
        #expect(invisible.beacon.device.name == "Tablet\\u{200b}")
        #expect(senders?.count == 0)
        let escapedText = try F.sealer.open(
            F.sealer.seal(F.beacon(name: "Tablet\\u{200b}", counter: 2)), receivedAt: F.now, senders: &senders)
        #expect(escapedText.beacon.device.name == "Tablet\\u{200b}")
        #expect(senders?.count == 1)
        #expect(throws: BeaconError.self) {
            try F.sealer.open(
                F.sealer.seal(F.beacon(name: "Bell\u{7}", counter: 3)), receivedAt: F.now, senders: &senders)
        }
        var nonASCII: BeaconSenders? = BeaconSenders()
        let accented = try F.sealer.open(F.sealer.seal(F.beacon(name: "Zoë")), receivedAt: F.now, senders: &nonASCII)
        #expect(accented.beacon.device.name == "Zoë")
        #expect(nonASCII?.count == 1)
    }

    /// Nonzero padding is refused whether or not the sender is remembered, and a refused
    /// beacon is not remembered.
    @Test func aRememberedSenderStillNeedsAWellFormedPlaintext() throws {
        var senders: BeaconSenders? = BeaconSenders()
        var plaintext = BeaconSealer.encode(F.beacon())
        plaintext[plaintext.count - 1] = 1
        #expect(throws: BeaconError.self) {
            try F.sealer.open(F.sealer.seal(plaintext: plaintext), receivedAt: F.now, senders: &senders)
        }
        #expect(senders?.count == 0)
        _ = try F.sealer.open(F.sealer.seal(F.beacon()), receivedAt: F.now, senders: &senders)
        #expect(senders?.count == 1)
        #expect(throws: BeaconError.self) {
            try F.sealer.open(F.sealer.seal(plaintext: plaintext), receivedAt: F.now, senders: &senders)
        }
    }

    /// A remembered name is its bytes exactly: small and long strings, other scripts, nothing.
    @Test func aNameIsItsBytesOnlyWhenEveryByteIsEqual() {
        for (name, bytes, expected) in [
            ("Phone 1", Array("Phone 1".utf8), true), ("Phone 1", Array("Phone 2".utf8), false),
            ("Phone 1", Array("Phone 10".utf8), false), ("", [], true), ("", [0x41], false),
            ("Alice's MacBook Pro (14-inch)", Array("Alice's MacBook Pro (14-inch)".utf8), true),
            ("Alice's MacBook Pro (14-inch)", Array("Alice's MacBook Pro (14-incH)".utf8), false),
            ("Zoë", Array("Zoë".utf8), true), ("Zoë", Array("Zoe\u{308}".utf8), false),
        ] {
            let answer = bytes.withUnsafeBytes { BeaconSealer.name(name, is: $0) }
            #expect(answer == expected, "\(name.debugDescription) against \(bytes)")
        }
    }

    @Test func memoryIsBounded() throws {
        var senders: BeaconSenders? = BeaconSenders()
        for _ in 0...BeaconSenders.capacity {
            _ = try F.sealer.open(
                F.sealer.seal(F.beacon(device: DeviceID(UUID().uuidString))), receivedAt: F.now, senders: &senders)
        }
        #expect((senders?.count ?? 0) <= BeaconSenders.capacity)
        #expect((senders?.count ?? 0) >= 1)
    }

    // MARK: The replay guard by the sender's bytes

    /// Judged by the opened sender's bytes or by the beacon's ID: the same verdicts.
    @Test func theReplayGuardJudgesByBytesAsByID() throws {
        var generator = SplitMix64(seed: 0x5E4D)
        var byBytes = ReplayGuard(maximumClockSkew: 30)
        var byID = byBytes
        let devices = [F.phoneID, F.tabletID, DeviceID("named-device")]
        for _ in 0..<2_000 {
            let skew = [0, -10, 29, -31, 31].randomElement(using: &generator)!
            let beacon = F.beacon(
                device: devices.randomElement(using: &generator)!,
                boot: F.boot + UInt64.random(in: 0...2, using: &generator),
                counter: UInt64.random(in: 1...6, using: &generator),
                sentAt: F.now.addingTimeInterval(TimeInterval(skew)))
            let opened = try open(F.sealer.seal(beacon))
            #expect(
                byBytes.judge(opened.beacon, from: opened.sender, receivedAt: F.now)
                    == byID.judge(beacon, receivedAt: F.now))
            #expect(byBytes.count == byID.count)
        }
    }

    // MARK: The peer directory's session address

    @Test func theDirectoryKeepsEachPeersSessionAddress() throws {
        let directory = PeerDirectory(silenceTimeout: 4)
        let info = PeerInfo(id: F.phoneID, name: "Phone 1", kind: .phone)
        let source = try SocketAddress(ipAddress: "127.0.0.1", port: 40_001)
        #expect(directory.heard(info, from: source, sessionPort: 50_123, boot: 1, now: F.now) == .new)
        #expect(directory.peers[F.phoneID]?.address == (try SocketAddress(ipAddress: "127.0.0.1", port: 50_123)))
        #expect(directory.heard(info, from: source, sessionPort: 50_123, boot: 1, now: F.now) == .known)
        #expect(directory.heard(info, from: source, sessionPort: 50_124, boot: 1, now: F.now) == .known)
        #expect(directory.peers[F.phoneID]?.address == (try SocketAddress(ipAddress: "127.0.0.1", port: 50_124)))
        let moved = try SocketAddress(ipAddress: "127.0.0.2", port: 40_001)
        #expect(directory.heard(info, from: moved, sessionPort: 50_124, boot: 2, now: F.now) == .restarted)
        #expect(directory.peers[F.phoneID]?.address == (try SocketAddress(ipAddress: "127.0.0.2", port: 50_124)))
        #expect(directory.peers[F.phoneID]?.lastSeen == F.now)
        let v6 = try SocketAddress(ipAddress: "::1", port: 40_001)
        #expect(directory.heard(info, from: v6, sessionPort: 50_124, boot: 2, now: F.now) == .known)
        #expect(directory.peers[F.phoneID]?.address == (try SocketAddress(ipAddress: "::1", port: 50_124)))
        #expect(PeerDirectory.address(try SocketAddress(ipAddress: "::1", port: 50_124), is: v6, atPort: 50_124))
    }

    func open(_ datagram: [UInt8]) throws -> (beacon: Beacon, sender: BeaconSenderID) {
        var senders: BeaconSenders?
        return try F.sealer.open(datagram, receivedAt: F.now, senders: &senders)
    }
}
