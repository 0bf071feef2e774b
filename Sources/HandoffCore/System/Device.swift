import Foundation
import Synchronization

/// A simulated device: the runtime that carries out a ``DeviceSystem``'s effects on real app
/// objects (activities, responders, delegates) and a ``DeviceTransport``.
///
/// A device and everything installed on it are confined to one thread (its run loop). Events are
/// queued and handled one at a time, so app callbacks that change activities never re-enter the
/// state machine.
public final class Device {
    public var info: PeerInfo { system.device }
    public internal(set) var system: DeviceSystem
    public internal(set) var applications: [Application] = []
    public weak var transport: (any DeviceTransport)?
    /// The device's clock: the time of every event it handles.
    public let clock: () -> Date
    /// Every lifecycle event of this device, oldest first: the most recent `lifecycleCapacity`, and
    /// up to a quarter more between trims (the oldest are dropped in one go, not one by one: moving
    /// ten thousand events up by one for each new event made a long-running device slower with
    /// every event past the capacity).
    public private(set) var lifecycle: [LifecycleEvent] = []
    public var lifecycleCapacity = 10_000
    /// Errors the system showed itself because the app did not handle them.
    public internal(set) var systemAlerts: [(bundleIdentifier: String, error: HandoffError)] = []
    /// How long a stream token from a payload stays usable.
    public var streamTokenLifetime: TimeInterval = 120
    /// The last payloads and beacons that travelled, for the inspector (bounded).
    public internal(set) var traffic = DeviceTraffic()
    /// Opens a kept beacon datagram again with its fields (the network host sets it: it holds
    /// the account's beacon key).
    public var beaconInspector: (([UInt8]) -> BeaconBytes?)?
    /// This device's iCloud container (Apple's `url(forUbiquityContainerIdentifier:)`), or nil
    /// when the device has no iCloud documents. Every device of an account has its own path to
    /// the same documents (``UbiquityContainer``): only documents inside it get automatic
    /// activities, and file URLs inside it are sent relative to it and arrive in the receiver's.
    public var ubiquityContainerURL: URL?

    var activities: [UUID: UserActivity] = [:]
    /// The file URLs resolved from iCloud references in the payload of the continuation being
    /// delivered, granted security-scoped to its app on delivery.
    var scopedURLs: (continuation: ContinuationID, urls: [URL])?
    var streamTokens = StreamGrants()
    var queue: [DeviceSystem.Event] = []
    var draining = false
    var savingActivity: UUID?
    /// The last advertise or withdraw of the events being handled: sent (and recorded) once,
    /// when the queue is empty, so a burst of changes is one beacon change.
    var pendingBeacon: DeviceSystem.Effect?
    /// The time of the latest event recorded: the next is never earlier.
    private var lastEventTime: Date = .distantPast
    /// Who is told of each lifecycle event, in the order they were added.
    private var lifecycleObservers: [(token: LifecycleObserverToken, observer: (LifecycleEvent) -> Void)] = []
    private var lastObserverSerial: UInt64 = 0
    var isBeaconFlushScheduled = false
    /// When set, a beacon change is sent later, by the work given here (the device's run loop runs
    /// it after what it is doing now), so changes made one after another by app code are one
    /// beacon; when nil, it is sent as soon as the events being handled are done.
    public var deferBeacons: ((@escaping @Sendable (Device) -> Void) -> Void)?

    /// A stream token handed out with a payload: which activity and continuation it opens.
    struct StreamGrant {
        var activity: UUID
        var continuation: ContinuationID
        var expires: Date
    }

    /// The 16 random bytes of a stream token, as two words: a dictionary key hashed and compared
    /// in two words, where the token's `Data` was hashed byte by byte and compared through its
    /// storage on every probe.
    struct StreamToken: Hashable {
        var high: UInt64
        var low: UInt64

        /// A fresh token: sixteen of the kernel's random bytes, taken from a pool of its own that
        /// reads them 4 KiB at a time (``RandomBytePool``). Drawn from the system's generator, a
        /// token cost two `getrandom` system calls on the origin's answer (sixteen before
        /// 2026-11-29, a byte at a time). The bytes are the kernel's all the same; the pool is
        /// this process's alone (it never forks without `exec`) and holds no token twice.
        static func random() -> StreamToken {
            pool.withLock { pool in
                pool.take(16) { bytes in
                    StreamToken(
                        high: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                        low: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                }
            }
        }

        /// The tokens' own pool: they are secrets (a stream is opened with one), so they share no
        /// bytes with the identifiers' pool, whose bytes travel in clear.
        private static let pool = Mutex(RandomBytePool())

        /// The 16 bytes sent in the payload.
        var bytes: Data {
            var words = (high.bigEndian, low.bigEndian)
            return withUnsafeBytes(of: &words) { Data($0) }
        }
    }

    /// The stream tokens handed out and not yet used. Expired grants are dropped whenever the
    /// table has doubled since the last sweep, so an activity continued again and again (each
    /// continuation a grant, most never used) keeps only the grants still usable, at an amortized
    /// constant cost per grant.
    struct StreamGrants {
        private(set) var grants: [StreamToken: StreamGrant] = [:]
        private var sweepAt = 64

