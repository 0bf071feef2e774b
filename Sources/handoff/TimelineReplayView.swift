import CursesTerminal
import DeviceUI
import Foundation
import HandoffCore
import HandoffRecordings
import TerminalCells

/// `handoff timeline FILE…` on a terminal: the recorded timeline replayed event by event, two
/// (or more) lanes with the arrows of what crossed the network (DeviceUI's ``TimelineWidget``),
/// and the shown event's detail (DeviceUI's ``TimelineDetailPanel``), both as on the device's
/// F9. Draws only what it is given: the timeline, its lanes and where the replay is.
struct TimelineReplayView {
    let lanes: [Timeline.Lane]
    /// The rows around the shown event (every row, for a timeline that fits in a page).
    let page: TimelineReplayPage
    let replay: TimelineReplay
    /// Whether every row has been found (a long timeline is read while it is replayed).
    var isComplete = true

    /// The width of the time column.
    static let timeWidth = 13

    /// The keys, for the bottom line.
    static let hints: [(keys: String, action: String)] = [
        ("→", "step"), ("←", "back"), ("Space", "play/pause"), ("PgUp PgDn", "page"), ("Home End", "first/last"),
        ("q", "quit"), ("d", "more detail"),
    ]

    func render(size: Size) -> Grid {
        var grid = Grid(size: size)
        guard size.width >= 40, size.height >= 10 else {
            grid.put(
                TextWidth.truncate(
                    "handoff timeline: the terminal is too small (need 40x10) · q quits", to: size.width),
                at: Point(x: 0, y: 0), style: Style(.warning))
            return grid
        }
        let bounds = Rect(x: 0, y: 0, width: size.width, height: size.height)
        let (title, rest) = bounds.splitTop(1)
        let (body, footer) = rest.splitBottom(1)
        drawTitle(into: &grid, area: title)
        drawFooter(into: &grid, area: footer)
        // Wide terminals: the detail beside the diagram; otherwise below it, as on F9.
        let beside = TimelineDetailPanel.isWide(size)
        let (diagram, detail) = TimelineDetailPanel.split(body, beside: beside)
        var lanes = page.widget(lanes: self.lanes)
        lanes.selected = replay.selected.map { $0 - page.start }
        lanes.drawnCount = max(0, replay.played - page.start)
        lanes.render(in: diagram, into: &grid)
        TimelineDetailPanel(
            detail: replay.selected.flatMap { page.row($0) }.flatMap {
                Self.detail(of: $0, page: page, lanes: self.lanes)
            },
            page: replay.detailPage, moreKey: "d", isBeside: beside
        ).render(in: detail, into: &grid)
        return grid
    }

    // MARK: Title and keys

    func drawTitle(into grid: inout Grid, area: Rect) {
        grid.fill(area, style: Style(.statusBar))
        let names = lanes.map(\.name).joined(separator: " ↔ ")
        let position =
            replay.eventCount == 0
            ? (isComplete ? "no events" : "reading…")
            : "event \(replay.played) of \(replay.eventCount)\(isComplete ? "" : "+ (reading…)")"
        let state = replay.isPlaying ? "▶ playing" : (replay.isAtEnd ? "■ end" : "⏸ paused")
        let text = " handoff timeline · \(names) · \(position) · \(state)"
        grid.put(TextWidth.truncate(text, to: area.width), at: area.origin, style: Style(.statusBar), clip: area)
    }

    func drawFooter(into grid: inout Grid, area: Rect) {
        var x = area.x + 1
        for (index, hint) in Self.hints.enumerated() {
            let cost = TextWidth.of(hint.keys) + 1 + TextWidth.of(hint.action) + (index == 0 ? 0 : 2)
            guard x + cost <= area.maxX else { break }
            if index > 0 { x = grid.put("  ", at: Point(x: x, y: area.y), clip: area) }
            x = grid.put(hint.keys, at: Point(x: x, y: area.y), style: Style(.accent), clip: area)
            x = grid.put(" " + hint.action, at: Point(x: x, y: area.y), style: Style(.dim), clip: area)
        }
    }

    // MARK: The lanes

    /// The timeline's lanes, named with their device's kind, times as the recordings' clocks.
    /// Recordings are files anyone may hand over: what they say is drawn with its control and
    /// invisible characters shown as code points (`\u{1b}`), never acting and never dropped unseen.
    static func lanes(of timeline: Timeline) -> TimelineWidget {
        TimelineWidget(
            lanes: laneNames(timeline.lanes),
            events: timeline.rows.map { widgetEvent(lane: $0.lane, event: $0.event) },
            arrows: timeline.arrows, lost: timeline.lost, timeWidth: timeWidth,
            emptyText: "These recordings hold no events.")
    }

    /// The lanes' names as drawn: each device with its kind, sanitized.
    static func laneNames(_ lanes: [Timeline.Lane]) -> [TimelineWidget.Lane] {
        lanes.map { TimelineWidget.Lane(name: TerminalText.sanitized("\($0.name) (\($0.kind))")) }
    }

