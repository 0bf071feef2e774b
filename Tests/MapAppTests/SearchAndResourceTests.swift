import DeviceAppKit
import Foundation
import HandoffCore
import HandoffManifest
import HandoffTestSupport
import Synchronization
import TerminalCells
import Testing

@testable import MapApp

@Suite("Search")
struct SearchTests {
    @Test func findsByNameIgnoringCaseAndAccents() throws {
        let catalog = try standaloneMap().renderer.cities
        #expect(catalog.cities.count > 5000, "Natural Earth's populated places: thousands")
        #expect(catalog.cities.first?.name == "Tokyo", "largest first")
        #expect(catalog.search("sao paulo").first?.name == "São Paulo")
        #expect(catalog.search("TOKYO").first?.name == "Tokyo")
        #expect(catalog.search("par").first?.name == "Paris", "a prefix; the biggest country's first among equals")
        #expect(catalog.search("york").map(\.name).contains("New York"), "a word of the name")
        #expect(catalog.search("japan").map(\.name).contains("Ōsaka"), "by country")
        #expect(catalog.search("zzzz").isEmpty)
        #expect(catalog.search("  ").isEmpty)
    }

    @Test func enterJumpsToTheChosenCity() throws {
        let world = try MapWorld()
        let laptop = world.laptop
        _ = laptop.render(width: 80, height: 24)
        let activity = try #require(laptop.map.activity)
        world.hood.advance(by: 61)
        laptop.press(.character("/"))
        #expect(laptop.map.search != nil)
        laptop.type("lim")
        #expect(laptop.map.search?.matches.first?.name == "Lima")
        laptop.type("x")
        #expect(laptop.map.search?.matches.isEmpty == true)
        laptop.press(.backspace, .enter)
        #expect(laptop.map.search == nil)
        #expect(laptop.map.highlighted?.name == "Lima")
        // The map flies there in a few frames; the region is saved once, on landing.
        let target = MapCamera(latitude: -12.046, longitude: -77.052, zoom: MapApp.searchZoom)
        #expect(laptop.map.flight?.to == target)
        #expect(!activity.needsSave, "not saved mid-flight")
        let frames = laptop.finishFlight()
        #expect(frames.count == MapFlight.frameCount)
        #expect(Set(frames).count == frames.count, "every frame moves")
        #expect(laptop.map.camera == target)
        #expect(activity.needsSave)
        #expect(laptop.render(width: 80, height: 24).line(11).contains("◉ Lima"))
        // The next move drops the highlight.
        laptop.press(.left)
        #expect(laptop.map.highlighted == nil)
    }

    @Test func aFlightBetweenFarPlacesZoomsOutOnTheWayAndAKeyLandsIt() throws {
        let from = MapCamera(latitude: 38.7, longitude: -9.1, zoom: 6)
        let to = MapCamera(latitude: 35.7, longitude: 139.7, zoom: 6)
        let flight = MapFlight(from: from, to: to, viewport: Size(width: 80, height: 23), number: 1)
        let zooms = (0...MapFlight.frameCount).map { flight.camera(atFrame: $0).zoom }
        #expect(zooms.first == 6 && zooms.last == 6)
        #expect(zooms.min()! < 1, "half the world apart: the middle frame shows both ends")
        #expect(
            flight.camera(atFrame: MapFlight.frameCount / 2).longitude < -60
                || flight.camera(atFrame: MapFlight.frameCount / 2).longitude > 60,
            "across the shorter way round (over Asia, not the Americas)")

