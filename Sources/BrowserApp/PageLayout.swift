import TerminalCells

/// A page laid out for a width: rows of text, each with its style and the link it belongs to.
struct PageLayout {
    struct Row: Hashable {
        var text: String
        var style: Style
        /// The index of the link (in `WebPage.links`) this row shows, if any.
        var link: Int?
    }

    let width: Int
    private(set) var rows: [Row] = []

    init(_ page: WebPage, width: Int) {
        self.width = max(1, width)
        append(wrapping: page.title, style: Style(.title, bold: true))
        var previous: WebPage.Block?
        var linkIndex = 0
        for block in page.blocks {
            // A blank row after the title, and between blocks that are not of one run.
            if previous.map({ Self.separated($0, block) }) ?? true { rows.append(Row(text: "", style: .normal)) }
            switch block {
            case .heading(let text, let level):
                append(wrapping: text, style: level <= 1 ? Style(.title, bold: true) : Style(.title))
            case .paragraph(let text):
                append(wrapping: text, style: .normal)
            case .link(let link):
                let label = link.url == nil ? "\(link.label) (not a usable address: \(link.target))" : link.label
                append(wrapping: label, style: Style(.link, underline: true), first: "→ ", rest: "  ", link: linkIndex)
                linkIndex += 1
            case .listItem(let text):
                append(wrapping: text, style: .normal, first: "• ", rest: "  ")
            case .quote(let text):
                append(wrapping: text, style: Style(.dim), first: "│ ", rest: "│ ")
            case .preformatted(let lines):
                for line in lines {
                    rows.append(
                        Row(text: TextWidth.truncate(line, to: self.width, ellipsis: "›"), style: Style(.accent)))
                }
            }
            previous = block
        }
    }

    /// Whether a blank row separates `previous` from `next`: always, except between items of
    /// one list, links that follow each other, quotes that follow each other, and after a heading.
    private static func separated(_ previous: WebPage.Block, _ next: WebPage.Block) -> Bool {
        switch (previous, next) {
        case (.heading, _), (.link, .link), (.listItem, .listItem), (.quote, .quote): false
        default: true
        }
    }

    private mutating func append(
        wrapping text: String, style: Style, first: String = "", rest: String = "", link: Int? = nil
    ) {
        let indent = TextWidth.of(first)
        guard width > indent + 1 else {
            for line in TextWidth.wrap(text, width: width) { rows.append(Row(text: line, style: style, link: link)) }
            return
        }
        for (index, line) in TextWidth.wrap(text, width: width - indent).enumerated() {
            rows.append(Row(text: (index == 0 ? first : rest) + line, style: style, link: link))
        }
    }

    /// The rows of link `index`.
    func rows(ofLink index: Int) -> Range<Int>? {
        guard let first = rows.firstIndex(where: { $0.link == index }),
            let last = rows.lastIndex(where: { $0.link == index })
        else { return nil }
        return first..<(last + 1)
    }

    /// The largest top row for a view of `height` rows.
    func lastTop(height: Int) -> Int { max(0, rows.count - max(1, height)) }
}
