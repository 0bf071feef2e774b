import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

@testable import HandoffHeadless

/// The headless scripted apps as scene apps, quitting apps, and forgetting needsSave.
@Suite("Headless: scenes, cold launches and needsSave")
struct HeadlessScenesTests {
    @Test func aSceneAppContinuesOnAColdLaunchThroughWillConnectThenContinue() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone", appModel: .scenes)
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 7]])
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        let kinds = phone.lifecycleKinds.filter { !["offerReceived", "offerUpdated"].contains($0) }
        #expect(
            kinds == [
                "continueChosen", "applicationLaunched", "sceneWillConnect", "sceneWillContinue", "fetchStarted",
                "payloadReceived", "sceneContinue", "continued",
            ])
        let launched = try #require(phone.events("lifecycle").first { $0["kind"] == "applicationLaunched" })
        #expect(launched["launch"] == "cold")
        let connect = try #require(phone.events("lifecycle").first { $0["kind"] == "sceneWillConnect" })
        #expect(connect["handoffUserActivityType"] == .string(readingType))
        let connected = try #require(phone.events("scene-connected").first)
        #expect(connected["userActivities"] == 0)
        #expect(phone.events("restored").first?["userInfo"] == ["page": 7])
    }

    @Test func theConnectionOptionsBugMissesTheActivityAndTheOriginIsNotTold() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone", appModel: .scenesConnectionOptionsOnly)
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 7]])
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.events("scene-connected").first?["missed"] != nil)
        let notHandled = try #require(phone.events("lifecycle").first { $0["kind"] == "notHandled" })
        #expect(notHandled["notHandled"]?.stringValue?.contains("does not implement scene(_:continue:)") == true)
        #expect(phone.events("restored").isEmpty)
        #expect(!laptop.lifecycleKinds.contains("wasContinued"))
    }

    @Test func quittingAnAppMakesTheNextContinuationCold() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone", appModel: .scenes)
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 1]])
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        let status = phone.ok(["cmd": "status"])
        #expect(status["apps"]?.arrayValue?.first?["running"] == true)
        let quit = phone.ok(["cmd": "quit-app", "app": "com.example.reader"])
        #expect(quit["running"] == false)
        #expect(phone.lifecycleKinds.contains("applicationTerminated"))
        laptop.ok(["cmd": "update", "userInfo": ["page": 2]])
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        let launches = phone.events("lifecycle").filter { $0["kind"] == "applicationLaunched" }.map { $0["launch"] }
        #expect(launches == ["cold", "cold"])
        #expect(phone.events("scene-connected").count == 2)
        #expect(phone.events("restored").last?["userInfo"] == ["page": 2])
        // A bad quit says what is wrong.
        let error = phone.fails(raw: #"{"cmd":"quit-app","app":"com.nope"}"#)
        #expect(error.contains("no app \"com.nope\" is installed"))
    }

    @Test func updateWithoutNeedsSaveMakesTheNextContinuationRestoreTheEarlierState() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 3]])
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.events("restored").last?["userInfo"] == ["page": 3])
        let updated = laptop.ok(["cmd": "update", "userInfo": ["page": 40], "needsSave": false])
        #expect(updated["needsSave"] == false)
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.events("restored").last?["userInfo"] == ["page": 3], "the payload carried the state saved last")
        let skipped = try #require(laptop.events("lifecycle").last { $0["kind"] == "saveSkipped" })
        #expect(skipped["detail"]?.stringValue?.contains("but needsSave was not set") == true)
        #expect(skipped["explanation"]?.stringValue?.contains("set needsSave whenever the state changes") == true)
        #expect(skipped["lastSaved"] != nil)
        #expect(skipped["changedAt"] != nil)
    }

    /// A correct app, the way a demo goes: the state changes with needsSave, the user waits, the
    /// coalesced save runs, then the phone continues. The origin skips a save it does not need,
    /// and nothing it logs speaks of the forgotten-needsSave bug.
    @Test func aCorrectAppWhoseCoalescedSaveRanIsNeverToldItForgotNeedsSave() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 1]])
        world.hood.advance(by: 61)  // past the world's 60 s coalescing interval
        laptop.ok(["cmd": "update", "userInfo": ["page": 2]])
        laptop.ok(["cmd": "update", "userInfo": ["page": 3]])
        world.hood.advance(by: 61)  // past the world's 60 s coalescing interval
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.events("restored").last?["userInfo"] == ["page": 3])
        let skipped = try #require(laptop.events("lifecycle").last { $0["kind"] == "saveSkipped" })
        #expect(skipped["detail"]?.stringValue?.contains("not marked changed since") == true)
        #expect(skipped["changedAt"] == nil)
        for event in laptop.events("lifecycle") {
            for key in ["detail", "explanation"] {
                let text = event[key]?.stringValue ?? ""
                #expect(!text.contains("needsSave was not set") && !text.contains("set needsSave whenever"), "\(text)")
            }
        }
    }

    /// forget-needs-save armed once forgets every needsSave until the next payload request (two
    /// page turns, as the walkthrough's "Space twice"), then it is used up.
    @Test func forgetNeedsSaveArmedOnceForgetsEveryChangeUntilTheNextContinuation() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 1]])
        world.hood.advance(by: 61)  // past the world's 60 s coalescing interval
        laptop.ok(["cmd": "fault", "kind": "forget-needs-save"])
        laptop.ok(["cmd": "update", "userInfo": ["page": 2]])
        laptop.ok(["cmd": "update", "userInfo": ["page": 3]])
        world.hood.advance(by: 61)  // past the world's 60 s coalescing interval
        #expect(laptop.events("lifecycle").filter { $0["kind"] == "faultInjected" }.count == 2)
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.events("restored").last?["userInfo"] == ["page": 1], "both changes were forgotten")
        let skipped = try #require(laptop.events("lifecycle").last { $0["kind"] == "saveSkipped" })
        #expect(skipped["detail"]?.stringValue?.contains("but needsSave was not set") == true)
        #expect(laptop.ok(["cmd": "status"])["faults"] == .object([:]), "used up by the continuation it made stale")
        laptop.ok(["cmd": "update", "userInfo": ["page": 4]])
        world.hood.advance(by: 61)  // past the world's 60 s coalescing interval
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.events("restored").last?["userInfo"] == ["page": 4])
    }
}

