import DeviceAppKit
import TerminalCells

extension ReaderApp {
    /// The list: ↑ ↓ Home End choose, Enter opens, n opens in a new window, r reads the folders
    /// again. The reading view: ↑ ↓ scroll a row, Space PgDn and b PgUp turn pages, Home End go to
    /// the start and the end of the document, Esc and Backspace close it. Both: w shows the next
    /// window (when there are several). While a document is being received, Esc stops that
    /// first, and the moving keys read the pages that arrived (the document then opens where the
    /// reader got to). Other keys are the device's.
    package func handle(_ key: Key) -> Bool {
        if let transfer, key == .escape {
            cancelTransfer()
            message = ReaderMessage(.warning, "Stopped receiving “\(transfer.documentName)”. Nothing changed here.")
            return true
        }
        if key == .character("w"), windows.count > 1 {
            showNextWindow()
            return true
        }
        if shownPreview != nil {
            // The document being received covers the window until it is stored and opened; the
            // pages that arrived can be read meanwhile.
            guard let movement = ReadingSession.Movement(key) else {
                switch key {
                case .enter, .backspace, .character("n"), .character("r"): return true
                default: return false
                }
            }
            if transferPreview?.move(movement, height: viewport.height, width: viewport.width) == true {
                environment?.setNeedsDisplay()
            }
            return true
        }
        if let session {
            guard let movement = ReadingSession.Movement(key) else {
                guard key == .escape || key == .backspace else { return false }
                message = nil
                closeDocument()
                return true
            }
            message = nil
            if session.move(movement, in: viewport) { positionChanged() }
            return true
        }
        switch key {
        case .down, .up, .home, .end:
            guard !documents.isEmpty else { return true }
            switch key {
            case .down: choose(selection + 1)
            case .up: choose(selection - 1)
            case .home: choose(0)
            default: choose(documents.count - 1)
            }
        case .enter:
            guard documents.indices.contains(selection) else { return true }
            do {
                try openDocument(at: documents[selection].url)
                message = nil
            } catch {
                message = ReaderMessage(.error, error.description)
            }
        case .character("n"):
            guard documents.indices.contains(selection) else { return true }
            message = nil
            do {
                try openInNewWindow(documents[selection].url)
            } catch {
                message = ReaderMessage(.error, error.description)
            }
        case .character("r"):
            message = nil
            reloadDocuments()
        default:
            return false
        }
        return true
    }

    private func choose(_ index: Int) {
        message = nil
        selection = min(max(index, 0), documents.count - 1)
    }
}

extension ReadingSession.Movement {
    /// What a key asks of a reading view (the document's or a preview's), if it moves it.
    init?(_ key: Key) {
        switch key {
        case .down: self = .lineDown
        case .up: self = .lineUp
        case .pageDown, .character(" "): self = .nextPage
        case .pageUp, .character("b"): self = .previousPage
        case .home: self = .start
        case .end: self = .end
        default: return nil
        }
    }
}
