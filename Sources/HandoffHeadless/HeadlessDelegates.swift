import Foundation
import HandoffCore

/// An installed app's on-screen state: the responder its activities are attached to. It writes
/// its state into the activity at each save and takes the activity's `userInfo` on restore.
final class AppStateResponder: Responder {
    var state: UserInfo = [:]

    /// The scripted app's state is its screen: on screen from the start.
    override init() {
        super.init()
        isOnScreen = true
    }

    /// Told after each restoration (the controller reports it as a `restored` event).
    var didRestore: ((UserActivity) -> Void)?

    override func updateUserActivityState(_ activity: UserActivity) {
        activity.addUserInfoEntries(from: state)
    }

    override func restoreUserActivityState(_ activity: UserActivity) {
        state = activity.userInfo
        didRestore?(activity)
    }
}

/// The scripted app delegate of every app the controller installs: it forwards to the controller.
final class ScriptedAppDelegate: ApplicationDelegate {
    weak var controller: HeadlessController?

    init(controller: HeadlessController) { self.controller = controller }

    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        controller?.willContinue(application, activityType: activityType) ?? true
    }

    func application(
        _ application: Application, continue userActivity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool {
        controller?.continueActivity(application, userActivity, restorationHandler: restorationHandler) ?? false
    }

    func application(
        _ application: Application, didFailToContinueUserActivityWithType activityType: String,
        error: HandoffError
    ) {
        guard controller?.behaviour(of: application).implementsDidFail ?? true else {
            // Not implemented (`--app-behaviour didFail=missing`): Apple's default shows the error.
            UnimplementedAppDelegate().application(
                application, didFailToContinueUserActivityWithType: activityType, error: error)
            return
        }
        controller?.didFailToContinue(application, activityType: activityType, error: error)
    }

    func application(_ application: Application, didUpdate userActivity: UserActivity) {}
}

/// The delegate of every activity the controller creates.
final class ScriptedActivityDelegate: UserActivityDelegate {
    weak var controller: HeadlessController?

    init(controller: HeadlessController) { self.controller = controller }

    func userActivityWasContinued(_ userActivity: UserActivity) {
        controller?.activityWasContinued(userActivity)
    }

    func userActivity(_ userActivity: UserActivity, didReceive streams: ContinuationStreams) {
        controller?.originReceived(streams, for: userActivity)
    }
}

/// How the scripted apps talk to the system: Apple's app-delegate path, or scenes (an
/// Info.plist with `UIApplicationSceneManifest`), correctly or with the commonest scene bug.
package enum ScriptedAppModel: String, CaseIterable, Sendable {
    /// `application(_:willContinueUserActivityWithType:)`, `application(_:continue:restorationHandler:)`…
    case delegate
    /// A scene delegate that implements every Handoff callback.
    case scenes
    /// A scene delegate that looks for the activity only in `connectionOptions.userActivities`
    /// and has no `scene(_:continue:)`: on a cold launch it misses the activity, as real apps do.
    case scenesConnectionOptionsOnly = "scenes-connection-options-only"
    /// A SwiftUI app: its generated scene manifest names no delegate class (SwiftUI supplies its
    /// own at run time), and the activity reaches the app through the `onContinueUserActivity`
    /// modifiers of the views on screen, one per activity type.
    case swiftUI = "swiftui"

    /// The scene delegate class the scripted apps' scene manifest names, if they use scenes.
    var sceneDelegateClassName: String? {
        switch self {
        case .delegate: nil
        case .scenes: String(reflecting: ScriptedSceneDelegate.self)
        case .scenesConnectionOptionsOnly: String(reflecting: ConnectionOptionsOnlySceneDelegate.self)
        case .swiftUI: String(reflecting: SwiftUISceneDelegate.self)
        }
    }

    /// The scene delegate classes the scripted apps link.
    static var sceneDelegateClasses: [any SceneDelegate.Type] {
        [ScriptedSceneDelegate.self, ConnectionOptionsOnlySceneDelegate.self, SwiftUISceneDelegate.self]
    }

    /// The model an app read from its files has, by its Info.plist: no scene manifest, the app
    /// delegate; a scene manifest naming a delegate class, scenes (the scripted scene delegate
    /// stands in for that class); a scene manifest naming none (what Xcode generates for a
    /// SwiftUI app), SwiftUI.
    package static func implied(by manifest: AppManifest) -> ScriptedAppModel {
        guard let scenes = manifest.sceneManifest else { return .delegate }
        let named = scenes.configurations.contains { !($0.delegateClass ?? "").isEmpty }
        return named ? .scenes : .swiftUI
    }

    /// `manifest` with the scene manifest this model needs: none for the app delegate; for a scene
    /// model the app's own (its roles, names and whether it supports several scenes) with the
    /// scripted delegate class standing in for the one it names, or a default one.
    func applied(to manifest: AppManifest) -> AppManifest {
        var manifest = manifest
        guard let name = sceneDelegateClassName else {
            manifest.sceneManifest = nil
            return manifest
        }
        if var scenes = manifest.sceneManifest, !scenes.configurations.isEmpty {
            for index in scenes.configurations.indices { scenes.configurations[index].delegateClass = name }
            manifest.sceneManifest = scenes
        } else {
            manifest.sceneManifest = AppManifest.SceneManifest(
                supportsMultipleScenes: manifest.sceneManifest?.supportsMultipleScenes ?? true,
                configurations: [
                    .init(
                        role: "UIWindowSceneSessionRoleApplication", name: "Default Configuration", delegateClass: name)
                ])
        }
        return manifest
    }
}

