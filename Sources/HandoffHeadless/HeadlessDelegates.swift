import Foundation
import HandoffCore

/// An installed app's on-screen state: the responder its activities are attached to. It writes
/// its state into the activity at each save and takes the activity's `userInfo` on restore.
final class AppStateResponder: Responder {
    var state: UserInfo = [:]

    override func updateUserActivityState(_ activity: UserActivity) {
        activity.addUserInfoEntries(from: state)
    }

    override func restoreUserActivityState(_ activity: UserActivity) {
        state = activity.userInfo
    }
}

/// The scripted app delegate of every app the controller installs: it forwards to the controller.
final class ScriptedAppDelegate: ApplicationDelegate {
    weak var controller: HeadlessController?

    init(controller: HeadlessController) { self.controller = controller }

    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        controller?.willContinue(application, activityType: activityType) ?? true
    }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([Responder]) -> Void) -> Bool {
        controller?.continueActivity(application, userActivity, restorationHandler: restorationHandler) ?? false
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String,
                     error: HandoffError) {
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
