import Foundation
import HandoffCore

/// One thing wrong with a manifest, located by file and key path.
public struct ManifestProblem: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How bad a problem is. Errors make ``AppManifest/init(infoPlistAt:entitlementsAt:buildSettings:)``
    /// throw and `handoff manifest lint` exit with status 1; warnings do neither.
    public enum Severity: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The manifest is wrong: Handoff cannot rely on it as it is.
        case error
        /// The manifest works but is probably not what was meant.
        case warning
        /// Not a problem at Apple: a key or requirement of the simulator's own, or a build
        /// setting Xcode defines, said so.
        case note

        public var description: String { rawValue }
    }

    /// How bad the problem is.
    public var severity: Severity
    /// What is wrong, in a phrase that follows the key (e.g. "expected a string, found an integer").
    public var message: String
    /// The property-list key path, e.g. `NSUserActivityTypes[2]` or
    /// `CFBundleDocumentTypes[0].NSUbiquitousDocumentUserActivityType`.
    public var key: String
    /// The file the key is in, as the caller named it.
    public var file: String

    /// Creates a problem.
    public init(severity: Severity, message: String, key: String, file: String) {
        self.severity = severity
        self.message = message
        self.key = key
        self.file = file
    }

    /// `<file>: <key>: <message>`, e.g. `Info.plist: CFBundleIdentifier: missing`.
    public var description: String { "\(file): \(key): \(message)" }
}

/// What `handoff manifest lint` finds in an app's manifest: what the app can continue, and every
/// problem.
///
/// Strings are reported after build-setting expansion; a reference that could not be expanded
/// stays verbatim (and is reported as a problem). Lists contain each value once, in declaration
/// order; repetitions are reported as problems.
///
/// Encoded as JSON, every key is present: `bundleIdentifier` and `teamIdentifier` are `null`
/// when unknown, and so is a document type's `ubiquitousActivityType` when it has none.
public struct ManifestLintReport: Sendable, Hashable, Codable {
    /// `CFBundleIdentifier`, or `nil` when it is missing or not a string.
    public var bundleIdentifier: String?
    /// The team identifier, from the first source that declares one (see
    /// ``AppManifest/teamIdentifier``), or `nil` when none does.
    public var teamIdentifier: String?
    /// `NSUserActivityTypes`: the string entries.
    public var activityTypes: [String]
    /// `CFBundleDocumentTypes`: the dictionary entries (a missing name is reported as empty).
    public var documentTypes: [AppManifest.DocumentType]
    /// `com.apple.developer.associated-domains` from the entitlements: the string entries.
    public var associatedDomains: [String]
    /// `UIApplicationSceneManifest`, or nil when the app has none (or it is broken: see `problems`).
    public var sceneManifest: AppManifest.SceneManifest?
    /// Every problem, in the order the keys are checked.
    public var problems: [ManifestProblem]
    /// Never a problem (severity ``ManifestProblem/Severity/note``): what the simulator needs
    /// that Apple does not, said so that nobody adds it to a real app, and build settings Xcode
    /// defines when it builds the app, left as written.
    public var notes: [ManifestProblem] = []

    /// Creates a report.
    public init(
        bundleIdentifier: String?,
        teamIdentifier: String?,
        activityTypes: [String],
        documentTypes: [AppManifest.DocumentType],
        associatedDomains: [String],
        sceneManifest: AppManifest.SceneManifest? = nil,
        problems: [ManifestProblem]
    ) {
        self.sceneManifest = sceneManifest
        self.bundleIdentifier = bundleIdentifier
        self.teamIdentifier = teamIdentifier
        self.activityTypes = activityTypes
        self.documentTypes = documentTypes
        self.associatedDomains = associatedDomains
        self.problems = problems
    }

    /// The problems of severity ``ManifestProblem/Severity/error``.
    public var errors: [ManifestProblem] { problems.filter { $0.severity == .error } }
    /// The problems of severity ``ManifestProblem/Severity/warning``.
    public var warnings: [ManifestProblem] { problems.filter { $0.severity == .warning } }
    /// Whether any problem is an error.
    public var hasErrors: Bool { problems.contains { $0.severity == .error } }

    private enum CodingKeys: String, CodingKey {
        case bundleIdentifier, teamIdentifier, activityTypes, documentTypes, associatedDomains, sceneManifest, problems,
            notes
    }

    private enum SceneKeys: String, CodingKey {
        case supportsMultipleScenes, configurations
    }

    private enum ConfigurationKeys: String, CodingKey {
        case role, name, delegateClass
    }

