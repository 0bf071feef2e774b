import Foundation

/// What an app declares about itself: the parts of its Info.plist and entitlements that Handoff reads.
///
/// Read one from real property-list files with `AppManifest(infoPlistAt:entitlementsAt:buildSettings:)`
/// (in HandoffManifest, `AppManifest+Parsing.swift`), or build one in code.
public struct AppManifest: Sendable, Hashable, Codable {
    /// A document type from `CFBundleDocumentTypes`.
    public struct DocumentType: Sendable, Hashable, Codable {
        /// `CFBundleTypeName`.
        public var name: String
        /// `LSItemContentTypes` (uniform type identifiers such as `public.plain-text`).
        public var contentTypes: [String]
        /// `NSUbiquitousDocumentUserActivityType`: opening a document of this type creates an
        /// activity of this type automatically. It need not be repeated in `NSUserActivityTypes`.
        public var ubiquitousActivityType: String?

        public init(name: String, contentTypes: [String], ubiquitousActivityType: String? = nil) {
            self.name = name
            self.contentTypes = contentTypes
            self.ubiquitousActivityType = ubiquitousActivityType
        }
    }

    /// `CFBundleIdentifier`.
    public var bundleIdentifier: String
    /// The developer team (10 characters at Apple): `TeamIdentifier` in the Info.plist, or
    /// `com.apple.developer.team-identifier` (or the prefix of `application-identifier`) in the entitlements.
    public var teamIdentifier: String
    /// `CFBundleDisplayName`, else `CFBundleName`, else the bundle identifier.
    public var displayName: String
    /// `NSUserActivityTypes`, in declaration order.
    public var activityTypes: [String]
    /// `CFBundleDocumentTypes`.
    public var documentTypes: [DocumentType]
    /// `com.apple.developer.associated-domains`, e.g. `activitycontinuation:example.com`.
    public var associatedDomains: [String]
    /// `UIApplicationSceneManifest`: when present the app uses scenes, and the system talks to
    /// its scene delegate instead of its app delegate for Handoff.
    public var sceneManifest: SceneManifest?

    /// An Info.plist's `UIApplicationSceneManifest`.
    public struct SceneManifest: Sendable, Hashable, Codable {
        /// One entry of `UISceneConfigurations`.
        public struct Configuration: Sendable, Hashable, Codable {
            /// The session role it is listed under, e.g. `UIWindowSceneSessionRoleApplication`.
            public var role: String
            /// `UISceneConfigurationName`.
            public var name: String?
            /// `UISceneDelegateClassName`.
            public var delegateClass: String?

            public init(role: String, name: String? = nil, delegateClass: String? = nil) {
                self.role = role
                self.name = name
                self.delegateClass = delegateClass
            }
        }

        /// `UIApplicationSupportsMultipleScenes` (false when absent).
        public var supportsMultipleScenes: Bool
        /// `UISceneConfigurations`, role by role in the order read.
        public var configurations: [Configuration]

        public init(supportsMultipleScenes: Bool = false, configurations: [Configuration] = []) {
            self.supportsMultipleScenes = supportsMultipleScenes
            self.configurations = configurations
        }
    }

    public init(
        bundleIdentifier: String,
        teamIdentifier: String,
        displayName: String? = nil,
        activityTypes: [String] = [],
        documentTypes: [DocumentType] = [],
        associatedDomains: [String] = [],
        sceneManifest: SceneManifest? = nil
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.teamIdentifier = teamIdentifier
        self.displayName = displayName ?? bundleIdentifier
        self.activityTypes = activityTypes
        self.documentTypes = documentTypes
        self.associatedDomains = associatedDomains
        self.sceneManifest = sceneManifest
    }

    /// `TEAMID.bundle.identifier`, the form site-association files use.
    public var applicationIdentifier: String { "\(teamIdentifier).\(bundleIdentifier)" }

    /// Every activity type this app can continue: `NSUserActivityTypes` plus the ubiquitous
    /// activity types of its document types.
    public var continuableActivityTypes: [String] {
        var seen = Set<String>()
        var result: [String] = []
        for type in activityTypes + documentTypes.compactMap(\.ubiquitousActivityType) where seen.insert(type).inserted
        {
            result.append(type)
        }
        return result
    }

    /// The hosts named by `activitycontinuation:` associated domains (any `?mode=` suffix removed).
    public var activityContinuationDomains: [String] {
        associatedDomains.compactMap { entry in
            guard entry.hasPrefix("activitycontinuation:") else { return nil }
            var host = String(entry.dropFirst("activitycontinuation:".count))
            if let q = host.firstIndex(of: "?") { host = String(host[..<q]) }
            return host.lowercased()
        }
    }

    /// Whether this app claims the browsing-web activity type (it is a browser).
    public var isBrowser: Bool { activityTypes.contains(UserActivity.browsingWebType) }

    /// The document type whose ubiquitous activity type is `activityType`, if any.
    public func documentType(forUbiquitousActivityType activityType: String) -> DocumentType? {
        documentTypes.first { $0.ubiquitousActivityType == activityType }
    }
}