    /// An event as the lanes draw it: its time as the recording's clock, its kind and its detail
    /// (sanitized).
    static func widgetEvent(lane: Int, event: RecordedEvent) -> TimelineWidget.Event {
        widgetEvent(lane: lane, event: event, detail: TerminalText.sanitized(event.detail))
    }

    /// ``widgetEvent(lane:event:)`` with the detail `detail` (`--print` gives the printer the
    /// recorded detail's bytes instead, and an empty one here).
    static func widgetEvent(lane: Int, event: RecordedEvent, detail: String) -> TimelineWidget.Event {
        TimelineWidget.Event(
            lane: lane, time: clock(event.time), kind: event.kind, kindName: event.kind.rawValue, detail: detail)
    }

    // MARK: The detail

    /// The detail panel's value for `row`: the recorded event, and what it received and sent
    /// across the network, each with the event it paired with when the page holds it.
    static func detail(
        of row: TimelineStream.Row, page: TimelineReplayPage, lanes: [Timeline.Lane]
    ) -> TimelineEventDetail? {
        guard let entry = row.event.entry else { return nil }
        func name(_ lane: Int) -> String { lane < lanes.count ? lanes[lane].name : "lane \(lane + 1)" }
        var messages: [TimelineEventDetail.Message] = row.received.map { received in
            TimelineEventDetail.Message(
                .received, label: received.label, device: name(received.fromLane),
                pairedKind: page.row(received.from)?.event.kind.rawValue)
        }
        for sent in row.sent {
            if let receipt = sent.receipt {
                let paired = page.rows.first { $0.id == receipt }
                messages.append(
                    TimelineEventDetail.Message(
                        .sent, label: sent.label, device: name(sent.toLane), pairedKind: paired?.event.kind.rawValue))
            } else {
                messages.append(TimelineEventDetail.Message(.lost, label: sent.label, device: name(sent.toLane)))
            }
        }
        return TimelineEventDetail(entry: entry, messages: messages)
    }

    // MARK: Helpers

    /// HH:mm:ss.SSS in UTC, as recordings write their times.
    static func clock(_ date: Date) -> String {
        RecordingReader.clock(date)
    }

    /// What a key does in the replay; nil for keys it does not use.
    static func command(for key: Key) -> TimelineReplay.Command? {
        switch key {
        case .right, .down, .character("n"), .character("j"), .enter: .step
        case .left, .up, .character("p"), .character("k"), .backspace: .back
        case .pageDown: .pageForward
        case .pageUp: .pageBack
        case .home, .character("g"): .start
        case .end, .character("G"): .end
        case .character(" "): .togglePlay
        case .character("d"), .tab: .moreDetail
        default: nil
        }
    }

    static func isQuit(_ key: Key) -> Bool {
        key == .character("q") || key == .escape || key == .control("q") || key == .control("c")
    }
}

/// The rows the replay shows around its event: a page of a long timeline, read again from the
/// index, or every row of a short one.
struct TimelineReplayPage {
    /// The index of the first row.
    var start: Int
    var rows: [TimelineStream.Row]
    /// Whether it holds every row of the timeline.
    var isWhole: Bool
    /// Whether its last row is the timeline's.
    var reachesEnd = true

    var end: Int { start + rows.count }

    func row(_ index: Int) -> TimelineStream.Row? {
        index >= start && index < end ? rows[index - start] : nil
    }

    /// The lanes' widget of the page: its events, and the arrows and lost messages between them.
    func widget(lanes: [Timeline.Lane]) -> TimelineWidget {
        var local: [TimelineStream.EventID: Int] = [:]
        for (offset, row) in rows.enumerated() { local[row.id] = offset }
        var arrows: [TimelineArrow] = []
        var lost: [TimelineLostMessage] = []
        for (offset, row) in rows.enumerated() {
            for sent in row.sent {
                if let receipt = sent.receipt {
                    if let to = local[receipt] { arrows.append(TimelineArrow(from: offset, to: to, label: sent.label)) }
                } else {
                    lost.append(TimelineLostMessage(from: offset, toLane: sent.toLane, label: sent.label))
                }
            }
        }
        var widget = TimelineWidget(
            lanes: TimelineReplayView.laneNames(lanes),
            events: rows.map { TimelineReplayView.widgetEvent(lane: $0.lane, event: $0.event) },
            arrows: arrows, lost: lost, timeWidth: TimelineReplayView.timeWidth,
            emptyText: "These recordings hold no events.")
        widget.showsPosition = isWhole
        return widget
    }
}

/// Where the replay's rows come from: one continuation's timeline, held whole, or the index of
/// a long one (``TimelineIndex``), read a page at a time while the index is built.
final class TimelineReplaySource {
    let lanes: [Timeline.Lane]
    private let whole: [TimelineStream.Row]?
    private let index: TimelineIndex?
    private var cached: TimelineReplayPage?

