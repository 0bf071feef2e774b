import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

/// Apple's rules on documents across devices: automatic activities are for iCloud documents only
/// (Handoff Programming Guide, "Supporting a User Activity in Document-Based Apps"), iCloud file
/// URLs arrive in the receiver's own container, and the receiving app reads them only with
/// security-scoped access ("Continuing an Activity").
@Suite("iCloud containers and security-scoped document URLs")
struct UbiquityContainerTests {
    /// Paths of this test's own (the security-scope grants are the process's).
    let root = URL(fileURLWithPath: "/containers-\(UUID().uuidString)")
    var laptopContainer: URL { root.appendingPathComponent("laptop", isDirectory: true) }
    var phoneContainer: URL { root.appendingPathComponent("phone", isDirectory: true) }

    @Test func aLocalDocumentGetsNoAutomaticActivity() throws {
        let hood = Neighbourhood()
        let laptop = hood.addDevice("Laptop", kind: .laptop)
        laptop.ubiquityContainerURL = laptopContainer
        let reader = laptop.install(TestManifests.reader)
        laptop.bringToFront(reader)
        let local = root.appendingPathComponent("local/Walden.txt")
        let document = try reader.openDocument(at: local)
        #expect(!document.isUbiquitous)
        #expect(document.userActivity == nil, "only iCloud documents get an activity from the system")
        #expect(laptop.system.advertisement == nil)
        let opened = try #require(laptop.lifecycle.last { $0.kind == .documentOpened })
        #expect(opened.activityType == nil, "the log names no activity type for a local document")
        #expect(!opened.logLine.contains("com.example.reader.document"))

        let inCloud = try reader.openDocument(at: laptopContainer.appendingPathComponent("Walden.txt"))
        #expect(inCloud.isUbiquitous)
        #expect(inCloud.userActivity?.activityType == "com.example.reader.document")
        #expect(laptop.lifecycle.last { $0.kind == .documentOpened }?.activityType == "com.example.reader.document")
    }

    @Test func aDeviceWithoutAContainerHasNoICloudDocuments() throws {
        let hood = Neighbourhood()
        let laptop = hood.addDevice("Laptop", kind: .laptop)
        let reader = laptop.install(TestManifests.reader)
        let document = try reader.openDocument(at: laptopContainer.appendingPathComponent("Walden.txt"))
        #expect(document.userActivity == nil)
    }

    @Test func anAppCanHandOffALocalDocumentWithAnActivityOfItsOwn() throws {
        let hood = Neighbourhood()
        let laptop = hood.addDevice("Laptop", kind: .laptop)
        laptop.ubiquityContainerURL = laptopContainer
        let reader = laptop.install(TestManifests.reader)
        laptop.bringToFront(reader)
        let document = try reader.openDocument(at: root.appendingPathComponent("local/Walden.txt"))
        let own = try UserActivity(activityType: "com.example.reader.reading", application: reader)
        own.supportsContinuationStreams = true
        document.userActivity = own
        hood.settle()
        #expect(own.isCurrent, "on AppKit a document's activity becomes current with its window")
        #expect(laptop.system.advertisement?.options.contains(.isDocument) == false)
    }

    /// Sets up a laptop offering an iCloud document and a phone whose Reader records what it got.
    private func continueICloudDocument(
        userInfo: UserInfo = [:], phoneContainer: URL?
    ) throws -> (laptop: Device, phone: Device, continued: UserActivity, phoneReader: Application) {
        let hood = Neighbourhood()
        let laptop = hood.addDevice("Laptop", kind: .laptop)
        let phone = hood.addDevice("Phone", kind: .phone)
        laptop.ubiquityContainerURL = laptopContainer
        phone.ubiquityContainerURL = phoneContainer
        let laptopReader = laptop.install(TestManifests.reader)
        let delegate = RecordingAppDelegate()
        let phoneReader = phone.install(TestManifests.reader, delegate: delegate)
        laptop.bringToFront(laptopReader)
        phone.bringToFront(phoneReader)
        let document = try laptopReader.openDocument(at: laptopContainer.appendingPathComponent("Walden.txt"))
        let activity = try #require(document.userActivity)
        // The view sharing the document's activity writes the rest of the state at each save.
        let view = StateResponder(state: userInfo)
        view.userActivity = activity
        hood.settle()
        withExtendedLifetime(view) {}
        phone.chooseOffer(from: laptop.info.id)
        hood.settle()
        let continued = try #require(delegate.continued.last, "the phone's Reader got the activity")
        return (laptop, phone, continued, phoneReader)
    }

