import DeviceAppKit
import Foundation
import HandoffCore
import HandoffTestSupport
import TerminalCells
import Testing

@testable import ReaderApp

/// The Reader with the app delegate and with scenes: cold and warm launches, quitting, the window
/// (scene) a continuation goes to, the platforms' rules for the document's activity, and pages of
/// its web site.
@Suite("The Reader in either app model")
struct AppModelTests {
    /// Two devices of one account sharing a cloud folder: `origin` and `receiver`, each with a
    /// Reader of its own model; the receiver's is installed but not running unless `opened`.
    final class World {
        let folder = TemporaryFolder()
        let hood = Neighbourhood()
        let origin: ReaderDevice
        let receiver: ReaderDevice

        init(
            origin originKind: PeerInfo.Kind = .laptop, _ originModel: AppModel = .delegate,
            receiver receiverKind: PeerInfo.Kind = .phone, _ receiverModel: AppModel = .scenes, opened: Bool = false
        ) throws {
            let cloud = folder.folder("cloud")
            origin = try ReaderDevice(
                "Origin", kind: originKind, in: hood, cloudFolder: cloud, localFolder: folder.folder("origin"),
                model: originModel)
            receiver = try ReaderDevice(
                "Receiver", kind: receiverKind, in: hood, cloudFolder: cloud,
                localFolder: folder.folder("receiver"), model: receiverModel, opened: opened)
            hood.settle()
        }

        /// The origin reads `name` at `page`; its offer reaches the receiver.
        func read(_ name: String, page: Int) {
            origin.open(name)
            _ = origin.render(width: 60, height: 18)
            while (origin.reader.session?.position.page ?? 0) < page { origin.press(.pageDown) }
            hood.settle()
        }

        /// The receiver continues the origin's offer.
        func continueOnReceiver() {
            receiver.device.chooseOffer(from: origin.device.info.id)
            hood.settle()
        }
    }

    // MARK: Launches

    @Test func aColdLaunchWithScenesConnectsAScene_WithTheTypeOnly_ThenContinuesInIt() throws {
        let world = try World()
        let phone = world.receiver
        #expect(!phone.application.isRunning)
        world.read("harrow-point.txt", page: 3)
        phone.device.chooseOffer(from: world.origin.device.info.id)

        // Before the payload: a scene connected with the activity's type, and the Reader says so.
        let scene = try #require(phone.application.connectedScenes.first)
        #expect(phone.reader.window(for: scene) === phone.reader.frontWindow)
        #expect(phone.reader.isContinuing)
        #expect(phone.render(width: 60, height: 18).text().contains("Opening a document from another device…"))
        world.hood.settle()

        let launches = phone.device.lifecycle.compactMap { event -> LaunchKind? in
            if case .applicationLaunched(_, "com.handoffsim.reader", let kind) = event.occurrence { kind } else { nil }
        }
        #expect(launches == [.cold])
        let connections = phone.device.lifecycle.compactMap { event -> String?? in
            if case .sceneWillConnect(_, _, _, let type) = event.occurrence { type } else { nil }
        }
        #expect(
            connections == [.some("com.handoffsim.reader.document")], "willConnectTo carries the type, nothing else")
        let order: [LifecycleEvent.Kind] = [
            .applicationLaunched, .sceneWillConnect, .sceneWillContinue, .sceneContinue, .continued,
        ]
        #expect(phone.kinds.filter(order.contains) == order)
        #expect(!phone.kinds.contains(.continueCalled), "the app delegate is not asked")

