import Foundation
import HandoffCore

/// A device of the account that the network layer has heard from recently.
package struct NearbyPeer: Hashable, Sendable {
    package var info: PeerInfo
    /// When the last beacon from the peer arrived.
    package var lastSeen: Date

    package init(info: PeerInfo, lastSeen: Date) {
        self.info = info
        self.lastSeen = lastSeen
    }
}

/// What the screen knows of the network: filled in by the executable from its network layer, so
/// DeviceUI never depends on it.
package struct NetworkStatus: Hashable, Sendable {
    /// One line for the status bar and the sidebar, e.g. "loopback 127.255.255.255:17820".
    package var summary: String
    package var isOnline: Bool
    /// True while the device is still joining the network (its sockets not bound yet, no beacon
    /// sent or heard): neither online nor offline. A terminal device draws its first frame
    /// before it joins, and says so.
    package var isStarting: Bool
    /// Every peer of the account heard from recently, whether or not it offers an activity.
    package var peers: [NearbyPeer]

    package init(summary: String, isOnline: Bool, isStarting: Bool = false, peers: [NearbyPeer] = []) {
        self.summary = summary
        self.isOnline = isOnline
        self.isStarting = isStarting
        self.peers = peers
    }

    /// No network at all (the state before the executable reports one).
    package static let offline = NetworkStatus(summary: "offline", isOnline: false)

    /// Joining the network: the state a terminal device shows until its sockets are bound.
    package static let starting = NetworkStatus(summary: "joining the network", isOnline: false, isStarting: true)

    /// The status bar's word for the state: "● online", "◌ starting" or "○ offline".
    package var label: String {
        if isStarting { return "◌ starting" }
        return isOnline ? "● online" : "○ offline"
    }

    /// The sidebar's line: the state's glyph, then the summary.
    package var line: String {
        (isStarting ? "◌ " : isOnline ? "● " : "○ ") + summary
    }
}
