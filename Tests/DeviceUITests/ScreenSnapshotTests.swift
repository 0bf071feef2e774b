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
        assertSnapshot(
            Fixture.render(state, Fixture.device(Fixture.tablet, offers: [Fixture.phoneOffer])),
            named: "tablet-app-80x24")
    }

    @Test func laptopWithAnAppAt80x24() {
        var state = Fixture.state(Fixture.laptop)
        state.foregroundApp = "com.example.map"
        state.recentApps = ["com.example.map"]
        assertSnapshot(
            Fixture.render(state, Fixture.device(Fixture.laptop, offers: [Fixture.phoneOffer])),
            named: "laptop-app-80x24",
            styles: meaningLegend)
    }

    @Test func phoneUsesTheRoomAt160x48WithTheLogBeside() {
        var state = Fixture.state(size: Size(width: 160, height: 48))
        state.foregroundApp = "com.example.notes"
        state.isLogVisible = true
        let device = Fixture.device(
            offers: [Fixture.laptopOffer, Fixture.tabletOffer, Fixture.deskOffer],
            lifecycle: Fixture.events())
        assertSnapshot(Fixture.render(state, device), named: "phone-app-log-160x48")
    }

    @Test func laptopDesktopAt160x48() {
        let state = Fixture.state(Fixture.laptop, size: Size(width: 160, height: 48))
        assertSnapshot(
            Fixture.render(state, Fixture.device(Fixture.laptop, offers: [Fixture.kitchenOffer])),
            named: "laptop-desktop-160x48")
    }

    @Test func nearbyShowsContinuableAndUnavailableOffersWithReasons() {
        var state = Fixture.state(size: Size(width: 120, height: 40))
        state.focus = .nearby
        state.nearbySelection = "desk"
        let device = Fixture.device(offers: [
            Fixture.laptopOffer, Fixture.tabletOffer, Fixture.deskOffer, Fixture.kitchenOffer,
        ])
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
        assertSnapshot(
            Fixture.render(state, Fixture.device(Fixture.tablet, offers: [Fixture.tabletOffer])),
            named: "tablet-lock-100x30")
    }

    @Test func laptopLocksToALoginWindow() {
        var state = Fixture.state(Fixture.laptop)
        state.isLocked = true
        assertSnapshot(
            Fixture.render(state, Fixture.device(Fixture.laptop, offers: [Fixture.phoneOffer])),
            named: "laptop-login-80x24")
    }

    @Test func theContinuingAppShowsThatItIsLoading() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.notes"
        let pending = DeviceSnapshot.PendingInfo(
            peer: Fixture.laptop, bundleIdentifier: "com.example.notes",
            activityType: Fixture.notesType,
            phase: .fetching(deadline: Fixture.now.addingTimeInterval(4.7)),
            chosenAt: Fixture.now.addingTimeInterval(-0.3))
        assertSnapshot(Fixture.render(state, Fixture.device(pending: pending)), named: "phone-loading-80x24")
    }

    @Test func aFailureShowsAnAlertWithTheCodeAndMeaning() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.notes"
        state.overlay = .alert(
            ContinuationAlert(
                code: .remoteApplicationTimedOut, reason: "no payload from Laptop within 5 s",
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
        assertSnapshot(
            Fixture.render(state, Fixture.device(Fixture.laptop, offers: [Fixture.phoneOffer])),
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
        state.notice = ScreenState.Notice(
            text: "Continued on Phone", role: .success, expires: Fixture.now.addingTimeInterval(3))
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
        #expect(
            ScreenView(state: state, device: Fixture.device(offers: [Fixture.laptopOffer])).nextChange
                == Fixture.now.addingTimeInterval(1))
        let pending = DeviceSnapshot.PendingInfo(
            peer: Fixture.laptop, bundleIdentifier: nil, activityType: "web",
            phase: .askingApp, chosenAt: Fixture.now)
        #expect(
            ScreenView(state: state, device: Fixture.device(offers: [], pending: pending)).nextChange
                == Fixture.now.addingTimeInterval(0.1))
    }

    @Test func aWebActivityShowsTheBrowserUntilItsPageIsKnown() {
        var state = Fixture.state(size: Size(width: 110, height: 30))
        state.network = .offline
        let offer = DeviceSnapshot.OfferInfo(
            peer: Fixture.laptop, firstSeen: Fixture.now, lastSeen: Fixture.now,
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

    /// Enter arms once; the panel also says how to keep a fault armed and how to disarm it.
    @Test(arguments: [Size(width: 40, height: 24), Size(width: 80, height: 24)])
    func thePanelNamesEveryKey(size: Size) {
        var state = Fixture.state(size: size)
        state.overlay = .faults(selection: 0)
        let text = Fixture.render(state, Fixture.device()).text()
        #expect(text.contains("s keep armed · x disarm"), "\(text)")
        #expect(text.contains("Enter arm once"))
    }

    @Test func theListSaysThereIsMoreWhenItScrolls() {
        var state = Fixture.state(size: Size(width: 40, height: 24))
        state.overlay = .faults(selection: Fault.allCases.count - 1)
        let text = Fixture.render(state, Fixture.device()).text()
        #expect(text.contains("↑"))
        #expect(!text.contains(Fault.allCases[0].rawValue), "the first faults scrolled away")
    }
}

@Suite("Step mode on the screen")
struct StepModeScreenTests {
    /// Paused before the fetch for 10 s: the box says what comes next, whole at 60 columns, and
    /// its countdown stands where it was when the device paused (the deadline moves by the time
    /// paused when it goes on), instead of running down to 0.0 s.
    @Test func aPausedContinuationSaysWhatIsNextAndItsCountdownIsFrozen() {
        var state = Fixture.state(size: Size(width: 60, height: 24))
        state.foregroundApp = "com.example.notes"
        let pausedSince = Fixture.now.addingTimeInterval(-10)
        var device = Fixture.device(
            pending: DeviceSnapshot.PendingInfo(
                peer: Fixture.laptop, bundleIdentifier: "com.example.notes", activityType: Fixture.notesType,
                phase: .fetching(deadline: pausedSince.addingTimeInterval(5)),
                chosenAt: pausedSince.addingTimeInterval(-1)))
        device.isStepping = true
        device.pausedAt = .fetch(from: "Laptop")
        device.pausedSince = pausedSince
        let frame = Fixture.render(state, device)
        assertSnapshot(frame, named: "phone-paused-before-fetch-60x24")
        let text = frame.text()
        #expect(text.contains("gives up in 5.0 s · frozen"), "\(text)")
        #expect(!text.contains("0.0 s"))
        #expect(text.contains("⏸ Next: ask Laptop for the payload"))
        #expect(text.contains("starts)"), "the whole phase, not cut")
        #expect(text.contains("F7 go on"))
        // Still there long after a notice would have gone.
        _ = state.update(.clockTicked(Fixture.now.addingTimeInterval(30)), device: device)
        #expect(Fixture.render(state, device).text().contains("gives up in 5.0 s · frozen"))
    }

    /// Paused before continue: the app has not been given the activity yet, so the box does not
    /// say it is restoring.
    @Test func pausedBeforeContinueTheBoxDoesNotSayRestoring() {
        var state = Fixture.state(size: Size(width: 60, height: 24))
        state.foregroundApp = "com.example.notes"
        var device = Fixture.device(
            pending: DeviceSnapshot.PendingInfo(
                peer: Fixture.laptop, bundleIdentifier: "com.example.notes", activityType: Fixture.notesType,
                phase: .restoring, chosenAt: Fixture.now.addingTimeInterval(-2)))
        device.isStepping = true
        device.pausedAt = .continue(bundleIdentifier: "com.example.notes", activityType: Fixture.notesType)
        device.pausedSince = Fixture.now.addingTimeInterval(-1)
        let text = Fixture.render(state, device).text()
        #expect(!text.contains("restoring"), "\(text)")
        #expect(text.contains("⏸ Next: give com.example.notes"))
        #expect(text.contains("timeouts frozen while paused"))
    }

    /// A paused origin has no continuation box: a panel says what comes next for as long as it
    /// is paused, whole at 60 columns; the stepPaused event sets no notice that would be cut.
    @Test func aPausedOriginShowsItsNextPhaseInAPanel() {
        var state = Fixture.state(Fixture.laptop, size: Size(width: 60, height: 24))
        state.foregroundApp = "com.example.notes"
        var device = Fixture.device(Fixture.laptop, offers: [Fixture.phoneOffer])
        device.isStepping = true
        let phase = StepPhase.save(activityType: Fixture.notesType)
        device.pausedAt = phase
        device.pausedSince = Fixture.now
        let event = LifecycleEvent(time: Fixture.now, device: "Laptop", .stepPaused(Fixture.continuation, phase))
        _ = state.update(.lifecycleEventRecorded(event), device: device)
        #expect(state.notice == nil)
        _ = state.update(.clockTicked(Fixture.now.addingTimeInterval(30)), device: device)
        let frame = Fixture.render(state, device)
        assertSnapshot(frame, named: "laptop-paused-before-save-60x24")
        let text = frame.text()
        #expect(text.contains("Step mode · paused"))
        #expect(text.contains("set)"), "the whole phase: \(text)")
        #expect(text.contains("F7 go on"))
    }
}

@Suite("What the screen says after a continuation, by app model")
struct ContinuedNoticeTests {
    /// With scenes, scene(_:continue:) answers nothing: the system handed the activity over and
    /// does not know whether the app took it, so it shows no ✓ over what the app says.
    @Test func aSceneContinuationIsHandedOverWithoutACheckMark() {
        var state = Fixture.state()
        let device = Fixture.device()
        let scene = LifecycleEvent(
            time: Fixture.now, device: "Phone",
            .continued(
                Fixture.continuation, PeerReference(id: "tablet", name: "Tablet"),
                bundleIdentifier: "com.example.notes", .scene("Notes-1"), milliseconds: 40))
        _ = state.update(.lifecycleEventRecorded(scene), device: device)
        #expect(state.notice?.text == "Continued from Tablet")
        #expect(state.notice?.role == .dim)
        #expect(!Fixture.render(state, device).text().contains("✓ Continued"))
        let delegate = LifecycleEvent(
            time: Fixture.now, device: "Phone",
            .continued(
                Fixture.continuation, PeerReference(id: "tablet", name: "Tablet"),
                bundleIdentifier: "com.example.notes", .application(restoredObjects: 1), milliseconds: 40))
        _ = state.update(.lifecycleEventRecorded(delegate), device: device)
        #expect(state.notice?.text == "Continued from Tablet")
        #expect(state.notice?.role == .success)
    }

    /// A fault that strikes says so, replacing "Armed for the next time".
    @Test func aFaultThatStrikesSaysSo() {
        var state = Fixture.state(Fixture.laptop)
        let device = Fixture.device(Fixture.laptop, offers: [Fixture.phoneOffer])
        _ = state.update(.keyPressed(.function(8)), device: device)
        _ = state.update(.keyPressed(.enter), device: device)
        #expect(state.notice?.text.hasPrefix("Armed for the next time") == true)
        let struck = LifecycleEvent(time: Fixture.now, device: "Laptop", .faultInjected(nil, .forgetNeedsSave))
        _ = state.update(.lifecycleEventRecorded(struck), device: device)
        #expect(state.notice?.text == "Fault struck: forget-needs-save")
    }
}
