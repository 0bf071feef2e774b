import Crypto
import Foundation
import HandoffCore
import HandoffTestSupport
import Synchronization
import Testing

@testable import HandoffNetwork

@Suite struct BeaconCodecTests {
    typealias F = BeaconFixtures

    static let names = [
        "", "Phone 1", "Zoë’s iPad",
        "Family 👨‍👩‍👧‍👦👨‍👩‍👧‍👦",  // emoji sequences of 25 bytes: cut whole
        "a" + String(repeating: "é", count: 20),  // 2-byte characters at an odd boundary
        "東京のノートパソコン・仕事用",  // 3-byte characters
        String(repeating: "x", count: 30), String(repeating: "y", count: 300),
        "e\u{301}\u{301}\u{301}" + String(repeating: "z", count: 26) + "e\u{301}",  // combining marks stay whole
    ]

    static func messages() -> [Beacon.Message] {
        [
            .presence, .goodbye, .leaving,
            .advertisement(F.advertisement()),
            .advertisement(F.advertisement(serial: .max, savedAt: F.now, expiresAt: F.now.addingTimeInterval(3600))),
            .advertisement(
                F.advertisement(
                    serial: 0, savedAt: F.now.addingTimeInterval(-86_400 * 60),
                    expiresAt: F.now.addingTimeInterval(-5))),
        ]
    }

    /// What a receiver should see: the name cut, the advertisement's device set to the sender,
    /// times in whole milliseconds, an old save saturated at 2^32-1 ms, the expiry in whole
    /// seconds after `sentAt` (rounded up, never before `sentAt`).
    static func expected(_ beacon: Beacon) -> Beacon {
        var beacon = beacon
        let ms = BeaconSealer.milliseconds
        let sent = ms(beacon.sentAt)
        beacon.sentAt = BeaconSealer.date(milliseconds: sent)
        beacon.device.name = Beacon.truncatedName(beacon.device.name)
        if case .advertisement(var advertisement) = beacon.message {
            advertisement.device = beacon.device.id
            let age = min(sent - min(ms(advertisement.savedAt), sent), UInt64(UInt32.max))
            advertisement.savedAt = BeaconSealer.date(milliseconds: sent - age)
            if let expiresAt = advertisement.expiresAt {
                let seconds = max(0, (expiresAt.timeIntervalSince1970 - Double(sent) / 1000).rounded(.up))
                advertisement.expiresAt = BeaconSealer.date(milliseconds: sent + UInt64(seconds) * 1000)
            }
            beacon.message = .advertisement(advertisement)
        }
        return beacon
    }

    @Test func everyMessageKindRoundTripsWithUnicodeNamesAtTheSizeLimit() throws {
        for message in Self.messages() {
            for name in Self.names {
                for kind in PeerInfo.Kind.allCases {
                    let beacon = F.beacon(name: name, kind: kind, counter: 42, message: message)
                    let sealed = F.sealer.seal(beacon)
                    #expect(sealed.count == Beacon.maximumLength)
                    let opened = try F.sealer.open(sealed)
                    #expect(opened == Self.expected(beacon))
                    #expect(opened.device.name.utf8.count <= Beacon.maximumNameBytes)
                    #expect(name.hasPrefix(opened.device.name))
                }
            }
        }
    }

    /// The example in docs/wire.md, byte for byte.
    @Test func thePlaintextLayoutMatchesTheDocumentedExample() throws {
        let beacon = F.beacon(counter: 42, message: .advertisement(F.advertisement()))
        let hex =
            "6b1e8b7a2c4d4e5f9a0b1c2d3e4f5a6b" + "000001a1ee471d88000000000000002a"
            + "000001a1ee565e7bc3cb0001a40daef0" + "5462cd75e13a4c0700000007000005dc"
            + "ffffffff0750686f6e65203100000000" + String(repeating: "0", count: 38)
        let plaintext = BeaconSealer.encode(beacon)
        #expect(plaintext.map { String(format: "%02x", $0) }.joined() == hex)
        #expect(plaintext.count == 99)
        #expect(try BeaconSealer.decode(plaintext, receivedAt: nil) == Self.expected(beacon))
        #expect(BeaconSealer.associatedData == [0x01] + Array("handoff-sim beacon v1".utf8))
    }

