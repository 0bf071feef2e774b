import Foundation
import HandoffCore
import HandoffRules

/// The activity `handoff doctor` asks about: what the system reads of an `NSUserActivity` when it
/// decides whether, and where, the activity continues. Every value but the type is optional:
/// what is not known is not checked.
package struct DoctorActivity: Sendable, Hashable {
    package var activityType: String
    /// `webpageURL`, as given (so that a scheme the system refuses can be named).
    package var webpageURL: String?
    /// The encoded payload's size in bytes (the userInfo and the activity's other fields), when known.
    package var payloadBytes: Int?
    package var requiredUserInfoKeys: Set<String>
    /// The keys the userInfo holds, when known.
    package var userInfoKeys: Set<String>?
    package var expirationDate: Date?
    package var isEligibleForHandoff: Bool

    package init(
        activityType: String, webpageURL: String? = nil, payloadBytes: Int? = nil,
        requiredUserInfoKeys: Set<String> = [], userInfoKeys: Set<String>? = nil, expirationDate: Date? = nil,
        isEligibleForHandoff: Bool = true
    ) {
        self.activityType = activityType
        self.webpageURL = webpageURL
        self.payloadBytes = payloadBytes
        self.requiredUserInfoKeys = requiredUserInfoKeys
        self.userInfoKeys = userInfoKeys
        self.expirationDate = expirationDate
        self.isEligibleForHandoff = isEligibleForHandoff
    }

    /// A browser's page: `NSUserActivityTypeBrowsingWeb` with its `webpageURL`.
    package static func webpage(_ url: String) -> DoctorActivity {
        DoctorActivity(activityType: UserActivity.browsingWebType, webpageURL: url)
    }

    /// Whether this is a browser's page (`NSUserActivityTypeBrowsingWeb`).
    package var isBrowsingWeb: Bool { activityType == UserActivity.browsingWebType }
}

/// What the association file that verifies a receiver's `activitycontinuation:` entry says for the
/// receiver's app ID, as the command found it (a local file, or the local web).
package enum DoctorSiteAnswer: Sendable, Hashable {
    /// The file was read and judged as a device judges it (`approved`, `notListed`, `notFound`…);
    /// `source` says where it was read, `notes` what was noticed but not refused.
    case checked(AssociationOutcome, source: String, notes: [String] = [])
    /// Nobody could read it: why (no `--site-file` for the host and no local web running).
    case notChecked(String)
}

/// One question to the doctor: an activity of the origin app, continued into the receiver app on
/// another device of the same account. Files are read by the caller; this is values only.
package struct DoctorCase: Sendable {
    /// The app that made the activity; nil for a browser's page when no browser was given.
    package var origin: AppManifest?
    package var receiver: AppManifest
    package var activity: DoctorActivity
    /// What each association file says, by the host it is fetched from (lower case).
    package var siteAnswers: [String: DoctorSiteAnswer]
    /// The time expiration is judged at.
    package var now: Date
    /// The 3 KB guidance and the 4611 limit: the devices' own (`DeviceConfiguration`).
    package var limits: DeviceConfiguration

    package init(
        origin: AppManifest?, receiver: AppManifest, activity: DoctorActivity,
        siteAnswers: [String: DoctorSiteAnswer] = [:], now: Date, limits: DeviceConfiguration = DeviceConfiguration()
    ) {
        self.origin = origin
        self.receiver = receiver
        self.activity = activity
        self.siteAnswers = siteAnswers
        self.now = now
        self.limits = limits
    }
}

/// One reason the doctor gives: the rule, how much it matters and what it found.
package struct DoctorReason: Sendable, Hashable {
    package enum Severity: String, Sendable, Hashable {
        /// The activity does not continue into the receiver.
        case error
        /// Apple's guidance or a trap, never the verdict.
        case warning
        /// What the simulator does differently, or what was not checked.
        case note
    }

    package var rule: Rule
    package var severity: Severity
    /// What was found: the first line says it, the others give the values.
    package var details: [String]

    package init(_ rule: Rule, _ severity: Severity, _ details: [String]) {
        self.rule = rule
        self.severity = severity
        self.details = details
    }
}

