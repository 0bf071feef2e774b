import Foundation
import HandoffCore
import TerminalCells
import Testing

@testable import DeviceUI

/// The one timeline widget (F9 and `handoff timeline`'s replay): lanes, events and arrows drawn
/// into the area it is given, and nowhere else.
@Suite("Timeline widget")
struct TimelineWidgetTests {
    /// A continuation from the laptop to the phone, as the replay would make it from recordings.
    static func widget() -> TimelineWidget {
        let steps: [(lane: Int, kind: LifecycleEvent.Kind, detail: String)] = [
            (0, .activityCreated, "com.example.notes.editing"), (0, .becameCurrent, "com.example.notes.editing"),
            (0, .advertised, "beacon #4"), (1, .offerReceived, "from Laptop"), (1, .continueChosen, "from Laptop"),
            (1, .willContinue, "com.example.notes.editing"), (1, .fetchStarted, "from Laptop"),
            (0, .payloadRequested, "Phone asks for the payload"), (0, .saved, "com.example.notes.editing"),
            (0, .payloadSent, "2.1 kB"), (1, .stepPaused, "before continue"),
            (1, .payloadReceived, "2.1 kB from Laptop"),
            (1, .continued, "from Laptop in 48 ms"), (0, .wasContinued, "by Phone"),
        ]
        let events = steps.enumerated().map { index, step in
            TimelineWidget.Event(
                lane: step.lane, time: String(format: "06:13:%02d.%03d", 10 + index / 5, index * 37 % 1000),
                kind: step.kind, kindName: step.kind.rawValue, detail: step.detail)
        }
        let arrows = [
            TimelineArrow(from: 2, to: 3, label: "beacon #4"), TimelineArrow(from: 6, to: 7, label: "payload request"),
            TimelineArrow(from: 9, to: 11, label: "payload 2.1 kB"),
            TimelineArrow(from: 12, to: 13, label: "was continued"),
        ]
        return TimelineWidget(
            lanes: [.init(name: "Laptop (laptop)"), .init(name: "Phone (phone)")], events: events, arrows: arrows,
            selected: 11, timeWidth: 13)
    }

    static func render(_ widget: TimelineWidget, _ size: Size) -> Grid {
        var grid = Grid(size: size)
        widget.render(in: Rect(x: 0, y: 0, width: size.width, height: size.height), into: &grid)
        return grid
    }

    @Test func at80x24() {
        let grid = Self.render(Self.widget(), Size(width: 80, height: 24))
        assertSnapshot(grid, named: "timeline-widget-80x24", styles: meaningLegend)
        let text = grid.text()
        #expect(text.contains("│Laptop (laptop)") && text.contains("│Phone (phone)"))
        #expect(text.contains("▸payloadReceived") && text.contains("●payloadSent"))
        #expect(text.contains("payload request") && text.contains("▶") && text.contains("◀"))
    }

    @Test func atALargeSize() {
        let grid = Self.render(Self.widget(), Size(width: 200, height: 60))
        assertSnapshot(grid, named: "timeline-widget-200x60", styles: meaningLegend)
        // Every event and arrow fits: no position on the names' row.
        let text = grid.text()
        for event in Self.widget().events {
            #expect(text.contains(event.kindName + " " + event.detail), "\(event.kindName)")
        }
        #expect(!text.contains("/18"))
    }

    /// Too many lines for the area: the selected event stays in view and the names' row says
    /// which lines show.
    @Test func aSmallAreaScrollsToTheSelection() {
        var widget = Self.widget()
        widget.selected = 1
        let text = Self.render(widget, Size(width: 60, height: 6)).text()
        #expect(text.contains("▸becameCurrent"))
        #expect(text.contains("/18"), "\(text)")
        widget.selected = 13
        #expect(Self.render(widget, Size(width: 60, height: 6)).text().contains("▸wasContinued"))
    }

    /// It draws only inside its area: the cells around it stay as they were.
    @Test func itDrawsOnlyInsideItsArea() {
        var grid = Grid(size: Size(width: 100, height: 30))
        grid.fill(Rect(x: 0, y: 0, width: 100, height: 30), with: "x", style: Style(.dim))
        let area = Rect(x: 7, y: 3, width: 70, height: 20)
        Self.widget().render(in: area, into: &grid)
        for (y, line) in grid.text().split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for (x, character) in line.enumerated()
            where !(area.x..<area.maxX).contains(x) || !(area.y..<area.maxY).contains(y) {
                #expect(character == "x", "(\(x), \(y))")
            }
        }
    }

    /// A replay draws the events played so far, and only the arrows whose both ends are drawn.
    @Test func onlyTheDrawnEventsAndTheirArrowsShow() {
        var widget = Self.widget()
        widget.drawnCount = 10
        widget.selected = 9
        let text = Self.render(widget, Size(width: 120, height: 40)).text()
        #expect(text.contains("▸payloadSent"))
        #expect(!text.contains("payloadReceived") && !text.contains("wasContinued"))
        #expect(text.contains("payload request") && !text.contains("payload 2.1 kB"))
        widget.drawnCount = 0
        widget.selected = nil
        widget.emptyText = "These recordings hold no events."
        #expect(Self.render(widget, Size(width: 120, height: 40)).text().contains("These recordings hold no events."))
    }

    /// One style table for every timeline: F9 and the replay draw a kind alike.
    @Test func theStyleTable() {
        #expect(TimelineWidget.style(.continuationFailed) == Style(.error))
        #expect(TimelineWidget.style(.stepPaused) == Style(.warning))
        #expect(TimelineWidget.style(.faultInjected) == Style(.warning))
        #expect(TimelineWidget.style(.wasContinued) == Style(.success))
        #expect(TimelineWidget.style(.saved) == Style(.normal))
        #expect(TimelineWidget.style(nil) == Style(.normal))
    }

    /// The printed text (`handoff timeline --print`) is drawn by the same widget, and wraps each
    /// event's text within its lane: a failure's code, name and reason are whole, at any lane width.
    @Test(arguments: [16, 44, 70])
    func thePrintedTextCutsNothing(laneWidth: Int) {
        var widget = Self.widget()
        let reason =
            "from Laptop: 4610 NSUserActivityRemoteApplicationTimedOutError: no payload from Laptop within 2 s"
        widget.events.append(
            TimelineWidget.Event(
                lane: 1, time: "06:13:20.000", kind: .continuationFailed, kindName: "continuationFailed",
                detail: reason))
        widget.lost = [TimelineLostMessage(from: 9, toLane: 1, label: "payload 2.1 kB")]
        let text = widget.text(laneWidth: laneWidth)
        #expect(!text.contains("…"), "\(text)")
        // The whole reason, read back from its lane's lines.
        let lines = text.split(separator: "\n").map(String.init)
        let first = lines.firstIndex { $0.contains("●continuationFailed") }
        #expect(first != nil, "\(text)")
        if let first, let marker = lines[first].range(of: "●continuationFailed") {
            let column = lines[first].distance(from: lines[first].startIndex, to: marker.lowerBound)
            let lane = lines[first...].prefix { $0.count > column }.prefix { line in
                line == lines[first] || Array(line)[column] == " "
            }.map { String(Array($0)[(column + 1)...]).trimmingCharacters(in: .whitespaces) }
            // Long words are split across lines; no character is lost.
            #expect(
                lane.joined().replacingOccurrences(of: " ", with: "")
                    == ("continuationFailed " + reason).replacingOccurrences(of: " ", with: ""), "\(text)")
        }
        #expect(text.contains("payload request") && text.contains("payload 2.1 kB lost") && text.contains("╳"))
    }
}