    private enum DocumentTypeKeys: String, CodingKey {
        case name, contentTypes, ubiquitousActivityType
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bundleIdentifier, forKey: .bundleIdentifier)
        try container.encode(teamIdentifier, forKey: .teamIdentifier)
        try container.encode(activityTypes, forKey: .activityTypes)
        var documents = container.nestedUnkeyedContainer(forKey: .documentTypes)
        for documentType in documentTypes {
            var document = documents.nestedContainer(keyedBy: DocumentTypeKeys.self)
            try document.encode(documentType.name, forKey: .name)
            try document.encode(documentType.contentTypes, forKey: .contentTypes)
            try document.encode(documentType.ubiquitousActivityType, forKey: .ubiquitousActivityType)
        }
        try container.encode(associatedDomains, forKey: .associatedDomains)
        if let sceneManifest {
            var scenes = container.nestedContainer(keyedBy: SceneKeys.self, forKey: .sceneManifest)
            try scenes.encode(sceneManifest.supportsMultipleScenes, forKey: .supportsMultipleScenes)
            var configurations = scenes.nestedUnkeyedContainer(forKey: .configurations)
            for configuration in sceneManifest.configurations {
                var entry = configurations.nestedContainer(keyedBy: ConfigurationKeys.self)
                try entry.encode(configuration.role, forKey: .role)
                try entry.encode(configuration.name, forKey: .name)
                try entry.encode(configuration.delegateClass, forKey: .delegateClass)
            }
        } else {
            try container.encodeNil(forKey: .sceneManifest)
        }
        try container.encode(problems, forKey: .problems)
        try container.encode(notes, forKey: .notes)
    }
}

/// Checks an app's Info.plist and entitlements for everything Handoff relies on.
///
/// The rules, with their severity:
/// - `CFBundleIdentifier` is present (error), a string (error), not empty and made of ASCII
///   letters, digits, `-` and `.` with no empty component (error), in reverse-DNS form (warning).
/// - A team identifier is known (warning: Apple takes it from the code signature, the simulator
///   needs it): `--team`, `com.apple.developer.team-identifier` in the entitlements, or the
///   prefix of `application-identifier` / `com.apple.application-identifier` (which must look like
///   `TEAMID.bundle.identifier`, error), else `TeamIdentifier` in the Info.plist (the
///   simulator's key: a note). All that are declared agree (error). It is 10 uppercase letters or
///   digits (warning). The application identifier names the bundle identifier (warning).
/// - `UIApplicationSceneManifest` is a dictionary (error) with an optional Boolean
///   `UIApplicationSupportsMultipleScenes` (error) and an optional `UISceneConfigurations`
///   dictionary (error) of roles, each an array (error) of dictionaries (error) whose
///   `UISceneConfigurationName` and `UISceneDelegateClassName` are strings (error). A delegate
///   class named `$(PRODUCT_MODULE_NAME).SceneDelegate`, as Xcode's templates write it, needs no
///   build settings (Xcode always defines the module name; the simulator matches the class alone).
/// - `NSUserActivityTypes` is an array of strings (error); each is not empty (error), reverse-DNS
///   (``ReverseDNS``) or a known system type such as `NSUserActivityTypeBrowsingWeb` (warning:
///   Apple advises it, and real apps such as NetNewsWire use `ReadArticle`), and appears once
///   (warning).
/// - `CFBundleDocumentTypes` is an array of dictionaries (error). Each has a string
///   `CFBundleTypeName` (error), `LSItemContentTypes` as an array (error) of non-empty strings
///   (error) that are uniform type identifiers (warning), declared once (warning), and at least
///   one content type (warning). `NSUbiquitousDocumentUserActivityType` is a non-empty string
///   (error) in reverse-DNS form (warning, as for `NSUserActivityTypes`); several document types
///   may share one (PG "Multiple document types can have the same activity type").
/// - `com.apple.developer.associated-domains` in the entitlements is an array of strings (error),
///   each `service:domain[:port][?mode=…]` with a known service (applinks, webcredentials,
///   activitycontinuation, appclips), a valid domain (`*.` allowed) and mode (error), declared
///   once (warning). In the Info.plist it has no effect (warning).
/// - The app can continue something: an activity type, a ubiquitous document type or an
///   `activitycontinuation:` domain (warning).
/// - Every value of the wrong type is an error, and so is every build-setting reference that
///   cannot be expanded, except in display names (`CFBundleDisplayName`, `CFBundleName`,
///   `CFBundleTypeName`), where it is a warning, and except a setting Xcode always defines
///   (``xcodeDefinedSettings``, such as `PRODUCT_BUNDLE_IDENTIFIER`), which is a note: lint is no
///   stricter than Xcode. Installing the app (``AppManifest``) still needs the values it uses.
public enum ManifestLint {
    /// The services an associated-domain entry may name.
    public static let associatedDomainServices = ["applinks", "webcredentials", "activitycontinuation", "appclips"]

