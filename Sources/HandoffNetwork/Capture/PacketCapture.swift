import Foundation

/// One packet of a capture file, as the capture recorded it (link-layer header included).
package struct CapturedPacket: Sendable, Hashable {
    /// 1 for the first packet of the file, as Wireshark numbers them.
    package var number: Int
    /// Where the packet's block (pcapng) or record (pcap) starts in the file.
    package var fileOffset: Int
    /// Seconds since 1970, when the capture says how to read its timestamps.
    package var time: Double?
    /// The link type (LINKTYPE_ETHERNET 1, LINKTYPE_NULL 0, LINKTYPE_RAW 101, Linux SLL 113, SLL2 276…).
    package var linkType: UInt32
    /// The bytes captured (at most the snapshot length; may be fewer than were sent).
    package var data: [UInt8]
}

/// A capture file that could not be read: what was wrong and where.
package struct PacketCaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file offset of the byte or field that was wrong.
    package var offset: Int
    package var message: String
    package var description: String { "bad capture file at offset \(offset): \(message)" }
}

/// Reads pcapng (the format `dumpcap` and Wireshark write) and classic pcap (`tcpdump -w`).
///
/// A decoder of hostile input: every length is checked against what is left before it is used,
/// nothing is reserved from a length the file announces, and anything malformed is a
/// ``PacketCaptureError`` naming the file offset. Blocks this reader does not need (name
/// resolution, statistics, custom blocks) are skipped by their length.
package enum PacketCapture {
    /// The most packets one file may hold (a guard for the caller's memory, far above a demo's).
    package static let maximumPackets = 1_000_000

    /// Every packet of `bytes`, a pcapng or pcap file.
    package static func packets(in bytes: [UInt8]) throws(PacketCaptureError) -> [CapturedPacket] {
        guard bytes.count >= 4 else {
            throw PacketCaptureError(offset: 0, message: "\(bytes.count) bytes: too short for a capture file")
        }
        let magic = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
        switch magic {
        case 0x0A0D_0D0A:
            var reader = PcapNGReader(bytes)
            return try reader.packets()
        case 0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1:
            var reader = ClassicPcapReader(bytes)
            return try reader.packets()
        default:
            throw PacketCaptureError(
                offset: 0, message: "not a pcapng or pcap file (magic \(String(magic, radix: 16, uppercase: false)))")
        }
    }
}

/// Bounds-checked reads of integers in either byte order.
struct CaptureBytes {
    let bytes: [UInt8]
    var littleEndian = true

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func has(_ count: Int, at offset: Int) -> Bool {
        offset >= 0 && count >= 0 && offset <= bytes.count && count <= bytes.count - offset
    }

    func u16(at offset: Int, _ what: String) throws(PacketCaptureError) -> UInt16 {
        guard has(2, at: offset) else { throw truncated(what, at: offset) }
        let a = UInt16(bytes[offset])
        let b = UInt16(bytes[offset + 1])
        return littleEndian ? a | b << 8 : a << 8 | b
    }

    func u32(at offset: Int, _ what: String) throws(PacketCaptureError) -> UInt32 {
        guard has(4, at: offset) else { throw truncated(what, at: offset) }
        var value: UInt32 = 0
        for index in 0..<4 {
            let byte = UInt32(bytes[offset + (littleEndian ? 3 - index : index)])
            value = value << 8 | byte
        }
        return value
    }

    func slice(at offset: Int, count: Int, _ what: String) throws(PacketCaptureError) -> [UInt8] {
        guard has(count, at: offset) else { throw truncated(what, at: offset) }
        return Array(bytes[offset..<offset + count])
    }

    func truncated(_ what: String, at offset: Int) -> PacketCaptureError {
        PacketCaptureError(offset: offset, message: "truncated \(what)")
    }
}

/// pcapng (draft-ietf-opsawg-pcapng): sections of blocks, each `type u32, total length u32, body,
/// total length u32`, in the byte order the section header's magic gives.
struct PcapNGReader {
    private var input: CaptureBytes

    init(_ bytes: [UInt8]) { input = CaptureBytes(bytes) }

    /// An interface description: its link type and how to read its timestamps.
    private struct Interface {
        var linkType: UInt32
        /// Timestamp units per second (10^6 unless `if_tsresol` says otherwise), nil if unusable.
        var unitsPerSecond: Double?
    }

