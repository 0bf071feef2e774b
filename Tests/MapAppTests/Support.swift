import DeviceAppKit
import Foundation
import GridSnapshots
import HandoffCore
import HandoffTestSupport
import TerminalCells
import Testing

@testable import MapApp

/// One device of a neighbourhood running the Map the way the device screen does: installed from
/// its manifest and delegate, launched, brought to the front.
final class MapDevice {
    let device: Device
    let map: MapApp
    let application: Application
    private(set) var logLines: [String] = []

    /// `data`: the geography to use instead of the process's shared one.
    init(
        _ name: String, kind: PeerInfo.Kind, in hood: Neighbourhood, frontmost: Bool = true, data: MapData? = nil
    ) throws {
        device = hood.addDevice(name, kind: kind, configuration: DeviceConfiguration(saveCoalescingInterval: 60))
        map = try data.map { data in try MapApp(manifest: MapApp().manifest, data: data) } ?? MapApp()
        application = device.install(map.manifest, delegate: map.delegate)
        let clock = hood.clock
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "MapAppTests-unused", isDirectory: true)
        // Frame ticks (a flight's) are dropped: tests advance flights themselves, on their own
        // thread, as the device's run loop would.
        map.launch(
            application: application,
            environment: AppEnvironment(
                deviceName: name, cloudFolder: nil, localFolder: folder, now: { clock.now },
                log: { [weak self] line in self?.logLines.append(line) }, perform: { _ in }))
        if frontmost { bringToFront() }
    }

    /// Brings the Map to the front, as the device screen does.
    func bringToFront() {
        device.bringToFront(application)
        map.setFrontmost(true)
    }

    /// Presses `keys` in order; each must be the Map's.
    func press(_ keys: Key..., sourceLocation: SourceLocation = #_sourceLocation) {
        for key in keys { #expect(map.handle(key), "the Map handles \(key)", sourceLocation: sourceLocation) }
    }

    /// Lets the flight in progress land, frame by frame; returns the cameras shown.
    @discardableResult
    func finishFlight() -> [MapCamera] {
        var cameras: [MapCamera] = []
        while map.flight != nil {
            map.advanceFlight()
            cameras.append(map.camera)
            if cameras.count > 100 { break }
        }
        return cameras
    }

    /// Types `text` into the search field.
    func type(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for character in text { press(.character(character), sourceLocation: sourceLocation) }
    }

    /// The Map drawn in an area of `width`x`height` (the whole grid), told that
    /// size first as the device screen does.
    func render(width: Int, height: Int) -> Grid {
        var grid = Grid(size: Size(width: width, height: height))
        map.viewportChanged(to: grid.size)
        map.render(into: &grid, area: grid.bounds)
        return grid
    }
}

/// A laptop and a phone of one account running the Map, with a manual clock.
final class MapWorld {
    let hood = Neighbourhood()
    let laptop: MapDevice
    let phone: MapDevice

    init() throws {
        laptop = try MapDevice("Laptop", kind: .laptop, in: hood)
        phone = try MapDevice("Phone", kind: .phone, in: hood)
        hood.advance(by: 2)  // the laptop advertised before the phone was there: its next refresh
        hood.settle()
    }
}

/// A Map not installed on any device (for rendering alone).
func standaloneMap() throws -> MapApp { try MapApp() }

/// The map of `camera` drawn by `map` into a grid of `width`x`height` (told that size first).
func render(_ map: MapApp, _ camera: MapCamera, width: Int, height: Int) -> Grid {
    map.show(camera)
    var grid = Grid(size: Size(width: width, height: height))
    map.viewportChanged(to: grid.size)
    map.render(into: &grid, area: grid.bounds)
    return grid
}

// MARK: Snapshots

/// Compares `grid.text()` with `Snapshots/<name>.txt` next to this file (see GridSnapshots;
/// `RECORD_SNAPSHOTS=1` records).
func expectSnapshot(_ grid: Grid, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Snapshots", isDirectory: true)
    GridSnapshots.expectSnapshot(grid, named: name, in: folder, sourceLocation: sourceLocation)
}

// MARK: Labels

/// Every cell a placed marker or name takes, with a one-cell gap to the left and right of
/// names, belongs to one label only; every name is inside the area.
func expectNoLabelOverlaps(
    _ placed: [PlacedLabel], in area: Rect, _ context: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    var owner: [Point: Int] = [:]
    for (index, label) in placed.enumerated() {
        if !label.isName {
            #expect(
                area.contains(label.marker), "\(context): \(label.text)'s marker is inside",
                sourceLocation: sourceLocation)
        }
        if label.position != nil {
            let frame = label.textFrame
            #expect(frame.width == TextWidth.of(label.text) && frame.height == 1, sourceLocation: sourceLocation)
            #expect(
                frame.intersection(area) == frame, "\(context): “\(label.text)” is inside",
                sourceLocation: sourceLocation)
        }
        let padded = label.position == nil ? [] : [label.textFrame.inset(left: -1, right: -1)]
        let marker = label.isName ? [] : [Rect(origin: label.marker, size: Size(width: 1, height: 1))]
        for rect in marker + padded {
            for y in rect.minY..<rect.maxY {
                for x in rect.minX..<rect.maxX {
                    let point = Point(x: x, y: y)
                    if let other = owner[point], other != index {
                        Issue.record(
                            "\(context): “\(label.text)” overlaps “\(placed[other].text)” at \(point)",
                            sourceLocation: sourceLocation)
                    }
                    owner[point] = index
                }
            }
        }
    }
}
