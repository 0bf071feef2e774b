import Foundation
import HandoffCore
import TerminalCells

extension ScreenState {
    /// Applies what happened to the screen's state and returns what the device should do, in
    /// order. Pure: `device` is a picture of the device taken just before.
    package mutating func update(_ message: ScreenMessage, device snapshot: DeviceSnapshot) -> [ScreenEffect] {
        if let app = foregroundApp, snapshot.app(app)?.canOpen != true { foregroundApp = nil }
        switch message {
        case .keyPressed(let key):
            return handleKey(key, snapshot)
        case .appIgnoredKey(let key):
            return handleKeyTheAppIgnored(key, snapshot)
        case .appOpenedURL(let bundle):
            guard snapshot.app(bundle)?.canOpen == true else { return [] }
            overlay = nil
            focus = .main
            return open(bundle)
        case .networkChanged(let status):
            network = status
            return []
        case .lifecycleEventRecorded(let event):
            return handle(event, snapshot)
        case .clockTicked(let time):
            now = time
            if let notice, notice.expires <= time { self.notice = nil }
            return []
        case .terminalResized(let newSize):
            size = newSize
            return []
        }
    }

    // MARK: Keys

    private mutating func handleKey(_ key: Key, _ snapshot: DeviceSnapshot) -> [ScreenEffect] {
        if let deviceKey = deviceKey(key), deviceKey.worksOverOverlays,
            let effects = perform(deviceKey.action, key, snapshot)
        {
            return effects
        }
        switch overlay {
        case .help(let scroll):
            scrollHelp(key, from: scroll, snapshot)
            return []
        case .alert, .explanation:
            if key == .enter || key == .escape || key == .character(" ") { overlay = nil }
            return []
        case .faults(let selection):
            return handleFaultsKey(key, selection, snapshot)
        case .timeline(let cursor):
            handleTimelineKey(key, cursor, snapshot)
            return []
        case .inspector(let inspector):
            handleInspectorKey(key, inspector, snapshot)
            return []
        case .switcher, nil:
            break
        }
        if isLocked { return handleLockScreenKey(key, snapshot) }
        if let deviceKey = deviceKey(key), let effects = perform(deviceKey.action, key, snapshot) { return effects }
        if case .switcher(let selection) = overlay { return handleSwitcherKey(key, selection, snapshot) }
        switch focus {
        case .nearby:
            return handleNearbyKey(key, snapshot)
        case .log:
            handleLogKey(key, snapshot)
            return []
        case .main:
            if foregroundApp != nil { return [.sendKeyToApp(key)] }
            return handleHomeKey(key, snapshot)
        }
    }

    /// Does what a device key (``deviceKeys``) does; nil when it does nothing here, and the key
    /// goes on (Esc with no continuation in progress).
    private mutating func perform(_ action: DeviceKeyAction, _ key: Key, _ snapshot: DeviceSnapshot) -> [ScreenEffect]?
    {
        switch action {
        case .quit:
            return [.quit]
        case .help:
            toggleHelp()
        case .cancelContinuation:
            guard snapshot.pending != nil else { return nil }
            overlay = nil
            return [.cancelContinuation]
        case .redraw:
            // Ctrl-L redraws the whole screen (the terminal runner does it); never the app's.
            break
        case .lock:
            let wasLocked = isLocked
            isLocked = true
            overlay = nil
            if !wasLocked { return [.setLocked(true)] }
        case .log:
            toggleLog()
        case .moveFocus:
            moveFocus(forward: key == .tab)
        case .switcher:
            toggleSwitcher(snapshot)
        case .faults:
            overlay = .faults(selection: 0)
        case .timeline:
            overlay = .timeline(TimelineCursor())
        case .inspector:
            openInspector(snapshot)
        case .stepMode:
            let on = !snapshot.isStepping
            show(
                on ? "Step mode: a continuation pauses before each phase · F7 goes on" : "Step mode off", role: .accent)
            return [.setStepping(on)]
        case .stepNext:
            guard snapshot.pausedAt != nil else {
                show(
                    snapshot.isStepping
                        ? "Nothing is paused: step mode waits for a continuation" : "Step mode is off (F6)", role: .dim)
                return []
            }
            return [.stepNext]
        case .continueOffer:
            guard let offer = snapshot.featuredOffer else {
                show("No activity is offered nearby", role: .dim)
                return []
            }
            return continueOffer(offer, snapshot)
        }
        return []
    }

