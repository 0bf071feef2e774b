import Foundation
import HandoffCore
import HandoffTestSupport
import TerminalCells
import Testing

@testable import MapApp

@Suite("Handing off the region")
struct HandoffTests {
    @Test func launchingMakesTheRegionActivityCurrent() throws {
        let world = try MapWorld()
        let activity = try #require(world.laptop.map.activity)
        #expect(activity.activityType == "com.handoffsim.map.region")
        #expect(world.laptop.map.regionActivityType == "com.handoffsim.map.region")
        #expect(world.laptop.device.currentActivity === activity)
        #expect(activity.webpageURL?.absoluteString == "https://maps.handoffsim.example/?lat=10&lon=0&z=0")
    }

    /// The zooms of the Map's web page (the Browser's `MapQuery.zooms`): the two apps cannot
    /// import each other, so this pins the contract the Browser's tests pin too.
    static let webPageZooms = -1.0...10.0

    /// The `z` of a map address, read the way the Browser reads it.
    static func zoom(in url: URL?) -> Double? {
        guard let url, let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems,
            let text = items.first(where: { $0.name == "z" })?.value
        else { return nil }
        return Double(text)
    }

    @Test func everyZoomTheMapCanShowIsOneItsWebPageAccepts() throws {
        #expect(MapCamera.minimumZoom...MapCamera.maximumZoom == Self.webPageZooms, "the Map's range is its web page's")
        // Every zoom the Map allows, in steps of 0.005 (fractional and negative ones included),
        // at several latitudes and longitudes.
        var zoom = MapCamera.minimumZoom - 0.5
        while zoom <= MapCamera.maximumZoom + 0.5 {
            for (latitude, longitude) in [(0.0, 0.0), (-89.99999, -179.99999), (89.99999, 179.99999), (38.72, -9.14)] {
                let camera = MapCamera(latitude: latitude, longitude: longitude, zoom: zoom)
                let z = try #require(Self.zoom(in: camera.webpageURL), "\(camera.webpageURL)")
                #expect(Self.webPageZooms.contains(z), "zoom \(zoom) is written as z=\(z)")
                #expect(abs(z - camera.zoom) <= 0.005, "z=\(z) names the zoom shown (\(camera.zoom))")
            }
            zoom += 0.005
        }
        // `0` (the whole world) fits the world into the view: a negative, fractional zoom.
        let world = try MapWorld()
        let laptop = world.laptop
        for (width, height) in [(80, 24), (60, 18), (200, 60), (40, 12), (150, 44)] {
            _ = laptop.render(width: width, height: height)
            laptop.press(.character("+"), .character("0"))
            let activity = try #require(laptop.map.activity)
            let z = try #require(Self.zoom(in: activity.webpageURL))
            #expect(Self.webPageZooms.contains(z), "\(width)x\(height): \(activity.webpageURL?.absoluteString ?? "")")
            // Zooming out from there and in to the end stays in the range.
            for key: Key in [.character("-"), .character("-"), .character("+")]
                + Array(repeating: .character("+"), count: 9)
            {
                _ = laptop.map.handle(key)
                #expect(Self.webPageZooms.contains(try #require(Self.zoom(in: activity.webpageURL))))
            }
        }
        _ = laptop.render(width: 80, height: 24)
        laptop.press(.character("0"))
        #expect(
            laptop.map.camera.zoom < 0 && laptop.map.camera.zoom > -1, "the whole world is a negative, fractional zoom")
        let z = try #require(Self.zoom(in: laptop.map.activity?.webpageURL))
        #expect(z < 0 && abs(z - laptop.map.camera.zoom) <= 0.005, "z=\(z)")
    }

    @Test func everyRegionChangeSetsNeedsSave() throws {
        let world = try MapWorld()
        let laptop = world.laptop
        _ = laptop.render(width: 80, height: 24)
        let activity = try #require(laptop.map.activity)
        world.hood.advance(by: 61)
        #expect(!activity.needsSave)
        for key: Key in [.left, .right, .up, .down, .character("+"), .character("-"), .character("=")] {
            let before = laptop.map.camera
            laptop.press(key)
            #expect(laptop.map.camera != before, "\(key) moves the map")
            #expect(activity.needsSave, "\(key) sets needsSave")
            world.hood.advance(by: 61)
            #expect(!activity.needsSave, "saved")
        }
        // Keys that do not move the map do not ask for a save.
        laptop.press(.character("m"))
        #expect(!activity.needsSave)
        // Zooming past the closest zoom changes nothing, so nothing needs saving.
        for _ in 0..<10 { laptop.press(.character("+")) }
        world.hood.advance(by: 61)
        laptop.press(.character("+"))
        #expect(laptop.map.camera.zoom == MapCamera.maximumZoom)
        #expect(!activity.needsSave)
    }

    @Test func savingWritesTheVisibleRegionAsPlainNumbersAndTheWebPage() throws {
        let world = try MapWorld()
        let laptop = world.laptop
        laptop.map.show(MapCamera(latitude: 48, longitude: 2, zoom: 3))
        _ = laptop.render(width: 80, height: 24)  // a 80x23 map
        world.hood.advance(by: 61)
        let activity = try #require(laptop.map.activity)
        let step = 360.0 / (128 * 8)
        #expect(
            activity.userInfo == [
                "latitude": .double(48), "longitude": .double(2),
                "latitudeDelta": .double(23 * 2 * step), "longitudeDelta": .double(80 * step),
            ])
        #expect(activity.webpageURL == URL(string: "https://maps.handoffsim.example/?lat=48&lon=2&z=3"))
        laptop.press(.right)  // a quarter of the view east: 20 columns
        #expect(activity.webpageURL == URL(string: "https://maps.handoffsim.example/?lat=48&lon=9.0312&z=3"))
    }

    @Test func theRegionSurvivesThePayloadEncoding() throws {
        let world = try MapWorld()
        let laptop = world.laptop
        _ = laptop.render(width: 100, height: 31)
        laptop.map.show(MapCamera(latitude: -33.9, longitude: 151.2, zoom: 4.5))
        world.hood.advance(by: 61)
        let activity = try #require(laptop.map.activity)
        let payload = try ActivityPayload(decoding: activity.makePayload().encoded())
        #expect(payload.activityType == "com.handoffsim.map.region")
        #expect(payload.bundleIdentifier == "com.handoffsim.map")
        #expect(payload.teamIdentifier == "SIMTEAM001")
        #expect(payload.webpageURL?.host == "maps.handoffsim.example")
        for key in ["latitude", "longitude", "latitudeDelta", "longitudeDelta"] {
            guard case .double = payload.userInfo[key] else {
                Issue.record("\(key) is a plain number, not \(String(describing: payload.userInfo[key]))")
                continue
            }
        }
        let region = try MapRegion(userInfo: payload.userInfo)
        #expect(region == laptop.map.visibleRegion)
        // On a screen of the same size, the same camera.
        let camera = MapCamera(fitting: region, in: laptop.map.viewport)
        #expect(abs(camera.zoom - 4.5) < 1e-9)
        #expect(camera.latitude == -33.9 && camera.longitude == 151.2)
    }

    @Test func theOtherDeviceShowsTheSameRegion() throws {
        let world = try MapWorld()
        let (laptop, phone) = (world.laptop, world.phone)
        _ = laptop.render(width: 80, height: 24)
        _ = phone.render(width: 80, height: 24)
        laptop.press(.character("/"))
        laptop.type("tokyo")
        laptop.press(.enter, .character("+"), .left)
        world.hood.settle()
        let offer = try #require(phone.device.system.offers[laptop.device.info.id])
        #expect(offer.route == .app(bundleIdentifier: "com.handoffsim.map", activityType: "com.handoffsim.map.region"))

        phone.device.chooseOffer(from: laptop.device.info.id)
        #expect(phone.map.isContinuing)
        #expect(phone.render(width: 80, height: 24).text().contains("Opening a region from another device…"))
        world.hood.settle()
        #expect(!phone.map.isContinuing)
        #expect(phone.map.message == nil)
        #expect(phone.map.camera == laptop.map.camera)
        #expect(phone.map.visibleRegion == laptop.map.visibleRegion)
        #expect(phone.device.lifecycle.contains { $0.kind == .restoreUserActivityState })
        #expect(
            phone.render(width: 80, height: 24).text()
                == laptop.render(width: 80, height: 24).text()
                .replacingOccurrences(of: "◉", with: "●"),
            "the same picture (the found city is highlighted on the laptop only)")
        // The phone's region is its own activity, and it needs saving with the new region.
        #expect(phone.map.activity?.isCurrent == true)
        #expect(phone.map.activity?.webpageURL == laptop.map.activity?.webpageURL)
    }

    @Test func aSmallerScreenShowsTheWholeRegion() throws {
        let world = try MapWorld()
        let (laptop, phone) = (world.laptop, world.phone)
        _ = laptop.render(width: 160, height: 48)
        laptop.map.show(MapCamera(latitude: 40, longitude: -100, zoom: 3))
        _ = phone.render(width: 40, height: 20)
        world.hood.settle()
        phone.device.chooseOffer(from: laptop.device.info.id)
        world.hood.settle()
        let sent = laptop.map.visibleRegion
        let shown = phone.map.visibleRegion
        #expect(phone.map.camera.latitude == 40 && phone.map.camera.longitude == -100)
        #expect(shown.longitudeDelta >= sent.longitudeDelta - 1e-9, "the whole width fits")
        #expect(shown.latitudeDelta >= sent.latitudeDelta - 1e-9 || shown.latitudeDelta == 180)
        #expect(abs(phone.map.camera.zoom - 1) < 1e-9, "160 columns into 40: two zoom steps out")
    }

    /// Activities of the Map's type with hostile values: a clear message, and the map stays.
    @Test(
        arguments: [
            (
                ["longitude": 2, "latitudeDelta": 10, "longitudeDelta": 20] as UserInfo,
                "The activity has no \"latitude\", so there is no region to show. Nothing changed here."
            ),
            (
                ["latitude": "48", "longitude": 2, "latitudeDelta": 10, "longitudeDelta": 20],
                "The activity's \"latitude\" is \"48\" (String), not a latitude from -90 to 90. Nothing changed here."
            ),
            (
                ["latitude": 91.5, "longitude": 2, "latitudeDelta": 10, "longitudeDelta": 20],
                "The activity's \"latitude\" is 91.5 (Number(floating point)), not a latitude from -90 to 90. Nothing changed here."
            ),
            (
                ["latitude": .double(.nan), "longitude": 2, "latitudeDelta": 10, "longitudeDelta": 20],
                "The activity's \"latitude\" is nan (Number(floating point)), not a latitude from -90 to 90. Nothing changed here."
            ),
            (
                ["latitude": 48, "longitude": .double(.infinity), "latitudeDelta": 10, "longitudeDelta": 20],
                "The activity's \"longitude\" is inf (Number(floating point)), not a longitude from -180 to 180. Nothing changed here."
            ),
            (
                ["latitude": 48, "longitude": 2, "latitudeDelta": 0, "longitudeDelta": 20],
                "The activity's \"latitudeDelta\" is 0 (Number(integer)), not a span above 0 and at most 180 degrees. Nothing changed here."
            ),
            (
                ["latitude": 48, "longitude": 2, "latitudeDelta": 10, "longitudeDelta": -3],
                "The activity's \"longitudeDelta\" is -3 (Number(integer)), not a span above 0 and at most 360 degrees. Nothing changed here."
            ),
            (
                ["latitude": 48, "longitude": 2, "latitudeDelta": 10, "longitudeDelta": .data(Data([1, 2, 3]))],
                nil
            ),
            ([:], "The activity has no \"latitude\", so there is no region to show. Nothing changed here."),
        ] as [(UserInfo, String?)])
    func aBadRegionKeepsTheMapAndSaysWhy(userInfo: UserInfo, expected: String?) throws {
        let world = try MapWorld()
        let (laptop, phone) = (world.laptop, world.phone)
        phone.map.show(MapCamera(latitude: 10, longitude: 20, zoom: 2))
        let before = phone.map.camera
        let hostile = try UserActivity(activityType: "com.handoffsim.map.region", application: laptop.application)
        hostile.addUserInfoEntries(from: userInfo)
        hostile.becomeCurrent()
        world.hood.settle()
        phone.device.chooseOffer(from: laptop.device.info.id)
        world.hood.settle()
        #expect(phone.map.camera == before)
        let message = try #require(phone.map.message)
        #expect(message.kind == .error)
        if let expected {
            #expect(message.text == expected)
        } else {
            #expect(message.text.contains("\"longitudeDelta\""))
        }
        #expect(
            phone.render(width: 80, height: 24).text().contains(message.text.prefix(40)), "the message is on screen")
        #expect(phone.logLines.contains { $0.contains("could not restore") })
        phone.press(.left)
        #expect(phone.map.message == nil, "the next key clears the message")
    }

    @Test func aTinyRegionIsShownAtTheClosestZoomAndSaysSo() throws {
        let world = try MapWorld()
        let (laptop, phone) = (world.laptop, world.phone)
        let activity = try UserActivity(activityType: "com.handoffsim.map.region", application: laptop.application)
        activity.addUserInfoEntries(
            from: MapRegion(latitude: 51.5, longitude: -0.12, latitudeDelta: 1e-9, longitudeDelta: 1e-9).userInfo)
        activity.becomeCurrent()
        world.hood.settle()
        phone.device.chooseOffer(from: laptop.device.info.id)
        world.hood.settle()
        #expect(phone.map.camera == MapCamera(latitude: 51.5, longitude: -0.12, zoom: MapCamera.maximumZoom))
        #expect(phone.map.message?.kind == .warning)
    }

    @Test func aFailedContinuationIsShownInTheApp() throws {
        let world = try MapWorld()
        let (laptop, phone) = (world.laptop, world.phone)
        let before = phone.map.camera
        phone.device.chooseOffer(from: laptop.device.info.id)
        world.hood.remove(laptop.device)
        world.hood.advance(by: 10)
        #expect(!phone.map.isContinuing)
        #expect(phone.map.camera == before)
        #expect(phone.map.message?.text.hasPrefix("Could not continue: ") == true)
    }
}