        #expect(!phone.reader.isContinuing)
        let session = try #require(phone.reader.session)
        #expect(session.url.lastPathComponent == "harrow-point.txt")
        #expect(session.position == world.origin.reader.session?.position)
        #expect(scene.title == "The Clock at Harrow Point")
        #expect(scene.activationConditions.prefersToActivateFor == .equals("harrow-point.txt"))
        #expect(phone.activity?.isCurrent == true, "the reading view made the document's activity current")
        #expect(phone.activity?.targetContentIdentifier == "harrow-point.txt")
    }

    @Test func aWarmLaunchWithScenesUsesTheSceneTheAppHas() throws {
        let world = try World(opened: true)
        let phone = world.receiver
        #expect(phone.application.connectedScenes.count == 1, "opening the Reader connected its scene")
        phone.reader.setFrontmost(false)
        phone.device.bringToFront(nil)
        world.read("night-markets.txt", page: 2)
        world.continueOnReceiver()

        let launches = phone.device.lifecycle.compactMap { event -> LaunchKind? in
            if case .applicationLaunched(_, _, let kind) = event.occurrence { kind } else { nil }
        }
        #expect(launches == [.warm])
        #expect(phone.application.connectedScenes.count == 1)
        #expect(phone.kinds.filter { $0 == .sceneWillConnect }.count == 1, "only the scene of the user's launch")
        #expect(phone.reader.session?.url.lastPathComponent == "night-markets.txt")
        #expect(phone.reader.session?.position.page == 2)
    }

    @Test func theAppDelegatePathStillRestoresOnAColdLaunch() throws {
        let world = try World(receiver: .phone, .delegate)
        let phone = world.receiver
        world.read("harrow-point.txt", page: 3)
        world.continueOnReceiver()
        #expect(phone.application.connectedScenes.isEmpty)
        #expect(!phone.kinds.contains(.sceneWillConnect))
        let order: [LifecycleEvent.Kind] = [
            .applicationLaunched, .willContinue, .continueCalled, .restoreUserActivityState, .continued,
        ]
        #expect(phone.kinds.filter(order.contains) == order)
        #expect(phone.reader.session?.position == world.origin.reader.session?.position)
        #expect(phone.activity?.isCurrent == true)
    }

    @Test(arguments: AppModel.allCases)
    func quittingFromTheSwitcherMakesTheNextLaunchColdAndTheReaderStartsAfresh(_ model: AppModel) throws {
        let world = try World(receiver: .phone, model)
        let phone = world.receiver
        world.read("harrow-point.txt", page: 2)
        world.continueOnReceiver()
        let first = try #require(phone.activity)
        #expect(phone.reader.session?.position.page == 2)

        phone.quit()
        #expect(!phone.application.isRunning)
        #expect(phone.application.connectedScenes.isEmpty)
        #expect(!first.isValid, "its activities ended")
        #expect(phone.reader.session == nil)
        #expect(phone.reader.windows.count == 1)
        #expect(phone.reader.windows[0].scene == nil)
        #expect(!phone.reader.isContinuing && phone.reader.message == nil)

        world.origin.press(.pageDown)
        world.hood.settle()
        world.continueOnReceiver()
        let launches = phone.device.lifecycle.compactMap { event -> LaunchKind? in
            if case .applicationLaunched(_, _, let kind) = event.occurrence { kind } else { nil }
        }
        #expect(launches == [.cold, .cold])
        #expect(phone.kinds.contains(.applicationTerminated))
        #expect(phone.reader.session?.position.page == 3)
        #expect(phone.application.connectedScenes.count == (model == .scenes ? 1 : 0))
    }

    // MARK: Windows and targetContentIdentifier

    /// A laptop with two windows: window 1 shows “night-markets.txt”, window 2 (in front)
    /// “harrow-point.txt”.
    static func openTwoWindows(on laptop: ReaderDevice) {
        laptop.press(.home)
        while laptop.reader.documents[laptop.reader.selection].name != "harrow-point.txt" { laptop.press(.down) }
        laptop.press(.character("n"))
        #expect(laptop.reader.windows.count == 2)
        #expect(laptop.reader.frontWindow.number == 2)
        laptop.press(.character("w"))
        #expect(laptop.reader.frontWindow.number == 1)
        laptop.open("night-markets.txt")
        laptop.press(.character("w"))
        #expect(laptop.reader.frontWindow.number == 2)
        #expect(
            laptop.reader.windows.map { $0.session?.url.lastPathComponent } == [
                "night-markets.txt", "harrow-point.txt",
            ])
    }

    @Test(arguments: AppModel.allCases)
    func aContinuationGoesToTheWindowShowingItsDocument(_ model: AppModel) throws {
        let world = try World(origin: .phone, .scenes, receiver: .laptop, model, opened: true)
        let laptop = world.receiver
        Self.openTwoWindows(on: laptop)
        if model == .scenes {
            #expect(laptop.application.connectedScenes.count == 2)
            #expect(laptop.application.keyScene === laptop.reader.windows[1].scene)
        }
        #expect(laptop.activity?.isCurrent == true, "the front window's document")

        world.read("night-markets.txt", page: 2)
        #expect(world.origin.activity?.targetContentIdentifier == "night-markets.txt")
        world.continueOnReceiver()

        let windows = laptop.reader.windows
        #expect(laptop.reader.frontWindow === windows[0], "the window showing the document comes to the front")
        #expect(windows[0].session?.position.page == 2)
        #expect(windows[1].session?.url.lastPathComponent == "harrow-point.txt")
        #expect(windows[1].session?.position.page == 1, "the other window is untouched")
        #expect(laptop.reader.windows.count == 2, "no window was added")
        if model == .scenes {
            #expect(laptop.application.keyScene === windows[0].scene)
            let continued = laptop.device.lifecycle.compactMap { event -> String? in
                if case .sceneContinue(_, _, let scene, _) = event.occurrence { scene } else { nil }
            }
            #expect(continued.count == 1)
            #expect(continued.first?.hasPrefix("Reader-1") == true, "\(continued)")
        }
    }

    /// The versions demo: a version-3 Reader's activity on a current Reader. Either model, the
    /// Reader refuses it and shows why whole on a phone-sized screen. With the app delegate its
    /// continue returns false: not handled, and the origin is not told. With scenes,
    /// scene(_:continue:) returns nothing: the system counts it continued and tells the origin.
    @Test(arguments: AppModel.allCases)
    func aNewerReadersActivityIsRefusedWhole_AndEachModelTellsTheOriginWhatItKnows(_ model: AppModel) throws {
        let folder = TemporaryFolder()
        let hood = Neighbourhood()
        let cloud = folder.folder("cloud")
        let tablet = try ReaderDevice(
            "Tablet v3", kind: .tablet, in: hood, cloudFolder: cloud, localFolder: folder.folder("tablet"),
            version: 3)
        let phone = try ReaderDevice(
            "Phone", kind: .phone, in: hood, cloudFolder: cloud, localFolder: folder.folder("phone"),
            model: model)
        hood.settle()
        tablet.open("night-markets.txt")
        _ = tablet.render(width: 60, height: 18)
        hood.settle()
        phone.device.chooseOffer(from: tablet.device.info.id)
        hood.settle()
        let message = try #require(phone.reader.message)
        #expect(message.text.contains("newer Reader (version 3)"))
        // The phone's app area at its smallest size: the whole message, its last words too.
        let text = phone.render(width: 32, height: 14).text()
        for line in message.lines(width: 28, limit: 100) {
            #expect(text.contains(line.text), "\(line.text) in\n\(text)")
        }
        let continued = phone.device.lifecycle.first { $0.kind == .continued }
        switch model {
        case .delegate:
            #expect(phone.kinds.contains(.notHandled))
            #expect(continued == nil)
            #expect(!tablet.kinds.contains(.wasContinued))
        case .scenes:
            #expect(!phone.kinds.contains(.notHandled))
            #expect(continued?.scene != nil)
            #expect(continued?.explanation.contains("scene(_:continue:) returns nothing") == true)
            #expect(tablet.kinds.contains(.wasContinued))
        }
    }

    @Test func aDocumentOpenInAnotherWindowIsShownThere() throws {
        let world = try World(receiver: .laptop, .scenes, opened: true)
        let laptop = world.receiver
        Self.openTwoWindows(on: laptop)
        laptop.press(.escape)  // window 2 shows the list again
        laptop.press(.home)
        while laptop.reader.documents[laptop.reader.selection].name != "night-markets.txt" { laptop.press(.down) }
        laptop.press(.enter)
        #expect(laptop.reader.frontWindow.number == 1, "Enter shows the window that has it open")
        #expect(laptop.reader.windows[1].session == nil)
        #expect(laptop.application.openDocuments.count == 1)
    }

    @Test func aPhoneHasOneWindowAndSaysSo() throws {
        let world = try World(opened: true)
        let phone = world.receiver
        phone.press(.character("n"))
        #expect(phone.reader.windows.count == 1)
        #expect(phone.reader.message?.text.contains("one window") == true)
        #expect(!phone.reader.keyHints.contains { $0.keys == "n" })
        #expect(!phone.reader.keyHints.contains { $0.keys == "w" })
    }

    @Test func theWindowKeysAreInTheHints() throws {
        let world = try World(receiver: .laptop, .scenes, opened: true)
        let laptop = world.receiver
        #expect(laptop.reader.keyHints.contains(KeyHint("n", "open in a new window")))
        Self.openTwoWindows(on: laptop)
        #expect(laptop.reader.keyHints.contains { $0.keys == "w" && $0.action.contains("2 open") })
        let grid = laptop.render(width: 80, height: 20)
        #expect(grid.text().contains("Window 2 of 2"))
    }

    // MARK: The platforms' rules (UIKit, AppKit)

    @Test(arguments: [PeerInfo.Kind.phone, .tablet, .laptop])
    func theDocumentsActivityIsCurrentOnceTheReadingViewHasIt(_ kind: PeerInfo.Kind) throws {
        let world = try World(receiver: kind, kind == .laptop ? .delegate : .scenes, opened: true)
        let device = world.receiver
        device.open("harrow-point.txt")
        let activity = try #require(device.activity)
        #expect(device.reader.readingView.userActivity === activity)
        #expect(activity.isCurrent)
        #expect(device.device.lifecycle.contains { $0.kind == .documentOpened })
    }

    // MARK: Pages of the Reader's web site

    /// A laptop whose Browser shows `page`, and a phone Reader (`model`, not running) whose
    /// site the phone has approved.
    final class WebWorld {
        let folder = TemporaryFolder()
        let hood = Neighbourhood()
        let laptop: Device
        let phone: ReaderDevice
        let activity: UserActivity

        init(page: String, model: AppModel) throws {
            laptop = hood.addDevice("Laptop", kind: .laptop)
            let browser = laptop.install(TestManifests.browser)
            laptop.bringToFront(browser)
            phone = try ReaderDevice(
                "Phone", kind: .phone, in: hood, cloudFolder: folder.folder("cloud"),
                localFolder: folder.folder("phone"), model: model, opened: false, approvesSite: true)
            activity = try UserActivity(activityType: UserActivity.browsingWebType, application: browser)
            try activity.setWebpageURL(URL(string: page))
            activity.becomeCurrent()
            hood.settle()
        }

        func continueOnPhone() {
            phone.device.chooseOffer(from: laptop.info.id)
            hood.settle()
        }
    }

    @Test(arguments: AppModel.allCases)
    func aPageOfTheReadersSiteOpensItsDocumentAtItsPage(_ model: AppModel) throws {
        let world = try WebWorld(page: "https://reader.handoffsim.example/night-markets?page=2", model: model)
        #expect(world.phone.reader.manifest.activityContinuationDomains == ["reader.handoffsim.example"])
        world.continueOnPhone()
        let routed = world.phone.device.lifecycle.contains {
            if case .webRouted(_, "reader.handoffsim.example", "com.handoffsim.reader", _) = $0.occurrence {
                true
            } else {
                false
            }
        }
        #expect(routed)
        let received = world.phone.device.lifecycle.compactMap { event -> UserInfo? in
            if case .payloadReceived(_, _, UserActivity.browsingWebType, _, _, let userInfo) = event.occurrence {
                userInfo
            } else {
                nil
            }
        }
        #expect(received == [[:]], "the system hands the page only")
        #expect(world.phone.reader.session?.url.lastPathComponent == "night-markets.txt")
        #expect(world.phone.reader.session?.position.page == 2)
        #expect(world.phone.reader.message == nil)
        #expect(world.phone.kinds.contains(.continued))
        #expect(world.phone.kinds.contains(model == .scenes ? .sceneWillConnect : .continueCalled))
    }

    @Test(arguments: AppModel.allCases)
    func aPageOfADocumentThatIsNotHereSaysSo(_ model: AppModel) throws {
        let world = try WebWorld(page: "https://reader.handoffsim.example/a-missing-book?page=4", model: model)
        world.continueOnPhone()
        #expect(world.phone.reader.session == nil)
        let message = try #require(world.phone.reader.message)
        #expect(message.text.contains("“a-missing-book” is not on this device"))
        if model == .delegate {
            #expect(world.phone.kinds.contains(.notHandled), "continue returned false: the app did not handle it")
        }
    }

    @Test func webPagesAreReadStrictly() throws {
        let good = try ReaderApp.webPage(URL(string: "https://READER.handoffsim.example/night%20markets?page=12")!)
        #expect(good.slug == "night markets" && good.page == 12)
        #expect(
            try ReaderApp.webPage(
                ReaderApp.webpageURL(
                    for: ReadingState(
                        documentName: "harrow-point.txt",
                        position: ReadingPosition(page: 3)))) == ("harrow-point", 3))
        for bad in [
            "https://maps.handoffsim.example/harrow-point?page=1", "https://reader.handoffsim.example/",
            "https://reader.handoffsim.example/harrow-point", "https://reader.handoffsim.example/harrow-point?page=0",
            "https://reader.handoffsim.example/harrow-point?page=two", "https://reader.handoffsim.example/a/b?page=1",
        ] {
            #expect(throws: ReaderWebError.self, "\(bad)") { try ReaderApp.webPage(URL(string: bad)!) }
        }
    }
}