    /// Build settings Xcode defines for every app target it builds (or derives from the target's
    /// signing and Info.plist): left unresolved, they are a note, not an error, since Xcode never
    /// leaves them so. `CFBundleIdentifier` is the Info.plist's, as the entitlements refer to it.
    public static let xcodeDefinedSettings: Set<String> = [
        "PRODUCT_BUNDLE_IDENTIFIER", "PRODUCT_NAME", "PRODUCT_MODULE_NAME", "EXECUTABLE_NAME",
        "DEVELOPMENT_LANGUAGE", "PRODUCT_BUNDLE_PACKAGE_TYPE", "MARKETING_VERSION", "CURRENT_PROJECT_VERSION",
        "TARGET_NAME", "PROJECT_NAME", "DEVELOPMENT_TEAM", "AppIdentifierPrefix", "TeamIdentifierPrefix",
        "CFBundleIdentifier", "MACOSX_DEPLOYMENT_TARGET", "IPHONEOS_DEPLOYMENT_TARGET", "SRCROOT",
        "INFOPLIST_FILE", "CODE_SIGN_ENTITLEMENTS",
    ]

    /// Activity types that Apple defines with names that are not reverse-DNS, and that an app
    /// may declare.
    public static let systemActivityTypes: Set<String> = [UserActivity.browsingWebType]

    /// Lints the Info.plist at `infoPlistURL` and the optional entitlements at `entitlementsURL`.
    ///
    /// Problems name each file by its path as given (`URL.relativePath`).
    ///
    /// - Parameter buildSettings: Values for the build settings the files refer to, such as
    ///   `PRODUCT_BUNDLE_IDENTIFIER` (see ``BuildSettingExpander``).
    /// - Throws: ``ManifestReadError`` only when a file cannot be read or parsed, or its top
    ///   level is not a dictionary; everything else is a problem in the report.
    public static func lint(
        infoPlistAt infoPlistURL: URL,
        entitlementsAt entitlementsURL: URL? = nil,
        buildSettings: [String: String] = [:],
        team: String? = nil
    ) throws(ManifestReadError) -> ManifestLintReport {
        try analyze(
            infoPlistAt: infoPlistURL, entitlementsAt: entitlementsURL, buildSettings: buildSettings, team: team
        ).report
    }

    /// Lints an Info.plist and optional entitlements given as data (XML, binary or OpenStep
    /// property lists), naming them `infoPlistName` and `entitlementsName` in problems.
    ///
    /// - Throws: ``ManifestReadError`` only when the data cannot be parsed or its top level is not
    ///   a dictionary.
    public static func lint(
        infoPlist: Data,
        entitlements: Data? = nil,
        buildSettings: [String: String] = [:],
        infoPlistName: String = "Info.plist",
        entitlementsName: String = "entitlements"
    ) throws(ManifestReadError) -> ManifestLintReport {
        try analyze(
            infoPlist: infoPlist, entitlements: entitlements, buildSettings: buildSettings,
            infoPlistName: infoPlistName, entitlementsName: entitlementsName
        ).report
    }

    static func analyze(
        infoPlistAt infoPlistURL: URL, entitlementsAt entitlementsURL: URL?, buildSettings: [String: String],
        team: String? = nil
    ) throws(ManifestReadError) -> ManifestAnalysis {
        let info = try PropertyListReader.read(contentsOf: infoPlistURL, name: infoPlistURL.relativePath)
        let entitlements = try entitlementsURL.map { url throws(ManifestReadError) in
            try PropertyListReader.read(contentsOf: url, name: url.relativePath)
        }
        return analyze(info: info, entitlements: entitlements, buildSettings: buildSettings, team: team)
    }

    static func analyze(
        infoPlist: Data, entitlements: Data?, buildSettings: [String: String],
        infoPlistName: String, entitlementsName: String
    ) throws(ManifestReadError) -> ManifestAnalysis {
        let info = try PropertyListReader.parse(infoPlist, name: infoPlistName)
        let entitlementsFile = try entitlements.map { data throws(ManifestReadError) in
            try PropertyListReader.parse(data, name: entitlementsName)
        }
        return analyze(info: info, entitlements: entitlementsFile, buildSettings: buildSettings)
    }

    static func analyze(
        info: PropertyListFile, entitlements: PropertyListFile?, buildSettings: [String: String],
        team: String? = nil
    ) -> ManifestAnalysis {
        var checker = ManifestChecker(
            info: info, entitlements: entitlements, expander: BuildSettingExpander(settings: buildSettings))
        checker.teamOverride = team
        return checker.run()
    }
}

/// A lint report with what else ``AppManifest`` needs.
struct ManifestAnalysis: Sendable {
    var report: ManifestLintReport
    /// `CFBundleDisplayName`, else `CFBundleName`, when one is a fully expanded, non-empty string.
    var displayName: String?
    /// Build settings Xcode always defines that were left unresolved in a value the installed
    /// app needs: a note for lint, an error for installing.
    var unresolvedForInstall: [ManifestProblem] = []
}

// MARK: - The checks

