import Foundation

/// How a device joins the network.
public struct NetworkOptions: Sendable {
    /// The shared UDP discovery port (every device on the machine uses the same one).
    public var discoveryPort: Int
    /// Also discover devices on other hosts of the LAN (multicast or subnet broadcast), and
    /// accept sessions on every interface instead of loopback only.
    public var lan: Bool
    public var timing: TimingProfile
    /// How long to wait for a TCP connection and its TLS handshake (then 4609).
    public var connectTimeout: TimeInterval
    /// The largest session frame accepted (bounds payloads and stream chunks on the wire).
    public var maximumFrameLength: Int

    public init(discoveryPort: Int = 47_820, lan: Bool = false, timing: TimingProfile = .instant,
                connectTimeout: TimeInterval = 2, maximumFrameLength: Int = 8 << 20) {
        self.discoveryPort = discoveryPort
        self.lan = lan
        self.timing = timing
        self.connectTimeout = connectTimeout
        self.maximumFrameLength = maximumFrameLength
    }

    /// Where sessions listen: loopback only, unless the device is on the LAN.
    var sessionBindHost: String { lan ? "0.0.0.0" : "127.0.0.1" }
}
