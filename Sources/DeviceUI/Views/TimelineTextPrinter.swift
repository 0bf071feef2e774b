import Foundation
import HandoffCore
import TerminalCells

/// `handoff timeline --print` one event at a time: the text ``TimelineWidget/text(laneWidth:)``
/// makes of a whole timeline, line for line, drawn by the widget's own code for each event as it
/// comes, so that a timeline of a million events prints without being held.
package struct TimelineTextPrinter {
    /// A message an event sent: its label and the lane it went to.
    package struct Message: Sendable, Hashable {
        package var label: String
        package var toLane: Int

        package init(label: String, toLane: Int) {
            self.label = label
            self.toLane = toLane
        }
    }

    private let widget: TimelineWidget
    /// Each lane's width (widened to fit the longest label, as the whole text does).
    package let laneWidth: Int
    private let areaWidth: Int
    private var grid: Grid
    private let blank: Grid

    /// A printer of `lanes`, each `laneWidth` columns wide, widened to fit the longest of `labels`
    /// (the arrows' labels and the lost messages' labels followed by " lost").
    package init(lanes: [TimelineWidget.Lane], timeWidth: Int, laneWidth: Int, labels: [String]) {
        var widget = TimelineWidget(lanes: lanes, events: [], arrows: [], timeWidth: timeWidth)
        widget.wraps = true
        self.widget = widget
        self.laneWidth = max(laneWidth, (labels.map { TextWidth.of($0) }.max() ?? 0) + 8)
        areaWidth = timeWidth + lanes.count * self.laneWidth + 1
        blank = Grid(size: Size(width: areaWidth, height: 1))
        grid = blank
    }

    /// The first line: the lanes' names.
    package mutating func header() -> String {
        let area = Rect(x: 0, y: 0, width: areaWidth, height: 1)
        grid = blank
        widget.drawNames(in: area, into: &grid, laneWidth: laneWidth, positionWidth: 0)
        return grid.line(0).trimmingTrailingSpaces + "\n"
    }

    /// An event's lines (its text wrapped within its lane), then a line for each arrow it sent and
    /// each message it sent that was lost, each ending in a newline.
    package mutating func lines(of event: TimelineWidget.Event, arrows: [Message], lost: [Message]) -> String {
        var widget = self.widget
        widget.events =
            [event]
            + arrows.map { TimelineWidget.Event(lane: $0.toLane, time: "", kind: nil, kindName: "", detail: "") }
        widget.arrows = arrows.indices.map { TimelineArrow(from: 0, to: $0 + 1, label: arrows[$0].label) }
        widget.lost = lost.map { TimelineLostMessage(from: 0, toLane: $0.toLane, label: $0.label) }
        let width = widget.cellWidth(lane: event.lane, laneWidth: laneWidth, areaWidth: areaWidth)
        let parts = widget.parts(of: event, width: width)
        var lines = parts.indices.map { TimelineWidget.Line.event(0, part: $0) }
        lines += widget.arrows.indices.map { .arrow($0) }
        lines += widget.lost.indices.filter { widget.lost[$0].toLane < widget.lanes.count }.map { .lost($0) }
        let area = Rect(x: 0, y: 0, width: areaWidth, height: 1)
        var text = ""
        for line in lines {
            grid = blank
            widget.draw(line, y: 0, area: area, body: area, laneWidth: laneWidth, into: &grid, parts: parts)
            text += grid.line(0).trimmingTrailingSpaces + "\n"
        }
        return text
    }
}
