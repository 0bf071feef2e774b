import DeviceUI
import Foundation
import HandoffCore
import TerminalCells
import Testing

@Suite("The screen's reducer")
struct ScreenUpdateTests {
    let device = Fixture.device()

    func press(_ keys: Key..., on state: inout ScreenState, device: DeviceSnapshot? = nil) -> [ScreenEffect] {
        keys.flatMap { state.update(.keyPressed($0), device: device ?? self.device) }
    }

    // MARK: Quitting and home

    @Test func ctrlQQuitsAnywhereAndQOnlyFromHome() {
        var state = Fixture.state()
        #expect(press(.control("q"), on: &state) == [.quit])
        state.foregroundApp = "com.example.notes"
        #expect(press(.character("q"), on: &state) == [.sendKeyToApp(.character("q"))])
        #expect(press(.control("q"), on: &state) == [.quit])
        state.foregroundApp = nil
        #expect(press(.character("q"), on: &state) == [.quit])
    }

    @Test func digitsAndEnterOpenAppsFromHome() {
        var state = Fixture.state()
        #expect(press(.character("2"), on: &state) == [.bringToFront(bundleIdentifier: "com.example.map")])
        #expect(state.foregroundApp == "com.example.map")
        #expect(state.recentApps == ["com.example.map"])
        state.foregroundApp = nil
        #expect(press(.right, .right, .left, on: &state).isEmpty)
        #expect(state.homeSelection == 1)
        #expect(press(.enter, on: &state) == [.bringToFront(bundleIdentifier: "com.example.map")])
        state.foregroundApp = nil
        #expect(press(.character("9"), on: &state).isEmpty)
        #expect(state.notice?.text == "There is no app 9")
    }

