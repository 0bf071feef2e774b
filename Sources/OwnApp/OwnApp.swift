import DeviceAppKit
import Foundation
import HandoffCore
import HandoffManifest
import TerminalCells

/// Your own app on the terminal device (`handoff device --app PATH`): its manifest, read from its
/// files, installed with a generic screen. The screen shows the activity (`--activity FILE`, or
/// the one continued here) as a tree of keys, types and values, its payload's size against
/// Apple's 3 KB guidance, and lets the tester make it current, resign it, invalidate it, and edit
/// a string or a number (which sets `needsSave`, as the app would).
///
/// The app keeps its state in a responder (``OwnAppState``) that writes it into the activity at
/// each save and takes a continued activity's `userInfo` on restore. An app whose Info.plist has
/// a scene manifest runs with scenes (``OwnAppSceneDelegate`` stands in for its class, or for
/// SwiftUI's); otherwise with the app delegate. Used on its device's run loop only.
package final class OwnApp: TerminalApp, ApplicationDelegate {
    package let manifest: AppManifest
    package let glyph: Character = "◆"
    /// The activity file, if one was given and this app claims its type (or is the first own app).
    package let file: ActivityFile?
    package private(set) var screen = OwnAppScreen()
    let state = OwnAppState()
    /// The activity the screen acts on: the file's once made, or the one continued here.
    private(set) var activity: UserActivity?
    /// Where the shown state came from.
    private(set) var source: String
    private(set) var application: Application?
    private(set) var environment: AppEnvironment?
    let configuration: DeviceConfiguration

    /// - Parameters:
    ///   - manifest: The app as its files describe it.
    ///   - productName: The name to show when the Info.plist has neither `CFBundleDisplayName`
    ///     nor `CFBundleName` (the target's or the bundle's folder's name).
    ///   - file: The activity this app shows and offers.
    package init(
        manifest: AppManifest, productName: String? = nil, file: ActivityFile?,
        configuration: DeviceConfiguration = DeviceConfiguration()
    ) {
        var manifest = manifest
        manifest.displayName = Self.displayName(of: manifest, productName: productName)
        if var scenes = manifest.sceneManifest {
            let name = String(reflecting: OwnAppSceneDelegate.self)
            if scenes.configurations.isEmpty {
                scenes.configurations = [.init(role: "UIWindowSceneSessionRoleApplication", delegateClass: name)]
            }
            for index in scenes.configurations.indices { scenes.configurations[index].delegateClass = name }
            manifest.sceneManifest = scenes
        }
        self.manifest = manifest
        self.file = file
        self.configuration = configuration
        source = file.map { URL(fileURLWithPath: $0.file).lastPathComponent } ?? "nowhere"
        if let file { state.userInfo = file.userInfo }
        state.app = self
    }

    /// `CFBundleDisplayName`, else `CFBundleName` (the manifest's display name when it is not the
    /// bundle identifier, its fallback), else the product name, else the bundle identifier's last
    /// component.
    package static func displayName(of manifest: AppManifest, productName: String?) -> String {
        if manifest.displayName != manifest.bundleIdentifier, !manifest.displayName.isEmpty {
            return manifest.displayName
        }
        if let productName, !productName.isEmpty { return productName }
        return manifest.bundleIdentifier.split(separator: ".").last.map(String.init) ?? manifest.bundleIdentifier
    }

    package var sceneDelegateClasses: [any SceneDelegate.Type] { [OwnAppSceneDelegate.self] }
    package var title: String { manifest.displayName }
    package var keyHints: [KeyHint] { OwnAppScreen.keyHints }

    package func launch(application: Application, environment: AppEnvironment) {
        self.application = application
        self.environment = environment
    }

    package func viewportChanged(to size: Size) {
        screen.viewport = size
        screen.clamp(rows: ActivityTree(state.userInfo).rows.count)
    }

    // MARK: What the screen shows

    package var view: OwnAppView {
        let valid = activity.flatMap { $0.isValid ? $0 : nil }
        let type = valid?.activityType ?? file?.activityType
        let state: OwnAppView.ActivityState =
            if let valid { valid.isCurrent ? .current : .notCurrent } else if type != nil { .notMade } else { .none }
        let payload = ActivityPayload(
            activityType: type ?? "", title: valid?.title ?? file?.title, userInfo: self.state.userInfo,
            webpageURL: valid?.webpageURL ?? file?.webpageURL, teamIdentifier: manifest.teamIdentifier,
            bundleIdentifier: manifest.bundleIdentifier)
        return OwnAppView(
            displayName: manifest.displayName, activityType: type, title: valid?.title ?? file?.title, state: state,
            needsSave: valid?.needsSave ?? false, userInfo: self.state.userInfo,
            payloadBytes: encodedSize(of: payload), guidanceBytes: configuration.payloadWarningBytes,
            limitBytes: configuration.payloadLimitBytes, source: source)
    }

    /// The last payload measured and its encoded size: the view is made for every frame, and the
    /// payload changes only when the tester edits it or the activity changes.
    private var measured: (payload: ActivityPayload, bytes: Int)?

    private func encodedSize(of payload: ActivityPayload) -> Int {
        if let measured, measured.payload == payload { return measured.bytes }
        let bytes = payload.encoded().count
        measured = (payload, bytes)
        return bytes
    }

    package func render(into grid: inout Grid, area: Rect) {
        screen.render(view, into: &grid, area: area)
    }

    package func handle(_ key: Key) -> Bool {
        let (handled, action) = screen.handle(key, tree: ActivityTree(state.userInfo))
        if let action { perform(action) }
        return handled
    }

    /// Does what a key asked for.
    package func perform(_ action: OwnAppScreen.Action) {
        switch action {
        case .makeCurrent: makeCurrent()
        case .resign:
            guard let activity, activity.isValid else {
                screen.message = AppMessage(.warning, "There is no activity to resign.")
                return
            }
            activity.resignCurrent()
            screen.message = AppMessage(.info, "Resigned: it stays valid; c makes it current again.")
        case .invalidate:
            guard let activity, activity.isValid else {
                screen.message = AppMessage(.warning, "There is no activity to invalidate.")
                return
            }
            activity.invalidate()
            state.userActivity = nil
            self.activity = nil
            screen.message = AppMessage(.info, "Invalidated: c makes a new one from the same state.")
        case .edit(let path, let text):
            do throws(ActivityEditError) {
                try state.userInfo.edit(at: path, to: text)
            } catch {
                screen.message = AppMessage(.error, "Not changed: \(error.description).")
                return
            }
            if let activity, activity.isValid {
                // The app's state changed: it tells the system, which saves before sending.
                activity.needsSave = true
                screen.message = AppMessage(.info, "Changed: needsSave is set; the next save carries it.")
            } else {
                screen.message = AppMessage(.info, "Changed: c makes an activity with it.")
            }
        }
        screen.clamp(rows: ActivityTree(state.userInfo).rows.count)
    }

    /// Makes the activity current: the one there is, else a new one from the activity file (or of
    /// the type continued last), attached to the app's state.
    func makeCurrent() {
        guard let application else { return }
        if let activity, activity.isValid {
            activity.becomeCurrent()
            screen.message = AppMessage(.info, "Current: nearby devices of the account are offered it.")
            return
        }
        guard let type = file?.activityType ?? lastContinuedType else {
            screen.message = AppMessage(.warning, "No activity to make: run the device with --activity FILE.")
            return
        }
        let made: UserActivity
        do throws(UserActivityError) {
            made = try UserActivity(activityType: type, application: application)
            if let file, file.activityType == type {
                do throws(UserActivityError) {
                    try file.applyProperties(to: made)
                } catch {
                    made.invalidate()
                    throw error
                }
            }
        } catch {
            screen.message = AppMessage(.error, "Not made: \(error.message)")
            return
        }
        made.becomeCurrent()
        state.userActivity = made
        activity = made
        screen.message = AppMessage(.info, "Current: nearby devices of the account are offered it.")
    }

    private var lastContinuedType: String?

    // MARK: Continuation

    package func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool
    {
        screen.message = AppMessage(.info, "Continuing \(activityType)…")
        environment?.setNeedsDisplay()
        return true
    }

    package func application(
        _ application: Application, continue userActivity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool {
        restorationHandler([state])
        return true
    }

    package func application(
        _ application: Application, didFailToContinueUserActivityWithType activityType: String,
        error: HandoffError
    ) {
        screen.message = AppMessage.continuationFailed(error)
        environment?.setNeedsDisplay()
    }

    /// The state responder restored a continued activity: it is the one the screen shows now.
    func restored(_ userActivity: UserActivity) {
        lastContinuedType = userActivity.activityType
        activity = userActivity
        source = "continued"
        screen.selection = 0
        screen.scroll = 0
        screen.message = AppMessage(.info, "Continued \(userActivity.activityType): c makes it current here.")
        screen.clamp(rows: ActivityTree(state.userInfo).rows.count)
        environment?.setNeedsDisplay()
    }

    package func terminate() {
        activity = nil
        state.userActivity = nil
        state.userInfo = file?.userInfo ?? [:]
        source = file.map { URL(fileURLWithPath: $0.file).lastPathComponent } ?? "nowhere"
        screen = OwnAppScreen()
    }
}

/// The own app's state: the responder its activity is attached to. It writes the state into the
/// activity at each save and takes a continued activity's `userInfo` on restore.
final class OwnAppState: Responder {
    var userInfo: UserInfo = [:]
    weak var app: OwnApp?

    override init() {
        super.init()
        isOnScreen = true
    }

    override func updateUserActivityState(_ activity: UserActivity) {
        activity.addUserInfoEntries(from: userInfo)
    }

    override func restoreUserActivityState(_ activity: UserActivity) {
        userInfo = activity.userInfo
        app?.restored(activity)
    }
}

/// The scene delegate an own app with a scene manifest runs with (its own class, or SwiftUI's,
/// cannot run here): it hands everything to the app.
final class OwnAppSceneDelegate: SceneDelegate {
    init() {}

    private func app(of scene: Scene) -> OwnApp? { scene.application?.delegate as? OwnApp }

    func scene(_ scene: Scene, continue userActivity: UserActivity) {
        guard let own = app(of: scene), let application = scene.application else { return }
        _ = own.application(application, continue: userActivity) { responders in
            for responder in responders { responder.restoreUserActivityState(userActivity) }
        }
    }

    func scene(_ scene: Scene, didFailToContinueUserActivityWithType activityType: String, error: HandoffError) {
        guard let own = app(of: scene), let application = scene.application else { return }
        own.application(application, didFailToContinueUserActivityWithType: activityType, error: error)
    }
}