/// Where a continuation ends up on the other device.
package enum DoctorDestination: Sendable, Hashable {
    /// The receiver app continues it.
    case app(bundleIdentifier: String)
    /// The other device's browser opens the page instead.
    case browser(url: String)
    /// The offer is shown, but the continuation fails with this error.
    case fails(HandoffError.Code)
    /// The other device offers nothing (no app there can take it, or nothing is offered at all).
    case nothing
}

/// The web part of a diagnosis: the page's host, the receiver's entry that matched it, and what the
/// association file says.
package struct DoctorWebFinding: Sendable, Hashable {
    package var host: String
    /// The most specific matching `activitycontinuation:` entry (an exact entry before a wildcard).
    package var entry: AssociatedDomain?
    /// What the file of `entry` said (nil without an entry).
    package var answer: DoctorSiteAnswer?
}

/// The doctor's answer: whether the activity continues into the receiver, every reason in the
/// order the system checks, and where it goes instead.
package struct Diagnosis: Sendable {
    package var activity: DoctorActivity
    package var origin: AppManifest?
    package var receiver: AppManifest
    package var reasons: [DoctorReason]
    package var destination: DoctorDestination
    package var web: DoctorWebFinding?

    /// True when no reason is an error: warnings and notes never change the verdict.
    package var continues: Bool { !reasons.contains { $0.severity == .error } }
    package var errors: [DoctorReason] { reasons.filter { $0.severity == .error } }
    package var warnings: [DoctorReason] { reasons.filter { $0.severity == .warning } }
}

