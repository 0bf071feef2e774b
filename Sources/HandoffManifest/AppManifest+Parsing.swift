import Foundation
import HandoffCore

extension AppManifest {
    /// Reads a manifest from an app's Info.plist and, optionally, its entitlements file.
    ///
    /// Both files may be XML (comments and a DOCTYPE included), binary or OpenStep property lists.
    /// Build-setting references such as `$(PRODUCT_BUNDLE_IDENTIFIER)` are expanded from
    /// `buildSettings` (see ``BuildSettingExpander``); in the entitlements, `$(CFBundleIdentifier)`
    /// is the Info.plist's bundle identifier unless `buildSettings` defines it.
    ///
    /// The manifest is checked with the rules of ``ManifestLint``: any error makes this
    /// initializer throw, warnings do not. Errors name the file by its path as given
    /// (`URL.relativePath`) and the key.
    ///
    /// - Throws: ``ManifestError/unreadable(_:)`` when a file cannot be read or parsed, and
    ///   ``ManifestError/invalid(_:)`` with every error otherwise.
    public init(
        infoPlistAt infoPlistURL: URL,
        entitlementsAt entitlementsURL: URL? = nil,
        buildSettings: [String: String] = [:],
        team: String? = nil
    ) throws(ManifestError) {
        let analysis: ManifestAnalysis
        do {
            analysis = try ManifestLint.analyze(
                infoPlistAt: infoPlistURL, entitlementsAt: entitlementsURL, buildSettings: buildSettings, team: team)
        } catch {
            throw .unreadable(error)
        }
        try self.init(analysis)
    }

    /// Reads a manifest from the contents of an Info.plist and, optionally, an entitlements file,
    /// naming them `infoPlistName` and `entitlementsName` in errors.
    ///
    /// Behaves as ``init(infoPlistAt:entitlementsAt:buildSettings:)``, e.g. an Info.plist without
    /// a bundle identifier throws an error described as `Info.plist: CFBundleIdentifier: missing; …`.
    public init(
        infoPlist: Data,
        entitlements: Data? = nil,
        buildSettings: [String: String] = [:],
        infoPlistName: String = "Info.plist",
        entitlementsName: String = "entitlements"
    ) throws(ManifestError) {
        let analysis: ManifestAnalysis
        do {
            analysis = try ManifestLint.analyze(
                infoPlist: infoPlist, entitlements: entitlements, buildSettings: buildSettings,
                infoPlistName: infoPlistName, entitlementsName: entitlementsName)
        } catch {
            throw .unreadable(error)
        }
        try self.init(analysis)
    }

    /// The manifest an error-free analysis describes. A missing bundle or team identifier is
    /// always an error, so both are known when there is none.
    init(_ analysis: ManifestAnalysis) throws(ManifestError) {
        let report = analysis.report
        var errors = report.errors + analysis.unresolvedForInstall
        if errors.isEmpty, report.teamIdentifier == nil,
            let missing = report.warnings.first(where: { $0.key == "TeamIdentifier" })
        {
            // Apple needs no team in the files; the simulator does, to match activities.
            errors.append(
                ManifestProblem(severity: .error, message: missing.message, key: missing.key, file: missing.file))
        }
        guard errors.isEmpty, let bundleIdentifier = report.bundleIdentifier, let teamIdentifier = report.teamIdentifier
        else {
            throw .invalid(errors)
        }
        self.init(
            bundleIdentifier: bundleIdentifier,
            teamIdentifier: teamIdentifier,
            displayName: analysis.displayName,
            activityTypes: report.activityTypes,
            documentTypes: report.documentTypes,
            associatedDomains: report.associatedDomains,
            sceneManifest: report.sceneManifest)
    }
}

/// The files of an app as Xcode keeps them: the Info.plist, and beside it its entitlements
/// (`*.entitlements`) and build settings (`BuildSettings.xcconfig`).
public struct AppFiles: Sendable, Hashable {
    public var infoPlist: URL
    /// The entitlements file beside the Info.plist: the only `*.entitlements` there, or the one
    /// named after the folder (`Map/Map.entitlements`) when there are several; nil when none.
    public var entitlements: URL?
    /// `BuildSettings.xcconfig` beside the Info.plist, when there is one.
    public var buildSettings: URL?

    public init(infoPlist: URL, entitlements: URL?, buildSettings: URL?) {
        self.infoPlist = infoPlist
        self.entitlements = entitlements
        self.buildSettings = buildSettings
    }

    /// Finds the files beside `infoPlist` (its folder as given, not where a symbolic link points).
    ///
    /// - Throws: ``ManifestError/ambiguousEntitlements(folder:candidates:)`` when several
    ///   entitlements files are there and none is named after the folder.
    public static func beside(_ infoPlist: URL) throws(ManifestError) -> AppFiles {
        let folder = infoPlist.deletingLastPathComponent()
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
        let entitlements = names.filter { $0.hasSuffix(".entitlements") }
        var chosen: String?
        if entitlements.count == 1 {
            chosen = entitlements[0]
        } else if entitlements.count > 1 {
            let named = folder.lastPathComponent + ".entitlements"
            guard entitlements.contains(named) else {
                throw .ambiguousEntitlements(folder: folder.relativePath, candidates: entitlements)
            }
            chosen = named
        }
        let settings = folder.appendingPathComponent(BuildSettingsFile.defaultFileName)
        return AppFiles(
            infoPlist: infoPlist, entitlements: chosen.map { folder.appendingPathComponent($0) },
            buildSettings: FileManager.default.fileExists(atPath: settings.path) ? settings : nil)
    }
}

extension AppManifest {
    /// Reads the app whose Info.plist is at `infoPlist`, with the entitlements and build settings
    /// beside it (``AppFiles/beside(_:)``); `buildSettings` add to (and override) the file's.
    ///
    /// - Throws: ``ManifestError`` naming the file and key of every error.
    /// - Parameter entitlements: An entitlements file instead of the one beside the Info.plist.
    public init(
        appAt infoPlist: URL, buildSettings extra: [String: String] = [:], team: String? = nil,
        entitlements: URL? = nil
    ) throws(ManifestError) {
        var files = try AppFiles.beside(infoPlist)
        if let entitlements { files.entitlements = entitlements }
        var settings: [String: String] = [:]
        if let file = files.buildSettings {
            do {
                settings = try BuildSettingsFile(contentsOf: file).settings
            } catch {
                throw .buildSettings(error)
            }
        }
        settings.merge(extra) { _, given in given }
        try self.init(infoPlistAt: infoPlist, entitlementsAt: files.entitlements, buildSettings: settings, team: team)
    }
}
