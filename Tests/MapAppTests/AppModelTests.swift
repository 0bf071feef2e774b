import DeviceAppKit
import Foundation
import HandoffCore
import HandoffTestSupport
import TerminalCells
import Testing

@testable import MapApp

/// The Map with the app delegate and with scenes: cold and warm launches, quitting, and pages of
/// its web site.
@Suite("The Map in either app model")
struct MapAppModelTests {
    /// A device running a Map of `model`, installed as the device screen installs it; not running
    /// until ``open()``.
    final class Phone {
        let device: Device
        let map: MapApp
        let application: Application

        init(
            _ name: String, kind: PeerInfo.Kind, model: AppModel, in hood: Neighbourhood, approvesSite: Bool = false
        ) throws {
            device = hood.addDevice(name, kind: kind, configuration: DeviceConfiguration(saveCoalescingInterval: 60))
            if approvesSite {
                let device = self.device
                device.siteAssociationVerifier = { request in
                    for domain in request.domains {
                        device.siteAssociationChecked(
                            SiteAssociationCheck(
                                bundleIdentifier: request.bundleIdentifier,
                                applicationIdentifier: request.applicationIdentifier,
                                domain: domain, outcome: .approved, checkedAt: hood.clock.now,
                                expiresAt: hood.clock.now + 3600))
                    }
                }
            }
            map = try MapApp(model: model)
            application = device.install(map.manifest, delegate: map.delegate, sceneDelegates: map.sceneDelegateClasses)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "MapAppTests-unused", isDirectory: true)
            map.launch(
                application: application,
                environment: AppEnvironment(
                    deviceName: name, cloudFolder: nil, localFolder: folder, perform: { _ in }))
            map.viewportChanged(to: Size(width: 60, height: 20))
        }

        func open() {
            device.bringToFront(application)
            map.setFrontmost(true)
        }

        func quit() {
            map.setFrontmost(false)
            device.bringToFront(nil)
            device.terminate(application)
            map.terminate()
        }

        var launches: [LaunchKind] {
            device.lifecycle.compactMap { event in
                if case .applicationLaunched(_, _, let kind) = event.occurrence { kind } else { nil }
            }
        }

