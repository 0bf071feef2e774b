import BrowserApp
import CursesTerminal
import DeviceAppKit
import DeviceUI
import Foundation
import HandoffCore
import HandoffManifest
import HandoffNetwork
import HandoffWeb
import Logging
import MapApp
import OwnApp
import ReaderApp
import Synchronization
import TerminalCells

#if canImport(Glibc)
import Glibc
#endif

/// Runs a device in the terminal: one thread owns curses and the run loop; the device, its
/// apps and its screen live on the host's queue and are touched only through `performAndWait`.
///
/// The loop sleeps in `poll(2)` until a key, a wake-up from the host (network work, a timer,
/// an app asking to redraw), the screen's next deadline (the clock's minute, an age, a spinner)
/// or a signal. Every wake-up renders one frame on the queue and draws it here; a burst of keys
/// gets one frame.
final class TerminalDeviceRunner: @unchecked Sendable {
    /// The apps a terminal device can install, in the order of its home screen.
    static let knownApps = ["reader", "map", "browser", "studio", "other"]
    /// The apps installed when `--apps` is not given.
    static let defaultApps = ["reader", "map", "browser"]

    let host: DeviceHost
    let accountName: String
    let appNames: [String]
    /// Your apps (`--app`), after the built-in ones on the home screen.
    let ownApps: [OwnAppSpec]
    /// The activity file (`--activity`) your app shows: the app claiming its type, else the first.
    let activity: ActivityFile?
    let readerVersion: Int
    /// How the Reader and the Map talk to the system (Studio, the Browser and the third-party
    /// app use the app delegate).
    let appModel: AppModel
    let cloudFolder: URL?
    let localFolder: URL
    let logFile: URL
    /// Where the local web is: the Browser's pages and the apps' association files come through it.
    let webFolder: WebFolder
    /// When the lifecycle log is drawn (`--log`).
    let logMode: ScreenState.LogMode
    private let sink: FileLogSink
    private let logger: Logger

    init(
        host: DeviceHost, accountName: String, appNames: [String], ownApps: [OwnAppSpec] = [],
        activity: ActivityFile? = nil, readerVersion: Int = 2,
        appModel: AppModel = .delegate,
        cloudFolder: URL?,
        localFolder: URL, webFolder: WebFolder = .defaultFolder(), logMode: ScreenState.LogMode = .hidden, logFile: URL
    ) throws {
        // Crash reports go to standard error, which is the log file while curses runs, never
        // over the screen; this re-executes the command when the runtime started otherwise.
        CrashReports.sendToStandardError()
        self.host = host
        self.accountName = accountName
        self.appNames = appNames
        self.ownApps = ownApps
        self.activity = activity
        self.readerVersion = readerVersion
        self.appModel = appModel
        self.cloudFolder = cloudFolder
        self.localFolder = localFolder
        self.logFile = logFile
        self.webFolder = webFolder
        self.logMode = logMode
        do {
            sink = try FileLogSink(url: logFile)
        } catch {
            throw RunnerError.logFile(logFile.path, error)
        }
        let sink = self.sink
        LoggingSystem.bootstrap { label in FileLogHandler(sink: sink, label: label) }
        logger = Logger(label: "handoff.device")
    }

    enum RunnerError: Error, CustomStringConvertible {
        case logFile(String, any Error)
        case app(String, any Error)
        case terminal(String)

        var description: String {
            switch self {
            case .logFile(let path, let error): "Cannot open the log file \(path): \(error.localizedDescription)"
            case .app(let name, let error): "Cannot start the \(name) app: \(error)"
            case .terminal(let reason): "Cannot use the terminal: \(reason)"
            }
        }
    }

    /// Builds the apps (before the terminal starts, so that their errors print plainly).
    private func makeApps() throws -> [any TerminalApp] {
        let activity = self.activity
        let owner =
            ownApps.firstIndex { own in
                activity.map { own.manifest.continuableActivityTypes.contains($0.activityType) } ?? false
            } ?? 0
        let own: [any TerminalApp] = ownApps.enumerated().map { index, spec in
            OwnApp(manifest: spec.manifest, productName: spec.productName, file: index == owner ? activity : nil)
        }
        return try builtInApps() + own
    }

