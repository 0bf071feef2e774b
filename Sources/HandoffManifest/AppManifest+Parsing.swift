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
        buildSettings: [String: String] = [:]
    ) throws(ManifestError) {
        let analysis: ManifestAnalysis
        do {
            analysis = try ManifestLint.analyze(
                infoPlistAt: infoPlistURL, entitlementsAt: entitlementsURL, buildSettings: buildSettings)
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
    private init(_ analysis: ManifestAnalysis) throws(ManifestError) {
        let report = analysis.report
        let errors = report.errors
        guard errors.isEmpty, let bundleIdentifier = report.bundleIdentifier, let teamIdentifier = report.teamIdentifier else {
            throw .invalid(errors)
        }
        self.init(
            bundleIdentifier: bundleIdentifier,
            teamIdentifier: teamIdentifier,
            displayName: analysis.displayName,
            activityTypes: report.activityTypes,
            documentTypes: report.documentTypes,
            associatedDomains: report.associatedDomains)
    }
}