        var kinds: [LifecycleEvent.Kind] { device.lifecycle.map(\.kind) }
    }

    /// A laptop (app delegate) showing Lisbon, and a phone whose Map of `model` is not running.
    final class World {
        let hood = Neighbourhood()
        let laptop: Phone
        let phone: Phone

        init(_ model: AppModel) throws {
            laptop = try Phone("Laptop", kind: .laptop, model: .delegate, in: hood)
            phone = try Phone("Phone", kind: .phone, model: model, in: hood)
            laptop.open()
            laptop.map.show(MapCamera(latitude: 38.72, longitude: -9.14, zoom: 5))
            hood.advance(by: 61)
        }

        func continueOnPhone() {
            phone.device.chooseOffer(from: laptop.device.info.id)
            hood.settle()
        }
    }

    @Test func aColdLaunchWithScenesConnectsTheSceneWithTheTypeThenShowsTheRegion() throws {
        let world = try World(.scenes)
        let phone = world.phone
        phone.device.chooseOffer(from: world.laptop.device.info.id)
        #expect(phone.application.connectedScenes.count == 1)
        #expect(phone.map.isContinuing, "willConnectTo with the type shows that a region is coming")
        world.hood.settle()
        #expect(phone.launches == [.cold])
        let order: [LifecycleEvent.Kind] = [
            .applicationLaunched, .sceneWillConnect, .sceneWillContinue, .sceneContinue, .continued,
        ]
        #expect(phone.kinds.filter(order.contains) == order)
        let connected = phone.device.lifecycle.compactMap { event -> String?? in
            if case .sceneWillConnect(_, _, _, let type) = event.occurrence { type } else { nil }
        }
        #expect(connected == [.some("com.handoffsim.map.region")])
        #expect(!phone.map.isContinuing)
        #expect(abs(phone.map.camera.latitude - 38.72) < 0.01 && abs(phone.map.camera.longitude + 9.14) < 0.01)
    }

    @Test(arguments: AppModel.allCases)
    func warmThenQuitThenColdAgain(_ model: AppModel) throws {
        let world = try World(model)
        let phone = world.phone
        phone.open()
        #expect(
            phone.application.connectedScenes.count == (model == .scenes ? 1 : 0), "opening the Map connects its scene")
        phone.device.bringToFront(nil)
        world.continueOnPhone()
        #expect(phone.launches == [.warm])
        #expect(abs(phone.map.camera.latitude - 38.72) < 0.01)

        phone.quit()
        #expect(phone.map.activity == nil && phone.map.camera == .world, "the Map starts afresh, as a new process")
        #expect(phone.application.connectedScenes.isEmpty)
        world.continueOnPhone()
        #expect(phone.launches == [.warm, .cold])
        #expect(abs(phone.map.camera.latitude - 38.72) < 0.01)
        #expect(phone.kinds.contains(.continued))
    }

    @Test func bothModelsLoadTheEntitlementsAndOnlyScenesHaveASceneManifest() throws {
        let delegate = try MapApp(model: .delegate).manifest
        let scenes = try MapApp(model: .scenes).manifest
        #expect(delegate.sceneManifest == nil)
        #expect(scenes.sceneManifest?.configurations.first?.delegateClass == String(reflecting: MapSceneDelegate.self))
        var withoutScenes = scenes
        withoutScenes.sceneManifest = nil
        #expect(withoutScenes == delegate, "Info-Scenes.plist is Info.plist with a scene manifest")
        #expect(delegate.activityContinuationDomains == ["maps.handoffsim.example"])
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for name in ["Info-Scenes.plist", "Map.entitlements"] {
            #expect(
                root.appendingPathComponent("demos/apps/Map/\(name)").resolvingSymlinksInPath().path
                    == root.appendingPathComponent("Sources/MapApp/Resources/\(name)").resolvingSymlinksInPath().path)
        }
        #expect(try AppManifest(appAt: root.appendingPathComponent("demos/apps/Map/Info-Scenes.plist")) == scenes)
    }

    // MARK: Pages of the Map's web site

    @Test(arguments: AppModel.allCases)
    func aPageOfTheMapsSiteShowsItsViewFromAnEmptyUserInfo(_ model: AppModel) throws {
        let hood = Neighbourhood()
        let laptop = hood.addDevice("Laptop", kind: .laptop)
        let browser = laptop.install(TestManifests.browser)
        laptop.bringToFront(browser)
        let phone = try Phone("Phone", kind: .phone, model: model, in: hood, approvesSite: true)
        let activity = try UserActivity(activityType: UserActivity.browsingWebType, application: browser)
        try activity.setWebpageURL(URL(string: "https://maps.handoffsim.example/?lat=48.8566&lon=2.3522&z=6.5"))
        activity.becomeCurrent()
        hood.settle()
        phone.device.chooseOffer(from: laptop.info.id)
        hood.settle()

        let received = phone.device.lifecycle.compactMap { event -> UserInfo? in
            if case .payloadReceived(_, _, UserActivity.browsingWebType, _, _, let userInfo) = event.occurrence {
                userInfo
            } else {
                nil
            }
        }
        #expect(received == [[:]], "the system hands the page only")
        #expect(
            phone.device.lifecycle.contains {
                if case .webRouted(_, "maps.handoffsim.example", "com.handoffsim.map", _) = $0.occurrence {
                    true
                } else {
                    false
                }
            })
        #expect(phone.map.camera == MapCamera(latitude: 48.8566, longitude: 2.3522, zoom: 6.5))
        #expect(phone.map.message == nil)
        #expect(phone.kinds.contains(.continued))
    }

    @Test func webPagesAreReadStrictly() throws {
        let camera = MapCamera(latitude: -33.87, longitude: 151.21, zoom: 7.25)
        #expect(try MapCamera(webpageURL: camera.webpageURL) == camera, "every address the Map writes reads back")
        for bad in [
            "https://reader.handoffsim.example/?lat=1&lon=2&z=3", "https://maps.handoffsim.example/",
            "https://maps.handoffsim.example/?lat=91&lon=0&z=1", "https://maps.handoffsim.example/?lat=1&lon=0&z=11",
            "https://maps.handoffsim.example/?lat=1&lon=nan&z=1", "https://maps.handoffsim.example/?lat=1&z=1",
        ] {
            #expect(throws: MapWebError.self, "\(bad)") { try MapCamera(webpageURL: URL(string: bad)!) }
        }
    }

    @Test func aBadPageKeepsTheMapAndSaysWhy() throws {
        let hood = Neighbourhood()
        let phone = try Phone("Phone", kind: .phone, model: .delegate, in: hood)
        phone.open()
        let before = phone.map.camera
        let activity = try UserActivity(activityType: UserActivity.browsingWebType, application: phone.application)
        try activity.setWebpageURL(URL(string: "https://maps.handoffsim.example/?lat=12"))
        let handled = phone.map.application(phone.application, continue: activity) { _ in }
        #expect(!handled)
        #expect(phone.map.camera == before)
        #expect(phone.map.message?.text.contains("lon (the longitude) is missing") == true)
    }
}
