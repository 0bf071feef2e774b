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

    /// The bytes written straight from the lanes' columns are the whole text, sanitized, for the
    /// same events as ``printedEventByEventIsTheWholeText(laneWidth:)``.
    @Test(arguments: [16, 20, 30, 44, 70])
    func writtenEventByEventIsTheWholeText(laneWidth: Int) {
        var widget = TimelineWidgetTests.widget()
        widget.lanes.append(.init(name: "Watch (watch)"))
        widget.events.append(
            .init(
                lane: 2, time: "06:13:20.000", kind: .advertised, kindName: "advertised",
                detail: String(repeating: "a-very-long-word ", count: 6) + "“NSUserActivityTypeBrowsingWeb”··x → y…"))
        widget.events.append(.init(lane: 0, time: "06:13:20.001", kind: nil, kindName: "fromANewerVersion", detail: ""))
        widget.arrows.append(TimelineArrow(from: 14, to: 15, label: "beacon #9"))
        widget.lost = [
            TimelineLostMessage(from: 2, toLane: 1, label: "beacon #4"),
            TimelineLostMessage(from: 14, toLane: 0, label: "beacon #9"),
            TimelineLostMessage(from: 15, toLane: 2, label: "payload 2.1 kB"),
        ]
        #expect(Self.written(widget, laneWidth: laneWidth) == widget.text(laneWidth: laneWidth))
    }

    /// Text that is not narrow (wide, combining, a control character's code point, a label cut
    /// to fit) is written as the widget draws it.
    @Test(arguments: [16, 44])
    func whatIsNotNarrowIsWrittenAsTheWidgetDrawsIt(laneWidth: Int) {
        var widget = TimelineWidgetTests.widget()
        widget.events[1].detail = "電話 to 東京 " + String(repeating: "漢字", count: 20)
        widget.events[3].detail = "cafe\u{301} e\u{301}te\u{301} \u{1F600} \u{1b}[2J"
        widget.events[5].time = "06:13:10.000 and more than the column"
        widget.events[8].detail = "◽◾ wide shapes"
        let labels = ["beacon #4"]
        var printer = TimelineTextPrinter(
            lanes: widget.lanes, timeWidth: widget.timeWidth, laneWidth: laneWidth, labels: labels)
        for (index, event) in widget.events.enumerated() {
            let arrows = [
                TimelineTextPrinter.Message(
                    label: index == 4 ? "a label longer than any lane is" : "beacon #4", toLane: 1 - event.lane)
            ]
            let expected = TerminalText.sanitized(
                printer.lines(of: event, arrows: arrows, lost: arrows), keepingLines: true)
            var bytes: [UInt8] = []
            printer.write(event, arrows: arrows, lost: arrows, into: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == expected, "event \(index)")
        }
    }

    /// An event whose detail is given as its recorded UTF-8, not sanitized, is written as the
    /// event with its detail sanitized: narrow text straight from the bytes, anything else (a
    /// control character, an invisible format character, a wide or combining one) as the
    /// widget draws it.
    @Test(arguments: [16, 44])
    func aDetailGivenAsItsBytesIsWrittenAsItsSanitizedText(laneWidth: Int) {
        let widget = TimelineWidgetTests.widget()
        let details = [
            "", "plain text", "“A Short Guide to Handoff” · com.example → ok…", "bell \u{7} and \u{1b}[2J",
            "zero\u{200B}width \u{202E}reversed", "電話 to 東京", "cafe\u{301}", "\u{1F600} emoji", "tab\tand\nline",
            String(repeating: "a-very-long-word ", count: 6),
        ]
        var printer = TimelineTextPrinter(
            lanes: widget.lanes, timeWidth: widget.timeWidth, laneWidth: laneWidth, labels: ["beacon #4"])
        for detail in details {
            var event = widget.events[1]
            let arrows = [TimelineTextPrinter.Message(label: "beacon #4", toLane: 1 - event.lane)]
            event.detail = TerminalText.sanitized(detail)
            var expected: [UInt8] = []
            printer.write(event, arrows: arrows, lost: arrows, into: &expected)
            event.detail = "ignored"
            var written: [UInt8] = []
            var text = detail
            text.withUTF8 { printer.write(event, detail: $0, arrows: arrows, lost: arrows, into: &written) }
            #expect(written == expected, "\(detail.debugDescription)")
        }
    }

    /// Random narrow text wraps as `TextWidth.wrap` wraps it, at every width.
    @Test func narrowTextWrapsAsTextWidthWraps() {
        var generator = SplitMix64(seed: 0x7E17)
        let alphabet = Array("ab cZ.-/_  AbCdEf·─●xY1 “”…→‼ ".unicodeScalars)
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...60, using: &generator)
            let scalars = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            var text = String.UnicodeScalarView()
            text.append(contentsOf: scalars)
            let string = String(text)
            let values = scalars.map(\.value)
            for width in 1...24 {
                let narrow = NarrowLine.wrap(values, width: width).map { range in
                    String(String.UnicodeScalarView(values[range].map { Unicode.Scalar($0)! }))
                }
                #expect(narrow == TextWidth.wrap(string, width: width), "\(string.debugDescription) at \(width)")
            }
        }
    }

    /// Text's scalars are appended whether in runs of ASCII or one by one, and text with a
    /// scalar that is not narrow is refused.
    @Test func narrowTextAppendsItsScalars() {
        var generator = SplitMix64(seed: 29)
        let alphabet = Array("ab cZ.~ ·─●“”…→".unicodeScalars)
        let refused = Array("\u{7}\u{7F}電\u{301}\u{1F600}\u{200B}".unicodeScalars)
        for _ in 0..<2_000 {
            var scalars = (0..<Int.random(in: 0...30, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            let narrow = Bool.random(using: &generator)
            if !narrow {
                scalars.insert(
                    refused.randomElement(using: &generator)!, at: Int.random(in: 0...scalars.count, using: &generator))
            }
            var text = String.UnicodeScalarView()
            text.append(contentsOf: scalars)
            var appended: [UInt32] = [7]
            #expect(NarrowLine.append(String(text), to: &appended) == narrow, "\(String(text).debugDescription)")
            if narrow { #expect(appended == [7] + scalars.map(\.value)) }
        }
    }

    /// An event's line appended around the blank line's bytes is the line drawn cell by cell:
    /// random times, markers and texts (trailing spaces, bars covered, the last lane), at
    /// random columns and clips; nothing is appended when something would be clipped.
    @Test func anEventsLineWrittenAroundTheBlankIsTheLineDrawn() {
        var generator = SplitMix64(seed: 30)
        let alphabet: [UInt32] = [0x20, 0x20, 0x61, 0x5A, 0x2E, 0xB7, 0x2026, 0x2192, 0x2502, 0x25CF]
        func random(_ count: ClosedRange<Int>) -> [UInt32] {
            (0..<Int.random(in: count, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
        }
        var written = 0
        for _ in 0..<3_000 {
            let width = Int.random(in: 0...40, using: &generator)
            let bars = (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                Int.random(in: -1...(width + 1), using: &generator)
            }
            var line = NarrowLine(width: width, bars: bars)
            let time = random(0...6)
            let text = random(0...20)
            let marker = alphabet.randomElement(using: &generator)!
            let x = Int.random(in: -1...(width + 1), using: &generator)
            let low = Int.random(in: -2...(width + 1), using: &generator)
            let clip = low..<(low + Int.random(in: 0...(width + 2), using: &generator))
            var drawn: [UInt8] = [0x78]
            line.clear()
            line.put(time[...], at: 0)
            line.put(marker, at: x, clip: clip)
            line.put(text[...], at: x + 1, clip: clip)
            line.write(into: &drawn)
            var bytes: [UInt8] = [0x78]
            if line.writeEvent(time: time[...], marker: marker, text: text[...], at: x, clip: clip, into: &bytes) {
                #expect(bytes == drawn, "\(time) \(marker) \(text) at \(x) in \(clip), \(width) wide, bars \(bars)")
                written += 1
            } else {
                #expect(bytes == [0x78])
                #expect(
                    time.count > x || x < max(0, clip.lowerBound) || x + 1 + text.count > min(width, clip.upperBound))
            }
        }
        #expect(written > 100)
    }

    /// What ``writtenEventByEventIsTheWholeText(laneWidth:)`` compares: the header, then each
    /// event written into bytes.
    static func written(_ widget: TimelineWidget, laneWidth: Int) -> String {
        let labels = widget.arrows.map(\.label) + widget.lost.map { $0.label + " lost" }
        var printer = TimelineTextPrinter(
            lanes: widget.lanes, timeWidth: widget.timeWidth, laneWidth: laneWidth, labels: labels)
        var bytes = Array(printer.header().utf8)
        for (index, event) in widget.events.enumerated() {
            printer.write(
                event,
                arrows: widget.arrows.filter { $0.from == index }.map {
                    TimelineTextPrinter.Message(label: $0.label, toLane: widget.events[$0.to].lane)
                },
                lost: widget.lost.filter { $0.from == index }.map {
                    TimelineTextPrinter.Message(label: $0.label, toLane: $0.toLane)
                }, into: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
