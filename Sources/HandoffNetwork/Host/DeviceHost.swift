import Dispatch
import Foundation
import HandoffCore
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Synchronization

/// Runs one ``Device`` on its own serial queue (its run loop) and connects it to the network:
/// discovery beacons over UDP, sessions over mutual TLS.
///
/// The device and everything installed on it are touched only on the host's queue: other
/// threads (NIO's, stdin readers, stream tasks) hand work over with ``perform(_:)``. The queue
/// sleeps until something happens or the next deadline (a coalesced save, a timeout, a beacon
/// refresh, a peer falling silent): there is no polling.
package final class DeviceHost: @unchecked Sendable {
    package let identity: DeviceIdentity
    package let options: NetworkOptions
    let queue: DispatchQueue
    /// Confined to `queue`.
    let device: Device
    /// The event loops of the host's sockets.
    let eventLoops: EventLoops
    var group: any EventLoopGroup { eventLoops.group }
    let security: SessionSecurity
    /// Incomplete frames across every session of this device.
    let readBudget: SessionReadBudget
    /// Accepted connections still in their handshake.
    let handshakeGate: HandshakeGate
    /// Established sessions accepted from peers, by peer (see ``NetworkOptions/maximumSessions``).
    let sessionRoster: ConnectionRoster<DeviceID>
    let sealer: BeaconSealer
    /// How this device opens sessions to its peers (credentials, event loops, limits, greeting).
    let dialer: SessionDialer
    /// What the network knows of each nearby peer: the one place (confined to `queue`). Readable
    /// in the package for the bench (HandoffBench), on the queue, like ``nearbyPeers`` but without
    /// copying and sorting on every piece of work.
    package let directory: PeerDirectory
    /// What this device says on the discovery channel, and when (confined to `queue`).
    let announcer: BeaconAnnouncer
    var timer: (any DispatchSourceTimer)?
    /// When `timer` is set to fire (nil: not armed).
    private var timerDeadline: Date?
    /// Blocks queued or running through ``perform(_:)``, ``performAndWait(_:)`` and
    /// ``performInline(_:)`` (0: the queue is idle as far as they know).
    private let inFlight = Atomic<Int>(0)
    var server: SessionServer?
    var transport: NetworkTransport?
    /// Sends this device's lifecycle to its peers when ``NetworkOptions/shareLifecycle`` is on.
    package var lifecycleSharing: LifecycleSharing?
    /// Called on the queue with lifecycle events a peer of the account shared (set it before
    /// ``start()``): the events, and how many the peer left out over its rate limit.
    package var onSharedLifecycle: ((_ peer: PeerInfo, _ entries: [LifecycleEntry], _ dropped: Int) -> Void)?
    private var stopped = false
    /// Called on the queue after every piece of work (set it before ``start()``): the terminal
    /// device uses it to wake its run loop and redraw.
    package var onWork: (@Sendable () -> Void)?

    /// Creates the host; the device is configured for the timing profile. Call ``start()`` next.
    package convenience init(
        identity: DeviceIdentity, account: Account, store: AccountStore,
        options: NetworkOptions = NetworkOptions(),
        configuration: DeviceConfiguration = DeviceConfiguration()
    ) throws {
        try self.init(
            identity: identity, account: account, store: store, options: options, configuration: configuration,
            eventLoops: .shared)
    }

    /// A host whose sockets run on `group` (the bench, HandoffBench, gives each in-process device
    /// event loops of its own, as separate processes have).
    package convenience init(
        identity: DeviceIdentity, account: Account, store: AccountStore, options: NetworkOptions,
        configuration: DeviceConfiguration, group: any EventLoopGroup
    ) throws {
        try self.init(
            identity: identity, account: account, store: store, options: options, configuration: configuration,
            eventLoops: .given(group))
    }

    private init(
        identity: DeviceIdentity, account: Account, store: AccountStore, options: NetworkOptions,
        configuration: DeviceConfiguration, eventLoops: EventLoops
    ) throws {
        self.identity = identity
        self.options = options
        queue = DispatchQueue(label: "handoff.device.\(identity.name)")
        self.eventLoops = eventLoops
        // Its TLS contexts are made by start(), not here (see SessionSecurity).
        security = SessionSecurity(identity: identity, account: account, store: store, keyLog: options.keyLog)
        readBudget = SessionReadBudget(total: options.sessionReadBudget)
        // Both caps are lowered to fit the descriptors this process may hold (a quarter of what is
        // left after a reserve for pending handshakes, half for sessions), so they are reached
        // before the descriptor table is full.
        handshakeGate = HandshakeGate(
            total: DescriptorLimit.cap(options.maximumPendingHandshakes, share: 0.25),
            perAddress: options.maximumPendingHandshakesPerAddress)
        sessionRoster = ConnectionRoster(
            total: DescriptorLimit.cap(options.maximumSessions, share: 0.5),
            perGroup: options.maximumSessionsPerPeer)
        sealer = BeaconSealer(accountKey: account.beaconKey)
        dialer = SessionDialer(
            security: security, eventLoops: eventLoops, options: options, budget: readBudget,
            hello: .hello(name: identity.name, kind: identity.kind))
        announcer = BeaconAnnouncer(
            device: identity.peerInfo, bootIdentifier: UInt64(Date().timeIntervalSince1970 * 1000),
            schedule: BeaconSchedule(profile: options.timing))
        directory = PeerDirectory(silenceTimeout: announcer.schedule.peerSilenceTimeout)
        var configuration = configuration
        configuration.offerLifetime = announcer.schedule.peerSilenceTimeout
        device = Device(info: identity.peerInfo, configuration: configuration)
        device.beaconInspector = { [sealer] datagram in try? sealer.inspect(datagram) }
    }

    /// Makes the session's TLS contexts now rather than in ``start()`` (which makes them first
    /// when they are not made yet). The bench makes them before its discovery window opens, as
    /// every host did in its initialiser before a terminal device began to draw its first frame
    /// before joining the network: the window times sockets and beacons, not key loading.
    package func prepareSessions() throws {
        _ = try security.contexts()
    }

    /// Binds the session server and the discovery channel and starts announcing this device.
    package func start() async throws {
        let server = try await SessionServer.start(host: self)
        let channel: BeaconChannel
        do {
            channel = try await BeaconChannel.start(
                on: group, options: BeaconChannel.Options(port: options.discoveryPort, lan: options.lan),
                sealer: sealer,
                ownDevice: identity.id, onOpened: beaconHandler(byReply: false), onReply: beaconHandler(byReply: true))
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            await server.close()
            throw PortInUse(.discovery, port: options.discoveryPort)
        } catch {
            await server.close()
            throw error
        }
        // This boot's identifier: when the discovery socket was bound, in milliseconds (taken
        // after the bind), so that a peer knows which of its broadcasts this device heard.
        let listeningSince = UInt64(Date().timeIntervalSince1970 * 1000)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.server = server
                self.announcer.attach(channel, sessionPort: server.port, listeningSince: listeningSince)
                let transport = NetworkTransport(
                    queue: self, directory: self.directory, announcer: self.announcer,
                    dialer: self.dialer)
                self.transport = transport
                self.device.transport = transport
                if self.options.shareLifecycle { self.startSharingLifecycle() }
                // Beacon changes made in one turn of the queue go out once, at the end of it.
                self.device.deferBeacons = { [weak self] flush in self?.perform(flush) }
                // The first beacon says what the device offers now: an app may have made its
                // activity current before the network was up (a terminal device draws its first
                // frame, its apps launched, before it joins), and that change had nowhere to go.
                let offered = self.device.system.advertisement
                self.announcer.change(to: offered.map { .advertisement($0) } ?? .presence, at: Date())
                self.afterWork()
                continuation.resume()
            }
        }
    }

    /// The TCP port this device's sessions listen on.
    package var sessionPort: Int { server?.port ?? 0 }

    /// The peers heard from recently, with when each was last heard. Call on the device's queue
    /// (inside ``perform(_:)`` or ``performAndWait(_:)``).
    package var nearbyPeers: [(info: PeerInfo, lastSeen: Date)] {
        directory.peers.values.map { ($0.info, $0.lastSeen) }.sorted { $0.info.name < $1.info.name }
    }

    /// Whether ``shutdown()`` has begun. Call on the device's queue.
    package var isStopped: Bool { stopped }

    /// Whether ``start()`` has joined the network: the sockets bound and the device announced.
    /// Call on the device's queue.
    package var isStarted: Bool { transport != nil }

    /// What the discovery channel sent, received and dropped so far (the bench counts a device's
    /// beacons with it). Call on the device's queue.
    package var beaconStatistics: BeaconStatistics { announcer.channel?.statistics ?? BeaconStatistics() }

    /// What the discovery channel does (e.g. "loopback broadcast 127.255.255.255:17820").
    package var discoveryMode: String { announcer.channel?.mode ?? "not started" }

    /// Runs `work` on the device's queue, then lets due deadlines and beacons happen.
    package func perform(_ work: @escaping @Sendable (Device) -> Void) {
        inFlight.add(1, ordering: .acquiringAndReleasing)
        queue.async {
            defer { self.inFlight.subtract(1, ordering: .releasing) }
            guard !self.stopped else { return }
            work(self.device)
            self.device.flushDeferredBeacon()
            self.afterWork()
        }
    }

    /// Like ``perform(_:)``, but when the queue is idle the work runs at once on the calling
    /// thread (`DispatchQueue.sync` on an idle queue runs the block on the caller), so no thread
    /// is woken for it; when the queue is busy it is queued as usual. For the event loops'
    /// callbacks (a beacon arrived), never from the queue itself.
    func performInline(_ work: @escaping @Sendable (Device) -> Void) {
        guard inFlight.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else {
            return perform(work)
        }
        queue.sync {
            guard !stopped else { return }
            work(device)
            device.flushDeferredBeacon()
            afterWork()
        }
        inFlight.subtract(1, ordering: .releasing)
    }

    /// Runs `work` on the device's queue and waits for its result. Never call it from the queue.
    ///
    /// Due deadlines and beacons happen afterwards, as with ``perform(_:)``, but ``onWork`` is not
    /// called: the caller already knows, and a run loop that renders with this must not wake itself.
    package func performAndWait<T: Sendable>(_ work: @Sendable (Device) -> T) -> T {
        inFlight.add(1, ordering: .acquiringAndReleasing)
        defer { inFlight.subtract(1, ordering: .releasing) }
        return queue.sync {
            let result = work(device)
            if !stopped, transport != nil {
                device.flushDeferredBeacon()
                afterWork(notify: false)
            }
            return result
        }
    }

    /// Says goodbye to peers and closes every channel.
    package func shutdown() async {
        let (channel, sharing): (BeaconChannel?, Confined<LifecycleSharing?>) = await withCheckedContinuation {
            continuation in
            queue.async {
                self.stopped = true
                self.timer?.cancel()
                self.timer = nil
                self.announcer.sayLeaving()
                continuation.resume(returning: (self.announcer.channel, Confined(self.lifecycleSharing)))
            }
        }
        await sharing.value?.stop()
        try? await Task.sleep(nanoseconds: 20_000_000)
        await channel?.close()
        await server?.close()
    }

    // MARK: On the queue

    /// What the beacons the channel accepted in one read do: each is kept for the inspector,
    /// then received, on the device's queue (inline when it is idle), and the work after them
    /// (due beacons, silent peers, the device's deadlines) is done once for the read. One handler
    /// for broadcasts and replies; `byReply`: they came to this device's own socket, peers'
    /// answers to this device's own beacon. (`handoff bench --beacon-path` feeds it too.)
    package func beaconHandler(byReply: Bool) -> @Sendable ([OpenedBeacon]) -> Void {
        { [weak self] batch in
            guard let self else { return }
            self.performInline { device in
                StageMarks.mark(.beaconOnQueue)
                for opened in batch {
                    device.beaconOpened(opened.datagram, from: opened.beacon.device)
                    self.received(opened.beacon, from: opened.address, byReply: byReply)
                }
            }
        }
    }

    /// A beacon arrived: the directory learns the peer's network facts, a newcomer is answered,
    /// and the device hears what the peer offers (its own view, ``DeviceSystem/offers``).
    func received(_ beacon: Beacon, from address: SocketAddress, byReply: Bool = false) {
        let id = beacon.device.id
        if case .leaving = beacon.message {
            directory.remove(id)
            device.receiveGoodbye(from: id)
            return
        }
        let arrival = directory.heard(
            beacon.device, from: address, sessionPort: beacon.sessionPort, boot: beacon.bootIdentifier, now: Date())
        // A newcomer (or a peer whose process restarted: another boot) may have missed this
        // device's last beacon; answering now spares it the wait for the next refresh. A first
        // beacon read late, from a peer already heard from in the same boot (a reply overtook
        // it), is not answered again: a device with nothing new to say stays quiet.
        if !byReply, arrival != .known { announcer.answer(newcomer: beacon, at: address) }
        if arrival == .new { lifecycleSharing?.peerAppeared() }
        switch beacon.message {
        case .advertisement(let advertisement):
            device.receiveAdvertisement(advertisement, from: beacon.device)
        case .goodbye, .presence:
            device.receivePresence(from: id)
        case .leaving:
            break
        }
    }

    /// Sends due beacons, drops silent peers, ticks the device and sleeps until the next deadline.
    func afterWork(notify: Bool = true) {
        let now = Date()
        announcer.sendDue(at: now)
        directory.dropSilent(at: now)
        device.tick()
        var wake = announcer.nextWake
        if let deadline = device.nextDeadline { wake = min(wake ?? deadline, deadline) }
        if let silence = directory.nextSilenceCheck { wake = min(wake ?? silence, silence) }
        arm(at: wake)
        if notify { onWork?() }
    }

    /// Makes sure the one timer of the queue fires at `date` at the latest (nil: no deadline).
    /// Rescheduling an existing timer source costs far less than a new source per piece of work,
    /// but it still wakes libdispatch's timer thread to re-sort its timers: a thread woken on
    /// every turn of a busy device (the deadlines move later with every beacon sent or heard),
    /// on cores the network path needs. So the timer is moved only when the new deadline is
    /// earlier than the armed one; a timer armed too early fires, finds nothing due, and
    /// ``afterWork(notify:)`` arms it again for the deadline of then.
    private func arm(at date: Date?) {
        guard !stopped, date != timerDeadline else { return }
        if let armed = timerDeadline, date.map({ $0 >= armed }) ?? true { return }
        timerDeadline = date
        let timer: any DispatchSourceTimer
        if let existing = self.timer {
            timer = existing
        } else {
            timer = DispatchSource.makeTimerSource(queue: queue)
            timer.setEventHandler { [weak self] in
                guard let self, !self.stopped else { return }
                self.timerDeadline = nil
                self.afterWork()
            }
            timer.resume()
            self.timer = timer
        }
        if let date {
            timer.schedule(deadline: .now() + max(0.001, date.timeIntervalSinceNow), leeway: .milliseconds(1))
        } else {
            timer.schedule(deadline: .distantFuture, leeway: .milliseconds(1))
        }
    }
}

/// Where work for a device is handed over: its serial queue. The network's parts (the transport)
/// are given the host as this, not the host itself: they post work and answers, and reach
/// nothing else of it.
protocol DeviceWorkQueue: AnyObject, Sendable {
    /// Runs `work` on the device's queue (see ``DeviceHost/perform(_:)``).
    func perform(_ work: @escaping @Sendable (Device) -> Void)
    /// Runs `work` at once on the calling thread when the queue is idle, else queues it (see
    /// ``DeviceHost/performInline(_:)``); for event loops, never from the queue itself.
    func performInline(_ work: @escaping @Sendable (Device) -> Void)
}

extension DeviceHost: DeviceWorkQueue {}