    mutating func packets() throws(PacketCaptureError) -> [CapturedPacket] {
        var packets: [CapturedPacket] = []
        var interfaces: [Interface] = []
        var offset = 0
        var sawSection = false
        while offset < input.bytes.count {
            let start = offset
            guard input.has(12, at: start) else { throw input.truncated("block header", at: start) }
            // The type is the same in either byte order for a section header block.
            if input.bytes[start..<start + 4].elementsEqual([0x0A, 0x0D, 0x0D, 0x0A]) {
                guard input.has(12, at: start + 8) else { throw input.truncated("section header", at: start + 8) }
                let order = Array(input.bytes[start + 8..<start + 12])
                if order == [0x4D, 0x3C, 0x2B, 0x1A] {
                    input.littleEndian = true
                } else if order == [0x1A, 0x2B, 0x3C, 0x4D] {
                    input.littleEndian = false
                } else {
                    throw PacketCaptureError(offset: start + 8, message: "unknown byte-order magic")
                }
                interfaces = []
                sawSection = true
            } else if !sawSection {
                throw PacketCaptureError(offset: start, message: "the first block is not a section header")
            }
            let type = try input.u32(at: start, "block type")
            let length = Int(try input.u32(at: start + 4, "block length"))
            guard length >= 12, length % 4 == 0 else {
                throw PacketCaptureError(
                    offset: start + 4, message: "block length \(length) is not a multiple of 4 of at least 12")
            }
            guard input.has(length, at: start) else {
                throw PacketCaptureError(
                    offset: start + 4,
                    message:
                        "block of \(length) bytes runs past the end of the file (\(input.bytes.count - start) left)")
            }
            let trailer = Int(try input.u32(at: start + length - 4, "block trailer"))
            guard trailer == length else {
                throw PacketCaptureError(
                    offset: start + length - 4, message: "block trailer says \(trailer) bytes, its header \(length)")
            }
            let body = start + 8
            let bodyEnd = start + length - 4
            switch type {
            case 0x0A0D_0D0A:
                guard bodyEnd - body >= 16 else { throw input.truncated("section header", at: body) }
            case 1:  // Interface Description Block
                guard bodyEnd - body >= 8 else { throw input.truncated("interface description", at: body) }
                let linkType = UInt32(try input.u16(at: body, "link type"))
                let resolution = try timestampResolution(options: body + 8, end: bodyEnd)
                guard interfaces.count < 65_536 else {
                    throw PacketCaptureError(offset: start, message: "more than 65536 interfaces in one section")
                }
                interfaces.append(Interface(linkType: linkType, unitsPerSecond: resolution))
            case 6:  // Enhanced Packet Block
                guard bodyEnd - body >= 20 else { throw input.truncated("enhanced packet block", at: body) }
                let interfaceID = Int(try input.u32(at: body, "interface ID"))
                guard interfaceID < interfaces.count else {
                    throw PacketCaptureError(
                        offset: body, message: "interface \(interfaceID) was not described (\(interfaces.count) were)")
                }
                let high = UInt64(try input.u32(at: body + 4, "timestamp"))
                let low = UInt64(try input.u32(at: body + 8, "timestamp"))
                let captured = Int(try input.u32(at: body + 12, "captured length"))
                guard captured <= bodyEnd - (body + 20) else {
                    throw PacketCaptureError(
                        offset: body + 12,
                        message: "captured length \(captured) exceeds the block's \(bodyEnd - body - 20) bytes of data")
                }
                let interface = interfaces[interfaceID]
                try append(
                    &packets, start: start, linkType: interface.linkType,
                    time: interface.unitsPerSecond.map { Double(high << 32 | low) / $0 },
                    data: try input.slice(at: body + 20, count: captured, "packet data"))
            case 3:  // Simple Packet Block: interface 0, no timestamp
                guard bodyEnd - body >= 4 else { throw input.truncated("simple packet block", at: body) }
                guard let interface = interfaces.first else {
                    throw PacketCaptureError(offset: start, message: "simple packet block before any interface")
                }
                let original = Int(try input.u32(at: body, "original length"))
                let captured = min(original, bodyEnd - body - 4)
                try append(
                    &packets, start: start, linkType: interface.linkType, time: nil,
                    data: try input.slice(at: body + 4, count: captured, "packet data"))
            default:
                break  // Name resolution, statistics, decryption secrets, custom blocks: not needed.
            }
            offset = start + length
        }
        return packets
    }

