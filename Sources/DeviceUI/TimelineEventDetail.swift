import Foundation
import HandoffCore

/// What the timeline's detail panel (``TimelineDetailPanel``) shows of the selected event: the
/// device's timeline (F9) builds it from a ``LifecycleEntry`` of its own or a peer's, the replay
/// (`handoff timeline FILE…`) from a recorded event read as one, each with the messages the
/// event sent and received as its own pairing found them. A value: the panel draws only it.
///
/// Every text in it came from somewhere else (a peer, a recording anyone may hand over), so it
/// is made safe for a terminal here, once (``TerminalText``).
package struct TimelineEventDetail: Sendable, Hashable {
    /// A message the event sent or received across the network, and what it paired with.
    package struct Message: Sendable, Hashable {
        package enum Direction: Sendable, Hashable {
            /// Sent, and received by the other device's event.
            case sent
            /// Received from the other device's event.
            case received
            /// Sent, and no receipt recorded on the other device's lane.
            case lost
        }

        package var direction: Direction
        /// What crossed ("payload 2.1 kB", "beacon #4").
        package var label: String
        /// The device at the other end, by name.
        package var device: String
        /// The kind of the event it paired with at the other end, when known.
        package var pairedKind: String?

        package init(_ direction: Direction, label: String, device: String, pairedKind: String? = nil) {
            self.direction = direction
            self.label = TerminalText.sanitized(label)
            self.device = TerminalText.sanitized(device)
            self.pairedKind = pairedKind.map { TerminalText.sanitized($0) }
        }

        /// "→ payload 2.1 kB to Phone (payloadReceived)", "← beacon #4 from Laptop (advertised)",
        /// "→ beacon #5 to Phone: lost".
        package var text: String {
            let paired = pairedKind.map { " (\($0))" } ?? ""
            return switch direction {
            case .sent: "→ \(label) to \(device)\(paired)"
            case .received: "← \(label) from \(device)\(paired)"
            case .lost: "→ \(label) to \(device): lost, no receipt recorded"
            }
        }
    }

    /// The error an event carries: its code, the constant's name and the reason, each as recorded.
    package struct Failure: Sendable, Hashable {
        package var code: Int64?
        package var name: String?
        package var reason: String?

        /// "4610 NSUserActivityRemoteApplicationTimedOutError".
        package var heading: String {
            [code.map { "\($0)" }, name].compactMap { $0 }.joined(separator: " ")
        }
    }

    /// One named value, as text.
    package struct Field: Sendable, Hashable {
        package var key: String
        package var value: String

        package init(_ key: String, _ value: String) {
            self.key = TerminalText.sanitized(key)
            self.value = TerminalText.sanitized(value)
        }
    }

    /// Nil for a kind this build does not know.
    package var kind: LifecycleEvent.Kind?
    package var kindName: String
    /// The device it happened on, by name.
    package var device: String
    /// Its time of day as recorded, to the millisecond ("06:13:16.799 UTC").
    package var time: String
    /// Its time against the continuation's start ("+0.050s after continueChosen"), when the
    /// screen knows it.
    package var offset: String?
    /// The continuation's identifier, whole.
    package var continuation: String?
    /// Measured facts: the size, the duration, a userInfo left out of what a peer shared.
    package var facts: [String]
    package var failure: Failure?
    /// What happened, in a few words (the log's summary), without the error it repeats.
    package var summary: String
    /// What Apple does at this step and why.
    package var explanation: String
    package var messages: [Message]
    /// The userInfo's keys and values, sorted by key; nil when the event carries none.
    package var userInfo: [Field]?
    /// Every other recorded field (the activity type, the peer's identifier, the route…),
    /// sorted by key.
    package var fields: [Field]

    /// The fields the panel shows in places of their own, not among ``fields``.
    static let shownKeys: Set<String> = [
        "time", "device", "kind", "detail", "explanation", "continuation", "size", "milliseconds", "userInfo",
        "userInfoOmitted", "errorCode", "error",
    ]

    /// The detail of `entry`, with the messages it sent and received and, when the screen knows
    /// it, its time against the continuation's start.
    package init(entry: LifecycleEntry, offset: String? = nil, messages: [Message]) {
        kind = entry.kind
        kindName = TerminalText.sanitized(entry.kindName)
        device = TerminalText.sanitized(entry.device)
        time = Self.clock(entry.string("time"))
        self.offset = offset
        continuation = entry.continuation.map { TerminalText.sanitized($0) }
        var facts: [String] = []
        if let size = entry.integer("size") { facts.append(ByteCount.text(Int(size))) }
        if let milliseconds = entry.double("milliseconds"), milliseconds.isFinite, abs(milliseconds) < 1e12 {
            facts.append("\(Int(milliseconds.rounded())) ms")
        }
        if let omitted = entry.integer("userInfoOmitted") {
            facts.append("userInfo of \(ByteCount.text(Int(omitted))) not shared")
        }
        self.facts = facts
        let code = entry.integer("errorCode")
        let hasError = code != nil || entry.string("error") != nil
        failure =
            hasError
            ? Failure(
                code: code, name: entry.string("error").map { TerminalText.sanitized($0) },
                reason: entry.string("reason").map { TerminalText.sanitized($0) }) : nil
        var summary = entry.detail
        if let failure, let reason = entry.string("reason") {
            // The summary repeats the error ("from Laptop: 4610 …: reason"); the panel shows
            // the error whole on lines of its own, so the summary keeps the rest.
            let described = "\(failure.heading): \(reason)"
            if let range = summary.range(of: ": " + described) ?? summary.range(of: described) {
                summary.removeSubrange(range)
            }
        }
        self.summary = TerminalText.sanitized(summary)
        explanation = TerminalText.sanitized(entry.explanation)
        self.messages = messages
        userInfo = entry.userInfo.map { info in
            info.keys.sorted().map { Field($0, info[$0].map { String(describing: $0) } ?? "") }
        }
        var fields: [Field] = []
        for field in entry.fields.sorted(by: { $0.key < $1.key }) where !Self.shownKeys.contains(field.key) {
            // The reason is the error's when there is one.
            if field.key == "reason", hasError { continue }
            fields.append(Field(field.key, Self.text(of: field.value)))
        }
        self.fields = fields
    }

    /// "06:13:16.799 UTC" from the recorded ISO 8601 time ("2026-11-24T06:13:16.799Z").
    static func clock(_ recorded: String?) -> String {
        guard let recorded else { return "" }
        let time = recorded.split(separator: "T", maxSplits: 1).last.map(String.init) ?? recorded
        return TerminalText.sanitized(time.hasSuffix("Z") ? String(time.dropLast()) + " UTC" : time)
    }

    static func text(of value: LifecycleField) -> String {
        switch value {
        case .string(let text): text
        case .integer(let number): "\(number)"
        case .double(let number): "\(number)"
        case .bool(let flag): flag ? "true" : "false"
        case .userInfo(let info): String(describing: info)
        }
    }
}
