import Foundation

/// A failure the lab makes happen on purpose, each rehearsing something real (issue 11's faults
/// panel, `{"cmd":"fault",…}`). Armed on one device, it applies to the next occasion (or to every
/// one while it stays armed); each time it strikes, the lifecycle records `faultInjected`.
public enum Fault: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    /// The origin does not answer payload requests.
    case noAnswer = "no-answer"
    /// The origin's payload is over the size limit.
    case oversizePayload = "oversize"
    /// The origin's app forgot needsSave: the next needsSave is not seen.
    case forgetNeedsSave = "forget-needs-save"
    /// The origin's beacons are not sent.
    case dropBeacons = "drop-beacons"
    /// The origin refuses continuation streams.
    case refuseStreams = "refuse-streams"
    /// The continuing app has no didFailToContinue: the system shows the failure.
    case noDidFail = "no-did-fail"

    /// Which device it is armed on.
    public var side: String {
        switch self {
        case .noAnswer, .oversizePayload, .forgetNeedsSave, .dropBeacons, .refuseStreams: "origin"
        case .noDidFail: "continuing device"
        }
    }

    /// What a QA engineer should see.
    public var expectedOutcome: String {
        switch self {
        case .noAnswer:
            "the continuing device's fetch times out: 4610 NSUserActivityRemoteApplicationTimedOutError; the origin keeps its activity current"
        case .oversizePayload:
            "the origin refuses to send it: 4611 NSUserActivityHandoffUserInfoTooLargeError on the continuing device; both keep their state"
        case .forgetNeedsSave:
            "no save before the payload leaves (saveSkipped): the continuing device restores the state saved earlier"
        case .dropBeacons:
            "peers get no new offer (or the old one goes stale and expires); nothing can be continued"
        case .refuseStreams:
            "the continuation succeeds, but getContinuationStreams fails on the continuing device (streamsRefused)"
        case .noDidFail:
            "a failed continuation is shown by the system's alert (systemShowedError) instead of the app"
        }
    }

    public var description: String { rawValue }

    /// Every kind, for error messages.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
