import Foundation

/// A site's approval of apps for web → native Handoff: its `apple-app-site-association` file.
///
/// Each site folder may hold `apple-app-site-association`, Apple's JSON format (unsigned, as
/// since iOS 9); only the `activitycontinuation` service matters here:
///
/// ```json
/// { "activitycontinuation": { "apps": ["SIMTEAM001.com.handoffsim.map"] } }
/// ```
///
/// An app ID is `TEAMID.BUNDLE-ID`. A device routes a browsing-web activity whose page is on the
/// host to an installed app that names the host in an `activitycontinuation:` associated domain
/// *and* whose app ID the host approves (`Device.setSiteApproval(host:applicationIdentifiers:)`);
/// otherwise the page opens in the Browser and the lifecycle log says why. The Browser serves
/// the file at `/apple-app-site-association` and `/.well-known/apple-app-site-association`.
public struct SiteAssociation: Hashable, Sendable {
    /// The file's name in a site's folder.
    public static let fileName = "apple-app-site-association"
    /// The largest file read.
    public static let maximumBytes = 64 * 1024

    /// The host (lower case).
    public var host: String
    /// The app IDs approved for activity continuation.
    public var approvedApplicationIdentifiers: Set<String>

    public init(host: String, approvedApplicationIdentifiers: Set<String>) {
        self.host = host.lowercased()
        self.approvedApplicationIdentifiers = approvedApplicationIdentifiers
    }

    /// Parses a file's bytes for `host`.
    ///
    /// - Throws: ``SiteAssociationError`` naming the host and what is wrong.
    public init(host: String, data: Data) throws(SiteAssociationError) {
        guard data.count <= Self.maximumBytes else { throw .init(host: host, reason: "the file is \(data.count) bytes, over \(Self.maximumBytes)") }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .init(host: host, reason: "not JSON")
        }
        guard let root = object as? [String: Any] else { throw .init(host: host, reason: "the top level is not an object") }
        guard let service = root["activitycontinuation"] else {
            self.init(host: host, approvedApplicationIdentifiers: [])
            return
        }
        guard let dictionary = service as? [String: Any], let apps = dictionary["apps"] as? [Any] else {
            throw .init(host: host, reason: "\"activitycontinuation\" must be an object with an \"apps\" array")
        }
        var identifiers: Set<String> = []
        for app in apps {
            guard let identifier = app as? String, Self.isApplicationIdentifier(identifier) else {
                throw .init(host: host, reason: "\"activitycontinuation.apps\" holds \(String(describing: app).prefix(60)), not an app ID (TEAMID.bundle.id)")
            }
            identifiers.insert(identifier)
        }
        self.init(host: host, approvedApplicationIdentifiers: identifiers)
    }

    /// Reads the association files of every site in `sites` (sites without one approve nothing
    /// and are left out). Files that cannot be used are returned as problems, never thrown.
    public static func load(sites: URL) -> (associations: [SiteAssociation], problems: [SiteAssociationError]) {
        var associations: [SiteAssociation] = []
        var problems: [SiteAssociationError] = []
        for host in SiteLibrary.hosts(in: sites) {
            let file = sites.appendingPathComponent(host, isDirectory: true).appendingPathComponent(fileName)
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            do {
                let data = try Data(contentsOf: file)
                associations.append(try SiteAssociation(host: host, data: data))
            } catch let error as SiteAssociationError {
                problems.append(error)
            } catch {
                problems.append(SiteAssociationError(host: host, reason: "unreadable: \(error.localizedDescription)"))
            }
        }
        return (associations, problems)
    }

    /// Whether `identifier` looks like `TEAMID.bundle.id`: a team ID of ten letters or digits, a dot, a bundle ID.
    static func isApplicationIdentifier(_ identifier: String) -> Bool {
        let parts = identifier.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return false }
        return !parts[1].isEmpty && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-.".contains($0)) }
    }
}

/// A site's association file could not be used.
public struct SiteAssociationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var reason: String

    public init(host: String, reason: String) {
        self.host = host
        self.reason = reason
    }

    public var description: String { "\(host)/\(SiteAssociation.fileName): \(reason)" }
}
