/// What tshark says about a capture's TCP connections and their decrypted TLS, for `handoff wire
/// decode --key-log`: tshark decrypts TLS with the devices' key log (this project writes no
/// cryptography of its own, and NIOSSL does not expose record decryption), and this reads its
/// text output.
///
/// Two runs over the capture: ``streamListArguments(capture:keyLog:)`` lists every TCP packet
/// with its connection (`tcp.stream`) and the TLS handshake messages tshark could read (the
/// encrypted ones only when the key log holds the connection's secrets);
/// ``followArguments(capture:keyLog:streams:)`` prints each connection's decrypted application
/// data as hex (`-z follow,tls,raw,N`), record by record in capture order, the records of one end
/// indented by a tab.
///
/// tshark's output is read as hostile text: every line is checked (its columns, numbers in range,
/// hex digits in pairs, a bounded length), and anything unexpected is a ``TsharkOutputError``
/// naming the output, the line and the connection.
package enum TsharkOutput {
    /// The fields of the stream list, in order.
    package static let streamListFields = [
        "frame.number", "tcp.stream", "ip.src", "ipv6.src", "tcp.srcport", "ip.dst", "ipv6.dst", "tcp.dstport",
        "tcp.flags", "tls.record.version", "tls.handshake.type",
    ]

    /// The longest line read (a TLS record holds at most 16 KiB of plaintext: 32 Ki hex digits).
    package static let maximumLineLength = 1 << 20
    /// The most connections one stream list may hold.
    package static let maximumStreams = 100_000

    /// tshark's arguments listing its heuristic dissectors (``protocolsGuessingOnTLS(_:)`` reads them).
    package static let heuristicListArguments = ["-G", "heuristic-decodes"]

    /// The protocols whose heuristic dissectors guess at TLS's decrypted data, from tshark's
    /// heuristic list (lines of table, protocol and enabled, tab-separated), to be disabled: a
    /// guess that takes a session frame for its protocol and then fails on it (RDPMT's takes the
    /// `hello`) aborts the TLS dissection of that packet before it reaches the follow tap, and the
    /// frame would be missing. Lines that are not a table and a protocol name are ignored.
    package static func protocolsGuessingOnTLS(_ text: String) -> [String] {
        var names: [String] = []
        for line in text.split(separator: "\n").prefix(10_000) {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count >= 2, columns[0] == "tls" else { continue }
            let name = columns[1]
            guard (1...64).contains(name.utf8.count),
                name.unicodeScalars.allSatisfy({
                    $0.properties.isASCIIHexDigit || ("a"..."z").contains($0) || ("A"..."Z").contains($0)
                        || $0 == "_" || $0 == "-" || $0 == "."
                }),
                !names.contains(String(name))
            else { continue }
            names.append(String(name))
        }
        return names
    }

    /// tshark's arguments for the stream list: tab-separated fields, one line per TCP packet.
    package static func streamListArguments(capture: String, keyLog: String, disabling: [String] = []) -> [String] {
        ["-r", capture, "-n", "-o", "tls.keylog_file:\(keyLog)", "-Y", "tcp", "-T", "fields", "-E", "separator=/t"]
            + ["-E", "occurrence=a", "-E", "aggregator=,", "-E", "header=n"]
            + disabling.flatMap { ["--disable-protocol", $0] } + streamListFields.flatMap { ["-e", $0] }
    }

    /// tshark's arguments printing the decrypted application data of `streams` (`tcp.stream`
    /// numbers), with the protocols `disabling` disabled (one option each: tshark 4.0 takes no list).
    package static func followArguments(
        capture: String, keyLog: String, streams: [Int], disabling: [String] = []
    ) -> [String] {
        ["-r", capture, "-n", "-q", "-o", "tls.keylog_file:\(keyLog)"]
            + disabling.flatMap { ["--disable-protocol", $0] } + streams.flatMap { ["-z", "follow,tls,raw,\($0)"] }
    }

    // MARK: The stream list

    /// The TCP connections of a stream list, in the order of their first packet.
    package static func streams(fromList text: String) throws(TsharkOutputError) -> [TCPStreamSummary] {
        var byIndex: [Int: TCPStreamSummary] = [:]
        var order: [Int] = []
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            if line.isEmpty { continue }
            func fail(_ message: String, stream: Int? = nil) -> TsharkOutputError {
                TsharkOutputError(output: "stream list", line: number, stream: stream, message: message)
            }
            guard line.utf8.count <= maximumLineLength else {
                throw fail("\(line.utf8.count) characters (at most \(maximumLineLength))")
            }
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count == streamListFields.count else {
                throw fail("\(columns.count) columns, not the \(streamListFields.count) asked for")
            }
            // With several layers (a tunnel) a field has several values: the outermost comes first.
            func first(_ column: Int) -> Substring {
                columns[column].split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            }
            func integer(_ column: Int, _ range: ClosedRange<Int>, stream: Int? = nil) throws(TsharkOutputError) -> Int
            {
                let text = first(column)
                guard let value = Int(text), range.contains(value) else {
                    throw fail(
                        "\(streamListFields[column]) is \"\(Self.shown(text))\", not a number from \(range.lowerBound) to \(range.upperBound)",
                        stream: stream)
                }
                return value
            }
            let frame = try integer(0, 1...Int(Int32.max))
            let index = try integer(1, 0...maximumStreams - 1)
            let sourceAddress = first(2).isEmpty ? first(3) : first(2)
            let destinationAddress = first(5).isEmpty ? first(6) : first(5)
            guard Self.isAddress(sourceAddress), Self.isAddress(destinationAddress) else {
                throw fail(
                    "the addresses \"\(Self.shown(sourceAddress))\" and \"\(Self.shown(destinationAddress))\" are not IP addresses",
                    stream: index)
            }
            let source = TCPEndpoint(address: String(sourceAddress), port: try integer(4, 0...65_535, stream: index))
            let destination = TCPEndpoint(
                address: String(destinationAddress), port: try integer(7, 0...65_535, stream: index))
            let flagsText = first(8)
            guard flagsText.hasPrefix("0x"), let flags = Int(flagsText.dropFirst(2), radix: 16),
                (0...0xFFF).contains(flags)
            else {
                throw fail("tcp.flags is \"\(Self.shown(flagsText))\", not TCP flags in hex", stream: index)
            }
            let records = columns[9].isEmpty ? 0 : columns[9].split(separator: ",").count
            var types: Set<UInt8> = []
            for type in columns[10].split(separator: ",") {
                guard let value = UInt8(type) else {
                    throw fail("tls.handshake.type holds \"\(Self.shown(type))\", not a handshake type", stream: index)
                }
                types.insert(value)
            }
            let isOpening = flags & 0x12 == 0x02  // SYN without ACK: the client's first packet
            if var known = byIndex[index] {
                guard [known.client, known.server].contains(source), [known.client, known.server].contains(destination)
                else {
                    throw fail(
                        "packet #\(frame) is \(source) → \(destination), not between \(known.client) and \(known.server)",
                        stream: index)
                }
                if isOpening, !known.clientIsKnown {
                    known.client = source
                    known.server = destination
                    known.clientIsKnown = true
                }
                known.lastPacket = max(known.lastPacket, frame)
                known.packets += 1
                known.tlsRecords += records
                known.handshakeTypes.formUnion(types)
                byIndex[index] = known
            } else {
                guard byIndex.count < maximumStreams else { throw fail("more than \(maximumStreams) TCP connections") }
                order.append(index)
                byIndex[index] = TCPStreamSummary(
                    index: index, client: source, server: destination, clientIsKnown: isOpening, firstPacket: frame,
                    lastPacket: frame, packets: 1, tlsRecords: records, handshakeTypes: types)
            }
        }
        return order.compactMap { byIndex[$0] }
    }

    // MARK: Followed streams

    /// The connections of a follow output, each with its decrypted records in capture order.
    package static func followed(_ text: String) throws(TsharkOutputError) -> [FollowedStream] {
        var streams: [FollowedStream] = []
        var current: FollowedStream?
        var seen: Set<Int> = []
        var number = 0
        let separator = String(repeating: "=", count: 67)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            func fail(_ message: String) -> TsharkOutputError {
                TsharkOutputError(output: "follow output", line: number, stream: current?.index, message: message)
            }
            guard line.utf8.count <= maximumLineLength else {
                throw fail("\(line.utf8.count) characters (at most \(maximumLineLength))")
            }
            if line == separator {
                if let done = current {
                    streams.append(done)
                    current = nil
                } else {
                    current = FollowedStream(index: -1)
                }
                continue
            }
            guard var stream = current else {
                // tshark's own notices ("Running as user…") and blank lines between blocks.
                continue
            }
            if line.hasPrefix("Follow: ") {
                guard line == "Follow: tls,raw" else { throw fail("\"\(Self.shown(line))\" is not a raw TLS follow") }
            } else if line.hasPrefix("Filter: ") {
                let prefix = "Filter: tcp.stream eq "
                guard line.hasPrefix(prefix), let index = Int(line.dropFirst(prefix.count)),
                    (0..<maximumStreams).contains(index)
                else {
                    throw fail("\"\(Self.shown(line))\" does not name one TCP connection")
                }
                guard seen.insert(index).inserted else { throw fail("tcp.stream \(index) is followed twice") }
                stream.index = index
            } else if line.hasPrefix("Node 0: ") || line.hasPrefix("Node 1: ") {
                let endpoint = try Self.endpoint(line.dropFirst(8), fail: fail)
                if line.hasPrefix("Node 0: ") { stream.firstNode = endpoint } else { stream.secondNode = endpoint }
            } else {
                guard stream.index >= 0 else { throw fail("data before the Filter line naming its connection") }
                let fromSecondNode = line.first == "\t"
                let digits = fromSecondNode ? line.dropFirst() : line[...]
                guard let bytes = Self.bytes(hex: digits) else {
                    throw fail("\"\(Self.shown(digits))\" is not hex digits in pairs")
                }
                stream.records.append(FollowedStream.Record(fromFirstNode: !fromSecondNode, bytes: bytes))
            }
            current = stream
        }
        guard current == nil else {
            throw TsharkOutputError(
                output: "follow output", line: number, stream: current?.index, message: "the output ends inside a block"
            )
        }
        return streams
    }

    /// "127.0.0.1:17820" or "::1:17820" (the port after the last colon); nil for tshark's ":0",
    /// an end it did not note.
    private static func endpoint(
        _ text: Substring, fail: (String) -> TsharkOutputError
    ) throws(TsharkOutputError) -> TCPEndpoint? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else {
            throw fail("the node \"\(Self.shown(text))\" is not an address and a port")
        }
        let address = text[..<colon]
        if address.isEmpty, port == 0 { return nil }
        guard isAddress(address) else { throw fail("the node \"\(Self.shown(text))\" is not an address and a port") }
        return TCPEndpoint(address: String(address), port: port)
    }

    static func bytes(hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// An IPv4 or IPv6 address as tshark prints it (digits, hex digits, dots and colons).
    static func isAddress(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.count <= 45
            && text.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit || $0 == "." || $0 == ":" }
    }

    /// At most 40 characters of `text`, control characters made visible, for an error message.
    static func shown(_ text: some StringProtocol) -> String {
        let cut = text.prefix(40)
        let visible = String(
            String.UnicodeScalarView(
                cut.unicodeScalars.map { $0.properties.generalCategory == .control ? "\u{FFFD}" : $0 }))
        return cut.count < text.count ? visible + "…" : visible
    }
}

