import Foundation

/// One `activitycontinuation:` entry of an app's associated domains
/// (`com.apple.developer.associated-domains`): `activitycontinuation:maps.example.com`,
/// `activitycontinuation:*.example.com`, with an optional `:port` and `?mode=developer`.
///
/// Apple's rule for wildcards: "you can prefix a domain with `*.` to match all of its subdomains".
/// `*.example.com` matches `www.example.com` and `a.b.example.com`, not `example.com` itself
/// (which needs its own entry). A device cannot list a wildcard's subdomains when the app is
/// installed, so it verifies the entry with the association file of the domain itself
/// (`https://example.com/.well-known/apple-app-site-association`).
public struct AssociatedDomain: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The service of Handoff's web ↔ native continuation.
    public static let activityContinuation = "activitycontinuation"

    /// The domain, lower case, without `*.`, port or mode.
    public var host: String
    /// True for `*.host`: every subdomain of `host`.
    public var isWildcard: Bool

    public init(host: String, isWildcard: Bool = false) {
        self.host = host.lowercased()
        self.isWildcard = isWildcard
    }

    /// Parses `entry` (`SERVICE:DOMAIN[:PORT][?mode=MODE]`) when its service is `service`; nil
    /// for another service or an entry without a usable domain.
    public init?(entry: String, service: String = AssociatedDomain.activityContinuation) {
        guard entry.hasPrefix(service + ":") else { return nil }
        var domain = Substring(entry.dropFirst(service.count + 1))
        if let query = domain.firstIndex(of: "?") { domain = domain[..<query] }
        if let colon = domain.firstIndex(of: ":") { domain = domain[..<colon] }
        let wildcard = domain.hasPrefix("*.")
        if wildcard { domain = domain.dropFirst(2) }
        let host = domain.lowercased()
        guard Self.isHostName(host) else { return nil }
        self.init(host: host, isWildcard: wildcard)
    }

    /// `example.com` or `*.example.com`.
    public var description: String { (isWildcard ? "*." : "") + host }

    /// Where the association file that verifies this entry is fetched.
    public var fileHost: String { host }

    /// Whether a page on `pageHost` belongs to this entry.
    public func matches(host pageHost: String) -> Bool {
        let pageHost = pageHost.lowercased()
        return isWildcard ? pageHost.hasSuffix("." + host) : pageHost == host
    }

    /// How specific the entry is for a host it matches: an exact entry beats every wildcard, a
    /// longer wildcard a shorter one.
    public var specificity: Int { isWildcard ? host.count : Int.max }

    public static func < (lhs: AssociatedDomain, rhs: AssociatedDomain) -> Bool {
        (lhs.host, lhs.isWildcard ? 1 : 0) < (rhs.host, rhs.isWildcard ? 1 : 0)
    }

    /// Letters, digits, hyphens and dots; no empty label.
    static func isHostName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 253
            && !name.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }
}

extension AppManifest {
    /// The app's `activitycontinuation:` associated domains, parsed, without duplicates.
    public var activityContinuationEntries: [AssociatedDomain] {
        var seen = Set<AssociatedDomain>()
        return associatedDomains.compactMap { AssociatedDomain(entry: $0) }.filter { seen.insert($0).inserted }
    }

    /// The most specific of the app's `activitycontinuation:` entries that matches `host`.
    public func activityContinuationEntry(matching host: String) -> AssociatedDomain? {
        activityContinuationEntries.filter { $0.matches(host: host) }.max { $0.specificity < $1.specificity }
    }
}

