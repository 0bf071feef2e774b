import Crypto
import Foundation
import HandoffCore
import Testing

@testable import HandoffNetwork

/// The GCM with a non-96-bit IV that Apple's advertisement needs, built from swift-crypto
/// (`ShortNonceGCM`), against published and independently computed vectors.
@Suite struct ShortNonceGCMTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    // McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)", Appendix B, test cases
    // 16–18 (AES-256): the same key, plaintext and AAD with a 96-, a 64- and a 480-bit IV.
    static let key = hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
    static let plaintext = hex(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
    )
    static let aad = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2")

    @Test(
        "GCM specification test cases 16, 17 and 18",
        arguments: [
            (
                "cafebabefacedbaddecaf888",
                "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
                "76fc6ece0f4e1768cddf8853bb2d551b"
            ),
            (
                "cafebabefacedbad",
                "c3762df1ca787d32ae47c13bf19844cbaf1ae14d0b976afac52ff7d79bba9de0feb582d33934a4f0954cc2363bc73f7862ac430e64abe499f47c9b1f",
                "3a337dbf46a792c45e454913fe2ea8f2"
            ),
            (
                "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b",
                "5a8def2f0c9e53f1f75d7853659e2a20eeb2b22aafde6419a058ab4f6f746bf40fc0c3b780f244452da3ebf1c5d82cdea2418997200ef82e44ae7e3f",
                "a44a8266ee1c8eb0c8b5d4cf5ae9f19a"
            ),
        ])
    func specificationVectors(iv: String, ciphertext: String, tag: String) throws {
        let key = SymmetricKey(data: Self.key)
        let sealed = try ShortNonceGCM.seal(Self.plaintext, key: key, iv: Self.hex(iv), authenticating: Self.aad)
        #expect(sealed.ciphertext == Self.hex(ciphertext))
        #expect(sealed.tag == Self.hex(tag))
        #expect(
            try ShortNonceGCM.tag(of: sealed.ciphertext, key: key, iv: Self.hex(iv), authenticating: Self.aad)
                == Self.hex(tag))
        #expect(try ShortNonceGCM.decrypt(sealed.ciphertext, key: key, iv: Self.hex(iv)) == Self.plaintext)
    }

    /// Apple's parameters (2-byte IV, 1-byte AAD, 10 bytes), computed independently by OpenSSL
    /// 3.0's `EVP_aes_256_gcm` with `EVP_CTRL_GCM_SET_IVLEN` 2, key `00 01 … 1f`.
    @Test(
        "2-byte IVs, as OpenSSL computes them",
        arguments: [
            ("2a00", "00", "00a32a9f48308fdc0080", "cda4f6906804edcadcfe", "d803799f5997fdbbdfa7bef1b933cf06"),
            ("0100", "08", "0088085c342dc9ed0880", "64071ccc14e0590f58b6", "2d48f52c3ebfd939cf6814f332537146"),
        ])
    func twoByteIVs(iv: String, aad: String, plaintext: String, ciphertext: String, tag: String) throws {
        let key = SymmetricKey(data: Array(0..<32) as [UInt8])
        let sealed = try ShortNonceGCM.seal(
            Self.hex(plaintext), key: key, iv: Self.hex(iv), authenticating: Self.hex(aad))
        #expect(sealed.ciphertext == Self.hex(ciphertext))
        #expect(sealed.tag == Self.hex(tag))
    }

    @Test func anEmptyIVAndABadKeyAreRefused() {
        #expect(throws: ShortNonceGCM.Failure.self) {
            try ShortNonceGCM.seal([1], key: SymmetricKey(data: Self.key), iv: [], authenticating: [])
        }
        #expect(throws: ShortNonceGCM.Failure.self) {
            try ShortNonceGCM.seal(
                [1], key: SymmetricKey(data: [UInt8](repeating: 0, count: 20)), iv: [1], authenticating: [])
        }
    }
}

