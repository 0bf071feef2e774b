import Foundation
import HandoffCore

/// Text for times, ages and sizes, independent of the locale (so snapshots are stable).
enum Format {
    static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// "09:41".
    static func clock(_ date: Date, _ timeZone: TimeZone) -> String {
        let parts = calendar(timeZone).dateComponents([.hour, .minute], from: date)
        return two(parts.hour ?? 0) + ":" + two(parts.minute ?? 0)
    }

    /// "09:41:07.250".
    static func timestamp(_ date: Date, _ timeZone: TimeZone) -> String {
        let parts = calendar(timeZone).dateComponents([.hour, .minute, .second, .nanosecond], from: date)
        let millis = min(999, Int((Double(parts.nanosecond ?? 0) / 1_000_000).rounded()))
        return two(parts.hour ?? 0) + ":" + two(parts.minute ?? 0) + ":" + two(parts.second ?? 0) + "."
            + String(repeating: "0", count: 3 - String(millis).count) + String(millis)
    }

    /// "Wednesday 22 November".
    static func day(_ date: Date, _ timeZone: TimeZone) -> String {
        let parts = calendar(timeZone).dateComponents([.weekday, .day, .month], from: date)
        let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        let months = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September",
            "October", "November", "December",
        ]
        return "\(weekdays[((parts.weekday ?? 1) - 1) % 7]) \(parts.day ?? 1) \(months[((parts.month ?? 1) - 1) % 12])"
    }

    /// "Wed 09:41", for a laptop's menu bar.
    static func shortDayAndClock(_ date: Date, _ timeZone: TimeZone) -> String {
        String(day(date, timeZone).prefix(3)) + " " + clock(date, timeZone)
    }

    /// How long ago: "now", "12s", "4m", "2h", "3d".
    static func age(since date: Date, now: Date) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case ..<2: return "now"
        case ..<60: return "\(seconds)s"
        case ..<3600: return "\(seconds / 60)m"
        case ..<86_400: return "\(seconds / 3600)h"
        default: return "\(seconds / 86_400)d"
        }
    }

    /// When ``age(since:now:)`` next shows something else.
    static func nextAgeChange(since date: Date, now: Date) -> Date {
        let elapsed = max(0, now.timeIntervalSince(date))
        let step: TimeInterval = elapsed < 60 ? 1 : elapsed < 3600 ? 60 : 3600
        return date.addingTimeInterval((elapsed / step).rounded(.down) * step + step)
    }

    /// "812 bytes", "2.1 kB", "1.4 MB" (``ByteCount``, as everywhere).
    static func bytes(_ count: Int) -> String { ByteCount.text(count) }

    /// "0.3 s".
    static func seconds(_ interval: TimeInterval) -> String {
        String(format: "%.1f s", max(0, interval))
    }

    /// A short reason for the sidebar.
    static func reason(_ why: Unavailability) -> String {
        switch why {
        case .noAppClaimsType: "no app here claims this activity type"
        case .teamDiffers(let apps): "team differs: \(apps.joined(separator: ", ")) claims the type for another team"
        case .expired: "the activity expired"
        case .notEligible: "not eligible for Handoff"
        }
    }

    private static func two(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
