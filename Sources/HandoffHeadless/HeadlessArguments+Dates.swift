import Foundation
import HandoffCore

extension Arguments {
    /// The latest date the simulator writes or reads anywhere (beacons, ISO 8601 text):
    /// 9999-12-31T23:59:59Z.
    static let latestDate = Date(timeIntervalSince1970: 253_402_300_799)
    /// The earliest: 0001-01-01T00:00:00Z.
    static let earliestDate = Date(timeIntervalSince1970: -62_135_596_800)

    /// A number of seconds from now (`expiresIn`) whose date a `Date`, an ISO 8601 timestamp and a
    /// beacon can all hold: years 1 to 9999. `1e308` is refused here, with the field's name,
    /// rather than making an activity that expires in the year 5,828,963.
    func secondsFromNow(_ key: String, now: Date = Date()) throws(CommandError) -> Double? {
        guard let seconds = try number(key) else { return nil }
        let date = now.addingTimeInterval(seconds)
        guard date >= Self.earliestDate, date <= Self.latestDate else {
            throw CommandError(
                "\(command): \"\(key)\" of \(JSONValue.clipLiteral("\(seconds)")) seconds is a date no device can hold"
                    + " (it must fall between the years 1 and 9999)")
        }
        return seconds
    }
}
