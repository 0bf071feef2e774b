import Foundation
import HandoffCore
import TerminalCells

/// A document open in the reading view: the document object, its text and the position.
///
/// The text is found as far as it is shown (``DocumentText``): opening reads the document's
/// start, turning pages finds the next page, and the Reader reads the rest and counts the pages
/// off the run loop (``countingTask``, taken back with ``adoptCounted(_:)``). A page beyond what
/// was read (a handed-off place far in, or End) makes the session read on in the file up to it.
final class ReadingSession {
    let document: Document
    private(set) var text: DocumentText
    /// Always within the document (see ``clamp(_:)``).
    private(set) var position: ReadingPosition {
        didSet { if position.page != oldValue.page { relayout() } }
    }
    /// The current page wrapped at the reading view's width (kept up to date when the page, the
    /// text or the width changes, so that drawing only reads it).
    private(set) var pageLayout: PageLayout
    /// The work reading the rest of the document and counting its pages, while it runs.
    var countingTask: Task<Void, Never>?
    /// The document's URL when it came security-scoped with a continued activity and access to it
    /// was started: it is stopped when the session ends.
    private(set) var securityScopedURL: URL?

    /// A session showing `text` at `position`, in a reading view `width` cells wide.
    init(document: Document, text: DocumentText, position: ReadingPosition, width: Int) {
        self.document = document
        self.text = text
        pageLayout = PageLayout(lines: [], width: width)
        self.position = .start
        self.position = clamp(position)
        relayout()
    }

    deinit { countingTask?.cancel() }

    /// Keeps the access to `url` started for this session (one started access is kept; a
    /// second one to the same URL is ended at once).
    func adoptSecurityScopedAccess(to url: URL) {
        guard securityScopedURL == nil else {
            url.stopAccessingSecurityScopedResource()
            return
        }
        securityScopedURL = url
    }

    /// Stops the security-scoped access this session kept, if any.
    func endSecurityScopedAccess() {
        securityScopedURL?.stopAccessingSecurityScopedResource()
        securityScopedURL = nil
    }

    var url: URL { document.fileURL }
    var title: String { text.title ?? url.lastPathComponent }

    /// What the activity carries for this session.
    var state: ReadingState {
        ReadingState(documentName: url.lastPathComponent, documentURL: url, position: position)
    }

    /// "page 3 of 12", or "page 3 of about 1200" while the pages are being counted.
    var pageLabel: String {
        if let count = text.pageCount { return "page \(position.page) of \(count)" }
        return "page \(position.page) of about \(text.estimatedPageCount)"
    }

    /// Whether a page follows the current one (it may not be found yet).
    var hasNextPage: Bool { position.page < text.knownPageCount || !text.isComplete }

    /// Takes the document's text again (it may have changed) and moves to `position`.
    func reload(_ text: DocumentText, at position: ReadingPosition) {
        countingTask?.cancel()
        countingTask = nil
        self.text = text
        self.position = clamp(position)
        relayout()
    }

    /// The rest of the document was read and its pages counted off the run loop: the page shown
    /// and the place stay (the pages found before are the same pages).
    func adoptCounted(_ counted: DocumentText) {
        countingTask = nil
        let known = text.knownPageCount
        text.adopt(counted)
        if text.knownPageCount < known || position.page > text.knownPageCount {
            position = clamp(position)
            relayout()
        }
    }

    /// The reading view is now `width` cells wide: the page is wrapped again, and the place (a
    /// line and a character of the page) stays at the top.
    func resize(width: Int) {
        guard width != pageLayout.width else { return }
        pageLayout = PageLayout(lines: text.lines(ofPage: position.page), width: width)
    }

    private func relayout() {
        pageLayout = PageLayout(lines: text.lines(ofPage: position.page), width: pageLayout.width)
    }

    /// Finds page `page` and returns whether the document has it. A page beyond what was read
    /// reads on in the file, in pieces that double (so a place far in costs the text up to it,
    /// and the end costs the file once).
    @discardableResult
    func findPage(_ page: Int) -> Bool {
        text.findPages(through: page)
        while text.knownPageCount < page, !text.isComplete, !text.isFinal {
            let offset = text.bytes.count
            guard let (more, atEnd) = try? DocumentLibrary.read(url, from: offset, count: max(offset, 1 << 20)) else {
                break
            }
            text.append(more, isFinal: atEnd)
            text.findPages(through: page)
        }
        return text.knownPageCount >= page
    }

    /// The current page wrapped at `width` (the kept layout when it is that wide; changes nothing).
    func layout(width: Int) -> PageLayout {
        width == pageLayout.width ? pageLayout : PageLayout(lines: text.lines(ofPage: position.page), width: width)
    }

    /// The row of the current page's layout shown at the top of a view of `size`: the row
    /// holding the position, or higher when the page ends before the view is full.
    func topRow(in size: Size) -> Int {
        let layout = layout(width: size.width)
        return min(
            layout.rowIndex(line: position.line, character: position.character), layout.lastTopRow(height: size.height))
    }

    /// Moves as the user asked in a view of `size`. Returns false when the position stays (at
    /// an end), so that nothing needs saving.
    func move(_ movement: Movement, in size: Size) -> Bool {
        let target: ReadingPosition
        switch movement {
        case .lineDown, .lineUp:
            guard
                let row = layout(width: size.width).rowScrolled(
                    from: topRow(in: size), down: movement == .lineDown,
                    height: size.height)
            else { return false }
            target = ReadingPosition(page: position.page, line: row.line, character: row.character)
        case .nextPage:
            guard findPage(position.page + 1) else { return false }
            target = ReadingPosition(page: position.page + 1)
        case .previousPage:
            target = ReadingPosition(page: max(position.page - 1, 1))
        case .start:
            target = .start
        case .end:
            findPage(.max)
            let lastPage = text.knownPageCount
            let last = PageLayout(lines: text.lines(ofPage: lastPage), width: size.width)
            let row = last.lastTopRow(height: size.height)
            target =
                last.rows.indices.contains(row)
                ? ReadingPosition(page: lastPage, line: last.rows[row].line, character: last.rows[row].character)
                : ReadingPosition(page: lastPage)
        }
        guard target != position else { return false }
        position = target
        return true
    }

    /// `position` moved inside the document: the page to the last page, the line to the page's
    /// last line, the character to the line's length.
    func clamp(_ position: ReadingPosition) -> ReadingPosition {
        findPage(max(position.page, 1))
        let page = min(max(position.page, 1), max(text.knownPageCount, 1))
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