/// Apple's Handoff advertisement (Continuity type 0x0c): known answers from public sources, the
/// round trip, a wrong key or a changed bit refused as a tag mismatch, hostile input refused with
/// the offset (docs/wire.md, "Apple's advertisement").
@Suite struct AppleAdvertisementTests {
    typealias Ad = AppleHandoffAdvertisement
    static func hex(_ text: String) -> [UInt8] { ShortNonceGCMTests.hex(text) }

    /// Hashes of Apple's own activity types as Handoff-BLE-Viewer lists them from captures
    /// (`HandoffModels/HandoffActivity.swift`), and the Universal Clipboard's from SEEMOO's
    /// `GeneratingBLEPayload.swift`: Apple's rule (SHA-512 of ":" + type, XOR-folded to 7 bytes,
    /// top bits 0b10) gives each of them.
    @Test(
        "Activity-type hashes of Apple's devices",
        arguments: [
            ("com.apple.notes.activity.edit-note", "88085c342dc9ed"),
            ("com.apple.mail.mailbox", "9d98584545c05e"),
            ("com.apple.mail.message", "86f6a0732b418e"),
            ("com.apple.mail.compose", "a564c399758208"),
            ("com.apple.calendar.continuity.date_selection", "b64729d1a4296b"),
            ("com.apple.calendar.continuity.event_selection", "88acfe99cad770"),
            ("com.apple.Messages", "a32a9f48308fdc"),
            ("com.apple.continuitypasteboard", "a1072cb8bf1d98"),
        ])
    func activityTypeHashes(type: String, hash: String) {
        #expect(ActivityTypeHash(activityType: type).bytes == Self.hex(hash))
        #expect(Ad.hashText(Self.hex(hash)) == hash + " = " + type)
    }