/// The `activitycontinuation` part of a site's `apple-app-site-association` file: Apple's JSON,
/// unsigned (accepted since iOS 9; a file signed as iOS 8 required is opened first, in HandoffWeb):
///
/// ```json
/// { "activitycontinuation": { "apps": ["SIMTEAM001.com.handoffsim.map"] } }
/// ```
///
/// The bytes are hostile input: size-capped, parsed without trusting any shape, and every
/// problem is a ``SiteAssociationError`` naming the host and what is wrong.
public struct SiteAssociationFile: Hashable, Sendable {
    /// The file's name, at `/.well-known/` (and, before iOS 9.3, at the site's root).
    public static let fileName = "apple-app-site-association"
    /// Its address on a host.
    public static func url(host: String, port: Int? = nil) -> URL {
        URL(string: "https://\(host)\(port.map { ":\($0)" } ?? "")/.well-known/\(fileName)")!
    }
    /// Apple's limit: the system reads at most 128 KB of the file.
    public static let maximumBytes = 128 * 1024

    /// The host (lower case).
    public var host: String
    /// The app IDs (`TEAMID.bundle.id`) approved for activity continuation.
    public var approvedApplicationIdentifiers: Set<String>
    /// Entries of `apps` that are not app IDs, each with its index and what it holds (at most
    /// ``maximumIgnoredEntries``): a malformed entry approves nothing and voids no other.
    public var ignoredEntries: [String]
    /// How many ignored entries are described.
    public static let maximumIgnoredEntries = 8

    public init(host: String, approvedApplicationIdentifiers: Set<String>, ignoredEntries: [String] = []) {
        self.host = host.lowercased()
        self.approvedApplicationIdentifiers = approvedApplicationIdentifiers
        self.ignoredEntries = ignoredEntries
    }

    /// Parses a file's bytes for `host`.
    ///
    /// - Throws: ``SiteAssociationError`` naming the host and what is wrong: ``SiteAssociationError/Problem/notJSON``
    ///   when the bytes are not JSON, ``SiteAssociationError/Problem/malformed`` when the JSON is not
    ///   an association file's shape, ``SiteAssociationError/Problem/tooLarge`` over 128 KB.
    public init(host: String, data: Data) throws(SiteAssociationError) {
        guard data.count <= Self.maximumBytes else {
            throw .init(
                host: host, .tooLarge, "the file is \(data.count) bytes, over Apple's \(Self.maximumBytes / 1024) KB")
        }
        // HandoffCore's one JSON model; a top-level value that is neither an object nor an array
        // is not JSON here, as JSONSerialization (which read these files before) had it.
        let object: JSONValue
        do {
            guard let text = String(bytes: data, encoding: .utf8) else {
                throw JSONParseError(offset: 0, message: "not UTF-8")
            }
            object = try JSONValue.parse(text)
            guard object.objectValue != nil || object.arrayValue != nil else {
                throw JSONParseError(offset: 0, message: "a fragment")
            }
        } catch {
            let start = String(decoding: data.prefix(24), as: UTF8.self).filter {
                !$0.isNewline && $0.isASCII && !$0.asciiValue!.isControl
            }
            throw .init(
                host: host, .notJSON, data.isEmpty ? "the file is empty, not JSON" : "not JSON (it starts “\(start)”)")
        }
        guard let root = object.objectValue else {
            throw .init(host: host, .malformed, "the top level is not a JSON object")
        }
        guard let service = root["activitycontinuation"] else {
            self.init(host: host, approvedApplicationIdentifiers: [])
            return
        }
        guard let dictionary = service.objectValue, let apps = dictionary["apps"]?.arrayValue else {
            throw .init(host: host, .malformed, "\"activitycontinuation\" must be an object with an \"apps\" array")
        }
        // Each entry stands alone: one that is not an app ID approves nothing and voids no other.
        var identifiers: Set<String> = []
        var ignored: [String] = []
        for (index, app) in apps.enumerated() {
            guard let identifier = app.stringValue, Self.isApplicationIdentifier(identifier) else {
                if ignored.count < Self.maximumIgnoredEntries {
                    let shown = String((app.stringValue.map { "\"\($0)\"" } ?? app.jsonText).prefix(60)).filter {
                        !$0.isNewline
                    }
                    ignored.append("apps[\(index)] holds \(shown), not an app ID (TEAMID.bundle.id)")
                }
                continue
            }
            identifiers.insert(identifier)
        }
        self.init(host: host, approvedApplicationIdentifiers: identifiers, ignoredEntries: ignored)
    }

