import Foundation

/// An app's handoff callbacks (Apple's `UIApplicationDelegate`/`NSApplicationDelegate` methods).
/// Every method is optional; unimplemented ones get Apple's defaults.
public protocol ApplicationDelegate: AnyObject {
    /// A continuation of `activityType` is coming: return true to show it is loading, false to
    /// decline it (in the simulator, false declines; see DECISIONS.md).
    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool
    /// The activity's data arrived: restore it. Pass the objects to restore to `restorationHandler`;
    /// the system calls their `restoreUserActivityState(_:)` in order. Return true if handled.
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([Responder]) -> Void) -> Bool
    /// The continuation failed. By default the system shows the error.
    func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String,
                     error: HandoffError)
    /// The activity was just saved: the last chance to add keys (such as a handoff version).
    func application(_ application: Application, didUpdate userActivity: UserActivity)
}

extension ApplicationDelegate {
    public func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        true
    }

    public func application(_ application: Application, continue userActivity: UserActivity,
                            restorationHandler: @escaping ([Responder]) -> Void) -> Bool {
        false
    }

    public func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String,
                            error: HandoffError) {
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

    init(manifest: AppManifest, delegate: (any ApplicationDelegate)?, device: Device) {
        self.manifest = manifest
        self.delegate = delegate
        self.device = device
    }

    public var bundleIdentifier: String { manifest.bundleIdentifier }

    /// Whether the app is in front on its device.
    public var isFrontmost: Bool { device?.system.frontmostApp == manifest.bundleIdentifier }

    /// Opens the document at `url`. When its document type declares a ubiquitous activity type,
    /// the document's activity is created and made current automatically.
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
            throw DocumentError(message: "\(manifest.bundleIdentifier) declares no document type "
                + (contentType.map { "for \"\($0)\"" } ?? "at all") + " (CFBundleDocumentTypes)")
        }
        if let existing = openDocuments.first(where: { $0.fileURL == url }) { return existing }
        let document = Document(fileURL: url, documentType: type, application: self)
        openDocuments.append(document)
        device?.documentOpened(document, in: self)
        if let activityType = type.ubiquitousActivityType,
           let activity = try? UserActivity(activityType: activityType, application: self) {
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
