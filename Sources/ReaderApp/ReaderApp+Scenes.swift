import DeviceAppKit
import Foundation
import HandoffCore

/// The Reader's scene delegate, named in `Info-Scenes.plist` (`UISceneDelegateClassName`
/// `ReaderApp.ReaderSceneDelegate`): the system creates one for each scene it connects. It
/// reaches the Reader through the scene's application, whose delegate the Reader is.
///
/// On a cold launch for a continuation the scene connects with only the activity's type
/// (`handoffUserActivityType`; the activity is never in `userActivities`): the Reader shows that
/// a document is opening, then restores it in `scene(_:continue:)`, once all its data arrived.
final class ReaderSceneDelegate: SceneDelegate {
    init() {}

    private func reader(of scene: Scene) -> ReaderApp? { scene.application?.delegate as? ReaderApp }

    func scene(_ scene: Scene, willConnectTo session: SceneSession, options: Scene.ConnectionOptions) {
        reader(of: scene)?.sceneWillConnect(scene, options: options)
    }

    func scene(_ scene: Scene, willContinueUserActivityWithType activityType: String) {
        reader(of: scene)?.prepareForContinuation(of: activityType)
    }

    func scene(_ scene: Scene, continue userActivity: UserActivity) {
        reader(of: scene)?.sceneContinue(scene, userActivity)
    }

    func scene(_ scene: Scene, didFailToContinueUserActivityWithType activityType: String, error: HandoffError) {
        reader(of: scene)?.didFailToContinue(activityType, error: error)
    }

    func scene(_ scene: Scene, didUpdate userActivity: UserActivity) {
        reader(of: scene)?.addHandoffVersion(to: userActivity)
    }

    func sceneDidDisconnect(_ scene: Scene) {
        reader(of: scene)?.window(for: scene)?.unbind()
    }
}

extension ReaderApp {
    /// A scene connected: it becomes the interface of the window waiting for one (a new window,
    /// or the first after a launch), else of a new window. A scene connected for a continuation
    /// (cold launch) shows at once that the activity is on its way.
    func sceneWillConnect(_ scene: Scene, options: Scene.ConnectionOptions) {
        let window =
            windowAwaitingScene
            ?? windows.first { $0.scene == nil }
            ?? {
                let window = ReaderWindow(number: (windows.map(\.number).max() ?? 0) + 1, reader: self)
                windows.append(window)
                return window
            }()
        window.bind(to: scene)
        if let type = options.handoffUserActivityType {
            prepareForContinuation(of: type)
            show(window)
        }
    }

    /// `scene(_:continue:)`: the activity's data arrived for `scene` (the one whose activation
    /// conditions prefer its `targetContentIdentifier`, else the key scene). Checks it as the
    /// app delegate's `continue` does, then restores it in the scene's window; a page of the
    /// Reader's web site opens its document at its page.
    func sceneContinue(_ scene: Scene, _ activity: UserActivity) {
        isContinuing = false
        continuingActivityType = nil
        let window = window(for: scene) ?? frontWindow
        if activity.activityType == UserActivity.browsingWebType {
            _ = continueWebActivity(activity, in: window)
            return
        }
        do throws(ReadingRestoreError) {
            try checkContinuable(activity)
        } catch {
            refuseContinuation(of: activity.activityType, because: error)
            return
        }
        show(window)
        window.readingView.restoreUserActivityState(activity)
    }

    /// `scene(_:didFailToContinueUserActivityWithType:error:)`: as the app delegate's.
    func didFailToContinue(_ activityType: String, error: HandoffError) {
        continuationFailed(activityType, message: .continuationFailed(error), log: "\(error)")
    }
}
