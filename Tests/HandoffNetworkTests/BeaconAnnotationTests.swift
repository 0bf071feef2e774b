import Foundation
import HandoffCore
import Testing

@testable import HandoffNetwork

/// The inspector's byte view of a beacon: the datagram's clear fields and the decrypted
/// plaintext's fields, from the beacon codec, covering every byte.
@Suite struct BeaconAnnotationTests {
    typealias F = BeaconFixtures

    @Test(
        "Every byte of a sealed beacon and of its plaintext is annotated",
        arguments: BeaconCodecTests.messages().indices)
    func coversEveryByte(index: Int) throws {
        let message = BeaconCodecTests.messages()[index]
        let beacon = F.beacon(name: "Zoë’s iPad", message: message)
        let datagram = F.sealer.seal(beacon)
        let inspected = try F.sealer.inspect(datagram)
        #expect(inspected.datagram.bytes == datagram)
        #expect(inspected.datagram.coversEveryByte)
        #expect(inspected.datagram.fields.map(\.name) == ["version", "nonce", "ciphertext", "tag"])
        #expect(inspected.plaintext.bytes.count == 99)
        #expect(inspected.plaintext.coversEveryByte)
        #expect(
            try inspected.plaintext.bytes
                == BeaconSealer.encode(BeaconSealer.decode(inspected.plaintext.bytes, receivedAt: nil)))
        #expect(inspected.sender.name == "Zoë’s iPad")
    }

    @Test func theAdvertisementFieldsAreAtTheOffsetsOfTheSpecification() throws {
        let beacon = F.beacon(counter: 42, message: .advertisement(F.advertisement()))
        let plaintext = try F.sealer.inspect(F.sealer.seal(beacon)).plaintext
        let offsets = Dictionary(uniqueKeysWithValues: plaintext.fields.map { ($0.name, $0.range) })
        #expect(offsets["device"] == 0..<16)
        #expect(offsets["counter"] == 24..<32)
        #expect(offsets["sessionPort"] == 40..<42)
        #expect(offsets["message"] == 43..<44)
        #expect(offsets["activityTypeHash"] == 44..<51)
        #expect(offsets["expiresIn"] == 64..<68)
        #expect(offsets["name length"] == 68..<69)
        #expect(plaintext.fields.first { $0.name == "counter" }?.value == "42")
        #expect(plaintext.fields.first { $0.name == "message" }?.value == "advertisement")
        #expect(plaintext.fields.last?.name == "padding")
    }

    @Test func anotherAccountsBeaconIsNotOpened() {
        let datagram = F.otherSealer.seal(F.beacon())
        #expect(throws: BeaconError.authenticationFailed) { try F.sealer.inspect(datagram) }
    }
}
