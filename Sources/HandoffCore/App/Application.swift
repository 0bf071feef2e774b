import Foundation

/// An app's handoff callbacks (Apple's `UIApplicationDelegate`/`NSApplicationDelegate` methods).
/// Every method is optional; unimplemented ones get Apple's defaults.
public protocol ApplicationDelegate: AnyObject {
    /// A continuation of `activityType` is coming: return true if the app tells the user itself
    /// that it is continuing, false to let the system show it. It does not decline (Apple's
    /// reference; see DECISIONS.md). Not implemented: false.
    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool
    /// The activity's data arrived: restore it. Pass the objects to restore to `restorationHandler`;
    /// the system calls their `restoreUserActivityState(_:)` in order. Return true if handled.
    func application(
        _ application: Application, continue userActivity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool
    /// The continuation failed. By default the system shows the error.
    func application(
        _ application: Application, didFailToContinueUserActivityWithType activityType: String,
        error: HandoffError)
    /// The activity was just saved: the last chance to add keys (such as a handoff version).
    func application(_ application: Application, didUpdate userActivity: UserActivity)
}

extension ApplicationDelegate {
    public func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        false
    }

    public func application(
        _ application: Application, continue userActivity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool {
        false
    }

    public func application(
        _ application: Application, didFailToContinueUserActivityWithType activityType: String,
        error: HandoffError
    ) {
        application.device?.systemShowsError(error, activityType: activityType, application: application)
    }

    public func application(_ application: Application, didUpdate userActivity: UserActivity) {}
}

/// An app installed on a simulated device (Apple's `UIApplication` for one app).
public final class Application {
    public let manifest: AppManifest
    public var delegate: (any ApplicationDelegate)?
    /// The device the app is installed on.
    public internal(set) weak var device: Device?
    /// The app's documents that are open.
    public private(set) var openDocuments: [Document] = []
    /// The scene delegate classes the app links, which its scene manifest's
    /// `UISceneDelegateClassName` picks from.
    public let sceneDelegateClasses: [any SceneDelegate.Type]
    /// The app's connected scenes, the most recently active first (empty for an app without a
    /// scene manifest, and for one that is not running).
    public internal(set) var connectedScenes: [Scene] = []
    var sceneSerial = 0

    init(
        manifest: AppManifest, delegate: (any ApplicationDelegate)?, sceneDelegateClasses: [any SceneDelegate.Type],
        device: Device
    ) {
        self.manifest = manifest
        self.delegate = delegate
        self.sceneDelegateClasses = sceneDelegateClasses
        self.device = device
    }

    /// Whether the app uses scenes: its Info.plist has `UIApplicationSceneManifest`. The system
    /// then talks to its scene delegates, not to its app delegate, for Handoff.
    public var usesScenes: Bool { manifest.sceneManifest != nil }

    /// Whether the app is running (in front or in the background).
    public var isRunning: Bool { device?.system.runningApps.contains(manifest.bundleIdentifier) ?? false }

    /// The scene in front (the most recently active).
    public var keyScene: Scene? { connectedScenes.first }

    /// Asks the system for another scene (a new window), as `requestSceneSessionActivation` does.
    /// Nil when the app has no scene manifest, or it does not support multiple scenes and already
    /// has one.
    @discardableResult
    public func requestScene() -> Scene? {
        guard let sceneManifest = manifest.sceneManifest else { return nil }
        guard sceneManifest.supportsMultipleScenes || connectedScenes.isEmpty else { return nil }
        return device?.connectScene(in: self, options: Scene.ConnectionOptions(), continuation: ContinuationID?.none)
    }

    /// Makes `scene` the most recently active one.
    public func activate(_ scene: Scene) {
        guard let index = connectedScenes.firstIndex(where: { $0 === scene }) else { return }
        connectedScenes.insert(connectedScenes.remove(at: index), at: 0)
    }

    /// The configuration a new scene gets: the application role's first entry (else the first).
    var sceneConfiguration: AppManifest.SceneManifest.Configuration? {
        guard let configurations = manifest.sceneManifest?.configurations else { return nil }
        return configurations.first { $0.role == "UIWindowSceneSessionRoleApplication" } ?? configurations.first
    }

    /// The scene delegate class the configuration names, or why there is none.
    func sceneDelegateClass() -> Result<any SceneDelegate.Type, SceneSetupProblem> {
        guard let configuration = sceneConfiguration else { return .failure(.noConfiguration) }
        guard let name = configuration.delegateClass, !name.isEmpty else { return .failure(.noDelegateClassName) }
        let unqualified = name.split(separator: ".").last.map(String.init) ?? name
        let found = sceneDelegateClasses.first { type in
            String(reflecting: type) == name || String(describing: type) == unqualified
        }
        return found.map { .success($0) } ?? .failure(.unknownClass(name))
    }

    public var bundleIdentifier: String { manifest.bundleIdentifier }

    /// Whether the app is in front on its device.
    public var isFrontmost: Bool { device?.system.frontmostApp == manifest.bundleIdentifier }

    /// Opens the document at `url`. When its document type declares a ubiquitous activity type
    /// and the document is in iCloud (inside the device's ``Device/ubiquityContainerURL``), the
    /// document's activity is created automatically: Apple's `NSDocument` and `UIDocument`
    /// "automatically create `NSUserActivity` objects for iCloud-based documents" (Handoff
    /// Programming Guide, "Supporting a User Activity in Document-Based Apps"). A document
    /// elsewhere (the device's own folder) gets none: an app that wants to hand it off creates
    /// an activity of its own. On a laptop (AppKit) the automatic activity becomes current with
    /// the document's window; on a phone or tablet (UIKit) it does not ("UIDocument will not
    /// becomeCurrent automatically"): the app sets it on a responder on screen, which makes it
    /// current.
    ///
    /// - Parameter contentType: One of a declared document type's `LSItemContentTypes`, or a type
    ///   name; when nil, the first document type with a ubiquitous activity type (else the first).
    public func openDocument(at url: URL, contentType: String? = nil) throws(DocumentError) -> Document {
        let type: AppManifest.DocumentType?
        if let contentType {
            type = manifest.documentTypes.first { $0.contentTypes.contains(contentType) || $0.name == contentType }
        } else {
            type = manifest.documentTypes.first { $0.ubiquitousActivityType != nil } ?? manifest.documentTypes.first
        }
        guard let type else {
            throw DocumentError(
                message: "\(manifest.bundleIdentifier) declares no document type "
                    + (contentType.map { "for \"\($0)\"" } ?? "at all") + " (CFBundleDocumentTypes)")
        }
        if let existing = openDocuments.first(where: { $0.fileURL == url }) { return existing }
        let isUbiquitous = device?.ubiquityContainerURL.map { UbiquityContainer.contains(url, in: $0) } ?? false
        let document = Document(fileURL: url, documentType: type, isUbiquitous: isUbiquitous, application: self)
        document.makesActivityCurrent = device?.info.kind == .laptop
        openDocuments.append(document)
        device?.documentOpened(document, in: self)
        if isUbiquitous, let activityType = type.ubiquitousActivityType,
            let activity = try? UserActivity(activityType: activityType, application: self)
        {
            activity.isDocumentActivity = true
            activity.title = url.lastPathComponent
            activity.addUserInfoEntries(from: [UserActivity.documentURLKey: .url(url)])
            document.userActivity = activity
        }
        return document
    }

    func documentClosed(_ document: Document) {
        openDocuments.removeAll { $0 === document }
        device?.documentClosed(document, in: self)
    }
}

/// A document could not be opened.
public struct DocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
