import DeviceAppKit
import DeviceUI
import Foundation
import HandoffCore
import HandoffTestSupport
import TerminalCells
import Testing

/// Two devices with screens over the in-memory neighbourhood: a laptop (the origin) and a
/// phone (the receiver), each with the pages app.
final class TwoScreens {
    let hood = Neighbourhood()
    let laptop: Device
    let phone: Device
    let laptopApp = PagesApp()
    let phoneApp = PagesApp()
    let laptopScreen: DeviceScreen
    let phoneScreen: DeviceScreen
    let size = Size(width: 80, height: 24)

    init() {
        laptop = hood.addDevice("Laptop", kind: .laptop, configuration: DeviceConfiguration(saveCoalescingInterval: 60))
        phone = hood.addDevice("Phone", kind: .phone, configuration: DeviceConfiguration(saveCoalescingInterval: 60))
        let folder = URL(fileURLWithPath: "/nonexistent")
        let clock = hood.clock
        laptopScreen = DeviceScreen(
            device: laptop, account: "demo", apps: [laptopApp],
            environment: AppEnvironment(
                deviceName: "Laptop", cloudFolder: nil, localFolder: folder,
                now: { clock.now }),
            timeZone: Fixture.gmt, now: clock.now)
        phoneScreen = DeviceScreen(
            device: phone, account: "demo", apps: [phoneApp],
            environment: AppEnvironment(
                deviceName: "Phone", cloudFolder: nil, localFolder: folder,
                now: { clock.now }),
            timeZone: Fixture.gmt, now: clock.now)
    }

    func laptopFrame() -> Grid { laptopScreen.render(size: size, now: hood.clock.now) }
    func phoneFrame() -> Grid { phoneScreen.render(size: size, now: hood.clock.now) }

    /// The laptop opens the pages app and turns to page 3: its activity becomes current.
    func startOnLaptop() {
        laptopScreen.handle(.character("1"))
        laptopScreen.handle(.down)
        laptopScreen.handle(.down)
        hood.settle()
    }
}

@Suite("Two devices with screens")
struct TwoDeviceFlowTests {
    @Test func theScreenInstallsLaunchesAndShowsHome() {
        let world = TwoScreens()
        #expect(world.phone.applications.map(\.bundleIdentifier) == ["com.example.notes"])
        #expect(world.phoneApp.application != nil)
        #expect(world.phone.system.front == .home)
        #expect(world.phone.system.frontmostApp == nil)
        #expect(world.phoneFrame().text().contains("1 Notes"))
    }

    /// Issue 26 §2.6: the origin's lock key is the device system's lock: 8 s later the phone
    /// loses the offer and the lock screen says so; unlocking offers it again.
    @Test func lockingTheOriginWithdrawsItsOfferEightSecondsLater() {
        let world = TwoScreens()
        world.startOnLaptop()
        #expect(world.phone.system.offers[world.laptop.info.id] != nil)
        world.laptopScreen.handle(.function(3))
        #expect(world.laptop.isLocked)
        #expect(world.laptopFrame().text().contains("Handoff stops offering Page 3 soon"))
        world.hood.advance(by: 7.5)
        #expect(world.phone.system.offers[world.laptop.info.id] != nil, "still offered within 8 s")
        world.hood.advance(by: 1)
        #expect(world.phone.system.offers[world.laptop.info.id] == nil)
        #expect(world.laptop.currentActivity?.title == "Page 3", "still current, only not offered")
        #expect(world.laptopFrame().text().contains("Handoff: Page 3 not offered while locked"))
        world.laptopScreen.handle(.enter)
        #expect(!world.laptop.isLocked)
        world.hood.settle()
        #expect(world.phone.system.offers[world.laptop.info.id] != nil)
    }

    /// Issue 26 §2.9: after a continuation the app is in front on the terminal device too, and
    /// the next continuation into it launches nothing.
    @Test func theContinuedAppStaysInFrontAndTheNextContinuationIsNoLaunch() {
        let world = TwoScreens()
        world.startOnLaptop()
        world.phoneScreen.handle(.control("o"))
        world.hood.settle()
        #expect(world.phoneApp.continued == 1)
        #expect(world.phone.system.frontmostApp == "com.example.notes")
        let launches = world.phone.lifecycle.filter { $0.kind == .applicationLaunched }.count
        world.phoneScreen.handle(.control("o"))
        world.hood.settle()
        #expect(world.phoneApp.continued == 2)
        #expect(world.phone.lifecycle.filter { $0.kind == .applicationLaunched }.count == launches)
    }

    @Test func openingAnAppMakesItFrontmostAndKeysReachIt() {
        let world = TwoScreens()
        world.startOnLaptop()
        #expect(world.laptop.system.frontmostApp == "com.example.notes")
        #expect(world.laptopApp.frontmostChanges == [true])
        #expect(world.laptopApp.page == 3)
        #expect(world.laptop.currentActivity?.title == "Page 3")
        #expect(world.laptopScreen.handle(.escape), "Esc is not the app's: home")
        #expect(world.laptopApp.frontmostChanges == [true, false])
        #expect(world.laptop.system.frontmostApp == nil)
        #expect(!world.laptopScreen.handle(.character("q")))
        #expect(world.laptopScreen.isQuitRequested)
    }

