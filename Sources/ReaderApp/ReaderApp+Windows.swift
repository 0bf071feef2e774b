import DeviceAppKit
import Foundation
import HandoffCore

// The Reader's windows: one shown at a time, `n` opens the chosen document in a new one (a new
// scene, with scenes), `w` shows the next. Continuations go to the window showing their document.

extension ReaderApp {
    /// The `targetContentIdentifier` of a document's activity, and what a window showing it
    /// prefers: the document's file name, which both devices share (the cloud folder holds one
    /// document of each name; a document received over streams keeps its name).
    package static func targetContentIdentifier(forDocumentNamed name: String) -> String { name }

    /// Whether the Reader can have several windows here: a laptop (AppKit windows, or scenes) or
    /// a tablet with scenes that support several; a phone shows one app window (iPhone has one
    /// scene per app).
    var canOpenWindows: Bool {
        guard let application, let kind = application.device?.info.kind, kind != .phone else { return false }
        if let sceneManifest = application.manifest.sceneManifest { return sceneManifest.supportsMultipleScenes }
        return kind == .laptop
    }

    /// Shows `window`: with scenes its scene becomes the key scene; its document's activity
    /// becomes current (it is on a responder on screen), or, for the list, the others stop being.
    func show(_ window: ReaderWindow) {
        guard let index = windows.firstIndex(where: { $0 === window }) else { return }
        frontIndex = index
        // The window shown is the one on screen (UIKit), the main window (AppKit).
        for other in windows { other.readingView.isOnScreen = other === window }
        if let scene = window.scene { application?.activate(scene) }
        if let activity = window.readingView.userActivity {
            activity.becomeCurrent()
        } else {
            for other in windows where other !== window { other.readingView.userActivity?.resignCurrent() }
        }
        environment?.setNeedsDisplay()
    }

    /// Shows the next window (`w`).
    func showNextWindow() {
        guard windows.count > 1 else { return }
        message = nil
        show(windows[(frontIndex + 1) % windows.count])
        if session == nil { reloadDocuments() }
    }

    /// Opens the document at `url` in a new window (`n`); with scenes, the window is a new
    /// scene the Reader asks the system for. A document open in a window already is shown there.
    func openInNewWindow(_ url: URL) throws(ReadingRestoreError) {
        if let window = windows.first(where: { $0.session?.url == url }) {
            show(window)
            message = ReaderMessage(
                .info, "“\(window.session?.title ?? url.lastPathComponent)” is open in window \(window.number).")
            return
        }
        guard canOpenWindows else {
            let kind = application?.device?.info.kind == .phone ? "a phone" : "this device"
            message = ReaderMessage(.warning, "The Reader has one window on \(kind): Enter opens the document here.")
            return
        }
        let window = ReaderWindow(number: (windows.map(\.number).max() ?? 0) + 1, reader: self)
        windows.append(window)
        if let application, application.usesScenes {
            windowAwaitingScene = window
            let scene = application.requestScene()
            windowAwaitingScene = nil
            guard scene != nil else {
                windows.removeAll { $0 === window }
                message = ReaderMessage(.error, "The system gave the Reader no new scene.")
                return
            }
        }
        do throws(ReadingRestoreError) {
            try openDocument(at: url, in: window)
        } catch {
            windows.removeAll { $0 === window }
            throw error
        }
    }

    /// The window a scene is the interface of.
    func window(for scene: Scene) -> ReaderWindow? {
        windows.first { $0.scene === scene }
    }
}
