import DeviceAppKit
import Foundation
import HandoffCore
import TerminalCells

/// The Reader: a document-based demo app whose documents hand off between devices.
///
/// It lists the plain-text documents of the account's cloud folder and of the device's local
/// folder, and shows one at a time in logical pages (``PagedText``). Its Info.plist declares a
/// document type whose `NSUbiquitousDocumentUserActivityType` is the reading activity, so
/// opening a document creates the document's activity (with the document URL), and closing it
/// invalidates it. The reading view shares that activity and adds the document's name and the
/// position (``ReadingState``); continuing on another device opens the same document at the same
/// place, whatever the size of its screen.
///
/// Create it with ``init()`` (it loads its manifest from its resources), then let the device
/// install it (`manifest`, `delegate`) and call ``launch(application:environment:)``. Like every
/// app, it is used on its device's run loop only.
public final class ReaderApp: TerminalApp, ApplicationDelegate {
    /// The build settings the Reader's Info.plist is expanded with.
    public static let buildSettings = ["PRODUCT_BUNDLE_IDENTIFIER": "com.handoffsim.reader", "DEVELOPMENT_TEAM": "SIMTEAM001"]
    /// The content type of the Reader's documents.
    public static let contentType = "public.plain-text"

    public let manifest: AppManifest
    public let glyph: Character = "▤"
    /// The folder of sample documents copied into the library on launch (nil: none).
    public let sampleDocuments: URL?

    /// The documents listed, cloud folder first (read on launch, when coming to the front,
    /// when the list is shown again, and on `r`).
    public private(set) var documents: [DocumentEntry] = []
    /// The index in ``documents`` of the document chosen in the list.
    public internal(set) var selection = 0
    /// What the app tells the user, until the next key.
    public internal(set) var message: ReaderMessage?
    /// True between `willContinue` and the end of the continuation (it shows it is loading).
    public private(set) var isContinuing = false

    private(set) var application: Application?
    private(set) var environment: AppEnvironment?
    private(set) var library: DocumentLibrary?
    private(set) var session: ReadingSession?
    let readingView = ReadingView()
    /// The size of the text in the reading view at the last render; keys scroll by it.
    var viewport = Size(width: 72, height: 20)

    /// Loads the Reader's manifest from its resources (see ``ReaderResources/locate()``).
    ///
    /// - Throws: ``ReaderError`` naming the file (and the key, for a bad manifest).
    public convenience init() throws(ReaderError) {
        try self.init(resources: ReaderResources.locate())
    }

    /// Loads the Reader's manifest from `resources.infoPlist`, expanding `buildSettings`.
    ///
    /// - Throws: ``ReaderError/manifest(_:)`` when the Info.plist cannot be read or has errors,
    ///   ``ReaderError/noDocumentActivity(file:)`` when it declares no document activity.
    public convenience init(resources: ReaderResources, buildSettings: [String: String] = ReaderApp.buildSettings) throws(ReaderError) {
        let manifest: AppManifest
        do {
            manifest = try AppManifest(infoPlistAt: resources.infoPlist, buildSettings: buildSettings)
        } catch {
            throw .manifest(error)
        }
        try self.init(manifest: manifest, sampleDocuments: resources.sampleDocuments, manifestFile: resources.infoPlist.path)
    }

    /// A Reader with a manifest read elsewhere.
    ///
    /// - Throws: ``ReaderError/noDocumentActivity(file:)`` when the manifest declares no
    ///   plain-text document type with a ubiquitous activity type.
    public init(manifest: AppManifest, sampleDocuments: URL?, manifestFile: String = "Info.plist") throws(ReaderError) {
        guard manifest.documentTypes.contains(where: { $0.contentTypes.contains(Self.contentType) && $0.ubiquitousActivityType != nil })
        else { throw .noDocumentActivity(file: manifestFile) }
        self.manifest = manifest
        self.sampleDocuments = sampleDocuments
        readingView.reader = self
    }

    // MARK: TerminalApp

    public var title: String {
        guard let session else { return "Documents" }
        return "\(session.title) · page \(session.position.page) of \(session.text.pageCount)"
    }

    public var keyHints: [KeyHint] {
        if session == nil {
            return [KeyHint("↑ ↓", "choose"), KeyHint("Enter", "open"), KeyHint("r", "refresh the list")]
        }
        return [
            KeyHint("Space/b", "page"),
            KeyHint("↑ ↓", "scroll"),
            KeyHint("Esc", "close the document"),
            KeyHint("PgDn/PgUp", "next, previous page"),
            KeyHint("Home  End", "start, end of the document"),
            KeyHint("Backspace", "close the document"),
        ]
    }

