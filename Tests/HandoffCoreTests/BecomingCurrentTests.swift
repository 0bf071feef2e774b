import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

/// When a responder's activity becomes current (WWDC 2014, "Adopting Handoff": "becomeCurrent on
/// iOS", "becomeCurrent on OS X"; Handoff Programming Guide, "Managing a User Activity with
/// Responders"): on UIKit when its view controller's view is in the view hierarchy, after any
/// transition; on AppKit from the main window's responder chain. Never at once for any responder.
@Suite("Becoming current follows the platform's rule")
struct BecomingCurrentTests {
    private func device(_ kind: PeerInfo.Kind) -> (Neighbourhood, Device, Application) {
        let hood = Neighbourhood()
        let device = hood.addDevice("Device", kind: kind)
        let app = device.install(TestManifests.reader)
        device.bringToFront(app)
        return (hood, device, app)
    }

    @Test(arguments: [PeerInfo.Kind.phone, .laptop])
    func aResponderOffScreenHoldsItsActivityWithoutMakingItCurrent(_ kind: PeerInfo.Kind) throws {
        let (hood, device, app) = device(kind)
        let view = Responder()
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        view.userActivity = activity
        hood.settle()
        #expect(!activity.isCurrent, "a responder nobody put on screen does not make its activity current")
        #expect(device.system.advertisement == nil)
        #expect(!device.lifecycle.contains { $0.kind == .becameCurrent })
        view.isOnScreen = true
        hood.settle()
        #expect(activity.isCurrent, "on screen (in the view hierarchy / the main window's chain): current")
        #expect(device.system.advertisement != nil)
    }

    @Test func duringATransitionUIKitWaitsUntilItIsOver() throws {
        let (hood, _, app) = device(.phone)
        let view = Responder()
        view.isOnScreen = true
        view.isInTransition = true
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        view.userActivity = activity
        hood.settle()
        #expect(!activity.isCurrent, "the view controller is in a transition: the system waits")
        view.isInTransition = false
        #expect(activity.isCurrent, "after the transition, it is current")
    }

    @Test func onAppKitTheMainWindowsResponderChainDecides() throws {
        let (hood, _, app) = device(.laptop)
        let first = Responder()
        let second = Responder()
        first.isOnScreen = true
        let firstActivity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        let secondActivity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        first.userActivity = firstActivity
        second.userActivity = secondActivity
        hood.settle()
        #expect(firstActivity.isCurrent, "the main window's responder")
        #expect(!secondActivity.isCurrent, "another window's responder is not current")
        // The second window becomes the main window.
        first.isOnScreen = false
        second.isOnScreen = true
        hood.settle()
        #expect(secondActivity.isCurrent)
        #expect(!firstActivity.isCurrent)
    }

    @Test func anAppCanStillMakeAnActivityCurrentItself() throws {
        let (hood, _, app) = device(.phone)
        let view = Responder()
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        view.userActivity = activity
        activity.becomeCurrent()
        hood.settle()
        #expect(activity.isCurrent, "becomeCurrent() called explicitly")
    }

    @Test func theExplanationNamesTheRuleTheSystemChecks() {
        let explanation = LifecycleEvent.Kind.becameCurrent.explanation
        #expect(explanation.contains("becomeCurrent()"))
        #expect(explanation.contains("a view controller in the view hierarchy"))
        #expect(explanation.contains("transition"))
        #expect(explanation.contains("the main window's responder chain"))
        #expect(!explanation.contains("its app is in front and made it current"), "the old claim, checked by nothing")
    }
}
