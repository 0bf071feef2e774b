import Foundation
import HandoffCore

/// A ``Timeline`` read as a stream: the recordings merged in causal order one row at a time, each
/// row with the messages it sent and received, in memory bounded by a window of events per
/// recording rather than by the recordings' length (`handoff timeline` of a million events).
///
/// It is a k-way merge of one ``RecordingReader`` per recording. Each lane keeps up to ``window``
/// events read ahead for the first batch, and up to ``readAhead`` (one and a half windows unless
/// told more) for each batch after it; ``TimelineLayout`` orders and pairs the events read ahead (the same code
/// as for a whole timeline, told which lanes the whole timeline has and which events were already
/// received), and only the rows after which every lane still has half a window read ahead are
/// handed out. So the rows, arrows and lost messages are those of the whole timeline as long as
/// every message's receipt is within half a window of events of its send on the receiving lane,
/// and no lane records half a window of events between a receipt and the send before it that its
/// clock puts later (DECISIONS.md, issue 29). A recording that fits in the window is laid out
/// whole, exactly as ``Timeline/init(recordings:continuation:)`` lays it out.
package struct TimelineStream {
    /// An event of a lane, identified by its lane and line.
    package struct EventID: Sendable, Hashable {
        package var lane: Int
        package var line: Int

        package init(lane: Int, line: Int) {
            self.lane = lane
            self.line = line
        }
    }

    /// A message a row sent: its label, the lane it went to, and its receipt (nil: lost).
    package struct Sent: Sendable, Hashable {
        package var label: String
        package var toLane: Int
        package var receipt: EventID?

        package init(label: String, toLane: Int, receipt: EventID?) {
            self.label = label
            self.toLane = toLane
            self.receipt = receipt
        }
    }

    /// A message a row received: from which row (its index) and lane, and its label.
    package struct Received: Sendable, Hashable {
        package var from: Int
        package var fromLane: Int
        package var label: String

        package init(from: Int, fromLane: Int, label: String) {
            self.from = from
            self.fromLane = fromLane
            self.label = label
        }
    }

    /// One row of the timeline.
    package struct Row: Sendable {
        /// Its place in the timeline, from 0.
        package var index: Int
        package var lane: Int
        package var event: RecordedEvent
        /// The messages it sent, arrows first (in the order of their receipts), then those lost.
        package var sent: [Sent]
        /// The messages it received, in the order of their sends.
        package var received: [Received]

        package init(index: Int, lane: Int, event: RecordedEvent, sent: [Sent], received: [Received]) {
            self.index = index
            self.lane = lane
            self.event = event
            self.sent = sent
            self.received = received
        }

        package var id: EventID { EventID(lane: lane, line: event.line) }
        /// The messages it sent that arrived.
        package var arrows: [Sent] { sent.filter { $0.receipt != nil } }
        /// The messages it sent that no lane received.
        package var lost: [Sent] { sent.filter { $0.receipt == nil } }
    }

    /// Where a stream is between two batches: enough to go on from there, in the same way
    /// (``init(files:from:)``). Its size is bounded by the window, not by the recordings.
    package struct Checkpoint: Sendable {
        /// How many rows came before.
        package var rowsBefore: Int
        /// Where each lane's next event is.
        package var positions: [RecordingReader.Position]
        /// Receipts of messages sent before, not yet handed out.
        package var pending: [EventID: [Received]]
        fileprivate var lanesWithEvents: Set<Int>?
        fileprivate var laneOfDevice: [String: Int]
    }

    /// The events read ahead on each lane for the first batch, and half the events read ahead
    /// of every row handed out (a window of a million-event recording is some megabytes).
    package static let defaultWindow = 4096

    package let files: [String]
    package let lanes: [Timeline.Lane]
    package let window: Int
    /// The events each lane reads ahead for every batch after the first: a batch lays them out
    /// and hands out all but the last half window, so each event is laid out
    /// `readAhead / (readAhead - window / 2)` times (1.5 for a window and a half, what a page of
    /// the replay reads from its checkpoint; `--print`, which reads the whole timeline once,
    /// reads more ahead and lays out less).
    package let readAhead: Int
    private var readers: [RecordingReader]
    /// Each lane's events read ahead (``WindowEvent``s, which refer to the events of
    /// `bufferEvents` without holding them), the events, and where their lines are (kept apart:
    /// the layout reads the window's events as they are, without a copy of them each batch).
    private var buffers: [[WindowEvent]]
    private var bufferEvents: [[RecordedEvent]]
    private var bufferPositions: [[RecordingReader.Position]]
    private var ended: [Bool]
    /// The rows of the batch, each moved out as it is handed out (a copy was three references
    /// retained and released for each of millions of rows).
    private var ready: [Row?] = []
    private var readyIndex = 0
    private var pending: [EventID: [Received]] = [:]
    private var rowsBefore = 0
    /// Which lanes have events at all, and each device's lane (nil until the first batch).
    private var lanesWithEvents: Set<Int>?
    private var laneOfDevice: [String: Int] = [:]
    /// Whether the first batch was made (``firstBatch``).
    package private(set) var batches = 0

    /// Opens the recordings at `files` (one per device of one account) and reads their headers.
    /// Each batch after the first reads `readAhead` events ahead on each lane (at least, and by
    /// default, a window and a half).
    ///
    /// - Throws: ``RecordingError`` naming the file: unreadable, not a recording, another
    ///   account's, a device given twice.
    package init(files: [String], window: Int = defaultWindow, readAhead: Int = 0) throws(RecordingError) {
        self.files = files
        self.window = max(2, window)
        self.readAhead = max(readAhead, self.window + self.window / 2)
        var readers: [RecordingReader] = []
        for path in files {
            let reader = try RecordingReader(path: path)
            if let first = readers.first, first.header.account != reader.header.account {
                throw RecordingError(
                    file: path, line: 1,
                    reason:
                        "\(reader.header.device) is in account \(reader.header.account), but \(first.file) is in account \(first.header.account): a timeline shows one account's devices"
                )
            }
            if let same = readers.first(where: { $0.header.deviceID == reader.header.deviceID }) {
                throw RecordingError(
                    file: path, line: 1, reason: "\(reader.header.device) was already given (\(same.file))")
            }
            readers.append(reader)
        }
        self.readers = readers
        lanes = readers.map { Timeline.Lane(name: $0.header.device, kind: $0.header.deviceKind) }
        buffers = Array(repeating: [], count: readers.count)
        bufferEvents = Array(repeating: [], count: readers.count)
        bufferPositions = Array(repeating: [], count: readers.count)
        ended = Array(repeating: false, count: readers.count)
    }

    /// Opens the recordings again where `checkpoint` was taken: the rows that follow are the
    /// ones that followed it.
    package init(files: [String], from checkpoint: Checkpoint, window: Int = defaultWindow) throws(RecordingError) {
        self.files = files
        self.window = max(2, window)
        readAhead = self.window + self.window / 2
        var readers: [RecordingReader] = []
        for (path, position) in zip(files, checkpoint.positions) {
            readers.append(try RecordingReader(path: path, from: position))
        }
        self.readers = readers
        lanes = readers.map { Timeline.Lane(name: $0.header.device, kind: $0.header.deviceKind) }
        buffers = Array(repeating: [], count: readers.count)
        bufferEvents = Array(repeating: [], count: readers.count)
        bufferPositions = Array(repeating: [], count: readers.count)
        ended = Array(repeating: false, count: readers.count)
        pending = checkpoint.pending
        rowsBefore = checkpoint.rowsBefore
        lanesWithEvents = checkpoint.lanesWithEvents
        laneOfDevice = checkpoint.laneOfDevice
        batches = checkpoint.rowsBefore == 0 ? 0 : 1
    }

    /// Where the stream is, when it is between two batches (every row of the last batch handed
    /// out); nil in the middle of one.
    package var checkpoint: Checkpoint? {
        guard readyIndex == ready.count else { return nil }
        return Checkpoint(
            rowsBefore: rowsBefore,
            positions: readers.indices.map { bufferPositions[$0].first ?? readers[$0].position },
            pending: pending, lanesWithEvents: lanesWithEvents, laneOfDevice: laneOfDevice)
    }

    /// How many rows were handed out.
    package var rowsRead: Int { rowsBefore - (ready.count - readyIndex) }

    /// The next row; nil after the last.
    ///
    /// - Throws: ``RecordingError`` naming the file and the line of an event that cannot be read.
    package mutating func next() throws(RecordingError) -> Row? {
        if readyIndex == ready.count {
            guard try advance() else { return nil }
        }
        defer { readyIndex += 1 }
        return ready[readyIndex].take()
    }

    /// The rows of the first batch (every row, for recordings that fit in the window), without
    /// handing them out: what `--print` widens its lanes for.
    package mutating func firstBatch() throws(RecordingError) -> [Row] {
        if batches == 0 { _ = try advance() }
        return batches == 1 ? ready[readyIndex...].compactMap { $0 } : []
    }

    /// Reads ahead, lays out what was read, and makes the rows that are settled the next batch.
    private mutating func advance() throws(RecordingError) -> Bool {
        // The first batch reads a window ahead on each lane (its rows are what `--print` widens
        // its lanes for); later ones `readAhead`, at least one and a half, so that each event is
        // laid out at most about 1.5 times rather than twice. Either way every row handed out
        // has half a window read after it.
        let readAhead = batches == 0 ? window : self.readAhead
        for lane in bufferEvents.indices {
            // The window's events refer to these without holding them: they must be the same
            // events, one for one.
            precondition(
                bufferEvents[lane].count == buffers[lane].count,
                "TimelineStream: lane \(lane) holds \(bufferEvents[lane].count) events for \(buffers[lane].count) in its window"
            )
            assert(zip(buffers[lane], bufferEvents[lane]).allSatisfy { $0.refers(to: $1) })
        }
        for lane in readers.indices where !ended[lane] {
            while buffers[lane].count < readAhead {
                guard let next = try readers[lane].next() else {
                    ended[lane] = true
                    break
                }
                buffers[lane].append(WindowEvent(lane: lane, event: next.event))
                bufferEvents[lane].append(next.event)
                bufferPositions[lane].append(next.position)
            }
        }
        if lanesWithEvents == nil {
            let lanes = Set(buffers.indices.filter { !buffers[$0].isEmpty })
            lanesWithEvents = lanes
            for lane in lanes.sorted() where laneOfDevice[self.lanes[lane].name] == nil {
                laneOfDevice[self.lanes[lane].name] = lane
            }
        }
        // The rows handed out are dropped, their array kept for the next batch's.
        ready.removeAll(keepingCapacity: true)
        readyIndex = 0
        guard buffers.contains(where: { !$0.isEmpty }) else { return false }
        batches += 1
        let pending = self.pending
        let context = TimelineLayout.WindowContext<WindowEvent>(
            lanes: lanesWithEvents ?? [], laneOfDevice: laneOfDevice,
            isReceived: { pending[EventID(lane: $0.lane, line: $0.line)] != nil })
        let (rows, messages) = TimelineLayout.rowsAndMessages(buffers, among: context)
        // The settled rows: each leaves every lane still being read at least half a window ahead.
        var remaining = buffers.map(\.count)
        var settled = rows.count
        for index in rows.indices {
            let lane = rows[index].lane
            if !ended[lane], remaining[lane] - 1 < window / 2 {
                settled = index
                break
            }
            remaining[lane] -= 1
        }
        // The messages are in the order of the rows that sent them.
        var nextMessage = 0
        var taken = Array(repeating: 0, count: buffers.count)
        ready.reserveCapacity(settled)
        for index in 0..<settled {
            let lane = rows[index].lane
            let id = EventID(lane: lane, line: rows[index].event.line)
            var sent: [Sent] = []
            while nextMessage < messages.count, messages[nextMessage].from < index { nextMessage += 1 }
            while nextMessage < messages.count, messages[nextMessage].from == index {
                let message = messages[nextMessage]
                nextMessage += 1
                guard let to = message.to else {
                    sent.append(Sent(label: message.label, toLane: message.toLane, receipt: nil))
                    continue
                }
                // A receipt before its send: only in a hostile recording's cycle, and no arrow.
                guard to > index else { continue }
                let receipt = EventID(lane: rows[to].lane, line: rows[to].event.line)
                sent.append(Sent(label: message.label, toLane: message.toLane, receipt: receipt))
                self.pending[receipt, default: []].append(
                    Received(from: rowsBefore + index, fromLane: lane, label: message.label))
            }
            let received = self.pending.removeValue(forKey: id) ?? []
            // Each lane's rows come in its own order: this row's event is the lane's next.
            let event = bufferEvents[lane][taken[lane]]
            ready.append(Row(index: rowsBefore + index, lane: lane, event: event, sent: sent, received: received))
            taken[lane] += 1
        }
        // The rows' events are held by the rows now: the window lets them go.
        for lane in buffers.indices {
            buffers[lane].removeFirst(taken[lane])
            bufferEvents[lane].removeFirst(taken[lane])
            bufferPositions[lane].removeFirst(taken[lane])
        }
        rowsBefore += settled
        return true
    }

    /// An event of the window with its lane (what the layout pairs by), and its time, line and
    /// kind beside a reference to its values: a value, so that the window's events are one array
    /// that the layout's passes read in order (an object each was one more allocation an event,
    /// and the causal order compared times through two references, a cache miss each in a window
    /// of megabytes).
    ///
    /// The reference is not counted: a copy (the layout copies the window's events into its
    /// rows, some 1.5 times an event) retains and releases nothing, where each copy of a
    /// counted one was a retain and a release touching the event somewhere in megabytes. The
    /// stream holds the event itself (`bufferEvents`) for as long as a window event of it is
    /// used: within ``TimelineStream/advance()``, while the event is in the window.
    struct WindowEvent: TimelineEvent, Sendable {
        let lane: Int
        let time: Date
        let line: Int
        let timelineKind: LifecycleEvent.Kind?
        private unowned(unsafe) let values: RecordedEvent.Box

        /// Whether this refers to `event`'s values (the stream's check of its own bookkeeping).
        func refers(to event: RecordedEvent) -> Bool { values === event.box }

        /// `event` of `lane`, which the caller holds for as long as this is used.
        init(lane: Int, event: RecordedEvent) {
            self.lane = lane
            time = event.time
            line = event.line
            timelineKind = event.kind
            values = event.box
        }

        var device: String { values.values.device }
        var continuation: String? { values.values.continuation }
        var peer: String? { values.values.peer }

        func string(_ key: String) -> String? { values.values.string(key) }
        func integer(_ key: String) -> Int64? { values.values.integer(key) }
    }
}

