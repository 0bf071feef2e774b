import DeviceAppKit
import HandoffCore
import TerminalCells

extension ReaderApp {
    /// The widest text column, in cells: on a wide screen lines stay readable.
    static let maximumTextWidth = 100
    /// The most rows a message may take at the bottom of the area.
    static let maximumMessageRows = 3

    /// Where the parts of the Reader go in `area`: the title bar and its rule at the top, the
    /// text column in the middle (the list, or the page's text), the status line at the bottom
    /// (taller while a message needs more rows).
    struct Frame {
        var header: Rect
        var column: Rect
        /// Where the list or the page's text is drawn (in the column).
        var content: Rect
        var footer: Rect
        /// What the status line shows instead of its hint (empty: the hint).
        var notice: [(text: String, style: Style)]
    }

    /// The parts of the Reader in `area`, for what it shows now.
    func frame(in area: Rect) -> Frame {
        let columnWidth = area.width >= 12 ? min(area.width - 4, Self.maximumTextWidth) : area.width
        let column = Rect(
            x: area.x + (area.width - columnWidth) / 2, y: area.y, width: columnWidth, height: area.height)
        let (header, body) = area.splitTop(area.height >= 6 ? 2 : 1)
        let notice = noticeLines(width: columnWidth, available: body.height - 1)
        let (content, footer) = body.splitBottom(body.height > 1 ? max(1, notice.count) : 0)
        return Frame(
            header: header, column: column,
            content: Rect(x: column.x, y: content.y, width: column.width, height: content.height),
            footer: footer, notice: notice)
    }

    /// Draws the list or the reading view into `area` (and nowhere else): a title bar, a rule,
    /// the content, and a status line at the bottom (a message, when there is one). It only draws.
    package func render(into grid: inout Grid, area: Rect) {
        guard !area.isEmpty else { return }
        grid.fill(area)
        let frame = frame(in: area)
        let column = frame.column
        // The document's title is the app's title, which the device shows above the app; the bar
        // says which window this is when there are several.
        let window = windows.count > 1 ? "Window \(frontWindow.number) of \(windows.count)" : ""
        if let preview = shownPreview {
            drawTitleBar(into: &grid, area: frame.header, column: column, title: window, detail: preview.pageLabel)
            drawRows(
                of: preview.layout, from: preview.topRow(height: frame.content.height), into: &grid, area: frame.content
            )
        } else if let session {
            drawTitleBar(into: &grid, area: frame.header, column: column, title: window, detail: session.pageLabel)
            drawRows(
                of: session.layout(width: frame.content.width), from: session.topRow(in: frame.content.size),
                into: &grid,
                area: frame.content)
        } else {
            drawTitleBar(
                into: &grid, area: frame.header, column: column, title: window,
                detail: documents.count == 1 ? "1 document" : "\(documents.count) documents")
            drawList(into: &grid, area: frame.content)
        }
        let status = frame.notice.isEmpty ? [hintLine(page: frame.content.size)] : frame.notice
        let footer = frame.footer
        for (index, line) in status.prefix(footer.height).enumerated() {
            grid.put(
                TextWidth.truncate(line.text, to: column.width), at: Point(x: column.x, y: footer.y + index),
                style: line.style,
                clip: footer)
        }
    }

    private func drawTitleBar(into grid: inout Grid, area: Rect, column: Rect, title: String, detail: String) {
        let row = Rect(x: column.x, y: area.y, width: column.width, height: 1).intersection(area)
        let detailWidth = TextWidth.of(detail)
        let titleRoom = detailWidth + 2 < row.width ? row.width - detailWidth - 2 : row.width
        grid.put(TextWidth.truncate(title, to: titleRoom), at: row.origin, style: Style(.title, bold: true), clip: row)
        if titleRoom < row.width {
            grid.put(detail, at: Point(x: row.maxX - detailWidth, y: row.y), style: Style(.accent), clip: row)
        }
        if area.height > 1 {
            let rule = area.row(1)
            grid.put(String(repeating: "─", count: rule.width), at: rule.origin, style: Style(.frame), clip: rule)
        }
    }

    private func drawRows(of layout: PageLayout, from top: Int, into grid: inout Grid, area: Rect) {
        guard !area.isEmpty else { return }
        for (offset, row) in layout.rows.dropFirst(top).prefix(area.height).enumerated() {
            grid.put(row.text, at: Point(x: area.x, y: area.y + offset), clip: area)
        }
    }

    private func drawList(into grid: inout Grid, area: Rect) {
        guard !area.isEmpty else { return }
        var lines: [(text: String, style: Style, entry: Int?)] = []
        func section(_ heading: String, location: DocumentLocation, empty: String) {
            if !lines.isEmpty { lines.append(("", .normal, nil)) }
            lines.append((heading, Style(.title), nil))
            let indices = documents.indices.filter { documents[$0].location == location }
            if indices.isEmpty { lines.append(("  " + empty, Style(.dim), nil)) }
            for index in indices { lines.append(("", .normal, index)) }
        }
        let hasCloud = library?.cloudFolder != nil
        section(
            "In the cloud", location: .cloud,
            empty: hasCloud ? "No documents" : "Off on this device: it has no cloud folder")
        section("On this device", location: .local, empty: "No documents")

        let selectedLine = lines.firstIndex { $0.entry == selection } ?? 0
        let first = max(0, selectedLine - area.height + 1)
        for (offset, line) in lines.dropFirst(first).prefix(area.height).enumerated() {
            let row = area.row(offset)
            if let index = line.entry {
                drawEntry(documents[index], selected: index == selection, into: &grid, row: row)
            } else {
                grid.put(TextWidth.truncate(line.text, to: row.width), at: row.origin, style: line.style, clip: row)
            }
        }
    }

