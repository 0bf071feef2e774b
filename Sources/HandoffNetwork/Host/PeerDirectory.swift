import Foundation
import HandoffCore
import NIOCore

/// What the network knows of each nearby peer, in one place: where its sessions listen, the boot
/// it was last heard from, when, and the pooled session to it. A peer enters when a beacon of it
/// is heard, and leaves, its session closed, when it says it is leaving or falls silent.
///
/// Confined to the device's queue. The device's own view of its neighbours (the offers,
/// ``DeviceSystem/offers``) is fed by the events the host passes on and is never read here.
package final class PeerDirectory {
    package struct Peer {
        var info: PeerInfo
        /// Where the peer's sessions listen: its beacons' source address, at their session port.
        var address: SocketAddress
        /// The boot the peer was last heard from: a beacon of another boot is a process that
        /// restarted, and gets an answer as a newcomer does.
        var boot: UInt64
        var lastSeen: Date
        /// The pooled session to the peer (nil until first used; replaced when its address changed).
        var session: PeerSession?
    }

    /// What a beacon heard made of its sender.
    enum Arrival {
        /// Not known before.
        case new
        /// Known, from another boot: its process restarted.
        case restarted
        /// Known, from the same boot.
        case known
    }

    package private(set) var peers: [DeviceID: Peer] = [:]
    /// How long after its last beacon a silent peer is forgotten.
    let silenceTimeout: TimeInterval
    /// When the next peer may fall silent (nil: look at the peers at the next piece of work). A
    /// peer heard again only moves it later, so until then no peer needs to be looked at.
    private(set) var nextSilenceCheck: Date?

    init(silenceTimeout: TimeInterval) {
        self.silenceTimeout = silenceTimeout
    }

    /// A beacon (other than `leaving`) was heard from `info` at `source`, naming `sessionPort`:
    /// its sessions listen at that address on that port. The session address is made (a new
    /// `SocketAddress`, an allocation) only when it is new or changed, not for every beacon of a
    /// known peer; a known peer is updated in place (one look-up, no copy of its name or session).
    @discardableResult
    func heard(
        _ info: PeerInfo, from source: SocketAddress, sessionPort: UInt16, boot: UInt64, now: Date
    ) -> Arrival {
        guard let index = peers.index(forKey: info.id) else {
            var address = source
            address.port = Int(sessionPort)
            peers[info.id] = Peer(info: info, address: address, boot: boot, lastSeen: now)
            return .new
        }
        var changed: SocketAddress?
        if !Self.address(peers.values[index].address, is: source, atPort: sessionPort) {
            changed = source
            changed?.port = Int(sessionPort)
        }
        return Self.update(&peers.values[index], info: info, address: changed, boot: boot, now: now)
    }

    /// Whether `address` is `source` at `port` (as `SocketAddress`'s `==` compares them).
    static func address(_ address: SocketAddress, is source: SocketAddress, atPort port: UInt16) -> Bool {
        switch (address, source) {
        case (.v4(let known), .v4(let heard)):
            return known.address.sin_port == port.bigEndian
                && known.address.sin_addr.s_addr == heard.address.sin_addr.s_addr
        default:
            var candidate = source
            candidate.port = Int(port)
            return candidate == address
        }
    }

    /// `address` nil: the same as before.
    private static func update(
        _ peer: inout Peer, info: PeerInfo, address: SocketAddress?, boot: UInt64, now: Date
    )
        -> Arrival
    {
        let arrival: Arrival = peer.boot == boot ? .known : .restarted
        if peer.info != info { peer.info = info }
        if let address, peer.address != address { peer.address = address }
        peer.boot = boot
        peer.lastSeen = now
        return arrival
    }

    /// The peer left (or fell silent): forgotten, and its pooled session closed.
    func remove(_ id: DeviceID) {
        if let session = peers.removeValue(forKey: id)?.session {
            Task { await session.close() }
        }
    }

    /// Forgets the peers silent for longer than ``silenceTimeout``, if one may be by `now`.
    func dropSilent(at now: Date) {
        // Only when a peer may have fallen silent: with hundreds of peers, looking at all of
        // them after every beacon cost more than the beacon.
        guard nextSilenceCheck.map({ now >= $0 }) ?? true else { return }
        var oldest: Date?
        var silent: [DeviceID] = []
        for (id, peer) in peers {
            if now.timeIntervalSince(peer.lastSeen) > silenceTimeout {
                silent.append(id)
            } else {
                oldest = min(oldest ?? peer.lastSeen, peer.lastSeen)
            }
        }
        // Removed after the look, not during it: a removal while the loop holds the dictionary
        // copied all of it (every peer) for each peer removed.
        for id in silent { remove(id) }
        nextSilenceCheck = oldest?.addingTimeInterval(silenceTimeout + 0.01)
    }

    /// The pooled session to `id` (created on first use), if the peer is known.
    func session(for id: DeviceID) -> PeerSession? {
        guard let peer = peers[id] else { return nil }
        if let existing = peer.session, existing.address == peer.address { return existing }
        let session = PeerSession(peer: id, address: peer.address)
        peers[id]?.session = session
        return session
    }
}