extension TimelineStream {
    /// Every row of the timeline of `continuation` (an identifier or its first characters) and the
    /// beacon of its offer, with its arrows and lost messages: one continuation's rows, few
    /// whatever the recordings' length, held whole. The recordings are read twice: once for the
    /// beacons the continuation was chosen from, once for its rows.
    package static func timeline(
        files: [String], continuation: String, window: Int = defaultWindow
    )
        throws(RecordingError) -> Timeline
    {
        let wanted = continuation.lowercased()
        // The beacons: on the lane that chose it, the last offer from that peer before the choice.
        var beacons: Set<String> = []
        for path in files {
            let reader = try RecordingReader(path: path)
            var lastOffer: [String: String] = [:]
            while let (event, _) = try reader.next() {
                if event.kind == .offerReceived || event.kind == .offerUpdated, let peer = event.peer {
                    if let key = TimelineLayout.beaconKey(event) {
                        lastOffer[peer] = key
                    } else {
                        lastOffer[peer] = nil
                    }
                }
                if event.kind == .continueChosen, event.continuation?.hasPrefix(wanted) == true, let peer = event.peer,
                    let key = lastOffer[peer]
                {
                    beacons.insert(key)
                }
            }
        }
        var stream = try TimelineStream(files: files, window: window)
        var rows: [(lane: Int, event: RecordedEvent)] = []
        while let row = try stream.next() {
            if row.event.continuation?.hasPrefix(wanted) == true
                || TimelineLayout.beaconKey(row.event).map(beacons.contains) == true
            {
                rows.append((row.lane, row.event))
            }
        }
        return Timeline(lanes: stream.lanes, rows: rows)
    }
}
