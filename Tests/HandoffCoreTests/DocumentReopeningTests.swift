import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

/// AppKit's restoration of document activities (Handoff Programming Guide, "Supporting a User
/// Activity in Document-Based Apps"): when a document-based Mac app's `continue` returns false or
/// is not implemented, `NSDocumentController` opens the document and sends it
/// `restoreUserActivityState`. UIKit does no such thing.
@Suite("AppKit reopens a document activity the app did not continue")
struct DocumentReopeningTests {
    let root = URL(fileURLWithPath: "/reopening-\(UUID().uuidString)")

    /// A phone offering an iCloud document (or, with `document` false, a reading activity) to a
    /// receiver of `kind` whose Reader has `delegate`.
    private func continueDocument(
        to kind: PeerInfo.Kind, delegate: (any ApplicationDelegate)?, document: Bool = true
    ) throws -> (origin: Device, receiver: Device, app: Application, originActivity: UserActivity) {
        let hood = Neighbourhood()
        let origin = hood.addDevice("Phone", kind: .phone)
        let receiver = hood.addDevice("Laptop", kind: kind)
        origin.ubiquityContainerURL = root.appendingPathComponent("phone", isDirectory: true)
        receiver.ubiquityContainerURL = root.appendingPathComponent("laptop", isDirectory: true)
        let originReader = origin.install(TestManifests.reader)
        let app = receiver.install(TestManifests.reader, delegate: delegate)
        origin.bringToFront(originReader)
        receiver.bringToFront(app)
        let activity: UserActivity
        let view = Responder()
        view.isOnScreen = true
        if document {
            let opened = try originReader.openDocument(
                at: root.appendingPathComponent("phone/Walden.txt"), contentType: "public.plain-text")
            activity = try #require(opened.userActivity)
        } else {
            activity = try UserActivity(activityType: "com.example.reader.reading", application: originReader)
        }
        view.userActivity = activity
        hood.settle()
        receiver.chooseOffer(from: origin.info.id)
        hood.settle()
        return (origin, receiver, app, activity)
    }

    @Test func continueReturningFalseOnALaptopReopensTheDocument() throws {
        let delegate = RecordingAppDelegate()
        delegate.handlesContinuation = false
        let (origin, receiver, app, _) = try continueDocument(to: .laptop, delegate: delegate)
        #expect(delegate.continued.count == 1, "the app was asked first")
        let url = root.appendingPathComponent("laptop/Walden.txt")
        #expect(app.openDocuments.map(\.fileURL) == [url], "NSDocumentController opened it, in this device's container")
        let continued = try #require(receiver.lifecycle.last { $0.kind == .continued })
        #expect(continued.logLine.contains("the system reopened Walden.txt"))
        #expect(continued.fields.first { $0.key == "reopened" }?.value == .string("Walden.txt"))
        #expect(!receiver.lifecycle.contains { $0.kind == .notHandled })
        let kinds = receiver.lifecycle.map(\.kind).filter {
            [.continueCalled, .documentOpened, .restoreUserActivityState, .continued, .notHandled].contains($0)
        }
        #expect(kinds == [.continueCalled, .documentOpened, .restoreUserActivityState, .continued], "\(kinds)")
        #expect(origin.lifecycle.contains { $0.kind == .wasContinued }, "the origin is told")
        #expect(!SecurityScopedResources.isClosed(url), "the system opened it: no security-scoped access needed")
    }

    @Test func aLaptopAppWithoutContinueGetsTheDocumentReopened() throws {
        let (_, receiver, app, _) = try continueDocument(to: .laptop, delegate: MinimalAppDelegate())
        #expect(app.openDocuments.map(\.fileURL.lastPathComponent) == ["Walden.txt"])
        #expect(receiver.lifecycle.last { $0.kind == .continued } != nil)
    }

    @Test func theReopenedDocumentRestoresTheActivitysState() throws {
        let (_, receiver, app, _) = try continueDocument(to: .laptop, delegate: nil)
        let document = try #require(app.openDocuments.first)
        let restored = try #require(receiver.lifecycle.last { $0.kind == .restoreUserActivityState })
        #expect(
            restored.userInfo?[UserActivity.documentURLKey] == .url(document.fileURL),
            "restoreUserActivityState got the activity with the URL in this device's container")
    }

    @Test func uiKitDoesNotReopenDocuments() throws {
        let delegate = RecordingAppDelegate()
        delegate.handlesContinuation = false
        let (origin, receiver, app, _) = try continueDocument(to: .tablet, delegate: delegate)
        #expect(app.openDocuments.isEmpty)
        #expect(receiver.lifecycle.last { $0.kind == .notHandled } != nil)
        #expect(!origin.lifecycle.contains { $0.kind == .wasContinued })
    }

    @Test func anActivityOfItsOwnIsNotReopened() throws {
        let delegate = RecordingAppDelegate()
        delegate.handlesContinuation = false
        let (_, receiver, app, _) = try continueDocument(to: .laptop, delegate: delegate, document: false)
        #expect(app.openDocuments.isEmpty)
        #expect(receiver.lifecycle.last { $0.kind == .notHandled } != nil)
    }
}
