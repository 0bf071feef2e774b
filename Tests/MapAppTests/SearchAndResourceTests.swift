import Foundation
import HandoffCore
import HandoffManifest
@testable import MapApp
import TerminalCells
import Testing

@Suite("Search")
struct SearchTests {
    @Test func findsByNameIgnoringCaseAndAccents() throws {
        let catalog = try standaloneMap().renderer.cities
        #expect(catalog.cities.count == 243)
        #expect(catalog.search("sao paulo").first?.name == "São Paulo")
        #expect(catalog.search("TOKYO").first?.name == "Tokyo")
        #expect(catalog.search("par").first?.name == "Paris", "a prefix; the biggest country's first among equals")
        #expect(catalog.search("york").map(\.name).contains("New York"), "a word of the name")
        #expect(catalog.search("japan").map(\.name).contains("Osaka"), "by country")
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
        #expect(laptop.map.camera == MapCamera(latitude: -12.0461, longitude: -77.052, zoom: MapApp.searchZoom))
        #expect(laptop.map.highlighted?.name == "Lima")
        #expect(activity.needsSave)
        #expect(laptop.render(width: 80, height: 24).line(11).contains("◉ Lima"))
        // The next move drops the highlight.
        laptop.press(.left)
        #expect(laptop.map.highlighted == nil)
    }

    @Test func typingInTheFieldIsNotTheDevicesKeys() throws {
        let world = try MapWorld()
        let laptop = world.laptop
        laptop.press(.character("/"))
        laptop.type("l?0+h")   // the log, help, world, zoom and home keys elsewhere
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
        for key: Key in [.character("/"), .character("q"), .character("q"), .enter] { #expect(map.handle(key)) }
        #expect(map.message == MapMessage(.warning, "No city matches “qq”."))
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
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let plist = root.appendingPathComponent("demos/apps/Map/Info.plist")
        let source = root.appendingPathComponent("Sources/MapApp/Resources/Info.plist")
        #expect(plist.resolvingSymlinksInPath().path == source.resolvingSymlinksInPath().path)
        // With the entitlements beside it (a link to the module's too), as the Map loads them.
        #expect(try AppManifest(appAt: plist) == MapApp().manifest)
        // `handoff manifest lint` reads the app's settings from the file next to its Info.plist.
        let settings = try BuildSettingsFile(contentsOf: root.appendingPathComponent("demos/apps/Map/BuildSettings.xcconfig")).settings
        #expect(settings == MapApp.buildSettings)
    }

    @Test func theGeographyIsSmall() throws {
        let folder = try MapResources.locate().folder
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let total = try files.reduce(0) { sum, name in
            sum + ((try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size] as? Int) ?? 0)
        }
        #expect(total < 819_200, "\(total) bytes: under 800 KB (the country borders took it past 700 KB)")
    }

    @Test(arguments: [
        ("Paris\t48.86\n", "cities.tsv:1: expected at least 3 tab-separated fields (name, latitude, longitude), found 2"),
        ("# comment\nParis\tnorth\t2.35\n", "cities.tsv:2: latitude \"north\" is not a number from -90 to 90"),
        ("Paris\t48.86\t2.35\nX\t1\t200\n", "cities.tsv:2: longitude \"200\" is not a number from -180 to 180"),
        ("Paris\t48.86\tnan\n", "cities.tsv:1: longitude \"nan\" is not a number from -180 to 180"),
        ("\t1\t2\n", "cities.tsv:1: the name must be 1 to 80 printable characters"),
        ("Paris\t48.86\t2.35\tFRA\tFrance\t-5\n", "cities.tsv:1: country population \"-5\" is not a whole number from 0"),
        ("# only comments\n", "cities.tsv: no cities"),
    ])
    func aBrokenCityFileNamesTheLineAndTheField(text: String, expected: String) {
        #expect(throws: MapError.self) { try CityCatalog(tsv: text) }
        do {
            _ = try CityCatalog(tsv: text)
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test func aBrokenMaskSaysWhatIsWrong() {
        #expect(throws: MapError.malformed(file: "land-360x180.bin", line: nil,
                                           reason: "100 bytes, expected 8100 for 360x180 cells at 1 bit each")) {
            try LandMask(width: 360, packed: [UInt8](repeating: 0, count: 100), file: "land-360x180.bin")
        }
        #expect(throws: MapError.self) { try LandMask(width: 100, packed: []) }
        #expect(throws: MapError.self) { try LandAtlas(masks: []) }
    }