    /// Hashes of other lengths than the layout's (a hash made from bytes) are cut or padded with
    /// zeros in place, and the name's bytes follow them as the string's own.
    @Test func hashFieldsAreCutOrPaddedToTheirFixedLengths() throws {
        var advertisement = F.advertisement()
        advertisement.activityTypeHash = ActivityTypeHash(bytes: [0xA1, 0xA2, 0xA3])
        advertisement.teamHash = TeamHash(bytes: [0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6])
        let beacon = F.beacon(name: "Zoë’s iPad", message: .advertisement(advertisement))
        let plaintext = BeaconSealer.encode(beacon)
        #expect(plaintext.count == BeaconSealer.plaintextLength)
        let hashes = BeaconSealer.fixedPlaintextLength
        #expect(Array(plaintext[hashes..<hashes + 7]) == [0xA1, 0xA2, 0xA3, 0, 0, 0, 0])
        #expect(Array(plaintext[hashes + 7..<hashes + 11]) == [0xB1, 0xB2, 0xB3, 0xB4])
        let name = hashes + BeaconSealer.advertisementLength
        let nameBytes = Array("Zoë’s iPad".utf8)
        #expect(Int(plaintext[name]) == nameBytes.count)
        #expect(Array(plaintext[name + 1...name + nameBytes.count]) == nameBytes)
        #expect(plaintext[(name + 1 + nameBytes.count)...].allSatisfy { $0 == 0 }, "zeros to the end")
        let opened = try F.sealer.open(F.sealer.seal(beacon))
        guard case .advertisement(let received) = opened.message else {
            Issue.record("not an advertisement: \(opened.message)")
            return
        }
        #expect(received.activityTypeHash.bytes == [0xA1, 0xA2, 0xA3, 0, 0, 0, 0])
        #expect(received.teamHash.bytes == [0xB1, 0xB2, 0xB3, 0xB4])
        #expect(opened.device.name == "Zoë’s iPad")
    }

    /// The datagram is the version, then swift-crypto's nonce, ciphertext and tag as they are.
    @Test func theDatagramIsTheVersionThenTheSealedBoxAsItIs() throws {
        let sealed = F.sealer.seal(F.beacon(message: .advertisement(F.advertisement())))
        #expect(sealed.count == Beacon.maximumLength)
        #expect(sealed[0] == Beacon.version)
        let box = try AES.GCM.SealedBox(combined: sealed[1...])
        #expect(Array(box.nonce) == Array(sealed[1...BeaconSealer.nonceLength]))
        #expect(Array(box.tag) == Array(sealed[(sealed.count - BeaconSealer.tagLength)...]))
        #expect(try F.sealer.open(sealed) == Self.expected(F.beacon(message: .advertisement(F.advertisement()))))
    }

