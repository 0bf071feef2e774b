import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

@Suite("Saving, responders and documents")
struct SavingAndResponderTests {
    @Test func needsSaveIsCoalescedOverTheInterval() throws {
        let hood = Neighbourhood()
        let device = hood.addDevice("Phone", configuration: DeviceConfiguration(saveCoalescingInterval: 1))
        let app = device.install(TestManifests.reader)
        device.bringToFront(app)
        let delegate = RecordingActivityDelegate()
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        activity.delegate = delegate
        activity.becomeCurrent()
        for page in 1...5 {
            activity.userInfo["page"] = .integer(Int64(page))
            activity.needsSave = true
            hood.advance(by: 0.1)
        }
        #expect(delegate.log.entries.isEmpty, "no save inside the coalescing interval")
        hood.advance(by: 1)
        #expect(delegate.log.entries == ["willSave(com.example.reader.reading)"])
        #expect(!activity.needsSave)
        hood.advance(by: 5)
        #expect(delegate.log.entries.count == 1, "nothing more to save")
    }

    @Test func saveEmptiesUserInfoAndAsksEveryResponderThenDidUpdate() throws {
        let log = CallLog()
        let hood = Neighbourhood()
        let device = hood.addDevice("Phone", configuration: DeviceConfiguration(saveCoalescingInterval: 0))
        let appDelegate = RecordingAppDelegate(log: log)
        let app = device.install(TestManifests.reader, delegate: appDelegate)
        device.bringToFront(app)
        let activityDelegate = RecordingActivityDelegate(log: log)
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        activity.delegate = activityDelegate
        let text = StateResponder(name: "text", state: ["page": 4], log: log)
        let outline = StateResponder(name: "outline", state: ["chapter": "II"], log: log)
        text.userActivity = activity
        outline.userActivity = activity
        activity.userInfo = ["stale": true]
        appDelegate.onDidUpdate = { $0.addUserInfoEntries(from: ["version": 2]) }
        // Attaching saved it once already ("UIKit saves managed activities at appropriate times").
        log.clear()
        activity.userInfo = ["stale": true]
        activity.needsSave = true
        #expect(
            log.entries == [
                "willSave(com.example.reader.reading)",
                "text.update(userInfo: 0 keys)",
                "outline.update(userInfo: 1 keys)",
                "com.example.reader.didUpdate",
            ])
        #expect(activity.userInfo == ["page": 4, "chapter": "II", "version": 2])
    }

    @Test func detachingEveryResponderInvalidatesTheActivity() throws {
        let hood = Neighbourhood()
        let device = hood.addDevice("Phone")
        let app = device.install(TestManifests.reader)
        device.bringToFront(app)
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        let a = StateResponder(name: "a")
        let b = StateResponder(name: "b")
        a.userActivity = activity
        b.userActivity = activity
        #expect(activity.isCurrent)
        a.userActivity = nil
        #expect(activity.isValid, "one responder still shares it")
        b.userActivity = nil
        #expect(!activity.isValid)
        #expect(device.system.advertisement == nil)
    }

    @Test func theFrontmostAppsActivityIsCurrent() throws {
        let hood = Neighbourhood()
        let device = hood.addDevice("Phone")
        let reader = device.install(TestManifests.reader)
        let map = device.install(TestManifests.map)
        device.bringToFront(reader)
        let readerView = StateResponder()
        let reading2 = try UserActivity(activityType: "com.example.reader.reading", application: reader)
        readerView.userActivity = reading2
        let mapView = StateResponder()
        let region = try UserActivity(activityType: "com.example.map.region", application: map)
        mapView.userActivity = region
        #expect(device.currentActivity === reading2, "the map is in the background")
        device.bringToFront(map)
        #expect(device.currentActivity === region)
        device.bringToFront(nil)
        #expect(device.currentActivity == nil)
        #expect(device.system.advertisement == nil)
        device.bringToFront(reader)
        #expect(device.currentActivity === reading2)
    }

    @Test func openingADocumentCreatesItsActivityAndClosingInvalidatesIt() throws {
        let hood = Neighbourhood()
        let device = hood.addDevice("Laptop", kind: .laptop)
        device.ubiquityContainerURL = URL(fileURLWithPath: "/cloud/demo")
        let app = device.install(TestManifests.reader)
        device.bringToFront(app)
        let url = URL(fileURLWithPath: "/cloud/demo/Moby-Dick.txt")
        let document = try app.openDocument(at: url, contentType: "public.plain-text")
        let activity = try #require(document.userActivity)
        #expect(activity.activityType == "com.example.reader.document")
        #expect(activity.userInfo[UserActivity.documentURLKey] == .url(url))
        #expect(activity.isCurrent)
        #expect(device.system.advertisement?.options.contains(.isDocument) == true)
        #expect(device.lifecycle.contains { $0.kind == .documentOpened })
        document.close()
        #expect(!activity.isValid)
        #expect(device.system.advertisement == nil)
        #expect(app.openDocuments.isEmpty)
    }

    @Test func onUIKitADocumentsActivityBecomesCurrentOnlyOnAResponder() throws {
        let hood = Neighbourhood()
        let device = hood.addDevice("Phone", kind: .phone)
        device.ubiquityContainerURL = URL(fileURLWithPath: "/cloud/demo")
        let app = device.install(TestManifests.reader)
        device.bringToFront(app)
        let document = try app.openDocument(at: URL(fileURLWithPath: "/cloud/demo/Moby-Dick.txt"))
        let activity = try #require(document.userActivity)
        #expect(!activity.isCurrent, "UIDocument will not becomeCurrent automatically")
        #expect(device.system.advertisement == nil)
        let view = Responder()
        view.isOnScreen = true
        view.userActivity = activity
        #expect(activity.isCurrent, "set on a responder on screen, it becomes current")
        #expect(device.system.advertisement?.options.contains(.isDocument) == true)
    }

    @Test func aDocumentKeepsItsURLThroughSaves() throws {
        let hood = Neighbourhood()
        let device = hood.addDevice(
            "Laptop", kind: .laptop, configuration: DeviceConfiguration(saveCoalescingInterval: 0))
        device.ubiquityContainerURL = URL(fileURLWithPath: "/cloud/demo")
        let app = device.install(TestManifests.reader)
        device.bringToFront(app)
        let url = URL(fileURLWithPath: "/cloud/demo/Moby-Dick.txt")
        let document = try app.openDocument(at: url)
        let activity = try #require(document.userActivity)
        activity.userInfo["page"] = 9
        activity.needsSave = true
        #expect(
            activity.userInfo == [UserActivity.documentURLKey: .url(url)],
            "userInfo is emptied before responders update; the document writes its URL back")
    }

    @Test func openingAnUndeclaredDocumentTypeFails() throws {
        let hood = Neighbourhood()
        let device = hood.addDevice("Phone")
        let map = device.install(TestManifests.map)
        #expect(throws: DocumentError.self) { try map.openDocument(at: URL(fileURLWithPath: "/x.txt")) }
        let reader = device.install(TestManifests.reader)
        #expect(throws: DocumentError.self) {
            try reader.openDocument(at: URL(fileURLWithPath: "/x.png"), contentType: "public.png")
        }
    }
}
