import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// `handoff wire apple`: the real executable builds Apple's Handoff advertisement (`--encode`),
/// decodes what it built, and refuses it with a changed bit or another key (docs/wire.md,
/// "Apple's advertisement").
@Suite(
    "handoff wire apple", .tags(.endToEnd), .ownThread,
    .enabled(if: HandoffExecutable.url != nil))
struct WireAppleEndToEndTests {
    static let demoKey = (0..<32).map { String(format: "%02x", $0) }.joined()

    static func handoff(_ arguments: [String]) throws -> (termination: ChildProcess.Termination, output: String) {
        let executable = try #require(HandoffExecutable.url)
        return try ChildProcess.run(executable.path, arguments)
    }

    @Test func whatEncodeBuildsDecodesAndAFlippedBitIsRefused() throws {
        let encoded = try Self.handoff([
            "wire", "apple", "--encode", "--key", "demo", "--activity-type", "com.apple.Messages", "--counter", "42",
            "--time-offset", "128",
        ])
        #expect(encoded.termination == .exited(0), "encode: \(encoded.output)")
        let advertisement = encoded.output.trimmingCharacters(in: .whitespacesAndNewlines)
        // The vector OpenSSL computes for these bytes (AppleAdvertisementTests).
        #expect(advertisement == "4c000c0e002a00d8cda4f6906804edcadcfe")

        let decoded = try Self.handoff(["wire", "apple", "--key", Self.demoKey, advertisement])
        #expect(decoded.termination == .exited(0), "decode: \(decoded.output)")
        #expect(decoded.output.contains("the tag matches"))
        #expect(decoded.output.contains("counter: 42, little-endian: the GCM IV"))
        #expect(decoded.output.contains("activity type hash: a32a9f48308fdc = com.apple.Messages"))
        #expect(decoded.output.contains("time: 0x80: current"))

        // One bit of the ciphertext changed (byte 12), then one of the counter (byte 5).
        for (index, mask) in [(12, UInt8(0x04)), (5, UInt8(0x01))] {
            var bytes = try #require(Self.bytes(advertisement))
            bytes[index] ^= mask
            let changed = bytes.map { String(format: "%02x", $0) }.joined()
            let refused = try Self.handoff(["wire", "apple", "--key", "demo", changed])
            #expect(refused.termination != .exited(0), "a changed byte \(index) was accepted: \(refused.output)")
            #expect(
                refused.output.contains("bad advertisement at offset 7: the tag does not match"), "\(refused.output)")
        }

        var otherKey = Array(Self.demoKey)
        otherKey[0] = "f"
        let wrongKey = try Self.handoff(["wire", "apple", "--key", String(otherKey), advertisement])
        #expect(wrongKey.termination != .exited(0))
        #expect(wrongKey.output.contains("the tag does not match"), "\(wrongKey.output)")
    }

    @Test func badInputIsRefusedWithTheOffset() throws {
        let truncated = try Self.handoff(["wire", "apple", "--key", "demo", "4c000c0e002a00d8cda4"])
        #expect(truncated.termination != .exited(0))
        #expect(
            truncated.output.contains("bad advertisement at offset 3: the TLV of type 0x0c says 14 bytes; 6 are left"),
            "\(truncated.output)")
        let garbage = try Self.handoff(["wire", "apple", "--key", "demo", "4c00zz"])
        #expect(garbage.termination != .exited(0))
        #expect(garbage.output.contains("hex at character 4"), "\(garbage.output)")
        let shortKey = try Self.handoff(["wire", "apple", "--key", "0011", "4c000c0e"])
        #expect(shortKey.termination != .exited(0))
        #expect(shortKey.output.contains("--key is 2 bytes"), "\(shortKey.output)")
    }

    static func bytes(_ hex: String) -> [UInt8]? {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            result.append(byte)
            index = next
        }
        return result
    }
}