    @Test func namesAreCutAtCharacterBoundaries() {
        #expect(Beacon.truncatedName("Family 👨‍👩‍👧‍👦👨‍👩‍👧‍👦") == "Family ")
        #expect(
            Beacon.truncatedName("a" + String(repeating: "é", count: 20)) == "a" + String(repeating: "é", count: 14))
        #expect(Beacon.truncatedName(String(repeating: "x", count: 300)) == String(repeating: "x", count: 30))
        #expect(Beacon.truncatedName("東京のノートパソコン・仕事用") == "東京のノートパソコン")
        #expect(Beacon.truncatedName("Phone 1") == "Phone 1")
    }

    @Test func extremeFieldValuesRoundTrip() throws {
        let beacon = F.beacon(
            kind: .laptop, boot: .max, counter: .max, port: .max,
            message: .advertisement(F.advertisement(serial: .max)))
        #expect(try F.sealer.open(F.sealer.seal(beacon)) == Self.expected(beacon))
        let zero = F.beacon(boot: 0, counter: 0, sentAt: Date(timeIntervalSince1970: 0), port: 0)
        #expect(try F.sealer.open(F.sealer.seal(zero)) == zero)
    }

    @Test func theReceiverRebasesFreshnessOnItsOwnClock() throws {
        let advertisement = F.advertisement(
            savedAt: F.now.addingTimeInterval(-2.5), expiresAt: F.now.addingTimeInterval(60))
        let sealed = F.sealer.seal(F.beacon(message: .advertisement(advertisement)))
        let receivedAt = F.now.addingTimeInterval(-7200)  // the receiver's clock is two hours behind
        let opened = try F.sealer.open(sealed, receivedAt: receivedAt)
        #expect(opened.sentAt == F.now)
        guard case .advertisement(let seen) = opened.message else {
            Issue.record("not an advertisement")
            return
        }
        #expect(abs(seen.savedAt.timeIntervalSince(receivedAt) + 2.5) < 0.000_5)
        #expect(abs(seen.expiresAt!.timeIntervalSince(receivedAt) - 60) < 0.000_5)
    }

    @Test func expiryIsCarriedInWholeSecondsRoundedUp() throws {
        let advertisement = F.advertisement(expiresAt: F.now.addingTimeInterval(10.2))
        let opened = try F.sealer.open(F.sealer.seal(F.beacon(message: .advertisement(advertisement))))
        guard case .advertisement(let seen) = opened.message else {
            Issue.record("not an advertisement")
            return
        }
        #expect(abs(seen.expiresAt!.timeIntervalSince(F.now) - 11) < 0.000_5)
    }

    @Test func twoSealsOfTheSameBeaconAreUnlinkable() {
        let beacon = F.beacon(message: .advertisement(F.advertisement()))
        var generator = SplitMix64(seed: 1)
        for _ in 0..<200 {
            let first = F.sealer.seal(beacon)
            let second = F.sealer.seal(beacon)
            #expect(first[0] == Beacon.version && second[0] == Beacon.version)
            #expect(first[1..<13] != second[1..<13], "nonces differ")
            // Independent random bytes agree at about 1 position in 256; anything systematic would show.
            let samePositions = zip(first.dropFirst(), second.dropFirst()).filter { $0 == $1 }.count
            #expect(samePositions <= 8)
            #expect(!Self.shareRun(of: 4, Array(first.dropFirst()), Array(second.dropFirst())))
            _ = generator.next()
        }
    }

    /// The nonces come from a pool of the kernel's bytes, refilled 4 KiB at a time: across
    /// several refills and from several threads at once, every one is 12 bytes and none repeats.
    @Test func beaconNoncesNeverRepeatAcrossRefillsAndThreads() async throws {
        let perTask = 2_000
        let taken = await withTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<4 {
                group.addTask { (0..<perTask).map { _ in BeaconNonces.next().withUnsafeBytes { Array($0) } } }
            }
            return await group.reduce(into: [[UInt8]]()) { $0 += $1 }
        }
        #expect(taken.count == 4 * perTask)
        #expect(taken.allSatisfy { $0.count == BeaconSealer.nonceLength })
        #expect(Set(taken).count == taken.count)
        // The sealed datagram carries the nonce it was sealed with, and opens.
        let sealed = F.sealer.seal(F.beacon(message: .presence))
        let nonce = Array(sealed[1...BeaconSealer.nonceLength])
        #expect(!taken.contains(nonce))
        #expect(try F.sealer.open(sealed) == Self.expected(F.beacon(message: .presence)))
    }

    static func shareRun(of length: Int, _ a: [UInt8], _ b: [UInt8]) -> Bool {
        var runs = Set<[UInt8]>()
        for start in 0...(a.count - length) { runs.insert(Array(a[start..<start + length])) }
        for start in 0...(b.count - length) where runs.contains(Array(b[start..<start + length])) { return true }
        return false
    }

    @Test func everyBeaconHasTheSameLengthWhateverItSays() {
        let lengths = Set(
            Self.messages().flatMap { message in
                Self.names.map { F.sealer.seal(F.beacon(name: $0, message: message)).count }
            })
        #expect(lengths == [128])
    }

    @Test func aWrongKeyFailsAuthentication() {
        let sealed = F.sealer.seal(F.beacon(message: .advertisement(F.advertisement())))
        #expect(throws: BeaconError.authenticationFailed) { try F.otherSealer.open(sealed) }
    }

    @Test func theRawAccountKeyIsNotTheBeaconKey() throws {
        // A beacon sealed with the account key itself (no HKDF) must not open.
        let plaintext = BeaconSealer.encode(F.beacon())
        let box = try AES.GCM.seal(plaintext, using: F.accountKey, authenticating: BeaconSealer.associatedData)
        let datagram = [Beacon.version] + Array(box.combined!)
        #expect(throws: BeaconError.authenticationFailed) { try F.sealer.open(datagram) }
    }

    @Test func everyTruncationIsATypedError() {
        let sealed = F.sealer.seal(F.beacon(message: .advertisement(F.advertisement())))
        for length in 0..<sealed.count {
            let expected: BeaconError = length < BeaconSealer.minimumLength ? .tooShort : .authenticationFailed
            #expect(throws: expected) { try F.sealer.open(Array(sealed.prefix(length))) }
        }
    }

    @Test func oversizedDatagramsAreRejected() {
        let sealed = F.sealer.seal(F.beacon())
        for extra in [1, 2, 100, 65_000] {
            #expect(throws: BeaconError.tooLong) { try F.sealer.open(sealed + [UInt8](repeating: 0, count: extra)) }
        }
    }

    @Test func otherVersionsAreRejected() {
        var sealed = F.sealer.seal(F.beacon())
        for version: UInt8 in [0, 2, 0x7F, 0xFF] {
            sealed[0] = version
            #expect(throws: BeaconError.unsupportedVersion(version)) { try F.sealer.open(sealed) }
        }
        // A "version 2" beacon sealed with the right key still fails on the version alone.
        let v2 = F.sealer.seal(plaintext: BeaconSealer.encode(F.beacon()), version: 2)
        #expect(throws: BeaconError.unsupportedVersion(2)) { try F.sealer.open(v2) }
    }

    @Test func everyBitFlipIsRejected() {
        let sealed = F.sealer.seal(F.beacon(message: .advertisement(F.advertisement())))
        for index in sealed.indices {
            for bit in 0..<8 {
                var flipped = sealed
                flipped[index] ^= 1 << bit
                let expected: BeaconError = index == 0 ? .unsupportedVersion(flipped[0]) : .authenticationFailed
                #expect(throws: expected) { try F.sealer.open(flipped) }
            }
        }
    }

    @Test func randomBytesNeverOpen() {
        var generator = SplitMix64(seed: 0xBEAC0)
        var counts: [String: Int] = [:]
        for round in 0..<5_000 {
            let length = Int.random(in: 0...160, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if round % 2 == 0, !bytes.isEmpty { bytes[0] = Beacon.version }  // get past the version check
            do {
                _ = try F.sealer.open(bytes)
                Issue.record("random bytes opened: \(bytes)")
            } catch {
                counts["\(error)", default: 0] += 1
            }
        }
        #expect(counts["beacon authentication failed", default: 0] > 500)  // about a third get that far
        #expect(counts.values.reduce(0, +) == 5_000)
    }

    @Test func authenticButMalformedContentIsATypedError() {
        let good = BeaconSealer.encode(F.beacon(message: .advertisement(F.advertisement())))
        func expectMalformed(_ plaintext: [UInt8], _ comment: Comment) {
            let sealed = F.sealer.seal(plaintext: plaintext)
            do {
                _ = try F.sealer.open(sealed)
                Issue.record(comment)
            } catch {
                guard case .malformed = error else {
                    Issue.record("\(comment): \(error)")
                    return
                }
            }
        }
        var plaintext = good
        plaintext[42] = 3
        expectMalformed(plaintext, "unknown kind")
        plaintext = good
        plaintext[43] = 9
        expectMalformed(plaintext, "unknown message type")
        plaintext = good
        plaintext[68] = 200
        expectMalformed(plaintext, "name longer than the beacon")
        plaintext = good
        plaintext[68] = 2
        plaintext[69] = 0xC3
        plaintext[70] = 0x28
        expectMalformed(plaintext, "invalid UTF-8")
        plaintext = good
        plaintext[68] = 2
        plaintext[69] = 0x41
        plaintext[70] = 0x1B
        expectMalformed(plaintext, "ESC in the name")
        plaintext = good
        plaintext[plaintext.count - 1] = 1
        expectMalformed(plaintext, "nonzero padding")
        expectMalformed(Array(good.prefix(45)), "truncated advertisement")
        // Without even a name length the datagram is shorter than any beacon.
        let headerOnly = F.sealer.seal(plaintext: Array(BeaconSealer.encode(F.beacon()).prefix(44)))
        #expect(throws: BeaconError.tooShort) { try F.sealer.open(headerOnly) }
        plaintext = good
        for index in 32..<40 { plaintext[index] = 0xFF }
        expectMalformed(plaintext, "sentAt out of range")
    }

    @Test func deviceIDsTravelAsLowerCaseUUIDs() throws {
        let upper = DeviceID(F.phoneID.rawValue.uppercased())
        let opened = try F.sealer.open(F.sealer.seal(F.beacon(device: upper)))
        #expect(opened.device.id == F.phoneID)
        #expect(Beacon.wireID(for: upper) == F.phoneID)
        // Not a UUID: a stable stand-in, the same every time.
        let odd = DeviceID("phone-1")
        let first = try F.sealer.open(F.sealer.seal(F.beacon(device: odd))).device.id
        #expect(first == Beacon.wireID(for: odd))
        #expect(UUID(uuidString: first.rawValue) != nil)
        #expect(Beacon.wireID(for: odd) != Beacon.wireID(for: "phone-2"))
    }
}

