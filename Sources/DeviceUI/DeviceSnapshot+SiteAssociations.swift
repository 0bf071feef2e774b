import Foundation
import HandoffCore

extension DeviceSnapshot {
    /// What the device knows about one app's `activitycontinuation:` domain: the outcome of the
    /// last fetch of the site's association file (Nearby's "why not" for web offers).
    package struct SiteAssociationInfo: Hashable, Sendable {
        package var appName: String
        package var bundleIdentifier: String
        /// The entitlement's domain, `*.` included for a wildcard.
        package var domain: String
        /// The latest fetch's outcome; nil before the first.
        package var outcome: AssociationOutcome?
        /// Whether pages of the domain go to the app now (an approval is kept while it is cached).
        package var isApproved: Bool

        package init(
            appName: String, bundleIdentifier: String, domain: String, outcome: AssociationOutcome?, isApproved: Bool
        ) {
            self.appName = appName
            self.bundleIdentifier = bundleIdentifier
            self.domain = domain
            self.outcome = outcome
            self.isApproved = isApproved
        }

        /// The outcome in a few words: "approved", "not listed", "404", "not JSON", "wrong content
        /// type", "redirected", "unreachable", … or "not checked yet".
        package var summary: String {
            guard let outcome else { return "not checked yet" }
            let latest: String =
                switch outcome {
                case .approved: "approved"
                case .notListed: "not listed"
                case .notFound: "404"
                case .httpStatus(let status): "HTTP \(status)"
                case .notJSON: "not JSON"
                case .malformed: "not an association file"
                case .wrongContentType: "wrong content type"
                case .redirected: "redirected"
                case .tooLarge: "too large"
                case .signatureInvalid: "bad signature"
                case .timedOut: "no answer"
                case .unreachable: "unreachable"
                }
            // A failed fetch while an earlier approval is still cached.
            if isApproved, outcome != .approved { return "approved (kept; last fetch: \(latest))" }
            return latest
        }

        /// One line: "✓ Map · maps.example: approved" or "✗ Map · maps.example: 404".
        package var line: String {
            "\(isApproved ? "✓" : "✗") \(appName) · \(domain): \(summary)"
        }
    }

    /// Every `activitycontinuation:` domain of every installed app, in install order, with what
    /// its association file said, as routing sees it at `now`.
    static func siteAssociations(of system: DeviceSystem, at now: Date) -> [SiteAssociationInfo] {
        system.apps.flatMap { app in
            app.activityContinuationEntries.map { domain in
                let record = system.siteAssociations[
                    SiteAssociationKey(bundleIdentifier: app.bundleIdentifier, domain: domain)]
                return SiteAssociationInfo(
                    appName: app.displayName, bundleIdentifier: app.bundleIdentifier, domain: domain.description,
                    outcome: record?.latest.outcome, isApproved: record?.isApproved(at: now) ?? false)
            }
        }
    }
}
