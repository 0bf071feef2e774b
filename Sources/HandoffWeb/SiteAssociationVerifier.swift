import Foundation
import HandoffCore

/// A device's fetch of association files, as Apple describes it: `GET
/// https://DOMAIN/.well-known/apple-app-site-association` over HTTPS with a valid certificate (the
/// local authority's), no redirects followed, `application/json`, at most 128 KB, within a
/// deadline; the answer is kept as long as the response's `Cache-Control: max-age` says.
///
/// Set ``verify(_:deliver:)`` as a device's `siteAssociationVerifier`: it reads the
/// ``WebFolder`` again for each request (a server started after the device is found), fetches
/// every domain at once, and hands each ``SiteAssociationCheck`` to `deliver` as it completes.
package struct SiteAssociationVerifier: Sendable {
    /// Where the hosts map and the authority are.
    package var folder: WebFolder
    /// How long a fetch may take, connection included.
    package var timeout: Double
    /// The clock checks are stamped with.
    package var clock: @Sendable () -> Date

    package init(folder: WebFolder, timeout: Double = 5, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.folder = folder
        self.timeout = timeout
        self.clock = clock
    }

    /// Fetches the file of each domain of `request` in a task; `deliver` gets each check (from
    /// that task: hand it to the device's run loop).
    package func verify(_ request: SiteAssociationRequest, deliver: @escaping @Sendable (SiteAssociationCheck) -> Void)
    {
        let verifier = self
        Task {
            await withTaskGroup(of: Void.self) { group in
                for domain in request.domains {
                    group.addTask {
                        deliver(
                            await verifier.check(
                                domain, applicationIdentifier: request.applicationIdentifier,
                                bundleIdentifier: request.bundleIdentifier))
                    }
                }
            }
        }
    }

    /// Fetches the file that verifies `domain` and judges it for `applicationIdentifier`.
    package func check(
        _ domain: AssociatedDomain, applicationIdentifier: String, bundleIdentifier: String
    ) async -> SiteAssociationCheck {
        let started = clock()
        let fetched = await fetch(host: domain.fileHost)
        let now = clock()
        let outcome = fetched.outcome(for: applicationIdentifier)
        let lifetime = outcome.isAnswer ? (fetched.maxAge ?? 0) : 0
        return SiteAssociationCheck(
            bundleIdentifier: bundleIdentifier, applicationIdentifier: applicationIdentifier, domain: domain,
            outcome: outcome, checkedAt: now, expiresAt: now.addingTimeInterval(lifetime),
            milliseconds: fetched.milliseconds ?? now.timeIntervalSince(started) * 1000)
    }

    /// What one host's association file fetch gave.
    package struct Fetched: Sendable, Hashable {
        package enum Result: Sendable, Hashable {
            /// A usable file.
            case file(SiteAssociationFile)
            /// Anything else, as the outcome it is for every app.
            case failure(AssociationOutcome)
        }

        package var host: String
        package var result: Result
        /// `Cache-Control: max-age` (0 for `no-store`, `no-cache`), nil when absent.
        package var maxAge: TimeInterval?
        package var milliseconds: Double?

        /// The outcome for an app.
        package func outcome(for applicationIdentifier: String) -> AssociationOutcome {
            switch result {
            case .file(let file):
                file.approvedApplicationIdentifiers.contains(applicationIdentifier)
                    ? .approved : .notListed(approving: file.approvedApplicationIdentifiers.sorted())
            case .failure(let outcome):
                outcome
            }
        }
    }

    /// Fetches and judges `host`'s association file (for `handoff manifest lint --check-sites`
    /// too).
    package func fetch(host: String) async -> Fetched {
        let client: WebClient
        do {
            client = try WebClient(folder: folder)
        } catch {
            return Fetched(
                host: host, result: .failure(.unreachable("no local web: \(error)")), maxAge: nil, milliseconds: nil)
        }
        let url = SiteAssociationFile.url(host: host)
        let response: WebResponse
        do {
            // One byte over the limit tells "too large" apart from "exactly the limit".
            response = try await client.get(url, timeout: timeout, maximumBytes: SiteAssociationFile.maximumBytes + 1)
        } catch {
            let outcome: AssociationOutcome =
                switch error {
                case .timedOut(_, let seconds): .timedOut(seconds: seconds)
                case .tooLarge: .tooLarge(bytes: SiteAssociationFile.maximumBytes + 1)
                default: .unreachable(error.description)
                }
            return Fetched(host: host, result: .failure(outcome), maxAge: nil, milliseconds: nil)
        }
        return Fetched(
            host: host, result: Self.judge(response, host: host),
            maxAge: Self.maxAge(cacheControl: response.headers["cache-control"]),
            milliseconds: response.milliseconds)
    }

    /// Apple's rules on a response: 200, no redirect, `application/json`, at most 128 KB, JSON in
    /// the association file's shape.
    package static func judge(_ response: WebResponse, host: String) -> Fetched.Result {
        switch response.status {
        case 200: break
        case 301, 302, 303, 307, 308:
            return .failure(
                .redirected(
                    status: response.status,
                    location: response.headers["location"].map { String($0.prefix(200)) } ?? "nowhere"))
        case 404: return .failure(.notFound)
        default: return .failure(.httpStatus(response.status))
        }
        guard response.body.count <= SiteAssociationFile.maximumBytes else {
            return .failure(.tooLarge(bytes: response.body.count))
        }
        guard response.mediaType == "application/json" else {
            return .failure(.wrongContentType(String(response.contentType.prefix(100))))
        }
        do {
            return .file(try SiteAssociationFile(host: host, data: response.body))
        } catch {
            switch error.problem {
            case .notJSON: return .failure(.notJSON(error.reason))
            case .malformed: return .failure(.malformed(error.reason))
            case .tooLarge: return .failure(.tooLarge(bytes: response.body.count))
            }
        }
    }

    /// `max-age=N` → N; `no-store` or `no-cache` → 0; nil when neither is there (or the header
    /// is absent). Directives are case-insensitive; a malformed value counts as absent.
    package static func maxAge(cacheControl: String?) -> TimeInterval? {
        guard let cacheControl else { return nil }
        var result: TimeInterval?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            switch parts.first {
            case "no-store", "no-cache": return 0
            case "max-age":
                guard parts.count == 2 else { continue }
                let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                if let seconds = Int(value), seconds >= 0 { result = TimeInterval(min(seconds, 365 * 86_400)) }
            default: continue
            }
        }
        return result
    }
}
