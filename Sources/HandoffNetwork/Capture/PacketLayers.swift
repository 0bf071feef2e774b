/// What a captured packet carries above the link layer: IPv4 or IPv6, then UDP or TCP.
///
/// Reads hostile bytes: every header length is checked against what was captured. A packet this
/// reader does not follow (ARP, ICMP, a fragment, IPv6 extension headers) is a ``PacketSkipped``
/// with the reason: a capture holds all sorts.
package struct PacketLayers: Sendable, Hashable {
    package enum Transport: Sendable, Hashable {
        case udp
        /// `flags`: TCP's flag byte (FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10).
        case tcp(sequence: UInt32, flags: UInt8)
    }

    package var source: String
    package var destination: String
    package var sourcePort: Int
    package var destinationPort: Int
    package var transport: Transport
    /// The transport's payload, as far as it was captured.
    package var payload: [UInt8]

    /// The layers of `packet`, or why they cannot be followed.
    package static func parse(_ packet: CapturedPacket) -> Result<PacketLayers, PacketSkipped> {
        let data = packet.data
        var network = 0
        var ethertype: Int?
        switch packet.linkType {
        case 1:  // Ethernet (what tcpdump and dumpcap record on Linux's loopback)
            guard data.count >= 14 else { return .failure(PacketSkipped("truncated Ethernet header")) }
            var type = Int(data[12]) << 8 | Int(data[13])
            var start = 14
            while type == 0x8100 || type == 0x88A8 {
                guard data.count >= start + 4 else { return .failure(PacketSkipped("truncated VLAN tag")) }
                type = Int(data[start + 2]) << 8 | Int(data[start + 3])
                start += 4
            }
            network = start
            ethertype = type
        case 0:  // BSD loopback: a 4-byte address family in the capturing host's order
            guard data.count >= 4 else { return .failure(PacketSkipped("truncated loopback header")) }
            network = 4
        case 101, 228, 229, 12, 14:  // Raw IP
            network = 0
        case 113:  // Linux cooked capture v1
            guard data.count >= 16 else { return .failure(PacketSkipped("truncated Linux cooked header")) }
            network = 16
            ethertype = Int(data[14]) << 8 | Int(data[15])
        case 276:  // Linux cooked capture v2
            guard data.count >= 20 else { return .failure(PacketSkipped("truncated Linux cooked v2 header")) }
            network = 20
            ethertype = Int(data[0]) << 8 | Int(data[1])
        default:
            return .failure(PacketSkipped("link type \(packet.linkType) is not read here"))
        }
        if let ethertype, ethertype != 0x0800, ethertype != 0x86DD {
            return .failure(PacketSkipped("ethertype 0x\(String(ethertype, radix: 16)) is not IP"))
        }
        guard data.count > network else { return .failure(PacketSkipped("no network header")) }
        switch data[network] >> 4 {
        case 4: return ipv4(data, at: network)
        case 6: return ipv6(data, at: network)
        default: return .failure(PacketSkipped("IP version \(data[network] >> 4)"))
        }
    }

    private static func ipv4(_ data: [UInt8], at start: Int) -> Result<PacketLayers, PacketSkipped> {
        guard data.count >= start + 20 else { return .failure(PacketSkipped("truncated IPv4 header")) }
        let headerLength = Int(data[start] & 0x0F) * 4
        let total = Int(data[start + 2]) << 8 | Int(data[start + 3])
        guard headerLength >= 20, total >= headerLength, data.count >= start + headerLength else {
            return .failure(PacketSkipped("malformed IPv4 header"))
        }
        let fragment = Int(data[start + 6] & 0x3F) << 8 | Int(data[start + 7])
        guard fragment == 0 else { return .failure(PacketSkipped("IPv4 fragment")) }
        let end = min(data.count, start + total)
        let source = data[start + 12..<start + 16].map { String($0) }.joined(separator: ".")
        let destination = data[start + 16..<start + 20].map { String($0) }.joined(separator: ".")
        return transportLayer(
            data, protocol: data[start + 9], at: start + headerLength, end: end, source: source,
            destination: destination)
    }

    private static func ipv6(_ data: [UInt8], at start: Int) -> Result<PacketLayers, PacketSkipped> {
        guard data.count >= start + 40 else { return .failure(PacketSkipped("truncated IPv6 header")) }
        let payloadLength = Int(data[start + 4]) << 8 | Int(data[start + 5])
        let end = min(data.count, start + 40 + payloadLength)
        func address(_ at: Int) -> String {
            stride(from: at, to: at + 16, by: 2).map { String(Int(data[$0]) << 8 | Int(data[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        }
        return transportLayer(
            data, protocol: data[start + 6], at: start + 40, end: end, source: address(start + 8),
            destination: address(start + 24))
    }

    private static func transportLayer(
        _ data: [UInt8], protocol number: UInt8, at start: Int, end: Int, source: String, destination: String
    ) -> Result<PacketLayers, PacketSkipped> {
        guard end >= start else { return .failure(PacketSkipped("IP length shorter than its header")) }
        func port(_ at: Int) -> Int { Int(data[at]) << 8 | Int(data[at + 1]) }
        switch number {
        case 17:
            guard end - start >= 8 else { return .failure(PacketSkipped("truncated UDP header")) }
            let length = port(start + 4)
            let payloadEnd = length >= 8 ? min(end, start + length) : end
            return .success(
                PacketLayers(
                    source: source, destination: destination, sourcePort: port(start),
                    destinationPort: port(start + 2), transport: .udp, payload: Array(data[start + 8..<payloadEnd])))
        case 6:
            guard end - start >= 20 else { return .failure(PacketSkipped("truncated TCP header")) }
            let headerLength = Int(data[start + 12] >> 4) * 4
            guard headerLength >= 20, end - start >= headerLength else {
                return .failure(PacketSkipped("malformed TCP header"))
            }
            let sequence = data[start + 4..<start + 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return .success(
                PacketLayers(
                    source: source, destination: destination, sourcePort: port(start),
                    destinationPort: port(start + 2), transport: .tcp(sequence: sequence, flags: data[start + 13]),
                    payload: Array(data[start + headerLength..<end])))
        default:
            return .failure(PacketSkipped("IP protocol \(number)"))
        }
    }
}

/// Why a packet's layers were not followed (not an error: captures hold all sorts).
package struct PacketSkipped: Error, Sendable, Hashable, CustomStringConvertible {
    package var reason: String
    init(_ reason: String) { self.reason = reason }
    package var description: String { reason }
}