/// One end of a TCP connection, as tshark prints it.
package struct TCPEndpoint: Sendable, Hashable, CustomStringConvertible {
    package var address: String
    package var port: Int

    package init(address: String, port: Int) {
        self.address = address
        self.port = port
    }

    package var description: String { address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)" }
}

/// A TCP connection of a capture, as tshark's stream list tells it.
package struct TCPStreamSummary: Sendable, Hashable {
    /// tshark's connection number (`tcp.stream`).
    package var index: Int
    /// The end that opened the connection (its SYN), or the first packet's sender when the
    /// capture began after the opening (``clientIsKnown`` false).
    package var client: TCPEndpoint
    package var server: TCPEndpoint
    package var clientIsKnown: Bool
    /// Wireshark's packet numbers, from 1.
    package var firstPacket: Int
    package var lastPacket: Int
    package var packets: Int
    /// TLS records tshark recognised.
    package var tlsRecords: Int
    /// The TLS handshake messages tshark could read: ClientHello (1) and ServerHello (2) are in
    /// clear; TLS 1.3's EncryptedExtensions (8) only with the connection's secrets.
    package var handshakeTypes: Set<UInt8>

    /// Whether tshark could decrypt the connection, and if not, why.
    package enum Decryption: Sendable, Hashable {
        /// No TLS record in it.
        case notTLS
        /// TLS, but its handshake's start is not in the capture (it began later).
        case handshakeNotCaptured
        /// The handshake is there, but the key log holds none of its secrets.
        case noSecrets
        case decrypted
    }

    package var decryption: Decryption {
        if handshakeTypes.contains(8) { return .decrypted }
        if tlsRecords == 0, handshakeTypes.isEmpty { return .notTLS }
        return handshakeTypes.contains(1) ? .noSecrets : .handshakeNotCaptured
    }
}

/// One connection of tshark's raw TLS follow: its decrypted application data, record by record.
package struct FollowedStream: Sendable, Hashable {
    package struct Record: Sendable, Hashable {
        /// Sent by ``FollowedStream/firstNode`` (tshark prints the other end's records indented).
        package var fromFirstNode: Bool
        package var bytes: [UInt8]
    }

    package var index: Int
    /// The sender of the first decrypted record, as tshark names it ("Node 0").
    package var firstNode: TCPEndpoint?
    /// The other end ("Node 1"; tshark 4.0 leaves it out).
    package var secondNode: TCPEndpoint?
    package var records: [Record] = []

    package init(index: Int, firstNode: TCPEndpoint? = nil, secondNode: TCPEndpoint? = nil, records: [Record] = []) {
        self.index = index
        self.firstNode = firstNode
        self.secondNode = secondNode
        self.records = records
    }
}

/// tshark's output was not what was asked for: which output, which line, which connection.
package struct TsharkOutputError: Error, Sendable, Hashable, CustomStringConvertible {
    package var output: String
    package var line: Int
    package var stream: Int?
    package var message: String

    package var description: String {
        "tshark's \(output), line \(line)\(stream.map { " (tcp.stream \($0))" } ?? ""): \(message)"
    }
}
