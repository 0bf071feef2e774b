import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

/// A scene delegate that records its callbacks into a log every test can read.
final class RecordingSceneDelegate: SceneDelegate {
    nonisolated(unsafe) static var log = CallLog()
    nonisolated(unsafe) static var restored: [UserInfo] = []

    init() {}

    func scene(_ scene: Scene, willConnectTo session: SceneSession, options: Scene.ConnectionOptions) {
        Self.log.append(
            "willConnect(\(options.handoffUserActivityType ?? "nil"), userActivities: \(options.userActivities.count))")
    }

    func scene(_ scene: Scene, willContinueUserActivityWithType activityType: String) {
        Self.log.append("willContinue(\(activityType))")
    }

    func scene(_ scene: Scene, continue userActivity: UserActivity) {
        Self.log.append("continue(\(scene.session.persistentIdentifier))")
        Self.restored.append(userActivity.userInfo)
    }

    func scene(_ scene: Scene, didFailToContinueUserActivityWithType activityType: String, error: HandoffError) {
        Self.log.append("didFail(\(error.code.rawValue))")
    }
}

/// The commonest scene bug: the app looks only in `connectionOptions.userActivities`.
final class UserActivitiesOnlySceneDelegate: SceneDelegate {
    nonisolated(unsafe) static var found = 0
    init() {}

    func scene(_ scene: Scene, willConnectTo session: SceneSession, options: Scene.ConnectionOptions) {
        Self.found += options.userActivities.count
    }
}

@Suite("Scenes, launch states, needsSave and the delegate's answers", .serialized)
struct ScenesAndLaunchTests {
    static let readingType = "com.example.reader.reading"

    static func sceneReader(delegateClass: String = "RecordingSceneDelegate", multiple: Bool = false) -> AppManifest {
        var manifest = TestManifests.reader
        manifest.sceneManifest = .init(
            supportsMultipleScenes: multiple,
            configurations: [
                .init(
                    role: "UIWindowSceneSessionRoleApplication", name: "Default Configuration",
                    delegateClass: delegateClass)
            ])
        return manifest
    }

    /// A laptop reading at page 2 and a phone with a scene-based Reader that is not running.
    final class World {
        let hood = Neighbourhood()
        let laptop: Device
        let phone: Device
        let laptopReader: Application
        let phoneReader: Application
        let view = StateResponder(name: "laptopView", state: ["page": 2])
        let activityDelegate = RecordingActivityDelegate()
        var activity: UserActivity!

        init(phoneManifest: AppManifest = ScenesAndLaunchTests.sceneReader()) throws {
            RecordingSceneDelegate.log = CallLog()
            RecordingSceneDelegate.restored = []
            let configuration = DeviceConfiguration(saveCoalescingInterval: 60, fetchTimeout: 5)
            laptop = hood.addDevice("Laptop", kind: .laptop, configuration: configuration)
            phone = hood.addDevice("Phone", kind: .phone, configuration: configuration)
            laptopReader = laptop.install(TestManifests.reader, delegate: RecordingAppDelegate())
            phoneReader = phone.install(
                phoneManifest, delegate: RecordingAppDelegate(),
                sceneDelegates: [RecordingSceneDelegate.self, UserActivitiesOnlySceneDelegate.self])
            laptop.bringToFront(laptopReader)
            activity = try UserActivity(activityType: ScenesAndLaunchTests.readingType, application: laptopReader)
            activity.delegate = activityDelegate
            view.userActivity = activity
            hood.settle()
        }

        func continueOnPhone() {
            phone.chooseOffer(from: laptop.info.id)
            hood.settle()
        }

        func kinds(_ device: Device, after start: Int = 0) -> [LifecycleEvent.Kind] {
            device.lifecycle.dropFirst(start).map(\.kind)
        }
    }