    /// Does what a device key's letter does outside apps (`inApp`: the app in front ignored it);
    /// false when `key` is no device key's letter.
    private mutating func performLetter(_ key: Key, _ snapshot: DeviceSnapshot, inApp: Bool = false) -> [ScreenEffect]?
    {
        guard let deviceKey = deviceKey(letter: key, inApp: inApp) else { return nil }
        return perform(deviceKey.action, key, snapshot)
    }

    private mutating func handleKeyTheAppIgnored(_ key: Key, _ snapshot: DeviceSnapshot) -> [ScreenEffect] {
        switch key {
        case .escape, .character("h"):
            return open(nil)
        default:
            return performLetter(key, snapshot, inApp: true) ?? []
        }
    }

    private mutating func handleLockScreenKey(_ key: Key, _ snapshot: DeviceSnapshot) -> [ScreenEffect] {
        switch key {
        case .enter:
            isLocked = false
            if promptsOnLockScreen, let offer = snapshot.featuredOffer {
                return [.setLocked(false)] + continueOffer(offer, snapshot)
            }
            return [.setLocked(false)]
        case .character(" "):
            isLocked = false
            return [.setLocked(false)]
        case .function(2):
            toggleLog()
            return []
        default:
            return []
        }
    }

    private mutating func handleHomeKey(_ key: Key, _ snapshot: DeviceSnapshot) -> [ScreenEffect] {
        let apps = snapshot.apps.filter(\.canOpen)
        let columns = HomeScreenView.columns(forWidth: frameLayout.screen.width)
        let selected = min(max(0, homeSelection), max(0, apps.count - 1))
        switch key {
        case .left: homeSelection = max(0, selected - 1)
        case .right: homeSelection = min(max(0, apps.count - 1), selected + 1)
        case .up: homeSelection = selected >= columns ? selected - columns : selected
        case .down: homeSelection = selected + columns < apps.count ? selected + columns : selected
        case .enter, .character(" "):
            guard selected < apps.count else { return [] }
            return open(apps[selected].bundleIdentifier)
        case .character("q"):
            return [.quit]
        case .character(let c) where c.isASCII && c.isWholeNumber && c != "0":
            let index = Int(String(c))! - 1
            guard index < apps.count else {
                show("There is no app \(index + 1)", role: .dim)
                return []
            }
            homeSelection = index
            return open(apps[index].bundleIdentifier)
        default:
            return performLetter(key, snapshot) ?? []
        }
        return []
    }

    private mutating func handleNearbyKey(_ key: Key, _ snapshot: DeviceSnapshot) -> [ScreenEffect] {
        let rows = nearbyRows(device: snapshot)
        guard let index = selectedNearbyIndex(in: rows) else {
            if key == .escape { focus = .main }
            return performLetter(key, snapshot) ?? []
        }
        switch key {
        case .up, .character("k"): nearbySelection = rows[max(0, index - 1)].peer.id
        case .down, .character("j"): nearbySelection = rows[min(rows.count - 1, index + 1)].peer.id
        case .home: nearbySelection = rows[0].peer.id
        case .end: nearbySelection = rows[rows.count - 1].peer.id
        case .enter, .character(" "):
            nearbySelection = rows[index].peer.id
            guard let offer = rows[index].offer else {
                show("\(rows[index].peer.name) offers no activity", role: .dim)
                return []
            }
            return continueOffer(offer, snapshot)
        case .escape: focus = .main
        default: return performLetter(key, snapshot) ?? []
        }
        return []
    }

