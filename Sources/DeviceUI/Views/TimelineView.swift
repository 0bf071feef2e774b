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
    /// The page above the footer.
    static func page(in size: Size) -> Rect {
        Rect(x: 0, y: 0, width: size.width, height: max(0, size.height - 1))
    }

    /// The diagram's area and the detail panel's (its rule included), inside the page's box:
    /// the panel beside the diagram on a wide page, below it on a narrow one
    /// (``TimelineDetailPanel/split(_:beside:)``, as the replay's).
    static func areas(in size: Size) -> (diagram: Rect, detail: Rect) {
        let inside = page(in: size).inset(top: 2, left: 1, bottom: 1, right: 1)
        let (diagram, detail) = TimelineDetailPanel.split(inside, beside: TimelineDetailPanel.isWide(size))
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
        TimelineDetailPanel(
            detail: selected.map { model.detail(of: $0) }, page: cursor.detailPage, moreKey: "Space",
            isBeside: TimelineDetailPanel.isWide(state.size)
        ).render(in: detail, into: &grid)
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
                    lane: row.lane,
                    time: start.map { TimelineModel.offset(row.entry.time.timeIntervalSince($0)) } ?? "",
                    kind: row.entry.kind, kindName: row.entry.kindName, detail: row.entry.detail)
            },
            arrows: model.arrows, lost: model.lost, selected: selected)
    }
}
