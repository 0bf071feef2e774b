import Foundation
import HandoffCore
import Testing

/// A device ID keeps its text's hash (made once, when the ID is made): equality, hashing,
/// ordering and encoding are those of the text.
@Suite("Device IDs")
struct DeviceIDTests {
    @Test func equalTextsAreEqualIDsWithEqualHashes() {
        let text = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
        // Two strings with their own storage, made differently.
        let first = DeviceID(text)
        let second = DeviceID(rawValue: String(text.reversed().reversed()))
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(DeviceID(stringLiteral: "3f2504e0-4f89-11d3-9a0c-0305e82c3301") == first)
        #expect(DeviceID("3f2504e0-4f89-11d3-9a0c-0305e82c3302") != first)
        #expect(Set([first, second, DeviceID("other")]).count == 2)
        #expect([first: 1][second] == 1)
    }

    /// Canonically equivalent texts are equal strings, so equal IDs, and hash alike.
    @Test func canonicallyEquivalentTextsAreEqual() {
        let composed = DeviceID("caf\u{E9}")
        let decomposed = DeviceID("cafe\u{301}")
        #expect(composed == decomposed)
        #expect(composed.hashValue == decomposed.hashValue)
    }

    /// Setting the text moves the hash with it.
    @Test func settingTheTextRehashes() {
        var id = DeviceID("before")
        id.rawValue = "after"
        #expect(id == DeviceID("after"))
        #expect(id.hashValue == DeviceID("after").hashValue)
        #expect(id != DeviceID("before"))
        #expect([DeviceID("after"): true][id] == true)
    }

    @Test func orderIsTheTexts() {
        #expect(DeviceID("a") < DeviceID("b"))
        #expect(!(DeviceID("b") < DeviceID("a")))
        #expect([DeviceID("c"), DeviceID("a"), DeviceID("b")].sorted().map(\.rawValue) == ["a", "b", "c"])
    }

    /// An ID encodes as its text alone (the hash is the process's own and never written).
    @Test func anIDEncodesAsItsText() throws {
        let id = DeviceID("3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        let encoded = try JSONEncoder().encode([id])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["3f2504e0-4f89-11d3-9a0c-0305e82c3301"]"#)
        let decoded = try JSONDecoder().decode([DeviceID].self, from: encoded)
        #expect(decoded == [id])
        #expect(decoded[0].hashValue == id.hashValue)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([DeviceID].self, from: Data("[1]".utf8)) }
    }
}
