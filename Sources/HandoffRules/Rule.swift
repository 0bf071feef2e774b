import Foundation
import HandoffCore

/// One device's typed lifecycle, in the order it was recorded.
package struct DeviceHistory: Sendable {
    /// The device's name.
    package var device: String
    /// The account the device is signed in to, when known.
    package var account: String?
    /// The device's identifier, when known (a recording's header says it): a peer named in
    /// another history is matched by it first, by name otherwise.
    package var deviceID: DeviceID?
    package var events: [LifecycleEvent]

    package init(device: String, account: String?, deviceID: DeviceID? = nil, events: [LifecycleEvent]) {
        self.device = device
        self.account = account
        self.deviceID = deviceID
        self.events = events
    }
}

/// One of Apple's observable rules of Handoff, as the rule book states it.
package struct Rule: Sendable, Hashable, Identifiable {
    /// A short, stable identifier, e.g. `only-current-offered`.
    package let id: String
    /// The rule in one sentence.
    package let sentence: String
    /// Where Apple says so: a seed file and its section, or an Apple page.
    package let source: String

    package init(id: String, sentence: String, source: String) {
        self.id = id
        self.sentence = sentence
        self.source = source
    }
}

/// One event of one device's history, where it stands in that history.
package struct HistoryPoint: Sendable, Hashable {
    /// The device's name.
    package let device: String
    /// The event's position in the device's history (0-based).
    package let index: Int
    package let event: LifecycleEvent

    package init(device: String, index: Int, event: LifecycleEvent) {
        self.device = device
        self.index = index
        self.event = event
    }
}

/// A history that breaks a rule: the rule, the fewest events that show it, and what happened.
package struct Violation: Sendable {
    package let rule: Rule
    /// The events that show the violation, in order (by time, then by device and position).
    package let slice: [HistoryPoint]
    /// What happened, naming devices by name.
    package let detail: String

    package init(rule: Rule, slice: [HistoryPoint], detail: String) {
        self.rule = rule
        self.slice = slice.sorted { a, b in
            if a.event.time != b.event.time { return a.event.time < b.event.time }
            if a.device != b.device { return a.device < b.device }
            return a.index < b.index
        }
        self.detail = detail
    }
}

extension Violation: CustomStringConvertible {
    /// The rule, its source, what happened and the slice, one event a line.
    package var description: String {
        var lines = ["\(rule.id): \(rule.sentence)", "  source: \(rule.source)", "  \(detail)"]
        for point in slice {
            lines.append(
                "  \(point.device) #\(point.index + 1) \(LifecycleEvent.timestamp(point.event.time)) \(point.event.logLine)"
            )
        }
        return lines.joined(separator: "\n")
    }
}
