import Foundation
import HandoffCore

/// How eagerly a device broadcasts (`--timing`).
package enum TimingProfile: String, Sendable, CaseIterable {
    /// A change is broadcast at once; refresh every second; a silent peer expires after 4 s.
    case instant
    /// Apple's advertising cadence (the notes, §1 and §8.7): at least 0.5 s between beacons, at
    /// most 5 per 10 s, a goodbye repeated for 2 s, refresh every 3 s, silence timeout 12 s, and
    /// an advertisement current for 248 s and valid for 256 s after its last save.
    case apple
}

/// Pure scheduler of what to broadcast when (no I/O): changes, rate limits, periodic refresh,
/// goodbye repetition. Time is always an argument.
///
/// Every beacon sends the *current* state, so a refresh is just a send with nothing new, and a
/// change waiting on the rate limit goes out (as the newest state only) as soon as it may: a burst
/// of changes is coalesced, and the last state is always eventually sent. Rate limits apply to
/// every beacon except `leaving`, which goes out at once.
package struct BeaconSchedule: Sendable {
    package struct Parameters: Sendable, Hashable {
        /// Least time between two beacons.
        package var minimumGap: TimeInterval
        /// At most `maximumPerWindow` beacons in any `window` (nil: no limit).
        package var maximumPerWindow: Int?
        package var window: TimeInterval
        /// A beacon is re-sent this long after the last one when nothing changed.
        package var refreshInterval: TimeInterval
        /// How long a goodbye keeps being repeated before the device falls back to presence
        /// (0: sent once, presence follows at the next refresh).
        package var goodbyeDuration: TimeInterval
        package var goodbyeRepeatInterval: TimeInterval
        /// How long after its last beacon a silent peer is dropped.
        package var peerSilenceTimeout: TimeInterval
        /// How long after its last save an advertisement is current / still valid (nil: no limit;
        /// the peer's silence timeout alone decides).
        package var advertisementCurrentLifetime: TimeInterval?
        package var advertisementValidLifetime: TimeInterval?
        /// A refresh waits until no newcomer was heard for this long, but never more than one
        /// more `refreshInterval` (nil: it never waits; see ``heardNewcomer(at:)``).
        package var newcomerQuiet: TimeInterval?

        package init(
            minimumGap: TimeInterval, maximumPerWindow: Int?, window: TimeInterval, refreshInterval: TimeInterval,
            goodbyeDuration: TimeInterval, goodbyeRepeatInterval: TimeInterval, peerSilenceTimeout: TimeInterval,
            advertisementCurrentLifetime: TimeInterval? = nil, advertisementValidLifetime: TimeInterval? = nil,
            newcomerQuiet: TimeInterval? = nil
        ) {
            self.minimumGap = minimumGap
            self.maximumPerWindow = maximumPerWindow
            self.window = window
            self.refreshInterval = refreshInterval
            self.goodbyeDuration = goodbyeDuration
            self.goodbyeRepeatInterval = goodbyeRepeatInterval
            self.peerSilenceTimeout = peerSilenceTimeout
            self.advertisementCurrentLifetime = advertisementCurrentLifetime
            self.advertisementValidLifetime = advertisementValidLifetime
            self.newcomerQuiet = newcomerQuiet
        }

        /// A refresh waits for 0.1 s without newcomers, but goes out at most 2 s after the last
        /// beacon: half the silence timeout.
        package static let instant = Parameters(
            minimumGap: 0, maximumPerWindow: nil, window: 10, refreshInterval: 1, goodbyeDuration: 0,
            goodbyeRepeatInterval: 1, peerSilenceTimeout: 4, newcomerQuiet: 0.1)

        /// Worst gap between two beacons: 5 sent within 2 s, the next allowed 10 s after the
        /// first (8 s); 12 s of silence tolerates that plus one lost 3-s refresh.
        package static let apple = Parameters(
            minimumGap: 0.5, maximumPerWindow: 5, window: 10, refreshInterval: 3, goodbyeDuration: 2,
            goodbyeRepeatInterval: 1, peerSilenceTimeout: 12, advertisementCurrentLifetime: 248,
            advertisementValidLifetime: 256)

        package static func profile(_ profile: TimingProfile) -> Parameters {
            switch profile {
            case .instant: instant
            case .apple: apple
            }
        }
    }

    package let parameters: Parameters
    /// The state the device is in (nil before the first ``change(to:at:)``).
    package private(set) var current: Beacon.Message?
    /// The message of the last beacon handed out by ``due(at:)``.
    package private(set) var lastSent: Beacon.Message?
    package private(set) var lastSentAt: Date?
    private var pending = false
    private var changedAt = Date.distantPast
    private var goodbyeEndsAt: Date?
    private var finished = false
    /// When the last newcomer was heard (``heardNewcomer(at:)``).
    private var lastNewcomerAt: Date?
    /// Send times, newest last, at most `maximumPerWindow` of them.
    private var recentSends: [Date] = []

    package init(profile: TimingProfile) {
        self.init(parameters: .profile(profile))
    }

    package init(parameters: Parameters) {
        self.parameters = parameters
    }

    package var peerSilenceTimeout: TimeInterval { parameters.peerSilenceTimeout }
    package var refreshInterval: TimeInterval { parameters.refreshInterval }

    /// The device's state changed. A goodbye is only said if peers may have seen an
    /// advertisement; otherwise it is plain presence. After `leaving`, a new change starts over.
    package mutating func change(to message: Beacon.Message, at now: Date) {
        var message = message
        if case .goodbye = message {
            if case .goodbye = current { return }
            guard case .advertisement = lastSent else {
                message = .presence
                return applyChange(message, at: now)
            }
        }
        applyChange(message, at: now)
    }

    private mutating func applyChange(_ message: Beacon.Message, at now: Date) {
        guard message != current else { return }
        finished = false
        current = message
        pending = true
        changedAt = now
        goodbyeEndsAt = nil
    }

    /// How long a reply to a newly heard peer waits, so that a burst of newcomers (many devices
    /// starting at once) gets one reply, not one each.
    static let replyCoalescing: TimeInterval = 0.01

    /// A peer this device had not heard before (or one that just restarted) appeared: it may have
    /// missed this device's last beacon, so the current state goes out again soon, within the
    /// rate limits, instead of at the next refresh. Replies are coalesced, and a change already
    /// waiting to go out makes the reply unnecessary.
    mutating func replyToNewPeer(at now: Date) {
        guard !finished, let current, !pending else { return }
        if case .leaving = current { return }
        pending = true
        changedAt = now.addingTimeInterval(Self.replyCoalescing)
    }

    /// A newcomer was heard (answered or not). While devices keep appearing (hundreds started at
    /// once), the next refresh waits for a quiet moment (``Parameters/newcomerQuiet``): every
    /// peer already heard this device's last broadcast or got a unicast reply, and a refresh in
    /// the middle of a start would only bring every device's beacon to every other again (N²
    /// deliveries) while they are still busy with the first round. It waits at most one more
    /// refresh interval, so the idle rate stays at most one beacon a second and a peer never
    /// falls silent; a change or a reply is never delayed by it.
    package mutating func heardNewcomer(at now: Date) {
        lastNewcomerAt = max(lastNewcomerAt ?? now, now)
    }

    /// The state to send a newcomer at once, to it alone (a unicast reply), or nil when this
    /// profile's rate limits apply to replies (then ``replyToNewPeer(at:)`` broadcasts one in
    /// time). A unicast reply is not a refresh: it does not move the next broadcast.
    func immediateReply() -> Beacon.Message? {
        guard !finished, let current, parameters.minimumGap == 0, parameters.maximumPerWindow == nil else { return nil }
        if case .leaving = current { return nil }
        return current
    }

    /// What to send now, if anything. Call at or after ``nextWake``, and again until it returns nil.
    package mutating func due(at now: Date) -> Beacon.Message? {
        advance(to: now)
        guard !finished, let current else { return nil }
        if case .leaving = current {
            finished = true
            record(.leaving, at: now)
            return .leaving
        }
        guard now >= earliestSend, let dueAt = nextSendTime, now >= dueAt else { return nil }
        pending = false
        record(current, at: now)
        if case .goodbye = current, goodbyeEndsAt == nil {
            goodbyeEndsAt = now.addingTimeInterval(parameters.goodbyeDuration)
            advance(to: now)
        }
        return current
    }

    /// When ``due(at:)`` next has something to say (nil: nothing until the next change).
    package var nextWake: Date? {
        guard !finished, let current else { return nil }
        if case .leaving = current { return changedAt }
        var wake = nextSendTime ?? .distantFuture
        if case .goodbye = current, let end = goodbyeEndsAt { wake = min(wake, end) }
        return wake == .distantFuture ? nil : max(wake, earliestSend)
    }

    // MARK: Internals

    /// When the current state is next due, ignoring rate limits.
    private var nextSendTime: Date? {
        if pending { return changedAt }
        guard let lastSentAt else { return nil }
        if case .goodbye = current, let end = goodbyeEndsAt {
            let repeatAt = lastSentAt.addingTimeInterval(parameters.goodbyeRepeatInterval)
            // Repeats only strictly inside the goodbye period; its end brings presence.
            return repeatAt.addingTimeInterval(0.001) < end ? repeatAt : nil
        }
        let refreshAt = lastSentAt.addingTimeInterval(parameters.refreshInterval)
        guard let quiet = parameters.newcomerQuiet, let heard = lastNewcomerAt else { return refreshAt }
        return min(
            max(refreshAt, heard.addingTimeInterval(quiet)), refreshAt.addingTimeInterval(parameters.refreshInterval))
    }

    /// The earliest time the rate limits allow another beacon.
    private var earliestSend: Date {
        var earliest = lastSentAt?.addingTimeInterval(parameters.minimumGap) ?? .distantPast
        if let maximum = parameters.maximumPerWindow, maximum > 0, recentSends.count >= maximum {
            earliest = max(earliest, recentSends[recentSends.count - maximum].addingTimeInterval(parameters.window))
        }
        return earliest
    }

    /// Ends a goodbye period that is over: the device falls back to presence, sent at once when
    /// the goodbye was repeated (Apple), else at the next refresh.
    private mutating func advance(to now: Date) {
        guard case .goodbye = current, let end = goodbyeEndsAt, now >= end else { return }
        current = .presence
        goodbyeEndsAt = nil
        if parameters.goodbyeDuration > 0 {
            pending = true
            changedAt = end
        }
    }

    private mutating func record(_ message: Beacon.Message, at now: Date) {
        lastSent = message
        lastSentAt = now
        recentSends.append(now)
        let keep = max(1, parameters.maximumPerWindow ?? 1)
        if recentSends.count > keep { recentSends.removeFirst(recentSends.count - keep) }
    }
}