    private func builtInApps() throws -> [any TerminalApp] {
        try appNames.map { name in
            switch name {
            case "reader":
                do { return try ReaderApp(version: readerVersion, model: appModel) } catch {
                    throw RunnerError.app("Reader", error)
                }
            case "map":
                do { return try MapApp(model: appModel) } catch { throw RunnerError.app("Map", error) }
            case "studio":
                // The all-in-one app of the asymmetric-apps demo: reading and maps in one app (its
                // manifest has no scene manifest: the app delegate, whatever the app model).
                do {
                    return try CompositeApp(
                        bundleIdentifier: "com.handoffsim.studio", displayName: "Studio", glyph: "◈",
                        parts: [ReaderApp(version: readerVersion), MapApp()])
                } catch {
                    throw RunnerError.app("Studio", error)
                }
            case "browser":
                do {
                    let browser = try BrowserApp()
                    browser.pageLoader = WebWiring.pageLoader(folder: webFolder)
                    return browser
                } catch {
                    throw RunnerError.app("Browser", error)
                }
            case "other":
                return ThirdPartyApp()
            default:
                throw RunnerError.app(name, CocoaError(.featureUnsupported))
            }
        }
    }

    /// Runs until the user quits or a signal arrives; returns the exit status.
    ///
    /// The first frame comes before the network: the terminal thread draws it, its network
    /// "starting" (nobody can be nearby yet), and only then does the device join the network
    /// (``DeviceHost/start()``: the session server and the discovery socket bound, the first
    /// beacon), while the frame is on its way to the screen. The apps are installed by then, so
    /// nothing a peer does reaches a device without them. When joining fails (the discovery port
    /// held by another program), the run loop ends, the terminal is given back, and the error is
    /// thrown then, to be printed on the restored screen.
    func run() async throws -> Int32 {
        let apps = Confined(try makeApps())
        for folder in [cloudFolder, localFolder].compactMap({ $0 }) {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let identity = host.identity
        logger.info("starting device \(identity.name) (\(identity.kind.rawValue)) in account \(accountName)")

        // The waker exists before the host starts, so that no network work goes unnoticed.
        let wakeUp = WakeRelay()
        host.onWork = { wakeUp.wake() }

        // Anything written to stderr from here on (a library's warning, a runtime message)
        // goes to the log file, never over the screen.
        let savedStderr = dup(STDERR_FILENO)
        if let descriptor = sink.fileDescriptor { dup2(descriptor, STDERR_FILENO) }
        defer {
            if savedStderr >= 0 {
                dup2(savedStderr, STDERR_FILENO)
                close(savedStderr)
            }
        }

        // True once the first frame is drawn; false when the loop ended before drawing any.
        let firstFrame = OneShot<Bool>()
        let outcome = OneShot<Result<Int32, any Error>>()
        let thread = Thread { [self] in
            do {
                outcome.set(
                    .success(try self.loop(apps: apps, wakeUp: wakeUp, drewFirstFrame: { firstFrame.set(true) })))
            } catch {
                outcome.set(.failure(error))
            }
            firstFrame.set(false)
        }
        thread.name = "handoff.terminal"
        thread.start()
        var joinFailure: (any Error)?
        if await firstFrame.wait() {
            joinFailure = await joinNetwork(wakeUp: wakeUp)
            // Then the Map's data, the largest part of a start, which no first frame shows (a Map
            // that needs it sooner reads it then, or waits for this reading).
            if joinFailure == nil { MapData.readAwaited() }
        }
        let result = await outcome.wait()
        let statistics = host.performAndWait { _ in host.beaconStatistics }
        logger.info("stopping device \(identity.name); beacons: \(NearbyLog.describe(statistics))")
        await host.shutdown()
        if let joinFailure { throw joinFailure }
        switch result {
        case .success(let status): return status
        case .failure(let error): throw error
        }
    }

    /// Joins the network once the first frame is drawn (the host's `onWork` then redraws the
    /// screen with the network's state); on failure, asks the run loop to end and returns the
    /// error.
    private func joinNetwork(wakeUp: WakeRelay) async -> (any Error)? {
        do {
            try await host.start()
        } catch {
            logger.error("cannot join the network: \(error)")
            wakeUp.requestStop()
            return error
        }
        logger.info("discovery: \(host.discoveryMode); sessions on port \(host.sessionPort)")
        if let keyLog = host.options.keyLog { logger.warning("\(keyLog.warning)") }
        return nil
    }

    /// The terminal thread: owns curses from start to stop.
    /// `drewFirstFrame` is called once, right after the first frame is drawn.
    private func loop(
        apps: Confined<[any TerminalApp]>, wakeUp: WakeRelay, drewFirstFrame: () -> Void
    ) throws -> Int32 {
        try CursesTerminal.withTerminal { terminal in
            let runLoop: TerminalRunLoop
            do { runLoop = try TerminalRunLoop(terminal: terminal) } catch { throw RunnerError.terminal("\(error)") }
            wakeUp.attach(runLoop.waker)
            let logger = self.logger
            let accountName = self.accountName
            let host = self.host
            let environment = Confined(
                AppEnvironment(
                    deviceName: host.identity.name, cloudFolder: cloudFolder, localFolder: localFolder,
                    log: { logger.info("\($0)") },
                    setNeedsDisplay: { wakeUp.wake() },
                    perform: { work in host.perform { _ in work() } }))
            let webFolder = self.webFolder
            let screen: Confined<DeviceScreen> = host.performAndWait { device in
                WebWiring.attachVerifier(folder: webFolder, to: device, host: host)
                device.addLifecycleObserver { event in
                    logger.info(
                        "lifecycle \(event.logLine)", metadata: event.continuation.map { ["continuation": "\($0)"] })
                }
                let screen = DeviceScreen(
                    device: device, account: accountName, apps: apps.value,
                    environment: environment.value, now: Date(), logMode: logMode)
                // What peers of the account share of their lifecycle: the timeline's other lanes (F9).
                host.onSharedLifecycle = { peer, entries, dropped in
                    // The lane is keyed by the identity the peer's certificate names, not by the
                    // name it greeted with.
                    screen.receiveShared(
                        from: SharedLifecycle.Sender(id: peer.id.rawValue, name: peer.name), entries, dropped: dropped)
                }
                return Confined(screen)
            }
            var deadline: Date?
            var nearby = NearbyLog()
            var status: Int32 = 0
            var running = true
            var drewFrame = false
            // The first frame, then one frame per wake-up.
            var pendingKeys: [Key] = []
            while running {
                // The network could not be joined: the run ends, and run() reports why.
                if wakeUp.isStopRequested { break }
                if !runLoop.hasPendingEvents {
                    let keys = pendingKeys
                    pendingKeys = []
                    let size = terminal.size
                    let host = self.host
                    let (grid, next, quit, peers): (Grid, Date?, Bool, [PeerInfo]) = host.performAndWait { _ in
                        var quit = false
                        for key in keys where !screen.value.handle(key) { quit = true }
                        let peers = host.nearbyPeers
                        // Until the host has joined the network (just after the first frame),
                        // the screen says "starting": nobody can be nearby yet.
                        screen.value.update(
                            network: host.isStarted
                                ? NetworkStatus(
                                    summary: host.discoveryMode, link: host.isStopped ? .offline : .online,
                                    peers: peers.map { NearbyPeer(info: $0.info, lastSeen: $0.lastSeen) })
                                : .starting)
                        let now = Date()
                        let grid = screen.value.render(size: size, now: now)
                        return (grid, screen.value.nextDeadline, quit, peers.map(\.info))
                    }
                    nearby.update(peers, log: logger)
                    nearby.reportIfAlone(
                        statistics: { host.performAndWait { _ in host.beaconStatistics } }, log: logger)
                    if quit { break }
                    terminal.draw(grid)
                    deadline = next
                    if !drewFrame {
                        drewFrame = true
                        drewFirstFrame()
                    }
                }
                let until = deadline.map {
                    ContinuousClock.now + .milliseconds(Int(max(0, $0.timeIntervalSinceNow) * 1000) + 1)
                }
                switch runLoop.nextEvent(until: until) {
                case .key(.control("l")):
                    // Ctrl-L repaints every cell, as in every terminal program; the apps never see it.
                    terminal.redrawAll()
                case .key(let key):
                    pendingKeys.append(key)
                case .resumed:
                    logger.info("continued after a stop: repainting the screen")
                case .resize, .wake, .deadline:
                    break
                case .signal(let number):
                    logger.info("signal \(number): quitting")
                    status = 128 + number
                    running = false
                }
            }
            wakeUp.detach()
            return status == 128 + SIGINT ? 0 : status
        }
    }
}

/// One of your apps (`--app`), read: its manifest and the name its path implies.
struct OwnAppSpec {
    var manifest: AppManifest
    var productName: String
}

/// Passes the host's "something happened" to the run loop's waker once it exists, and a
/// request to end the run loop (the network could not be joined).
final class WakeRelay: Sendable {
    private let waker = Mutex<TerminalWaker?>(nil)
    private let stopRequested = Atomic<Bool>(false)

