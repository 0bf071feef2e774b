import Foundation
import HandoffTestSupport
import Testing

@testable import HandoffCore

/// The short cuts on an offer's path (issue 29): what they spare changes nothing a device shows.
@Suite("The offer's path: short cuts that change nothing")
struct OfferPathTests {
    static let t0 = Date(timeIntervalSinceReferenceDate: 1_000_000)
    let me = PeerInfo(id: "me", name: "Me", kind: .phone)
    let laptop = PeerInfo(id: "laptop", name: "Laptop", kind: .laptop)

    func snapshot(
        _ id: UUID = UUID(uuidString: "00000000-0000-4000-8000-00000000000A")!,
        type: String = "com.example.reader.reading",
        bundle: String = "com.example.reader", team: String = "ABCDE12345", title: String? = "Moby-Dick",
        webpageHost: String? = nil
    ) -> ActivitySnapshot {
        ActivitySnapshot(
            id: id, bundleIdentifier: bundle, teamIdentifier: team, activityType: type, title: title,
            hasWebpageURL: webpageHost != nil, webpageHost: webpageHost)
    }

    // MARK: The origin: an activity made current

    @Test func theSystemHoldsASnapshotOnlyAsItWasToldWhileItsAppRuns() {
        var system = DeviceSystem(device: me)
        let reading = snapshot()
        #expect(!system.holds(reading), "never told")
        _ = system.handle(.activityChanged(reading), at: Self.t0)
        #expect(system.holds(reading))
        var retitled = reading
        retitled.title = "Emma"
        #expect(!system.holds(retitled), "another title: telling it changes the system")
        _ = system.handle(.appTerminated(bundleIdentifier: reading.bundleIdentifier), at: Self.t0)
        #expect(!system.holds(reading), "its app is no longer running: telling it starts the app again")
        _ = system.handle(.activityChanged(reading), at: Self.t0)
        #expect(system.runningApps.contains(reading.bundleIdentifier))
        #expect(system.holds(reading))
        _ = system.handle(.activityInvalidated(reading.id), at: Self.t0)
        #expect(!system.holds(reading), "invalidated: forgotten")
    }

    @Test func whatTheSystemHoldsAlreadyChangesNothingWhenToldAgain() {
        var system = DeviceSystem(device: me)
        let reading = snapshot()
        _ = system.handle(.appBecameFrontmost(bundleIdentifier: reading.bundleIdentifier), at: Self.t0)
        _ = system.handle(.activityChanged(reading), at: Self.t0)
        _ = system.handle(.activityBecameCurrent(reading.id), at: Self.t0)
        #expect(system.holds(reading))
        let before = (system.activities, system.runningApps, system.advertisement, system.nextDeadline)
        #expect(system.handle(.activityChanged(reading), at: Self.t0.addingTimeInterval(1)).isEmpty)
        #expect(system.activities == before.0)
        #expect(system.runningApps == before.1)
        #expect(system.advertisement == before.2)
        #expect(system.nextDeadline == before.3)
    }

