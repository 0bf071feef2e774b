import Foundation
import HandoffCore
import HandoffNetwork
import NIOConcurrencyHelpers
import NIOPosix

/// Devices for the bench: real ``DeviceHost``s in this process, each with its own sockets, signed
/// in to a private account in a temporary configuration directory and discovering each other on a
/// private discovery port, so the bench never sees (or is seen by) a user's devices.
final class BenchWorld: Sendable {
    let directory: URL
    let port: Int
    let hosts: [DeviceHost]
    let account: Account
    let identities: [DeviceIdentity]
    /// Each device's own event loop, when the devices stand for separate processes.
    private let groups: [MultiThreadedEventLoopGroup]
    /// Whether ``shutdown()`` removes the directory (this world created it).
    private let ownsDirectory: Bool

    /// Creates the account, one identity per name and the hosts (not started yet). With
    /// `ownEventLoops`, each device runs its sockets on an event loop of its own, as a device in
    /// its own process does (there, sender and receiver never share a thread); otherwise all
    /// share the process's event loops.
    /// `fetchTimeout` and `connectTimeout` are the devices' (tests under load give them longer).
    init(
        names: [String], ownEventLoops: Bool = false, fetchTimeout: TimeInterval = 5, connectTimeout: TimeInterval = 2
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-bench-\(UUID().uuidString)")
        let directory = self.directory
        let groups = ownEventLoops ? names.map { _ in MultiThreadedEventLoopGroup(numberOfThreads: 1) } : []
        self.groups = groups
        ownsDirectory = true
        do {
            let port = try FloorBench.freeUDPPort()
            self.port = port
            let store = AccountStore(directory: directory)
            let account = try store.createAccount(named: Self.accountName)
            self.account = account
            // One reading of the account's device files for all of them (not one per device).
            let identities = try store.deviceIdentities(
                names.enumerated().map { index, name in (name, index == 0 ? .laptop : .phone) }, in: account.name)
            self.identities = identities
            hosts = try zip(names.indices, identities).map { index, identity in
                try DeviceHost(
                    identity: identity, account: account, store: store,
                    options: NetworkOptions(
                        discoveryPort: port, lan: false, timing: .instant, connectTimeout: connectTimeout),
                    configuration: DeviceConfiguration(saveCoalescingInterval: 1, fetchTimeout: fetchTimeout),
                    group: ownEventLoops ? groups[index] : MultiThreadedEventLoopGroup.singleton)
            }
            for host in hosts { try host.prepareSessions() }
        } catch {
            for group in groups { try? group.syncShutdownGracefully() }
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// The bench account's name.
    static let accountName = "bench"

    /// Hosts for devices whose identities already exist in `directory`'s bench account (a
    /// classroom child process), discovering each other on `port`. The directory stays when they
    /// shut down: its creator removes it.
    init(
        existing directory: URL, port: Int, names: [String], fetchTimeout: TimeInterval, connectTimeout: TimeInterval
    ) throws {
        self.directory = directory
        self.port = port
        ownsDirectory = false
        groups = []
        let store = AccountStore(directory: directory)
        account = try store.account(named: Self.accountName)
        let account = account
        identities = try store.deviceIdentities(names.map { ($0, .laptop) }, in: account.name)
        hosts = try identities.map { identity in
            try DeviceHost(
                identity: identity, account: account, store: store,
                options: NetworkOptions(
                    discoveryPort: port, lan: false, timing: .instant, connectTimeout: connectTimeout),
                configuration: DeviceConfiguration(saveCoalescingInterval: 1, fetchTimeout: fetchTimeout),
                group: MultiThreadedEventLoopGroup.singleton)
        }
        for host in hosts { try host.prepareSessions() }
    }

    /// Starts every host at once.
    func start() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for host in hosts { group.addTask { try await host.start() } }
            try await group.waitForAll()
        }
    }

    /// Stops every host and removes the temporary account.
    func shutdown() async {
        await withTaskGroup(of: Void.self) { group in
            for host in hosts { group.addTask { await host.shutdown() } }
        }
        for group in groups { try? await group.shutdownGracefully() }
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }
}

/// What the bench waits for, armed by the driver and fulfilled on a device's queue.
final class BenchProbe: Sendable {
    struct Restored: Sendable {
        var time: UInt64
        var userInfo: UserInfo
    }

    struct StreamEnd: Sendable {
        /// When the last byte was read, and the process's CPU time then.
        var at: BenchClock.Instant
        var bytes: Int
        var error: String?
    }

