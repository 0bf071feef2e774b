import Foundation
import HandoffCore

/// A device of the account that the network layer has heard from recently.
public struct NearbyPeer: Hashable, Sendable {
    public var info: PeerInfo
    /// When the last beacon from the peer arrived.
    public var lastSeen: Date

    public init(info: PeerInfo, lastSeen: Date) {
        self.info = info
        self.lastSeen = lastSeen
    }
}

/// What the screen knows of the network: filled in by the executable from its network layer, so
/// DeviceUI never depends on it.
public struct NetworkStatus: Hashable, Sendable {
    /// One line for the status bar and the sidebar, e.g. "loopback 127.255.255.255:17820".
    public var summary: String
    public var isOnline: Bool
    /// Every peer of the account heard from recently, whether or not it offers an activity.
    public var peers: [NearbyPeer]

    public init(summary: String, isOnline: Bool, peers: [NearbyPeer] = []) {
        self.summary = summary
        self.isOnline = isOnline
        self.peers = peers
    }

    /// No network at all (the state before the executable reports one).
    public static let offline = NetworkStatus(summary: "offline", isOnline: false)
}
