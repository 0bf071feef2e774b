import Foundation
import HandoffCore
import TerminalCells

/// Where the timeline view (F9) is: which continuation, counted back from the newest, and which
/// event is selected (nil: the newest).
package struct TimelineCursor: Hashable, Sendable {
    package var back: Int
    package var selection: Int?
    /// Pages the selected event's detail is scrolled by (Space; a new selection starts at 0).
    package var detailPage: Int

    package init(back: Int = 0, selection: Int? = nil, detailPage: Int = 0) {
        self.back = back
        self.selection = selection
        self.detailPage = detailPage
    }
}

/// The timeline view's geometry, shared with the reducer (which pages with it).
enum TimelineView {
    /// How many pages a detail of `lines` lines takes in an area `height` rows high (each page
    /// all rows but the last, which says where Space goes), and which of them `page` shows
    /// (Space past the last goes back to the first).
    static func detailPages(lines: Int, height: Int, page: Int) -> (count: Int, shown: Int) {
        let perPage = max(1, height - 1)
        let count = max(1, (lines + perPage - 1) / perPage)
        return (count, ((page % count) + count) % count)
    }

    /// The page above the footer.
    static func page(in size: Size) -> Rect {
        Rect(x: 0, y: 0, width: size.width, height: max(0, size.height - 1))
    }

    /// A wide page shows the detail beside the diagram; a narrow one below it.
    static func isWide(_ size: Size) -> Bool { size.width >= 120 }

    /// The diagram's area and the detail's, inside the page's box.
    static func areas(in size: Size) -> (diagram: Rect, detail: Rect) {
        let inside = page(in: size).inset(top: 2, left: 1, bottom: 1, right: 1)
        if isWide(size) {
            let detailWidth = min(64, inside.width * 2 / 5)
            let diagram = Rect(x: inside.x, y: inside.y, width: inside.width - detailWidth - 1, height: inside.height)
            let detail = Rect(x: diagram.maxX + 1, y: inside.y, width: detailWidth, height: inside.height)
            return (diagram, detail)
        }
        let detailHeight = min(max(3, inside.height * 2 / 5), 9)
        let diagram = Rect(
            x: inside.x, y: inside.y, width: inside.width, height: max(0, inside.height - detailHeight - 1))
        let detail = Rect(x: inside.x, y: diagram.maxY + 1, width: inside.width, height: detailHeight)
        return (diagram, detail)
    }

    /// How many events a page moves.
    static func pageStep(in size: Size) -> Int {
        max(1, (areas(in: size).diagram.height - 2) / 2)
    }
}

extension ScreenView {
    /// The continuation as a sequence diagram: one lane per device (named), time going down,
    /// arrows for what crossed the network; the selected event's detail beside (wide) or below.
    func drawTimeline(into grid: inout Grid, cursor: TimelineCursor) {
        let model = TimelineModel(snapshot: device, back: cursor.back)
        let page = TimelineView.page(in: state.size)
        grid.fill(page, style: Style(.normal))
        var title = "Timeline"
        if let id = model.continuation {
            title += " · continuation \(id.prefix(8)) (\(model.position) of \(model.continuationCount))"
        } else {
            title += " · no continuation yet: the latest events"
        }
        grid.box(page, style: Style(.accent), title: title, titleStyle: Style(.title), lines: .double)
        let (diagram, detail) = TimelineView.areas(in: state.size)
        let selected =
            model.rows.isEmpty ? nil : min(max(0, cursor.selection ?? model.rows.count - 1), model.rows.count - 1)
        // The notes (a peer that shares nothing) go on the row under the title.
        let header = page.inset(top: 1, left: 2, bottom: 0, right: 2).row(0)
        if let note = model.notes.first {
            grid.write("! " + note, in: header, style: Style(.warning))
        } else {
            grid.write(
                hintPieces(
                    [("↑↓", "event"), ("←→", "continuation"), ("Space", "more detail"), ("Esc", "close")],
                    width: header.width), in: header)
        }
        TimelineWidget(model, selected: selected).render(in: diagram, into: &grid)
        if TimelineView.isWide(state.size) {
            grid.fill(
                Rect(x: detail.x - 1, y: detail.y, width: 1, height: detail.height), with: "│", style: Style(.frame))
        } else {
            grid.fill(
                Rect(x: detail.x, y: detail.y - 1, width: detail.width, height: 1), with: "─", style: Style(.frame))
        }
        drawDetail(into: &grid, area: detail, model: model, selected: selected, page: cursor.detailPage)
    }

