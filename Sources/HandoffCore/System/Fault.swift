import Foundation

/// A failure the lab makes happen on purpose, each rehearsing something real (issue 11's faults
/// panel, `{"cmd":"fault",…}`). Armed on one device, it applies to the next occasion (or to every
/// one while it stays armed); each time it strikes, the lifecycle records `faultInjected`.
public enum Fault: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    /// The origin does not answer payload requests.
    case noAnswer = "no-answer"
    /// The origin's payload is over the size limit.
    case oversizePayload = "oversize"
    /// The origin's app forgot needsSave: no needsSave is seen until the next payload request.
    case forgetNeedsSave = "forget-needs-save"
    /// The origin's beacons are not sent.
    case dropBeacons = "drop-beacons"
    /// The origin refuses continuation streams.
    case refuseStreams = "refuse-streams"
    /// The continuing app has no didFailToContinue: the system shows the failure.
    case noDidFail = "no-did-fail"
    /// The origin goes away while the payload is fetched: its end of the connection closes.
    case originLeaves = "origin-leaves"
    /// The continuing app's `willContinueUserActivityWithType` answers false.
    case willContinueFalse = "will-continue-false"
    /// The continuing app's `continue(_:restorationHandler:)` returns false, restoring nothing.
    case continueFalse = "continue-false"
    /// The continuing scene app looks for the activity only in `connectionOptions.userActivities`
    /// (which never holds a Handoff activity) and has no `scene(_:continue:)`: the commonest
    /// scene bug. Scene apps only (an app-delegate app leaves it armed).
    case connectionOptionsOnly = "connection-options-only"
    /// The origin's payload says it comes from a newer version of the app (its `handoffVersion`).
    case newerVersion = "newer-version"
    /// The web page's association file is missing (404) when a web activity is routed.
    case noSiteAssociation = "no-site-association"
    /// The link is slow: the payload and the streams are held back by a latency and a bandwidth
    /// (``SlowLink``), so the progress is visible.
    case slowLink = "slow-link"

    /// Which device it is armed on.
    public var side: String {
        switch self {
        case .noAnswer, .oversizePayload, .forgetNeedsSave, .dropBeacons, .refuseStreams, .originLeaves, .newerVersion:
            "origin"
        case .noDidFail, .willContinueFalse, .continueFalse, .connectionOptionsOnly, .noSiteAssociation:
            "continuing device"
        case .slowLink: "either device (it slows what that device sends)"
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
            "needsSave is not seen until the next payload request (kept: ever): no save before the payload leaves (saveSkipped names the change), so the continuing device restores the state saved earlier"
        case .dropBeacons:
            "peers get no new offer (or the old one goes stale and expires); nothing can be continued"
        case .refuseStreams:
            "the continuation succeeds, but getContinuationStreams fails on the continuing device (streamsRefused)"
        case .noDidFail:
            "a failed continuation is shown by the system's alert (systemShowedError) instead of the app"
        case .originLeaves:
            "the origin's connection closes mid-fetch: 4609 NSUserActivityConnectionUnavailableError on the continuing device; the origin keeps its activity"
        case .willContinueFalse:
            "willContinue answers false: the system shows the progress (not a refusal); the continuation goes on and restores (app delegates only: a scene's answer is not a Bool)"
        case .continueFalse:
            "continue returns false: the system counts it not handled (continuationNotHandled); nothing is restored, and the origin is not told it was continued (app delegates only; AppKit reopens an iCloud document)"
        case .connectionOptionsOnly:
            "the scene app reads only connectionOptions.userActivities, where Handoff never puts the activity, and has no scene(_:continue:): not handled; the origin keeps its activity (scene apps only)"
        case .newerVersion:
            "the payload's handoffVersion is one above what the origin app wrote: an app that checks it refuses the state (as the WWDC 2014 session advises); one that does not misreads it"
        case .noSiteAssociation:
            "the page's association file is missing (404): web → native falls back to the browser (webRouted to the browser, notApproved)"
        case .slowLink:
            "the payload and the stream data this device sends are held back (\(SlowLink.standard)): the progress shows; a fetch slower than the timeout fails with 4610"
        }
    }

    /// Whether it strikes where the origin receives a payload request (which then goes unanswered
    /// or loses its connection): the request did cross the network, and the timeline draws it.
    public var strikesOnPayloadRequest: Bool {
        self == .noAnswer || self == .originLeaves
    }

    public var description: String { rawValue }

    /// Every kind, for error messages.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// How slow the ``Fault/slowLink`` fault makes a link: a latency before each transfer and a
/// bandwidth for its bytes.
public struct SlowLink: Sendable, Hashable, CustomStringConvertible {
    /// Added before the payload leaves, and before each chunk of stream data.
    public var latency: TimeInterval
    /// Bytes per second the payload and stream data leave at.
    public var bytesPerSecond: Int

    public static let standard = SlowLink(latency: 0.3, bytesPerSecond: 32 * 1024)
    /// The values a lab accepts: up to 30 s of latency, from 1 KB/s.
    public static let latencyRange: ClosedRange<TimeInterval> = 0...30
    public static let bandwidthRange: ClosedRange<Int> = 1024...(1 << 30)

    public init(latency: TimeInterval, bytesPerSecond: Int) {
        self.latency = latency
        self.bytesPerSecond = bytesPerSecond
    }

    /// Checks a lab's values, naming the bad one and the valid range.
    public init(latencyMilliseconds: Double?, kilobytesPerSecond: Double?) throws(SlowLinkError) {
        let latency = (latencyMilliseconds ?? Self.standard.latency * 1000) / 1000
        guard latency.isFinite, Self.latencyRange.contains(latency) else {
            throw SlowLinkError("latencyMs must be from 0 to \(Int(Self.latencyRange.upperBound * 1000)) ms")
        }
        let rate = (kilobytesPerSecond ?? Double(Self.standard.bytesPerSecond) / 1024) * 1024
        guard rate.isFinite, rate >= Double(Self.bandwidthRange.lowerBound),
            rate <= Double(Self.bandwidthRange.upperBound)
        else {
            throw SlowLinkError(
                "kbps must be from 1 to \(Self.bandwidthRange.upperBound / 1024) (kilobytes per second)")
        }
        self.init(latency: latency, bytesPerSecond: Int(rate))
    }

    /// How long `bytes` take on this link, latency included.
    public func delay(forBytes bytes: Int) -> TimeInterval {
        latency + Double(bytes) / Double(bytesPerSecond)
    }

    public var description: String {
        "\(Int((latency * 1000).rounded())) ms latency, \(ByteCount.text(bytesPerSecond))/s"
    }
}

/// A lab value out of range: the message names it and the valid range.
public struct SlowLinkError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