/// The receiver's fast paths give what the general ones gave.
@Suite struct BeaconDecodingTests {
    typealias F = BeaconFixtures

    @Test func theDeviceIDIsTheLowerCaseUUIDString() {
        var generator = SplitMix64(seed: 29)
        for _ in 0..<200 {
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let uuid = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            #expect(BeaconSealer.uuidText(bytes[...]) == uuid.uuidString.lowercased())
        }
    }

    /// Printable ASCII names skip the checks; others are still checked and their invisible
    /// characters shown.
    @Test func namesAreCheckedUnlessPrintableASCII() throws {
        for name in ["Phone 1", "~!@#$%^&*()_+{}|:<>?`-= \\\"'", "Zoë", "Tablet\u{200B}"] {
            let opened = try F.sealer.open(F.sealer.seal(F.beacon(name: name)))
            #expect(opened.device.name == TerminalText.sanitized(name))
        }
        #expect(try F.sealer.open(F.sealer.seal(F.beacon(name: "Tablet\u{200B}"))).device.name == "Tablet\\u{200b}")
        #expect(throws: BeaconError.self) { try F.sealer.open(F.sealer.seal(F.beacon(name: "Bell\u{7}"))) }
        #expect(throws: BeaconError.self) { try F.sealer.open(F.sealer.seal(F.beacon(name: "Del\u{7F}"))) }
    }
}

