import DeviceAppKit
import TerminalCells

extension BrowserApp {
    /// The widest text column of a page, in cells: on a wide screen lines stay readable.
    static let maximumTextWidth = 100
    /// The most rows a message may take at the bottom of the area.
    static let maximumMessageRows = 3

    /// Where the parts of the Browser go in `area`: the address bar and its rule at the top,
    /// the page in a column, the status line at the bottom (taller while a message needs more
    /// rows).
    struct Frame {
        var header: Rect
        var body: Rect
        var page: Rect
        var footer: Rect
        var status: [(text: String, style: Style)]
    }

    /// The parts of the Browser in `area`, for what it shows now.
    func frame(in area: Rect) -> Frame {
        let (header, body) = area.splitTop(area.height >= 6 ? 2 : 1)
        let columnWidth = body.width >= 12 ? min(body.width - 4, Self.maximumTextWidth) : body.width
        let columnX = body.x + (body.width - columnWidth) / 2
        let status = statusLines(width: columnWidth, available: body.height - 1)
        let (content, footer) = body.splitBottom(body.height > 1 ? max(1, status.count) : 0)
        return Frame(
            header: header, body: body,
            page: Rect(x: columnX, y: content.y, width: columnWidth, height: content.height),
            footer: Rect(x: columnX, y: footer.y, width: columnWidth, height: footer.height), status: status)
    }

    /// Draws the Browser into `area` (and nowhere else): the address bar, a rule, the page and a
    /// status line (a message, the chosen link's address, or a hint). It only draws.
    package func render(into grid: inout Grid, area: Rect) {
        guard !area.isEmpty else { return }
        grid.fill(area)
        let frame = frame(in: area)
        drawAddressBar(into: &grid, row: frame.header.row(0))
        if frame.header.height > 1 {
            let rule = frame.header.row(1)
            grid.put(String(repeating: "─", count: rule.width), at: rule.origin, style: Style(.frame), clip: rule)
        }
        let pageArea = frame.page
        let body = frame.body
        let layout = layout(width: pageArea.width)
        // The page's first row as it was scrolled, or higher when the page ends before the view does.
        let top = min(scrollOffset, layout.lastTop(height: pageArea.height))
        drawPage(layout, from: top, into: &grid, area: pageArea)
        // More below: an arrow in the right margin, next to the last row of the page.
        if !pageArea.isEmpty, pageArea.maxX < body.maxX, layout.rows.count > top + pageArea.height {
            grid.put("↓", at: Point(x: body.maxX - 1, y: pageArea.maxY - 1), style: Style(.dim), clip: body)
        }
        for (index, line) in frame.status.prefix(frame.footer.height).enumerated() {
            let row = frame.footer.row(index)
            grid.put(line.text, at: row.origin, style: line.style, clip: row)
        }
    }

    /// `◀ ▶ https://…` (the arrows dim when there is no page that way), or while editing
    /// `Go to ▸ ` and the text with its cursor, scrolled so that the cursor shows.
    private func drawAddressBar(into grid: inout Grid, row: Rect) {
        guard row.width > 0 else { return }
        if let bar = addressBar {
            let prompt = "Go to ▸ "
            let promptWidth = TextWidth.of(prompt) < row.width / 2 ? TextWidth.of(prompt) : 0
            if promptWidth > 0 { grid.put(prompt, at: row.origin, style: Style(.accent, bold: true), clip: row) }
            let field = Rect(x: row.x + promptWidth, y: row.y, width: row.width - promptWidth, height: 1)
            guard field.width > 0 else { return }
            // Scroll the text so that the cursor (one cell after the text at most) is inside the field.
            var widths = bar.text.map { TextWidth.of($0) }
            widths.append(1)
            var start = 0
            while start < bar.cursor, widths[start...bar.cursor].reduce(0, +) > field.width { start += 1 }
            var x = field.x
            for index in start...bar.text.count {
                let width = widths[index]
                guard x + width <= field.maxX else { break }
                let isCursor = index == bar.cursor
                let character = index < bar.text.count ? bar.text[index] : " "
                let style =
                    isCursor ? Style(.normal, reverse: true) : bar.isAllSelected ? Style(.selection) : Style.normal
                grid.put(String(character), at: Point(x: x, y: row.y), style: style, clip: field)
                x += width
            }
            return
        }
        let back = history.canGoBack ? Style(.accent) : Style(.dim)
        let forward = history.canGoForward ? Style(.accent) : Style(.dim)
        var x = row.x
        if row.width >= 12 {
            grid.put("◀", at: Point(x: x, y: row.y), style: back, clip: row)
            grid.put("▶", at: Point(x: x + 2, y: row.y), style: forward, clip: row)
            x += 4
        }
        let address = page?.url.absoluteString ?? ""
        let style: Style =
            switch page?.kind {
            case .site?: Style(.normal, bold: true)
            case .noNetwork?, .notFound?: Style(.warning)
            case .refused?, .error?: Style(.error)
            case nil: Style.normal
            }
        grid.put(TextWidth.truncate(address, to: row.maxX - x), at: Point(x: x, y: row.y), style: style, clip: row)
    }

    private func drawPage(_ layout: PageLayout, from top: Int, into grid: inout Grid, area: Rect) {
        guard !area.isEmpty else { return }
        for (offset, row) in layout.rows.dropFirst(top).prefix(area.height).enumerated() {
            let line = area.row(offset)
            let selected = row.link != nil && row.link == selectedLink
            if selected {
                grid.fill(
                    Rect(x: line.x, y: line.y, width: min(line.width, TextWidth.of(row.text)), height: 1),
                    style: Style(.selection))
            }
            grid.put(row.text, at: line.origin, style: selected ? Style(.selection, bold: true) : row.style, clip: line)
        }
    }

    /// The continuation in progress, else the message (wrapped, at most ``maximumMessageRows``
    /// rows), else the chosen link's address, else a hint.
    private func statusLines(width: Int, available: Int) -> [(text: String, style: Style)] {
        guard available > 0, width > 0 else { return [] }
        if isContinuing { return [("Opening a page from another device…", Style(.accent))] }
        if let message {
            return message.lines(width: width, limit: min(Self.maximumMessageRows, available))
        }
        if addressBar != nil {
            return [(TextWidth.truncate("Enter: go · Esc: stop editing · Ctrl-U: clear", to: width), Style(.dim))]
        }
        if let page, let selectedLink, page.links.indices.contains(selectedLink) {
            let link = page.links[selectedLink]
            return [(TextWidth.truncate("→ " + (link.url?.absoluteString ?? link.target), to: width), Style(.dim))]
        }
        return [(TextWidth.truncate("g: type an address · ← →: back, forward", to: width), Style(.dim))]
    }
}
