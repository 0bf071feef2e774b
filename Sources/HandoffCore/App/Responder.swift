import Foundation

/// An object that holds a piece of the app's state on screen (Apple's `UIResponder`/`NSResponder`
/// activity support).
///
/// Set ``userActivity`` to share an activity: before each save the system empties the activity's
/// `userInfo` and calls ``updateUserActivityState(_:)`` on every responder sharing it. Setting
/// ``userActivity`` to `nil` detaches; an activity managed this way with no responders left is
/// invalidated.
///
/// The system makes a responder's activity current only when the responder is on screen as its
/// platform counts it (``isOnScreen``): on a phone or tablet (UIKit) a view controller whose view
/// is in the window hierarchy, once any transition it is in is over (``isInTransition``: "we wait
/// until after it's done"); on a laptop (AppKit) a responder of the main window's responder chain
/// (WWDC 2014, "Adopting Handoff": "becomeCurrent on iOS", "becomeCurrent on OS X"). A responder
/// the app has not put on screen holds its activity without making it current; an app can always
/// call `becomeCurrent()` itself.
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
                makeActivityCurrentIfShown()
            }
        }
    }

    /// Whether the responder is on screen as its platform counts it: UIKit, a view controller
    /// whose view is in the window hierarchy; AppKit, a responder in the main window's responder
    /// chain. The app says so as it shows and hides its views or changes the main window;
    /// becoming true makes the responder's activity current (unless ``isInTransition``). False
    /// until the app says otherwise.
    public final var isOnScreen = false {
        didSet { if isOnScreen && !oldValue { makeActivityCurrentIfShown() } }
    }

    /// UIKit: the view controller is in a transition (appearing, or being presented). The system
    /// waits until it is over to make its activity current; ending it does.
    public final var isInTransition = false {
        didSet { if oldValue && !isInTransition { makeActivityCurrentIfShown() } }
    }

    /// Whether setting ``userActivity`` makes the activity current (false for a document on
    /// UIKit: see ``Application/openDocument(at:contentType:)``).
    var makesActivityCurrent = true

    /// Whether the system counts this responder's activity as shown now (a document overrides:
    /// AppKit follows the main window's document).
    var showsActivity: Bool { isOnScreen && !isInTransition }

    /// Makes the activity current when the platform's rule says the responder shows it.
    func makeActivityCurrentIfShown() {
        guard makesActivityCurrent, showsActivity, let userActivity, userActivity.isValid else { return }
        userActivity.becomeCurrent()
    }

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

    /// AppKit makes the activity of the main window controller's document current: a document
    /// opens in its window, which becomes the main window (UIKit never does: ``makesActivityCurrent``).
    override var showsActivity: Bool { true }

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
