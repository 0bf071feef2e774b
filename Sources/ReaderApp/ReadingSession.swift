import Foundation
import HandoffCore
import TerminalCells

/// A document open in the reading view: the document object, its pages and the position.
final class ReadingSession {
    let document: Document
    private(set) var text: PagedText
    /// Always within the document (see ``clamp(_:)``).
    private(set) var position: ReadingPosition {
        didSet { if position.page != oldValue.page { relayout() } }
    }
    /// The current page wrapped at the reading view's width (kept up to date when the page, the
    /// text or the width changes, so that drawing only reads it).
    private(set) var pageLayout: PageLayout

    /// A session showing `text` at `position`, in a reading view `width` cells wide.
    init(document: Document, text: PagedText, position: ReadingPosition, width: Int) {
        self.document = document
        self.text = text
        pageLayout = PageLayout(lines: [], width: width)
        self.position = .start
        self.position = clamp(position)
        relayout()
    }

    var url: URL { document.fileURL }
    var title: String { text.title ?? url.lastPathComponent }

    /// What the activity carries for this session.
    var state: ReadingState {
        ReadingState(documentName: url.lastPathComponent, documentURL: url, position: position)
    }

    /// Takes the document's text again (it may have changed) and moves to `position`.
    func reload(_ text: PagedText, at position: ReadingPosition) {
        self.text = text
        self.position = clamp(position)
        relayout()
    }

    /// The reading view is now `width` cells wide.
    func resize(width: Int) {
        guard width != pageLayout.width else { return }
        pageLayout = PageLayout(lines: text.lines(ofPage: position.page), width: width)
    }

    private func relayout() {
        pageLayout = PageLayout(lines: text.lines(ofPage: position.page), width: pageLayout.width)
    }

    /// The current page wrapped at `width` (the kept layout when it is that wide; changes nothing).
    func layout(width: Int) -> PageLayout {
        width == pageLayout.width ? pageLayout : PageLayout(lines: text.lines(ofPage: position.page), width: width)
    }

    /// The row of the current page's layout shown at the top of a view of `size`: the row
    /// holding the position, or higher when the page ends before the view is full.
    func topRow(in size: Size) -> Int {
        let layout = layout(width: size.width)
        return min(layout.rowIndex(line: position.line, character: position.character), layout.lastTopRow(height: size.height))
    }

    /// Moves as the user asked in a view of `size`. Returns false when the position stays (at
    /// an end), so that nothing needs saving.
    func move(_ movement: Movement, in size: Size) -> Bool {
        let target: ReadingPosition
        switch movement {
        case .lineDown, .lineUp:
            let layout = layout(width: size.width)
            let top = topRow(in: size)
            let row = movement == .lineDown ? top + 1 : top - 1
            guard layout.rows.indices.contains(row), movement == .lineUp || top < layout.lastTopRow(height: size.height) else {
                return false
            }
            target = ReadingPosition(page: position.page, line: layout.rows[row].line, character: layout.rows[row].character)
        case .nextPage:
            target = ReadingPosition(page: min(position.page + 1, text.pageCount))
            if target.page == position.page { return false }
        case .previousPage:
            target = ReadingPosition(page: max(position.page - 1, 1))
        case .start:
            target = .start
        case .end:
            let last = PageLayout(lines: text.lines(ofPage: text.pageCount), width: size.width)
            let row = last.lastTopRow(height: size.height)
            target = last.rows.indices.contains(row)
                ? ReadingPosition(page: text.pageCount, line: last.rows[row].line, character: last.rows[row].character)
                : ReadingPosition(page: text.pageCount)
        }
        guard target != position else { return false }
        position = target
        return true
    }

    /// `position` moved inside the document: the page to the last page, the line to the page's
    /// last line, the character to the line's length.
    func clamp(_ position: ReadingPosition) -> ReadingPosition {
        let page = min(max(position.page, 1), text.pageCount)
        let lines = text.lines(ofPage: page)
        let line = min(max(position.line, 0), max(lines.count - 1, 0))
        let length = lines.indices.contains(line) ? lines[line].count : 0
        return ReadingPosition(page: page, line: line, character: min(max(position.character, 0), max(length - 1, 0)))
    }

    /// What a key asks of the reading view.
    enum Movement: Hashable {
        case lineDown, lineUp, nextPage, previousPage, start, end
    }
}

/// A window's reading view, its responder: it shares the window's open document's activity (the
/// document writes the URL, this writes the name and the position) and restores continued
/// activities into its window.
final class ReadingView: Responder {
    weak var reader: ReaderApp?
    weak var window: ReaderWindow?

    override func updateUserActivityState(_ activity: UserActivity) {
        guard let reader, let state = window?.session?.state else { return }
        activity.addUserInfoEntries(from: state.userInfo(version: reader.version))
    }

    override func restoreUserActivityState(_ activity: UserActivity) {
        guard let window else { return }
        reader?.restore(from: activity, in: window)
    }
}