/// Runs the checks of ``ManifestLint`` once, collecting problems.
private struct ManifestChecker {
    let info: PropertyListFile
    let entitlements: PropertyListFile?
    let expander: BuildSettingExpander
    /// `--team`: the team, whatever the files say.
    var teamOverride: String?
    var problems: [ManifestProblem] = []
    var notes: [ManifestProblem] = []
    /// Values Xcode would have given that an installed app needs (its identifiers and types).
    var unresolvedForInstall: [ManifestProblem] = []

    init(info: PropertyListFile, entitlements: PropertyListFile?, expander: BuildSettingExpander) {
        self.info = info
        self.entitlements = entitlements
        self.expander = expander
    }

    /// A string after expansion; `isResolved` is false when a reference was left verbatim.
    struct Expanded {
        var value: String
        var isResolved: Bool
    }

    mutating func run() -> ManifestAnalysis {
        let bundleIdentifier = checkBundleIdentifier()
        let displayName = checkDisplayName()
        let entitlementsExpander =
            bundleIdentifier.flatMap { $0.isResolved ? $0.value : nil }
            .map { expander.addingDefault($0, for: "CFBundleIdentifier") } ?? expander
        let teamIdentifier = checkTeamIdentifier(
            bundleIdentifier: bundleIdentifier, entitlementsExpander: entitlementsExpander)
        let activityTypes = checkActivityTypes()
        let documentTypes = checkDocumentTypes()
        let associatedDomains = checkAssociatedDomains(expander: entitlementsExpander)
        let sceneManifest = checkSceneManifest()
        checkSomethingIsContinuable(
            activityTypes: activityTypes, documentTypes: documentTypes, associatedDomains: associatedDomains)
        var report = ManifestLintReport(
            bundleIdentifier: bundleIdentifier?.value, teamIdentifier: teamIdentifier,
            activityTypes: activityTypes, documentTypes: documentTypes,
            associatedDomains: associatedDomains, sceneManifest: sceneManifest, problems: problems)
        report.notes = notes
        return ManifestAnalysis(
            report: report, displayName: displayName, unresolvedForInstall: unresolvedForInstall)
    }

    // MARK: Recording

    mutating func error(_ message: String, key: String, in file: PropertyListFile) {
        problems.append(ManifestProblem(severity: .error, message: message, key: key, file: file.name))
    }

    mutating func warning(_ message: String, key: String, in file: PropertyListFile) {
        problems.append(ManifestProblem(severity: .warning, message: message, key: key, file: file.name))
    }

    mutating func note(_ message: String, key: String, in file: PropertyListFile) {
        notes.append(ManifestProblem(severity: .note, message: message, key: key, file: file.name))
    }

    /// The string `value`, expanded; records a problem and returns `nil` when `value` is not a string.
    mutating func string(
        _ value: PropertyListValue, key: String, in file: PropertyListFile,
        expander: BuildSettingExpander? = nil, unresolved severity: ManifestProblem.Severity = .error,
        ignoring ignored: Set<BuildSettingIssue> = []
    ) -> Expanded? {
        guard case .string(let raw) = value else {
            error("expected a string, found \(value.kindDescription)", key: key, in: file)
            return nil
        }
        let expansion = (expander ?? self.expander).expand(raw)
        for issue in expansion.issues where !ignored.contains(issue) {
            if case .undefined(let name) = issue, ManifestLint.xcodeDefinedSettings.contains(name) {
                // Xcode defines it when it builds the app: Apple's build never leaves it
                // unresolved, so lint says so and goes on; installing the app needs its value.
                note("$(\(name)) is left as written: " + Self.xcodeDefinition(of: name), key: key, in: file)
                if severity == .error {
                    unresolvedForInstall.append(
                        ManifestProblem(
                            severity: .error,
                            message: "unresolved build setting $(\(name)): Xcode defines it at build time; "
                                + "give its value (--define \(name)=VALUE or a BuildSettings.xcconfig) to install the app",
                            key: key, file: file.name))
                }
                continue
            }
            var message = issue.description
            if issue == .undefined(name: "CFBundleIdentifier"), file.name != info.name {
                message += " (in the entitlements it is the Info.plist's CFBundleIdentifier, once that is known)"
            }
            problems.append(ManifestProblem(severity: severity, message: message, key: key, file: file.name))
        }
        return Expanded(value: expansion.value, isResolved: expansion.isComplete)
    }

    /// Where Xcode's value of a setting comes from, and how to give it here.
    static func xcodeDefinition(of name: String) -> String {
        switch name {
        case "CFBundleIdentifier":
            "Xcode defines it when it builds the app, as the Info.plist's CFBundleIdentifier; "
                + "pass that value (--define PRODUCT_BUNDLE_IDENTIFIER=VALUE) to check it"
        case "AppIdentifierPrefix", "TeamIdentifierPrefix":
            "Xcode defines it when it builds the app, from the signing team; "
                + "pass --define DEVELOPMENT_TEAM=VALUE to check the value"
        default:
            "Xcode defines it when it builds the app; pass --define \(name)=VALUE to check the value"
        }
    }