    func attach(_ waker: TerminalWaker) { self.waker.withLock { $0 = waker } }
    func detach() { waker.withLock { $0 = nil } }
    func wake() { waker.withLock { $0 }?.wake() }

    /// Asks the run loop to end (it looks after every event), and wakes it.
    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        wake()
    }

    /// Whether ``requestStop()`` was called.
    var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }
}

/// Writes to the device's log when a peer appears nearby or leaves, so that a log read after
/// the fact says when each device was seen (the screen only says what is nearby now).
struct NearbyLog {
    private var known: [DeviceID: String] = [:]
    private let started = Date()
    private var reportedAlone = false

    /// Once, when nobody has appeared 10 s after the start: the beacon counters, so that a device
    /// that hears beacons but lists no one says why in its log (what it dropped, and for what).
    mutating func reportIfAlone(statistics: () -> BeaconStatistics, log logger: Logger, now: Date = Date()) {
        guard !reportedAlone, known.isEmpty, now.timeIntervalSince(started) >= 10 else { return }
        reportedAlone = true
        logger.info("nearby: nobody 10 s after the start; beacons: \(Self.describe(statistics()))")
    }

    mutating func update(_ peers: [PeerInfo], log logger: Logger) {
        // Called every frame: most frames nobody came or went, and nothing is built.
        guard peers.count != known.count || peers.contains(where: { known[$0.id] == nil }) else { return }
        let now = Dictionary(peers.map { ($0.id, "\($0.name) (\($0.kind.rawValue))") }, uniquingKeysWith: { a, _ in a })
        for (id, name) in now where known[id] == nil { logger.info("nearby: \(name) appeared") }
        for (id, name) in known where now[id] == nil { logger.info("nearby: \(name) left") }
        known = now
    }

    /// What the discovery channel counted, in one line.
    static func describe(_ statistics: BeaconStatistics) -> String {
        "\(statistics.sent) sent, \(statistics.replies) replies, \(statistics.received) received, "
            + "\(statistics.accepted) accepted, \(statistics.dropped) dropped (own \(statistics.droppedOwn), "
            + "authentication \(statistics.droppedAuthentication), replay \(statistics.droppedReplay), "
            + "stale \(statistics.droppedStale), duplicate \(statistics.droppedDuplicate)), "
            + "\(statistics.sendFailures) send failures"
    }
}