    private mutating func handleLogKey(_ key: Key, _ snapshot: DeviceSnapshot) {
        let newest = 0
        let oldest = max(0, snapshot.lifecycle.count - 1)
        let page = max(1, ((layout.log?.height ?? 10) - 2) / 2)
        switch key {
        case .up, .character("k"): logScroll += 1
        case .down, .character("j"): logScroll -= 1
        case .pageUp: logScroll += page
        case .pageDown: logScroll -= page
        case .home: logScroll = oldest
        case .end: logScroll = newest
        case .escape: focus = .main
        default: _ = performLetter(key, snapshot)
        }
        logScroll = min(max(newest, logScroll), oldest)
    }

    /// Opens the inspector on Nearby's selection when Nearby has the focus, else on the latest
    /// continuation.
    private mutating func openInspector(_ snapshot: DeviceSnapshot) {
        var subject = Inspection.Subject.latest
        if focus == .nearby, let index = selectedNearbyIndex(in: nearbyRows(device: snapshot)) {
            subject = .peer(nearbyRows(device: snapshot)[index].peer.id)
        }
        overlay = .inspector(InspectorState(subject: subject))
    }

    /// The inspector: ←→ (Tab) change tabs, ↑↓ PgUp PgDn Home End scroll, Esc (F10, q) closes.
    private mutating func handleInspectorKey(_ key: Key, _ inspector: InspectorState, _ snapshot: DeviceSnapshot) {
        var next = inspector
        let body = InspectorView.body(in: size)
        let count = InspectorView.lines(snapshot.inspection, tab: inspector.tab, width: body.width).count
        let maximum = max(0, count - body.height)
        let tabs = InspectorState.Tab.allCases
        switch key {
        case .escape, .function(10), .character("q"), .character("i"):
            overlay = nil
            return
        case .right, .tab, .character("l"):
            next.tab = tabs[(inspector.tab.rawValue + 1) % tabs.count]
            next.scroll = 0
        case .left, .backTab, .character("h"):
            next.tab = tabs[(inspector.tab.rawValue + tabs.count - 1) % tabs.count]
            next.scroll = 0
        case .character("1"), .character("2"), .character("3"):
            if case .character(let c) = key, let n = Int(String(c)) { next.tab = tabs[n - 1] }
            next.scroll = 0
        case .up, .character("k"): next.scroll = min(inspector.scroll, maximum) - 1
        case .down, .character("j"): next.scroll = inspector.scroll + 1
        case .pageUp: next.scroll = min(inspector.scroll, maximum) - max(1, body.height - 1)
        case .pageDown, .character(" "): next.scroll = inspector.scroll + max(1, body.height - 1)
        case .home: next.scroll = 0
        case .end: next.scroll = maximum
        default: break
        }
        if next.tab == inspector.tab { next.scroll = min(max(0, next.scroll), maximum) }
        overlay = .inspector(next)
    }

    /// The timeline: ↑↓ choose an event, PgUp PgDn Home End, ←→ an older or newer continuation,
    /// Space the next page of a long detail (a new selection starts at its top), Esc (F9, t, q)
    /// closes.
    private mutating func handleTimelineKey(_ key: Key, _ cursor: TimelineCursor, _ snapshot: DeviceSnapshot) {
        let model = TimelineModel(snapshot: snapshot, back: cursor.back)
        let last = max(0, model.rows.count - 1)
        let current = min(max(0, cursor.selection ?? last), last)
        let page = TimelineView.pageStep(in: size)
        var next = cursor
        switch key {
        case .escape, .function(9), .character("t"), .character("q"):
            overlay = nil
            return
        case .up, .character("k"): next.selection = max(0, current - 1)
        case .down, .character("j"): next.selection = current + 1 >= last ? nil : current + 1
        case .pageUp: next.selection = max(0, current - page)
        case .pageDown: next.selection = current + page >= last ? nil : current + page
        case .home: next.selection = 0
        case .end: next.selection = nil
        case .left, .character("["), .character("h"):
            next = TimelineCursor(back: min(cursor.back + 1, max(0, model.continuationCount - 1)))
        case .right, .character("]"), .character("l"):
            next = TimelineCursor(back: max(0, cursor.back - 1))
        case .character(" "):
            next.detailPage += 1
        default: break
        }
        if next.selection != cursor.selection || next.back != cursor.back { next.detailPage = 0 }
        overlay = .timeline(next)
    }

