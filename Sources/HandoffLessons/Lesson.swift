import Foundation
import HandoffCore

/// One lesson of `handoff learn`: what the learner does on the two devices of a demo, and the goal
/// that says they did it, as a predicate over the typed lifecycle of both devices (never a key
/// sequence: any way of getting there counts).
///
/// Lessons are data (`demos/lessons/NN-name.json`, read by ``LessonFile``), so a teacher can copy
/// and edit them; docs/lessons.md gives the format.
package struct Lesson: Sendable, Hashable {
    /// The position in the course (from the file name's number).
    package var number: Int
    /// The file it was read from, for messages.
    package var file: String
    package var title: String
    /// The demo story the lesson runs on (`handoff demo STORY`).
    package var story: String
    /// The goal in one line (all that shows at 80x24).
    package var goal: String
    /// The lesson's text, a paragraph an element.
    package var text: [String]
    /// The Apple API the lesson teaches, e.g. `NSUserActivity.needsSave`.
    package var teaches: String
    /// The rule of the rule book it shows (docs/rules.md), if one.
    package var rule: String?
    /// Where Apple says what the lesson teaches (a document of Apple's and its section).
    package var source: String?
    /// What to try when the goal is not met after ``hintAfter`` seconds.
    package var hint: String
    package var hintAfter: TimeInterval
    /// What must happen, in this order (across both devices, by time).
    package var steps: [EventPattern]
    /// What must not happen before the goal is met (a wrong way to get there).
    package var unless: [EventPattern]
    /// A way to meet the goal, as scenario steps (headless commands, waits) on devices named
    /// "Laptop" and "Phone": the lesson's test plays it and expects the goal met.
    package var solution: [JSONValue]
    /// A plausible mistake, as scenario steps: the lesson's test plays it and expects the goal not met.
    package var mistake: [JSONValue]
}

/// An event a goal waits for: on which device, of which kind (or of any of several kinds), with
/// which field values.
package struct EventPattern: Sendable, Hashable, CustomStringConvertible {
    /// Which device: by kind, as a demo names them ("Laptop 1"), or any.
    package enum Device: String, Sendable, Hashable, CaseIterable {
        case laptop, phone, tablet, any

        func matches(_ name: String) -> Bool {
            self == .any || name.lowercased().hasPrefix(rawValue)
        }
    }

    /// The kinds of event that match (any of them): one, or the same step by several paths (the
    /// app delegate's `willContinue` and a scene's `sceneWillContinue`).
    package var kinds: [LifecycleEvent.Kind]
    package var device: Device
    /// Field values the event must have (the fields of the headless JSON and of recordings); a
    /// key `userInfo.KEY` (or `userInfo.KEY.SUBKEY`) is a value inside the event's userInfo.
    package var fields: [String: JSONValue]

    /// The first of ``kinds``.
    package var kind: LifecycleEvent.Kind { kinds[0] }

    package init(device: Device, kind: LifecycleEvent.Kind, fields: [String: JSONValue] = [:]) {
        self.init(device: device, kinds: [kind], fields: fields)
    }

    /// - Precondition: `kinds` is not empty.
    package init(device: Device, kinds: [LifecycleEvent.Kind], fields: [String: JSONValue] = [:]) {
        precondition(!kinds.isEmpty, "an event pattern needs a kind")
        self.device = device
        self.kinds = kinds
        self.fields = fields
    }

    /// The prefix of a field key that looks inside the event's userInfo.
    package static let userInfoPrefix = "userInfo."

    /// Every field a recorded event can have (`LifecycleEvent.fields`, the headless JSON and the
    /// recordings; docs/headless.md lists each kind's): a goal's field is one of them or a
    /// ``userInfoPrefix`` key, else the file is refused.
    package static let knownFields: Set<String> = [
        "activity", "activityType", "advertiser", "advertisingStopsAfter", "appShowsProgress",
        "applicationIdentifier", "approved", "bundleIdentifier", "changedAt", "checkedAt", "continuable",
        "continuation", "detail", "device", "domain", "eligible", "error", "errorCode", "expected", "expiresAt",
        "explanation", "fault", "file", "guidance", "handoffUserActivityType", "host", "keptAnswer",
        "keptAnswerApproving", "keptAnswerBytes", "keptAnswerDetail", "keptAnswerSeconds", "keptAnswerStatus", "kind",
        "lastSaved", "launch", "milliseconds", "next", "notHandled", "notHandledKind", "notHandledScene", "objects",
        "outcome", "outcomeApproving", "outcomeBytes", "outcomeDetail", "outcomeSeconds", "outcomeStatus", "outcomes",
        "peer", "peerID", "phase", "phaseActivityType", "phaseApp", "phaseBytes", "phaseLaunch", "phaseObjects",
        "phasePeer", "reason", "refusals", "reopened", "responders", "route", "routeActivityType", "routeApp",
        "routeKind", "saveReason", "scene", "sceneDelegateClass", "sceneProblem", "serial", "side", "size", "time",
        "timeout", "title", "typeHash", "unavailable", "unavailableApps", "unavailableKind", "userInfo",
    ]

    /// The kinds of event that carry a userInfo (what ``userInfoPrefix`` keys can look into).
    package static let kindsWithUserInfo: Set<LifecycleEvent.Kind> = [
        .saved, .payloadReceived, .payloadSent, .restoreUserActivityState,
    ]

    /// Whether `event`, recorded by the device named `device`, is one this pattern waits for.
    package func matches(_ event: LifecycleEvent, on deviceName: String) -> Bool {
        guard kinds.contains(event.kind), device.matches(deviceName) else { return false }
        guard !fields.isEmpty else { return true }
        let values = Dictionary(event.fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        for (key, wanted) in fields {
            if key.hasPrefix(Self.userInfoPrefix) {
                let path = key.dropFirst(Self.userInfoPrefix.count).split(separator: ".").map(String.init)
                guard case .userInfo(let info)? = values["userInfo"], let value = Self.value(at: path, in: info),
                    Self.equal(value, wanted)
                else { return false }
                continue
            }
            guard let value = values[key], Self.equal(value, wanted) else { return false }
        }
        return true
    }

    static func equal(_ field: LifecycleField, _ wanted: JSONValue) -> Bool {
        switch (field, wanted) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): Int64(a) == b
        case (.integer(let a), .double(let b)): Double(a) == b
        case (.double(let a), _): wanted.doubleValue == a
        case (.bool(let a), .bool(let b)): a == b
        default: false
        }
    }

    /// The value at `path` in `info` (dictionaries only), if there is one.
    static func value(at path: [String], in info: UserInfoSnapshot) -> UserInfoValue? {
        guard let first = path.first, let value = info[first] else { return nil }
        guard path.count > 1 else { return value }
        guard case .dictionary(let inner) = value else { return nil }
        return Self.value(at: Array(path.dropFirst()), in: inner)
    }

    static func equal(_ value: UserInfoValue, _ wanted: JSONValue) -> Bool {
        switch (value, wanted) {
        case (.string(let a), .string(let b)): a == b
        case (.url(let a), .string(let b)): a.absoluteString == b
        case (.integer(let a), .integer(let b)): a == b
        case (.integer(let a), .double(let b)): Double(a) == b
        case (.double(let a), _): wanted.doubleValue == a
        case (.bool(let a), .bool(let b)): a == b
        default: false
        }
    }

    package var description: String {
        let on = device == .any ? "a device" : "the \(device.rawValue)"
        let with = fields.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.jsonText)" }
        return kinds.map(\.rawValue).joined(separator: " or ") + " on \(on)"
            + (with.isEmpty ? "" : " (\(with.joined(separator: ", ")))")
    }
}