    /// The elements of the array `value`; records a problem and returns `nil` when it is not an array.
    mutating func array(
        _ value: PropertyListValue, of elements: String, key: String, in file: PropertyListFile
    ) -> [PropertyListValue]? {
        guard case .array(let array) = value else {
            error("expected an array of \(elements), found \(value.kindDescription)", key: key, in: file)
            return nil
        }
        return array
    }

    // MARK: Identity

    mutating func checkBundleIdentifier() -> Expanded? {
        let key = "CFBundleIdentifier"
        guard let value = info.root[key] else {
            error("missing; every app needs a bundle identifier", key: key, in: info)
            return nil
        }
        guard let identifier = string(value, key: key, in: info) else { return nil }
        guard identifier.isResolved else { return identifier }
        switch Self.bundleIdentifierProblem(identifier.value) {
        case .none:
            break
        case .some(.notReverseDNS):
            warning(
                "\(identifier.value.quotedForDisplay) is not in reverse-DNS form (as in com.example.app)",
                key: key, in: info)
        case .some(.invalid(let reason)):
            error(
                "\(identifier.value.quotedForDisplay) is not a valid bundle identifier: \(reason)", key: key, in: info)
        }
        return identifier
    }

    enum BundleIdentifierProblem {
        case invalid(String)
        case notReverseDNS
    }

