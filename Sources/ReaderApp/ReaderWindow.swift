import Foundation
import HandoffCore

/// One of the Reader's windows: the document list, or one open document.
///
/// With scenes (`--app-model scenes`) each window is the interface of one ``Scene``: the system
/// connects the scene, the Reader's ``ReaderSceneDelegate`` binds it to a window, and the window
/// keeps the scene's title and activation conditions up to date: it can take any continued
/// activity, and prefers the ones whose `targetContentIdentifier` is its document's
/// (``ReaderApp/targetContentIdentifier(forDocumentNamed:)``), so a continuation goes into the
/// window that shows that document. With the app delegate, windows are the app's own (AppKit's),
/// and the Reader picks the window the same way itself.
final class ReaderWindow {
    /// Numbered from 1 in the order the windows were opened.
    let number: Int
    /// The reading view, the responder that shares the open document's activity.
    let readingView = ReadingView()
    /// The scene this window is the interface of (scenes only; nil once it disconnected).
    private(set) weak var scene: Scene?
    /// The document shown, if any.
    var session: ReadingSession? {
        didSet { updateScene() }
    }

    init(number: Int, reader: ReaderApp) {
        self.number = number
        readingView.reader = reader
        readingView.window = self
    }

    /// The identifier of what the window shows: its document's, or nil for the list.
    var contentIdentifier: String? {
        session.map { ReaderApp.targetContentIdentifier(forDocumentNamed: $0.url.lastPathComponent) }
    }

    /// Makes this window the interface of `scene`.
    func bind(to scene: Scene) {
        self.scene = scene
        updateScene()
    }

    /// The scene disconnected.
    func unbind() { scene = nil }

    /// The scene's title and activation conditions follow what the window shows (Apple's
    /// `UISceneActivationConditions`: any activity may come here; its document's is preferred).
    private func updateScene() {
        guard let scene else { return }
        scene.title = session?.title ?? "Documents"
        scene.activationConditions = ActivationConditions(
            canActivateFor: .any,
            prefersToActivateFor: contentIdentifier.map { .equals($0) })
    }
}
