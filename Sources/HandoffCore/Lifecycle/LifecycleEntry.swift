import Foundation

/// One lifecycle event as its presented fields (the headless JSON's fields, in order): an event of
/// this device (``init(_:)``) or one a peer of the account shared over its session, which arrives
/// as fields because a peer's typed values are its own. The timeline draws both alike.
public struct LifecycleEntry: Sendable, Hashable {
    /// One named value.
    public struct Field: Sendable, Hashable {
        public var key: String
        public var value: LifecycleField

        public init(_ key: String, _ value: LifecycleField) {
            self.key = key
            self.value = value
        }
    }

    /// Every field, in order; `time`, `device` and `kind` are always there.
    public private(set) var fields: [Field]
    /// When it happened (parsed from the `time` field).
    public let time: Date
    public let device: String
    /// Nil when the kind is not one this build knows (a newer peer's).
    public let kind: LifecycleEvent.Kind?

    /// An event of this device.
    public init(_ event: LifecycleEvent) {
        fields = event.fields.map { Field($0.key, $0.value) }
        time = event.time
        device = event.device
        kind = event.kind
    }

    /// Fields as they came from a peer; nil unless `time` (ISO 8601), `device` and `kind` are
    /// strings.
    public init?(fields: [Field]) {
        func text(_ key: String) -> String? {
            guard case .string(let value)? = fields.first(where: { $0.key == key })?.value else { return nil }
            return value
        }
        guard let timeText = text("time"), let time = Self.date(timeText), let device = text("device"), !device.isEmpty,
            let kindText = text("kind")
        else { return nil }
        self.fields = fields
        self.time = time
        self.device = device
        kind = LifecycleEvent.Kind(rawValue: kindText)
    }

    static func date(_ text: String) -> Date? {
        try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    public subscript(_ key: String) -> LifecycleField? {
        fields.first { $0.key == key }?.value
    }

    public func string(_ key: String) -> String? {
        if case .string(let value)? = self[key] { return value }
        return nil
    }

    public func integer(_ key: String) -> Int64? {
        switch self[key] {
        case .integer(let value)?: Int64(value)
        case .double(let value)? where value == value.rounded() && abs(value) < 9e15: Int64(value)
        default: nil
        }
    }

    public func double(_ key: String) -> Double? {
        switch self[key] {
        case .double(let value)?: value
        case .integer(let value)?: Double(value)
        default: nil
        }
    }

    /// The continuation identifier (lower-case UUID text).
    public var continuation: String? { string("continuation") }
    /// The other device's name.
    public var peer: String? { string("peer") }
    /// What happened, in a few words (the log's summary).
    public var detail: String { string("detail") ?? "" }
    /// What Apple does at this step and why, naming the API.
    public var explanation: String { string("explanation") ?? kind?.explanation ?? "" }
    /// The kind's name, as sent (also for kinds this build does not know).
    public var kindName: String { string("kind") ?? "?" }

    public var userInfo: UserInfoSnapshot? {
        if case .userInfo(let info)? = self["userInfo"] { return info }
        return nil
    }

    /// Entries are equal when their fields are (the time as written, to the millisecond).
    public static func == (a: LifecycleEntry, b: LifecycleEntry) -> Bool { a.fields == b.fields }
    public func hash(into hasher: inout Hasher) { hasher.combine(fields) }

    /// About how many bytes the entry holds (its keys and values), for a receiver's budget.
    public var approximateBytes: Int {
        fields.reduce(0) { total, field in
            let value =
                switch field.value {
                case .string(let text): text.utf8.count
                case .integer, .double: 8
                case .bool: 1
                case .userInfo(let info): String(describing: info).utf8.count
                }
            return total + field.key.utf8.count + value
        }
    }

    /// The same entry told in another lane (`device`) at another `time`: what a receiver keeps
    /// of a peer's entry, under the name it knows that peer by and on its own clock.
    public func relabelled(device: String, time: Date) -> LifecycleEntry? {
        var copy = fields
        for index in copy.indices {
            switch copy[index].key {
            case "device": copy[index].value = .string(device)
            case "time" where time != self.time: copy[index].value = .string(LifecycleEvent.timestamp(time))
            default: break
            }
        }
        return LifecycleEntry(fields: copy)
    }

    /// The same entry without its userInfo, saying how big the userInfo was (`userInfoOmitted`,
    /// bytes): for sharing when it would not fit.
    public func withoutUserInfo(bytes: Int) -> LifecycleEntry {
        var copy = self
        copy.fields.removeAll { $0.key == "userInfo" }
        copy.fields.append(Field("userInfoOmitted", .integer(bytes)))
        return copy
    }
}

extension LifecycleEntry: TimelineEvent {}