    /// Apple's rule: ASCII letters, digits, hyphens and periods.
    static func bundleIdentifierProblem(_ identifier: String) -> BundleIdentifierProblem? {
        if identifier.isEmpty { return .invalid("it is empty") }
        if let bad = identifier.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".")) }
        ) {
            return .invalid(
                "it contains \(String(bad).quotedForDisplay); only ASCII letters, digits, '-' and '.' are allowed")
        }
        let components = identifier.split(separator: ".", omittingEmptySubsequences: false)
        if components.contains(where: \.isEmpty) {
            return .invalid("it has an empty component (a leading, trailing or double dot)")
        }
        return components.count < 2 ? .notReverseDNS : nil
    }

    mutating func checkDisplayName() -> String? {
        var displayName: String?
        for key in ["CFBundleDisplayName", "CFBundleName"] {
            guard let value = info.root[key], let name = string(value, key: key, in: info, unresolved: .warning) else {
                continue
            }
            if displayName == nil, name.isResolved, !name.value.isEmpty { displayName = name.value }
        }
        return displayName
    }

    /// One declaration of the team identifier.
    struct TeamDeclaration {
        var value: Expanded
        var key: String
        var file: PropertyListFile
    }

    mutating func checkTeamIdentifier(
        bundleIdentifier: Expanded?, entitlementsExpander: BuildSettingExpander
    ) -> String? {
        var declarations: [TeamDeclaration] = []
        var declaredAnywhere = false
        if let teamOverride {
            declaredAnywhere = true
            let commandLine = PropertyListFile(name: "--team", root: [:])
            declarations.append(
                TeamDeclaration(
                    value: Expanded(value: teamOverride, isResolved: true), key: "--team", file: commandLine))
        } else if let raw = expander.settings["DEVELOPMENT_TEAM"], !raw.isEmpty {
            // The team Xcode signs with: `--team` overrides it, as a command-line build setting would.
            declaredAnywhere = true
            let buildSettings = PropertyListFile(name: "build settings", root: ["DEVELOPMENT_TEAM": .string(raw)])
            if let team = string(.string(raw), key: "DEVELOPMENT_TEAM", in: buildSettings) {
                declarations.append(TeamDeclaration(value: team, key: "DEVELOPMENT_TEAM", file: buildSettings))
            }
        }
        if let entitlements {
            let key = "com.apple.developer.team-identifier"
            if let value = entitlements.root[key] {
                declaredAnywhere = true
                if let team = string(value, key: key, in: entitlements, expander: entitlementsExpander) {
                    declarations.append(TeamDeclaration(value: team, key: key, file: entitlements))
                }
            }
            for key in ["application-identifier", "com.apple.application-identifier"] {
                guard let value = entitlements.root[key] else { continue }
                declaredAnywhere = true
                // An unresolved application identifier has no team to show: its problem is reported.
                guard let identifier = string(value, key: key, in: entitlements, expander: entitlementsExpander),
                    identifier.isResolved
                else { continue }
                guard let dot = identifier.value.firstIndex(of: "."),
                    dot != identifier.value.startIndex,
                    identifier.value.index(after: dot) != identifier.value.endIndex
                else {
                    error(
                        "\(identifier.value.quotedForDisplay) is not of the form TEAMID.bundle.identifier",
                        key: key, in: entitlements)
                    continue
                }
                let prefix = String(identifier.value[..<dot])
                declarations.append(
                    TeamDeclaration(value: Expanded(value: prefix, isResolved: true), key: key, file: entitlements))
                let suffix = String(identifier.value[identifier.value.index(after: dot)...])
                if let bundle = bundleIdentifier, bundle.isResolved,
                    !Self.applicationIdentifierSuffix(suffix, matches: bundle.value)
                {
                    warning(
                        "names the bundle identifier \(suffix.quotedForDisplay), but CFBundleIdentifier is \(bundle.value.quotedForDisplay)",
                        key: key, in: entitlements)
                }
            }
        }

        if let value = info.root["TeamIdentifier"] {
            declaredAnywhere = true
            if let team = string(value, key: "TeamIdentifier", in: info) {
                declarations.append(TeamDeclaration(value: team, key: "TeamIdentifier", file: info))
                note(
                    "the simulator's key, not Apple's (Apple reads the team from the code signature); the simulator uses it "
                        + "when neither --team, DEVELOPMENT_TEAM nor the entitlements name the team",
                    key: "TeamIdentifier",
                    in: info)
            }
        }
        let resolved = declarations.filter(\.value.isResolved)
        for declaration in resolved where declaration.value.value.isEmpty {
            error("is empty", key: declaration.key, in: declaration.file)
        }
        let usable = resolved.filter { !$0.value.value.isEmpty }
        if let first = usable.first {
            for other in usable.dropFirst() where other.value.value != first.value.value {
                error(
                    "team identifier \(other.value.value.quotedForDisplay) does not match \(first.value.value.quotedForDisplay) "
                        + "from \(first.key) in \(first.file.name)",
                    key: other.key, in: other.file)
            }
            if !Self.isWellFormedTeamIdentifier(first.value.value) {
                warning(
                    "\(first.value.value.quotedForDisplay) is not 10 uppercase letters or digits, the form of an Apple team identifier",
                    key: first.key, in: first.file)
            }
            return first.value.value
        }
        if !declaredAnywhere {
            warning(
                "no team identifier: Apple reads it from the code signature, but the simulator needs it to match "
                    + "activities and app IDs; pass --team TEAMID or --define DEVELOPMENT_TEAM=TEAMID, or name it in "
                    + "the entitlements (com.apple.developer.team-identifier or application-identifier)",
                key: "TeamIdentifier", in: info)
        }
        return declarations.first(where: { !$0.value.isResolved })?.value.value
    }

    static func isWellFormedTeamIdentifier(_ team: String) -> Bool {
        team.count == 10 && team.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }
    }

    /// Whether the bundle part of an application identifier names `bundleIdentifier`, allowing
    /// the wildcards `*` and `prefix.*` of development profiles.
    static func applicationIdentifierSuffix(_ suffix: String, matches bundleIdentifier: String) -> Bool {
        if suffix == bundleIdentifier || suffix == "*" { return true }
        if suffix.hasSuffix(".*") { return bundleIdentifier.hasPrefix(String(suffix.dropLast())) }
        return false
    }

    // MARK: Activity types

    mutating func checkActivityTypes() -> [String] {
        let key = "NSUserActivityTypes"
        guard let value = info.root[key], let entries = array(value, of: "strings", key: key, in: info) else {
            return []
        }
        var types: [String] = []
        var firstIndex: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            let path = "\(key)[\(index)]"
            guard let type = string(entry, key: path, in: info) else { continue }
            if type.isResolved, type.value.isEmpty {
                error("is empty; an activity type needs a name to be matched", key: path, in: info)
                continue
            }
            if type.isResolved, !ManifestLint.systemActivityTypes.contains(type.value),
                let problem = ReverseDNS.validate(type.value)
            {
                warning(
                    "\(type.value.quotedForDisplay) is not a reverse-DNS activity type (\(problem)); Apple advises "
                        + "reverse-DNS (com.example.app.reading) but accepts it", key: path, in: info)
            }
            if let first = firstIndex[type.value] {
                warning("\(type.value.quotedForDisplay) is already declared at \(key)[\(first)]", key: path, in: info)
            } else {
                firstIndex[type.value] = index
                types.append(type.value)
            }
        }
        return types
    }

    // MARK: Document types

    mutating func checkDocumentTypes() -> [AppManifest.DocumentType] {
        let key = "CFBundleDocumentTypes"
        guard let value = info.root[key], let entries = array(value, of: "dictionaries", key: key, in: info) else {
            return []
        }
        var documentTypes: [AppManifest.DocumentType] = []
        for (index, entry) in entries.enumerated() {
            let path = "\(key)[\(index)]"
            guard case .dictionary(let document) = entry else {
                error("expected a dictionary, found \(entry.kindDescription)", key: path, in: info)
                continue
            }

            var name = ""
            if let value = document["CFBundleTypeName"] {
                name = string(value, key: "\(path).CFBundleTypeName", in: info, unresolved: .warning)?.value ?? ""
            } else {
                error("missing; every document type needs a name", key: "\(path).CFBundleTypeName", in: info)
            }

            let contentTypes = checkContentTypes(document["LSItemContentTypes"], path: "\(path).LSItemContentTypes")

            var ubiquitousType: String?
            let ubiquitousPath = "\(path).NSUbiquitousDocumentUserActivityType"
            if let value = document["NSUbiquitousDocumentUserActivityType"],
                let type = string(value, key: ubiquitousPath, in: info)
            {
                ubiquitousType = type.value
                if type.isResolved, type.value.isEmpty {
                    error("is empty; an activity type needs a name to be matched", key: ubiquitousPath, in: info)
                } else if type.isResolved, let problem = ReverseDNS.validate(type.value) {
                    warning(
                        "\(type.value.quotedForDisplay) is not a reverse-DNS activity type (\(problem)); Apple advises "
                            + "reverse-DNS (com.example.app.document) but accepts it", key: ubiquitousPath, in: info)
                }
                // PG: "Multiple document types can have the same activity type": not a problem.
            }
            documentTypes.append(
                AppManifest.DocumentType(name: name, contentTypes: contentTypes, ubiquitousActivityType: ubiquitousType)
            )
        }
        return documentTypes
    }

    mutating func checkContentTypes(_ value: PropertyListValue?, path: String) -> [String] {
        guard let value else {
            warning(
                "missing; the document type declares no content types, so no document matches it", key: path, in: info)
            return []
        }
        guard let entries = array(value, of: "strings", key: path, in: info) else { return [] }
        if entries.isEmpty {
            warning(
                "is empty; the document type declares no content types, so no document matches it", key: path, in: info)
        }
        var contentTypes: [String] = []
        for (index, entry) in entries.enumerated() {
            let entryPath = "\(path)[\(index)]"
            guard let type = string(entry, key: entryPath, in: info) else { continue }
            if type.isResolved {
                if type.value.isEmpty {
                    error("is empty", key: entryPath, in: info)
                    continue
                }
                if let problem = ReverseDNS.validate(type.value) {
                    warning(
                        "\(type.value.quotedForDisplay) is not a uniform type identifier: \(problem)", key: entryPath,
                        in: info)
                }
            }
            if contentTypes.contains(type.value) {
                warning("\(type.value.quotedForDisplay) is declared twice", key: entryPath, in: info)
            } else {
                contentTypes.append(type.value)
            }
        }
        return contentTypes
    }

    // MARK: Associated domains

    mutating func checkAssociatedDomains(expander: BuildSettingExpander) -> [String] {
        let key = "com.apple.developer.associated-domains"
        if info.root[key] != nil {
            warning(
                "is an entitlement and has no effect in the Info.plist; move it to the entitlements file", key: key,
                in: info)
        }
        guard let entitlements, let value = entitlements.root[key],
            let entries = array(value, of: "strings", key: key, in: entitlements)
        else { return [] }
        var domains: [String] = []
        for (index, entry) in entries.enumerated() {
            let path = "\(key)[\(index)]"
            guard let domain = string(entry, key: path, in: entitlements, expander: expander) else { continue }
            if domain.isResolved, let problem = Self.associatedDomainProblem(domain.value) {
                error(problem, key: path, in: entitlements)
            }
            if let first = domains.firstIndex(of: domain.value) {
                warning(
                    "\(domain.value.quotedForDisplay) is already declared at \(key)[\(first)]", key: path,
                    in: entitlements)
            } else {
                domains.append(domain.value)
            }
        }
        return domains
    }

    static let associatedDomainModes: Set<Substring> = ["developer", "managed", "developer+managed"]

    /// Why `entry` is not `service:domain[:port][?mode=…]`, or `nil` when it is.
    static func associatedDomainProblem(_ entry: String) -> String? {
        let services = ManifestLint.associatedDomainServices.joined(separator: ", ")
        guard let colon = entry.firstIndex(of: ":") else {
            return "\(entry.quotedForDisplay) has no service prefix; expected service:domain with a service among "
                + "\(services) (e.g. activitycontinuation:\(entry.isEmpty ? "example.com" : entry.escapingInvisibleCharacters))"
        }
        let service = entry[..<colon]
        guard ManifestLint.associatedDomainServices.contains(String(service)) else {
            return
                "\(entry.quotedForDisplay) has an unknown service \(String(service).quotedForDisplay); expected one of \(services)"
        }
        var host = entry[entry.index(after: colon)...]
        if let question = host.firstIndex(of: "?") {
            let query = host[host.index(after: question)...]
            host = host[..<question]
            guard query.hasPrefix("mode="), associatedDomainModes.contains(query.dropFirst("mode=".count)) else {
                return "\(entry.quotedForDisplay) has an invalid query \(String(query).quotedForDisplay); "
                    + "expected ?mode=developer, ?mode=managed or ?mode=developer+managed"
            }
        }
        if let portColon = host.lastIndex(of: ":") {
            let port = host[host.index(after: portColon)...]
            host = host[..<portColon]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCIIDigit), let number = Int(port),
                (1...65535).contains(number)
            else {
                return "\(entry.quotedForDisplay) has an invalid port \(String(port).quotedForDisplay)"
            }
        }
        guard !host.isEmpty else { return "\(entry.quotedForDisplay) has no domain after \"\(service):\"" }
        guard isValidHost(host) else {
            return
                "\(entry.quotedForDisplay) has an invalid domain \(String(host).quotedForDisplay); expected a host name "
                + "such as example.com or *.example.com (internationalized names in their xn-- form)"
        }
        return nil
    }

    /// A DNS host name of ASCII letters, digits and hyphens, optionally starting with `*.`.
    static func isValidHost(_ host: Substring) -> Bool {
        let name = host.hasPrefix("*.") ? host.dropFirst(2) : host
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    // MARK: Overall

    mutating func checkSomethingIsContinuable(
        activityTypes: [String], documentTypes: [AppManifest.DocumentType], associatedDomains: [String]
    ) {
        let key = "NSUserActivityTypes"
        switch info.root[key] {
        case .none, .some(.array([])): break
        default: return
        }
        let hasDocumentActivity = documentTypes.contains { $0.ubiquitousActivityType != nil }
        let hasWebContinuation = associatedDomains.contains { $0.hasPrefix("activitycontinuation:") }
        guard activityTypes.isEmpty, !hasDocumentActivity, !hasWebContinuation else { return }
        warning(
            "\(info.root[key] == nil ? "missing" : "is empty"); the app declares no activity type, ubiquitous document "
                + "type or activitycontinuation domain, so it can continue nothing",
            key: key, in: info)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    /// The string in double quotes, with invisible characters escaped, for messages.
    var quotedForDisplay: String { "\"" + escapingInvisibleCharacters + "\"" }
}

// MARK: - Scenes

extension ManifestChecker {
    /// `UIApplicationSceneManifest`: the app uses scenes. Every broken part is an error naming
    /// its key path; what can be read is kept.
    mutating func checkSceneManifest() -> AppManifest.SceneManifest? {
        let key = "UIApplicationSceneManifest"
        guard let value = info.root[key] else { return nil }
        guard case .dictionary(let root) = value else {
            error(
                "expected a dictionary (UIApplicationSupportsMultipleScenes, UISceneConfigurations), found \(value.kindDescription)",
                key: key, in: info)
            return nil
        }
        var manifest = AppManifest.SceneManifest()
        let multipleKey = "\(key).UIApplicationSupportsMultipleScenes"
        switch root["UIApplicationSupportsMultipleScenes"] {
        case .none: break
        case .some(.boolean(let flag)): manifest.supportsMultipleScenes = flag
        case .some(let other): error("expected a Boolean, found \(other.kindDescription)", key: multipleKey, in: info)
        }
        let configurationsKey = "\(key).UISceneConfigurations"
        guard let configurations = root["UISceneConfigurations"] else { return manifest }
        guard case .dictionary(let roles) = configurations else {
            error(
                "expected a dictionary of session roles (such as UIWindowSceneSessionRoleApplication), found \(configurations.kindDescription)",
                key: configurationsKey, in: info)
            return manifest
        }
        for (role, entries) in roles.sorted(by: { $0.key < $1.key }) {
            let rolePath = "\(configurationsKey).\(role)"
            guard let list = array(entries, of: "scene configurations (dictionaries)", key: rolePath, in: info) else {
                continue
            }
            for (index, entry) in list.enumerated() {
                let path = "\(rolePath)[\(index)]"
                guard case .dictionary(let fields) = entry else {
                    error(
                        "expected a dictionary (UISceneConfigurationName, UISceneDelegateClassName), found \(entry.kindDescription)",
                        key: path, in: info)
                    continue
                }
                var configuration = AppManifest.SceneManifest.Configuration(role: role)
                if let name = fields["UISceneConfigurationName"] {
                    configuration.name =
                        string(name, key: "\(path).UISceneConfigurationName", in: info, unresolved: .warning)?.value
                }
                if let delegate = fields["UISceneDelegateClassName"] {
                    // Xcode always defines PRODUCT_MODULE_NAME, and the simulator matches a delegate
                    // class with or without its module: "$(PRODUCT_MODULE_NAME).SceneDelegate", as
                    // Xcode's templates write it, is not a problem when no build settings are given.
                    // With PRODUCT_NAME given, the module name derives from it as Xcode derives it.
                    let moduleDefault =
                        expander.expand("$(PRODUCT_NAME)").isComplete
                        ? expander.addingDefault("$(PRODUCT_NAME:c99extidentifier)", for: "PRODUCT_MODULE_NAME")
                        : expander
                    configuration.delegateClass =
                        string(
                            delegate, key: "\(path).UISceneDelegateClassName", in: info, expander: moduleDefault,
                            unresolved: .warning, ignoring: [.undefined(name: "PRODUCT_MODULE_NAME")])?.value
                }
                manifest.configurations.append(configuration)
            }
        }
        return manifest
    }
}