        subscript(token: StreamToken) -> StreamGrant? { grants[token] }

        /// Records a grant made at `now`.
        mutating func grant(_ grant: StreamGrant, for token: StreamToken, at now: Date) {
            if grants.count >= sweepAt {
                grants = grants.filter { $0.value.expires > now }
                sweepAt = max(64, 2 * grants.count)
            }
            grants[token] = grant
        }

        /// Takes the grant of `token` out of the table.
        mutating func take(_ token: StreamToken) -> StreamGrant? {
            grants.removeValue(forKey: token)
        }

        /// Forgets the grants of `activity` (invalidated).
        mutating func revoke(activity: UUID) {
            grants = grants.filter { $0.value.activity != activity }
        }
    }

    public init(
        info: PeerInfo, configuration: DeviceConfiguration = DeviceConfiguration(),
        clock: @escaping () -> Date = Date.init
    ) {
        system = DeviceSystem(device: info, configuration: configuration)
        self.clock = clock
    }

    /// Fetches the association files that verify an app's `activitycontinuation:` domains (set
    /// by the runtime: the local web's `SiteAssociationVerifier`). Called on the device's run
    /// loop when an app is installed or launched, for the domains never checked or whose answer
    /// expired; the verifier answers each with ``siteAssociationChecked(_:)``, on the run loop.
    /// Without one, the domains stay unchecked and web pages open in the browser.
    public var siteAssociationVerifier: ((SiteAssociationRequest) -> Void)?

    // MARK: Faults

    /// The faults armed on this device, and what they remember (``FaultPlan``).
    var faults = FaultPlan()

    // MARK: Step mode

    /// Step mode's state (``StepGate``): what is held, and since when.
    var gate = StepGate<() -> Void>()

    /// Records what happened, stamped with one read of the device's clock (never earlier than the
    /// previous event), and tells the observers.
    func record(_ occurrence: LifecycleEvent.Occurrence) {
        record(LifecycleEvent(time: clock(), device: info.name, occurrence), stamped: true)
    }

    // MARK: Lifecycle observers

    /// Calls `observer` with every lifecycle event recorded from now on, after the observers added
    /// before it. The token removes it (``removeLifecycleObserver(_:)``); an observer that lives
    /// as long as the device may drop it.
    @discardableResult
    public func addLifecycleObserver(_ observer: @escaping (LifecycleEvent) -> Void) -> LifecycleObserverToken {
        lastObserverSerial += 1
        let token = LifecycleObserverToken(serial: lastObserverSerial)
        lifecycleObservers.append((token, observer))
        return token
    }

    /// Stops calling the observer `token` was given for (nothing happens if it was removed).
    /// Added or removed while an event is being told, an observer counts from the next event.
    public func removeLifecycleObserver(_ token: LifecycleObserverToken) {
        lifecycleObservers.removeAll { $0.token == token }
    }

    /// `stamped`: the event's time was read from the device's clock just now; otherwise (an
    /// event the state machine made) it is stamped here. Either way, one read per event.
    func record(_ event: consuming LifecycleEvent, stamped: Bool = false) {
        event.time = max(stamped ? event.time : clock(), lastEventTime)
        lastEventTime = event.time
        lifecycle.append(copy event)
        if lifecycle.count > lifecycleCapacity + max(1, lifecycleCapacity / 4) {
            lifecycle.removeFirst(lifecycle.count - lifecycleCapacity)
        }
        for (_, observer) in lifecycleObservers { observer(event) }
    }

    // MARK: The event loop

    func post(_ event: DeviceSystem.Event) {
        queue.append(event)
        guard !draining else { return }
        draining = true
        drainQueue()
        draining = false
    }

    func drainQueue() {
        while !queue.isEmpty {
            let next = queue.removeFirst()
            // Each effect (240 bytes) is moved out of the array, not copied and released twice.
            var effects = system.handle(next, at: clock())
            effects.reverse()
            while let effect = effects.popLast() { dispatch(effect) }
            if queue.isEmpty, pendingBeacon != nil {
                if let deferBeacons {
                    if !isBeaconFlushScheduled {
                        isBeaconFlushScheduled = true
                        deferBeacons { device in device.flushBeacon() }
                    }
                } else {
                    flushBeacon()
                }
            }
        }
    }
}

/// Names one lifecycle observer of a device, to remove it.
public struct LifecycleObserverToken: Sendable, Hashable {
    fileprivate let serial: UInt64
}

extension UserActivity {
    /// The activity as lifecycle events name it (nil once it has no app).
    var reference: ActivityReference? {
        guard let bundle = application?.bundleIdentifier else { return nil }
        return ActivityReference(id: identifier, activityType: activityType, title: title, bundleIdentifier: bundle)
    }
}

extension Device.StreamToken {
    /// The token a peer presents, or nil when it is not 16 bytes (no token this device makes).
    init?(_ bytes: Data) {
        guard bytes.count == 16 else { return nil }
        var words = (UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &words) { _ = bytes.copyBytes(to: $0) }
        (high, low) = (UInt64(bigEndian: words.0), UInt64(bigEndian: words.1))
    }
}
