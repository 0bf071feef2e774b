import Foundation
import HandoffCore

/// The apps a headless device installs: the scripted app standing in for the demo apps (the
/// Reader's and the Map's activity types, the Reader's document type) and the Browser. One
/// place for `handoff device --headless` and the explorer's in-process world.
package enum ScriptedApps {
    /// The stand-ins a headless device can have.
    package static let known = ["reader", "map", "browser"]
    /// The scripted app's team, the demo apps' team.
    package static let defaultTeam = "SIMTEAM001"
    package static let readingType = "com.handoffsim.reader.reading"
    package static let documentType = "com.handoffsim.reader.document"
    package static let regionType = "com.handoffsim.map.region"
    package static let scriptedBundle = "com.handoffsim.scripted"
    package static let browserBundle = "com.handoffsim.browser"

    /// The scripted app's manifest (the chosen demo apps' types and any extra claimed types),
    /// and the Browser's when chosen.
    package static func manifests(
        apps: [String] = known, claimedTypes: [String] = [], team: String = defaultTeam
    ) -> [AppManifest] {
        var types: [String] = []
        var documentTypes: [AppManifest.DocumentType] = []
        if apps.contains("reader") {
            types.append(readingType)
            documentTypes.append(
                .init(name: "Text Document", contentTypes: ["public.plain-text"], ubiquitousActivityType: documentType))
        }
        if apps.contains("map") { types.append(regionType) }
        types += claimedTypes
        var manifests: [AppManifest] = []
        if !types.isEmpty || !documentTypes.isEmpty {
            manifests.append(
                AppManifest(
                    bundleIdentifier: scriptedBundle, teamIdentifier: team, displayName: "Scripted",
                    activityTypes: types, documentTypes: documentTypes))
        }
        if apps.contains("browser") {
            manifests.append(
                AppManifest(
                    bundleIdentifier: browserBundle, teamIdentifier: defaultTeam, displayName: "Browser",
                    activityTypes: [UserActivity.browsingWebType]))
        }
        return manifests
    }
}
