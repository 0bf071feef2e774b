import Foundation

/// A clock that moves only when told to, for deterministic tests.
package final class ManualClock {
    package private(set) var now: Date

    package init(start: Date = Date(timeIntervalSinceReferenceDate: 800_000_000)) {
        now = start
    }

    package func advance(by seconds: TimeInterval) {
        now = now.addingTimeInterval(seconds)
    }

    package func set(_ date: Date) {
        precondition(date >= now, "a manual clock never goes back")
        now = date
    }
}
