import HandoffCore

/// A capture's session frames told connection by connection (`handoff wire decode --key-log`):
/// tshark decrypts the TLS with the devices' key log (``TsharkOutput``), and each direction's
/// decrypted bytes are read with the session's own decoder (``SessionFrameScanner``), every frame
/// annotated with the fields docs/wire.md names.
///
/// Grouped per connection, in the order of their first packets; within one, the frames of both
/// directions in capture order (the order of the TLS records that complete them), each with its
/// sender and receiver and its offset in its direction's byte stream. A connection tshark could not
/// decrypt gets one line saying why; a frame the decoder refuses gets one line naming the
/// connection, the direction and the offset, and the rest is still read.
package struct SessionTranscript: Sendable {
    /// A session listener a beacon announced: the datagram's source address and its `sessionPort`.
    package struct Listener: Sendable, Hashable {
        package var device: PeerInfo
        package var endpoint: TCPEndpoint

        package init(device: PeerInfo, endpoint: TCPEndpoint) {
            self.device = device
            self.endpoint = endpoint
        }
    }

    /// The listeners the capture's opened beacons announced (none: every TLS connection is followed).
    package var listeners: [Listener]

    package init(listeners: [Listener]) {
        self.listeners = listeners
    }

    /// What the transcript counted.
    package struct Counts: Sendable, Hashable {
        package var sessions = 0
        package var frames = 0
        package var refused = 0
        package var notDecrypted = 0
        package var notFollowed = 0
    }

    /// The listener at `endpoint`: the same address and port, or the same port when no beacon
    /// came from that address (addresses are printed differently by tshark and by the beacon reader).
    package func listener(at endpoint: TCPEndpoint) -> Listener? {
        listeners.first { $0.endpoint == endpoint } ?? listeners.first { $0.endpoint.port == endpoint.port }
    }

    /// The connections to follow: those with TLS that tshark decrypted, to a listener a beacon
    /// announced when any did; and a line for each other connection with TLS, saying why it is not read.
    package func plan(_ streams: [TCPStreamSummary]) -> (follow: [Int], lines: [Int: String]) {
        var follow: [Int] = []
        var lines: [Int: String] = [:]
        for stream in streams {
            let head =
                "tcp.stream \(stream.index) (\(Self.route(stream)), packets #\(stream.firstPacket)–#\(stream.lastPacket))"
            if !listeners.isEmpty, listener(at: stream.server) == nil {
                if stream.decryption != .notTLS {
                    lines[stream.index] = "\(head): not to a session port any opened beacon announced; not read"
                }
                continue
            }
            switch stream.decryption {
            case .notTLS:
                if listener(at: stream.server) != nil {
                    lines[stream.index] = "\(head): no TLS record in it (\(stream.packets) packets)"
                }
            case .handshakeNotCaptured:
                lines[stream.index] =
                    "\(head): its TLS handshake is not in the capture (the capture began after it); not decrypted"
            case .noSecrets:
                lines[stream.index] =
                    "\(head): the key log holds no secrets for it (the device was started without SSLKEYLOGFILE, or wrote another file); not decrypted"
            case .decrypted:
                follow.append(stream.index)
            }
        }
        return (follow, lines)
    }

    /// Every line: one or more per connection of `streams`, in order, the followed ones from `followed`.
    package func lines(
        streams: [TCPStreamSummary], followed: [FollowedStream]
    ) -> (lines: [String], counts: Counts) {
        var counts = Counts()
        var out: [String] = []
        let (_, planned) = plan(streams)
        let byIndex = Dictionary(followed.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        for stream in streams {
            if let line = planned[stream.index] {
                out.append(line)
                let isSession = listeners.isEmpty || listener(at: stream.server) != nil
                if isSession, stream.decryption != .decrypted {
                    counts.notDecrypted += 1
                } else {
                    counts.notFollowed += 1
                }
                continue
            }
            guard stream.decryption == .decrypted else { continue }
            guard let followedStream = byIndex[stream.index] else {
                out.append("tcp.stream \(stream.index) (\(Self.route(stream))): tshark did not follow it")
                counts.notFollowed += 1
                continue
            }
            out.append(contentsOf: sessionLines(stream, followedStream, counts: &counts))
        }
        return (out, counts)
    }

    private func sessionLines(
        _ stream: TCPStreamSummary, _ followed: FollowedStream, counts: inout Counts
    ) -> [String] {
        let head = "tcp.stream \(stream.index)"
        // Which end sent tshark's first decrypted record.
        let firstIsClient: Bool
        if followed.firstNode == stream.client || (followed.firstNode == nil && followed.records.isEmpty) {
            firstIsClient = true
        } else if followed.firstNode == stream.server {
            firstIsClient = false
        } else {
            counts.notFollowed += 1
            return [
                "\(head) (\(Self.route(stream))): tshark's follow names \(followed.firstNode.map(\.description) ?? "no end") as its first end, which is neither; not read"
            ]
        }
        counts.sessions += 1
        // Read every frame first: the hellos name both ends for the heading.
        var scanners = [SessionFrameScanner(), SessionFrameScanner()]  // client → server, server → client
        var items: [(fromClient: Bool, item: SessionFrameScanner.Item)] = []
        var names: [String?] = [nil, listener(at: stream.server)?.device.name]
        var bytes = [0, 0]
        for record in followed.records {
            let fromClient = record.fromFirstNode == firstIsClient
            let side = fromClient ? 0 : 1
            bytes[side] += record.bytes.count
            scanners[side].append(record.bytes)
            while let item = scanners[side].next() {
                if case .frame(_, .hello(let name, _), _) = item { names[side] = name }
                items.append((fromClient, item))
            }
        }
        func end(_ side: Int) -> String {
            let endpoint = side == 0 ? stream.client : stream.server
            return names[side].map { "\(SessionFrameEncoder.quoted($0)) \(endpoint)" } ?? "\(endpoint)"
        }
        func shortName(_ side: Int) -> String {
            names[side].map { SessionFrameEncoder.quoted($0) } ?? "\(side == 0 ? stream.client : stream.server)"
        }
        var lines = [
            "\(head), packets #\(stream.firstPacket)–#\(stream.lastPacket): \(end(0)) → \(end(1))"
                + (stream.clientIsKnown ? "" : " (the capture began after the connection opened)")
        ]
        var frames = [0, 0]
        for (fromClient, item) in items {
            let side = fromClient ? 0 : 1
            let direction = "\(shortName(side)) → \(shortName(1 - side))"
            switch item {
            case .frame(let offset, let frame, let annotated):
                frames[side] += 1
                counts.frames += 1
                lines.append("  \(direction), offset \(offset): \(frame.typeName), \(annotated.bytes.count) bytes")
                lines.append(contentsOf: WireTranscript.fieldLines(annotated))
            case .refused(let offset, let length, let error):
                counts.refused += 1
                lines.append(
                    "  \(head), \(direction), offset \(offset): \(error); its \(length) bytes are skipped")
            case .lost(let offset, let error, _):
                counts.refused += 1
                lines.append(
                    "  \(head), \(direction), offset \(offset): \(error); the rest of this direction is not read")
            }
        }
        for side in 0...1 where scanners[side].pendingCount > 0 {
            lines.append(
                "  \(head), \(shortName(side)) → \(shortName(1 - side)), offset \(scanners[side].offset): "
                    + "\(scanners[side].pendingCount) bytes at the end are not a whole frame (the capture ends inside it)"
            )
        }
        if followed.records.isEmpty {
            lines.append("  no application data (the TLS handshake alone)")
        } else {
            func amount(_ side: Int) -> String {
                "\(frames[side]) frame\(frames[side] == 1 ? "" : "s"), \(bytes[side]) byte\(bytes[side] == 1 ? "" : "s")"
            }
            lines.append(
                "  \(shortName(0)) → \(shortName(1)): \(amount(0)); \(shortName(1)) → \(shortName(0)): \(amount(1))")
        }
        return lines
    }

    static func route(_ stream: TCPStreamSummary) -> String { "\(stream.client) → \(stream.server)" }
}