    /// The one published capture with its key: SEEMOO's handoff-authentication-swift,
    /// `Tests/Handoff-SwiftTests/GeneratingBLEPayload.swift` (`testDecryptWithGCM`: key, counter
    /// bytes `57 b1`, tag `0x70`, 10 ciphertext bytes; the flags byte is not given there, and
    /// `0x00` is the value whose tag matches and whose plaintext is well formed). It opens to the
    /// Notes edit-note hash.
    @Test func seemoosCaptureOpensToTheNotesHash() throws {
        let key = Self.hex("9cdbb22f8dfc0198bbf9b31e7d64438e1755094bad224d32d897c634e71ffb9c")
        let opened = try Ad.open(Self.hex("0c0e0057b170b97aad02b573a397d4fa"), key: key)
        #expect(opened.advertisement.counter == 0xB157)
        #expect(opened.advertisement.iv == [0x57, 0xB1])
        #expect(
            opened.advertisement.activityHash
                == ActivityTypeHash(activityType: "com.apple.notes.activity.edit-note").bytes)
        #expect(opened.plaintext.bytes == Self.hex("0088085c342dc9ed0079"))
        #expect(opened.plaintext.fields[1].value.hasSuffix("= com.apple.notes.activity.edit-note"))
        #expect(opened.input.coversEveryByte)
        #expect(opened.plaintext.coversEveryByte)
    }

    static let sample = Ad(
        flags: 0, counter: 0x002A, activityHash: ActivityTypeHash(activityType: "com.apple.Messages").bytes,
        timeOffset: 0x80)

    @Test func theSampleIsTheOpenSSLVector() throws {
        // ShortNonceGCMTests' first 2-byte vector: flags 00, counter 42, the Messages hash.
        let data = try Self.sample.manufacturerData(key: Ad.demoKey)
        #expect(data == Self.hex("4c000c0e002a00d8cda4f6906804edcadcfe"))
    }

    @Test func encodeThenDecodeGivesTheSameAdvertisement() throws {
        for flags in [UInt8(0), Ad.clipboardFlag] {
            for counter in [UInt16(0), 1, 0x1234, 0xFFFF] {
                var advertisement = Self.sample
                advertisement.flags = flags
                advertisement.counter = counter
                advertisement.options = [.pasteboardAvailable, .hasMoreActivities]
                let data = try advertisement.manufacturerData(key: Ad.demoKey)
                #expect(data.count == 18)
                #expect(data[5] == UInt8(counter & 0xFF) && data[6] == UInt8(counter >> 8), "little-endian counter")
                let opened = try Ad.open(data, key: Ad.demoKey)
                #expect(opened.advertisement == advertisement)
                #expect(opened.input.coversEveryByte)
                // The same TLV, alone and inside an AD structure with Nearby Info beside it.
                #expect(try Ad.open(Array(data[2...]), key: Ad.demoKey).advertisement == advertisement)
                let structure = [UInt8(1 + data.count + 8), 0xFF] + data + [0x10, 0x06, 1, 2, 3, 4, 5, 6]
                let inside = try Ad.open(structure, key: Ad.demoKey)
                #expect(inside.advertisement == advertisement)
                #expect(inside.input.coversEveryByte)
            }
        }
    }

    @Test func aWrongKeyIsATagMismatchAtTheTagsOffset() throws {
        let data = try Self.sample.manufacturerData(key: Ad.demoKey)
        var wrong = Ad.demoKey
        wrong[31] ^= 1
        let error = try #require(throws: AppleAdvertisementError.self) { try Ad.open(data, key: wrong) }
        #expect(error.isTagMismatch)
        #expect(error.offset == 7)
        #expect(error.description.contains("tag does not match"))
    }

    /// Every single-bit change of the flags, the counter, the tag and the ciphertext. A change of
    /// the tag byte itself never passes. Any other change passes Apple's 8-bit tag 1 time in 256
    /// (104 changes: about 0.4 expected); for this advertisement two do, both in the ciphertext,
    /// and open to another plaintext: the forgery the 8-bit tag allows (docs/wire.md).
    @Test func aFlippedBitIsATagMismatchButFor1In256() throws {
        let data = try Self.sample.manufacturerData(key: Ad.demoKey)
        var passed: [Int] = []
        for bit in (4 * 8)..<(18 * 8) {
            var changed = data
            changed[bit / 8] ^= 1 << (bit % 8)
            do {
                let forged = try Ad.open(changed, key: Ad.demoKey)
                #expect(forged.advertisement != Self.sample)
                passed.append(bit)
            } catch {
                #expect(error.isTagMismatch, "bit \(bit): \(error)")
                #expect(error.offset == 7)
            }
        }
        #expect(passed == [64, 79], "bits whose change passed the 8-bit tag")
        #expect(!passed.contains { (56..<64).contains($0) }, "a change of the tag byte passed")
    }

    @Test func theTypeAndLengthBytesAreCheckedBeforeTheTag() throws {
        let data = try Self.sample.manufacturerData(key: Ad.demoKey)
        var badLength = data
        badLength[3] = 13
        let short = try #require(throws: AppleAdvertisementError.self) { try Ad.open(badLength, key: Ad.demoKey) }
        #expect(short.offset == 3)
        var badCompany = data
        badCompany[1] = 0x01
        let company = try #require(throws: AppleAdvertisementError.self) { try Ad.open(badCompany, key: Ad.demoKey) }
        #expect(company.offset == 1)
        #expect(company.message.contains("not Apple's"))
    }

    @Test func everyTruncationIsRefusedWithAnOffset() throws {
        let data = try Self.sample.manufacturerData(key: Ad.demoKey)
        for length in 0..<data.count {
            let error = try #require(throws: AppleAdvertisementError.self) {
                try Ad.open(Array(data.prefix(length)), key: Ad.demoKey)
            }
            #expect(!error.isTagMismatch)
            #expect(error.offset <= length, "\(length) bytes: \(error)")
        }
    }

    @Test func oversizedAndGarbageInputIsRefused() throws {
        let data = try Self.sample.manufacturerData(key: Ad.demoKey)
        let oversized = try #require(throws: AppleAdvertisementError.self) {
            try Ad.open(data + [UInt8](repeating: 0, count: 14), key: Ad.demoKey)
        }
        #expect(oversized.offset == 31)
        #expect(oversized.message.contains("32 bytes"))
        let garbage = try #require(throws: AppleAdvertisementError.self) {
            try Ad.open([0x99, 0x01, 0x02], key: Ad.demoKey)
        }
        #expect(garbage.offset == 0)
        let noHandoff = try #require(throws: AppleAdvertisementError.self) {
            try Ad.open([0x4C, 0x00, 0x10, 0x02, 0x01, 0x02], key: Ad.demoKey)
        }
        #expect(noHandoff.message.contains("no Handoff TLV"))
        #expect(noHandoff.offset == 6)
        let badStructure = try #require(throws: AppleAdvertisementError.self) {
            try Ad.open([0x1E, 0xFF, 0x4C, 0x00], key: Ad.demoKey)
        }
        #expect(badStructure.offset == 0)
        let shortKey = try #require(throws: AppleAdvertisementError.self) {
            try Ad.open(data, key: [1, 2, 3])
        }
        #expect(shortKey.message.contains("32"))
        // Random bytes of every length up to the maximum: an error, never a crash.
        var generator = SplitMix64(seed: 30)
        for _ in 0..<2000 {
            let count = Int(generator.next() % 40)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if count > 2, generator.next() % 2 == 0 {
                bytes[0] = 0x4C
                bytes[1] = 0
                bytes[2] = 0x0C
            }
            _ = try? Ad.open(bytes, key: Ad.demoKey)
        }
    }

    @Test func hexIsReadWithSeparatorsAndRefusedWithTheCharacter() throws {
        #expect(try Ad.bytes(hex: "0x4c00 0c:0e-01") == [0x4C, 0x00, 0x0C, 0x0E, 0x01])
        let bad = try #require(throws: AppleAdvertisementError.self) { try Ad.bytes(hex: "4c0g") }
        #expect(bad.offset == 3)
        let odd = try #require(throws: AppleAdvertisementError.self) { try Ad.bytes(hex: "4c0") }
        #expect(odd.offset == 3)
        let split = try #require(throws: AppleAdvertisementError.self) { try Ad.bytes(hex: "4 c") }
        #expect(split.offset == 1)
    }

    @Test func theTimeByteCountsFourSecondTicksOfA496SecondEpoch() {
        let epoch = Date(timeIntervalSinceReferenceDate: 496 * 1_000_000)
        #expect(Ad.timeOffset(savedAt: epoch, isCurrent: true) == 0x80)
        #expect(Ad.timeOffset(savedAt: epoch.addingTimeInterval(7.9), isCurrent: false) == 1)
        #expect(Ad.timeOffset(savedAt: epoch.addingTimeInterval(495.9), isCurrent: true) == 0x80 | 123)
        #expect(Ad.timeOffset(savedAt: epoch.addingTimeInterval(496), isCurrent: true) == 0x80)
    }

    /// The inspector's Apple side: made from a real advertisement beacon, with the beacon's hash.
    @Test func aBeaconsAdvertisementHasItsAppleEquivalent() throws {
        typealias F = BeaconFixtures
        let beacon = F.beacon(counter: 0x1_0005, message: .advertisement(F.advertisement()))
        let apple = try #require(Ad.inspectorBytes(for: beacon))
        #expect(apple.key == Ad.demoKey)
        #expect(apple.advertisement.bytes.count == 18)
        #expect(Array(apple.plaintext.bytes[1..<8]) == F.advertisement().activityTypeHash.bytes)
        #expect(apple.plaintext.bytes[8] == Ad.Options.hasWebpageURL.rawValue)
        #expect(
            apple.advertisement.bytes[5] == 0x05 && apple.advertisement.bytes[6] == 0x00, "the counter cut to 16 bits")
        #expect(apple.advertisement.coversEveryByte && apple.plaintext.coversEveryByte)
        #expect(Ad.inspectorBytes(for: F.beacon(message: .presence)) == nil)
        // And the beacon inspector carries it.
        let inspected = try F.sealer.inspect(F.sealer.seal(beacon))
        #expect(inspected.apple == apple)
    }
}
