import Foundation
import HandoffCore
import TerminalCells

/// What the simulated device offers its apps: the "SDK" services besides the activity core.
///
/// Like everything an app touches, it is used on the device's run loop only.
package struct AppEnvironment {
    /// This device's name (e.g. "Phone").
    package var deviceName: String
    /// This device's iCloud container: the account's cloud documents, at a path of this device's
    /// own (`Device.ubiquityContainerURL`), or nil when the device runs without cloud documents
    /// (`--no-cloud`).
    package var cloudFolder: URL?
    /// This device's private folder for local-only documents.
    package var localFolder: URL
    /// The device clock.
    package var now: () -> Date
    /// Asks the system to open `url` (http/https opens the Browser, when installed).
    package var openURL: (URL) -> Void
    /// Writes a line to the device's log file (never to the screen).
    package var log: (String) -> Void
    /// Asks the device to redraw soon (for example when background work has progressed).
    package var setNeedsDisplay: () -> Void
    /// Runs `work` later on the device's run loop; callable from any thread or task.
    ///
    /// This is how background work (continuation stream transfers) hands its results back to an
    /// app, which may only be touched on the run loop. It never runs `work` synchronously. The
    /// default uses the main dispatch queue, which is right only for a device whose run loop is
    /// the main thread: a device that runs elsewhere (`DeviceHost`'s queue) must pass its own,
    /// e.g. `{ work in host.perform { _ in work() } }`.
    package var perform: @Sendable (@escaping @Sendable () -> Void) -> Void

    package init(
        deviceName: String, cloudFolder: URL?, localFolder: URL, now: @escaping () -> Date = Date.init,
        openURL: @escaping (URL) -> Void = { _ in }, log: @escaping (String) -> Void = { _ in },
        setNeedsDisplay: @escaping () -> Void = {},
        perform: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { work in
            DispatchQueue.main.async(execute: work)
        }
    ) {
        self.deviceName = deviceName
        self.cloudFolder = cloudFolder
        self.localFolder = localFolder
        self.now = now
        self.openURL = openURL
        self.log = log
        self.setNeedsDisplay = setNeedsDisplay
        self.perform = perform
    }
}

/// A key and what it does, for the device's footer and help overlay.
package struct KeyHint: Hashable, Sendable {
    package var keys: String
    package var action: String

    package init(_ keys: String, _ action: String) {
        self.keys = keys
        self.action = action
    }
}

/// An app that runs on the simulated terminal device.
///
/// An app knows the activity core (`UserActivity`, `Responder`, `Document`, `Application` and its
/// delegate callbacks) and the cell grid, nothing else, the way a real app knows only the SDK.
/// The device installs it (``manifest`` plus ``delegate``), calls ``launch(application:environment:)``
/// once, tells it the size of its area (``viewportChanged(to:)``) at once and whenever that size
/// changes, then renders it into the main area while it is frontmost and passes it the keys the
/// device itself does not use.
///
/// Rendering only draws: what the app shows, scrolls by or hands off follows the size it was
/// told, never the area of the last frame (a frame may be skipped, or drawn for a picture).
package protocol TerminalApp: AnyObject {
    /// The app's Info.plist (and entitlements), as parsed.
    var manifest: AppManifest { get }
    /// The application delegate to install (often the app itself).
    var delegate: any ApplicationDelegate { get }
    /// The scene delegate classes the app links. When its manifest has a scene manifest
    /// (`UIApplicationSceneManifest`), the system creates each scene's delegate from the one its
    /// `UISceneDelegateClassName` names (default: none).
    var sceneDelegateClasses: [any SceneDelegate.Type] { get }
    /// A one-cell glyph for the home screen, dock and lock-screen prompt (e.g. "▤").
    var glyph: Character { get }
    /// The title of the app's current screen (shown in the app bar).
    var title: String { get }
    /// The keys the app uses, for the footer and the help overlay.
    var keyHints: [KeyHint] { get }

    /// Called once, after the app is installed on the device.
    func launch(application: Application, environment: AppEnvironment)
    /// The app became frontmost (`true`) or went to the background (`false`).
    func setFrontmost(_ frontmost: Bool)
    /// The size of the area the app draws in changed (and once after launch): the terminal was
    /// resized, or the device's layout changed (the log pane appeared, say). Every app is told,
    /// frontmost or not: a background app's activity can still be saved and handed off.
    func viewportChanged(to size: Size)
    /// Draws the app's screen into `area` of `grid` (normally of the size last given to
    /// ``viewportChanged(to:)``), changing nothing in the app.
    func render(into grid: inout Grid, area: Rect)
    /// Handles a key while the app is frontmost; returns `false` when the key is not the app's.
    func handle(_ key: Key) -> Bool
    /// Asks the app to show `url` (only apps that claim web pages, such as the Browser, do).
    /// Returns `false` when the app does not open URLs.
    func open(_ url: URL) -> Bool
    /// The user quit the app from the app switcher: the system has already disconnected its
    /// scenes, closed its documents and ended its activities (`Device.terminate(_:)`). The app
    /// forgets everything a new process would not have (what it showed, its windows, transfers),
    /// so that its next launch is really cold. It stays installed: ``launch(application:environment:)``
    /// is not called again (default: nothing to forget).
    func terminate()
    /// The user chose a Handoff offer on this device (Ctrl-O, Enter in Nearby, the lock screen):
    /// what the app said about an earlier continuation (its failure) is over. It comes before
    /// `willContinue`, which a launch or step mode may hold back while the system's progress box
    /// shows (default: nothing to forget).
    func continuationChosen()
}

/// How an app talks to the system for Handoff (`handoff device --app-model`).
package enum AppModel: String, CaseIterable, Sendable {
    /// The app delegate's callbacks (`application(_:continue:restorationHandler:)`), Apple's path
    /// before scenes and still AppKit's: an Info.plist without `UIApplicationSceneManifest`.
    case delegate
    /// Scenes: an Info.plist with `UIApplicationSceneManifest` naming the app's scene delegate
    /// class, which gets `scene(_:willConnectTo:options:)`, `scene(_:continue:)` and the rest.
    case scenes
}

extension TerminalApp where Self: ApplicationDelegate {
    /// The app itself, known to be one without asking at run time (a first cast to a protocol
    /// looks through all of the program's conformances).
    package var delegate: any ApplicationDelegate { self }
}

extension TerminalApp {
    package var delegate: any ApplicationDelegate {
        guard let delegate = self as? any ApplicationDelegate else {
            preconditionFailure("\(type(of: self)) must provide an application delegate")
        }
        return delegate
    }
    package var sceneDelegateClasses: [any SceneDelegate.Type] { [] }
    package func setFrontmost(_ frontmost: Bool) {}
    package func viewportChanged(to size: Size) {}
    package func open(_ url: URL) -> Bool { false }
    package func terminate() {}
    package func continuationChosen() {}
}