    let offer = NIOLockedValueBox<BenchSignal<UInt64>?>(nil)
    let restored = NIOLockedValueBox<BenchSignal<Restored>?>(nil)
    let streamEnd = NIOLockedValueBox<BenchSignal<StreamEnd>?>(nil)
    let streams = NIOLockedValueBox<BenchSignal<Result<ContinuationStreams, BenchError>>?>(nil)

    /// Arms `slot` with a fresh signal and returns it.
    func arm<Value>(_ slot: NIOLockedValueBox<BenchSignal<Value>?>) -> BenchSignal<Value> {
        let signal = BenchSignal<Value>()
        slot.withLockedValue { $0 = signal }
        return signal
    }

    func fire<Value>(_ slot: NIOLockedValueBox<BenchSignal<Value>?>, _ value: Value) {
        slot.withLockedValue { $0 }?.fulfil(value)
    }
}

/// The bench's app on one device, confined to that device's queue: it makes activities current
/// (origin), continues and restores them (receiver), and sinks continuation streams (origin).
final class BenchApp: ApplicationDelegate, UserActivityDelegate {
    static let activityType = "com.handoffsim.bench.activity"
    static let manifest = AppManifest(
        bundleIdentifier: "com.handoffsim.bench", teamIdentifier: "BENCHTEAM1", displayName: "Bench",
        activityTypes: [activityType])

    let probe: BenchProbe
    private(set) var application: Application!
    private var current: UserActivity?
    /// The last activity continued here (kept to open its streams).
    private(set) var lastContinued: UserActivity?
    private let restorer: Restorer

    /// Installs the app on `device` (call on the device's queue).
    init(on device: Device, probe: BenchProbe) {
        self.probe = probe
        restorer = Restorer(probe: probe)
        application = device.install(Self.manifest, delegate: self)
        device.addLifecycleObserver { [probe] event in
            if event.kind == .offerReceived { probe.fire(probe.offer, BenchClock.now()) }
        }
    }

    /// Origin: makes a new activity with `userInfo` current, as apps do: the activity is built,
    /// the previous one invalidated, then the new one made current. `calling` runs just before
    /// `becomeCurrent()` (where the offer row's clock starts).
    func becomeCurrent(userInfo: UserInfo, streams: Bool, calling: () -> Void = {}) throws {
        let activity = try UserActivity(activityType: Self.activityType, application: application)
        activity.title = "Bench"
        activity.userInfo = userInfo
        activity.supportsContinuationStreams = streams
        activity.delegate = self
        current?.invalidate()
        current = activity
        calling()
        activity.becomeCurrent()
        StageMarks.mark(.madeCurrent)
    }

    /// Receiver: opens continuation streams to the origin of the last continued activity.
    func openStreams() {
        guard let activity = lastContinued else {
            probe.fire(probe.streams, .failure(BenchError("nothing was continued")))
            return
        }
        let probe = self.probe
        activity.getContinuationStreams { streams, error in
            if let streams {
                probe.fire(probe.streams, .success(streams))
            } else {
                probe.fire(probe.streams, .failure(BenchError("streams did not open: \(error.map { "\($0)" } ?? "?")")))
            }
        }
    }

    // MARK: ApplicationDelegate

    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool { true }

    func application(
        _ application: Application, continue userActivity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool {
        lastContinued = userActivity
        restorationHandler([restorer])
        return true
    }

    // MARK: UserActivityDelegate

    /// Origin: the continuing device opened streams; read everything and report when it ends.
    func userActivity(_ userActivity: UserActivity, didReceive streams: ContinuationStreams) {
        let probe = self.probe
        Task {
            var total = 0
            do {
                for try await chunk in streams.input { total += chunk.count }
                probe.fire(probe.streamEnd, BenchProbe.StreamEnd(at: .now(), bytes: total, error: nil))
            } catch {
                probe.fire(
                    probe.streamEnd, BenchProbe.StreamEnd(at: .now(), bytes: total, error: "\(error)"))
            }
            await streams.output.close()
        }
    }

    /// The responder the continuing app restores: marks the moment its state is restored.
    final class Restorer: Responder {
        let probe: BenchProbe
        init(probe: BenchProbe) { self.probe = probe }

        override func restoreUserActivityState(_ activity: UserActivity) {
            probe.fire(probe.restored, BenchProbe.Restored(time: BenchClock.now(), userInfo: activity.userInfo))
        }
    }
}