/// `handoff doctor`'s diagnosis of an app pair and an activity: pure, from values
/// (docs/doctor.md).
package enum Doctor {
    /// Checks `question` in the order the system does: the activity as its app makes it (its web
    /// page's scheme), whether it is offered at all (eligible, not expired), whether the receiver
    /// may take it (same team and a claimed type; for a browser's page, an associated domain its
    /// site approves), then the payload (required keys, the limit, the guidance), then how the
    /// receiver is told (a scene's cold launch). Every reason found is given, not only the first.
    package static func diagnose(_ question: DoctorCase) -> Diagnosis {
        let activity = question.activity
        let receiver = question.receiver
        var reasons: [DoctorReason] = []

        // 1. The activity as the origin app makes it: a web page must be http or https.
        var page: (url: String, host: String)?
        if let text = activity.webpageURL {
            let url = URL(string: text)
            let scheme = url?.scheme?.lowercased() ?? ""
            if scheme != "http" && scheme != "https" {
                reasons.append(
                    DoctorReason(
                        DoctorRules.webpageScheme, .error,
                        [
                            "webpageURL \(text) uses \(scheme.isEmpty ? "no scheme" : "the scheme \(scheme)"), not http or https: setting it throws (NSInvalidArgumentException), so the activity has no web page"
                        ]))
            } else if let host = url?.host, !host.isEmpty {
                page = (text, host.lowercased())
            } else {
                reasons.append(
                    DoctorReason(DoctorRules.webpageScheme, .error, ["webpageURL \(text) has no host"]))
            }
        } else if activity.isBrowsingWeb {
            reasons.append(
                DoctorReason(
                    DoctorRules.webpageScheme, .error,
                    ["a \(UserActivity.browsingWebType) activity carries its page in webpageURL, and it has none"]))
        }

        // 2. Is it offered at all?
        var offered = true
        if !activity.isEligibleForHandoff {
            offered = false
            reasons.append(
                DoctorReason(
                    DoctorRules.eligibleForHandoff, .error,
                    ["isEligibleForHandoff is false: the origin device does not offer the activity"]))
        }
        if let expiration = activity.expirationDate, expiration <= question.now {
            offered = false
            reasons.append(
                DoctorReason(
                    DoctorRules.notExpired, .error,
                    [
                        "the activity expired at \(LifecycleEvent.timestamp(expiration)), \(Int(question.now.timeIntervalSince(expiration).rounded(.down))) s before \(LifecycleEvent.timestamp(question.now))"
                    ]))
        }

        // 3. May the receiver take it?
        var routed = true
        var web: DoctorWebFinding?
        if activity.isBrowsingWeb {
            if let page {
                let finding = webFinding(host: page.host, receiver: receiver, answers: question.siteAnswers)
                web = finding
                routed = judgeWeb(finding, receiver: receiver, into: &reasons)
            } else {
                routed = false
            }
        } else {
            if let origin = question.origin, origin.teamIdentifier != receiver.teamIdentifier {
                routed = false
                reasons.append(
                    DoctorReason(
                        DoctorRules.sameTeam, .error,
                        [
                            "the origin \(origin.bundleIdentifier) is of team \(origin.teamIdentifier); the receiver \(receiver.bundleIdentifier) is of team \(receiver.teamIdentifier)"
                        ]))
            }
            if !receiver.continuableActivityTypes.contains(activity.activityType) {
                routed = false
                reasons.append(
                    DoctorReason(
                        DoctorRules.typeClaimed, .error,
                        ["\(receiver.bundleIdentifier) does not claim \(activity.activityType)"]
                            + claimedTypes(of: receiver)))
            }
        }

        // 4. The payload.
        var failure: HandoffError.Code?
        if let present = activity.userInfoKeys {
            let missing = activity.requiredUserInfoKeys.subtracting(present).sorted()
            if !missing.isEmpty {
                reasons.append(
                    DoctorReason(
                        DoctorRules.requiredKeysPresent, .error,
                        [
                            "requiredUserInfoKeys names \(missing.joined(separator: ", ")), which the userInfo does not hold: the continuing app gets the activity without \(missing.count == 1 ? "it" : "them")",
                            "userInfo keys: \(present.isEmpty ? "none" : present.sorted().joined(separator: ", "))",
                        ]))
            }
        }
        if let bytes = activity.payloadBytes {
            let limit = question.limits.payloadLimitBytes
            let guidance = question.limits.payloadWarningBytes
            if bytes > limit {
                failure = .userInfoTooLarge
                reasons.append(
                    DoctorReason(
                        DoctorRules.payloadWithinLimit, .error,
                        [
                            "the payload is \(bytes) bytes (\(ByteCount.text(bytes))), over the \(limit)-byte limit: the continuation fails with 4611 (NSUserActivityHandoffUserInfoTooLargeError)"
                        ]))
            }
            if bytes > guidance {
                reasons.append(
                    DoctorReason(
                        DoctorRules.payloadGuidance, .warning,
                        [
                            "the payload is \(bytes) bytes (\(ByteCount.text(bytes))), over Apple's guidance of \(guidance) bytes: the more it carries, the longer the continuation takes; use continuation streams for more"
                        ]))
            }
        }

        // 5. How the receiver is told.
        let destination: DoctorDestination
        if !offered {
            destination = .nothing
        } else if !routed {
            destination = page.map { .browser(url: $0.url) } ?? .nothing
        } else if let failure {
            destination = .fails(failure)
        } else {
            destination = .app(bundleIdentifier: receiver.bundleIdentifier)
        }
        if receiver.sceneManifest != nil, routed {
            reasons.append(
                DoctorReason(
                    RuleBook.sceneColdLaunchCarriesType, .warning,
                    [
                        "\(receiver.bundleIdentifier) uses scenes (UIApplicationSceneManifest): when a continuation launches it, its scene connects with only connectionOptions.handoffUserActivityType (\(activity.activityType)), never the activity in userActivities; the activity arrives afterwards in scene(_:continue:), which the scene delegate must implement"
                    ]))
        }
        return Diagnosis(
            activity: activity, origin: question.origin, receiver: receiver, reasons: reasons,
            destination: destination, web: web)
    }

    /// The types `app` claims, by where it claims them.
    static func claimedTypes(of app: AppManifest) -> [String] {
        let listed = app.activityTypes
        let ubiquitous = app.documentTypes.compactMap { type in
            type.ubiquitousActivityType.map { "\($0) (document type \(type.name))" }
        }
        if listed.isEmpty && ubiquitous.isEmpty { return ["it claims no activity type"] }
        var lines: [String] = []
        lines.append("NSUserActivityTypes: \(listed.isEmpty ? "none" : listed.joined(separator: ", "))")
        lines.append(
            "document types' NSUbiquitousDocumentUserActivityType: \(ubiquitous.isEmpty ? "none" : ubiquitous.joined(separator: ", "))"
        )
        return lines
    }

    /// The receiver's entry for `host` (Apple's matching: the exact entry, else the most specific
    /// wildcard), and its file's answer.
    static func webFinding(
        host: String, receiver: AppManifest, answers: [String: DoctorSiteAnswer]
    ) -> DoctorWebFinding {
        let entry = receiver.activityContinuationEntry(matching: host)
        return DoctorWebFinding(
            host: host, entry: entry,
            answer: entry.map { answers[$0.fileHost] ?? .notChecked("no answer was given for \($0.fileHost)") })
    }

    /// The web page's reasons; true when the receiver may take the page.
    static func judgeWeb(_ finding: DoctorWebFinding, receiver: AppManifest, into reasons: inout [DoctorReason]) -> Bool
    {
        let appID = receiver.applicationIdentifier
        guard let entry = finding.entry else {
            let entries = receiver.activityContinuationEntries
            var details = [
                "no activitycontinuation: entry of \(receiver.bundleIdentifier)'s com.apple.developer.associated-domains names \(finding.host)",
                "its activitycontinuation: entries: \(entries.isEmpty ? "none" : entries.map(\.description).joined(separator: ", "))",
            ]
            if entries.contains(where: { $0.isWildcard && $0.host == finding.host }) {
                details.append(
                    "*.\(finding.host) names the subdomains of \(finding.host), not \(finding.host) itself: add activitycontinuation:\(finding.host)"
                )
            }
            reasons.append(DoctorReason(DoctorRules.associatedDomain, .error, details))
            return false
        }
        var approved = false
        switch finding.answer {
        case .checked(.approved, _, _):
            approved = true
        case .checked(let outcome, let source, let notes):
            reasons.append(
                DoctorReason(
                    RuleBook.webNeedsApprovalAndEmptyUserInfo, .error,
                    [
                        "\(entry.fileHost)'s apple-app-site-association for \(appID): \(outcome); \(source)"
                    ] + notes))
        case .notChecked(let why):
            reasons.append(notChecked(entry, appID: appID, why: why))
        case nil:
            reasons.append(notChecked(entry, appID: appID, why: "no answer"))
        }
        if entry.isWildcard {

            reasons.append(
                DoctorReason(
                    DoctorRules.associatedDomain, .note,
                    [
                        "\(finding.host) matched the wildcard entry \(entry), verified by the file of \(entry.fileHost); the simulator's devices route a page by an exact entry only (a beacon carries the host's hash, and a wildcard's subdomains cannot be listed), so in the simulator this page opens in the browser"
                    ]))
        }
        return approved
    }

    static func notChecked(_ entry: AssociatedDomain, appID: String, why: String) -> DoctorReason {
        DoctorReason(
            RuleBook.webNeedsApprovalAndEmptyUserInfo, .error,
            [
                "\(entry.fileHost)'s apple-app-site-association was not checked (\(why)): without the file's approval of \(appID) the page opens in the browser",
                "give it with --site-file \(entry.fileHost)=FILE, or serve it over the local web (handoff web serve)",
            ])
    }
}
