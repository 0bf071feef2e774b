import Foundation

/// A clock that moves only when told to, for deterministic tests.
public final class ManualClock {
    public private(set) var now: Date

    public init(start: Date = Date(timeIntervalSinceReferenceDate: 800_000_000)) {
        now = start
    }

    public func advance(by seconds: TimeInterval) {
        now = now.addingTimeInterval(seconds)
    }

    public func set(_ date: Date) {
        precondition(date >= now, "a manual clock never goes back")
        now = date
    }
}