    private func drawDetail(into grid: inout Grid, area: Rect, model: TimelineModel, selected: Int?, page: Int) {
        guard area.height >= 1, let selected else { return }
        let row = model.rows[selected]
        let entry = row.entry
        var lines: [(String, Style)] = []
        lines.append(("\(entry.kindName) on \(entry.device)", Style(.title)))
        var facts = [entry.string("time").map { String($0.split(separator: "T").last ?? "") } ?? ""]
        if let size = entry.integer("size") { facts.append(ByteCount.text(Int(size))) }
        if let ms = entry.double("milliseconds") { facts.append("\(Int(ms.rounded())) ms") }
        if let omitted = entry.integer("userInfoOmitted") {
            facts.append("userInfo of \(ByteCount.text(Int(omitted))) not shared")
        }
        if let first = model.rows.first(where: { $0.entry.continuation != nil }), entry.continuation != nil,
            first != row
        {
            facts.append("\(Self.offset(entry.time.timeIntervalSince(first.entry.time))) after \(first.entry.kindName)")
        }
        lines.append((facts.filter { !$0.isEmpty }.joined(separator: " · "), Style(.dim)))
        for line in TextWidth.wrap(entry.explanation, width: area.width) { lines.append((line, Style(.normal))) }
        if !entry.detail.isEmpty {
            for line in TextWidth.wrap(entry.detail, width: area.width) { lines.append((line, Style(.dim))) }
        }
        for arrow in model.arrows(touching: selected) {
            let other = model.rows[arrow.from == selected ? arrow.to : arrow.from]
            let text =
                arrow.from == selected
                ? "→ \(model.lanes[other.lane].name): \(arrow.label)"
                : "← \(model.lanes[model.rows[arrow.from].lane].name): \(arrow.label)"
            lines.append((text, Style(.link)))
        }
        for message in model.lost where message.from == selected {
            lines.append(("→ \(model.lanes[message.toLane].name): \(message.label) lost", Style(.warning)))
        }
        if let info = entry.userInfo {
            lines.append(("userInfo (\(info.count) key\(info.count == 1 ? "" : "s"))", Style(.title)))
            for key in info.keys.sorted() {
                lines.append(
                    (TextWidth.truncate("  \(key): \(info[key]!.description)", to: area.width), Style(.normal)))
            }
        }
        guard lines.count > area.height, area.height >= 2 else {
            for (index, line) in lines.prefix(area.height).enumerated() {
                grid.write(line.0, in: area, row: index, style: line.1)
            }
            return
        }
        // Longer than its area: pages of all but the last row, which says where Space goes.
        let (pages, shown) = TimelineView.detailPages(lines: lines.count, height: area.height, page: page)
        let start = shown * (area.height - 1)
        for (index, line) in lines[start..<min(lines.count, start + area.height - 1)].enumerated() {
            grid.write(line.0, in: area, row: index, style: line.1)
        }
        let more =
            shown + 1 < pages
            ? "… Space: more (\(shown + 1) of \(pages))" : "Space: from the top (\(pages) of \(pages))"
        grid.write(TextWidth.truncate(more, to: area.width), in: area, row: area.height - 1, style: Style(.dim))
    }

    /// "+0.042s": the time since the continuation's first event ("-11s" before it).
    static func offset(_ seconds: TimeInterval) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let milliseconds = Int((abs(seconds) * 1000).rounded())
        if milliseconds < 10_000 {
            let fraction = milliseconds % 1000
            return "\(sign)\(milliseconds / 1000).\(fraction < 10 ? "00" : fraction < 100 ? "0" : "")\(fraction)s"
        }
        return "\(sign)\(milliseconds / 1000)s"
    }
}

extension TimelineWidget {
    /// The lanes of F9's timeline: this device's lane says "(here)", and times count from the
    /// continuation's first event (the beacon before it is negative).
    init(_ model: TimelineModel, selected: Int?) {
        let start = (model.rows.first { $0.entry.continuation != nil } ?? model.rows.first)?.entry.time
        self.init(
            lanes: model.lanes.map { Lane(name: $0.isThisDevice ? "\($0.name) (here)" : $0.name) },
            events: model.rows.map { row in
                Event(
                    lane: row.lane, time: start.map { ScreenView.offset(row.entry.time.timeIntervalSince($0)) } ?? "",
                    kind: row.entry.kind, kindName: row.entry.kindName, detail: row.entry.detail)
            },
            arrows: model.arrows, lost: model.lost, selected: selected)
    }
}