@Suite struct BeaconReplayGuardTests {
    typealias F = BeaconFixtures

    /// `judge` (one look-up, on every beacon heard) says what the duplicate check and `check`
    /// said one after the other, over random beacons of a few devices: boots, counters and clocks
    /// repeated, older, newer, stale and from the future. (No eviction: which of several devices
    /// accepted at the same instant goes first follows each dictionary's own order.)
    @Test func judgingAtOnceAgreesWithTheTwoSteps() {
        var generator = SplitMix64(seed: 0xB3AC)
        var oneStep = ReplayGuard(maximumClockSkew: 30)
        var twoSteps = oneStep
        let devices = (0..<5).map { DeviceID("device-\($0)") }
        for _ in 0..<5_000 {
            let skew = [0, -10, 29, -31, 31, 3_600].randomElement(using: &generator)!
            let beacon = F.beacon(
                device: devices.randomElement(using: &generator)!,
                boot: F.boot + UInt64.random(in: 0...2, using: &generator),
                counter: UInt64.random(in: 1...6, using: &generator),
                sentAt: F.now.addingTimeInterval(TimeInterval(skew)))
            let expected: ReplayGuard.Verdict? =
                twoSteps.isDuplicateOfLastAccepted(beacon) ? nil : twoSteps.check(beacon, receivedAt: F.now)
            #expect(oneStep.judge(beacon, receivedAt: F.now) == expected)
            #expect(oneStep.count == twoSteps.count)
        }
    }

    @Test func aReplayedBeaconIsRejectedAndAHigherCounterAccepted() {
        var guardian = ReplayGuard()
        #expect(guardian.check(F.beacon(counter: 5), receivedAt: F.now) == .accepted)
        #expect(guardian.check(F.beacon(counter: 5), receivedAt: F.now) == .replayed)
        #expect(guardian.check(F.beacon(counter: 4), receivedAt: F.now) == .replayed)
        #expect(guardian.check(F.beacon(counter: 6), receivedAt: F.now) == .accepted)
        #expect(guardian.check(F.beacon(counter: 100), receivedAt: F.now) == .accepted)
        #expect(guardian.check(F.beacon(counter: 6), receivedAt: F.now) == .replayed)
    }

