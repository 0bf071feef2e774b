import Foundation

/// A scene's Handoff callbacks (Apple's `UISceneDelegate` methods, the path Apple asks every app
/// to take since iOS 13 and the only one left undeprecated in iOS 26).
///
/// The system creates the delegate itself, from the class that the app's Info.plist names in
/// `UIApplicationSceneManifest` (`UISceneDelegateClassName`), so a delegate needs `init()`; it
/// reaches the app's own objects through `scene.application`.
///
/// Every method is optional. Unlike the app delegate's, the scene's callbacks return nothing:
/// after `scene(_:willContinueUserActivityWithType:)` the system shows that the activity is being
/// continued, and `scene(_:continue:)` is called only once all the data has arrived.
public protocol SceneDelegate: AnyObject {
    init()
    /// A scene connects to the app. `options.handoffUserActivityType` names the type of a pending
    /// Handoff; the activity itself is *not* in `options.userActivities` (Apple delivers it later,
    /// to `scene(_:continue:)`).
    func scene(_ scene: Scene, willConnectTo session: SceneSession, options: Scene.ConnectionOptions)
    /// A continuation of `activityType` is coming to this scene.
    func scene(_ scene: Scene, willContinueUserActivityWithType activityType: String)
    /// The activity's data arrived: restore it in this scene.
    func scene(_ scene: Scene, continue userActivity: UserActivity)
    /// The continuation failed. By default the system shows the error.
    func scene(_ scene: Scene, didFailToContinueUserActivityWithType activityType: String, error: HandoffError)
    /// The scene's activity was just saved: the last chance to add keys.
    func scene(_ scene: Scene, didUpdate userActivity: UserActivity)
    /// The scene was disconnected (the user quit the app).
    func sceneDidDisconnect(_ scene: Scene)
}

extension SceneDelegate {
    public func scene(_ scene: Scene, willConnectTo session: SceneSession, options: Scene.ConnectionOptions) {}
    public func scene(_ scene: Scene, willContinueUserActivityWithType activityType: String) {}

    /// Not implemented: the activity reaches no code of the app. The system records that the app
    /// did not handle it (an app that reads only `connectionOptions.userActivities` misses Handoff
    /// this way on a cold launch).
    public func scene(_ scene: Scene, continue userActivity: UserActivity) {
        scene.continueIsNotImplemented = true
    }

    public func scene(_ scene: Scene, didFailToContinueUserActivityWithType activityType: String, error: HandoffError) {
        guard let application = scene.application else { return }
        application.device?.systemShowsError(error, activityType: activityType, application: application)
    }

    public func scene(_ scene: Scene, didUpdate userActivity: UserActivity) {}
    public func sceneDidDisconnect(_ scene: Scene) {}
}

/// A scene's session: what persists about it (Apple's `UISceneSession`).
public struct SceneSession: Sendable, Hashable {
    /// A unique identifier, such as "Reader-1".
    public var persistentIdentifier: String
    /// The role from the scene manifest, e.g. `UIWindowSceneSessionRoleApplication`.
    public var role: String
    /// The configuration's `UISceneConfigurationName`.
    public var configurationName: String?
}

/// Which `targetContentIdentifier`s a scene accepts or prefers (Apple's
/// `UISceneActivationConditions` with its predicates, kept to what Handoff uses).
public struct ActivationConditions: Sendable, Hashable {
    /// A test on a target content identifier.
    public enum Pattern: Sendable, Hashable, CustomStringConvertible {
        /// Every identifier (Apple's `NSPredicate(value: true)`), and an absent one.
        case any
        /// Exactly this identifier (`self == 'x'`).
        case equals(String)
        /// Identifiers that start with this prefix (`self BEGINSWITH 'x'`).
        case beginsWith(String)

        public func matches(_ identifier: String?) -> Bool {
            switch self {
            case .any: true
            case .equals(let value): identifier == value
            case .beginsWith(let prefix): identifier?.hasPrefix(prefix) ?? false
            }
        }

