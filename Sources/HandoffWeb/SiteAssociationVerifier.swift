import Foundation
import HandoffCore
import X509

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
        /// The path that answered: `/.well-known/apple-app-site-association`, or the site's
        /// root when that was not found.
        package var path: String = SiteAssociationVerifier.wellKnownPath
        /// What the device noticed but did not refuse: a signed file, entries of `apps` ignored.
        package var notes: [String] = []

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

    /// Where a device looks first (iOS 9.3 and later).
    package static let wellKnownPath = "/.well-known/\(SiteAssociationFile.fileName)"
    /// Where it looks when that is not found: the site's root, where iOS 8 read the file (PG
    /// "https://example.com/apple-app-site-association").
    package static let rootPath = "/\(SiteAssociationFile.fileName)"

    /// Fetches and judges `host`'s association file (for `handoff manifest lint --check-sites`
    /// too): at `/.well-known/` first and, when that answers 404, at the site's root. A redirect,
    /// another status or a bad file at `/.well-known/` is the answer: only "not found" falls back.
    package func fetch(host: String) async -> Fetched {
        let first = await fetch(host: host, path: Self.wellKnownPath)
        guard case .failure(.notFound) = first.result else { return first }
        let root = await fetch(host: host, path: Self.rootPath)
        if case .failure(.notFound) = root.result { return first }
        var found = root
        found.notes.insert("not at \(Self.wellKnownPath) (404): read at the site's root, \(Self.rootPath)", at: 0)
        return found
    }

    /// Fetches and judges the file at one path of `host`.
    private func fetch(host: String, path: String) async -> Fetched {
        let client: WebClient
        do {
            client = try WebClient(folder: folder)
        } catch {
            return Fetched(
                host: host, result: .failure(.unreachable("no local web: \(error)")), maxAge: nil, milliseconds: nil)
        }
        guard let url = URL(string: "https://\(host)\(path)") else {
            return Fetched(
                host: host, result: .failure(.unreachable("\(host) is not a host name")), maxAge: nil,
                milliseconds: nil, path: path)
        }
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
            return Fetched(host: host, result: .failure(outcome), maxAge: nil, milliseconds: nil, path: path)
        }
        var notes: [String] = []
        let result: Fetched.Result
        switch Self.judge(response, host: host) {
        case .judged(let judged):
            result = judged
        case .signed(let signed):
            notes.append("signed (PKCS #7, as iOS 8 required); \(SignedAssociationFile.currentRule)")
            result = await Self.open(signed, host: host, folder: folder)
        }
        if case .file(let file) = result { notes += file.ignoredEntries.map { "ignored: \($0)" } }
        return Fetched(
            host: host, result: result, maxAge: Self.maxAge(cacheControl: response.headers["cache-control"]),
            milliseconds: response.milliseconds, path: path, notes: notes)
    }

    /// A copy of `host`'s association file read from disk (`handoff doctor --site-file`), judged
    /// as a device judges the file it fetches: at most 128 KB, a signed file (PKCS #7) opened with
    /// the local web's authority, else the JSON's rules. No HTTP: no status, type or redirect.
    package func judge(localFile data: Data, host: String) async -> Fetched {
        func fetched(_ result: Fetched.Result, notes: [String] = []) -> Fetched {
            Fetched(host: host, result: result, maxAge: nil, milliseconds: nil, notes: notes)
        }
        guard data.count <= SiteAssociationFile.maximumBytes else {
            return fetched(.failure(.tooLarge(bytes: data.count)))
        }
        if SignedAssociationFile.looksSigned(data) {
            let note = "signed (PKCS #7, as iOS 8 required); \(SignedAssociationFile.currentRule)"
            do {
                let signed = try SignedAssociationFile(message: data)
                return fetched(await Self.open(signed, host: host, folder: folder), notes: [note])
            } catch {
                return fetched(.failure(.signatureInvalid("\(error.reason); \(SignedAssociationFile.currentRule)")))
            }
        }
        let result = Self.judge(json: data, host: host)
        if case .file(let file) = result { return fetched(result, notes: file.ignoredEntries.map { "ignored: \($0)" }) }
        return fetched(result)
    }

    /// A signed file's content, judged as an unsigned file once its signature verifies against
    /// the local authority (the only root devices trust).
    static func open(
        _ signed: SignedAssociationFile, host: String, folder: WebFolder
    ) async
        -> Fetched.Result
    {
        let root: Certificate
        do {
            root = try LocalCertificateAuthority.trustedCertificate(in: folder)
        } catch {
            return .failure(.signatureInvalid("no trusted authority to check it against: \(error)"))
        }
        switch await signed.verifiedContent(trustRoots: [root]) {
        case .success(let content):
            return judge(json: content, host: host)
        case .failure(let error):
            return .failure(.signatureInvalid("\(error.reason); \(SignedAssociationFile.currentRule)"))
        }
    }

    /// What ``judge(_:host:)`` decides: an outcome, or a signed file whose signature is checked
    /// (asynchronously, by the library) before its content is judged.
    package enum Judgement: Sendable, Hashable {
        case judged(Fetched.Result)
        case signed(SignedAssociationFile)
    }

    /// Apple's rules on a response: 200, no redirect, at most 128 KB, and either
    /// `application/json` with JSON in the association file's shape, or `application/pkcs7-mime`
    /// with a signed file (iOS 8), whose signature is checked next.
    package static func judge(_ response: WebResponse, host: String) -> Judgement {
        switch response.status {
        case 200: break
        case 301, 302, 303, 307, 308:
            return .judged(
                .failure(
                    .redirected(
                        status: response.status,
                        location: response.headers["location"].map { String($0.prefix(200)) } ?? "nowhere")))
        case 404: return .judged(.failure(.notFound))
        default: return .judged(.failure(.httpStatus(response.status)))
        }
        guard response.body.count <= SiteAssociationFile.maximumBytes else {
            return .judged(.failure(.tooLarge(bytes: response.body.count)))
        }
        if SignedAssociationFile.mediaTypes.contains(response.mediaType) {
            do {
                return .signed(try SignedAssociationFile(message: response.body))
            } catch {
                return .judged(
                    .failure(.signatureInvalid("\(error.reason); \(SignedAssociationFile.currentRule)")))
            }
        }
        guard response.mediaType == "application/json" else {
            return .judged(.failure(.wrongContentType(String(response.contentType.prefix(100)))))
        }
        if SignedAssociationFile.looksSigned(response.body) {
            return .judged(
                .failure(
                    .notJSON(
                        "the file is signed (PKCS #7, as iOS 8 required) but served as application/json: serve it "
                            + "as application/pkcs7-mime, or serve the unsigned JSON, as current systems expect")))
        }
        return .judged(judge(json: response.body, host: host))
    }

    /// The association file's JSON rules on `data`.
    static func judge(json data: Data, host: String) -> Fetched.Result {
        do {
            return .file(try SiteAssociationFile(host: host, data: data))
        } catch {
            switch error.problem {
            case .notJSON: return .failure(.notJSON(error.reason))
            case .malformed: return .failure(.malformed(error.reason))
            case .tooLarge: return .failure(.tooLarge(bytes: data.count))
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
