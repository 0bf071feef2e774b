import Foundation
import HandoffCore

/// A capture told packet by packet (`handoff wire decode`): beacons to the discovery port opened
/// with the account's beacon key and annotated field by field as the inspector annotates them
/// (``BeaconSealer/inspect(_:)``, whose notes come from the encoder itself), session packets
/// with their TCP flags and the TLS records they start with.
///
/// Session frames travel inside TLS 1.3 records; decrypting those takes the TLS key schedule and
/// record protection, which NIOSSL does not expose and which this project does not write itself
/// (docs/security.md: no hand-rolled cryptography). tshark decrypts them with the devices' key
/// log, and ``SessionTranscript`` reads the frames from its output; the session listeners the
/// opened beacons announce (``Counts/listeners``) tell it which connections are sessions.
package struct WireTranscript: Sendable {
    /// Opens the account's beacons; nil: beacons are shown sealed.
    package var sealer: BeaconSealer?
    package var discoveryPort: Int

    package init(sealer: BeaconSealer?, discoveryPort: Int = NetworkOptions.defaultDiscoveryPort) {
        self.sealer = sealer
        self.discoveryPort = discoveryPort
    }

    /// What the transcript counted.
    package struct Counts: Sendable, Hashable {
        package var packets = 0
        package var beaconsOpened = 0
        package var beaconsNotOpened = 0
        package var sessionSegments = 0
        package var skipped = 0
        /// The session listeners the opened beacons announced, in the order first heard.
        package var listeners: [SessionTranscript.Listener] = []
    }

    /// How to see the session frames, for a transcript made without the key log.
    package static let keyLogHint =
        "session frames are inside TLS 1.3: give the key log the devices wrote (SSLKEYLOGFILE) with --key-log FILE, "
        + "and tshark decrypts them for this command (apt-get install tshark)"

    /// The lines telling `packets`, and what they counted.
    package func lines(for packets: [CapturedPacket]) -> (lines: [String], counts: Counts) {
        var lines: [String] = []
        var counts = Counts()
        let start = packets.lazy.compactMap(\.time).first
        for packet in packets {
            counts.packets += 1
            var time = "-"
            if let seconds = packet.time, let start { time = String(format: "%.6f", seconds - start) }
            let head = "#\(packet.number) \(time)"
            let layers: PacketLayers
            switch PacketLayers.parse(packet) {
            case .failure(let skipped):
                counts.skipped += 1
                lines.append("\(head) \(packet.data.count) bytes, not followed: \(skipped)")
                continue
            case .success(let parsed): layers = parsed
            }
            let route =
                "\(layers.source):\(layers.sourcePort) → \(layers.destination):\(layers.destinationPort)"
            switch layers.transport {
            case .udp where layers.destinationPort == discoveryPort || layers.sourcePort == discoveryPort:
                lines.append(
                    contentsOf: beaconLines(
                        head: "\(head) \(route) UDP", layers.payload, from: layers.source, counts: &counts))
            case .udp:
                counts.skipped += 1
                lines.append("\(head) \(route) UDP \(layers.payload.count) bytes (not the discovery port)")
            case .tcp(_, let flags):
                counts.sessionSegments += 1
                var line = "\(head) \(route) TCP \(Self.flagWords(flags)) \(layers.payload.count) bytes"
                if let records = Self.tlsRecords(layers.payload) { line += ": \(records)" }
                lines.append(line)
            }
        }
        lines.append(
            "\(counts.packets) packets: \(counts.beaconsOpened) beacons opened, \(counts.beaconsNotOpened) not opened, "
                + "\(counts.sessionSegments) session segments, \(counts.skipped) others")
        return (lines, counts)
    }

    private func beaconLines(head: String, _ datagram: [UInt8], from source: String, counts: inout Counts) -> [String] {
        guard let sealer else {
            counts.beaconsNotOpened += 1
            return ["\(head) \(datagram.count) bytes: sealed beacon (no account key given)"]
        }
        let inspected: BeaconBytes
        do {
            inspected = try sealer.inspect(datagram)
        } catch {
            counts.beaconsNotOpened += 1
            return ["\(head) \(datagram.count) bytes: not a beacon of this account (\(error))"]
        }
        counts.beaconsOpened += 1
        let sender = inspected.sender
        if let beacon = try? sealer.open(datagram) {
            let listener = SessionTranscript.Listener(
                device: sender, endpoint: TCPEndpoint(address: source, port: Int(beacon.sessionPort)))
            if !counts.listeners.contains(listener) { counts.listeners.append(listener) }
        }
        var lines = [
            "\(head) \(datagram.count) bytes: beacon from \"\(TerminalText.sanitized(sender.name))\" (\(sender.kind.rawValue), \(sender.id))"
        ]
        lines.append("    datagram")
        lines.append(contentsOf: Self.fieldLines(inspected.datagram))
        lines.append("    plaintext (datagram offset 13)")
        lines.append(contentsOf: Self.fieldLines(inspected.plaintext))
        return lines
    }

    /// One line per field: offset, size, name, what it says, and its first bytes in hex.
    static func fieldLines(_ annotated: AnnotatedBytes) -> [String] {
        guard !annotated.fields.isEmpty else {
            return ["      \(annotated.bytes.count) bytes (not the encoding this version writes: no fields)"]
        }
        return annotated.fields.map { field in
            let bytes = annotated.bytes[field.range]
            let hex = bytes.prefix(16).map { String(format: "%02x", $0) }.joined() + (bytes.count > 16 ? "…" : "")
            let indent = String(repeating: "  ", count: field.depth)
            let offset = String(field.range.lowerBound).leftPadded(to: 4)
            let size = String(field.range.count).leftPadded(to: 3)
            return "      \(offset) \(size)  \(indent)\(field.name): \(TerminalText.sanitized(field.value))  [\(hex)]"
        }
    }

    static func flagWords(_ flags: UInt8) -> String {
        let names: [(UInt8, String)] = [(0x02, "SYN"), (0x01, "FIN"), (0x04, "RST"), (0x08, "PSH"), (0x10, "ACK")]
        let set = names.filter { flags & $0.0 != 0 }.map(\.1)
        return "[" + (set.isEmpty ? "none" : set.joined(separator: ",")) + "]"
    }

    /// The TLS records a segment starts with and holds whole (their headers are in clear), or nil
    /// when it does not start with one (a record continued from the previous segment).
    static func tlsRecords(_ payload: [UInt8]) -> String? {
        let kinds: [UInt8: String] = [
            20: "change cipher spec", 21: "alert", 22: "handshake", 23: "application data",
        ]
        var offset = 0
        var records: [String] = []
        while payload.count - offset >= 5, let kind = kinds[payload[offset]], payload[offset + 1] == 3 {
            let length = Int(payload[offset + 3]) << 8 | Int(payload[offset + 4])
            records.append("\(kind) \(length)")
            offset += 5 + length
        }
        guard !records.isEmpty else { return nil }
        let more = offset < payload.count ? " …" : ""
        return "TLS records: " + records.joined(separator: ", ") + more
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