        public var description: String {
            switch self {
            case .any: "any"
            case .equals(let value): "== '\(value)'"
            case .beginsWith(let prefix): "BEGINSWITH '\(prefix)'"
            }
        }
    }

    /// The scene may be activated for identifiers matching this (Apple's default: any).
    public var canActivateFor: Pattern
    /// The scene prefers to be activated for identifiers matching this (Apple's default: none).
    public var prefersToActivateFor: Pattern?

    public init(canActivateFor: Pattern = .any, prefersToActivateFor: Pattern? = nil) {
        self.canActivateFor = canActivateFor
        self.prefersToActivateFor = prefersToActivateFor
    }
}

/// One instance of an app's interface (Apple's `UIScene`/`UIWindowScene`): a window on a laptop,
/// the app's screen (or one of several on a tablet) on a phone or tablet.
///
/// Scenes are created by the system, never by the app: when the app is launched or when a new
/// window is asked for (``Application/requestScene()``). Like every app object, it is confined
/// to its device's run loop.
public final class Scene: Responder {
    /// Why the scene was connected (Apple's `UIScene.ConnectionOptions`).
    public struct ConnectionOptions {
        /// The type of a pending Handoff activity, or nil when none is pending.
        public var handoffUserActivityType: String?
        /// The activities available at connection time. Never a Handoff activity: Apple delivers
        /// only its type here (``handoffUserActivityType``), and the activity to `scene(_:continue:)`.
        public var userActivities: [UserActivity]

        public init(handoffUserActivityType: String? = nil, userActivities: [UserActivity] = []) {
            self.handoffUserActivityType = handoffUserActivityType
            self.userActivities = userActivities
        }
    }

    public let session: SceneSession
    public private(set) var delegate: (any SceneDelegate)?
    public internal(set) weak var application: Application?
    /// What the scene shows, for the log and the app switcher.
    public var title: String?
    /// Which continued activities this scene takes (by their `targetContentIdentifier`).
    public var activationConditions = ActivationConditions()
    /// Set by the default `scene(_:continue:)`: the app does not implement it.
    var continueIsNotImplemented = false
    /// Why the scene has no delegate, when it has none.
    public internal(set) var setupProblem: SceneSetupProblem?

    init(session: SceneSession, delegate: (any SceneDelegate)?, application: Application) {
        self.session = session
        self.delegate = delegate
        self.application = application
        super.init()
        // A connected scene is a window on screen: an activity set on it is shown.
        isOnScreen = true
    }

    /// The scene's name in the log: its title, else its session's identifier.
    public var name: String { title.map { "\(session.persistentIdentifier) “\($0)”" } ?? session.persistentIdentifier }

    /// Picks the scene a continued activity with `targetContentIdentifier` goes to, as Apple's
    /// activation conditions do: a scene that prefers it, else the first (most recent first) that
    /// can take it. Nil when none can.
    public static func choose(for targetContentIdentifier: String?, among scenes: [Scene]) -> Scene? {
        if let preferring = scenes.first(where: {
            $0.activationConditions.prefersToActivateFor?.matches(targetContentIdentifier) == true
        }) {
            return preferring
        }
        return scenes.first { $0.activationConditions.canActivateFor.matches(targetContentIdentifier) }
    }
}

/// Why a scene connected without a delegate: what is wrong in the app's scene manifest.
public enum SceneSetupProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// `UISceneConfigurations` is empty.
    case noConfiguration
    /// The configuration has no `UISceneDelegateClassName`.
    case noDelegateClassName
    /// `UISceneDelegateClassName` names a class the app does not have.
    case unknownClass(String)

    public var description: String {
        switch self {
        case .noConfiguration: "UIApplicationSceneManifest has no UISceneConfigurations entry"
        case .noDelegateClassName: "the scene configuration has no UISceneDelegateClassName"
        case .unknownClass(let name): "UISceneDelegateClassName \"\(name)\" names no class of the app"
        }
    }
}
