import DeviceAppKit
import Foundation
import HandoffCore
import TerminalCells

/// The device's screen: owns the ``ScreenState``, feeds it what happens, carries out its
/// ``ScreenEffect``s on the ``Device`` and its apps, and renders frames.
///
/// Like the device and its apps, it is confined to the device's run loop: call every method
/// from there. It never reads a clock: times come with ``render(size:now:)`` (and the device's
/// lifecycle events carry their own).
package final class DeviceScreen {
    package let device: Device
    /// The screen's state after the latest message (for tests and diagnostics).
    package private(set) var state: ScreenState
    /// True once the user asked to quit.
    package private(set) var isQuitRequested = false

    private let apps: [any TerminalApp]
    private let account: String
    private var frontmost: (any TerminalApp)?
    private var inbox: [ScreenMessage] = []
    private var isUpdating = false
    /// The deadline computed with the latest frame; any message since clears it.
    private var renderedDeadline: Date?
    /// The app area's size the apps were last told (``TerminalApp/viewportChanged(to:)``).
    private var toldAppAreaSize: Size?
    /// What peers of the account shared of their lifecycle.
    private var sharedLifecycle = SharedLifecycle()
    /// The inspector's last inspection (F10), made again only when what it shows changed.
    private let inspections = InspectionCache()

    /// Installs `apps` on `device`, launches them, shows the home screen and starts listening to
    /// the device's lifecycle events (a lifecycle observer of it, told after those added before).
    ///
    /// The apps must not be installed already: the screen installs each app's manifest with its
    /// delegate, then calls `launch(application:environment:)` once, and tells every app the
    /// size of the app area then and whenever it changes (a resize, the log pane appearing):
    /// see ``TerminalApp/viewportChanged(to:)``. The environment's `openURL`
    /// is wrapped: a URL goes to the first app whose `open(_:)` takes it, which comes to the
    /// front; only when none does is the given `openURL` called.
    package init(
        device: Device, account: String, apps: [any TerminalApp], environment: AppEnvironment,
        timeZone: TimeZone = .current, now: Date, logMode: ScreenState.LogMode = .hidden
    ) {
        self.device = device
        self.apps = apps
        self.account = account
        state = ScreenState(device: device.info, account: account, now: now, timeZone: timeZone)
        state.logMode = logMode
        // The apps' cloud folder is the device's iCloud container: documents in it get automatic
        // activities, and their URLs arrive in the receiver's container.
        device.ubiquityContainerURL = environment.cloudFolder
        var appEnvironment = environment
        let fallback = environment.openURL
        appEnvironment.openURL = { [weak self] url in
            guard let self, self.open(url) else { return fallback(url) }
        }
        for app in apps {
            let application = device.install(
                app.manifest, delegate: app.delegate, sceneDelegates: app.sceneDelegateClasses)
            app.launch(application: application, environment: appEnvironment)
        }
        tellAppsTheirAreaSize()
        device.bringToFront(nil)
        device.addLifecycleObserver { [weak self] event in self?.send(.lifecycleEventRecorded(event)) }
    }

    /// Handles a key from the terminal. Returns false when the user asked to quit.
    @discardableResult
    package func handle(_ key: Key) -> Bool {
        send(.keyPressed(key))
        return !isQuitRequested
    }

    /// Takes the network's latest state and peers.
    package func update(network: NetworkStatus) {
        guard network != state.network else { return }
        send(.networkChanged(network))
    }

    /// Renders a frame of `size` for the time `now`.
    package func render(size: Size, now: Date) -> Grid {
        if size != state.size { send(.terminalResized(size)) }
        send(.clockTicked(now))
        let view = ScreenView(state: state, device: snapshot())
        let grid = view.render { [apps] bundle, grid, area in
            apps.first { $0.manifest.bundleIdentifier == bundle }?.render(into: &grid, area: area)
        }
        // The frame's own view says when it changes by itself: no second snapshot per frame.
        renderedDeadline = view.nextChange
        return grid
    }

    /// When the screen next changes by itself (the clock's minute, an age, a spinner, a notice
    /// going away), from the time of the latest frame; redraw then.
    package var nextDeadline: Date? {
        renderedDeadline ?? ScreenView(state: state, device: snapshot()).nextChange
    }

    /// A picture of the device as the views see it.
    package func snapshot() -> DeviceSnapshot {
        var snapshot = DeviceSnapshot(device: device, account: account, terminalApps: apps)
        snapshot.sharedLifecycle = sharedLifecycle
        if case .inspector(let inspector) = state.overlay {
            snapshot.inspection = inspections.inspection(
                subject: inspector.subject, device: device, shared: sharedLifecycle.entries)
        }
        return snapshot
    }

    /// Lifecycle events `peer` shared (it left out `dropped` over its rate limit), for the timeline.
    package func receiveShared(
        from peer: SharedLifecycle.Sender, _ entries: [LifecycleEntry], dropped: Int = 0, at now: Date = Date()
    ) {
        sharedLifecycle.ownName = device.info.name
        sharedLifecycle.receive(entries, from: peer, at: now, dropped: dropped)
        renderedDeadline = nil
    }

    // MARK: Messages and effects

    /// Queues `message` and, unless already updating, handles the queue in order (effects may
    /// make the device record events, which arrive here while an update is running).
    private func send(_ message: ScreenMessage) {
        renderedDeadline = nil
        inbox.append(message)
        guard !isUpdating else { return }
        isUpdating = true
        defer { isUpdating = false }
        repeat {
            while !inbox.isEmpty {
                let next = inbox.removeFirst()
                let effects = state.update(next, device: snapshot())
                for effect in effects { perform(effect) }
            }
            // Once the state has settled, so that the apps hear of the final size only; what they
            // do about it (a map's region needs saving) may queue more messages.
            tellAppsTheirAreaSize()
        } while !inbox.isEmpty
    }

    /// Tells every app the app area's size when it differs from the size they were told last.
    /// While the device is not drawn (the terminal is too small, or the log covers it) the apps
    /// keep the size they were last shown at.
    private func tellAppsTheirAreaSize() {
        let layout = state.layout
        guard !layout.isTooSmall, layout.showsDevice else { return }
        let size = state.frameLayout.appArea.size
        guard size != toldAppAreaSize else { return }
        toldAppAreaSize = size
        for app in apps { app.viewportChanged(to: size) }
    }

    private func perform(_ effect: ScreenEffect) {
        switch effect {
        case .chooseOffer(let peer):
            for app in apps { app.continuationChosen() }
            device.chooseOffer(from: peer)
        case .setLocked(let locked):
            if locked { device.lock() } else { device.unlock() }
        case .setStepping(let on):
            device.isStepping = on
        case .stepNext:
            device.stepNext()
        case .armFault(let fault, let sticky):
            device.arm(fault, sticky: sticky)
        case .disarmFault(let fault):
            device.disarm(fault)
        case .cancelContinuation:
            device.cancelContinuation()
        case .bringToFront(let bundle):
            let app = bundle.flatMap { id in apps.first { $0.manifest.bundleIdentifier == id } }
            let changed = frontmost !== app
            if changed {
                frontmost?.setFrontmost(false)
                frontmost = app
            }
            device.bringToFront(bundle.flatMap { device.application($0) })
            if changed { app?.setFrontmost(true) }
        case .sendKeyToApp(let key):
            guard let app = frontmost, app.handle(key) else {
                inbox.append(.appIgnoredKey(key))
                return
            }
        case .terminate(let bundle):
            guard let app = apps.first(where: { $0.manifest.bundleIdentifier == bundle }) else { return }
            if frontmost === app {
                app.setFrontmost(false)
                frontmost = nil
            }
            if let application = device.application(bundle) { device.terminate(application) }
            app.terminate()
        case .quit:
            isQuitRequested = true
        }
    }

    /// Opens `url` in the first app that takes it, and brings that app to the front.
    private func open(_ url: URL) -> Bool {
        guard let app = apps.first(where: { $0.open(url) }) else { return false }
        send(.appOpenedURL(bundleIdentifier: app.manifest.bundleIdentifier))
        return true
    }
}
