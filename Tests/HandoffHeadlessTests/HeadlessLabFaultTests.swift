import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

@testable import HandoffHeadless

/// The lab's faults that rehearse the origin going away, the app's wrong answers, a newer handoff
/// version and a slow link: each ends as its expected outcome says, and both devices keep their state.
@Suite("Headless: the lab's other faults")
struct HeadlessLabFaultTests {
    /// A laptop offering a reading activity (with `userInfo`) to a phone that has seen the offer.
    /// Keep both nodes: a node's controller owns its apps' state.
    private func offering(_ userInfo: JSONValue = ["page": 5]) -> (HeadlessWorld, HeadlessNode, HeadlessNode) {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": userInfo])
        world.hood.settle()
        return (world, laptop, phone)
    }

    @Test func whenTheOriginGoesAwayMidFetchTheContinuationFailsWith4609AndTheOriginKeepsItsActivity() throws {
        let (world, laptop, phone) = offering()
        let armed = laptop.ok(["cmd": "fault", "kind": "origin-leaves"])
        #expect(armed["expected"]?.stringValue?.contains("4609") == true)
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.advance(by: 2)
        let failed = try #require(phone.events("lifecycle").first { $0["kind"] == "continuationFailed" })
        #expect(failed["errorCode"] == 4609)
        #expect(phone.events("continue-failed").first?["code"] == 4609, "the app's didFailToContinue was told")
        #expect(phone.events("restored").isEmpty)
        #expect(laptop.lifecycleKinds.contains("faultInjected"))
        #expect(!laptop.lifecycleKinds.contains("payloadSent"))
        #expect(laptop.device.currentActivity != nil, "the origin keeps its activity")
    }

    @Test func willContinueFalseShowsTheSystemsProgressAndTheContinuationGoesOn() throws {
        let (world, laptop, phone) = offering()
        phone.ok(["cmd": "fault", "kind": "will-continue-false"])
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        let asked = try #require(phone.events("lifecycle").first { $0["kind"] == "willContinue" })
        #expect(asked["appShowsProgress"] == false)
        #expect(phone.lifecycleKinds.contains("faultInjected"))
        #expect(phone.events("restored").first?["userInfo"] == ["page": 5])
        #expect(laptop.lifecycleKinds.contains("wasContinued"))
    }

    @Test func continueFalseRestoresNothingAndTheOriginIsNotToldItWasContinued() throws {
        let (world, laptop, phone) = offering()
        phone.ok(["cmd": "fault", "kind": "continue-false"])
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.lifecycleKinds.contains("continueCalled"))
        #expect(phone.lifecycleKinds.contains("notHandled"))
        #expect(phone.events("restored").isEmpty)
        #expect(!laptop.lifecycleKinds.contains("wasContinued"))
        #expect(laptop.device.currentActivity != nil)
    }

    @Test(arguments: [
        (JSONValue.object(["page": 5, "handoffVersion": 2]), JSONValue.integer(3)),
        (JSONValue.object(["page": 5, "handoffVersion": "2.0"]), JSONValue.string("3.0")),
        (JSONValue.object(["page": 5]), JSONValue.integer(2)),
    ])
    func aNewerVersionFaultRaisesTheHandoffVersionThePayloadCarries(userInfo: JSONValue, newer: JSONValue) throws {
        let (world, laptop, phone) = offering(userInfo)
        laptop.ok(["cmd": "fault", "kind": "newer-version"])
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        let restored = try #require(phone.events("restored").first?["userInfo"])
        #expect(restored["handoffVersion"] == newer)
        #expect(restored["page"] == 5)
        #expect(
            laptop.ok(["cmd": "status"])["current"]?["userInfo"]?["handoffVersion"] == userInfo["handoffVersion"],
            "the origin's own state is untouched")
    }

    @Test func aSlowLinkHoldsThePayloadBackByItsLatencyAndBandwidth() throws {
        let (world, laptop, phone) = offering()
        let armed = laptop.ok(["cmd": "fault", "kind": "slow-link", "latencyMs": 1500, "kbps": 1])
        #expect(armed["latencyMs"] == .double(1500))
        #expect(armed["kbps"] == .double(1))
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.advance(by: 1)
        #expect(laptop.lifecycleKinds.contains("payloadSent"))
        #expect(phone.events("restored").isEmpty, "still on its way after a second")
        world.hood.advance(by: 3)
        #expect(phone.events("restored").first?["userInfo"] == ["page": 5])
    }

    @Test func aSlowLinkSlowerThanTheFetchTimeoutFailsWith4610() throws {
        let (world, laptop, phone) = offering()
        laptop.ok(["cmd": "fault", "kind": "slow-link", "latencyMs": 30000])
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.advance(by: 8)
        let failed = try #require(phone.events("lifecycle").first { $0["kind"] == "continuationFailed" })
        #expect(failed["errorCode"] == 4610)
        #expect(laptop.device.currentActivity != nil)
    }

    @Test func badSlowLinkValuesNameTheValidRange() throws {
        let (_, laptop, _) = offering()
        #expect(
            laptop.fails(raw: #"{"cmd":"fault","kind":"slow-link","latencyMs":-1}"#).contains(
                "latencyMs must be from 0 to 30000 ms"))
        #expect(laptop.fails(raw: #"{"cmd":"fault","kind":"slow-link","kbps":0}"#).contains("kbps must be from 1"))
        #expect(laptop.fails(raw: #"{"cmd":"fault","kind":"no-answer","kbps":4}"#).contains("belong to slow-link only"))
        #expect(laptop.ok(["cmd": "status"])["faults"] == .object([:]), "nothing was armed")
    }
}
