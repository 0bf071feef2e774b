import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

@Suite("UserActivity")
struct UserActivityTests {
    let hood = Neighbourhood()
    let device: Device
    let app: Application

    init() {
        device = hood.addDevice("Phone")
        app = device.install(TestManifests.reader)
        device.bringToFront(app)
    }

    @Test("activityType must not be empty", arguments: ["", " ", "\t\n"])
    func invalidTypes(type: String) {
        #expect(throws: UserActivityError.self) { try UserActivity(activityType: type, application: app) }
    }

    @Test(
        "Apple accepts types that are not reverse-DNS (lint only warns)",
        arguments: ["ReadArticle", "reading", "com..example", "com.example.", "com.exa mple"])
    func shortTypesAreAccepted(type: String) throws {
        let activity = try UserActivity(activityType: type, application: app)
        #expect(activity.activityType == type)
    }

    @Test func invalidTypeErrorNamesTheType() {
        do {
            _ = try UserActivity(activityType: "", application: app)
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("\"\""))
            #expect(error.description.contains("empty"))
        }
    }

    @Test func validTypesAreAccepted() throws {
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        #expect(activity.activityType == "com.example.reader.reading")
        #expect(activity.isEligibleForHandoff)
        #expect(!activity.supportsContinuationStreams)
        #expect(!activity.needsSave)
        #expect(activity.isValid)
        _ = try UserActivity(activityType: UserActivity.browsingWebType, application: app)
    }

    @Test(
        "webpageURL accepts http and https",
        arguments: ["http://example.com/a", "https://example.com/b?c=d#e", "HTTPS://EXAMPLE.COM/"])
    func webpageURLAccepted(url: String) throws {
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        try activity.setWebpageURL(URL(string: url)!)
        #expect(activity.webpageURL?.absoluteString == url)
        try activity.setWebpageURL(nil)
        #expect(activity.webpageURL == nil)
    }

    @Test(
        "webpageURL rejects every other scheme and stays unchanged",
        arguments: ["ftp://example.com/", "file:///etc/passwd", "mailto:a@b.c", "myapp://open", "javascript:alert(1)"])
    func webpageURLRejected(url: String) throws {
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        try activity.setWebpageURL(URL(string: "https://example.com/kept")!)
        #expect(throws: UserActivityError.self) { try activity.setWebpageURL(URL(string: url)!) }
        #expect(activity.webpageURL?.absoluteString == "https://example.com/kept")
    }

    @Test func addUserInfoEntriesMerges() throws {
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        activity.userInfo = ["a": 1, "b": "two"]
        activity.addUserInfoEntries(from: ["b": 2.5, "c": true])
        #expect(activity.userInfo == ["a": 1, "b": 2.5, "c": true])
    }

    @Test func oneCurrentActivityPerDevice() throws {
        let first = try UserActivity(activityType: "com.example.reader.reading", application: app)
        let second = try UserActivity(activityType: "com.example.reader.document", application: app)
        first.becomeCurrent()
        #expect(first.isCurrent)
        second.becomeCurrent()
        #expect(second.isCurrent)
        #expect(!first.isCurrent)
        #expect(device.currentActivity === second)
    }

    @Test func resignCurrentStopsAdvertisingWithoutInvalidating() throws {
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        activity.becomeCurrent()
        #expect(device.system.advertisement != nil)
        activity.resignCurrent()
        #expect(!activity.isCurrent)
        #expect(activity.isValid)
        #expect(device.system.advertisement == nil)
        activity.becomeCurrent()
        #expect(activity.isCurrent)
    }

    @Test func invalidateIsFinal() throws {
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        activity.becomeCurrent()
        activity.invalidate()
        #expect(!activity.isValid)
        #expect(!activity.isCurrent)
        activity.becomeCurrent()
        #expect(!activity.isCurrent)
        #expect(device.system.advertisement == nil)
        activity.invalidate()
        #expect(device.lifecycle.filter { $0.kind == .invalidated }.count == 1)
    }

    /// The log keeps the most recent events: it is trimmed to its capacity in one go once it is a
    /// quarter over, never by moving every event for each new one.
    @Test func theLifecycleKeepsTheMostRecentEvents() throws {
        device.lifecycleCapacity = 40
        var counts: [Int] = []
        for _ in 0..<100 {
            let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
            activity.invalidate()
            counts.append(device.lifecycle.count)
            #expect(device.lifecycle.last?.kind == .invalidated)
        }
        #expect(counts.max()! <= 50)
        #expect(counts.last! >= 40)
        // Trimmed every ten events or so (two or more per activity), not at each of the 80 past 40.
        #expect(zip(counts, counts.dropFirst()).filter { $0 > $1 }.count < 30)
        #expect(zip(device.lifecycle, device.lifecycle.dropFirst()).allSatisfy { $0.time <= $1.time })
    }

    @Test func requiredUserInfoKeysLimitWhatLeaves() throws {
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        activity.userInfo = [
            "page": 3, "scratch": "big", UserActivity.documentURLKey: .url(URL(string: "file:///doc.txt")!),
        ]
        activity.requiredUserInfoKeys = ["page"]
        let payload = activity.makePayload()
        #expect(Set(payload.userInfo.keys) == ["page", UserActivity.documentURLKey])
        #expect(payload.teamIdentifier == TestManifests.team)
        #expect(payload.bundleIdentifier == "com.example.reader")
    }

    @Test func streamTokenOnlyWithStreams() throws {
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: app)
        #expect(activity.makePayload(streamToken: Data([1, 2])).streamToken.isEmpty)
        activity.supportsContinuationStreams = true
        #expect(activity.makePayload(streamToken: Data([1, 2])).streamToken == Data([1, 2]))
    }

    @Test func errorsCarryApplesCodes() {
        #expect(HandoffError.Code.handoffFailed.rawValue == CocoaError.Code.userActivityHandoffFailed.rawValue)
        #expect(
            HandoffError.Code.connectionUnavailable.rawValue
                == CocoaError.Code.userActivityConnectionUnavailable.rawValue)
        #expect(
            HandoffError.Code.remoteApplicationTimedOut.rawValue
                == CocoaError.Code.userActivityRemoteApplicationTimedOut.rawValue)
        #expect(
            HandoffError.Code.userInfoTooLarge.rawValue == CocoaError.Code.userActivityHandoffUserInfoTooLarge.rawValue)
        #expect(HandoffError.Code.userCancelled.rawValue == CocoaError.Code.userCancelled.rawValue)
        let error = HandoffError(.userInfoTooLarge, "too big")
        #expect(error.cocoaError.code == .userActivityHandoffUserInfoTooLarge)
        #expect(error.description.contains("4611"))
    }
}
