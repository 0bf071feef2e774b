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

    /// The scene delegate class the scripted apps' scene manifest names, if they use scenes.
    var sceneDelegateClassName: String? {
        switch self {
        case .delegate: nil
        case .scenes: String(reflecting: ScriptedSceneDelegate.self)
        case .scenesConnectionOptionsOnly: String(reflecting: ConnectionOptionsOnlySceneDelegate.self)
        }
    }

    /// `manifest` with the scene manifest this model needs.
    func applied(to manifest: AppManifest) -> AppManifest {
        guard let name = sceneDelegateClassName else { return manifest }
        var manifest = manifest
        manifest.sceneManifest = AppManifest.SceneManifest(
            supportsMultipleScenes: true,
            configurations: [
                .init(role: "UIWindowSceneSessionRoleApplication", name: "Default Configuration", delegateClass: name)
            ])
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
        _ = scene.controller?.continueActivity(app, userActivity) { responders in
            for responder in responders { responder.restoreUserActivityState(userActivity) }
        }
    }

    func scene(_ scene: Scene, didFailToContinueUserActivityWithType activityType: String, error: HandoffError) {
        guard let app = scene.application else { return }
        scene.controller?.didFailToContinue(app, activityType: activityType, error: error)
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
