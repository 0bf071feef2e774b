import Foundation
import HandoffCore
import HandoffDoctor
import HandoffRules
import TerminalCells

/// Everything the device's screen remembers between frames, as one value (the Elm model).
///
/// The device's own state (apps, offers, the continuation in progress, the lifecycle) is not
/// kept here: it is read fresh from a ``DeviceSnapshot`` for every update and every frame.
package struct ScreenState: Hashable, Sendable {
    /// Which part of the screen receives the keys that are not the device's.
    package enum Focus: Hashable, Sendable {
        /// The home screen or the app in front.
        case main
        /// The Nearby sidebar (offers from peers).
        case nearby
        /// The lifecycle log pane.
        case log
    }

    /// Something drawn over the screen that takes the keys until it is closed.
    package enum Overlay: Hashable, Sendable {
        /// The list of keys, scrolled down by `scroll` lines.
        case help(scroll: Int)
        /// A failed continuation.
        case alert(ContinuationAlert)
        /// Why an offer cannot be continued here (nothing was attempted).
        case explanation(Explanation)
        /// The app switcher (phone, tablet) or the focused dock (laptop); `selection` indexes
        /// ``ScreenState/switcherItems(device:)``.
        case switcher(selection: Int)
        /// The lab's faults panel (F8): `selection` indexes `Fault.allCases`.
        case faults(selection: Int)
        /// The timeline (F9): a continuation on one lane per device, with what crossed the network.
        case timeline(TimelineCursor)
        /// The inspector (F10): what travelled for an offer or continuation.
        case inspector(InspectorState)
    }

    /// A transient line at the top of the device's screen ("Continued on Phone").
    package struct Notice: Hashable, Sendable {
        package var text: String
        /// Shorter wordings of `text`, longest first: the app bar shows the longest that fits,
        /// so a narrow device keeps whole words (the error's code) instead of a cut sentence.
        package var shorter: [String]
        package var role: Role
        package var expires: Date

        package init(text: String, shorter: [String] = [], role: Role, expires: Date) {
            self.text = text
            self.shorter = shorter
            self.role = role
            self.expires = expires
        }

        /// The longest wording that fits `width` cells after `mark`; the shortest one cut at a
        /// word when none does.
        package func wording(width: Int, mark: String = "") -> String {
            let wordings = [text] + shorter
            let markWidth = TextWidth.of(mark)
            let chosen = wordings.first { markWidth + TextWidth.of($0) <= width } ?? wordings[wordings.count - 1]
            return TextWidth.truncate(mark + chosen, to: width)
        }
    }

    /// What this device's identity is, for the chrome.
    package var device: PeerInfo
    package var account: String
    /// The time of the latest tick: the clock, ages and spinners are drawn for it.
    package var now: Date
    /// The time zone of the clock and the log's timestamps.
    package var timeZone: TimeZone
    /// The terminal's size at the latest frame.
    package var size: Size
    package var network: NetworkStatus

    package var isLocked = false
    /// The app shown in the main area (nil: the home screen).
    package var foregroundApp: String?
    /// Apps opened on this device, the most recent first (the app switcher's order).
    package var recentApps: [String] = []
    /// The highlighted icon on the home screen.
    package var homeSelection = 0
    package var focus: Focus = .main
    /// The highlighted peer in the Nearby sidebar (nil: the first).
    package var nearbySelection: DeviceID?
    package var overlay: Overlay?
    /// Whether the lifecycle log is shown: F2 hides or shows it.
    package var logMode = LogMode.hidden
    /// Whether the lifecycle log is drawn now: always when shown, when the terminal has room
    /// for it beside or below the device in ``LogMode/whenRoom``.
    package var isLogVisible: Bool {
        get {
            switch logMode {
            case .hidden: false
            case .shown: true
            case .whenRoom: layout.logPlacement != nil
            }
        }
        set { logMode = newValue ? .shown : .hidden }
    }
    /// How many lifecycle events the log is scrolled back from the newest (0: follows new events).
    package var logScroll = 0
    package var notice: Notice?
    /// The device of the last continuation that failed, for the system's alert that may follow.
    var failedFrom: String?

    /// When the lifecycle log is drawn.
    package enum LogMode: String, Hashable, Sendable, CaseIterable {
        /// Only after F2.
        case hidden
        /// Beside or below the device, or over it when the terminal has no room for both.
        case shown
        /// Beside or below the device whenever the terminal has room for both, and never over
        /// it (`handoff demo`: a tall pane shows every step as it happens, no key needed).
        case whenRoom = "when-room"
    }

    package init(
        device: PeerInfo, account: String, now: Date, timeZone: TimeZone = .current,
        size: Size = Size(width: 80, height: 24), network: NetworkStatus = .offline
    ) {
        self.device = device
        self.account = account
        self.now = now
        self.timeZone = timeZone
        self.size = size
        self.network = network
    }

    /// How long a notice stays on screen.
    package static let noticeDuration: TimeInterval = 6

    /// The kinds with a lock screen that prompts for incoming activities and an app switcher;
    /// a laptop has a dock instead.
    package var hasAppSwitcher: Bool { device.kind != .laptop }
}

