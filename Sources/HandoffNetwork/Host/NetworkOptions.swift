import Foundation

/// How a device joins the network.
package struct NetworkOptions: Sendable {
    /// The shared UDP discovery port (every device on the machine uses the same one).
    package var discoveryPort: Int
    /// The TCP port this device's sessions listen on (0, the default: any free port, chosen by
    /// the kernel). A fixed one lets a capture be filtered by it before the device starts.
    package var sessionPort = 0
    /// Also discover devices on other hosts of the LAN (multicast or subnet broadcast), and
    /// accept sessions on every interface instead of loopback only.
    package var lan: Bool
    package var timing: TimingProfile
    /// How long to wait for a TCP connection, and separately for its TLS handshake (then 4609).
    /// On both ends the connection is closed when the handshake has not finished in time.
    package var connectTimeout: TimeInterval
    /// The largest session frame accepted (bounds payloads and stream chunks on the wire).
    package var maximumFrameLength: Int
    /// The bytes of incomplete frames one device holds across all its connections.
    package var sessionReadBudget: Int
    /// Accepted connections still in their TLS handshake: at most this many in all…
    package var maximumPendingHandshakes: Int
    /// …and at most this many from one source address (the oldest is closed to make room).
    package var maximumPendingHandshakesPerAddress: Int
    /// Sessions accepted from peers and established (handshake done, peer verified): at most
    /// this many in all (fewer when the process may hold few descriptors)…
    package var maximumSessions: Int
    /// …and at most this many from one peer; over either cap, the least recently active is
    /// closed to make room (a peer reconnects when it next needs one).
    package var maximumSessionsPerPeer: Int
    /// A pooled request session with no frame either way for this long is closed by the
    /// continuing device; the origin closes one idle for twice as long.
    package var idleSessionTimeout: TimeInterval
    /// Share this device's lifecycle events with the peers of its account over the sessions
    /// (`handoff device --share-lifecycle`), within ``lifecycleSharingPolicy``.
    package var shareLifecycle = false
    package var lifecycleSharingPolicy = LifecycleSharingPolicy()
    /// Where sessions append their TLS secrets (NSS key log format) for Wireshark, or nil (the
    /// default): `handoff device` sets it when `SSLKEYLOGFILE` is set. Weakens secrecy.
    package var keyLog: KeyLogFile?

    /// The discovery port devices share unless told otherwise: below Linux's ephemeral range
    /// (32768–60999), from which every socket bound to port 0 takes its port, so no such socket
    /// can hold it when a device starts.
    package static let defaultDiscoveryPort = 17_820

    package init(
        discoveryPort: Int = NetworkOptions.defaultDiscoveryPort, lan: Bool = false, timing: TimingProfile = .instant,
        connectTimeout: TimeInterval = 2, maximumFrameLength: Int = 8 << 20,
        sessionReadBudget: Int = 64 << 20, maximumPendingHandshakes: Int = 64,
        maximumPendingHandshakesPerAddress: Int = 32, maximumSessions: Int = 128, maximumSessionsPerPeer: Int = 16,
        idleSessionTimeout: TimeInterval = 60
    ) {
        self.discoveryPort = discoveryPort
        self.lan = lan
        self.timing = timing
        self.connectTimeout = connectTimeout
        self.maximumFrameLength = maximumFrameLength
        self.sessionReadBudget = sessionReadBudget
        self.maximumPendingHandshakes = maximumPendingHandshakes
        self.maximumPendingHandshakesPerAddress = maximumPendingHandshakesPerAddress
        self.maximumSessions = maximumSessions
        self.maximumSessionsPerPeer = maximumSessionsPerPeer
        self.idleSessionTimeout = idleSessionTimeout
    }

    /// Where sessions listen: loopback only, unless the device is on the LAN.
    var sessionBindHost: String { lan ? "0.0.0.0" : "127.0.0.1" }
}

/// A port this device must bind is held by another program: the discovery port, by one that
/// does not share it (devices share theirs with `SO_REUSEADDR` and `SO_REUSEPORT`; a socket
/// bound without them keeps everyone else out), or the session port asked for
/// (`handoff device --session-port`).
package struct PortInUse: Error, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The shared UDP discovery port (`--port`).
        case discovery
        /// The device's own TCP session port (`--session-port`).
        case session
    }

    package let kind: Kind
    package let port: Int

    package init(_ kind: Kind, port: Int) {
        self.kind = kind
        self.port = port
    }

    package var description: String {
        switch kind {
        case .discovery: "the UDP discovery port \(port) is in use by another program, which does not share it"
        case .session: "the TCP session port \(port) is in use by another program"
        }
    }
}