extension Scene {
    /// The headless controller behind the scripted app this scene belongs to.
    var controller: HeadlessController? { (application?.delegate as? ScriptedAppDelegate)?.controller }
}

/// The scripted apps' scene delegate: it implements every Handoff callback and forwards them to
/// the controller, which reports them.
final class ScriptedSceneDelegate: SceneDelegate {
    init() {}

    func scene(_ scene: Scene, willConnectTo session: SceneSession, options: Scene.ConnectionOptions) {
        scene.controller?.sceneConnected(scene, options: options, readsOnlyUserActivities: false)
    }

    func scene(_ scene: Scene, continue userActivity: UserActivity) {
        guard let app = scene.application else { return }
        guard scene.controller?.behaviour(of: app).continues ?? true else {
            // `--app-behaviour continue=false`: as if scene(_:continue:) were not implemented.
            UnimplementedSceneDelegate().scene(scene, continue: userActivity)
            return
        }
        _ = scene.controller?.continueActivity(app, userActivity) { responders in
            for responder in responders { responder.restoreUserActivityState(userActivity) }
        }
    }

    func scene(_ scene: Scene, didFailToContinueUserActivityWithType activityType: String, error: HandoffError) {
        scene.forwardDidFail(activityType: activityType, error: error)
    }
}

extension Scene {
    /// `scene(_:didFailToContinueUserActivityWithType:error:)` of a scripted scene: reported, or,
    /// when the app's behaviour leaves it out, Apple's default (the system shows the error).
    func forwardDidFail(activityType: String, error: HandoffError) {
        guard let app = application else { return }
        guard controller?.behaviour(of: app).implementsDidFail ?? true else {
            UnimplementedSceneDelegate().scene(self, didFailToContinueUserActivityWithType: activityType, error: error)
            return
        }
        controller?.didFailToContinue(app, activityType: activityType, error: error)
    }
}

/// SwiftUI's scene delegate, standing in for the one SwiftUI supplies to an app whose scene
/// manifest names none. The activity goes to the `onContinueUserActivity(_:perform:)` of a view
/// on screen for its type: the scripted SwiftUI app has one for each type it declares
/// (`NSUserActivityTypes`) unless its behaviour says `continue=false`. With none, SwiftUI drops
/// the activity: its delegate did take it, so the system counts it continued and the origin is
/// told, but nothing is restored (a `continue-dropped` event says why).
final class SwiftUISceneDelegate: SceneDelegate {
    init() {}

    func scene(_ scene: Scene, willConnectTo session: SceneSession, options: Scene.ConnectionOptions) {
        scene.controller?.sceneConnected(scene, options: options, readsOnlyUserActivities: false)
    }

    func scene(_ scene: Scene, continue userActivity: UserActivity) {
        guard let app = scene.application, let controller = scene.controller else { return }
        let hasHandler =
            controller.behaviour(of: app).continues
            && app.manifest.continuableActivityTypes.contains(userActivity.activityType)
        guard hasHandler else {
            controller.continueDropped(app, userActivity)
            return
        }
        _ = controller.continueActivity(app, userActivity) { responders in
            for responder in responders { responder.restoreUserActivityState(userActivity) }
        }
    }

    func scene(_ scene: Scene, didFailToContinueUserActivityWithType activityType: String, error: HandoffError) {
        scene.forwardDidFail(activityType: activityType, error: error)
    }
}

/// A scene delegate with the commonest Handoff bug of scene apps: it looks for the activity only
/// in `connectionOptions.userActivities` (where Apple never puts a Handoff activity) and does not
/// implement `scene(_:continue:)`.
final class ConnectionOptionsOnlySceneDelegate: SceneDelegate {
    init() {}

    func scene(_ scene: Scene, willConnectTo session: SceneSession, options: Scene.ConnectionOptions) {
        scene.controller?.sceneConnected(scene, options: options, readsOnlyUserActivities: true)
        if let activity = options.userActivities.first, let app = scene.application {
            _ = scene.controller?.continueActivity(app, activity) { responders in
                for responder in responders { responder.restoreUserActivityState(activity) }
            }
        }
    }
}