    /// A device told of an activity it made current again, and of one whose title changed in
    /// between, records and advertises as it did when it told the system every time.
    @Test func becomingCurrentAgainRecordsAndAdvertisesAsBefore() throws {
        let hood = Neighbourhood()
        let device = hood.addDevice("Device", kind: .phone)
        let app = device.install(TestManifests.reader)
        device.bringToFront(app)
        let first = try UserActivity(activityType: "com.example.reader.reading", application: app)
        first.title = "Moby-Dick"
        first.becomeCurrent()
        hood.settle()
        let second = try UserActivity(activityType: "com.example.reader.reading", application: app)
        second.becomeCurrent()
        hood.settle()
        #expect(second.isCurrent)
        first.becomeCurrent()
        hood.settle()
        #expect(first.isCurrent)
        #expect(device.system.activities[first.identifier]?.title == "Moby-Dick")
        first.title = "Emma"
        first.becomeCurrent()
        hood.settle()
        #expect(device.system.activities[first.identifier]?.title == "Emma", "the new title reached the system")
        let kinds = device.lifecycle.map(\.kind).filter {
            [.activityCreated, .becameCurrent, .resignedCurrent, .advertised].contains($0)
        }
        #expect(
            kinds == [
                .activityCreated, .becameCurrent, .advertised, .activityCreated, .resignedCurrent, .becameCurrent,
                .advertised, .resignedCurrent, .becameCurrent, .advertised,
            ])
        #expect(device.system.advertisement?.activityTypeHash == ActivityTypeHash(activityType: first.activityType))
    }

    @Test func anActivityOfAnAppNoLongerRunningBringsItsAppBackWhenMadeCurrent() throws {
        let hood = Neighbourhood()
        let device = hood.addDevice("Device", kind: .phone)
        let app = device.install(TestManifests.reader)
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        hood.settle()
        #expect(device.system.runningApps.contains(app.bundleIdentifier))
        device.system = {
            var system = device.system
            _ = system.handle(.appTerminated(bundleIdentifier: app.bundleIdentifier), at: Date())
            return system
        }()
        #expect(!device.system.runningApps.contains(app.bundleIdentifier))
        activity.becomeCurrent()
        hood.settle()
        #expect(device.system.runningApps.contains(app.bundleIdentifier), "told again: its app runs")
        #expect(activity.isCurrent)
    }

    // MARK: The origin: the advertised hashes

    @Test func eachAdvertisementCarriesItsOwnActivitysHashes() {
        var system = DeviceSystem(device: me)
        let reading = snapshot()
        let other = snapshot(
            UUID(uuidString: "00000000-0000-4000-8000-00000000000B")!, type: "com.example.other.thing",
            bundle: "com.example.other", team: "OTHERTEAM1")
        let page = snapshot(
            UUID(uuidString: "00000000-0000-4000-8000-00000000000C")!, type: UserActivity.browsingWebType,
            bundle: "com.example.browser", webpageHost: "Example.com")
        var now = Self.t0
        for activity in [reading, other, reading, page, reading] {
            now += 1
            _ = system.handle(.appBecameFrontmost(bundleIdentifier: activity.bundleIdentifier), at: now)
            _ = system.handle(.activityChanged(activity), at: now)
            _ = system.handle(.activityBecameCurrent(activity.id), at: now)
            let ad = system.advertisement
            #expect(ad?.activityTypeHash == activity.advertisedHash, "\(activity.activityType)")
            #expect(ad?.teamHash == TeamHash(teamIdentifier: activity.teamIdentifier))
            #expect(ad?.options.contains(.isBrowsingWeb) == (activity.webpageHost != nil))
        }
        #expect(system.advertisement?.activityTypeHash == ActivityTypeHash(activityType: reading.activityType))
    }

    @Test func anActivityNeverSavedIsAdvertisedAsSavedWhenItBecameCurrent() {
        var system = DeviceSystem(device: me)
        let reading = snapshot()
        _ = system.handle(.appBecameFrontmost(bundleIdentifier: reading.bundleIdentifier), at: Self.t0)
        _ = system.handle(.activityChanged(reading), at: Self.t0)
        let effects = system.handle(.activityBecameCurrent(reading.id), at: Self.t0 + 5)
        #expect(system.advertisement?.savedAt == Self.t0 + 5)
        #expect(effects.count == 2, "the record, then the advertisement")
        guard case .advertise(let ad, _) = effects.last else {
            Issue.record("no advertisement: \(effects)")
            return
        }
        #expect(ad == system.advertisement)
        // Current again later (after another): still the first time it became current.
        let other = snapshot(UUID(uuidString: "00000000-0000-4000-8000-00000000000B")!)
        _ = system.handle(.activityChanged(other), at: Self.t0 + 6)
        _ = system.handle(.activityBecameCurrent(other.id), at: Self.t0 + 6)
        _ = system.handle(.activityBecameCurrent(reading.id), at: Self.t0 + 9)
        #expect(system.advertisement?.savedAt == Self.t0 + 5)
    }

    // MARK: The receiver: an offer heard again

    func advertisement(serial: UInt32, savedAt: Date, expiresAt: Date? = nil) -> Advertisement {
        Advertisement(
            device: laptop.id, activityTypeHash: ActivityTypeHash(activityType: "com.example.reader.reading"),
            teamHash: TeamHash(teamIdentifier: "ABCDE12345"), options: [.isEligibleForHandoff],
            activitySerial: serial, savedAt: savedAt, expiresAt: expiresAt)
    }

    @Test func anOfferHeardAgainIsUpdatedInPlace() {
        var system = DeviceSystem(device: me)
        _ = system.handle(.appInstalled(TestManifests.reader), at: Self.t0)
        let first = advertisement(serial: 1, savedAt: Self.t0)
        var effects = system.handle(.advertisementReceived(first, from: laptop), at: Self.t0)
        #expect(effects.map(\.kind) == [.offerReceived])
        #expect(system.offers[laptop.id]?.firstSeen == Self.t0)
        // The same state again, from a renamed peer: seen later, renamed, nothing recorded.
        let renamed = PeerInfo(id: laptop.id, name: "Laptop 2", kind: .laptop)
        effects = system.handle(.advertisementReceived(first, from: renamed), at: Self.t0 + 1)
        #expect(effects.isEmpty)
        #expect(system.offers[laptop.id]?.lastSeen == Self.t0 + 1)
        #expect(system.offers[laptop.id]?.firstSeen == Self.t0)
        #expect(system.offers[laptop.id]?.peer.name == "Laptop 2")
        // The same activity saved again: updated.
        let saved = advertisement(serial: 1, savedAt: Self.t0 + 10)
        effects = system.handle(.advertisementReceived(saved, from: renamed), at: Self.t0 + 2)
        #expect(effects.map(\.kind) == [.offerUpdated])
        #expect(system.offers[laptop.id]?.advertisement == saved)
        // Another activity: received anew, first seen now.
        let next = advertisement(serial: 2, savedAt: Self.t0 + 3, expiresAt: Self.t0 + 20)
        effects = system.handle(.advertisementReceived(next, from: renamed), at: Self.t0 + 3)
        #expect(effects.map(\.kind) == [.offerReceived])
        #expect(system.offers[laptop.id]?.firstSeen == Self.t0 + 3)
        #expect(system.offers[laptop.id]?.payloadSize == nil)
        #expect(system.offers.count == 1)
        #expect(system.nextDeadline == Self.t0 + 20, "its expiry is the next deadline")
    }
}

extension DeviceSystem.Effect {
    /// The kind of a record effect (nil for any other effect).
    fileprivate var kind: LifecycleEvent.Kind? {
        if case .record(let event) = self { event.kind } else { nil }
    }
}
