import Foundation
import HandoffCore
import Testing

/// The learners' explanations say what the code does (issue 23): each test pins the key claim
/// of an explanation that once claimed a rule the code does not apply.
@Suite("Lifecycle explanations match the code")
struct LifecycleExplanationTests {
    let activity = ActivityReference(
        id: UUID(), activityType: "com.example.reading", bundleIdentifier: "com.example.reader")
    let peer = PeerReference(id: DeviceID(rawValue: "laptop"), name: "Laptop")
    let continuation = ContinuationID()

    func explanation(_ occurrence: LifecycleEvent.Occurrence) -> String {
        LifecycleEvent(time: Date(timeIntervalSince1970: 0), device: "Phone", occurrence).explanation
    }

    /// Apple: true, the app tells the user itself; false, the system does. Neither cancels.
    @Test func willContinueSaysTrueMeansTheSystemShowsNothingAndFalseDoesNotCancel() {
        for answer in [true, false] {
            let text = explanation(
                .willContinue(
                    continuation, peer, bundleIdentifier: "com.example.reader",
                    activityType: "com.example.reading", appShowsProgress: answer))
            #expect(
                text.contains("true, the app tells the user itself that it is continuing and the system shows nothing"))
            #expect(text.contains("false, the system shows its progress"))
            #expect(text.contains("false does not cancel"))
        }
    }

    /// A responder's activity becomes current on screen (`Responder.isOnScreen`, after a
    /// transition: `isInTransition`), which the code checks; nothing checks that the app is in
    /// front when an activity becomes current, so the line does not say so.
    @Test func becameCurrentClaimsOnlyWhatIsChecked() {
        let text = explanation(.becameCurrent(activity))
        #expect(text.contains("a responder on screen"))
        #expect(text.contains("the main window's responder chain"))
        #expect(!text.contains("its app is in front"))
    }

    /// The payload filters userInfo by requiredUserInfoKeys, so a save's userInfo is not always
    /// what leaves.
    @Test func savedNamesRequiredUserInfoKeys() {
        let text = explanation(.saved(activity, reason: .coalesced, userInfo: ["page": 3], continuation: nil))
        #expect(text.contains("requiredUserInfoKeys"))
        #expect(!text.contains("is what a continuing device would receive"))
    }

    /// A change without needsSave on an activity never saved: there is no older saved state.
    @Test func aSkippedSaveOfAnActivityNeverSavedClaimsNoOlderState() {
        let text = explanation(
            .saveSkipped(
                activity, lastSaved: nil, changedAt: Date(timeIntervalSince1970: 5),
                continuation: continuation))
        #expect(text.contains("never saved"))
        #expect(text.contains("userInfo as it stands"))
        #expect(!text.contains("older state"))
        #expect(text.contains("set needsSave whenever the state changes"))
        let saved = explanation(
            .saveSkipped(
                activity, lastSaved: Date(timeIntervalSince1970: 1),
                changedAt: Date(timeIntervalSince1970: 5), continuation: continuation))
        #expect(saved.contains("older state saved last"))
    }

    /// Installing an app reroutes offers silently; an offer is updated when the peer's activity
    /// changes or it expires.
    @Test func offerUpdatedDoesNotClaimThisDevicesAppsChangingIt() {
        let text = explanation(
            .offerUpdated(
                peer,
                AdvertisementIdentity(
                    device: peer.id, serial: 1,
                    activityTypeHash: ActivityTypeHash(activityType: "t")),
                route: .unavailable(.expired)))
        #expect(!text.contains("apps changed"))
        #expect(text.contains("expired"))
    }

    /// A failure reaches the app delegate, or a scene app's scene; before an app was chosen
    /// (a web page's payload never came), no app is told and the system shows it.
    @Test func continuationFailedTellsEachAppModelAndTheSystemsCase() {
        let error = HandoffError(.remoteApplicationTimedOut, "no payload")
        let told = explanation(
            .continuationFailed(
                continuation, peer, bundleIdentifier: "com.example.reader",
                activityType: "com.example.reading", error))
        #expect(told.contains("didFailToContinueUserActivityWithType tells the app (its scene, in a scene app)"))
        let untold = explanation(
            .continuationFailed(continuation, peer, bundleIdentifier: nil, activityType: nil, error))
        #expect(untold.contains("no app is told: the system shows the error"))
        let scene = explanation(
            .sceneDidFailToContinue(
                continuation, bundleIdentifier: "com.example.reader", scene: "Reader-1",
                activityType: "com.example.reading", error))
        #expect(scene.contains("not implemented: the system shows it"))
    }
}
