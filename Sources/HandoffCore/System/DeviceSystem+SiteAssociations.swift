import Foundation

/// Which app's domain a ``SiteAssociationRecord`` is about.
public struct SiteAssociationKey: Sendable, Hashable, Comparable {
    public var bundleIdentifier: String
    public var domain: AssociatedDomain

    public init(bundleIdentifier: String, domain: AssociatedDomain) {
        self.bundleIdentifier = bundleIdentifier
        self.domain = domain
    }

    public static func < (lhs: SiteAssociationKey, rhs: SiteAssociationKey) -> Bool {
        (lhs.bundleIdentifier, lhs.domain.description) < (rhs.bundleIdentifier, rhs.domain.description)
    }
}

/// Web → native: an app's `activitycontinuation:` domains are verified with the sites' association
/// files when the app is installed or launched (the runtime fetches them:
/// ``Effect/checkSiteAssociations(bundleIdentifier:applicationIdentifier:domains:)``), and a
/// browsing-web activity goes to the app whose domain the page's host matches and whose file
/// approves it, else to the browser with the outcome per app and domain.
extension DeviceSystem {
    /// Asks the runtime to verify the domains of `bundle` that were never checked or whose check
    /// expired (and are not being checked now).
    mutating func checkSiteAssociations(of bundle: String, at now: Date, effects: inout [Effect]) {
        guard let app = apps.first(where: { $0.bundleIdentifier == bundle }) else { return }
        let due = app.activityContinuationEntries.filter { domain in
            let key = SiteAssociationKey(bundleIdentifier: bundle, domain: domain)
            guard !siteAssociationChecksInFlight.contains(key) else { return false }
            return siteAssociations[key].map { $0.isExpired(at: now) } ?? true
        }
        guard !due.isEmpty else { return }
        for domain in due {
            siteAssociationChecksInFlight.insert(SiteAssociationKey(bundleIdentifier: bundle, domain: domain))
        }
        effects.append(
            .checkSiteAssociations(
                bundleIdentifier: bundle, applicationIdentifier: app.applicationIdentifier, domains: due))
    }

    /// A check finished: keep it (and the last answer when it failed) and record it.
    mutating func siteAssociationChecked(_ check: SiteAssociationCheck, at now: Date, effects: inout [Effect]) {
        let key = SiteAssociationKey(bundleIdentifier: check.bundleIdentifier, domain: check.domain)
        siteAssociationChecksInFlight.remove(key)
        let previous = siteAssociations[key]
        siteAssociations[key] = SiteAssociationRecord(
            latest: check, lastAnswer: check.outcome.isAnswer ? check : previous?.lastAnswer)
        record(
            .siteAssociationChecked(check, keptAnswer: check.outcome.isAnswer ? nil : previous?.lastAnswer?.outcome),
            at: now, into: &effects)
    }

    /// Where a browsing-web offer goes, decided before its payload is fetched from the host hash
    /// its advertisement carries (``ActivityTypeHash/init(webpageHost:)``): the hash names a host
    /// when one of this device's apps names that host in an exact `activitycontinuation:` entry
    /// (a wildcard's subdomains cannot be listed, so they cannot be matched by a hash); then
    /// ``webRoute(host:at:withholdingAssociations:)`` decides. `host` is nil when no app here
    /// names it: the browser opens the page.
    public func webRoute(
        hostHash: ActivityTypeHash, at now: Date, withholdingAssociations: Bool = false
    ) -> (host: String?, bundleIdentifier: String?, routing: WebRouting) {
        let named = apps.lazy.flatMap(\.activityContinuationEntries).first {
            !$0.isWildcard && ActivityTypeHash(webpageHost: $0.host) == hostHash
        }
        guard let host = named?.host else { return (nil, browser?.bundleIdentifier, .noAppNamesHost) }
        let (bundle, routing) = webRoute(host: host, at: now, withholdingAssociations: withholdingAssociations)
        return (host, bundle, routing)
    }

    /// Where a browsing-web activity for a page on `host` goes at `now`: the app (most specific
    /// matching entry first) the site approves, else the browser (nil: none) with each refusal.
    ///
    /// `withholdingAssociations`: route as if every association file were missing (404), the
    /// lab's no-site-association fault.
    public func webRoute(
        host: String, at now: Date,
        withholdingAssociations: Bool = false
    ) -> (bundleIdentifier: String?, routing: WebRouting) {
        let host = host.lowercased()
        let candidates = apps.compactMap { app in app.activityContinuationEntry(matching: host).map { (app, $0) } }
            .sorted { $0.1.specificity > $1.1.specificity }
        for (app, domain) in candidates {
            let key = SiteAssociationKey(bundleIdentifier: app.bundleIdentifier, domain: domain)
            if !withholdingAssociations, siteAssociations[key]?.isApproved(at: now) == true {
                return (
                    app.bundleIdentifier, .approved(applicationIdentifier: app.applicationIdentifier, domain: domain)
                )
            }
        }
        guard !candidates.isEmpty else { return (browser?.bundleIdentifier, .noAppNamesHost) }
        let refusals = candidates.map { app, domain in
            let record = siteAssociations[SiteAssociationKey(bundleIdentifier: app.bundleIdentifier, domain: domain)]
            return WebRoutingRefusal(
                bundleIdentifier: app.bundleIdentifier, applicationIdentifier: app.applicationIdentifier,
                domain: domain, outcome: withholdingAssociations ? .notFound : record?.latest.outcome)
        }
        return (browser?.bundleIdentifier, .notApproved(refusals))
    }
}

extension Device {
    /// Fetches again every association file whose cached answer has expired (Apple's swcd
    /// refreshes its cache the same way): the runtime calls it when an answer it delivered
    /// expires, so a site that stopped answering is seen before the next page is routed.
    public func refreshExpiredSiteAssociations() {
        post(.siteAssociationsExpired)
    }
}
