import DeviceUI
import Foundation
import HandoffCore
import TerminalCells
import Testing

@Suite("Screens, as text snapshots")
struct ScreenSnapshotTests {
    @Test func phoneHomeAt80x24() {
        var state = Fixture.state()
        state.recentApps = ["com.example.map"]
        assertSnapshot(Fixture.render(state, Fixture.device()), named: "phone-home-80x24", styles: meaningLegend)
    }

    @Test func tabletWithAnAppAt80x24() {
        var state = Fixture.state(Fixture.tablet)
        state.foregroundApp = "com.example.notes"
        state.recentApps = ["com.example.notes"]
        assertSnapshot(Fixture.render(state, Fixture.device(Fixture.tablet, offers: [Fixture.phoneOffer])),
                       named: "tablet-app-80x24")
    }

    @Test func laptopWithAnAppAt80x24() {
        var state = Fixture.state(Fixture.laptop)
        state.foregroundApp = "com.example.map"
        state.recentApps = ["com.example.map"]
        assertSnapshot(Fixture.render(state, Fixture.device(Fixture.laptop, offers: [Fixture.phoneOffer])), named: "laptop-app-80x24",
                       styles: meaningLegend)
    }

    @Test func phoneUsesTheRoomAt160x48WithTheLogBeside() {
        var state = Fixture.state(size: Size(width: 160, height: 48))
        state.foregroundApp = "com.example.notes"
        state.isLogVisible = true
        let device = Fixture.device(offers: [Fixture.laptopOffer, Fixture.tabletOffer, Fixture.deskOffer],
                                    lifecycle: Fixture.events())
        assertSnapshot(Fixture.render(state, device), named: "phone-app-log-160x48")
    }

    @Test func laptopDesktopAt160x48() {
        let state = Fixture.state(Fixture.laptop, size: Size(width: 160, height: 48))
        assertSnapshot(Fixture.render(state, Fixture.device(Fixture.laptop, offers: [Fixture.kitchenOffer])),
                       named: "laptop-desktop-160x48")
    }

    @Test func nearbyShowsContinuableAndUnavailableOffersWithReasons() {
        var state = Fixture.state(size: Size(width: 120, height: 40))
        state.focus = .nearby
        state.nearbySelection = "desk"
        let device = Fixture.device(offers: [Fixture.laptopOffer, Fixture.tabletOffer, Fixture.deskOffer, Fixture.kitchenOffer])
        assertSnapshot(Fixture.render(state, device), named: "nearby-reasons-120x40", styles: meaningLegend)
    }

    @Test func lockScreenPromptsForTheIncomingActivity() {
        var state = Fixture.state()
        state.isLocked = true
        assertSnapshot(Fixture.render(state, Fixture.device()), named: "phone-lock-prompt-80x24", styles: meaningLegend)
    }

    @Test func tabletLockScreenWithoutAnOffer() {
        var state = Fixture.state(Fixture.tablet, size: Size(width: 100, height: 30))
        state.isLocked = true
        assertSnapshot(Fixture.render(state, Fixture.device(Fixture.tablet, offers: [Fixture.tabletOffer])),
                       named: "tablet-lock-100x30")
    }

    @Test func laptopLocksToALoginWindow() {
        var state = Fixture.state(Fixture.laptop)
        state.isLocked = true
        assertSnapshot(Fixture.render(state, Fixture.device(Fixture.laptop, offers: [Fixture.phoneOffer])),
                       named: "laptop-login-80x24")
    }