    /// Whether `identifier` looks like `TEAMID.bundle.id`: a team ID of ten letters or digits, a dot, a bundle ID.
    public static func isApplicationIdentifier(_ identifier: String) -> Bool {
        let parts = identifier.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 10,
            parts[0].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return false }
        return !parts[1].isEmpty
            && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-.".contains($0)) }
    }
}

extension UInt8 {
    fileprivate var isControl: Bool { self < 0x20 || self == 0x7F }
}

/// A site's association file could not be used.
public struct SiteAssociationError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Problem: String, Sendable, Hashable {
        case notJSON, malformed, tooLarge
    }

    public var host: String
    public var problem: Problem
    public var reason: String

    public init(host: String, _ problem: Problem, _ reason: String) {
        self.host = host.lowercased()
        self.problem = problem
        self.reason = reason
    }

    public var description: String { "\(host)/.well-known/\(SiteAssociationFile.fileName): \(reason)" }
}

/// What a device learnt when it fetched the association file that verifies one of an app's
/// `activitycontinuation:` domains.
public enum AssociationOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The file lists the app's ID: pages of the domain may continue in the app.
    case approved
    /// The file is valid but does not list the app (it approves these others).
    case notListed(approving: [String])
    /// The server answered 404: the site has no association file.
    case notFound
    /// Another HTTP status than 200 or 404.
    case httpStatus(Int)
    /// The body is not JSON.
    case notJSON(String)
    /// The body is JSON but not an association file's shape.
    case malformed(String)
    /// The response's `Content-Type` is not `application/json`.
    case wrongContentType(String)
    /// The server redirected: Apple fetches association files "with no redirects".
    case redirected(status: Int, location: String)
    /// Larger than Apple's 128 KB.
    case tooLarge(bytes: Int)
    /// A signed file (PKCS #7, as iOS 8 required) whose signature the device cannot accept, or
    /// signed bytes served as something else: why.
    case signatureInvalid(String)
    /// No answer in time.
    case timedOut(seconds: Double)
    /// No connection (no server, refused, TLS failed, no address for the host).
    case unreachable(String)

    /// The outcome's name in the headless JSON and the log.
    public var name: String {
        switch self {
        case .approved: "approved"
        case .notListed: "notListed"
        case .notFound: "notFound"
        case .httpStatus: "httpStatus"
        case .notJSON: "notJSON"
        case .malformed: "malformed"
        case .wrongContentType: "wrongContentType"
        case .redirected: "redirected"
        case .tooLarge: "tooLarge"
        case .signatureInvalid: "signatureInvalid"
        case .timedOut: "timedOut"
        case .unreachable: "unreachable"
        }
    }

    /// Whether the site answered with a usable file (approving the app or not); every other
    /// outcome is a failure, and a device keeps the last answer it had.
    public var isAnswer: Bool {
        switch self {
        case .approved, .notListed: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .approved: "approved"
        case .notListed(let others):
            others.isEmpty
                ? "not listed (the file approves no app)"
                : "not listed (the file approves \(others.sorted().joined(separator: ", ")))"
        case .notFound: "404: the site has no association file"
        case .httpStatus(let status): "HTTP \(status) instead of 200"
        case .notJSON(let reason): "not JSON: \(reason)"
        case .malformed(let reason): "not an association file: \(reason)"
        case .wrongContentType(let type): "wrong content type \(type.isEmpty ? "(none)" : type), not application/json"
        case .redirected(let status, let location): "redirected (\(status) to \(location)): Apple follows no redirects"
        case .tooLarge(let bytes): "\(ByteCount.text(bytes)), over Apple's 128 KB"
        case .signatureInvalid(let reason): "signed (PKCS #7) and refused: \(reason)"
        case .timedOut(let seconds): "no answer in \(LifecycleEvent.seconds(seconds))"
        case .unreachable(let reason): "unreachable: \(reason)"
        }
    }
}