@Suite("Region values")
struct RegionTests {
    @Test func camerasClampAndWrap() {
        #expect(
            MapCamera(latitude: 95, longitude: 190, zoom: 20)
                == MapCamera(latitude: 90, longitude: -170, zoom: MapCamera.maximumZoom))
        #expect(
            MapCamera(latitude: .nan, longitude: -.infinity, zoom: .nan)
                == MapCamera(latitude: 0, longitude: 0, zoom: 0))
        #expect(MapCamera(latitude: 0, longitude: -180, zoom: -5).longitude == -180)
        #expect(MapCamera(latitude: 0, longitude: 180, zoom: -5).zoom == MapCamera.minimumZoom)
        #expect(
            MapCamera(latitude: 0, longitude: 170, zoom: 0).panned(columns: 10, rows: 0).longitude < -160,
            "panning east over the date line")
    }

    @Test func theRegionReadsIntegersAndWritesDoubles() throws {
        let region = try MapRegion(userInfo: [
            "latitude": 48, "longitude": 2, "latitudeDelta": 10, "longitudeDelta": 20,
        ])
        #expect(region == MapRegion(latitude: 48, longitude: 2, latitudeDelta: 10, longitudeDelta: 20))
        #expect(region.userInfo["latitude"] == .double(48))
    }

    @Test func theWebPageCarriesTheCentreAndTheZoom() {
        #expect(
            MapCamera(latitude: -33.86786, longitude: 151.20732, zoom: 4.5).webpageURL.absoluteString
                == "https://maps.handoffsim.example/?lat=-33.8679&lon=151.2073&z=4.5")
        #expect(MapRegion.format(-0.00001, decimals: 4) == "0")
    }
}

@Suite("The Map before it is opened")
struct MapLaunchTests {
    /// An app nobody opened describes nothing the user does: launching the Map records no
    /// lifecycle event; opening it creates its activity and makes it current.
    @Test func launchingRecordsNothingUntilTheUserOpensTheMap() throws {
        let hood = Neighbourhood()
        let laptop = try MapDevice("Laptop", kind: .laptop, in: hood, frontmost: false)
        hood.advance(by: 5)
        #expect(laptop.device.lifecycle.isEmpty, "\(laptop.device.lifecycle.map(\.logLine))")
        #expect(laptop.map.activity == nil)
        laptop.bringToFront()
        hood.settle()
        // Attached to the map view, the activity is due its first save (needsSaveSet), then current.
        #expect(laptop.device.lifecycle.map(\.kind).prefix(3) == [.activityCreated, .needsSaveSet, .becameCurrent])
        #expect(laptop.device.lifecycle.filter { $0.kind == .advertised }.count == 1, "one beacon change, one event")
    }
}