@Suite("Headless: step mode")
struct HeadlessStepTests {
    @Test func stepModeHoldsTheContinuationBeforeWillContinueUntilNext() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 5]])
        world.hood.settle()
        #expect(phone.ok(["cmd": "step"])["stepping"] == true)
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        var paused = phone.events("lifecycle").filter { $0["kind"] == "stepPaused" }
        #expect(paused.map { $0["phase"] } == ["launch"])
        phone.ok(["cmd": "next"])
        world.hood.settle()
        paused = phone.events("lifecycle").filter { $0["kind"] == "stepPaused" }
        #expect(paused.map { $0["phase"] } == ["launch", "willContinue"])
        #expect(!phone.lifecycleKinds.contains("willContinue"), "held before willContinue")
        // Held longer than the fetch timeout: nothing runs out while paused.
        world.hood.advance(by: 30)
        #expect(!phone.lifecycleKinds.contains("continuationFailed"))
        #expect(phone.ok(["cmd": "status"])["pausedAt"]?["phase"] == "willContinue")
        phone.ok(["cmd": "next"])
        world.hood.settle()
        #expect(phone.lifecycleKinds.contains("willContinue"))
        #expect(phone.events("lifecycle").last { $0["kind"] == "stepPaused" }?["phase"] == "fetch")
        // The fetch timeout starts when the fetch does: a long pause before it costs nothing.
        phone.ok(["cmd": "next"])
        world.hood.settle()
        #expect(phone.events("lifecycle").last { $0["kind"] == "stepPaused" }?["phase"] == "continue")
        world.hood.advance(by: 30)
        #expect(
            !phone.lifecycleKinds.contains("continuationFailed"), "paused before continue, the timeout is suspended")
        phone.ok(["cmd": "next"])
        world.hood.settle()
        // continue asked for a restoration: held before it runs.
        #expect(phone.lifecycleKinds.contains("continueCalled"))
        #expect(phone.events("lifecycle").last { $0["kind"] == "stepPaused" }?["phase"] == "restore")
        #expect(phone.events("restored").isEmpty)
        #expect(!phone.lifecycleKinds.contains("continued"), "continued follows the restorations")
        phone.ok(["cmd": "next"])
        world.hood.settle()
        #expect(phone.events("restored").first?["userInfo"] == ["page": 5])
        #expect(phone.lifecycleKinds.contains("continued"))
        // Nothing is paused now.
        let error = phone.fails(raw: #"{"cmd":"next"}"#)
        #expect(error.contains("not paused"))
    }

    @Test func turningStepModeOffGoesOnThroughEverythingHeld() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 6]])
        world.hood.settle()
        phone.ok(["cmd": "step", "on": true])
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        phone.ok(["cmd": "step", "on": false])
        world.hood.settle()
        #expect(phone.events("restored").first?["userInfo"] == ["page": 6])
    }
}

@Suite("Step mode and cancelling")
struct StepCancelTests {
    @Test func cancellingWhilePausedEndsTheContinuationAndKeepsBothStates() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 6]])
        world.hood.settle()
        phone.ok(["cmd": "step"])
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.device.pausedAt != nil)
        phone.ok(["cmd": "cancel"])
        world.hood.settle()
        #expect(phone.device.pausedAt == nil)
        #expect(phone.device.system.pendingContinuation == nil)
        #expect(phone.events("restored").isEmpty)
        #expect(!laptop.lifecycleKinds.contains("payloadRequested"))
        #expect(laptop.device.currentActivity != nil, "the origin keeps its activity")
    }
}

@Suite("Headless: faults")
struct HeadlessFaultTests {
    @Test func aNoAnswerFaultTimesTheFetchOutWith4610AndTheOriginKeepsItsActivity() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 5]])
        let armed = laptop.ok(["cmd": "fault", "kind": "no-answer"])
        #expect(armed["faults"] == ["no-answer": false])
        #expect(armed["expected"]?.stringValue?.contains("4610") == true)
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.advance(by: 6)
        let failed = try #require(phone.events("lifecycle").first { $0["kind"] == "continuationFailed" })
        #expect(failed["errorCode"] == 4610)
        #expect(laptop.lifecycleKinds.contains("faultInjected"))
        #expect(laptop.device.currentActivity != nil)
        #expect(laptop.ok(["cmd": "status"])["faults"] == .object([:]), "a one-time fault is used up")
    }

    @Test func anUnknownFaultListsTheKinds() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let message = laptop.fails(raw: #"{"cmd":"fault","kind":"gremlins"}"#)
        for fault in Fault.allCases { #expect(message.contains(fault.rawValue)) }
        laptop.ok(["cmd": "fault", "kind": "drop-beacons", "sticky": true])
        #expect(laptop.ok(["cmd": "fault", "kind": "drop-beacons", "off": true])["faults"] == .object([:]))
    }
}