    private func drawEntry(_ entry: DocumentEntry, selected: Bool, into grid: inout Grid, row: Rect) {
        let style = selected ? Style(.selection) : Style.normal
        if selected { grid.fill(row, style: style) }
        // Pages when the list read the whole file, else its size (a list reads only their starts).
        let pages =
            entry.pageCount.map { $0 == 1 ? "1 page" : "\($0) pages" }
            ?? (entry.isReadable ? entry.size.map(ByteCount.text) : nil) ?? "unreadable"
        let showsName = row.width >= 72
        let nameWidth = showsName ? min(24, TextWidth.of(entry.name)) : 0
        let right = TextWidth.of(pages)
        let titleRoom = max(0, row.width - 2 - right - 2 - (showsName ? nameWidth + 2 : 0))
        grid.put(
            (selected ? "▸ " : "  ") + TextWidth.truncate(entry.title, to: titleRoom), at: row.origin, style: style,
            clip: row)
        if showsName {
            let x = row.maxX - right - 2 - nameWidth
            grid.put(
                TextWidth.truncate(entry.name, to: nameWidth), at: Point(x: x, y: row.y),
                style: selected ? style : Style(.dim), clip: row)
        }
        grid.put(pages, at: Point(x: row.maxX - right, y: row.y), style: selected ? style : Style(.dim), clip: row)
    }

    /// A transfer's progress: what is received from whom and how much, then a bar once the size
    /// is known, e.g. "Receiving “Notes” from Laptop… 1.2 MB of 5.0 MB" and "[██████░░░░░░] 24%".
    static func progressLines(_ transfer: TransferProgress, width: Int) -> [(text: String, style: Style)] {
        let name = "“\(transfer.documentName)”"
        guard let total = transfer.totalBytes, let fraction = transfer.fraction else {
            return [(TextWidth.truncate("Asking the other device for \(name)… (Esc: stop)", to: width), Style(.accent))]
        }
        let sender = transfer.senderName.map { $0.isEmpty ? "" : " from \($0)" } ?? ""
        let amount =
            "\(ByteCount.text(transfer.receivedBytes)) of \(ByteCount.text(total))"
            + (transfer.rate.map { " · \($0)" } ?? "")
        // Wrapped, not cut: on a phone the sender and the rate are on the second line.
        let text = TextWidth.wrap("Receiving \(name)\(sender)… \(amount)", width: width).prefix(3).map {
            ($0, Style(.accent))
        }
        let percent = " \(Int((fraction * 100).rounded(.down)))%"
        let barWidth = max(0, min(width, 60) - 2 - percent.count)
        guard barWidth >= 4 else { return Array(text) }
        let filled = Int((Double(barWidth) * fraction).rounded(.down))
        let bar =
            "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled) + "]"
            + percent
        return Array(text) + [(bar, Style(.accent))]
    }

    /// The continuation in progress, else the message (wrapped: an error whole, others at most
    /// ``maximumMessageRows`` rows), else nothing.
    private func noticeLines(width: Int, available: Int) -> [(text: String, style: Style)] {
        guard available > 0, width > 0 else { return [] }
        if isContinuing {
            let what =
                continuingActivityType == UserActivity.browsingWebType ? "a page of \(Self.webHost)" : "a document"
            return [(TextWidth.truncate("Opening \(what) from another device…", to: width), Style(.accent))]
        }
        if let transfer { return Array(Self.progressLines(transfer, width: width).prefix(available)) }
        guard let message else { return [] }
        // An error is shown whole (why a continuation was refused is the point of it); other
        // messages take at most a few rows.
        let limit = message.kind == .error ? available : min(Self.maximumMessageRows, available)
        return message.lines(width: width, limit: limit)
    }

    /// Where the reader is in a view of the page of size `page` (this frame's), or a hint in the
    /// list.
    private func hintLine(page viewport: Size) -> (text: String, style: Style) {
        guard let session else {
            let text =
                !documents.isEmpty
                ? "Documents in the cloud continue on your other devices."
                : library?.cloudFolder == nil
                    ? "No documents yet: continue one from another device."
                    : "No documents yet: add .txt files, then press r."
            return (text, Style(.dim))
        }
        let layout = session.layout(width: viewport.width)
        let atEnd = session.topRow(in: viewport) >= layout.lastTopRow(height: viewport.height)
        let page = session.position.page
        let text =
            !atEnd
            ? "↓ more on this page"
            : session.hasNextPage
                ? "End of page \(page) · Space: page \(page + 1)"
                : "End of the document"
        return (text, Style(.dim))
    }
}
