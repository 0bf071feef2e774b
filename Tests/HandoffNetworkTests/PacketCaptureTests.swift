import Foundation
import HandoffCore
import NIOCore
import Testing

@testable import HandoffNetwork

/// Capture files as `handoff wire decode` reads them: pcapng and classic pcap, hostile input
/// refused with the offset, and beacons opened and annotated with the account's key.
@Suite struct PacketCaptureTests {
    typealias F = BeaconFixtures

    /// Ethernet (zero addresses, as on Linux's loopback), IPv4 and UDP around `payload`.
    static func udpFrame(_ payload: [UInt8], sourcePort: Int = 41_000, destinationPort: Int = 17_820) -> [UInt8] {
        var frame = [UInt8](repeating: 0, count: 12) + [0x08, 0x00]
        let total = 20 + 8 + payload.count
        frame += [0x45, 0, UInt8(total >> 8), UInt8(total & 0xFF), 0, 0, 0x40, 0, 64, 17, 0, 0]
        frame += [127, 0, 0, 1, 127, 255, 255, 255]
        frame += [UInt8(sourcePort >> 8), UInt8(sourcePort & 0xFF), UInt8(destinationPort >> 8)]
        frame += [
            UInt8(destinationPort & 0xFF), UInt8((8 + payload.count) >> 8), UInt8((8 + payload.count) & 0xFF), 0, 0,
        ]
        return frame + payload
    }

    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> ($0 * 8)) & 0xFF) } }
    static func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8((value >> ($0 * 8)) & 0xFF) } }

    static func block(_ type: Int, _ body: [UInt8]) -> [UInt8] {
        let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
        let length = 12 + padded.count
        return le32(type) + le32(length) + padded + le32(length)
    }

    /// A little-endian pcapng file: section header, one Ethernet interface, one packet per frame.
    static func pcapng(_ frames: [[UInt8]]) -> [UInt8] {
        var file = block(
            0x0A0D_0D0A, [0x4D, 0x3C, 0x2B, 0x1A] + le16(1) + le16(0) + [UInt8](repeating: 0xFF, count: 8))
        file += block(1, le16(1) + le16(0) + le32(262_144))
        for (index, frame) in frames.enumerated() {
            let micros = 1_795_000_000_000_000 + index * 1500
            file += block(
                6,
                le32(0) + le32(micros >> 32) + le32(micros & 0xFFFF_FFFF) + le32(frame.count) + le32(frame.count)
                    + frame)
        }
        return file
    }

    static func pcap(_ frames: [[UInt8]]) -> [UInt8] {
        var file: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1] + le16(2) + le16(4) + le32(0) + le32(0) + le32(262_144) + le32(1)
        for frame in frames {
            file += le32(1_795_000_000) + le32(250) + le32(frame.count) + le32(frame.count) + frame
        }
        return file
    }

    static var beaconFrame: [UInt8] {
        udpFrame(F.sealer.seal(F.beacon(counter: 42, message: .advertisement(F.advertisement()))))
    }

    @Test(arguments: ["pcapng", "pcap"])
    func readsPacketsOfBothFormats(format: String) throws {
        let frames = [Self.beaconFrame, Self.udpFrame([1, 2, 3], destinationPort: 9)]
        let file = format == "pcapng" ? Self.pcapng(frames) : Self.pcap(frames)
        let packets = try PacketCapture.packets(in: file)
        #expect(packets.map(\.data) == frames)
        #expect(packets.map(\.number) == [1, 2])
        #expect(packets.allSatisfy { $0.linkType == 1 })
        let layers = try PacketLayers.parse(packets[0]).get()
        #expect(layers.destination == "127.255.255.255")
        #expect(layers.destinationPort == 17_820)
        #expect(layers.payload.count == 128)
    }

    @Test func theTranscriptOpensTheAccountsBeaconsFieldByField() throws {
        let packets = try PacketCapture.packets(in: Self.pcapng([Self.beaconFrame]))
        let (lines, counts) = WireTranscript(sealer: F.sealer).lines(for: packets)
        #expect(counts.beaconsOpened == 1)
        let text = lines.joined(separator: "\n")
        #expect(text.contains("beacon from \"Phone 1\" (phone, 6b1e8b7a-2c4d-4e5f-9a0b-1c2d3e4f5a6b)"))
        for name in ["version", "nonce", "ciphertext", "tag", "device", "counter: 42", "activityTypeHash", "padding"] {
            #expect(text.contains(name), "\(name) is missing from:\n\(text)")
        }
        let other = WireTranscript(sealer: F.otherSealer).lines(for: packets)
        #expect(other.counts.beaconsNotOpened == 1)
        #expect(other.lines[0].contains("not a beacon of this account"))
    }

    @Test func hostileFilesAreRefusedWithTheOffset() {
        let file = Self.pcapng([Self.beaconFrame])
        // A block whose length runs past the end: the offset of that length.
        var cut = file
        cut.removeLast(8)
        let interfaceEnd = 28 + 20
        #expect(throws: PacketCaptureError.self) { try PacketCapture.packets(in: cut) }
        do {
            _ = try PacketCapture.packets(in: cut)
        } catch {
            #expect(error.offset == interfaceEnd + 4)
        }
        // A packet before any interface.
        let orphan = Array(file[0..<28]) + Array(file[interfaceEnd...])
        #expect(throws: PacketCaptureError(offset: 36, message: "interface 0 was not described (0 were)")) {
            try PacketCapture.packets(in: orphan)
        }
        #expect(throws: PacketCaptureError.self) { try PacketCapture.packets(in: [0, 1, 2, 3, 4]) }
    }

    @Test func everyPrefixAndEveryFlippedByteIsReadOrRefusedWithoutACrash() {
        for file in [Self.pcapng([Self.beaconFrame]), Self.pcap([Self.beaconFrame])] {
            for length in 0...file.count {
                if let packets = try? PacketCapture.packets(in: Array(file[0..<length])) {
                    _ = WireTranscript(sealer: F.sealer).lines(for: packets)
                }
            }
            for index in file.indices {
                var changed = file
                changed[index] ^= 0xA5
                if let packets = try? PacketCapture.packets(in: changed) {
                    _ = WireTranscript(sealer: F.sealer).lines(for: packets)
                }
            }
        }
    }

    @Test func aKeyLogIsCreatedForItsOwnerAndSharedWholeLineByWholeLine() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keylog-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try KeyLogFile(path: path)
        let second = try KeyLogFile(path: path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            let line = "CLIENT_TRAFFIC_SECRET_0 \(String(repeating: "a", count: 64)) \(index)\n"
            (index.isMultiple(of: 2) ? first : second).append(.init(string: line))
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 200)
        #expect(lines.allSatisfy { $0.hasPrefix("CLIENT_TRAFFIC_SECRET_0 ") && $0.split(separator: " ").count == 3 })
        #expect(throws: KeyLogError.self) { try KeyLogFile(path: "/nonexistent-folder/keylog") }
    }
}
