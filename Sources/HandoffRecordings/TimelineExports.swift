import Foundation
import HandoffCore

// The timeline for tools outside this one: a Mermaid sequence diagram (for docs, slides and
// issues) and a Chrome/Perfetto trace (for a trace viewer). Both show the rows, arrows and lost
// messages of the same ``Timeline``, so `--continuation` picks the same events for every output.

extension Timeline {
    // MARK: Mermaid

    /// The kinds whose whole content is a message the diagram draws as an arrow; every other event
    /// (the app's callbacks, the system's steps, failures) is a note over its device.
    package static let messageKinds: Set<LifecycleEvent.Kind> = [
        .advertised, .offerReceived, .offerUpdated, .fetchStarted, .payloadRequested, .payloadSent, .payloadReceived,
    ]

    /// A Mermaid sequence diagram: a participant per device, a message for what crossed the network
    /// (at its send; `-x` for one lost), a note for every other event, in the timeline's order.
    package func mermaid() -> String {
        var lines = Self.mermaidHeader(lanes)
        let arrowsFrom = Dictionary(grouping: arrows, by: \.from)
        let lostFrom = Dictionary(grouping: lost, by: \.from)
        for (index, row) in rows.enumerated() {
            lines += Self.mermaidLines(
                lane: row.lane, event: row.event,
                arrows: (arrowsFrom[index] ?? []).map { (rows[$0.to].lane, $0.label) },
                lost: (lostFrom[index] ?? []).map { ($0.toLane, $0.label) })
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The diagram's first lines: its kind and a participant per lane.
    package static func mermaidHeader(_ lanes: [Lane]) -> [String] {
        var lines = ["sequenceDiagram"]
        for (lane, info) in lanes.enumerated() {
            lines.append("    participant D\(lane) as \(mermaidText("\(info.name) (\(info.kind))"))")
        }
        return lines
    }

    /// A row's lines: its note (unless it is a message's send), then a message for each arrow it
    /// sent and each message it sent that was lost (a stream writes them row by row).
    package static func mermaidLines(
        lane: Int, event: RecordedEvent, arrows: [(toLane: Int, label: String)], lost: [(toLane: Int, label: String)]
    ) -> [String] {
        var lines: [String] = []
        if !messageKinds.contains(event.kind) {
            lines.append("    Note over D\(lane): \(mermaidText("\(clock(event)) \(label(event))"))")
        }
        for arrow in arrows {
            lines.append("    D\(lane)->>D\(arrow.toLane): \(mermaidText(arrow.label))")
        }
        for message in lost {
            lines.append("    D\(lane)-xD\(message.toLane): \(mermaidText(message.label + " (lost)"))")
        }
        return lines
    }

    /// Text that Mermaid shows as it is: on one line, with the characters its grammar reads
    /// (`#` entities, `;` statement ends, `<` `>` tags, `%` comments, `:` separators) written as
    /// entities.
    static func mermaidText(_ text: String) -> String {
        mermaidASCIIText(text) ?? mermaidCharacterText(text)
    }

    /// ``mermaidText(_:)`` of any text, character by character.
    static func mermaidCharacterText(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "#": result += "#35;"
            case ";": result += "#59;"
            case "<": result += "#lt;"
            case ">": result += "#gt;"
            case "%": result += "#37;"
            case ":": result += "#58;"
            case "\n", "\r", "\t": result += " "
            default:
                if character.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) {
                    result.append(character)
                }
            }
        }
        let trimmed = result.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? "-" : trimmed
    }

    /// ``mermaidText(_:)`` of printable ASCII text, byte by byte (a Mermaid diagram of a million
    /// events writes a million notes); nil for any other text.
    static func mermaidASCIIText(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count + 16)
            for byte in bytes {
                guard byte >= 0x20, byte < 0x7F else { return nil }
                let entity: StaticString? =
                    switch byte {
                    case UInt8(ascii: "#"): "#35;"
                    case UInt8(ascii: ";"): "#59;"
                    case UInt8(ascii: "<"): "#lt;"
                    case UInt8(ascii: ">"): "#gt;"
                    case UInt8(ascii: "%"): "#37;"
                    case UInt8(ascii: ":"): "#58;"
                    default: nil
                    }
                if let entity {
                    entity.withUTF8Buffer { result.append(contentsOf: $0) }
                } else {
                    result.append(byte)
                }
            }
            // Spaces are the only ASCII whitespace left (tabs and line ends were refused).
            let first = result.firstIndex { $0 != 0x20 }
            guard let first, let last = result.lastIndex(where: { $0 != 0x20 }) else { return "-" }
            return String(decoding: result[first...last], as: UTF8.self)
        }
    }

    // MARK: Trace

    /// The phases of a continuation on the continuing device, each starting at the first of its
    /// kinds and lasting until the next phase (or the outcome).
    static let phases: [(name: String, starts: Set<LifecycleEvent.Kind>)] = [
        ("willContinue", [.willContinue, .sceneWillContinue]),
        ("fetch", [.fetchStarted]),
        ("continue", [.continueCalled, .sceneContinue]),
        ("restore", [.restoreUserActivityState]),
    ]
    /// What ends a continuation on the continuing device.
    static let outcomes: Set<LifecycleEvent.Kind> = [
        .continued, .notHandled, .continuationFailed, .sceneDidFailToContinue, .systemShowedError,
    ]

    /// The timeline as a Chrome/Perfetto trace (the Trace Event Format's JSON object form): a
    /// process per device and a thread per app (the system's own steps on thread 1), named by
    /// metadata events; every event a slice one microsecond long with its recorded fields (the
    /// userInfo, sizes) as args; a span per phase of each continuation (willContinue → fetch → continue →
    /// restore on the continuing device, serving the payload on the origin); a flow (`s`/`f`
    /// with one id) for each message that crossed the network, and a `lost` slice for each that
    /// did not arrive. Times are microseconds from the first event, moved later where a clock
    /// runs behind so that no receipt comes before its send, and so that a device's events are a
    /// microsecond apart at least (the recorded time is in the args).
    package func trace() -> String {
        var events: [JSONValue] = []
        // Tracks: (lane, app) → tid; 1 is the system's.
        var tids: [Int: [String: Int]] = [:]
        func tid(_ lane: Int, _ app: String?) -> Int {
            guard let app else { return 1 }
            if let known = tids[lane]?[app] { return known }
            let next = (tids[lane]?.count ?? 0) + 2
            tids[lane, default: [:]][app] = next
            return next
        }
        // Each row's app track: its own app, or the app of its continuation on that lane.
        var appOfContinuation: [String: String] = [:]
        for row in rows {
            if let id = row.event.continuation, let app = row.event.string("bundleIdentifier") {
                appOfContinuation["\(row.lane)|\(id)"] = appOfContinuation["\(row.lane)|\(id)"] ?? app
            }
        }
        let trackOf: [Int] = rows.map { row in
            tid(
                row.lane,
                row.event.string("bundleIdentifier")
                    ?? row.event.continuation.flatMap { appOfContinuation["\(row.lane)|\($0)"] })
        }
        // Timestamps: causal (a receipt after its send) and one microsecond apart on each device at
        // least, so that every event is a slice of its own, one microsecond long, that a flow binds
        // to (events recorded in one millisecond would otherwise share a time, and a flow would bind
        // to whichever of them a viewer picks).
        let origin = rows.map(\.event.time).min() ?? Date(timeIntervalSince1970: 0)
        let sendOf = Dictionary(arrows.map { ($0.to, $0.from) }, uniquingKeysWith: { first, _ in first })
        var ts = [Int](repeating: 0, count: rows.count)
        var lastOnLane: [Int: Int] = [:]
        for (index, row) in rows.enumerated() {
            var value = max(0, Int((row.event.time.timeIntervalSince(origin) * 1_000_000).rounded()))
            if let last = lastOnLane[row.lane] { value = max(value, last + 1) }
            if let send = sendOf[index], send < index { value = max(value, ts[send] + 1) }
            ts[index] = value
            lastOnLane[row.lane] = value
        }
        // Names.
        for (lane, info) in lanes.enumerated() {
            events.append(Self.metadata("process_name", pid: lane + 1, tid: 0, name: "\(info.name) (\(info.kind))"))
            events.append(Self.metadata("process_sort_index", pid: lane + 1, tid: 0, index: lane))
            events.append(Self.metadata("thread_name", pid: lane + 1, tid: 1, name: "system"))
            for (app, number) in (tids[lane] ?? [:]).sorted(by: { $0.value < $1.value }) {
                events.append(Self.metadata("thread_name", pid: lane + 1, tid: number, name: app))
            }
        }
        // The events, each followed by the flows it starts or ends; sorted by time with a phase's
        // span before the events it holds, so that every track's times never go back.
        var timed: [(ts: Int, order: Int, event: JSONValue)] = []
        var flowID = [Int: Int]()
        for (number, arrow) in arrows.enumerated() { flowID[arrow.from * 1_000_003 + arrow.to] = number + 1 }
        let arrowsFrom = Dictionary(grouping: arrows, by: \.from)
        let arrowsTo = Dictionary(grouping: arrows, by: \.to)
        let lostFrom = Dictionary(grouping: lost, by: \.from)
        for (index, row) in rows.enumerated() {
            let pid = row.lane + 1
            let thread = trackOf[index]
            var args: [String: JSONValue] = [:]
            for (key, value) in row.event.fields where !["kind", "device", "time", "explanation"].contains(key) {
                args[key] = value
            }
            args["recordedTime"] = .string(row.event.timeText)
            timed.append(
                (
                    ts[index], 1,
                    .object([
                        "name": .string(row.event.kind.rawValue),
                        "cat": .string("lifecycle,\(TimelineTone(row.event.kind).rawValue)"),
                        "ph": "X", "ts": .integer(Int64(ts[index])), "dur": 1, "pid": .integer(Int64(pid)),
                        "tid": .integer(Int64(thread)), "args": .object(args),
                    ])
                ))
            for arrow in arrowsTo[index] ?? [] {
                let id = flowID[arrow.from * 1_000_003 + arrow.to] ?? 0
                timed.append(
                    (ts[index], 2, Self.flow("f", id: id, label: arrow.label, ts: ts[index], pid: pid, tid: thread)))
            }
            for arrow in arrowsFrom[index] ?? [] {
                let id = flowID[arrow.from * 1_000_003 + arrow.to] ?? 0
                timed.append(
                    (ts[index], 2, Self.flow("s", id: id, label: arrow.label, ts: ts[index], pid: pid, tid: thread)))
            }
            for message in lostFrom[index] ?? [] {
                timed.append(
                    (
                        ts[index], 1,
                        .object([
                            "name": .string("\(message.label) lost"), "cat": "network,lost", "ph": "X",
                            "ts": .integer(Int64(ts[index])), "dur": 1, "pid": .integer(Int64(pid)),
                            "tid": .integer(Int64(thread)),
                            "args": ["sentTo": .string(lanes[message.toLane].name), "received": false],
                        ])
                    ))
            }
        }
        timed += phaseSpans(ts: ts, trackOf: trackOf).map { (ts: $0.ts, order: 0, event: $0.event) }
        events += timed.enumerated().sorted { a, b in
            (a.element.ts, a.element.order, a.offset) < (b.element.ts, b.element.order, b.offset)
        }.map(\.element.event)
        let trace: JSONValue = .object([
            "traceEvents": .array(events), "displayTimeUnit": "ms",
            "otherData": [
                "generator": "handoff timeline", "devices": .array(lanes.map { .string($0.name) }),
                "start": .string(rows.first.map(\.event.timeText) ?? ""),
            ],
        ])
        return trace.jsonText + "\n"
    }

    /// The spans of each continuation's phases, on the app tracks of the devices it ran on.
    func phaseSpans(ts: [Int], trackOf: [Int]) -> [(ts: Int, event: JSONValue)] {
        var spans: [(ts: Int, event: JSONValue)] = []
        var byContinuation: [String: [Int]] = [:]
        for (index, row) in rows.enumerated() {
            if let id = row.event.continuation { byContinuation["\(row.lane)|\(id)", default: []].append(index) }
        }
        for indices in byContinuation.values {
            guard let first = indices.first, let id = rows[first].event.continuation else { continue }
            let lane = rows[first].lane
            func span(_ name: String, from start: Int, to end: Int, thread: Int) {
                spans.append(
                    (
                        ts[start],
                        .object([
                            "name": .string(name), "cat": "phase", "ph": "X", "ts": .integer(Int64(ts[start])),
                            "dur": .integer(Int64(max(0, ts[end] - ts[start]))), "pid": .integer(Int64(lane + 1)),
                            "tid": .integer(Int64(thread)),
                            "args": [
                                "continuation": .string(id), "from": .string(rows[start].event.kind.rawValue),
                                "to": .string(rows[end].event.kind.rawValue),
                            ],
                        ])
                    ))
            }
            // The continuing device: its phases, in order, each to the next one's start.
            let outcome = indices.first { Self.outcomes.contains(rows[$0].event.kind) } ?? indices.last ?? first
            var starts: [(name: String, index: Int)] = []
            for phase in Self.phases {
                if let start = indices.first(where: { phase.starts.contains(rows[$0].event.kind) }),
                    start <= outcome, starts.last.map({ $0.index <= start }) ?? true
                {
                    starts.append((phase.name, start))
                }
            }
            for (number, start) in starts.enumerated() {
                let end = number + 1 < starts.count ? starts[number + 1].index : outcome
                span(start.name, from: start.index, to: end, thread: trackOf[start.index])
            }
            // The origin: serving the payload, from the request to the payload (or its refusal).
            if let request = indices.first(where: { rows[$0].event.kind == .payloadRequested }) {
                let end =
                    indices.first {
                        $0 > request
                            && [LifecycleEvent.Kind.payloadSent, .payloadRefused].contains(rows[$0].event.kind)
                    }
                    ?? request
                span("serve payload", from: request, to: end, thread: trackOf[request])
            }
        }
        return spans
    }

    static func metadata(_ name: String, pid: Int, tid: Int, name value: String) -> JSONValue {
        .object([
            "name": .string(name), "ph": "M", "pid": .integer(Int64(pid)), "tid": .integer(Int64(tid)),
            "args": ["name": .string(value)],
        ])
    }

    static func metadata(_ name: String, pid: Int, tid: Int, index: Int) -> JSONValue {
        .object([
            "name": .string(name), "ph": "M", "pid": .integer(Int64(pid)), "tid": .integer(Int64(tid)),
            "args": ["sort_index": .integer(Int64(index))],
        ])
    }

    static func flow(_ phase: String, id: Int, label: String, ts: Int, pid: Int, tid: Int) -> JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(label), "cat": "network", "ph": .string(phase), "id": .integer(Int64(id)),
            "ts": .integer(Int64(ts)), "pid": .integer(Int64(pid)), "tid": .integer(Int64(tid)),
        ]
        // The end binds to the slice it arrives at (the receipt), not to the next one.
        if phase == "f" { object["bp"] = "e" }
        return .object(object)
    }
}