    init(timeline: Timeline) {
        lanes = timeline.lanes
        index = nil
        var received: [Int: [TimelineStream.Received]] = [:]
        var sent: [Int: [TimelineStream.Sent]] = [:]
        for arrow in timeline.arrows {
            let to = timeline.rows[arrow.to]
            sent[arrow.from, default: []].append(
                TimelineStream.Sent(
                    label: arrow.label, toLane: to.lane,
                    receipt: TimelineStream.EventID(lane: to.lane, line: to.event.line)))
            received[arrow.to, default: []].append(
                TimelineStream.Received(from: arrow.from, fromLane: timeline.rows[arrow.from].lane, label: arrow.label))
        }
        for message in timeline.lost {
            sent[message.from, default: []].append(
                TimelineStream.Sent(label: message.label, toLane: message.toLane, receipt: nil))
        }
        whole = timeline.rows.enumerated().map { index, row in
            TimelineStream.Row(
                index: index, lane: row.lane, event: row.event, sent: sent[index] ?? [],
                received: received[index] ?? [])
        }
    }

    init(index: TimelineIndex) {
        lanes = index.lanes
        self.index = index
        whole = nil
        Thread.detachNewThread { index.build() }
    }

    /// How many rows are known, whether that is all of them, and why reading stopped early.
    var progress: TimelineIndex.Progress {
        if let whole { return TimelineIndex.Progress(rows: whole.count, isComplete: true) }
        return index?.progress ?? TimelineIndex.Progress(rows: 0, isComplete: true)
    }

    /// The rows around `selected` (as many before it as `height` lines could show and as many
    /// after), kept until the selection comes near its edges.
    func page(around selected: Int, height: Int) throws(RecordingError) -> TimelineReplayPage {
        if let whole { return TimelineReplayPage(start: 0, rows: whole, isWhole: true) }
        guard let index else { return TimelineReplayPage(start: 0, rows: [], isWhole: true) }
        let margin = max(height, 24)
        if let cached, selected >= cached.start, selected < cached.end,
            selected - cached.start >= margin || cached.start == 0,
            cached.end - selected > margin || cached.reachesEnd
        {
            return cached
        }
        let start = max(0, selected - 3 * margin)
        let end = selected + 3 * margin + 1
        let rows = try index.rows(start..<end)
        var page = TimelineReplayPage(start: start, rows: rows, isWhole: start == 0 && rows.count < end)
        page.reachesEnd = rows.count < end - start
        cached = page
        return page
    }
}

/// The replay's terminal loop: draws, waits for a key (or the play interval, or more of a long
/// timeline read), applies it.
enum TimelineReplayTerminal {
    static func run(_ source: TimelineReplaySource) throws {
        // The first page before the terminal opens: a recording that cannot be read from its
        // start is one line on standard error, as for --print.
        var progress = source.progress
        var page = try source.page(around: 0, height: 24)
        try CursesTerminal.withTerminal { terminal in
            let runLoop = try TerminalRunLoop(terminal: terminal)
            var replay = TimelineReplay(eventCount: max(progress.rows, page.rows.count))
            var nextTick: ContinuousClock.Instant?
            // End was asked for while the timeline was still being read: stay at its end.
            var followsEnd = false
            while true {
                progress = source.progress
                if let error = progress.error { throw error }
                replay.extend(to: progress.rows)
                if followsEnd { replay.apply(.end) }
                if let selected = replay.selected {
                    page = try source.page(around: selected, height: terminal.size.height)
                }
                var view = TimelineReplayView(lanes: source.lanes, page: page, replay: replay)
                view.isComplete = progress.isComplete
                terminal.draw(view.render(size: terminal.size))
                if replay.isPlaying, nextTick == nil {
                    nextTick = ContinuousClock.now + .milliseconds(Int(TimelineReplay.playInterval * 1000))
                }
                if !replay.isPlaying { nextTick = nil }
                let refresh = progress.isComplete ? nil : ContinuousClock.now + .milliseconds(200)
                let until = [nextTick, refresh].compactMap { $0 }.min()
                switch runLoop.nextEvent(until: until) {
                case .key(.control("l")):
                    terminal.redrawAll()
                case .key(let key):
                    if TimelineReplayView.isQuit(key) { return }
                    if let command = TimelineReplayView.command(for: key) {
                        replay.apply(command)
                        // Turning the detail's page neither stops following the end nor the play.
                        if command != .moreDetail {
                            followsEnd = command == .end && !progress.isComplete
                            nextTick = nil
                        }
                    }
                case .deadline:
                    if let tick = nextTick, ContinuousClock.now >= tick {
                        replay.apply(.tick)
                        nextTick = nil
                    }
                case .signal:
                    return
                case .resize, .wake, .resumed:
                    break
                }
            }
        }
    }
}