/// How far a learner got: the goal's steps seen so far, and whether a wrong way was taken.
package struct LessonProgress: Sendable {
    /// The events that met the goal's steps, in order (device name, event).
    package var met: [(device: String, event: LifecycleEvent)]
    /// The step waited for next (nil: the goal is met).
    package var next: EventPattern?
    /// The `unless` pattern that happened before the goal was met, and the event.
    package var mistake: (pattern: EventPattern, device: String, event: LifecycleEvent)?

    package var isMet: Bool { next == nil && mistake == nil }
}

extension Lesson {
    /// The goal judged over the lifecycles of the devices (name and events, each in its recorded
    /// order): merged by time, the steps matched in order; an `unless` event before the last step
    /// is a mistake.
    ///
    /// Recordings give times to the millisecond, and a message between two devices of one host
    /// takes less: the phone's `continued` and the laptop's `wasContinued` it caused often carry
    /// the same time. So events of the same time are not ordered among themselves: within such a
    /// group a step may be met by any of its events not used yet, in the group's order, again
    /// and again while steps are met (ties otherwise in the order given).
    package func progress(_ lifecycles: [(device: String, events: [LifecycleEvent])]) -> LessonProgress {
        var merged: [(device: String, event: LifecycleEvent, lane: Int, index: Int)] = []
        for (lane, lifecycle) in lifecycles.enumerated() {
            for (index, event) in lifecycle.events.enumerated() {
                merged.append((lifecycle.device, event, lane, index))
            }
        }
        merged.sort { a, b in
            if a.event.time != b.event.time { return a.event.time < b.event.time }
            if a.lane != b.lane { return a.lane < b.lane }
            return a.index < b.index
        }
        var progress = LessonProgress(met: [], next: steps.first, mistake: nil)
        var position = 0
        var start = merged.startIndex
        while start < merged.endIndex, position < steps.count {
            let time = merged[start].event.time
            let end = merged[start...].firstIndex { $0.event.time != time } ?? merged.endIndex
            var used = Set<Int>()
            var advanced = true
            while advanced, position < steps.count {
                advanced = false
                for index in start..<end where !used.contains(index) {
                    let entry = merged[index]
                    if let wrong = unless.first(where: { $0.matches(entry.event, on: entry.device) }) {
                        progress.mistake = (wrong, entry.device, entry.event)
                        return progress
                    }
                    guard steps[position].matches(entry.event, on: entry.device) else { continue }
                    used.insert(index)
                    progress.met.append((entry.device, entry.event))
                    position += 1
                    progress.next = position < steps.count ? steps[position] : nil
                    advanced = true
                    if position == steps.count { break }
                }
            }
            start = end
        }
        return progress
    }
}

extension Lesson: CustomStringConvertible {
    /// The lesson as a test argument or a list line shows it: its number and title.
    package var description: String { "\(number). \(title)" }
}