    /// The faults panel: ↑↓ choose, Enter arms for the next time, s keeps it armed, x disarms.
    private mutating func handleFaultsKey(_ key: Key, _ selection: Int, _ snapshot: DeviceSnapshot) -> [ScreenEffect] {
        let faults = Fault.allCases
        let current = min(max(0, selection), faults.count - 1)
        let fault = faults[current]
        switch key {
        case .up: overlay = .faults(selection: (current + faults.count - 1) % faults.count)
        case .down: overlay = .faults(selection: (current + 1) % faults.count)
        case .escape, .function(8): overlay = nil
        // Each choice closes the panel, so the status bar (what is armed) and the notice that a
        // fault struck are in sight for the continuation that follows; F8 opens it again.
        case .enter:
            overlay = nil
            show("Armed for the next time: \(fault)", role: .warning)
            return [.armFault(fault, sticky: false)]
        case .character("s"):
            overlay = nil
            show("Armed until disarmed: \(fault)", role: .warning)
            return [.armFault(fault, sticky: true)]
        case .character("x"), .delete:
            overlay = nil
            show("Disarmed: \(fault)", role: .dim)
            return [.disarmFault(fault)]
        default:
            break
        }
        return []
    }

    private mutating func handleSwitcherKey(_ key: Key, _ selection: Int, _ snapshot: DeviceSnapshot) -> [ScreenEffect]
    {
        let items = switcherItems(device: snapshot)
        guard !items.isEmpty else {
            overlay = nil
            return []
        }
        let current = min(max(0, selection), items.count - 1)
        switch key {
        case .left, .up:
            overlay = .switcher(selection: (current + items.count - 1) % items.count)
        case .right, .down:
            overlay = .switcher(selection: (current + 1) % items.count)
        case .escape:
            overlay = nil
        case .character("x"), .delete:
            guard case .app(let bundle) = items[current] else { return [] }
            return quit(bundle, selection: current, snapshot)
        case .enter, .character(" "):
            overlay = nil
            switch items[current] {
            case .handoff(let offer): return continueOffer(offer, snapshot)
            case .app(let bundle):
                focus = .main
                return open(bundle)
            case .home:
                focus = .main
                return open(nil)
            }
        default:
            break
        }
        return []
    }

    // MARK: Lifecycle events