    @Test func aRestartedDeviceIsAcceptedAndAnOlderBootRejected() {
        var guardian = ReplayGuard()
        #expect(guardian.check(F.beacon(counter: 900), receivedAt: F.now) == .accepted)
        #expect(
            guardian.check(F.beacon(boot: F.boot + 60_000, counter: 1, sentAt: F.now), receivedAt: F.now) == .accepted)
        #expect(guardian.check(F.beacon(boot: F.boot, counter: 901), receivedAt: F.now) == .replayed)
        #expect(guardian.check(F.beacon(boot: F.boot + 60_000, counter: 2), receivedAt: F.now) == .accepted)
    }

    @Test func devicesAreTrackedSeparately() {
        var guardian = ReplayGuard()
        #expect(guardian.check(F.beacon(device: F.phoneID, counter: 9), receivedAt: F.now) == .accepted)
        #expect(guardian.check(F.beacon(device: F.laptopID, counter: 1), receivedAt: F.now) == .accepted)
        #expect(guardian.count == 2)
    }

    @Test func staleAndFutureBeaconsAreRejectedWithoutMovingTheCounter() {
        var guardian = ReplayGuard(maximumClockSkew: 30)
        #expect(
            guardian.check(F.beacon(counter: 1, sentAt: F.now.addingTimeInterval(-31)), receivedAt: F.now) == .stale)
        #expect(
            guardian.check(F.beacon(counter: 2, sentAt: F.now.addingTimeInterval(31)), receivedAt: F.now)
                == .fromTheFuture)
        let futureBoot = UInt64((F.now.timeIntervalSince1970 + 3600) * 1000)
        #expect(guardian.check(F.beacon(boot: futureBoot, counter: 3), receivedAt: F.now) == .fromTheFuture)
        // None of them was remembered: counter 1 is still acceptable.
        #expect(
            guardian.check(F.beacon(counter: 1, sentAt: F.now.addingTimeInterval(-29)), receivedAt: F.now) == .accepted)
        // A replay captured earlier is stale once the skew has passed.
        #expect(guardian.check(F.beacon(counter: 1, sentAt: F.now), receivedAt: F.now.addingTimeInterval(45)) == .stale)
    }

    @Test func memoryIsBounded() {
        var guardian = ReplayGuard(capacity: 3)
        for index in 0..<10 {
            let id = DeviceID(UUID().uuidString)
            #expect(
                guardian.check(
                    F.beacon(device: id, counter: 1), receivedAt: F.now.addingTimeInterval(Double(index) / 10))
                    == .accepted)
        }
        #expect(guardian.count == 3)
    }
}

enum BeaconFixtures {
    static var accountKey: SymmetricKey { SymmetricKey(data: [UInt8](repeating: 0x11, count: 32)) }
    static var otherAccountKey: SymmetricKey { SymmetricKey(data: [UInt8](repeating: 0x22, count: 32)) }
    static let sealer = BeaconSealer(accountKey: accountKey)
    static let otherSealer = BeaconSealer(accountKey: otherAccountKey)

    static let phoneID = DeviceID("6b1e8b7a-2c4d-4e5f-9a0b-1c2d3e4f5a6b")
    static let laptopID = DeviceID("0f9e8d7c-6b5a-4938-8271-605f4e3d2c1b")
    static let tabletID = DeviceID("a1b2c3d4-e5f6-4789-8abc-def012345678")

    /// A whole number of milliseconds, as beacons carry.
    static let now = Date(timeIntervalSince1970: 1_795_000_000.123)
    static let boot: UInt64 = 1_794_999_000_456

    static func advertisement(
        device: DeviceID = phoneID, serial: UInt32 = 7, savedAt: Date? = nil,
        expiresAt: Date? = nil
    ) -> Advertisement {
        Advertisement(
            device: device, activityTypeHash: ActivityTypeHash(activityType: "com.example.reader.page"),
            teamHash: TeamHash(teamIdentifier: "ABCDE12345"),
            options: [.hasWebpageURL, .supportsContinuationStreams, .isEligibleForHandoff],
            activitySerial: serial, savedAt: savedAt ?? now.addingTimeInterval(-1.5), expiresAt: expiresAt)
    }

    static func beacon(
        device: DeviceID = phoneID, name: String = "Phone 1", kind: PeerInfo.Kind = .phone,
        boot: UInt64 = boot, counter: UInt64 = 1, sentAt: Date = now, port: UInt16 = 50_123,
        message: Beacon.Message = .presence
    ) -> Beacon {
        Beacon(
            device: PeerInfo(id: device, name: name, kind: kind), bootIdentifier: boot, counter: counter,
            sentAt: sentAt, sessionPort: port, message: message)
    }
}

/// Collects values handed over from other threads.
final class Collector<Value: Sendable>: Sendable {
    private let items = Mutex<[Value]>([])
    func append(_ value: Value) { items.withLock { $0.append(value) } }
    var values: [Value] { items.withLock { $0 } }
}