    @Test func keysTheAppIgnoresFallBackToTheDevice() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.notes"
        #expect(press(.escape, on: &state) == [.sendKeyToApp(.escape)])
        #expect(state.update(.appIgnoredKey(.escape), device: device) == [.bringToFront(bundleIdentifier: nil)])
        #expect(state.foregroundApp == nil)
        state.foregroundApp = "com.example.notes"
        #expect(state.update(.appIgnoredKey(.character("?")), device: device).isEmpty)
        #expect(state.overlay == .help(scroll: 0))
        state.overlay = nil
        #expect(state.update(.appIgnoredKey(.character("x")), device: device).isEmpty)
        #expect(state.foregroundApp == "com.example.notes")
    }

    @Test func deviceKeysNeverReachTheApp() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.notes"
        for key: Key in [
            .tab, .function(1), .function(2), .function(3), .control("l"), .control("p"), .control("o"), .control("q"),
        ] {
            var copy = state
            #expect(!press(key, on: &copy).contains(.sendKeyToApp(key)), "\(key)")
        }
    }

    // MARK: Focus, sidebar and log

    @Test func tabCyclesTheFocusThroughTheVisiblePanes() {
        var state = Fixture.state()
        _ = press(.tab, on: &state)
        #expect(state.focus == .nearby)
        _ = press(.tab, on: &state)
        #expect(state.focus == .main)
        _ = press(.function(2), .tab, .tab, on: &state)
        #expect(state.focus == .log)
        _ = press(.backTab, on: &state)
        #expect(state.focus == .nearby)
        _ = press(.tab, .function(2), on: &state)
        #expect(state.focus == .main, "hiding the focused log gives the focus back")
    }

    /// `handoff demo`'s panes: the log is there whenever the pane has room below (or beside)
    /// the device, never over it; F2 hides it, and F2 again shows it as asked.
    @Test func theLogShownWhenThereIsRoomFollowsTheSizeAndF2HidesIt() {
        var state = Fixture.state(size: Size(width: 60, height: 39))
        state.logMode = .whenRoom
        #expect(state.isLogVisible && state.layout.logPlacement == .below, "a 60x39 pane has room below the phone")
        state.size = Size(width: 40, height: 23)
        #expect(!state.isLogVisible && state.layout.logPlacement == nil, "40x23 has none: the device keeps the pane")
        state.size = Size(width: 200, height: 50)
        #expect(state.layout.logPlacement == .beside)
        _ = press(.function(2), on: &state)
        #expect(state.logMode == .hidden && !state.isLogVisible)
        _ = press(.function(2), on: &state)
        #expect(state.logMode == .shown)
        state.size = Size(width: 40, height: 23)
        #expect(state.layout.logPlacement == .covering, "asked for, it covers a small pane as before")
        let title = Fixture.render(
            {
                var shown = state
                shown.logMode = .whenRoom
                shown.size = Size(width: 60, height: 39)
                return shown
            }(),
            device
        ).text()
        #expect(title.contains("Lifecycle log · F2 hides"), "\(title)")
    }

    @Test func nearbyListsEveryPeerAndContinuesTheChosenOffer() {
        var state = Fixture.state()
        let rows = state.nearbyRows(device: device)
        #expect(rows.map(\.peer.name) == ["Laptop", "Spare Phone", "Tablet"])
        #expect(rows[1].offer == nil)
        state.focus = .nearby
        #expect(
            press(.enter, on: &state) == [.chooseOffer("laptop"), .bringToFront(bundleIdentifier: "com.example.notes")])
        #expect(state.focus == .main)
        #expect(state.foregroundApp == "com.example.notes")

        state.focus = .nearby
        #expect(press(.down, .enter, on: &state).isEmpty)
        #expect(state.notice?.text == "Spare Phone offers no activity")
        // An offer nothing here can continue is explained; no continuation starts.
        #expect(press(.down, .down, .enter, on: &state).isEmpty)
        if case .explanation = state.overlay {} else { Issue.record("no explanation") }
        #expect(state.foregroundApp == "com.example.notes")
    }

    @Test func theLogScrollsByEventsWithinBounds() {
        var state = Fixture.state()
        let device = Fixture.device(lifecycle: Fixture.events())
        _ = press(.function(2), .tab, .tab, on: &state, device: device)
        #expect(state.focus == .log)
        _ = press(.up, .up, on: &state, device: device)
        #expect(state.logScroll == 2)
        _ = press(.pageUp, .pageUp, .pageUp, on: &state, device: device)
        #expect(state.logScroll == device.lifecycle.count - 1)
        _ = press(.end, on: &state, device: device)
        #expect(state.logScroll == 0)
        _ = press(.down, on: &state, device: device)
        #expect(state.logScroll == 0)
        _ = press(.home, on: &state, device: device)
        #expect(state.logScroll == device.lifecycle.count - 1)
    }

    // MARK: Overlays

    @Test func helpOpensClosesAndScrollsWithinItsLines() {
        var state = Fixture.state()
        _ = press(.function(1), on: &state)
        #expect(state.overlay == .help(scroll: 0))
        _ = press(.pageDown, .pageDown, .pageDown, .pageDown, .pageDown, on: &state)
        guard case .help(let scroll) = state.overlay else {
            Issue.record("help closed")
            return
        }
        #expect(scroll > 0)
        _ = press(.down, on: &state)
        #expect(state.overlay == .help(scroll: scroll), "the end of the list")
        _ = press(.escape, on: &state)
        #expect(state.overlay == nil)
        _ = press(.function(1), .function(1), on: &state)
        #expect(state.overlay == nil)
    }

    @Test func helpNamesEveryDeviceKeyAndTheAppsKeys() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.notes"
        let keys = state.helpSections(device: device).flatMap(\.hints).map(\.keys)
        for key in [
            "F1  ?", "F2  l", "F3  Ctrl-P", "F4", "Tab  Shift-Tab", "Ctrl-O", "Esc", "Ctrl-L", "Ctrl-Q", "↑ ↓", "n",
        ] {
            #expect(keys.contains(key), "\(key)")
        }
        #expect(state.helpSections(device: device).last?.title == "Notes (when the app has the focus)")
    }

    @Test func thePhoneSwitcherOffersRecentAppsHomeAndTheHandoffItem() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.notes"
        state.recentApps = ["com.example.notes", "com.example.map"]
        _ = press(.function(4), on: &state)
        #expect(state.overlay == .switcher(selection: 1), "the previous app, as Alt-Tab")
        #expect(
            state.switcherItems(device: device) == [
                .app(bundleIdentifier: "com.example.notes"), .app(bundleIdentifier: "com.example.map"), .home,
                .handoff(Fixture.laptopOffer),
            ])
        #expect(press(.enter, on: &state) == [.bringToFront(bundleIdentifier: "com.example.map")])
        #expect(state.recentApps == ["com.example.map", "com.example.notes"])
        _ = press(.function(4), .up, on: &state)
        #expect(state.overlay == .switcher(selection: 0))
        #expect(
            press(.up, .enter, on: &state) == [
                .chooseOffer("laptop"), .bringToFront(bundleIdentifier: "com.example.notes"),
            ])
    }

    @Test func quittingAnAppFromTheSwitcherTerminatesItAndGoesHomeIfItWasInFront() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.notes"
        state.recentApps = ["com.example.notes", "com.example.map"]
        _ = press(.function(4), .up, on: &state)
        #expect(state.overlay == .switcher(selection: 0))
        #expect(
            press(.character("x"), on: &state) == [
                .bringToFront(bundleIdentifier: nil), .terminate(bundleIdentifier: "com.example.notes"),
            ])
        #expect(state.foregroundApp == nil)
        #expect(state.recentApps == ["com.example.map"], "its card goes")
        #expect(state.overlay == .switcher(selection: 0), "the switcher stays, on the next card")
        #expect(state.notice?.text.contains("Quit Notes") == true)
        #expect(
            press(.delete, on: &state) == [.terminate(bundleIdentifier: "com.example.map")], "an app in the background")
        #expect(state.recentApps.isEmpty)
        #expect(press(.character("x"), on: &state).isEmpty, "home is not an app")
    }

    @Test func theLaptopDockStartsAtTheAppInFront() {
        var state = Fixture.state(Fixture.laptop)
        state.foregroundApp = "com.example.map"
        let device = Fixture.device(Fixture.laptop, offers: [Fixture.phoneOffer])
        _ = press(.function(4), on: &state, device: device)
        #expect(state.switcherItems(device: device).first == .handoff(Fixture.phoneOffer))
        #expect(state.overlay == .switcher(selection: 2))
        _ = press(.escape, on: &state, device: device)
        #expect(state.overlay == nil)
    }

    @Test func ctrlOContinuesTheFeaturedOffer() {
        var state = Fixture.state()
        #expect(
            press(.control("o"), on: &state) == [
                .chooseOffer("laptop"), .bringToFront(bundleIdentifier: "com.example.notes"),
            ])
        var empty = Fixture.state()
        #expect(press(.control("o"), on: &empty, device: Fixture.device(offers: [Fixture.tabletOffer])).isEmpty)
        #expect(empty.notice?.text == "No activity is offered nearby")
    }

    // MARK: Locking

    @Test func ctrlLRedrawsAndNeverLocks() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.notes"
        #expect(press(.control("l"), on: &state).isEmpty)
        #expect(!state.isLocked)
        #expect(state.foregroundApp == "com.example.notes")
    }

    @Test func enterOnAnOfferNothingHereClaimsExplainsInsteadOfFailing() {
        var state = Fixture.state()
        state.focus = .nearby
        state.nearbySelection = "tablet"
        let effects = press(.enter, on: &state)
        #expect(effects.isEmpty, "no continuation starts, so none fails with 4608")
        guard case .explanation(let explanation) = state.overlay else {
            Issue.record("no explanation: \(String(describing: state.overlay))")
            return
        }
        #expect(explanation.text.contains("No app on Phone"))
        #expect(explanation.text.contains("from Tablet"))
        // The same verdict as `handoff doctor`, by its rule.
        #expect(explanation.rule?.hasPrefix("Rule type-claimed (handoff doctor): ") == true)
        let text = Fixture.render(state, Fixture.device()).text()
        #expect(text.contains("Can't continue here"))
        #expect(!text.contains("4608"))
        _ = press(.enter, on: &state)
        #expect(state.overlay == nil)
    }

    @Test func lockingThenAcceptingThePromptUnlocksAndContinues() {
        var state = Fixture.state()
        #expect(press(.control("p"), on: &state) == [.setLocked(true)], "the device system hears of the lock")
        #expect(state.isLocked)
        #expect(press(.character("2"), .tab, .control("o"), on: &state).isEmpty, "a locked device ignores other keys")
        #expect(state.focus == .main)
        #expect(
            press(.enter, on: &state) == [
                .setLocked(false), .chooseOffer("laptop"), .bringToFront(bundleIdentifier: "com.example.notes"),
            ])
        #expect(!state.isLocked)
    }

    @Test func spaceUnlocksWithoutContinuing() {
        var state = Fixture.state()
        #expect(press(.function(3), on: &state) == [.setLocked(true)])
        #expect(press(.function(3), on: &state).isEmpty, "locking a locked device changes nothing")
        #expect(press(.character(" "), on: &state) == [.setLocked(false)])
        #expect(!state.isLocked)
    }

    @Test func aLockedLaptopOnlyUnlocks() {
        var state = Fixture.state(Fixture.laptop)
        let device = Fixture.device(Fixture.laptop, offers: [Fixture.phoneOffer])
        _ = press(.function(3), on: &state, device: device)
        #expect(press(.enter, on: &state, device: device) == [.setLocked(false)])
        #expect(!state.isLocked)
    }

    // MARK: Continuing

    @Test func escapeCancelsAContinuationInProgress() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.notes"
        let pending = DeviceSnapshot.PendingInfo(
            peer: Fixture.laptop, bundleIdentifier: "com.example.notes",
            activityType: Fixture.notesType, phase: .askingApp, chosenAt: Fixture.now)
        #expect(press(.escape, on: &state, device: Fixture.device(pending: pending)) == [.cancelContinuation])
        #expect(state.foregroundApp == "com.example.notes")
    }

    @Test func willContinueBringsTheContinuingAppToTheFront() {
        var state = Fixture.state()
        let event = LifecycleEvent(
            time: Fixture.now, device: "Phone",
            .willContinue(
                Fixture.continuation, Fixture.laptopPeer, bundleIdentifier: "com.example.browser",
                activityType: Fixture.notesType, appShowsProgress: true))
        #expect(
            state.update(.lifecycleEventRecorded(event), device: device) == [
                .bringToFront(bundleIdentifier: "com.example.browser")
            ])
        #expect(state.update(.lifecycleEventRecorded(event), device: device).isEmpty, "already in front")
    }

    /// Apple shows its alert only when the app does not implement didFailToContinue…: a failure
    /// alone is a notice; the system's alert follows `systemShowedError`.
    @Test func onlyTheSystemsOwnErrorIsAnAlert() {
        var state = Fixture.state()
        let error = HandoffError(.remoteApplicationTimedOut, "no payload from Laptop within 5 s")
        let failed = LifecycleEvent(
            time: Fixture.now, device: "Phone",
            .continuationFailed(
                Fixture.continuation, Fixture.laptopPeer, bundleIdentifier: "com.example.notes",
                activityType: Fixture.notesType, error))
        _ = state.update(.lifecycleEventRecorded(failed), device: device)
        #expect(state.overlay == nil, "the app was told; it shows what it wants")
        #expect(state.notice?.text.contains("Laptop") == true)
        let shown = LifecycleEvent(
            time: Fixture.now, device: "Phone",
            .systemShowedError(bundleIdentifier: "com.example.notes", activityType: Fixture.notesType, error))
        _ = state.update(.lifecycleEventRecorded(shown), device: device)
        let marked = ContinuationAlert(
            code: .remoteApplicationTimedOut, reason: "no payload from Laptop within 5 s",
            peer: "Laptop", bundleIdentifier: "com.example.notes", shownBySystem: true)
        #expect(state.overlay == .alert(marked))
        #expect(press(.character("x"), on: &state).isEmpty)
        #expect(state.overlay == .alert(marked), "only Enter, Esc or Space dismiss it")
        _ = press(.enter, on: &state)
        #expect(state.overlay == nil)
    }

    @Test func aCancellationIsANoticeNotAnAlert() {
        var state = Fixture.state()
        let cancelled = LifecycleEvent(
            time: Fixture.now, device: "Phone",
            .continuationFailed(
                Fixture.continuation, Fixture.laptopPeer, bundleIdentifier: nil, activityType: nil,
                HandoffError(.userCancelled, "the user cancelled the continuation")))
        _ = state.update(.lifecycleEventRecorded(cancelled), device: device)
        #expect(state.overlay == nil)
        #expect(state.notice?.text == "Continuation cancelled; both devices keep their state")
    }

    @Test func theOriginShowsContinuedOnForAWhile() {
        var state = Fixture.state()
        let event = LifecycleEvent(
            time: Fixture.now, device: "Phone",
            .wasContinued(
                Fixture.continuation, PeerReference(id: "tablet", name: "Tablet"),
                ActivityReference(id: UUID(), activityType: Fixture.notesType, bundleIdentifier: "com.example.notes")))
        _ = state.update(.lifecycleEventRecorded(event), device: device)
        #expect(
            state.notice
                == ScreenState.Notice(
                    text: "Continued on Tablet", role: .success,
                    expires: Fixture.now.addingTimeInterval(ScreenState.noticeDuration)))
        _ = state.update(.clockTicked(Fixture.now.addingTimeInterval(5)), device: device)
        #expect(state.notice != nil)
        _ = state.update(.clockTicked(Fixture.now.addingTimeInterval(6)), device: device)
        #expect(state.notice == nil)
    }

    @Test func anAppThatOpensAURLComesToTheFront() {
        var state = Fixture.state()
        state.overlay = .help(scroll: 0)
        #expect(
            state.update(.appOpenedURL(bundleIdentifier: "com.example.browser"), device: device)
                == [.bringToFront(bundleIdentifier: "com.example.browser")])
        #expect(state.overlay == nil)
    }

    @Test func anAppThatIsGoneIsNoLongerInFront() {
        var state = Fixture.state()
        state.foregroundApp = "com.example.gone"
        _ = state.update(.clockTicked(Fixture.now), device: device)
        #expect(state.foregroundApp == nil)
    }

    @Test func networkAndSizeChangesAreRemembered() {
        var state = Fixture.state()
        _ = state.update(.networkChanged(.offline), device: device)
        #expect(state.network == .offline)
        #expect(state.nearbyRows(device: device).map(\.peer.name) == ["Laptop", "Tablet"])
        _ = state.update(.terminalResized(Size(width: 100, height: 30)), device: device)
        #expect(state.size == Size(width: 100, height: 30))
    }
}

