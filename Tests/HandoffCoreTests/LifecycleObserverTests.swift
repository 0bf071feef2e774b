import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

/// `Device.addLifecycleObserver`/`removeLifecycleObserver`: every observer is told every event,
/// in the order the observers were added, until it is removed.
@Suite("Lifecycle observers: added in order, removed by token")
struct LifecycleObserverTests {
    /// What the observers of one device were told, in the order they were told it.
    final class Told {
        var entries: [(observer: String, event: LifecycleEvent)] = []
        func observers(of event: LifecycleEvent) -> [String] {
            entries.filter { $0.event == event }.map(\.observer)
        }
        func events(of observer: String) -> [LifecycleEvent] {
            entries.filter { $0.observer == observer }.map(\.event)
        }
    }

    @Test func observersAreToldEveryEventInTheOrderAdded() throws {
        let hood = Neighbourhood()
        let device = hood.addDevice("Phone")
        let told = Told()
        for name in ["first", "second", "third"] {
            device.addLifecycleObserver { told.entries.append((name, $0)) }
        }
        let app = device.install(TestManifests.reader)
        device.bringToFront(app)
        _ = try UserActivity(activityType: "com.example.reader.reading", application: app)
        hood.settle()

        #expect(!device.lifecycle.isEmpty)
        for event in device.lifecycle {
            #expect(told.observers(of: event) == ["first", "second", "third"], "\(event.kind)")
        }
        #expect(told.entries.count == 3 * device.lifecycle.count)
    }

    /// Makes the device record events: an activity of its reader, made current.
    func makeEvents(on device: Device, in hood: Neighbourhood, app: Application) throws {
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        activity.becomeCurrent()
        hood.settle()
    }

    @Test func aRemovedObserverIsToldNothingMoreAndTheOthersStay() throws {
        let hood = Neighbourhood()
        let device = hood.addDevice("Phone")
        let told = Told()
        device.addLifecycleObserver { told.entries.append(("first", $0)) }
        let second = device.addLifecycleObserver { told.entries.append(("second", $0)) }
        device.addLifecycleObserver { told.entries.append(("third", $0)) }
        let app = device.install(TestManifests.reader)
        device.bringToFront(app)
        try makeEvents(on: device, in: hood, app: app)
        let before = device.lifecycle

        device.removeLifecycleObserver(second)
        device.removeLifecycleObserver(second)  // again: nothing happens
        try makeEvents(on: device, in: hood, app: app)

        let after = Array(device.lifecycle.dropFirst(before.count))
        #expect(!before.isEmpty && !after.isEmpty)
        #expect(told.events(of: "first") == before + after)
        #expect(told.events(of: "second") == before)
        #expect(told.events(of: "third") == before + after)
        for event in after { #expect(told.observers(of: event) == ["first", "third"]) }
    }

    @Test func anObserverAddedOrRemovedWhileAnEventIsToldCountsFromTheNext() throws {
        let hood = Neighbourhood()
        let device = hood.addDevice("Phone")
        let told = Told()
        var late: LifecycleObserverToken?
        var removedDuring: LifecycleObserverToken?
        device.addLifecycleObserver { event in
            told.entries.append(("first", event))
            if late == nil {
                late = device.addLifecycleObserver { told.entries.append(("late", $0)) }
                if let removedDuring { device.removeLifecycleObserver(removedDuring) }
            }
        }
        removedDuring = device.addLifecycleObserver { told.entries.append(("removed", $0)) }
        let app = device.install(TestManifests.reader)
        device.bringToFront(app)
        try makeEvents(on: device, in: hood, app: app)

        let events = device.lifecycle
        #expect(events.count >= 2)
        #expect(told.observers(of: events[0]) == ["first", "removed"])
        for event in events.dropFirst() { #expect(told.observers(of: event) == ["first", "late"]) }
    }

    @Test func tokensAreDistinct() {
        let device = Neighbourhood().addDevice("Phone")
        let tokens = (0..<10).map { _ in device.addLifecycleObserver { _ in } }
        #expect(Set(tokens).count == 10)
    }
}
