import Foundation

/// An object that holds a piece of the app's state on screen (Apple's `UIResponder`/`NSResponder`
/// activity support).
///
/// Set ``userActivity`` to share an activity: the system makes it current, and before each save
/// it empties the activity's `userInfo` and calls ``updateUserActivityState(_:)`` on every
/// responder sharing it. Setting ``userActivity`` to `nil` detaches; an activity managed this way
/// with no responders left is invalidated.
open class Responder {
    public init() {}

    /// The activity this responder contributes to.
    public final var userActivity: UserActivity? {
        didSet {
            guard userActivity !== oldValue else { return }
            oldValue?.detach(self)
            if let userActivity {
                userActivity.attach(self)
                // UIKit and AppKit save the activities they manage "at appropriate times": a newly
                // attached activity is saved once; after that, only when needsSave is set again.
                userActivity.needsSave = true
                if makesActivityCurrent { userActivity.becomeCurrent() }
            }
        }
    }

    /// Whether setting ``userActivity`` makes the activity current (false for a document on
    /// UIKit: see ``Application/openDocument(at:contentType:)``).
    var makesActivityCurrent = true

    /// Write this responder's state into `activity` (its `userInfo` was emptied just before).
    open func updateUserActivityState(_ activity: UserActivity) {}

    /// Restore this responder's state from a continued activity.
    open func restoreUserActivityState(_ activity: UserActivity) {}
}

/// A document open in an app (Apple's `UIDocument`/`NSDocument` activity support).
///
/// When the app's manifest declares `NSUbiquitousDocumentUserActivityType` for the document's
/// type and the document is in iCloud (``isUbiquitous``), opening the document creates its
/// activity automatically, with the document's URL under ``UserActivity/documentURLKey``;
/// closing the document invalidates it. A document outside iCloud gets no automatic activity.
open class Document: Responder {
    public let fileURL: URL
    public let documentType: AppManifest.DocumentType
    /// Whether the document is in the device's iCloud container (``Device/ubiquityContainerURL``).
    public let isUbiquitous: Bool
    public private(set) var isOpen = true
    weak var application: Application?

    init(fileURL: URL, documentType: AppManifest.DocumentType, isUbiquitous: Bool, application: Application) {
        self.fileURL = fileURL
        self.documentType = documentType
        self.isUbiquitous = isUbiquitous
        self.application = application
    }

    /// Keeps the document URL in the activity (the system emptied `userInfo` first).
    open override func updateUserActivityState(_ activity: UserActivity) {
        activity.addUserInfoEntries(from: [UserActivity.documentURLKey: .url(fileURL)])
    }

    /// Closes the document; its automatic activity is invalidated.
    public func close() {
        guard isOpen else { return }
        isOpen = false
        userActivity = nil
        application?.documentClosed(self)
    }
}