        let world = try MapWorld()
        let laptop = world.laptop
        _ = laptop.render(width: 80, height: 24)
        laptop.press(.character("/"))
        laptop.type("Tokyo")
        laptop.press(.enter)
        #expect(laptop.map.flight != nil)
        laptop.map.advanceFlight()
        laptop.press(.character("+"))
        #expect(laptop.map.flight == nil)
        #expect(
            laptop.map.camera == MapCamera(latitude: 35.687, longitude: 139.749, zoom: MapApp.searchZoom + 1),
            "the key landed the flight, then zoomed")
    }

    @Test func typingInTheFieldIsNotTheDevicesKeys() throws {
        let world = try MapWorld()
        let laptop = world.laptop
        laptop.press(.character("/"))
        laptop.type("l?0+h")  // the log, help, world, zoom and home keys elsewhere
        #expect(laptop.map.search?.query == "l?0+h")
        #expect(!laptop.map.handle(.function(2)), "function keys stay the device's")
        laptop.press(.escape)
        #expect(laptop.map.search == nil)
        #expect(laptop.map.camera == .world, "typing 0 and + in the field did not move the map")
        _ = laptop.render(width: 80, height: 24)
        laptop.press(.character("+"), .character("0"))
        #expect(laptop.map.visibleRegion.longitudeDelta == 360, "0 fits the whole world")
        #expect(laptop.map.visibleRegion.latitudeDelta >= 179.99)
        #expect(!laptop.map.handle(.escape), "Esc on the map goes back home")
        #expect(!laptop.map.handle(.character("h")))
    }

    @Test func enterWithoutAMatchSaysSo() throws {
        let map = try standaloneMap()
        for key: Key in [.character("/"), .character("q"), .character("x"), .character("q"), .enter] {
            #expect(map.handle(key))
        }
        #expect(map.message == MapMessage(.warning, "No place matches “qxq”."))
        #expect(map.camera == .world)
    }
}

@Suite("Resources")
struct ResourceTests {
    @Test func theManifestDeclaresTheRegionActivity() throws {
        let map = try standaloneMap()
        #expect(map.manifest.bundleIdentifier == "com.handoffsim.map")
        #expect(map.manifest.activityTypes == ["com.handoffsim.map.region"])
    }