    @Test(arguments: [
        ([0x80], "borders.rle: byte 0: the file ends inside a run length"),
        ([0x80, 0x80, 0x80, 0x80, 0x80, 0x01], "borders.rle: byte 0: a run length longer than 5 bytes"),
        ([0x05, 0x00, 0x03], "borders.rle: byte 1: a run of 0 cells (only the first run may be empty)"),
        ([0x00, 0x80, 0x02], "borders.rle: byte 1: a run of 256 cells goes past the 32 cells of 8x4"),
        ([0xFF, 0xFF, 0xFF, 0xFF, 0x0F], "borders.rle: byte 0: a run of 4294967295 cells goes past the 32 cells of 8x4"),
        ([0x05, 0x03], "borders.rle: the runs cover 8 cells, expected 32 for 8x4"),
        ([], "borders.rle: the runs cover 0 cells, expected 32 for 8x4"),
    ] as [([UInt8], String)])
    func aBrokenBorderFileSaysWhereAndWhat(bytes: [UInt8], expected: String) {
        #expect(throws: MapError.self) { try LandMask(width: 8, runLengths: bytes, file: "borders.rle") }
        do {
            _ = try LandMask(width: 8, runLengths: bytes, file: "borders.rle")
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test func borderRunsDecodeToCells() throws {
        // 3 unset, 2 set, 26 unset, 1 set: cells 3, 4 and 31 of 8x4.
        let mask = try LandMask(width: 8, runLengths: [0x03, 0x02, 0x1A, 0x01])
        let set = (0..<4).flatMap { row in (0..<8).filter { mask.isLand(row: row, column: $0) }.map { row * 8 + $0 } }
        #expect(set == [3, 4, 31])
        // A first run of 0: the grid starts set; a 2-byte varint (128 + 3 = 131 > 32 cells) fails.
        #expect(try LandMask(width: 8, runLengths: [0x00, 0x20]).isLand(row: 3, column: 7))
        #expect(throws: MapError.self) { try LandMask(width: 12, runLengths: [0x18]) }
        #expect(throws: MapError.self) { try LandAtlas(masks: [LandMask(width: 8, packed: [0, 0, 0, 0])],
                                                       borders: [LandMask(width: 16, runLengths: [0x80, 0x01])]) }
    }

    @Test func missingResourcesAreAnErrorNotACrash() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("MapAppTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let real = try MapResources.locate()
        try FileManager.default.copyItem(at: real.infoPlist, to: folder.appendingPathComponent("Info.plist"))
        let error = try #require(throws: MapError.self) { try MapApp(resources: MapResources(folder: folder)) }
        guard case .unreadable(let file, _) = error else { Issue.record("\(error)"); return }
        #expect(file == "land-360x180.bin")
        // A manifest without the region type.
        let plist = try String(contentsOf: real.infoPlist, encoding: .utf8).replacingOccurrences(of: ".region", with: ".place")
        for width in LandAtlas.widths {
            try FileManager.default.copyItem(at: real.landMask(width: width), to: MapResources(folder: folder).landMask(width: width))
        }
        let noBorders = try #require(throws: MapError.self) { try MapApp(resources: MapResources(folder: folder)) }
        guard case .unreadable(let borderFile, _) = noBorders else { Issue.record("\(noBorders)"); return }
        #expect(borderFile == "borders-720x360.rle")
        for width in LandAtlas.borderWidths {
            try FileManager.default.copyItem(at: real.borderMask(width: width), to: MapResources(folder: folder).borderMask(width: width))
        }
        try FileManager.default.copyItem(at: real.cities, to: folder.appendingPathComponent("cities.tsv"))
        try plist.write(to: folder.appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
        #expect(throws: MapError.noRegionActivity(file: folder.appendingPathComponent("Info.plist").path)) {
            try MapApp(resources: MapResources(folder: folder))
        }
    }
}
