import Foundation
import HandoffCore
import TerminalCells
import Testing

@testable import DeviceUI

/// `handoff timeline --print` one event at a time is the whole widget's text, line for line.
@Suite("Timeline text printer")
struct TimelineTextPrinterTests {
    /// The widget's text and the printer's, for `widget`'s events, arrows and lost messages.
    static func both(_ widget: TimelineWidget, laneWidth: Int) -> (whole: String, printed: String) {
        let labels = widget.arrows.map(\.label) + widget.lost.map { $0.label + " lost" }
        var printer = TimelineTextPrinter(
            lanes: widget.lanes, timeWidth: widget.timeWidth, laneWidth: laneWidth, labels: labels)
        var printed = printer.header()
        for (index, event) in widget.events.enumerated() {
            printed += printer.lines(
                of: event,
                arrows: widget.arrows.filter { $0.from == index }.map {
                    TimelineTextPrinter.Message(label: $0.label, toLane: widget.events[$0.to].lane)
                },
                lost: widget.lost.filter { $0.from == index }.map {
                    TimelineTextPrinter.Message(label: $0.label, toLane: $0.toLane)
                })
        }
        return (widget.text(laneWidth: laneWidth), printed)
    }

    @Test(arguments: [16, 20, 30, 44, 70])
    func printedEventByEventIsTheWholeText(laneWidth: Int) {
        var widget = TimelineWidgetTests.widget()
        // Long text that wraps, a lost beacon towards each side, a third lane.
        widget.lanes.append(.init(name: "Watch (watch) with a name longer than its lane"))
        widget.events.append(
            .init(
                lane: 2, time: "06:13:20.000", kind: .advertised, kindName: "advertised",
                detail: String(repeating: "a-very-long-word ", count: 6)))
        widget.events.append(
            .init(lane: 1, time: "06:13:20.001", kind: nil, kindName: "fromANewerVersion", detail: ""))
        widget.lost = [
            TimelineLostMessage(from: 2, toLane: 1, label: "beacon #4"),
            TimelineLostMessage(from: 14, toLane: 0, label: "beacon #9"),
            TimelineLostMessage(from: 15, toLane: 2, label: "a label long enough to widen the lanes"),
        ]
        let (whole, printed) = Self.both(widget, laneWidth: laneWidth)
        #expect(printed == whole)
        #expect(whole.split(separator: "\n").count > widget.events.count)
    }
}