    @Test func anICloudURLArrivesInTheReceiversContainer() throws {
        let extra: UserInfo = [
            "recent": .array([.url(laptopContainer.appendingPathComponent("notes/a.txt"))]),
            "elsewhere": .url(URL(fileURLWithPath: "/tmp/outside.txt")),
            "web": .url(URL(string: "https://example.com/walden")!),
        ]
        let (laptop, _, continued, _) = try continueICloudDocument(userInfo: extra, phoneContainer: phoneContainer)
        #expect(
            continued.userInfo[UserActivity.documentURLKey]
                == .url(phoneContainer.appendingPathComponent("Walden.txt")),
            "the laptop's path is rewritten to the phone's container")
        #expect(continued.userInfo["recent"] == .array([.url(phoneContainer.appendingPathComponent("notes/a.txt"))]))
        #expect(continued.userInfo["elsewhere"] == .url(URL(fileURLWithPath: "/tmp/outside.txt")), "not in iCloud")
        #expect(continued.userInfo["web"] == .url(URL(string: "https://example.com/walden")!))
        // What left the laptop names no path of the laptop's.
        let encoded = try #require(laptop.traffic.sent?.bytes)
        #expect(!String(decoding: encoded, as: UTF8.self).contains(laptopContainer.path))
    }

    @Test func theReceivedURLIsReadableOnlyWhileAccessIsStarted() throws {
        let (_, phone, continued, phoneReader) = try continueICloudDocument(phoneContainer: phoneContainer)
        guard case .url(let url)? = continued.userInfo[UserActivity.documentURLKey] else {
            Issue.record("no document URL")
            return
        }
        #expect(throws: FileAccessError.self, "closed until the app starts accessing it") {
            try SecurityScopedResources.checkAccess(to: url)
        }
        #expect(url.startAccessingSecurityScopedResource())
        try SecurityScopedResources.checkAccess(to: url)
        #expect(url.startAccessingSecurityScopedResource(), "access nests")
        url.stopAccessingSecurityScopedResource()
        try SecurityScopedResources.checkAccess(to: url)
        url.stopAccessingSecurityScopedResource()
        // The grant is over: the file is the app's as any file of its container.
        try SecurityScopedResources.checkAccess(to: url)
        #expect(!url.startAccessingSecurityScopedResource(), "no longer a security-scoped URL")
        _ = (phone, phoneReader)
    }

    @Test func anAppThatForgetsToStartCannotReadItUntilItQuits() throws {
        let (_, phone, continued, phoneReader) = try continueICloudDocument(phoneContainer: phoneContainer)
        guard case .url(let url)? = continued.userInfo[UserActivity.documentURLKey] else {
            Issue.record("no document URL")
            return
        }
        let error = try #require(throws: FileAccessError.self) { try SecurityScopedResources.checkAccess(to: url) }
        #expect(error.message.contains("Walden.txt") && error.message.contains("startAccessingSecurityScopedResource"))
        phone.terminate(phoneReader)
        try SecurityScopedResources.checkAccess(to: url)
    }

    /// Grants belong to the device that made them, not to its ID: two phones named alike (one
    /// ID) in neighbourhoods of their own share the process, as the tests running in parallel do,
    /// and quitting the Reader on one leaves the other's grant as it was.
    @Test func quittingAnAppEndsTheGrantsOfItsOwnDeviceOnly() throws {
        let (_, phone, continued, phoneReader) = try continueICloudDocument(phoneContainer: phoneContainer)
        let (_, namesake, namesakes, _) = try continueICloudDocument(
            phoneContainer: root.appendingPathComponent("namesake", isDirectory: true))
        #expect(namesake.info.id == phone.info.id)
        guard case .url(let url)? = continued.userInfo[UserActivity.documentURLKey],
            case .url(let namesakesURL)? = namesakes.userInfo[UserActivity.documentURLKey]
        else {
            Issue.record("no document URL")
            return
        }
        phone.terminate(phoneReader)
        try SecurityScopedResources.checkAccess(to: url)
        #expect(throws: FileAccessError.self, "still closed until its app starts accessing it") {
            try SecurityScopedResources.checkAccess(to: namesakesURL)
        }
        #expect(namesakesURL.startAccessingSecurityScopedResource())
        namesakesURL.stopAccessingSecurityScopedResource()
    }

    @Test func aReceiverWithoutAContainerKeepsTheReference() throws {
        let (_, _, continued, _) = try continueICloudDocument(phoneContainer: nil)
        guard case .url(let url)? = continued.userInfo[UserActivity.documentURLKey] else {
            Issue.record("no document URL")
            return
        }
        #expect(url.scheme == UbiquityContainer.scheme)
        #expect(url.lastPathComponent == "Walden.txt")
        #expect(!url.isFileURL, "no file here to point at")
    }

    @Test(arguments: [
        "x-handoff-ubiquity:///../secret.txt", "x-handoff-ubiquity:///a/./b.txt", "x-handoff-ubiquity:///",
        "x-handoff-ubiquity://host/a.txt", "x-handoff-ubiquity:///a.txt?x=1", "x-handoff-ubiquity:///a//b.txt",
        "x-handoff-ubiquity:relative.txt",
    ])
    func aHostileReferenceNeverLeavesTheContainer(_ text: String) throws {
        let hood = Neighbourhood()
        let laptop = hood.addDevice("Laptop", kind: .laptop)
        let phone = hood.addDevice("Phone", kind: .phone)
        phone.ubiquityContainerURL = phoneContainer
        let laptopReader = laptop.install(TestManifests.reader)
        let delegate = RecordingAppDelegate()
        let phoneReader = phone.install(TestManifests.reader, delegate: delegate)
        laptop.bringToFront(laptopReader)
        phone.bringToFront(phoneReader)
        let reference = try #require(URL(string: text))
        let activity = try UserActivity(activityType: "com.example.reader.reading", application: laptopReader)
        activity.userInfo = ["link": .url(reference)]
        activity.becomeCurrent()
        hood.settle()
        phone.chooseOffer(from: laptop.info.id)
        hood.settle()
        let continued = try #require(delegate.continued.last)
        #expect(continued.userInfo["link"] == .url(reference), "left as it came: \(text)")
        #expect(!SecurityScopedResources.isClosed(phoneContainer.appendingPathComponent("secret.txt")))
    }
}
