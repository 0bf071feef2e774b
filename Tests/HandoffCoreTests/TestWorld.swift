import Foundation
import HandoffCore
import HandoffTestSupport

/// Two devices (a laptop origin and a phone receiver) in an in-memory neighbourhood, with the
/// sample apps installed and recording delegates.
final class TwoDevices {
    let hood: Neighbourhood
    let laptop: Device
    let phone: Device
    let log = CallLog()
    let laptopReaderDelegate: RecordingAppDelegate
    let phoneReaderDelegate: RecordingAppDelegate
    let laptopReader: Application
    let phoneReader: Application
    /// The phone reader's on-screen state, restored by continuations.
    let phoneState: StateResponder
    /// Keeps the laptop's views alive, as a window keeps its responders.
    private(set) var laptopViews: [StateResponder] = []

    init(
        configuration: DeviceConfiguration = DeviceConfiguration(saveCoalescingInterval: 60, fetchTimeout: 5),
        phoneConfiguration: DeviceConfiguration? = nil, phoneApps: [AppManifest] = []
    ) {
        hood = Neighbourhood()
        laptop = hood.addDevice("Laptop", kind: .laptop, configuration: configuration)
        phone = hood.addDevice("Phone", kind: .phone, configuration: phoneConfiguration ?? configuration)
        laptopReaderDelegate = RecordingAppDelegate(log: log)
        phoneReaderDelegate = RecordingAppDelegate(log: log)
        laptopReader = laptop.install(TestManifests.reader, delegate: laptopReaderDelegate)
        phoneReader = phone.install(TestManifests.reader, delegate: phoneReaderDelegate)
        phoneState = StateResponder(name: "phoneView", state: ["page": 1], log: log)
        phoneReaderDelegate.restorationTargets = [phoneState]
        for manifest in phoneApps { phone.install(manifest) }
        laptop.bringToFront(laptopReader)
        phone.bringToFront(phoneReader)
    }

    /// Starts a reading activity on the laptop, shared by a responder holding `state`.
    @discardableResult
    func startReading(
        _ state: UserInfo = ["page": 2], title: String = "Moby-Dick"
    ) throws -> (UserActivity, StateResponder) {
        let view = StateResponder(name: "laptopView", state: state, log: log)
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: laptopReader)
        activity.title = title
        view.userActivity = activity
        laptopViews.append(view)
        hood.settle()
        return (activity, view)
    }

    func events(_ device: Device, _ kind: LifecycleEvent.Kind) -> [LifecycleEvent] {
        device.lifecycle.filter { $0.kind == kind }
    }
}