    private func append(
        _ packets: inout [CapturedPacket], start: Int, linkType: UInt32, time: Double?, data: [UInt8]
    ) throws(PacketCaptureError) {
        guard packets.count < PacketCapture.maximumPackets else {
            throw PacketCaptureError(offset: start, message: "more than \(PacketCapture.maximumPackets) packets")
        }
        packets.append(
            CapturedPacket(number: packets.count + 1, fileOffset: start, time: time, linkType: linkType, data: data))
    }

    /// The `if_tsresol` option (code 9) of an interface, as units per second; 10^6 when absent.
    private func timestampResolution(options start: Int, end: Int) throws(PacketCaptureError) -> Double? {
        var offset = start
        while end - offset >= 4 {
            let code = try input.u16(at: offset, "option code")
            let length = Int(try input.u16(at: offset + 2, "option length"))
            if code == 0 { break }
            let padded = (length + 3) & ~3
            guard padded <= end - offset - 4 else {
                throw PacketCaptureError(offset: offset + 2, message: "option of \(length) bytes runs past its block")
            }
            if code == 9, length == 1 {
                let value = input.bytes[offset + 4]
                let exponent = Int(value & 0x7F)
                // Past 10^-19 or 2^-63 a timestamp cannot be told from noise: report none.
                if value & 0x80 == 0 {
                    return exponent <= 19 ? pow(10, Double(exponent)) : nil
                }
                return exponent <= 63 ? pow(2, Double(exponent)) : nil
            }
            offset += 4 + padded
        }
        return 1_000_000
    }
}

/// Classic pcap: a 24-byte header (magic, version, zone, accuracy, snapshot length, link type),
/// then records of `seconds u32, fraction u32, captured u32, original u32, data`.
struct ClassicPcapReader {
    private var input: CaptureBytes

    init(_ bytes: [UInt8]) { input = CaptureBytes(bytes) }

    mutating func packets() throws(PacketCaptureError) -> [CapturedPacket] {
        guard input.has(24, at: 0) else { throw input.truncated("pcap file header", at: 0) }
        let magic = Array(input.bytes[0..<4])
        let forms: [[UInt8]: (littleEndian: Bool, nanoseconds: Bool)] = [
            [0xD4, 0xC3, 0xB2, 0xA1]: (true, false), [0xA1, 0xB2, 0xC3, 0xD4]: (false, false),
            [0x4D, 0x3C, 0xB2, 0xA1]: (true, true), [0xA1, 0xB2, 0x3C, 0x4D]: (false, true),
        ]
        guard let form = forms[magic] else {
            throw PacketCaptureError(offset: 0, message: "not a pcap magic number")
        }
        input.littleEndian = form.littleEndian
        let nanoseconds = form.nanoseconds
        let linkType = try input.u32(at: 20, "link type") & 0x0FFF_FFFF
        var packets: [CapturedPacket] = []
        var offset = 24
        while offset < input.bytes.count {
            let start = offset
            guard input.has(16, at: start) else { throw input.truncated("record header", at: start) }
            let seconds = Double(try input.u32(at: start, "timestamp"))
            let fraction = Double(try input.u32(at: start + 4, "timestamp"))
            let captured = Int(try input.u32(at: start + 8, "captured length"))
            guard input.has(captured, at: start + 16) else {
                throw PacketCaptureError(
                    offset: start + 8,
                    message:
                        "record of \(captured) bytes runs past the end of the file (\(input.bytes.count - start - 16) left)"
                )
            }
            guard packets.count < PacketCapture.maximumPackets else {
                throw PacketCaptureError(offset: start, message: "more than \(PacketCapture.maximumPackets) packets")
            }
            packets.append(
                CapturedPacket(
                    number: packets.count + 1, fileOffset: start,
                    time: seconds + fraction / (nanoseconds ? 1e9 : 1e6), linkType: linkType,
                    data: try input.slice(at: start + 16, count: captured, "packet data")))
            offset = start + 16 + captured
        }
        return packets
    }
}
