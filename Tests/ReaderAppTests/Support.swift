import DeviceAppKit
import Foundation
import GridSnapshots
import HandoffCore
import HandoffTestSupport
import TerminalCells
import Testing

@testable import ReaderApp

/// A temporary folder, removed when the value is released.
final class TemporaryFolder {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("ReaderAppTests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A subfolder (not created).
    func folder(_ name: String) -> URL { url.appendingPathComponent(name, isDirectory: true) }
}

/// The Reader's real resources (its Info.plist and sample documents).
func readerResources() throws -> ReaderResources { try ReaderResources.locate() }

/// One device of a neighbourhood, running the Reader the way the device screen does: installed
/// from its manifest and delegate, launched with an environment, brought to the front.
final class ReaderDevice {
    let device: Device
    let reader: ReaderApp
    let application: Application
    let localFolder: URL
    /// The work `AppEnvironment.perform` handed back to the "run loop" (the test's task).
    let runLoop = RunLoopQueue()
    private(set) var logLines: [String] = []

    /// - Parameters:
    ///   - model: the Reader's app model (its Info.plist and scene delegate).
    ///   - opened: whether the user opens the Reader (it comes to the front); false leaves it
    ///     installed but not running, so that a continuation launches it cold.
    ///   - approvesSite: answers every association-file check of the Reader's domains "approved".
    init(
        _ name: String, kind: PeerInfo.Kind, in hood: Neighbourhood, cloudFolder: URL?, localFolder: URL,
        version: Int = ReadingState.currentVersion, model: AppModel = .delegate, opened: Bool = true,
        approvesSite: Bool = false
    ) throws {
        device = hood.addDevice(name, kind: kind, configuration: DeviceConfiguration(saveCoalescingInterval: 60))
        // As the device screen does: the cloud folder is the device's iCloud container.
        device.ubiquityContainerURL = cloudFolder
        if approvesSite {
            let device = self.device
            device.siteAssociationVerifier = { request in
                for domain in request.domains {
                    device.siteAssociationChecked(
                        SiteAssociationCheck(
                            bundleIdentifier: request.bundleIdentifier,
                            applicationIdentifier: request.applicationIdentifier, domain: domain,
                            outcome: .approved, checkedAt: hood.clock.now, expiresAt: hood.clock.now + 3600))
                }
            }
        }
        reader = try ReaderApp(resources: readerResources(), version: version, model: model)
        reader.transferIdleTimeout = .seconds(60)  // generous: other tests may hold the shared threads
        application = device.install(
            reader.manifest, delegate: reader.delegate, sceneDelegates: reader.sceneDelegateClasses)
        self.localFolder = localFolder
        let clock = hood.clock
        reader.launch(
            application: application,
            environment: AppEnvironment(
                deviceName: name, cloudFolder: cloudFolder, localFolder: localFolder, now: { clock.now },
                log: { [weak self] line in self?.logLines.append(line) }, perform: runLoop.enqueue))
        if opened { bringToFront() }
    }

    /// The user opens the Reader, as the device screen does: the device brings it to the front,
    /// then tells the app.
    func bringToFront() {
        device.bringToFront(application)
        reader.setFrontmost(true)
    }

    /// The user quits the Reader from the app switcher, as the device screen does.
    func quit() {
        reader.setFrontmost(false)
        device.bringToFront(nil)
        device.terminate(application)
        reader.terminate()
    }

    /// The kinds of the lifecycle events recorded so far.
    var kinds: [LifecycleEvent.Kind] { device.lifecycle.map(\.kind) }

    /// Presses `keys` in order; each must be the Reader's.
    func press(_ keys: Key..., sourceLocation: SourceLocation = #_sourceLocation) {
        for key in keys { #expect(reader.handle(key), "the Reader handles \(key)", sourceLocation: sourceLocation) }
    }

    /// Chooses the document named `name` in the list (with ↑ ↓) and opens it (Enter).
    func open(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        press(.home, sourceLocation: sourceLocation)
        while reader.documents.indices.contains(reader.selection), reader.documents[reader.selection].name != name,
            reader.selection < reader.documents.count - 1
        {
            press(.down, sourceLocation: sourceLocation)
        }
        #expect(reader.documents[reader.selection].name == name, sourceLocation: sourceLocation)
        press(.enter, sourceLocation: sourceLocation)
    }

    /// The Reader drawn in an area of `width`x`height` (the whole grid), told that
    /// size first as the device screen does.
    func render(width: Int, height: Int) -> Grid {
        var grid = Grid(size: Size(width: width, height: height))
        reader.viewportChanged(to: grid.size)
        reader.render(into: &grid, area: grid.bounds)
        return grid
    }

    /// The open document's activity.
    var activity: UserActivity? { reader.session?.document.userActivity }
}

/// Two devices of one account (a laptop and a phone) sharing a cloud folder in an in-memory
/// neighbourhood with a manual clock, each with its own local folder.
final class ReaderWorld {
    let folder = TemporaryFolder()
    let hood = Neighbourhood()
    let cloudFolder: URL
    let laptop: ReaderDevice
    let phone: ReaderDevice

    /// - Parameters:
    ///   - phoneHasCloud: false starts the phone without a cloud folder (`--no-cloud`).
    ///   - laptopVersion: the handoff version the laptop's Reader writes.
    init(phoneHasCloud: Bool = true, laptopVersion: Int = ReadingState.currentVersion) throws {
        cloudFolder = folder.folder("cloud")
        laptop = try ReaderDevice(
            "Laptop", kind: .laptop, in: hood, cloudFolder: cloudFolder, localFolder: folder.folder("laptop"),
            version: laptopVersion)
        phone = try ReaderDevice(
            "Phone", kind: .phone, in: hood, cloudFolder: phoneHasCloud ? cloudFolder : nil,
            localFolder: folder.folder("phone"))
        hood.settle()
    }

    /// Runs both devices' run loops (their handed-back work and the neighbourhood) until
    /// `condition` holds; stream bytes flow meanwhile in their tasks. The deadline is generous:
    /// end-to-end tests running at the same time can hold both threads of the shared pool, which
    /// the stream tasks need, for tens of seconds on a 2-core machine.
    func run(
        until condition: () -> Bool, timeout: Duration = .seconds(120),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("the condition did not hold within \(timeout)", sourceLocation: sourceLocation)
                return
            }
            let ran = laptop.runLoop.drain() + phone.runLoop.drain()
            hood.settle()
            if ran == 0 { try await Task.sleep(for: .milliseconds(2)) }
        }
    }
}

/// What `AppEnvironment.perform` queued, run when the test drains it (on the test's task, which
/// plays the device's run loop).
final class RunLoopQueue: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var pending: [@Sendable () -> Void] = []

    @Sendable func enqueue(_ work: @escaping @Sendable () -> Void) {
        lock.withLock { pending.append(work) }
    }

    /// Runs the queued work in order; returns how much ran.
    @discardableResult
    func drain() -> Int {
        let work = lock.withLock {
            let work = pending
            pending = []
            return work
        }
        for item in work { item() }
        return work.count
    }
}

// MARK: Snapshots

/// Compares `grid.text()` with `Snapshots/<name>.txt` next to this file (see GridSnapshots;
/// `RECORD_SNAPSHOTS=1` records).
func expectSnapshot(_ grid: Grid, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Snapshots", isDirectory: true)
    GridSnapshots.expectSnapshot(grid, named: name, in: folder, sourceLocation: sourceLocation)
}
