import GridSnapshots
import DeviceAppKit
import Foundation
import HandoffCore
import HandoffTestSupport
@testable import ReaderApp
import TerminalCells
import Testing

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

    init(_ name: String, kind: PeerInfo.Kind, in hood: Neighbourhood, cloudFolder: URL?, localFolder: URL,
         version: Int = ReadingState.currentVersion) throws {
        device = hood.addDevice(name, kind: kind, configuration: DeviceConfiguration(saveCoalescingInterval: 60))
        reader = try ReaderApp(resources: readerResources(), version: version)
        reader.transferIdleTimeout = .seconds(60)  // generous: other tests may hold the shared threads
        application = device.install(reader.manifest, delegate: reader.delegate)
        self.localFolder = localFolder
        let clock = hood.clock
        reader.launch(application: application, environment: AppEnvironment(
            deviceName: name, cloudFolder: cloudFolder, localFolder: localFolder, now: { clock.now },
            log: { [weak self] line in self?.logLines.append(line) }, perform: runLoop.enqueue))
        device.bringToFront(application)
    }

    /// Presses `keys` in order; each must be the Reader's.
    func press(_ keys: Key..., sourceLocation: SourceLocation = #_sourceLocation) {
        for key in keys { #expect(reader.handle(key), "the Reader handles \(key)", sourceLocation: sourceLocation) }
    }

    /// Chooses the document named `name` in the list (with ↑ ↓) and opens it (Enter).
    func open(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        press(.home, sourceLocation: sourceLocation)
        while reader.documents.indices.contains(reader.selection), reader.documents[reader.selection].name != name,
              reader.selection < reader.documents.count - 1 {
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
        laptop = try ReaderDevice("Laptop", kind: .laptop, in: hood, cloudFolder: cloudFolder, localFolder: folder.folder("laptop"),
                                  version: laptopVersion)
        phone = try ReaderDevice("Phone", kind: .phone, in: hood, cloudFolder: phoneHasCloud ? cloudFolder : nil,
                                 localFolder: folder.folder("phone"))
        hood.settle()
    }

    /// Runs both devices' run loops (their handed-back work and the neighbourhood) until
    /// `condition` holds; stream bytes flow meanwhile in their tasks.
    func run(until condition: () -> Bool, timeout: Duration = .seconds(20),
             sourceLocation: SourceLocation = #_sourceLocation) async throws {
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
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots", isDirectory: true)
    GridSnapshots.expectSnapshot(grid, named: name, in: folder, sourceLocation: sourceLocation)
}
