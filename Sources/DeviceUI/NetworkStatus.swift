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
    /// Where a device stands with the network.
    package enum Link: Hashable, Sendable {
        /// Still joining (its sockets not bound yet, no beacon sent or heard): a terminal device
        /// draws its first frame before it joins, and says so.
        case starting
        case online
        case offline
    }

    /// One line for the status bar and the sidebar, e.g. "loopback 127.255.255.255:17820".
    package var summary: String
    package var link: Link
    /// Every peer of the account heard from recently, whether or not it offers an activity.
    package var peers: [NearbyPeer]

    package var isOnline: Bool { link == .online }

    package init(summary: String, link: Link, peers: [NearbyPeer] = []) {
        self.summary = summary
        self.link = link
        self.peers = peers
    }

    /// No network at all (the state before the executable reports one).
    package static let offline = NetworkStatus(summary: "offline", link: .offline)

    /// Joining the network: the state a terminal device shows until its sockets are bound.
    package static let starting = NetworkStatus(summary: "joining the network", link: .starting)

    /// The state's glyph and word: "●" online, "◌" starting, "○" offline.
    private var glyphAndWord: (glyph: String, word: String) {
        switch link {
        case .starting: ("◌", "starting")
        case .online: ("●", "online")
        case .offline: ("○", "offline")
        }
    }

    /// The status bar's word for the state: "● online", "◌ starting" or "○ offline".
    package var label: String { "\(glyphAndWord.glyph) \(glyphAndWord.word)" }

    /// The sidebar's line: the state's glyph, then the summary.
    package var line: String { "\(glyphAndWord.glyph) \(summary)" }
}