@Suite("The lab's keys on the device")
struct LabKeyTests {
    @Test func f8OpensTheFaultsPanelWhereEnterArmsOnceAndSKeepsItArmed() {
        var state = Fixture.state()
        let device = Fixture.device()
        #expect(state.update(.keyPressed(.function(8)), device: device).isEmpty)
        #expect(state.overlay == .faults(selection: 0))
        _ = state.update(.keyPressed(.down), device: device)
        #expect(state.overlay == .faults(selection: 1))
        #expect(state.update(.keyPressed(.enter), device: device) == [.armFault(Fault.allCases[1], sticky: false)])
        #expect(state.overlay == nil, "a choice closes the panel: the status bar and the strike are in sight")
        _ = state.update(.keyPressed(.function(8)), device: device)
        _ = state.update(.keyPressed(.down), device: device)
        #expect(
            state.update(.keyPressed(.character("s")), device: device) == [.armFault(Fault.allCases[1], sticky: true)])
        #expect(state.overlay == nil)
        _ = state.update(.keyPressed(.function(8)), device: device)
        _ = state.update(.keyPressed(.down), device: device)
        #expect(state.update(.keyPressed(.character("x")), device: device) == [.disarmFault(Fault.allCases[1])])
        #expect(state.overlay == nil)
        _ = state.update(.keyPressed(.function(8)), device: device)
        _ = state.update(.keyPressed(.escape), device: device)
        #expect(state.overlay == nil)
    }

    @Test func f6TurnsStepModeOnAndF7GoesOnOnlyWhenPaused() {
        var state = Fixture.state()
        var device = Fixture.device()
        #expect(state.update(.keyPressed(.function(6)), device: device) == [.setStepping(true)])
        device.isStepping = true
        #expect(state.update(.keyPressed(.function(7)), device: device).isEmpty, "nothing is paused")
        device.pausedAt = .fetch(from: "Laptop")
        #expect(state.update(.keyPressed(.function(7)), device: device) == [.stepNext])
    }
}