    /// What the screen shows for a lifecycle event: it reads the typed case, never its text.
    private mutating func handle(_ event: LifecycleEvent, _ snapshot: DeviceSnapshot) -> [ScreenEffect] {
        func name(of bundle: String?) -> String { snapshot.app(bundle)?.name ?? bundle ?? "The app" }
        switch event.occurrence {
        case .willContinue(_, let peer, let bundle, _, let appShowsProgress):
            // true: the app tells the user itself; false: the system shows the progress.
            if !appShowsProgress {
                show("Continuing in \(name(of: bundle)) from \(peer.name)…", role: .dim, at: event.time)
            }
            guard snapshot.app(bundle)?.canOpen == true else { return [] }
            return open(bundle)
        case .sceneWillContinue(_, let peer, let bundle, _, _):
            show("Continuing in \(name(of: bundle)) from \(peer.name)…", role: .dim, at: event.time)
            guard snapshot.app(bundle)?.canOpen == true else { return [] }
            return open(bundle)
        case .continuationFailed(_, let peer, let bundle, _, let error):
            if error.code == .userCancelled {
                show("Continuation cancelled; both devices keep their state", role: .dim, at: event.time)
            } else if bundle == nil {
                // No app was involved yet: the system reports it.
                overlay = .alert(
                    ContinuationAlert(
                        code: error.code, reason: error.reason, peer: peer.name, bundleIdentifier: nil,
                        shownBySystem: true))
            } else {
                // The app is told (didFailToContinue…); the system shows an alert only if the app
                // does not implement it (systemShowedError, next).
                failedFrom = peer.name
                show(
                    "Continuing from \(peer.name) failed (\(error.code.rawValue)); \(name(of: bundle)) was told",
                    role: .warning,
                    at: event.time,
                    shorter: [
                        "Continuing from \(peer.name) failed (\(error.code.rawValue))",
                        "From \(peer.name): failed (\(error.code.rawValue))",
                        "Failed (\(error.code.rawValue))",
                    ])
            }
        case .systemShowedError(let bundle, _, let error):
            guard error.code != .userCancelled else { return [] }
            if case .alert(var alert) = overlay, alert.code == error.code {
                alert.shownBySystem = true
                alert.bundleIdentifier = alert.bundleIdentifier ?? bundle
                overlay = .alert(alert)
            } else {
                overlay = .alert(
                    ContinuationAlert(
                        code: error.code, reason: error.reason, peer: failedFrom, bundleIdentifier: bundle,
                        shownBySystem: true))
            }
        case .stepPaused:
            // The pause is drawn from the device's state for as long as it lasts (the loading
            // box, or the step panel), whole at any width: no notice that is cut and goes away.
            break
        case .faultInjected(_, let fault):
            // Say it struck, replacing "Armed for the next time".
            show("Fault struck: \(fault)", role: .warning, at: event.time)
        case .notHandled(_, let peer, let bundle, _, let reason):
            show(
                "\(name(of: bundle)) did not handle the activity from \(peer.name): \(reason)", role: .warning,
                at: event.time)
        case .webRouted(_, let host, _, .notApproved(let refusals)) where overlay == nil:
            // Apps name the host but their sites do not approve them here: say why, per app and domain.
            overlay = .explanation(Explanation(webPageOnHost: host, refusals: refusals, snapshot: snapshot))
        case .continued(_, let peer, _, .application, _), .continued(_, let peer, _, .documentReopened, _):
            show("Continued from \(peer.name)", role: .success, at: event.time)
        case .continued(_, let peer, _, .scene, _):
            // scene(_:continue:) answers nothing: the system counts the activity continued but
            // cannot know whether the app took it, so it says so without a ✓ over what the app
            // itself says (a refusal, say).
            show("Continued from \(peer.name)", role: .dim, at: event.time)
        case .wasContinued(_, let peer, _):
            show("Continued on \(peer.name)", role: .success, at: event.time)
        default:
            break
        }
        return []
    }

    // MARK: Actions

    /// Shows `bundle` in front (nil: home) and remembers it as the most recent app.
    private mutating func open(_ bundle: String?) -> [ScreenEffect] {
        if let bundle {
            recentApps.removeAll { $0 == bundle }
            recentApps.insert(bundle, at: 0)
        }
        guard bundle != foregroundApp else { return [] }
        foregroundApp = bundle
        return [.bringToFront(bundleIdentifier: bundle)]
    }