    /// Choosing an offer tells the apps before anything else happens (willContinue may wait for
    /// a launch or a step-mode pause), so an app's "Could not continue" from the last attempt
    /// never stands under the new progress box.
    @Test func choosingAnOfferTellsTheAppsFirst() {
        let world = TwoScreens()
        world.startOnLaptop()
        world.phone.isStepping = true
        #expect(world.phoneScreen.handle(.control("o")))
        #expect(world.phoneApp.continuationsChosen == 1)
        #expect(world.phone.system.pendingContinuation != nil)
        #expect(world.laptopApp.continuationsChosen == 0)
    }

    /// Apple: an app whose willContinue returns true tells the user itself, and the system shows
    /// nothing; false lets the system show its progress. The screen draws its box only then.
    @Test func theSystemsProgressBoxShowsOnlyWhenTheAppLeavesItToTheSystem() throws {
        for showsOwnProgress in [false, true] {
            let world = TwoScreens()
            world.phoneApp.showsOwnProgress = showsOwnProgress
            world.startOnLaptop()
            #expect(world.phoneScreen.handle(.control("o")))
            #expect(world.phone.system.pendingContinuation != nil)
            let willContinue = try #require(world.phone.lifecycle.last { $0.kind == .willContinue })
            #expect(
                willContinue.fields.contains { $0.key == "appShowsProgress" && $0.value == .bool(showsOwnProgress) })
            let text = world.phoneFrame().text()
            #expect(text.contains("fetching the activity") == !showsOwnProgress, "\(text)")
            #expect(text.contains("Continuing in Notes from Laptop") == !showsOwnProgress, "\(text)")
            world.hood.settle()
            #expect(world.phoneApp.continued == 1, "either way the continuation goes on")
        }
    }

    /// Step mode's pause is the lab's, not the system's: it is drawn even when the app shows its
    /// own progress.
    @Test func aPauseIsDrawnEvenWhenTheAppShowsItsOwnProgress() {
        let world = TwoScreens()
        world.phoneApp.showsOwnProgress = true
        world.startOnLaptop()
        world.phone.isStepping = true
        #expect(world.phoneScreen.handle(.control("o")))
        while world.phone.pausedAt != nil, world.phone.lifecycle.last(where: { $0.kind == .willContinue }) == nil {
            world.phone.stepNext()
        }
        #expect(world.phone.pausedAt != nil)
        #expect(world.phoneFrame().text().contains("⏸ Next:"))
    }

    @Test func offerPromptAcceptAndContinuedOn() {
        let world = TwoScreens()
        world.startOnLaptop()

        // The phone lists the laptop's activity as continuable.
        let listed = world.phoneFrame()
        assertSnapshot(listed, named: "flow-1-phone-sees-offer", styles: meaningLegend)
        #expect(listed.text().contains("✓ continuable"))

        // Locked, the phone prompts for it, as iOS does.
        world.phoneScreen.handle(.control("p"))
        let prompt = world.phoneFrame()
        assertSnapshot(prompt, named: "flow-2-phone-lock-prompt")
        #expect(prompt.text().contains("from Laptop"))

        // Accepting unlocks and continues: the app comes to the front, loading.
        world.phoneScreen.handle(.enter)
        #expect(!world.phoneScreen.state.isLocked)
        #expect(world.phone.system.pendingContinuation != nil)
        #expect(world.phone.system.frontmostApp == "com.example.notes")
        assertSnapshot(world.phoneFrame(), named: "flow-3-phone-loading")

        world.hood.settle()
        #expect(world.phoneApp.continued == 1)
        #expect(world.phoneApp.page == 3)
        #expect(world.phone.system.pendingContinuation == nil)
        #expect(world.phoneFrame().text().contains("Continued from Laptop"))

        // The origin says where its activity went.
        let origin = world.laptopFrame()
        assertSnapshot(origin, named: "flow-4-laptop-continued-on-phone", styles: meaningLegend)
        #expect(origin.text().contains("Continued on Phone"))

        // The notice goes away after a while.
        #expect(world.laptopScreen.nextDeadline != nil)
        world.hood.advance(by: 10)
        #expect(!world.laptopFrame().text().contains("Continued on Phone"))
    }

    @Test func cancellingWhileLoadingLeavesANotice() {
        let world = TwoScreens()
        world.startOnLaptop()
        world.phoneScreen.handle(.control("o"))
        #expect(world.phone.system.pendingContinuation != nil)
        world.phoneScreen.handle(.escape)
        #expect(world.phone.system.pendingContinuation == nil)
        world.hood.settle()
        #expect(world.phoneApp.continued == 0)
        #expect(world.phoneScreen.state.overlay == nil)
        #expect(world.phoneFrame().text().contains("Continuation cancelled"))
    }

    @Test func anUnreachableOriginEndsInAnAlertWithTheCode() {
        let world = TwoScreens()
        world.startOnLaptop()
        world.hood.remove(world.laptop)
        world.phoneScreen.handle(.tab)
        world.phoneScreen.handle(.enter)
        world.hood.settle()
        guard case .alert(let alert) = world.phoneScreen.state.overlay else {
            Issue.record("no alert")
            return
        }
        #expect(alert.code == .connectionUnavailable)
        #expect(alert.shownBySystem, "the pages app does not implement didFailToContinue")
        let frame = world.phoneFrame()
        assertSnapshot(frame, named: "flow-5-phone-alert-4609")
        #expect(frame.text().contains("Error 4609"))
        world.phoneScreen.handle(.enter)
        #expect(world.phoneScreen.state.overlay == nil)
    }

    @Test func theLogShowsEveryEventOfTheDevice() {
        let world = TwoScreens()
        world.startOnLaptop()
        world.phoneScreen.handle(.control("o"))
        world.hood.settle()
        world.phoneScreen.handle(.function(2))
        let frame = world.phoneScreen.render(size: Size(width: 160, height: 60), now: world.hood.clock.now)
        assertSnapshot(frame, named: "flow-6-phone-log-160x60")
        for kind in [
            "continueChosen", "applicationLaunched", "willContinue", "fetchStarted", "payloadReceived",
            "continueCalled", "continued",
        ] {
            #expect(frame.text().contains(kind), "\(kind)")
        }
    }

    @Test func networkPeersWithoutOffersAreListed() {
        let world = TwoScreens()
        let now = world.hood.clock.now
        world.phoneScreen.update(
            network: NetworkStatus(
                summary: "loopback 127.255.255.255:17820", link: .online,
                peers: [NearbyPeer(info: world.laptop.info, lastSeen: now)]))
        let text = world.phoneFrame().text()
        #expect(text.contains("no activity offered"))
        #expect(text.contains("● loopback 127.255.25"))
        #expect(text.contains("● online · 1 nearby"))
    }

    @Test func aDeviceStillJoiningTheNetworkSaysStartingNotOnline() {
        let world = TwoScreens()
        world.phoneScreen.update(network: .starting)
        let starting = world.phoneFrame().text()
        #expect(starting.contains("◌ starting · 0 nearby"))
        #expect(starting.contains("◌ joining"))
        #expect(!starting.contains("online") && !starting.contains("offline"))
        // Once joined, the same screen says online and where.
        world.phoneScreen.update(
            network: NetworkStatus(summary: "loopback 127.255.255.255:17820", link: .online))
        let joined = world.phoneFrame().text()
        #expect(joined.contains("● online · 0 nearby"))
        #expect(!joined.contains("starting"))
    }

    @Test func theScreenKeepsAnEarlierLifecycleHandler() {
        let hood = Neighbourhood()
        let device = hood.addDevice("Phone")
        var seen: [LifecycleEvent.Kind] = []
        device.addLifecycleObserver { seen.append($0.kind) }
        let app = PagesApp()
        let screen = DeviceScreen(
            device: device, account: "demo", apps: [app],
            environment: AppEnvironment(
                deviceName: "Phone", cloudFolder: nil,
                localFolder: URL(fileURLWithPath: "/nonexistent")),
            timeZone: Fixture.gmt, now: hood.clock.now)
        screen.handle(.character("1"))
        #expect(seen.contains(.becameCurrent))
    }

    @Test func urlsOpenInTheAppThatTakesThem() {
        let hood = Neighbourhood()
        let device = hood.addDevice("Phone")
        let pages = PagesApp()
        let browser = BrowserStub()
        var fallback: [URL] = []
        var environment = AppEnvironment(
            deviceName: "Phone", cloudFolder: nil, localFolder: URL(fileURLWithPath: "/nonexistent"))
        environment.openURL = { fallback.append($0) }
        let screen = DeviceScreen(
            device: device, account: "demo", apps: [pages, browser], environment: environment,
            timeZone: Fixture.gmt, now: hood.clock.now)
        browser.environment?.openURL(URL(string: "https://example.com/a")!)
        #expect(browser.opened.map(\.absoluteString) == ["https://example.com/a"])
        #expect(screen.state.foregroundApp == "com.example.browser")
        #expect(device.system.frontmostApp == "com.example.browser")
        browser.refuses = true
        browser.environment?.openURL(URL(string: "mailto:someone@example.com")!)
        #expect(fallback.map(\.absoluteString) == ["mailto:someone@example.com"])
    }
}

/// A browser that records the URLs it opens.
final class BrowserStub: TerminalApp, ApplicationDelegate {
    let manifest = AppManifest(
        bundleIdentifier: "com.example.browser", teamIdentifier: "ABCDE12345", displayName: "Browser",
        activityTypes: [UserActivity.browsingWebType])
    let glyph: Character = "◍"
    let title = "Browser"
    let keyHints: [KeyHint] = []
    var environment: AppEnvironment?
    var opened: [URL] = []
    var refuses = false

    func launch(application: Application, environment: AppEnvironment) { self.environment = environment }
    func render(into grid: inout Grid, area: Rect) {}
    func handle(_ key: Key) -> Bool { false }
    func open(_ url: URL) -> Bool {
        guard !refuses else { return false }
        opened.append(url)
        return true
    }
}