/// One verification of one app's `activitycontinuation:` domain, as the device recorded it.
public struct SiteAssociationCheck: Sendable, Hashable {
    /// The app (`CFBundleIdentifier`).
    public var bundleIdentifier: String
    /// `TEAMID.bundle.id`, what the file must list.
    public var applicationIdentifier: String
    /// The entitlement's entry.
    public var domain: AssociatedDomain
    public var outcome: AssociationOutcome
    /// When the answer arrived (or the fetch gave up).
    public var checkedAt: Date
    /// Until when the answer may be reused (`Cache-Control: max-age`); a device fetches again
    /// after it when the app is installed or launched.
    public var expiresAt: Date
    /// How long the fetch took.
    public var milliseconds: Double?

    public init(
        bundleIdentifier: String, applicationIdentifier: String, domain: AssociatedDomain, outcome: AssociationOutcome,
        checkedAt: Date, expiresAt: Date, milliseconds: Double? = nil
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.applicationIdentifier = applicationIdentifier
        self.domain = domain
        self.outcome = outcome
        self.checkedAt = checkedAt
        self.expiresAt = expiresAt
        self.milliseconds = milliseconds
    }
}

/// What a device knows about one app's domain: the latest check, and the latest answer the site
/// gave (kept when a later fetch fails, so a server that stops answering does not take back an
/// approval the device still holds).
public struct SiteAssociationRecord: Sendable, Hashable {
    public var latest: SiteAssociationCheck
    /// The latest check whose outcome was an answer (approved or not listed).
    public var lastAnswer: SiteAssociationCheck?

    public init(latest: SiteAssociationCheck, lastAnswer: SiteAssociationCheck?) {
        self.latest = latest
        self.lastAnswer = lastAnswer
    }

    /// Whether the app may continue the domain's pages at `now`: the latest answer approves it,
    /// and, when a later fetch failed (the server stopped answering), that answer has not expired:
    /// an approval is cached as long as its response said (`Cache-Control: max-age`), no longer.
    public func isApproved(at now: Date) -> Bool {
        guard let answer = lastAnswer, answer.outcome == .approved else { return false }
        return latest.outcome.isAnswer || answer.expiresAt > now
    }

    /// Whether the device should fetch again at `now` (the latest check expired).
    public func isExpired(at now: Date) -> Bool { latest.expiresAt <= now }
}

/// Why one app that names a page's host did not get the page (per app and domain).
public struct WebRoutingRefusal: Sendable, Hashable, CustomStringConvertible {
    public var bundleIdentifier: String
    public var applicationIdentifier: String
    public var domain: AssociatedDomain
    /// The latest outcome; nil when the device has not checked the domain yet.
    public var outcome: AssociationOutcome?

    public init(
        bundleIdentifier: String, applicationIdentifier: String, domain: AssociatedDomain, outcome: AssociationOutcome?
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.applicationIdentifier = applicationIdentifier
        self.domain = domain
        self.outcome = outcome
    }

    public var description: String {
        "\(bundleIdentifier) (\(domain)): " + (outcome.map(\.description) ?? "the association file was not fetched yet")
    }
}

/// What a device asks its verifier: fetch the association files of these domains of one app.
public struct SiteAssociationRequest: Sendable, Hashable {
    public var bundleIdentifier: String
    /// `TEAMID.bundle.id`, what each file must list.
    public var applicationIdentifier: String
    public var domains: [AssociatedDomain]

    public init(bundleIdentifier: String, applicationIdentifier: String, domains: [AssociatedDomain]) {
        self.bundleIdentifier = bundleIdentifier
        self.applicationIdentifier = applicationIdentifier
        self.domains = domains
    }
}