    @Test func theContinuingAppShowsThatItIsLoading() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.notes"
        let pending = DeviceSnapshot.PendingInfo(peer: Fixture.laptop, bundleIdentifier: "com.example.notes",
                                                 activityType: Fixture.notesType,
                                                 phase: .fetching(deadline: Fixture.now.addingTimeInterval(4.7)),
                                                 chosenAt: Fixture.now.addingTimeInterval(-0.3))
        assertSnapshot(Fixture.render(state, Fixture.device(pending: pending)), named: "phone-loading-80x24")
    }

    @Test func aFailureShowsAnAlertWithTheCodeAndMeaning() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.notes"
        state.overlay = .alert(ContinuationAlert(code: .remoteApplicationTimedOut, reason: "no payload from Laptop within 5 s",
                                                 peer: "Laptop", bundleIdentifier: "com.example.notes", shownBySystem: true))
        assertSnapshot(Fixture.render(state, Fixture.device()), named: "phone-alert-80x24", styles: meaningLegend)
    }

    @Test func theLogPaneBelowAt80x24() {
        var state = Fixture.state()
        state.isLogVisible = true
        state.focus = .log
        state.logScroll = 2
        assertSnapshot(Fixture.render(state, Fixture.device(lifecycle: Fixture.events())), named: "phone-log-80x24")
    }

    @Test func theTightestLayoutIsALaptopWithItsLogAt80x24() {
        var state = Fixture.state(Fixture.laptop)
        state.foregroundApp = "com.example.notes"
        state.isLogVisible = true
        let device = Fixture.device(Fixture.laptop, offers: [Fixture.phoneOffer], lifecycle: Fixture.events())
        assertSnapshot(Fixture.render(state, device), named: "laptop-app-log-80x24")
    }

    @Test func helpListsEveryKeyAndTheAppsKeys() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.notes"
        state.overlay = .help(scroll: 0)
        assertSnapshot(Fixture.render(state, Fixture.device()), named: "help-80x24")
        state.size = Size(width: 100, height: 60)
        assertSnapshot(Fixture.render(state, Fixture.device()), named: "help-100x60")
    }

    @Test func theAppSwitcherListsRecentAppsAndTheHandoffItem() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.notes"
        state.recentApps = ["com.example.notes", "com.example.map"]
        state.overlay = .switcher(selection: 1)
        assertSnapshot(Fixture.render(state, Fixture.device()), named: "phone-switcher-80x24", styles: meaningLegend)
    }

    @Test func laptopDockTakesTheFocus() {
        var state = Fixture.state(Fixture.laptop)
        state.overlay = .switcher(selection: 0)
        assertSnapshot(Fixture.render(state, Fixture.device(Fixture.laptop, offers: [Fixture.phoneOffer])),
                       named: "laptop-dock-80x24", styles: meaningLegend)
    }

    @Test func aTerminalBelowThePhonesMinimumSaysSo() {
        let state = Fixture.state(size: Size(width: 30, height: 14))
        let grid = Fixture.render(state, Fixture.device())
        assertSnapshot(grid, named: "too-small-30x14")
        #expect(grid.text().contains("need 34x18, have 30x14"))
        let narrow = Fixture.render(Fixture.state(size: Size(width: 33, height: 40)), Fixture.device())
        #expect(narrow.text().contains("have 33x40"))
    }

    @Test func noticesAndAnEmptyNeighbourhood() {
        var state = Fixture.state()
        state.network = .offline
        state.notice = ScreenState.Notice(text: "Continued on Phone", role: .success, expires: Fixture.now.addingTimeInterval(3))
        state.foregroundApp = "com.example.notes"
        let grid = Fixture.render(state, Fixture.device(offers: []))
        assertSnapshot(grid, named: "phone-notice-offline-80x24", styles: meaningLegend)
    }

    @Test func theNextChangeIsTheSoonestOfClockAgesSpinnerAndNotice() {
        var state = Fixture.state()
        state.network = .offline
        let quiet = Fixture.device(offers: [])
        // 06:13:20 now: the clock changes at 06:14.
        #expect(ScreenView(state: state, device: quiet).nextChange == Fixture.now.addingTimeInterval(40))
        state.notice = ScreenState.Notice(text: "x", role: .dim, expires: Fixture.now.addingTimeInterval(3))
        #expect(ScreenView(state: state, device: quiet).nextChange == Fixture.now.addingTimeInterval(3))
        // The laptop was last seen a second ago: its age changes every second.
        #expect(ScreenView(state: state, device: Fixture.device(offers: [Fixture.laptopOffer])).nextChange
            == Fixture.now.addingTimeInterval(1))
        let pending = DeviceSnapshot.PendingInfo(peer: Fixture.laptop, bundleIdentifier: nil, activityType: "web",
                                                 phase: .askingApp, chosenAt: Fixture.now)
        #expect(ScreenView(state: state, device: Fixture.device(offers: [], pending: pending)).nextChange
            == Fixture.now.addingTimeInterval(0.1))
    }

    @Test func aWebActivityShowsTheBrowserUntilItsPageIsKnown() {
        var state = Fixture.state(size: Size(width: 110, height: 30))
        state.network = .offline
        let offer = DeviceSnapshot.OfferInfo(peer: Fixture.laptop, firstSeen: Fixture.now, lastSeen: Fixture.now,
                                             savedAt: Fixture.now, route: .web(browserBundleIdentifier: "com.example.browser"))
        let text = Fixture.render(state, Fixture.device(offers: [offer])).text()
        #expect(text.contains("◍ Browser (web page)"))
        #expect(text.contains("NSUserActivityType") && text.contains("BrowsingWeb"), "the whole type, wrapped")
        #expect(text.contains("✓ continuable: Enter"))
    }
}

@Suite("The faults panel")
struct FaultsPanelTests {
    /// The panel on a phone in half an 80x24 terminal (the demo's two panes), choosing each fault
    /// in turn: the chosen one is always in sight with its expectation.
    @Test(arguments: [Size(width: 40, height: 24), Size(width: 80, height: 24)])
    func theChosenFaultAndWhatFollowsAreAlwaysInSight(size: Size) {
        for (index, fault) in Fault.allCases.enumerated() {
            var state = Fixture.state(size: size)
            state.overlay = .faults(selection: index)
            let text = Fixture.render(state, Fixture.device()).text()
            #expect(text.contains("▸ \(fault.rawValue)"), "\(fault) at \(size)")
            #expect(text.contains("Expect:"), "\(fault) at \(size)")
            // The whole expectation, not cut with "…": its last word is on the screen.
            let lastWord = String(fault.expectedOutcome.split(separator: " ").last ?? "")
            #expect(!text.contains(" …") && text.contains(lastWord.prefix(8)), "\(fault) at \(size): \(lastWord)")
        }
    }

    @Test func theListSaysThereIsMoreWhenItScrolls() {
        var state = Fixture.state(size: Size(width: 40, height: 24))
        state.overlay = .faults(selection: Fault.allCases.count - 1)
        let text = Fixture.render(state, Fixture.device()).text()
        #expect(text.contains("↑"))
        #expect(!text.contains(Fault.allCases[0].rawValue), "the first faults scrolled away")
    }
}