    /// The user quits `bundle` from the switcher: its card goes, the screen goes home if it was in
    /// front, and the device terminates it; the switcher stays open on the next item.
    private mutating func quit(_ bundle: String, selection: Int, _ snapshot: DeviceSnapshot) -> [ScreenEffect] {
        recentApps.removeAll { $0 == bundle }
        var effects: [ScreenEffect] = []
        if foregroundApp == bundle {
            foregroundApp = nil
            effects.append(.bringToFront(bundleIdentifier: nil))
        }
        effects.append(.terminate(bundleIdentifier: bundle))
        let remaining = switcherItems(device: snapshot)
        overlay = remaining.isEmpty ? nil : .switcher(selection: min(selection, remaining.count - 1))
        show("Quit \(snapshot.app(bundle)?.name ?? bundle): it starts afresh next time", role: .dim)
        return effects
    }

    private mutating func continueOffer(_ offer: DeviceSnapshot.OfferInfo, _ snapshot: DeviceSnapshot) -> [ScreenEffect]
    {
        if case .unavailable(let why) = offer.route {
            // Nothing here can continue it: the system would not even offer it, so there is no
            // continuation to fail; say why instead.
            overlay = .explanation(Explanation(unavailable: why, offer: offer, device: device.name))
            return []
        }
        overlay = nil
        focus = .main
        // The continuation launches the app first (cold when it is not running, with its scene
        // told the activity's type), then it comes to the front and shows that it is loading.
        var effects: [ScreenEffect] = [.chooseOffer(offer.peer.id)]
        switch offer.route {
        case .app(let bundle, _), .browser(let bundle, _):
            if snapshot.app(bundle)?.canOpen == true { effects += open(bundle) }
        case .web, .unavailable:
            // A web activity's app is known only when its payload arrives; an unavailable one
            // goes to the system, which says why it fails.
            break
        }
        return effects
    }

    private mutating func toggleHelp() {
        if case .help = overlay { overlay = nil } else { overlay = .help(scroll: 0) }
    }

    private mutating func scrollHelp(_ key: Key, from scroll: Int, _ snapshot: DeviceSnapshot) {
        let count = HelpView.rows(helpLines(device: snapshot), width: HelpView.bodyWidth(in: size)).count
        let visible = HelpView.visibleLineCount(in: size, lineCount: count)
        let maximum = max(0, count - visible)
        var next = scroll
        switch key {
        case .up, .character("k"): next -= 1
        case .down, .character("j"): next += 1
        case .pageUp: next -= visible
        case .pageDown, .character(" "): next += visible
        case .home: next = 0
        case .end: next = maximum
        case .escape, .enter, .character("q"), .character("?"):
            overlay = nil
            return
        default: break
        }
        overlay = .help(scroll: min(max(0, next), maximum))
    }

    private mutating func toggleLog() {
        // Hidden when it is drawn (whether asked for or there by room), shown when it is not.
        logMode = isLogVisible ? .hidden : .shown
        logScroll = 0
        if !isLogVisible, focus == .log { focus = .main }
    }

    private mutating func moveFocus(forward: Bool) {
        overlay = nil
        var order: [Focus] = [.main, .nearby]
        if isLogVisible { order.append(.log) }
        let index = order.firstIndex(of: focus) ?? 0
        focus = order[(index + (forward ? 1 : order.count - 1)) % order.count]
    }

    private mutating func toggleSwitcher(_ snapshot: DeviceSnapshot) {
        if case .switcher = overlay {
            overlay = nil
            return
        }
        let items = switcherItems(device: snapshot)
        var selection = 0
        if hasAppSwitcher {
            // Like Alt-Tab: the previous app, when one is open.
            if let current = foregroundApp, items.first == .app(bundleIdentifier: current), items.count > 1 {
                selection = 1
            }
        } else if let index = items.firstIndex(of: .app(bundleIdentifier: foregroundApp ?? "")) {
            selection = index
        }
        overlay = .switcher(selection: selection)
    }

    private mutating func show(_ text: String, role: Role, at time: Date? = nil, shorter: [String] = []) {
        notice = Notice(
            text: text, shorter: shorter, role: role, expires: (time ?? now).addingTimeInterval(Self.noticeDuration))
    }
}
