// handoff-map-bench: the Map's frame time at 200x60, next to a floor measured in the same run.
//
// Build and run (release):
//   swift build -c release --scratch-path .build-release --product handoff-map-bench
//   .build-release/release/handoff-map-bench [--frames N]
import Foundation
import MapApp
import TerminalCells

let size = Size(width: 200, height: 60)
var frames = 600
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--frames", let value = arguments.popFirst().flatMap(Int.init), value > 0 {
        frames = value
    } else {
        FileHandle.standardError.write(Data("usage: handoff-map-bench [--frames N]\n".utf8))
        exit(2)
    }
}

let map: MapApp
do {
    map = try MapApp()
} catch {
    FileHandle.standardError.write(Data("handoff-map-bench: \(error)\n".utf8))
    exit(1)
}

/// A tour: the world, then continents and cities at every zoom, panning as a user would.
var cameras: [MapCamera] = []
let places: [(Double, Double)] = [(10, 0), (50, 10), (35.7, 139.7), (-23.5, -46.6), (40.7, -74), (-33.9, 151.2), (64, -20), (0, 100)]
for (latitude, longitude) in places {
    for zoom in stride(from: MapCamera.minimumZoom, through: MapCamera.maximumZoom, by: 1) {
        let camera = MapCamera(latitude: latitude, longitude: longitude, zoom: zoom)
        cameras += [camera, camera.panned(columns: 50, rows: 0), camera.panned(columns: 0, rows: 15)]
    }
}

func nanoseconds(_ body: () -> Void) -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return DispatchTime.now().uptimeNanoseconds - start
}

func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
    Double(sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]) / 1e6
}

var sink = 0
// The floor: a new 200x60 grid with every cell set (as the map sets them) and copied out, no map logic.
let cells = [Cell("⣿"), Cell(" ")]
var floor: [UInt64] = []
for index in 0..<frames {
    floor.append(nanoseconds {
        var grid = Grid(size: size)
        for y in 0..<size.height {
            for x in 0..<size.width { grid[x, y] = cells[(x ^ y ^ index) & 1] }
        }
        let copy = grid
        sink &+= copy[index % 200, index % 60].width
    })
}
// The map, braille and half blocks.
var results: [(String, [UInt64])] = []
for rendering in MapRendering.allCases {
    if map.rendering != rendering { _ = map.handle(.character("m")) }
    var times: [UInt64] = []
    for index in 0..<frames {
        map.show(cameras[index % cameras.count])
        times.append(nanoseconds {
            var grid = Grid(size: size)
            map.render(into: &grid, area: grid.bounds)
            sink &+= grid[index % 200, index % 60].width
        })
    }
    results.append((rendering.rawValue, times))
}

print("handoff-map-bench: \(frames) frames at \(size.width)x\(size.height) over \(cameras.count) regions (zoom \(Int(MapCamera.minimumZoom))…\(Int(MapCamera.maximumZoom)))")
print("  what                               p50 ms   p99 ms")
func row(_ name: String, _ times: [UInt64]) {
    let sorted = times.sorted()
    print("  " + name.padding(toLength: 32, withPad: " ", startingAt: 0)
          + String(format: "%8.3f %8.3f", percentile(sorted, 0.5), percentile(sorted, 0.99)))
}
row("floor: set every cell, copy", floor)
for (name, times) in results { row("map frame (\(name))", times) }
let worst = results.map { percentile($0.1.sorted(), 0.99) }.max() ?? 0
print(worst <= 5 ? "  target p99 ≤ 5 ms: met" : "  target p99 ≤ 5 ms: NOT met (\(String(format: "%.3f", worst)) ms)")
if sink == -1 { print(sink) }
