import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

@Suite("Continuing between two devices")
struct ContinuationFlowTests {
    @Test func theOfferReachesThePeerAndIsContinuable() throws {
        let world = TwoDevices()
        try world.startReading()
        let offer = try #require(world.phone.system.offers[world.laptop.info.id])
        #expect(offer.route == .app(bundleIdentifier: "com.example.reader", activityType: "com.example.reader.reading"))
        #expect(offer.peer.name == "Laptop")
        #expect(offer.peer.kind == .laptop)
        #expect(world.events(world.phone, .offerReceived).count == 1)
    }

    @Test func theCompleteFlowRestoresTheStateOfTheMomentTheUserChose() throws {
        let world = TwoDevices()
        let originDelegate = RecordingActivityDelegate(log: world.log)
        let (activity, view) = try world.startReading(["page": 2])
        activity.delegate = originDelegate
        world.hood.advance(by: 120)  // the coalesced save happened long ago
        // The user turns pages; needsSave is set after the last save and not yet saved.
        view.state = ["page": 3, "scroll": 0.25]
        activity.needsSave = true
        world.log.clear()
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.settle()
        #expect(world.phoneState.state == ["page": 3, "scroll": 0.25])
        #expect(
            world.log.entries == [
                "com.example.reader.willContinue(com.example.reader.reading)",
                "willSave(com.example.reader.reading)",
                "laptopView.update(userInfo: 0 keys)",
                "com.example.reader.didUpdate",
                "com.example.reader.continue(com.example.reader.reading)",
                "phoneView.restore",
                "wasContinued(com.example.reader.reading)",
            ])
        #expect(activity.isCurrent, "the origin keeps its activity")
        let received = try #require(world.phoneReaderDelegate.continued.first)
        #expect(received.title == "Moby-Dick")
        #expect(received.identifier == activity.identifier)
        let kinds = world.phone.lifecycle.map(\.kind)
        for kind in [
            LifecycleEvent.Kind.continueChosen, .willContinue, .fetchStarted, .payloadReceived, .continueCalled,
            .restoreUserActivityState, .continued,
        ] {
            #expect(kinds.contains(kind), "phone records \(kind)")
        }
        let arrival = try #require(world.events(world.phone, .payloadReceived).first)
        #expect((arrival.bytes ?? 0) > 0)
        #expect(arrival.milliseconds != nil)
        #expect(world.events(world.laptop, .wasContinued).first?.peer?.name == "Phone")
    }

    @Test func everyValueKindArrivesExactly() throws {
        let world = TwoDevices()
        let state: UserInfo = [
            "array": [1, "two", 3.5, false],
            "data": .data(Data([0, 1, 254, 255])),
            "date": .date(Date(timeIntervalSinceReferenceDate: 12_345.678_9)),
            "dict": ["nested": ["deeper": .null]],
            "null": .null,
            "int": .integer(.min),
            "double": -0.0,
            "bool": true,
            "set": .set([1, "1", 1.0, true]),
            "string": "naïve café ☕️ 漢字",
            "url": .url(URL(string: "https://example.com/a%20b?q=1#frag")!),
            "uuid": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        ]
        try world.startReading(state)
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.settle()
        #expect(world.phoneState.state == state)
    }

    @Test func invalidateWithdrawsTheOfferFromPeers() throws {
        let world = TwoDevices()
        let (activity, _) = try world.startReading()
        #expect(world.phone.system.offers.count == 1)
        activity.invalidate()
        world.hood.settle()
        #expect(world.phone.system.offers.isEmpty)
        #expect(world.events(world.phone, .offerWithdrawn).count == 1)
    }

    @Test func aPeerThatFallsSilentExpires() throws {
        let world = TwoDevices(configuration: DeviceConfiguration(offerLifetime: 3))
        try world.startReading()
        world.hood.disconnect(world.laptop)
        world.hood.advance(by: 2)
        #expect(world.phone.system.offers.count == 1)
        world.hood.advance(by: 2)
        #expect(world.phone.system.offers.isEmpty)
        #expect(world.events(world.phone, .offerExpired).count == 1)
    }

    @Test func periodicBeaconsReachADeviceThatStartsLater() throws {
        let world = TwoDevices()
        try world.startReading()
        let tablet = world.hood.addDevice("Tablet", kind: .tablet)
        tablet.install(TestManifests.reader)
        world.hood.advance(by: 1.5)
        #expect(tablet.system.offers[world.laptop.info.id] != nil)
    }

    @Test func lossyBeaconsStillArrive() throws {
        let world = TwoDevices()
        world.hood.beaconLossRate = 0.7
        try world.startReading()
        world.hood.advance(by: 20)
        #expect(world.phone.system.offers[world.laptop.info.id] != nil)
        #expect(world.hood.beaconsLost > 0)
    }

    @Test func threeDevicesSeeEachOthersOffers() throws {
        let world = TwoDevices()
        let tablet = world.hood.addDevice("Tablet", kind: .tablet)
        let tabletReader = tablet.install(TestManifests.reader)
        tablet.bringToFront(tabletReader)
        try world.startReading()
        let view = StateResponder(name: "tabletView", state: ["page": 7])
        view.userActivity = try UserActivity(activityType: "com.example.reader.reading", application: tabletReader)
        world.hood.settle()
        #expect(Set(world.phone.system.offers.keys) == [world.laptop.info.id, tablet.info.id])
        #expect(tablet.system.offers[world.laptop.info.id] != nil)
        world.phone.chooseOffer(from: tablet.info.id)
        world.hood.settle()
        #expect(world.phoneState.state == ["page": 7])
    }

    @Test func lifecycleEventsHaveFieldsForJSON() throws {
        let world = TwoDevices()
        try world.startReading()
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.settle()
        for event in world.phone.lifecycle {
            let fields = event.fields
            #expect(fields.first?.key == "time")
            #expect(fields.first { $0.key == "kind" }?.value == .string(event.kind.rawValue))
            #expect(fields.first { $0.key == "device" }?.value == .string("Phone"))
            #expect(Set(fields.map(\.key)).count == fields.count, "no key twice in \(event.kind)")
            #expect(!event.explanation.isEmpty)
            #expect(!event.summary.isEmpty)
        }
    }
}