    @Test func theDemoInfoPlistIsALinkToTheModulesOne() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let plist = root.appendingPathComponent("demos/apps/Map/Info.plist")
        let source = root.appendingPathComponent("Sources/MapApp/Resources/Info.plist")
        #expect(plist.resolvingSymlinksInPath().path == source.resolvingSymlinksInPath().path)
        // With the entitlements beside it (a link to the module's too), as the Map loads them.
        #expect(try AppManifest(appAt: plist) == MapApp().manifest)
        // `handoff manifest lint` reads the app's settings from the file next to its Info.plist.
        let settings = try BuildSettingsFile(
            contentsOf: root.appendingPathComponent("demos/apps/Map/BuildSettings.xcconfig")
        ).settings
        #expect(settings == MapApp.buildSettings)
    }

    @Test func theGeographyIsSmall() throws {
        let folder = try MapResources.locate().folder
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let total = try files.reduce(0) { sum, name in
            sum
                + ((try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size]
                    as? Int) ?? 0)
        }
        #expect(total < 8_000_000, "\(total) bytes: the map's data stays under 8 MB")
        #expect(!files.contains { $0.hasPrefix("land-") || $0.hasPrefix("borders-") }, "the raster masks are gone")
    }

    @Test func everyLevelLoads() throws {
        let data = MapData.load(try MapResources.locate())
        print("MapAppTests: the map's data loaded in \(data.loadTime) (a debug build)")
        #expect(data.problems.isEmpty, "\(data.problems)")
        #expect(data.geography.levels.count == MapGeography.levelZooms.count)
        let points = data.geography.levels.map { $0?.pointCount ?? 0 }
        #expect(points == points.sorted() && points[0] > 10_000, "finer levels hold more: \(points)")
        #expect(data.countries.contains { $0.name == "Portugal" })
    }

    /// A device whose Map is never opened keeps only the files' bytes: the levels are decoded in
    /// the background once the Map first comes to the front (about 28 MB of a device's memory).
    @Test func theLevelsAreDecodedOnlyOnceTheMapComesToTheFront() async throws {
        let data = MapData(reading: try MapResources.locate())
        let hood = Neighbourhood()
        let device = try MapDevice("Laptop", kind: .laptop, in: hood, frontmost: false, data: data)
        #expect(data.geography.decodedLevelCount == 0, "launched, not shown")
        device.bringToFront()
        let deadline = ContinuousClock.now + .seconds(60)
        while data.geography.decodedLevelCount < MapGeography.levelZooms.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(data.geography.decodedLevelCount == MapGeography.levelZooms.count)
        #expect(data.problems.isEmpty, "\(data.problems)")
    }

    @Test(arguments: [
        (
            "Paris\t48.86\n",
            "places.tsv:1: expected at least 3 tab-separated fields (name, latitude, longitude), found 2"
        ),
        ("# comment\nParis\tnorth\t2.35\n", "places.tsv:2: latitude \"north\" is not a number from -90 to 90"),
        ("Paris\t48.86\t2.35\nX\t1\t200\n", "places.tsv:2: longitude \"200\" is not a number from -180 to 180"),
        ("Paris\t48.86\tnan\n", "places.tsv:1: longitude \"nan\" is not a number from -180 to 180"),
        ("\t1\t2\n", "places.tsv:1: the name must be 1 to 80 printable characters"),
        ("Paris\t48.86\t2.35\t-5\tFRA\tFrance\n", "places.tsv:1: population \"-5\" is not a whole number from 0"),
        ("# only comments\n", "places.tsv: no places"),
    ])
    func aBrokenPlaceFileNamesTheLineAndTheField(text: String, expected: String) {
        #expect(throws: MapError.self) { try CityCatalog(tsv: text) }
        do {
            _ = try CityCatalog(tsv: text)
        } catch {
            #expect(error.description == expected)
        }
    }

    /// Lines end in "\n" or "\r\n"; a name loses the spaces (Unicode's, and tabs) at its ends,
    /// keeps those inside, and any non-ASCII character around the separators survives.
    @Test func placeFilesSplitOnBytesAndTrimTheNamesSpaces() throws {
        let text =
            "# places\r\n\u{00A0} São Paulo \u{3000}\t-23.55\t-46.63\t22046000\tBRA\tBrazil\r\nŌsaka\t34.75\t135.46\r\n"
        let catalog = try CityCatalog(tsv: text)
        #expect(catalog.cities.map(\.name) == ["São Paulo", "Ōsaka"])
        #expect(catalog.cities.first?.country == "Brazil")
        #expect(catalog.cities.first?.population == 22_046_000)
        #expect(catalog.search("sao").first?.name == "São Paulo")
        #expect(catalog.search("osaka").first?.name == "Ōsaka")
        #expect(
            throws: MapError.malformed(
                file: "places.tsv", line: 2, reason: "the name must be 1 to 80 printable characters")
        ) {
            try CityCatalog(tsv: "Paris\t48.86\t2.35\r\n\u{2003} \t1\t2\r\n")
        }
    }

    /// A name is 1 to 80 characters (not bytes) without control characters, ASCII or not.
    @Test func aPlaceNameIsEightyPrintableCharactersAtMost() throws {
        let eighty = String(repeating: "é", count: 80)
        #expect(try CityCatalog(tsv: "\(eighty)\t1\t2\n").cities.map(\.name) == [eighty])
        #expect(try CityCatalog(tsv: "\(String(repeating: "a", count: 80))\t1\t2\n").cities.count == 1)
        for name in [
            String(repeating: "a", count: 81), String(repeating: "é", count: 81), "Pa\u{7F}ris", "Pa\u{1B}ris",
        ] {
            #expect(
                throws: MapError.malformed(
                    file: "places.tsv", line: 1, reason: "the name must be 1 to 80 printable characters")
            ) {
                try CityCatalog(tsv: "\(name)\t1\t2\n")
            }
        }
    }

    @Test func aBrokenCountryFileNamesTheLine() {
        #expect(
            throws: MapError.malformed(
                file: "countries.tsv", line: 2, reason: "zoom \"x\" is not a number from -10 to 30")
        ) {
            try CountryLabel.read(tsv: "# c\nPortugal\t39.6\t-8\tx\tPRT\n")
        }
    }

    /// A level file: the header, the index, then the tiles' bytes.
    static func levelFile(
        level: Int = 0, nanodegrees: Int = 1_000_000_000, tileSize: Int = 90,
        tiles: [(column: Int, row: Int, bytes: [UInt8])]
    ) -> [UInt8] {
        func u32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func u16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var file = Array("HMAPGEO1".utf8) + u32(level) + u32(nanodegrees) + u32(tileSize) + u32(tiles.count)
        var offset = 0
        for tile in tiles {
            file += u16(tile.column) + u16(tile.row) + u32(offset) + u32(tile.bytes.count)
            offset += tile.bytes.count
        }
        return file + tiles.flatMap(\.bytes)
    }

    /// A land triangle (x, y zigzag deltas; x shifted with the drawn bit) and a border line.
    static let goodTile: [UInt8] = [
        0, 1, 3, /* (0,0) drawn */ 0b01, 0, /* (10,0) not drawn */ 40, 0, /* (10,10) */ 1, 20,
        2, 1, 2, 2, 2, 4, 4,
    ]

    @Test func aLevelFileDecodesToTilesAndParts() throws {
        let level = try GeoLevel(
            bytes: Self.levelFile(tiles: [(column: 2, row: 1, bytes: Self.goodTile)]), expectedIndex: 0,
            file: "geo-0.bin")
        #expect(level.columns == 4 && level.rows == 2 && level.tileDegrees == 90)
        let tile = try #require(level.tile(column: 2, row: 1))
        #expect(level.tile(column: 6, row: 1) == tile, "columns wrap around the world")
        #expect(level.tile(column: 0, row: 0) == nil)
        #expect(level.parts(of: .land, inTile: tile).count == 1)
        #expect(level.parts(of: .lake, inTile: tile).isEmpty)
        #expect(level.parts(of: .border, inTile: tile).count == 1)
        let land = level.parts(of: .land, inTile: tile).first!
        let points = (Int(level.partStarts[land])..<Int(level.partStarts[land + 1])).map {
            (x: level.points[2 * $0] >> 1, y: level.points[2 * $0 + 1], drawn: level.points[2 * $0] & 1 == 1)
        }
        #expect(points.map(\.x) == [0, 10, 10] && points.map(\.y) == [0, 0, 10])
        #expect(points.map(\.drawn) == [true, false, true])
    }

    @Test(
        arguments: [
            (Array("HMAPGEO1".utf8), "geo-0.bin: 8 bytes, too short for the 24-byte header (truncated?)"),
            (
                Array("NOTAMAP!".utf8) + [UInt8](repeating: 0, count: 16),
                "geo-0.bin: byte 0: not a Map geography file (no \"HMAPGEO1\" at the start)"
            ),
            (
                ResourceTests.levelFile(level: 3, tiles: []),
                "geo-0.bin: byte 8: level 3, expected 0 (the number in the file's name)"
            ),
            (
                ResourceTests.levelFile(tileSize: 7, tiles: []),
                "geo-0.bin: byte 16: tiles of 7 units of 1.0° do not divide the world into 0.1° to 180° squares"
            ),
            (
                Array(ResourceTests.levelFile(tiles: [(0, 0, ResourceTests.goodTile)]).dropLast(3)),
                "geo-0.bin: byte 24: tile 0's 16 bytes at 0 go past the end of the file (truncated?)"
            ),
            (
                ResourceTests.levelFile(tiles: [(9, 0, ResourceTests.goodTile)]),
                "geo-0.bin: byte 24: tile 0 is at column 9, row 0, outside the 4x2 grid"
            ),
            (
                ResourceTests.levelFile(tiles: [
                    (3, 1, ResourceTests.goodTile), (0, 0, ResourceTests.goodTile), (3, 1, ResourceTests.goodTile),
                ]),
                "geo-0.bin: byte 48: tile 2 repeats column 3, row 1"
            ),
            (
                ResourceTests.levelFile(tiles: [(0, 0, [7, 1, 2, 0, 0, 2, 2])]),
                "geo-0.bin: byte 36: unknown kind 7 in tile 0"
            ),
            (
                ResourceTests.levelFile(tiles: [(0, 0, [2, 1, 2, 0, 0, 2, 2, 0, 1, 3, 0, 0, 0, 0, 0, 0])]),
                "geo-0.bin: byte 43: kind 0 out of order or repeated in tile 0"
            ),
            (
                ResourceTests.levelFile(tiles: [(0, 0, [2, 1, 2, 0, 0, 0xFF, 0xFF])]),
                "geo-0.bin: byte 41: the data ends inside a number (truncated?)"
            ),
            (
                ResourceTests.levelFile(tiles: [(0, 0, [2, 1, 2, 0, 0, 0xC8, 0x01, 0])]),
                "geo-0.bin: byte 41: point (100, 0) is outside its tile (0 to 90)"
            ),
            (
                ResourceTests.levelFile(tiles: [(0, 0, [0, 1, 2, 0, 0, 2, 2])]),
                "geo-0.bin: byte 38: a part of 2 points (a ring needs 3, and 4 bytes hold at most 2)"
            ),
        ] as [([UInt8], String)])
    func aBrokenLevelFileSaysWhereAndWhat(bytes: [UInt8], expected: String) {
        #expect(throws: MapError.self) { try GeoLevel(bytes: bytes, expectedIndex: 0, file: "geo-0.bin") }
        do {
            _ = try GeoLevel(bytes: bytes, expectedIndex: 0, file: "geo-0.bin")
        } catch {
            #expect(error.description == expected)
        }
    }

    /// Every truncation of a real level file and random damage to it: an error or a level, never a crash.
    @Test func truncatedOrDamagedLevelsNeverCrash() throws {
        let real = try [UInt8](Data(contentsOf: MapResources.locate().geography(level: 0)))
        for length in stride(from: 0, to: min(real.count, 4000), by: 7) {
            #expect(throws: MapError.self) {
                try GeoLevel(bytes: Array(real.prefix(length)), expectedIndex: 0, file: "geo-0.bin")
            }
        }
        var generator = SplitMix64(seed: 14)
        for _ in 0..<40 {
            var damaged = real
            for _ in 0..<8 {
                damaged[Int(generator.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            _ = try? GeoLevel(bytes: damaged, expectedIndex: 0, file: "geo-0.bin")
        }
    }

    /// A damaged or missing data file: the Map still starts, shows what loaded and says which
    /// file was not; a missing Info.plist or region type is an error.
    @Test func aDamagedDataFileIsNamedAndTheMapShowsWhatLoaded() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("MapAppTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let real = try MapResources.locate()
        let copy = MapResources(folder: folder)
        #expect(throws: MapError.self) { try MapApp(resources: copy) }
        try Self.copyDamaged(real, to: copy)

        let map = try MapApp(resources: copy)
        #expect(map.data.geography.levels[2] == nil && map.data.geography.levels[3] != nil)
        #expect(map.data.problems.count == 2)
        #expect(map.data.problems.first?.description.hasPrefix("geo-2.bin: ") == true, "\(map.data.problems)")
        #expect(map.data.problems.first?.description.contains("truncated") == true)
        guard case .unreadable(let file, _) = map.data.problems.last else {
            Issue.record("\(map.data.problems)")
            return
        }
        #expect(file == "places.tsv")
        let message = try #require(map.message)
        #expect(message.kind == .warning && message.text.contains("geo-2.bin") && message.text.contains("1 more file"))
        // Zoom 2 (level 2's) is drawn from the nearest level that loaded: land is there.
        let grid = render(map, MapCamera(latitude: 40, longitude: -4, zoom: 2), width: 60, height: 20)
        #expect(grid.text().contains("⣿"))
        #expect(grid.text().contains("geo-2.bin"), "the message is on screen")
        // A manifest without the region type.
        let plist = try String(contentsOf: real.infoPlist, encoding: .utf8).replacingOccurrences(
            of: ".region", with: ".place")
        try plist.write(to: copy.infoPlist, atomically: true, encoding: .utf8)
        #expect(throws: MapError.noRegionActivity(file: copy.infoPlist.path)) { try MapApp(resources: copy) }
    }

    /// `real` copied to `copy` but for a truncated level 2 and no places.tsv.
    static func copyDamaged(_ real: MapResources, to copy: MapResources) throws {
        try FileManager.default.copyItem(at: real.infoPlist, to: copy.infoPlist)
        for level in MapGeography.levelZooms.indices where level != 2 {
            try FileManager.default.copyItem(at: real.geography(level: level), to: copy.geography(level: level))
        }
        let level2 = try Data(contentsOf: real.geography(level: 2))
        try level2.prefix(level2.count / 2).write(to: copy.geography(level: 2))  // truncated
        try FileManager.default.copyItem(at: real.countries, to: copy.countries)  // no places.tsv
    }

    /// A Map made from its resources reads none of its data until something needs it (a terminal
    /// device reads it after its first frame); once a reading it did not start ends, the launched
    /// Map logs what could not be read and shows the warning, on its device's run loop.
    @Test func aMapFromResourcesReadsItsDataLaterAndThenSaysWhatCouldNotBeRead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("MapAppTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = MapResources(folder: folder)
        try Self.copyDamaged(MapResources.locate(), to: copy)
        let read = Mutex(false)
        let map = try MapApp(resources: copy)
        let hood = Neighbourhood()
        let device = hood.addDevice("Mac", kind: .laptop)
        let application = device.install(map.manifest, delegate: map.delegate)
        let logged = Mutex<[String]>([])
        let queued = Mutex<[@Sendable () -> Void]>([])
        map.launch(
            application: application,
            environment: AppEnvironment(
                deviceName: "Mac", cloudFolder: nil, localFolder: folder, now: { Date() },
                log: { line in logged.withLock { $0.append(line) } },
                perform: { work in queued.withLock { $0.append(work) } }))
        MapData.whenRead(copy) { _ in read.withLock { $0 = true } }
        #expect(!read.withLock { $0 } && map.message == nil && logged.withLock { $0 }.isEmpty)

        _ = MapData.load(copy)  // as the device's reading after its first frame
        #expect(read.withLock { $0 })
        #expect(map.message == nil && logged.withLock { $0 }.isEmpty, "nothing changes off the run loop")
        let work = queued.withLock { $0 }
        #expect(work.count == 1)
        work.forEach { $0() }
        let lines = logged.withLock { $0 }
        #expect(lines.count == 2 && lines.first?.hasPrefix("Map: geo-2.bin: ") == true, "\(lines)")
        let message = try #require(map.message)
        #expect(message.kind == .warning && message.text.contains("geo-2.bin"))
        // Read once: a later use reads nothing again and logs nothing more.
        _ = map.renderer
        #expect(logged.withLock { $0 }.count == 2)
    }

    /// What a terminal device calls after its first frame reads the data a launched Map waits
    /// for, on a thread of its own; nothing when no Map waits.
    @Test func readingWhatLaunchedMapsAwaitReadsTheirFolders() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("MapAppTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = MapResources(folder: folder)
        try Self.copyDamaged(MapResources.locate(), to: copy)
        let map = try MapApp(resources: copy)
        let hood = Neighbourhood()
        let application = hood.addDevice("Mac", kind: .laptop).install(map.manifest, delegate: map.delegate)
        let queued = Mutex<[@Sendable () -> Void]>([])
        map.launch(
            application: application,
            environment: AppEnvironment(
                deviceName: "Mac", cloudFolder: nil, localFolder: folder, now: { Date() }, log: { _ in },
                perform: { work in queued.withLock { $0.append(work) } }))
        #expect(queued.withLock { $0 }.isEmpty)

        MapData.readAwaited()
        let deadline = ContinuousClock.now + .seconds(30)
        while queued.withLock({ $0.isEmpty }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let work = queued.withLock { $0 }
        #expect(work.count == 1, "the launched Map heard of the reading")
        work.forEach { $0() }
        #expect(map.message?.kind == .warning)
    }
}