/// A continuation failure as the alert shows it.
package struct ContinuationAlert: Hashable, Sendable {
    package var code: HandoffError.Code
    /// What happened this time (the error's reason).
    package var reason: String
    /// The device the activity came from, if known.
    package var peer: String?
    /// The app that was to continue it, if known.
    package var bundleIdentifier: String?
    /// True when the app did not handle the failure and the system showed it.
    package var shownBySystem: Bool

    package init(
        code: HandoffError.Code, reason: String, peer: String? = nil, bundleIdentifier: String? = nil,
        shownBySystem: Bool = false
    ) {
        self.code = code
        self.reason = reason
        self.peer = peer
        self.bundleIdentifier = bundleIdentifier
        self.shownBySystem = shownBySystem
    }

    /// What happened and what to try, in a sentence or two naming the other device. A lost
    /// connection's own reason (socket errors, addresses) is left to the lifecycle log and the
    /// log file; the core's reasons (expired, too large, declined…) are plain words and shown.
    package var explanation: String {
        let origin = peer ?? "the other device"
        switch code {
        case .connectionUnavailable:
            return
                "\(origin) could not be reached: it may have quit, locked or left the network. Try again when it shows in Nearby."
        case .remoteApplicationTimedOut:
            return "The app on \(origin) did not send the activity in time. Try again; \(origin) keeps its activity."
        case .userInfoTooLarge:
            return Self.sentence(reason) + " The app on \(origin) must put less in userInfo (use continuation streams)."
        case .handoffFailed:
            return Self.sentence(reason.isEmpty ? code.meaning : reason) + " \(origin) keeps its activity."
        case .userCancelled:
            return "Cancelled; both devices keep their state."
        }
    }

    /// `text` with a capital first letter and a full stop.
    private static func sentence(_ text: String) -> String {
        guard let first = text.first else { return "" }
        let body = first.uppercased() + text.dropFirst()
        return body.hasSuffix(".") ? body : body + "."
    }
}

/// Why something the user asked for cannot happen, when nothing failed: shown like an alert, in
/// the normal role, dismissed with Enter.
package struct Explanation: Hashable, Sendable {
    package var title: String
    /// One or two sentences: what is the matter and what to try.
    package var text: String
    /// The rule `handoff doctor` names for the same verdict ("same-team: …"), with its source.
    package var rule: String?

    package init(title: String, text: String, rule: String? = nil) {
        self.title = title
        self.text = text
        self.rule = rule
    }

    /// Why this device cannot continue `offer`.
    init(unavailable why: Unavailability, offer: DeviceSnapshot.OfferInfo, device: String) {
        let type = offer.activityType.map { "“\($0)”" } ?? "this activity"
        let peer = offer.peer.name
        title = "Can't continue here"
        switch why {
        case .noAppClaimsType:
            text =
                "No app on \(device) claims \(type) from \(peer), and it has no web page to open instead. Install the app that made it (--apps), or continue it on another device."
        case .teamDiffers(let apps):
            text =
                "\(apps.joined(separator: ", ")) claims \(type), but belongs to another team than the app on \(peer); Handoff only continues into the same team's apps."
        case .expired:
            text = "The activity from \(peer) has expired. Make it current again on \(peer)."
        case .notEligible:
            text = "The app on \(peer) marked this activity as not eligible for Handoff."
        }
        // The doctor's rule for the same verdict (docs/doctor.md), so the screen and
        // `handoff doctor` say the same thing.
        let doctorRule: Rule =
            switch why {
            case .noAppClaimsType: DoctorRules.typeClaimed
            case .teamDiffers: DoctorRules.sameTeam
            case .expired: DoctorRules.notExpired
            case .notEligible: DoctorRules.eligibleForHandoff
            }
        rule = "Rule \(doctorRule.id) (handoff doctor): \(doctorRule.sentence) Source: \(doctorRule.source)"
    }
}
