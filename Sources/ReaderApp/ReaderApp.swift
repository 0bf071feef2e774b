import DeviceAppKit
import Foundation
import HandoffCore
import HandoffManifest
import TerminalCells

/// The Reader: a document-based demo app whose documents hand off between devices.
///
/// It lists the plain-text documents of the account's cloud folder and of the device's local
/// folder, and shows one at a time in logical pages (``PagedText``'s pages, found as far as they
/// are shown: ``DocumentText``). Its Info.plist declares a
/// document type whose `NSUbiquitousDocumentUserActivityType` is the document activity, so
/// opening a document of the cloud folder (the device's iCloud container) creates the
/// document's activity (with the document URL), and closing it invalidates it. A document of the
/// local folder gets no automatic activity: the Reader makes its own (``localActivityType``, with
/// continuation streams). The reading view shares the activity and adds the document's name and
/// the position (``ReadingState``); continuing on another device opens the same document at the
/// same place, whatever the size of its screen. A document URL arrives rewritten to the
/// continuing device's container and security-scoped: the Reader starts accessing it before
/// reading and stops when the document closes.
///
/// When the continuing device cannot find the document (no cloud folder there, or a document
/// local to the origin), the Reader asks the origin's Reader for it over the activity's
/// continuation streams (``DocumentTransferProtocol``), stores it in the local folder and opens
/// it at the same place. The activity also carries a handoff version (``ReadingState``) and a web
/// page (``webpageURL(for:)``) for devices without the Reader, and a `targetContentIdentifier`
/// naming the document, which picks the window (scene) showing it on the continuing device.
///
/// It runs either app model (``AppModel``): with the app delegate (`Info.plist`), or with scenes
/// (`Info-Scenes.plist`, whose scene manifest names ``ReaderSceneDelegate``; each window is a
/// scene). Either way it loads its entitlements (`Reader.entitlements`), so a browsing-web activity
/// for a page of its site (``webHost``) continues here, opening that document at that page.
///
/// Create it with ``init(version:model:)`` (it loads its manifest from its resources), then let the
/// device install it (`manifest`, `delegate`, `sceneDelegateClasses`) and call
/// ``launch(application:environment:)``. Like every app, it is used on its device's run loop
/// only; stream transfers run in tasks and come back through `AppEnvironment.perform`.
package final class ReaderApp: TerminalApp, ApplicationDelegate {
    /// The build settings the Reader's Info.plist is expanded with.
    package static let buildSettings = [
        "PRODUCT_BUNDLE_IDENTIFIER": "com.handoffsim.reader", "DEVELOPMENT_TEAM": "SIMTEAM001",
    ]
    /// The content type of the Reader's documents.
    package static let contentType = "public.plain-text"

    package let manifest: AppManifest
    package let glyph: Character = "▤"
    /// The folder of sample documents copied into the library on launch (nil: none).
    package let sampleDocuments: URL?

    /// The documents listed, cloud folder first (read on launch, when coming to the front,
    /// when the list is shown again, and on `r`).
    package private(set) var documents: [DocumentEntry] = []
    /// The index in ``documents`` of the document chosen in the list.
    package internal(set) var selection = 0
    /// What the app tells the user, until the next key.
    package internal(set) var message: ReaderMessage?
    /// True between `willContinue` (or a scene connected for a continuation) and the end of the
    /// continuation (it shows it is loading).
    package internal(set) var isContinuing = false
    /// The type of the activity being continued, while ``isContinuing``.
    var continuingActivityType: String?
    /// The handoff version of the keys this Reader writes (``ReadingState/writableVersions``).
    package let version: Int
    /// The type of the activity the Reader makes itself for a document of the device's local
    /// folder: the first of its manifest's `NSUserActivityTypes` (nil: local documents do not
    /// hand off). An iCloud document's activity is the system's, of the document type's
    /// `NSUbiquitousDocumentUserActivityType`.
    package var localActivityType: String? { manifest.activityTypes.first }
    /// The handoff versions this Reader reads: the supported ones, and its own.
    package var readableVersions: ClosedRange<Int> { ReadingState.readableVersions(writing: version) }
    /// The document being received over continuation streams, if any.
    package internal(set) var transfer: TransferProgress?
    /// The longest wait for the next bytes of a transfer.
    package var transferIdleTimeout: Duration = .seconds(30)

    private(set) var application: Application?
    private(set) var environment: AppEnvironment?
    private(set) var library: DocumentLibrary?
    /// The windows, in the order they were opened (at least one).
    var windows: [ReaderWindow] = []
    /// The index in ``windows`` of the window shown.
    var frontIndex = 0
    /// A window asked for with ``Application/requestScene()``, waiting for its scene.
    var windowAwaitingScene: ReaderWindow?
    /// Identifies the running transfer, so that a stale result is ignored.
    var transferID: UUID?
    /// The running transfer's task (cancelled when a newer continuation replaces it).
    var transferTask: Task<Void, Never>?
    /// The document being received, as far as it arrived (shown in ``transferWindow``).
    var transferPreview: TransferPreview?
    /// The window the running transfer's document opens in.
    var transferWindow: ReaderWindow?
    /// The size of the app's area, as told by the device (``viewportChanged(to:)``).
    private(set) var areaSize = Size(width: 76, height: 23)
    /// The size of the page's text in the reading view, in the app's area with what the status
    /// line holds now; keys scroll by it.
    var viewport: Size { frame(in: Rect(origin: .zero, size: areaSize)).content.size }

    /// Loads the Reader's manifest from its resources (see ``ReaderResources/locate()``).
    ///
    /// - Parameters:
    ///   - version: the handoff version of the keys it writes (``ReadingState/writableVersions``:
    ///     2, the current one; 1 rehearses an older Reader, 3 a newer one whose activities a
    ///     current Reader refuses).
    ///   - model: the app delegate (`Info.plist`) or scenes (`Info-Scenes.plist`).
    /// - Throws: ``ReaderError`` naming the file (and the key, for a bad manifest), or
    ///   ``ReaderError/unsupportedVersion(_:)``.
    package convenience init(
        version: Int = ReadingState.currentVersion, model: AppModel = .delegate
    ) throws(ReaderError) {
        try self.init(resources: ReaderResources.locate(), version: version, model: model)
    }

    /// Loads the Reader's manifest from the Info.plist of `model` in `resources`, with its
    /// entitlements when the file is there, expanding `buildSettings` in both.
    ///
    /// - Throws: ``ReaderError/manifest(_:)`` when the Info.plist or the entitlements cannot be
    ///   read or have errors, ``ReaderError/noDocumentActivity(file:)`` when it declares no
    ///   document activity, ``ReaderError/unsupportedVersion(_:)`` for a version outside
    ///   ``ReadingState/writableVersions``.
    package convenience init(
        resources: ReaderResources, buildSettings: [String: String] = ReaderApp.buildSettings,
        version: Int = ReadingState.currentVersion, model: AppModel = .delegate
    ) throws(ReaderError) {
        let infoPlist = resources.infoPlist(for: model)
        let entitlements =
            FileManager.default.fileExists(atPath: resources.entitlements.path) ? resources.entitlements : nil
        let manifest: AppManifest
        do {
            manifest = try AppManifest(
                infoPlistAt: infoPlist, entitlementsAt: entitlements, buildSettings: buildSettings)
        } catch {
            throw .manifest(error)
        }
        try self.init(
            manifest: manifest, sampleDocuments: resources.sampleDocuments, manifestFile: infoPlist.path,
            version: version)
    }

    /// A Reader with a manifest read elsewhere.
    ///
    /// - Throws: ``ReaderError/noDocumentActivity(file:)`` when the manifest declares no
    ///   plain-text document type with a ubiquitous activity type,
    ///   ``ReaderError/unsupportedVersion(_:)`` for a version outside ``ReadingState/writableVersions``.
    package init(
        manifest: AppManifest, sampleDocuments: URL?, manifestFile: String = "Info.plist",
        version: Int = ReadingState.currentVersion
    ) throws(ReaderError) {
        guard
            manifest.documentTypes.contains(where: {
                $0.contentTypes.contains(Self.contentType) && $0.ubiquitousActivityType != nil
            })
        else { throw .noDocumentActivity(file: manifestFile) }
        guard ReadingState.writableVersions.contains(version) else { throw .unsupportedVersion(version) }
        self.manifest = manifest
        self.sampleDocuments = sampleDocuments
        self.version = version
        windows = [ReaderWindow(number: 1, reader: self)]
    }

    // MARK: TerminalApp

    /// With scenes, the system creates each scene's delegate from this class (named in
    /// `Info-Scenes.plist`).
    package var sceneDelegateClasses: [any SceneDelegate.Type] { [ReaderSceneDelegate.self] }

    /// The window shown.
    var frontWindow: ReaderWindow { windows[min(frontIndex, windows.count - 1)] }
    /// The document the window shown has open, if any.
    var session: ReadingSession? { frontWindow.session }
    /// The window shown's reading view.
    var readingView: ReadingView { frontWindow.readingView }

    package var title: String {
        if let preview = shownPreview { return preview.title }
        guard let session else { return "Documents" }
        return session.title
    }

    package var keyHints: [KeyHint] {
        if transfer != nil, session == nil || shownPreview != nil {
            let reading =
                shownPreview != nil ? [KeyHint("Space/b", "page what arrived"), KeyHint("↑ ↓", "scroll")] : []
            return [KeyHint("Esc", "stop receiving the document")] + reading
        }
        let nextWindow = windows.count > 1 ? [KeyHint("w", "next window (\(windows.count) open)")] : []
        if session == nil {
            let newWindow = canOpenWindows ? [KeyHint("n", "open in a new window")] : []
            return [KeyHint("↑ ↓", "choose"), KeyHint("Enter", "open")] + newWindow + nextWindow + [
                KeyHint("r", "refresh the list")
            ]
        }
        return [
            KeyHint("Space/b", "page"),
            KeyHint("↑ ↓", "scroll"),
            KeyHint("Esc", "close the document"),
        ] + nextWindow + [
            KeyHint("PgDn/PgUp", "next, previous page"),
            KeyHint("Home  End", "start, end of the document"),
            KeyHint("Backspace", "close the document"),
        ]
    }

    /// Copies the sample documents into the cloud folder unless they are there already, and
    /// reads the list. A device without a cloud folder (`--no-cloud`) gets no copies: the samples
    /// are cloud documents, so such a device truly lacks them, and one continued from another
    /// device arrives over continuation streams.
    package func launch(application: Application, environment: AppEnvironment) {
        self.application = application
        self.environment = environment
        library = DocumentLibrary(cloudFolder: environment.cloudFolder, localFolder: environment.localFolder)
        if let sampleDocuments, let folder = environment.cloudFolder {
            do {
                let copied = try SampleDocuments.install(from: sampleDocuments, into: folder)
                if !copied.isEmpty {
                    environment.log("Reader: copied \(copied.count) sample document(s) into \(folder.path)")
                }
            } catch {
                environment.log("Reader: could not copy the sample documents into \(folder.path): \(error)")
                message = ReaderMessage(
                    .warning, "The sample documents could not be copied into \(folder.lastPathComponent).")
            }
        }
        reloadDocuments()
    }

    /// A new continuation was chosen: an error shown for the last one ("Could not continue …")
    /// goes, so it never stands under the new continuation's progress box.
    package func continuationChosen() {
        guard message?.kind == .error else { return }
        message = nil
        environment?.setNeedsDisplay()
    }

    /// The open documents are wrapped again for the new width now, not while drawing.
    package func viewportChanged(to size: Size) {
        areaSize = size
        for window in windows { window.session?.resize(width: viewport.width) }
        transferPreview?.resize(width: viewport.width)
    }

    /// Coming to the front: a Reader with scenes and none connected (the user opened it) asks for
    /// its first scene; the window shown's activity becomes current (it is on a responder on
    /// screen), or the list is read again.
    package func setFrontmost(_ frontmost: Bool) {
        guard frontmost else { return }
        if let application, application.usesScenes, application.connectedScenes.isEmpty {
            application.requestScene()
        }
        if let activity = readingView.userActivity {
            activity.becomeCurrent()
        } else {
            reloadDocuments()
        }
    }

    /// The user quit the Reader from the app switcher (the system already ended its scenes,
    /// documents and activities): one empty window, the list, nothing being continued or
    /// received, as a new process starts.
    package func terminate() {
        cancelTransfer()
        for window in windows {
            window.readingView.userActivity = nil
            window.session?.countingTask?.cancel()
            window.session?.endSecurityScopedAccess()
            window.session?.document.close()
            window.session = nil
            window.unbind()
        }
        windows = [ReaderWindow(number: 1, reader: self)]
        frontIndex = 0
        windowAwaitingScene = nil
        isContinuing = false
        continuingActivityType = nil
        message = nil
        selection = 0
        reloadDocuments()
    }

    // MARK: Documents

    /// Reads the list again, keeping the chosen document chosen when it is still there.
    package func reloadDocuments() {
        let chosen = documents.indices.contains(selection) ? documents[selection].url : nil
        documents = library?.documents() ?? []
        selection =
            chosen.flatMap { url in documents.firstIndex { $0.url == url } }
            ?? min(selection, max(documents.count - 1, 0))
    }

    /// Opens the document at `url` at `position` (clamped to the document) in `target` (by
    /// default the window shown), closing the one open there before, if another, and shows that
    /// window. A document open in another window is shown there instead (a document opens once).
    /// On failure nothing changes.
    ///
    /// - Throws: ``ReadingRestoreError/unreadable(name:reason:)``.
    func openDocument(
        at url: URL, position: ReadingPosition = .start, in target: ReaderWindow? = nil
    ) throws(ReadingRestoreError) {
        let text = try DocumentLibrary.open(url)
        if let window = windows.first(where: { $0.session?.url == url }), let session = window.session {
            session.reload(text, at: position)
            startCounting(session)
            show(window)
            positionChanged(in: window)
            return
        }
        guard let application else {
            throw .unreadable(name: url.lastPathComponent, reason: "the Reader is not running")
        }
        let document: Document
        do {
            document = try application.openDocument(at: url, contentType: Self.contentType)
        } catch {
            throw .unreadable(name: url.lastPathComponent, reason: error.message)
        }
        let window = target ?? frontWindow
        closeDocument(in: window)
        let session = ReadingSession(document: document, text: text, position: position, width: viewport.width)
        window.session = session
        startCounting(session)
        if document.userActivity == nil, !document.isUbiquitous {
            // Only iCloud documents get an activity from the system: the Reader makes one for a
            // document of this device's own folder, and sends its bytes over streams when asked.
            document.userActivity = makeLocalDocumentActivity(for: session)
        }
        if let activity = document.userActivity {
            activity.title = session.title
            // The continuing device may not have the document: it can ask for it over streams.
            activity.supportsContinuationStreams = true
            // Picks the window (scene) that shows this document on the continuing device.
            activity.targetContentIdentifier = window.contentIdentifier
            activity.delegate = self
        }
        // On a phone or tablet (UIKit) a document's activity becomes current only on a responder
        // on screen: the reading view shares it.
        window.readingView.userActivity = document.userActivity
        show(window)
        positionChanged(in: window)
    }

    /// The Reader's own activity for a document of the device's local folder (not in iCloud, so
    /// the system makes none): its reading type (the manifest's `NSUserActivityTypes`), nil
    /// when the manifest declares none.
    private func makeLocalDocumentActivity(for session: ReadingSession) -> UserActivity? {
        guard let application, let type = localActivityType else { return nil }
        do {
            let activity = try UserActivity(activityType: type, application: application)
            activity.title = session.title
            return activity
        } catch {
            environment?.log("Reader: could not create the activity of “\(session.url.lastPathComponent)”: \(error)")
            return nil
        }
    }

    /// Closes the document open in `window` (by default the window shown) and shows the list
    /// there; the document's activity is invalidated (neither the document nor the reading view
    /// holds it any more), and a document that came security-scoped with a continued activity is
    /// given up (`stopAccessingSecurityScopedResource`).
    func closeDocument(in window: ReaderWindow? = nil) {
        let window = window ?? frontWindow
        guard let session = window.session else { return }
        session.countingTask?.cancel()
        session.endSecurityScopedAccess()
        window.readingView.userActivity = nil
        session.document.close()
        window.session = nil
        reloadDocuments()
        if let index = documents.firstIndex(where: { $0.url == session.url }) { selection = index }
    }

    /// Reads the rest of `session`'s document and counts its pages off the run loop, a few
    /// megabytes at a time (stopping when the document closes), then hands the result back to the
    /// session on the run loop. A document that turns out not to be UTF-8 text further on keeps
    /// the pages before that point, and the Reader says so.
    func startCounting(_ session: ReadingSession) {
        session.countingTask?.cancel()
        session.countingTask = nil
        guard !session.text.isComplete, let environment else { return }
        let start = session.text
        let url = session.url
        let perform = environment.perform
        let reader = Confined(weak: self)
        let sessionReference = Confined(weak: session)
        session.countingTask = Task.detached(priority: .utility) {
            var text = start
            if !text.isFinal {
                guard let whole = try? DocumentLibrary.readWhole(url), !Task.isCancelled else { return }
                text = DocumentText(bytes: whole, isFinal: true)
            }
            while !text.isComplete {
                if Task.isCancelled { return }
                text.findPages(budget: 4 << 20)
            }
            let counted = text
            perform { reader.value.object?.countingEnded(counted, for: sessionReference.value.object) }
        }
    }

    /// On the run loop: a session's pages were counted.
    private func countingEnded(_ counted: DocumentText, for session: ReadingSession?) {
        guard let session, windows.contains(where: { $0.session === session }) else { return }
        session.adoptCounted(counted)
        if let offset = session.text.invalidTextOffset {
            message = ReaderMessage(
                .warning,
                "“\(session.url.lastPathComponent)” is not UTF-8 text after byte \(offset): "
                    + "the Reader shows the \(session.text.knownPageCount) page(s) before it.")
        }
        environment?.setNeedsDisplay()
    }

    /// The position changed in `window` (by default the window shown): the activity needs
    /// saving, and its web page follows the page.
    func positionChanged(in window: ReaderWindow? = nil) {
        guard let session = (window ?? frontWindow).session, let activity = session.document.userActivity else {
            return
        }
        activity.needsSave = true
        let url = Self.webpageURL(for: session.state)
        if activity.webpageURL != url {
            do {
                try activity.setWebpageURL(url)
            } catch {
                environment?.log("Reader: could not set the web page \(url.absoluteString): \(error)")
            }
        }
    }

    // MARK: Continuation

    /// Adds the handoff version, after every responder wrote its keys (Apple's pattern).
    package func application(_ application: Application, didUpdate userActivity: UserActivity) {
        addHandoffVersion(to: userActivity)
    }

    /// Adds the handoff version to the activity of an open document (`didUpdate`, either model).
    func addHandoffVersion(to userActivity: UserActivity) {
        guard windows.contains(where: { $0.session?.document.userActivity === userActivity }) else { return }
        userActivity.addUserInfoEntries(from: [ReadingState.Key.handoffVersion: .integer(Int64(version))])
    }

    /// The Reader shows that it is loading (it tells the user itself: true).
    package func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool
    {
        prepareForContinuation(of: activityType)
        return true
    }

    /// Shows that an activity of `activityType` is on its way (either model).
    func prepareForContinuation(of activityType: String) {
        isContinuing = true
        continuingActivityType = activityType
        message = nil
        environment?.setNeedsDisplay()
    }

    /// Checks the activity first: one this Reader cannot show (a newer handoff version, a missing
    /// or bad key, a document it can neither find nor ask the origin for) is refused: the Reader
    /// says why, keeps what it showed and returns false, so the system does not count the activity
    /// as continued and the origin is not told it was (no `userActivityWasContinued` there), as
    /// Apple's API defines `false` ("the app did not handle the activity"). Otherwise it hands the
    /// reading view of the window for the activity (the one showing its document, else the one
    /// shown) to the restoration handler, which opens the document at the activity's place
    /// (``restore(from:in:)``). A page of the Reader's web site opens its document at its page
    /// (``continueWebActivity(_:in:)``).
    package func application(
        _ application: Application, continue userActivity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool {
        isContinuing = false
        continuingActivityType = nil
        let window =
            windows.first {
                $0.contentIdentifier != nil && $0.contentIdentifier == userActivity.targetContentIdentifier
            }
            ?? frontWindow
        if userActivity.activityType == UserActivity.browsingWebType {
            return continueWebActivity(userActivity, in: window)
        }
        do throws(ReadingRestoreError) {
            try checkContinuable(userActivity)
        } catch {
            refuseContinuation(of: userActivity.activityType, because: error)
            return false
        }
        show(window)
        restorationHandler([window.readingView])
        return true
    }

    /// Says in the app that the continuation failed (quietly when the user cancelled it); what
    /// was on screen stays.
    package func application(
        _ application: Application, didFailToContinueUserActivityWithType activityType: String,
        error: HandoffError
    ) {
        continuationFailed(activityType, message: .continuationFailed(error), log: "\(error)")
    }

    /// Whether this Reader can show `activity`: the state it carries must be readable (a version it
    /// knows, the keys it needs), and its document must be on this device or obtainable from the
    /// origin over the activity's continuation streams.
    ///
    /// - Throws: the ``ReadingRestoreError`` that makes it impossible.
    func checkContinuable(_ activity: UserActivity) throws(ReadingRestoreError) {
        let state = try ReadingState(userInfo: activity.userInfo, readable: readableVersions)
        guard !activity.supportsContinuationStreams else { return }
        guard let library else { throw .documentNotFound(name: state.documentName) }
        _ = try library.locate(state, inCloud: isInCloud(activity))
    }

    /// Whether `activity` is about an iCloud document: any of the Reader's activities but the
    /// one it makes itself for a local document (``localActivityType``).
    func isInCloud(_ activity: UserActivity) -> Bool {
        activity.activityType != localActivityType
    }

    /// The Reader's side of a continuation it refuses: the same as a failure the system reports
    /// (``application(_:didFailToContinueUserActivityWithType:error:)``), with the Reader's reason.
    func refuseContinuation(of activityType: String, because error: ReadingRestoreError) {
        continuationFailed(activityType, message: ReaderMessage(.error, error.description), log: "refused: \(error)")
    }

    /// Shows that a continuation failed (`message` nil: quietly); what was on screen stays.
    func continuationFailed(_ activityType: String, message: ReaderMessage?, log: String) {
        isContinuing = false
        continuingActivityType = nil
        self.message = message
        environment?.log("Reader: continuation of \(activityType) failed: \(log)")
        environment?.setNeedsDisplay()
    }

    /// Opens the document a continued activity names, at its place, in `window`. A document
    /// this device cannot find is asked for over the activity's continuation streams when it
    /// supports them (``receiveDocument(for:from:into:)``). A bad or missing key, a newer handoff
    /// version, or a document this device cannot get or read, leaves everything as it was and
    /// says why.
    func restore(from activity: UserActivity, in window: ReaderWindow) {
        defer { environment?.setNeedsDisplay() }
        do throws(ReadingRestoreError) {
            let state = try ReadingState(userInfo: activity.userInfo, readable: readableVersions)
            guard let library else { throw .documentNotFound(name: state.documentName) }
            let url: URL
            do throws(ReadingRestoreError) {
                url = try library.locate(state, inCloud: isInCloud(activity))
            } catch .documentNotFound where activity.supportsContinuationStreams {
                receiveDocument(for: state, from: activity, into: window)
                return
            }
            // A URL the activity brought is security-scoped: readable only once access started
            // (Handoff Programming Guide, "Continuing an Activity"), until the document closes.
            let scoped = url == state.documentURL && url.startAccessingSecurityScopedResource()
            do throws(ReadingRestoreError) {
                try open(url, at: state.position, in: window)
            } catch {
                if scoped { url.stopAccessingSecurityScopedResource() }
                throw error
            }
            if scoped, let session = windows.lazy.compactMap(\.session).first(where: { $0.url == url }) {
                session.adoptSecurityScopedAccess(to: url)
            } else if scoped {
                url.stopAccessingSecurityScopedResource()
            }
        } catch {
            message = ReaderMessage(.error, error.description)
            environment?.log("Reader: could not restore \(activity.activityType): \(error)")
        }
    }
}

extension ReaderApp {
    /// Opens `url` at `position` in `window` (by default the window shown) after a
    /// continuation, warning when the page is not there.
    func open(_ url: URL, at position: ReadingPosition, in window: ReaderWindow? = nil) throws(ReadingRestoreError) {
        try openDocument(at: url, position: position, in: window)
        message = nil
        if let session, session.position.page != position.page {
            message = ReaderMessage(
                .warning,
                "“\(session.title)” has \(session.text.knownPageCount) pages now; "
                    + "page \(position.page) was asked for.")
        }
    }
}

/// A line the Reader shows the user.
package typealias ReaderMessage = AppMessage
