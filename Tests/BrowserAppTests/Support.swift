import DeviceAppKit
import Foundation
import GridSnapshots
import HandoffCore
import HandoffTestSupport
import TerminalCells
import Testing

@testable import BrowserApp

/// A temporary folder, removed when the value is released.
final class TemporaryFolder {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("BrowserAppTests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `text` to `path` (folders created).
    @discardableResult
    func write(_ text: String, to path: String) throws -> URL {
        try write(Data(text.utf8), to: path)
    }

    @discardableResult
    func write(_ data: Data, to path: String) throws -> URL {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file
    }
}

/// The Browser's real resources (Info.plist, sites, the Reader's documents).
func browserResources() throws -> BrowserResources { try BrowserResources.locate() }

/// The sites the Browser ships.
func shippedSites() throws -> SiteLibrary {
    let resources = try browserResources()
    return SiteLibrary(folder: resources.sites, readerDocuments: resources.readerDocuments)
}

/// A URL from a literal.
func url(_ string: String, sourceLocation: SourceLocation = #_sourceLocation) -> URL {
    guard let url = URL(string: string) else {
        Issue.record("not a URL: \(string)", sourceLocation: sourceLocation)
        return URL(string: "https://invalid.example/")!
    }
    return url
}

/// A device of a neighbourhood running the Browser the way the device screen does: installed
/// from its manifest and delegate, launched with an environment, brought to the front.
final class BrowserDevice {
    let device: Device
    let browser: BrowserApp
    let application: Application
    private(set) var logLines: [String] = []

    init(
        _ name: String, kind: PeerInfo.Kind = .phone, in hood: Neighbourhood, browser: BrowserApp? = nil,
        frontmost: Bool = true
    ) throws {
        device = hood.addDevice(name, kind: kind)
        self.browser = try browser ?? BrowserApp(resources: browserResources())
        application = device.install(self.browser.manifest, delegate: self.browser.delegate)
        let clock = hood.clock
        let folder = FileManager.default.temporaryDirectory
        self.browser.launch(
            application: application,
            environment: AppEnvironment(
                deviceName: name, cloudFolder: nil, localFolder: folder, now: { clock.now },
                log: { [weak self] line in self?.logLines.append(line) }))
        if frontmost { bringToFront() }
    }

    /// Brings the Browser to the front, as the device screen does.
    func bringToFront() {
        device.bringToFront(application)
        browser.setFrontmost(true)
    }

    /// Presses `keys` in order; each must be the Browser's.
    func press(_ keys: Key..., sourceLocation: SourceLocation = #_sourceLocation) {
        for key in keys { #expect(browser.handle(key), "the Browser handles \(key)", sourceLocation: sourceLocation) }
    }

    /// Types `text` (each character a key).
    func type(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for character in text { press(.character(character), sourceLocation: sourceLocation) }
    }

    /// Opens the address bar, types `address` and presses Enter.
    func go(to address: String, sourceLocation: SourceLocation = #_sourceLocation) {
        press(.character("g"), sourceLocation: sourceLocation)
        type(address, sourceLocation: sourceLocation)
        press(.enter, sourceLocation: sourceLocation)
    }

    /// The Browser drawn in an area of `width`x`height` (the whole grid), told that
    /// size first as the device screen does.
    func render(width: Int, height: Int) -> Grid {
        var grid = Grid(size: Size(width: width, height: height))
        browser.viewportChanged(to: grid.size)
        browser.render(into: &grid, area: grid.bounds)
        return grid
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
