import Foundation
import HandoffCore
import NIOCore

/// What this device says on the discovery channel, and when. ``BeaconSchedule`` decides (a value:
/// timing and rate limits, no I/O); this keeps it, numbers and sends the beacons it says are due
/// through the ``BeaconChannel``, and answers newcomers.
///
/// Confined to the device's queue. The transport changes what is said (``change(to:at:)``); the
/// host's run loop sends what is due after each piece of work (``sendDue(at:)``) and wakes at
/// ``nextWake``.
final class BeaconAnnouncer {
    private(set) var schedule: BeaconSchedule
    private let device: PeerInfo
    /// When this device began listening for beacons, in milliseconds since 1970 (set by
    /// ``attach(_:sessionPort:listeningSince:)``; it names this boot of the device).
    private var bootIdentifier: UInt64
    private var counter: UInt64 = 0
    /// The discovery channel (nil until the host started).
    private(set) var channel: BeaconChannel?
    /// Where this device's sessions listen, in every beacon.
    private var sessionPort = 0
    /// Newcomers waiting for a unicast reply, and when it goes out.
    private var newcomers: [SocketAddress] = []
    private var newcomersDue: Date?

    init(device: PeerInfo, bootIdentifier: UInt64, schedule: BeaconSchedule) {
        self.device = device
        self.bootIdentifier = bootIdentifier
        self.schedule = schedule
    }

    /// The host started: beacons go out on `channel` and name `sessionPort`. `listeningSince`
    /// (milliseconds since 1970, taken once the discovery socket was bound) becomes the boot
    /// identifier: a peer that broadcast after it knows this device heard that broadcast.
    func attach(_ channel: BeaconChannel, sessionPort: Int, listeningSince: UInt64? = nil) {
        self.channel = channel
        self.sessionPort = sessionPort
        if let listeningSince { bootIdentifier = listeningSince }
    }

    /// What the device says changed (sent when the schedule allows).
    func change(to message: Beacon.Message, at now: Date) {
        schedule.change(to: message, at: now)
    }

    /// Sends the beacons due by `now`, and the waiting unicast replies.
    func sendDue(at now: Date) {
        while let message = schedule.due(at: now) {
            counter += 1
            channel?.send(beacon(message))
        }
        answerNewcomers(at: now)
    }

    /// When something is next due (nil: nothing until the next change or newcomer).
    var nextWake: Date? {
        var wake = schedule.nextWake
        if let due = newcomersDue { wake = min(wake ?? due, due) }
        return wake
    }

    /// Says `leaving` at once (shutting down).
    func sayLeaving() {
        guard let channel else { return }
        counter += 1
        channel.send(beacon(.leaving))
    }

    private func beacon(_ message: Beacon.Message) -> Beacon {
        Beacon(
            device: device, bootIdentifier: bootIdentifier, counter: counter, sentAt: Date(),
            sessionPort: UInt16(clamping: sessionPort), message: message)
    }

    /// A newcomer (or a restarted peer) may have missed this device's last beacon. One that
    /// sends from a socket of its own (its beacons do not come from the shared discovery port)
    /// gets the current state soon, sent to that socket only: the devices that already know
    /// this one do not receive it. Others (a LAN peer, whose beacons come from the discovery
    /// port, or a profile with rate limits) get the coalesced broadcast reply.
    ///
    /// A peer on this machine that was listening before this device's last broadcast heard it,
    /// and needs no answer. Its boot identifier says when it began listening (its discovery
    /// socket was bound; `docs/wire.md`, "Beacons"): one clock for both, as they share the
    /// machine, and the identifier is in whole milliseconds, taken after the bind, hence the
    /// margin. When many devices start at once, this spares the replies to every peer that was
    /// bound before this device broadcast, even if it had not sent its own first beacon yet.
    /// (Its first beacon's `sentAt` is never earlier than its boot, so a peer that had sent
    /// before this device's broadcast is spared too, as it was before 2026-11-28.)
    ///
    /// Unicast replies wait the same coalescing delay as broadcast ones
    /// (``BeaconSchedule/replyCoalescing``): the newcomers of a burst get one beacon sealed once,
    /// and a newcomer is answered after it had a moment to finish starting.
    func answer(newcomer: Beacon, at address: SocketAddress) {
        schedule.heardNewcomer(at: Date())
        if BeaconInboundHandler.isLoopback(address), let last = schedule.lastSentAt,
            Self.date(milliseconds: min(newcomer.bootIdentifier, Self.milliseconds(newcomer.sentAt)))
                .addingTimeInterval(0.002) < last
        {
            return
        }
        if let channel, address.port != channel.port, schedule.immediateReply() != nil {
            // No search for a duplicate here: hundreds of newcomers can wait in one coalescing
            // window, and a peer is new only once per boot (duplicates are dropped when sent).
            newcomers.append(address)
            if newcomersDue == nil { newcomersDue = Date().addingTimeInterval(BeaconSchedule.replyCoalescing) }
            return
        }
        schedule.replyToNewPeer(at: Date())
    }

    static func date(milliseconds: UInt64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    static func milliseconds(_ date: Date) -> UInt64 {
        UInt64(max(0, date.timeIntervalSince1970 * 1000))
    }

    /// Sends the waiting unicast replies (those that cannot go out get the broadcast reply).
    private func answerNewcomers(at now: Date) {
        guard let due = newcomersDue, now >= due else { return }
        var seen = Set<SocketAddress>()
        let addresses = newcomers.filter { seen.insert($0).inserted }
        newcomers = []
        newcomersDue = nil
        guard let channel, let message = schedule.immediateReply() else { return }
        counter += 1
        if !channel.reply(beacon(message), to: addresses).isEmpty { schedule.replyToNewPeer(at: now) }
    }
}
