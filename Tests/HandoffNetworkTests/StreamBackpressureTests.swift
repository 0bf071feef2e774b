import Foundation
import HandoffCore
import Synchronization
import Testing

@testable import HandoffBench
@testable import HandoffNetwork

/// Continuation streams between real devices on loopback (mutual TLS, `StreamChannelHandler` on
/// both sides): a reader that does not read holds the writer back all the way through the
/// connection, and every byte arrives in order once it reads.
@Suite("Continuation streams on loopback", .serialized)
struct StreamBackpressureTests {
    static let chunk = 64 << 10
    static let total = 128 << 20
    /// What may be in flight at most while nobody reads: the two apps' queues (1 MiB each, plus a
    /// chunk and one socket read), the sending handler's batch and the channel's pending write
    /// (about 1 MiB each; 8 MiB is allowed for all of these), and the kernel's socket
    /// buffers, read from /proc/sys/net/ipv4/tcp_wmem and tcp_rmem (here up to 4 MiB to send and
    /// 32 MiB to receive) and counted twice, as Linux lets a socket's buffers take twice their
    /// nominal size for bookkeeping (socket(7)). A fixed 64 MiB was passed once under load (75
    /// MB); this machine's bound is 80 MiB. A writer that were not held back would run the whole
    /// 128 MiB ahead, so the bound must stay below it for the test to mean anything.
    static let bound: Int = {
        func maximum(_ file: String, otherwise: Int) -> Int {
            let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/\(file)", encoding: .utf8)) ?? ""
            return text.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) } ?? otherwise
        }
        return 2 * (maximum("tcp_wmem", otherwise: 4 << 20) + maximum("tcp_rmem", otherwise: 32 << 20)) + (8 << 20)
    }()

    @Test func aReaderThatDoesNotReadHoldsTheWriterBackThenGetsEveryByteInOrder() async throws {
        try await withStartedWorld(["Origin", "Receiver"], fetchTimeout: 60, connectTimeout: 30, scenario)
    }

    private func scenario(_ world: BenchWorld) async throws {
        let (origin, receiver) = (world.hosts[0], world.hosts[1])
        let app = StreamingApp()
        for host in world.hosts { host.performAndWait { device in app.install(on: device) } }
        origin.performAndWait { device in app.becomeCurrent(on: device) }
        try await waitForOffer(from: origin, on: receiver)
        try await expectContinued(receiver, from: origin)
        receiver.performAndWait { _ in app.openStreams() }
        try await waitUntil("both ends of the streams are open") { app.ends != nil }
        let (sending, held) = try #require(app.ends)

        let progress = Mutex((written: 0, read: 0, maxLead: 0))
        let writer = Task {
            for index in 0..<(Self.total / Self.chunk) {
                try await sending.output.write([UInt8](repeating: UInt8(truncatingIfNeeded: index), count: Self.chunk))
                progress.withLock {
                    $0.written += Self.chunk
                    $0.maxLead = max($0.maxLead, $0.written - $0.read)
                }
            }
            await sending.output.close()
        }
        // Nobody reads at the origin: its connection ends up waiting for the origin's app, and
        // everything before it fills up and stops.
        try await waitUntil("the origin's connection waits for its app") { held.input.waitingWriters == 1 }
        var received = 0
        var outOfOrder = 0
        for try await part in held.input {
            // Each chunk's bytes are its index: check the first and last byte of each part.
            for offset in [received, received + part.count - 1] where !part.isEmpty {
                if part[offset - received] != UInt8(truncatingIfNeeded: offset / Self.chunk) { outOfOrder += 1 }
            }
            received += part.count
            progress.withLock { $0.read = received }
        }
        try await writer.value
        #expect(received == Self.total)
        #expect(outOfOrder == 0)
        let lead = progress.withLock { $0.maxLead }
        try #require(
            Self.bound < Self.total, "this machine's socket buffers (bound \(Self.bound)) leave nothing to prove")
        #expect(lead <= Self.bound, "the writer ran \(lead) bytes ahead of the reader")
        #expect(lead < Self.total)
    }
}

/// The app of both devices: the origin makes a streams-capable activity current and keeps the
/// streams it receives without reading them; the receiver restores the activity and opens its
/// streams. Each device uses it on its own queue only; what the test reads is behind a lock.
private final class StreamingApp: ApplicationDelegate, UserActivityDelegate, @unchecked Sendable {
    static let activityType = "com.handoffsim.tests.streaming"
    static let manifest = AppManifest(
        bundleIdentifier: "com.handoffsim.tests.streaming", teamIdentifier: "SIMTEAM001",
        displayName: "Streaming", activityTypes: [activityType])
    private let state = Mutex<(continuing: ContinuationStreams?, origin: ContinuationStreams?)>((nil, nil))
    // Touched on the devices' queues only.
    private var applications: [ObjectIdentifier: Application] = [:]
    private var current: UserActivity?
    private var continued: UserActivity?

    /// The continuing side's end and the origin's end, once both are open.
    var ends: (ContinuationStreams, ContinuationStreams)? {
        state.withLock { state in state.continuing.flatMap { continuing in state.origin.map { (continuing, $0) } } }
    }

    func install(on device: Device) {
        applications[ObjectIdentifier(device)] = device.install(Self.manifest, delegate: self)
    }

    func becomeCurrent(on device: Device) {
        guard let application = applications[ObjectIdentifier(device)],
            let activity = try? UserActivity(activityType: Self.activityType, application: application)
        else { return }
        activity.userInfo = ["page": .integer(1)]
        activity.supportsContinuationStreams = true
        activity.delegate = self
        activity.becomeCurrent()
        current = activity
    }

    func openStreams() {
        continued?.getContinuationStreams { streams, _ in
            self.state.withLock { $0.continuing = streams }
        }
    }

    func application(
        _ application: Application, continue userActivity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool {
        continued = userActivity
        restorationHandler([Responder()])
        return true
    }

    func userActivityWillSave(_ userActivity: UserActivity) {}
    func userActivityWasContinued(_ userActivity: UserActivity) {}
    func userActivity(_ userActivity: UserActivity, didReceive streams: ContinuationStreams) {
        state.withLock { $0.origin = streams }
    }
}