    @Test func aColdLaunchOfASceneAppConnectsWithTheTypeThenContinues() throws {
        let world = try World()
        #expect(!world.phoneReader.isRunning)
        let start = world.phone.lifecycle.count
        world.continueOnPhone()
        let kinds = world.kinds(world.phone, after: start).filter { $0 != .offerUpdated }
        #expect(
            kinds == [
                .continueChosen, .applicationLaunched, .sceneWillConnect, .sceneWillContinue, .fetchStarted,
                .payloadReceived, .sceneContinue, .continued,
            ])
        let launched = try #require(world.phone.lifecycle.first { $0.kind == .applicationLaunched })
        #expect(
            launched.occurrence
                == .applicationLaunched(launched.continuation, bundleIdentifier: "com.example.reader", launch: .cold))
        #expect(
            RecordingSceneDelegate.log.entries == [
                "willConnect(\(Self.readingType), userActivities: 0)", "willContinue(\(Self.readingType))",
                "continue(Reader-1)",
            ])
        #expect(RecordingSceneDelegate.restored == [["page": 2]])
        #expect(world.activityDelegate.wasContinuedCount == 1)
        #expect(world.phoneReader.isRunning)
    }

    @Test func anAppThatReadsOnlyConnectionOptionsMissesTheActivity() throws {
        UserActivitiesOnlySceneDelegate.found = 0
        let world = try World(phoneManifest: Self.sceneReader(delegateClass: "UserActivitiesOnlySceneDelegate"))
        world.continueOnPhone()
        #expect(UserActivitiesOnlySceneDelegate.found == 0, "Apple never puts a Handoff activity in userActivities")
        let notHandled = try #require(world.phone.lifecycle.first { $0.kind == .notHandled })
        guard case .notHandled(_, _, _, _, let reason) = notHandled.occurrence else {
            Issue.record()
            return
        }
        #expect(reason == .sceneContinueNotImplemented(scene: "Reader-1"))
        #expect(world.events(world.phone, .continued).isEmpty)
        #expect(world.activityDelegate.wasContinuedCount == 0, "the origin is not told")
        #expect(world.activity.isCurrent, "the origin keeps its activity")
    }

    @Test func aSceneManifestNamingNoClassOfTheAppIsSaid() throws {
        let world = try World(phoneManifest: Self.sceneReader(delegateClass: "ReaderApp.MissingSceneDelegate"))
        world.continueOnPhone()
        let notHandled = try #require(world.phone.lifecycle.first { $0.kind == .notHandled })
        #expect(
            notHandled.summary.contains(
                "UISceneDelegateClassName \"ReaderApp.MissingSceneDelegate\" names no class of the app"))
    }

    @Test func aRunningAppIsBroughtForwardWarmAndKeepsItsScene() throws {
        let world = try World()
        world.continueOnPhone()
        world.phone.bringToFront(nil)
        RecordingSceneDelegate.log.clear()
        world.view.state = ["page": 5]
        world.activity.needsSave = true
        world.hood.settle()
        let start = world.phone.lifecycle.count
        world.continueOnPhone()
        let launched = try #require(world.phone.lifecycle.dropFirst(start).first { $0.kind == .applicationLaunched })
        #expect(launched.summary.contains("warm"))
        #expect(!world.kinds(world.phone, after: start).contains(.sceneWillConnect))
        #expect(RecordingSceneDelegate.log.entries == ["willContinue(\(Self.readingType))", "continue(Reader-1)"])
        #expect(RecordingSceneDelegate.restored.last == ["page": 5])
    }

    @Test func anAppQuitFromTheSwitcherIsColdNextTime() throws {
        let world = try World()
        world.continueOnPhone()
        world.phone.terminate(world.phoneReader)
        #expect(!world.phoneReader.isRunning)
        #expect(world.phoneReader.connectedScenes.isEmpty)
        #expect(world.events(world.phone, .applicationTerminated).count == 1)
        let start = world.phone.lifecycle.count
        world.continueOnPhone()
        let events = world.phone.lifecycle.dropFirst(start)
        #expect(events.contains { $0.summary.contains("cold") && $0.kind == .applicationLaunched })
        #expect(events.contains { $0.kind == .sceneWillConnect && $0.scene == "Reader-2" })
    }

    @Test func theTargetContentIdentifierPicksTheSceneThatPrefersIt() throws {
        let world = try World(phoneManifest: Self.sceneReader(multiple: true))
        world.phone.bringToFront(world.phoneReader)
        let first = try #require(world.phoneReader.requestScene())
        first.title = "Moby-Dick"
        first.activationConditions = ActivationConditions(
            canActivateFor: .any, prefersToActivateFor: .equals("moby-dick"))
        let second = try #require(world.phoneReader.requestScene())
        second.title = "Walden"
        second.activationConditions = ActivationConditions(
            canActivateFor: .any, prefersToActivateFor: .equals("walden"))
        #expect(world.phoneReader.keyScene === second)
        world.activity.targetContentIdentifier = "moby-dick"
        world.continueOnPhone()
        #expect(RecordingSceneDelegate.log.entries.last == "continue(Reader-1)")
        #expect(world.phoneReader.keyScene === first, "the scene that took it comes to the front")
        let event = try #require(world.phone.lifecycle.first { $0.kind == .sceneContinue })
        #expect(event.scene == "Reader-1 “Moby-Dick”")
    }

    @Test func aSceneThatCannotTakeTheIdentifierGetsANewSceneWhenTheAppHasSeveral() throws {
        let world = try World(phoneManifest: Self.sceneReader(multiple: true))
        world.phone.bringToFront(world.phoneReader)
        let only = try #require(world.phoneReader.requestScene())
        only.activationConditions = ActivationConditions(canActivateFor: .equals("walden"))
        world.activity.targetContentIdentifier = "moby-dick"
        world.continueOnPhone()
        #expect(RecordingSceneDelegate.log.entries.last == "continue(Reader-2)")
        #expect(world.phoneReader.connectedScenes.count == 2)
    }

    // MARK: needsSave

    @Test func forgettingNeedsSaveSendsTheStateSavedLast() throws {
        let world = try World(phoneManifest: TestManifests.reader)
        let phoneState = StateResponder(name: "phoneView")
        (world.phoneReader.delegate as? RecordingAppDelegate)?.restorationTargets = [phoneState]
        // The first continuation saves (the newly attached activity needs a save) at page 2.
        world.continueOnPhone()
        #expect(phoneState.state == ["page": 2])
        // The state changes, but the app forgets needsSave: no save runs.
        world.view.state = ["page": 9]
        // The lab rehearses the bug, so the device knows the state changed.
        world.laptop.stateChangedWithoutNeedsSave(world.activity)
        world.laptop.bringToFront(world.laptopReader)
        world.hood.settle()
        let updates = world.view.updates
        let start = world.laptop.lifecycle.count
        world.continueOnPhone()
        #expect(world.view.updates == updates, "no save callback ran")
        #expect(phoneState.state == ["page": 2], "the payload carried the state saved last")
        let skipped = try #require(world.laptop.lifecycle.dropFirst(start).first { $0.kind == .saveSkipped })
        #expect(skipped.summary.contains("but needsSave was not set"))
        #expect(skipped.summary.contains("the payload carries the older state saved at"))
        #expect(skipped.explanation.contains("set needsSave whenever the state changes"))
        // With needsSave, the next continuation saves first and carries the new state.
        world.activity.needsSave = true
        world.continueOnPhone()
        #expect(phoneState.state == ["page": 9])
    }

    // MARK: The app delegate's answers

    @Test func willContinueFalseLetsTheSystemShowProgressAndTheContinuationGoesOn() throws {
        let world = try World(phoneManifest: TestManifests.reader)
        let delegate = try #require(world.phoneReader.delegate as? RecordingAppDelegate)
        delegate.acceptsContinuation = false
        world.continueOnPhone()
        let event = try #require(world.phone.lifecycle.first { $0.kind == .willContinue })
        #expect(
            event.occurrence
                == .willContinue(
                    event.continuation!, PeerReference(world.laptop.info), bundleIdentifier: "com.example.reader",
                    activityType: Self.readingType, appShowsProgress: false))
        #expect(world.events(world.phone, .continued).count == 1)
    }

    @Test func continueReturningFalseIsNotContinued() throws {
        let world = try World(phoneManifest: TestManifests.reader)
        let delegate = try #require(world.phoneReader.delegate as? RecordingAppDelegate)
        delegate.handlesContinuation = false
        world.continueOnPhone()
        #expect(world.events(world.phone, .continued).isEmpty)
        let notHandled = try #require(world.phone.lifecycle.first { $0.kind == .notHandled })
        #expect(notHandled.summary.contains("continue returned false"))
        #expect(world.activityDelegate.wasContinuedCount == 0)
    }

    @Test func aContinuedActivityCanBeAdoptedAndHandedBack() throws {
        let world = try World(phoneManifest: TestManifests.reader)
        let delegate = try #require(world.phoneReader.delegate as? RecordingAppDelegate)
        world.phone.bringToFront(world.phoneReader)
        world.continueOnPhone()
        let received = try #require(delegate.continued.first)
        received.becomeCurrent()
        world.hood.settle()
        #expect(world.phone.currentActivity === received)
        #expect(world.laptop.system.offers[world.phone.info.id] != nil, "the laptop is offered the activity back")
    }

    @Test func choosingAnOfferNoAppHereCanTakeIsNotAFailure() throws {
        let hood = Neighbourhood()
        let laptop = hood.addDevice("Laptop", kind: .laptop)
        let phone = hood.addDevice("Phone", kind: .phone)
        let reader = laptop.install(TestManifests.reader)
        laptop.bringToFront(reader)
        let activity = try UserActivity(activityType: Self.readingType, application: reader)
        activity.becomeCurrent()
        hood.settle()
        phone.chooseOffer(from: laptop.info.id)
        hood.settle()
        #expect(phone.lifecycle.filter { $0.kind == .continuationFailed }.isEmpty)
        let ignored = try #require(phone.lifecycle.first { $0.kind == .choiceIgnored })
        #expect(ignored.occurrence == .choiceIgnored(PeerReference(laptop.info), .unavailable(.noAppClaimsType)))
    }
}

extension ScenesAndLaunchTests.World {
    func events(_ device: Device, _ kind: LifecycleEvent.Kind) -> [LifecycleEvent] {
        device.lifecycle.filter { $0.kind == kind }
    }
}