    /// Copies the sample documents into the cloud folder (the local folder when the device has
    /// no cloud) unless they are there already, and reads the list.
    public func launch(application: Application, environment: AppEnvironment) {
        self.application = application
        self.environment = environment
        library = DocumentLibrary(cloudFolder: environment.cloudFolder, localFolder: environment.localFolder)
        if let sampleDocuments {
            let folder = environment.cloudFolder ?? environment.localFolder
            do {
                let copied = try SampleDocuments.install(from: sampleDocuments, into: folder)
                if !copied.isEmpty {
                    environment.log("Reader: copied \(copied.count) sample document(s) into \(folder.path)")
                }
            } catch {
                environment.log("Reader: could not copy the sample documents into \(folder.path): \(error)")
                message = ReaderMessage(.warning, "The sample documents could not be copied into \(folder.lastPathComponent).")
            }
        }
        reloadDocuments()
    }

    public func setFrontmost(_ frontmost: Bool) {
        guard frontmost else { return }
        if let session {
            session.document.userActivity?.becomeCurrent()
        } else {
            reloadDocuments()
        }
    }

    // MARK: Documents

    /// Reads the list again, keeping the chosen document chosen when it is still there.
    public func reloadDocuments() {
        let chosen = documents.indices.contains(selection) ? documents[selection].url : nil
        documents = library?.documents() ?? []
        selection = chosen.flatMap { url in documents.firstIndex { $0.url == url } } ?? min(selection, max(documents.count - 1, 0))
    }

    /// Opens the document at `url` in the reading view at `position` (clamped to the document),
    /// closing the one open before, if another. On failure nothing changes.
    ///
    /// - Throws: ``ReadingRestoreError/unreadable(name:reason:)``.
    func openDocument(at url: URL, position: ReadingPosition = .start) throws(ReadingRestoreError) {
        let text = try DocumentLibrary.read(url)
        if let session, session.url == url {
            session.reload(text, at: position)
            positionChanged()
            return
        }
        guard let application else { throw .unreadable(name: url.lastPathComponent, reason: "the Reader is not running") }
        let document: Document
        do {
            document = try application.openDocument(at: url, contentType: Self.contentType)
        } catch {
            throw .unreadable(name: url.lastPathComponent, reason: error.message)
        }
        closeDocument()
        let session = ReadingSession(document: document, text: text, position: position)
        self.session = session
        document.userActivity?.title = session.title
        readingView.userActivity = document.userActivity
        positionChanged()
    }

    /// Closes the open document and shows the list; the document's activity is invalidated
    /// (neither the document nor the reading view holds it any more).
    func closeDocument() {
        guard let session else { return }
        readingView.userActivity = nil
        session.document.close()
        self.session = nil
        reloadDocuments()
        if let index = documents.firstIndex(where: { $0.url == session.url }) { selection = index }
    }

    /// The position changed: the activity needs saving.
    private func positionChanged() {
        session?.document.userActivity?.needsSave = true
    }

    // MARK: Continuation

    public func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        isContinuing = true
        message = nil
        environment?.setNeedsDisplay()
        return true
    }

    /// Hands the reading view to the restoration handler; it opens the document at the
    /// activity's place (``restore(from:)``).
    public func application(_ application: Application, continue userActivity: UserActivity,
                            restorationHandler: @escaping ([Responder]) -> Void) -> Bool {
        isContinuing = false
        restorationHandler([readingView])
        return true
    }

    /// Says in the app that the continuation failed (quietly when the user cancelled it); what
    /// was on screen stays.
    public func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String,
                            error: HandoffError) {
        isContinuing = false
        message = error.code == .userCancelled ? nil
            : ReaderMessage(.error, "Could not continue: \(error.code.meaning) (\(error.code.rawValue)). Nothing changed here.")
        environment?.log("Reader: continuation of \(activityType) failed: \(error)")
        environment?.setNeedsDisplay()
    }

    /// Opens the document a continued activity names, at its place. A bad or missing key, or a
    /// document this device cannot find or read, leaves everything as it was and says why.
    func restore(from activity: UserActivity) {
        defer { environment?.setNeedsDisplay() }
        do throws(ReadingRestoreError) {
            let state = try ReadingState(userInfo: activity.userInfo)
            guard let library else { throw .documentNotFound(name: state.documentName) }
            // A document missing here ends the restore with a message. Fetching it from the
            // originating device (over continuation streams) would start from this failure.
            let url = try library.locate(state)
            try openDocument(at: url, position: state.position)
            message = nil
            if let session, session.position.page != state.position.page {
                message = ReaderMessage(.warning, "“\(session.title)” has \(session.text.pageCount) pages now; "
                    + "page \(state.position.page) was asked for.")
            }
        } catch {
            message = ReaderMessage(.error, error.description)
            environment?.log("Reader: could not restore \(activity.activityType): \(error)")
        }
    }
}

/// A line the Reader shows the user.
public struct ReaderMessage: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case info, warning, error
    }

    public var kind: Kind
    public var text: String

    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }
}
