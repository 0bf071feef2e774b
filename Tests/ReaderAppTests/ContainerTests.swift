import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

@testable import ReaderApp

/// Each device has its own iCloud container path (links to one cloud folder here, as `handoff
/// device` makes them): a cloud document's URL arrives in the receiver's container, and the
/// Reader reads it with security-scoped access.
@Suite("The Reader and each device's own iCloud container")
struct ContainerTests {
    let folder = TemporaryFolder()
    let hood = Neighbourhood()

    /// `containers/NAME`, a link to `cloud` (made if needed).
    func container(_ name: String) throws -> URL {
        let cloud = folder.folder("cloud")
        let containers = folder.folder("containers")
        try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: containers, withIntermediateDirectories: true)
        let container = containers.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createSymbolicLink(atPath: container.path, withDestinationPath: "../cloud")
        return container
    }

    @Test func aCloudDocumentOpensInTheReceiversContainerWithScopedAccess() throws {
        let laptopContainer = try container("laptop")
        let phoneContainer = try container("phone")
        let laptop = try ReaderDevice(
            "Laptop", kind: .laptop, in: hood, cloudFolder: laptopContainer, localFolder: folder.folder("laptop"))
        let phone = try ReaderDevice(
            "Phone", kind: .phone, in: hood, cloudFolder: phoneContainer, localFolder: folder.folder("phone"))
        hood.settle()
        laptop.open("harrow-point.txt")
        laptop.press(.character(" "))
        hood.settle()
        #expect(laptop.activity?.activityType == "com.handoffsim.reader.document", "an iCloud document's own activity")
        #expect(
            laptop.activity?.userInfo[UserActivity.documentURLKey]
                == .url(laptopContainer.appendingPathComponent("harrow-point.txt")))

        phone.device.chooseOffer(from: laptop.device.info.id)
        hood.settle()
        phone.runLoop.drain()
        let session = try #require(phone.reader.session, "\(String(describing: phone.reader.message))")
        let url = phoneContainer.appendingPathComponent("harrow-point.txt")
        #expect(session.url == url, "the system rewrote the laptop's path to the phone's container")
        #expect(session.position.page == 2)
        let restored = try #require(phone.device.lifecycle.last { $0.kind == .restoreUserActivityState })
        #expect(restored.userInfo?[UserActivity.documentURLKey] == .url(url))
        #expect(!SecurityScopedResources.isClosed(url), "the Reader started accessing it")

        // Closing the document ends the access: the grant is over, the file is the Reader's again.
        phone.press(.escape)
        #expect(phone.reader.session == nil)
        #expect(!SecurityScopedResources.isClosed(url))
        #expect(!url.startAccessingSecurityScopedResource(), "stopped: no longer a security-scoped URL")
    }

    @Test func aScopedURLCannotBeReadBeforeAccessStarts() throws {
        let laptopContainer = try container("laptop")
        let phoneContainer = try container("phone")
        let laptop = try ReaderDevice(
            "Laptop", kind: .laptop, in: hood, cloudFolder: laptopContainer, localFolder: folder.folder("laptop"))
        // An app of the Reader's team that reads the URL itself, and forgets to start accessing it.
        let phone = hood.addDevice("Phone", kind: .phone)
        phone.ubiquityContainerURL = phoneContainer
        let delegate = RecordingAppDelegate()
        let app = phone.install(laptop.reader.manifest, delegate: delegate)
        phone.bringToFront(app)
        hood.settle()
        laptop.open("night-markets.txt")
        hood.settle()
        phone.chooseOffer(from: laptop.device.info.id)
        hood.settle()
        let continued = try #require(delegate.continued.last)
        guard case .url(let url)? = continued.userInfo[UserActivity.documentURLKey] else {
            Issue.record("no document URL in \(continued.userInfo)")
            return
        }
        #expect(url == phoneContainer.appendingPathComponent("night-markets.txt"))
        #expect(FileManager.default.fileExists(atPath: url.path), "the file is there")
        #expect(
            throws: ReadingRestoreError.unreadable(
                name: "night-markets.txt",
                reason: "it came with the activity security-scoped, and access to it was not started")
        ) { try DocumentLibrary.open(url) }
        #expect(url.startAccessingSecurityScopedResource())
        let text = try DocumentLibrary.open(url)
        #expect(text.title != nil)
        url.stopAccessingSecurityScopedResource()
    }
}
