import Foundation
import HandoffCore
import HandoffManifest
import Testing

/// Info.plists as shipping apps write them: Apple accepts them, so lint reports no error.
@Suite("Manifest lint on real-world Info.plists")
struct RealWorldManifestTests {
    static func url(_ path: String) throws -> URL {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return fixtures.appendingPathComponent("manifests").appendingPathComponent(path)
    }

    @Test func netNewsWireStyleShortTypesAndScenesAreWarningsOnly() throws {
        let info = try Self.url("RealWorld/NetNewsWire/Info.plist")
        let settings = try BuildSettingsFile(contentsOf: Self.url("RealWorld/NetNewsWire/BuildSettings.xcconfig"))
            .settings
        let report = try ManifestLint.lint(infoPlistAt: info, buildSettings: settings)
        #expect(report.errors == [])
        #expect(report.bundleIdentifier == "com.ranchero.NetNewsWire-iOS")
        #expect(report.activityTypes == ["AddWebFeedIntent", "NextUnread", "ReadArticle", "SelectFeed"])
        // Each short activity type is a warning that says Apple accepts it; the team only a warning.
        let warnings = report.warnings.map(\.key)
        #expect(
            warnings == [
                "TeamIdentifier", "NSUserActivityTypes[0]", "NSUserActivityTypes[1]", "NSUserActivityTypes[2]",
                "NSUserActivityTypes[3]",
            ])
        let readArticle = try #require(report.warnings.first { $0.key == "NSUserActivityTypes[2]" })
        #expect(readArticle.message.hasPrefix("\"ReadArticle\" is not a reverse-DNS activity type"))
        #expect(readArticle.message.hasSuffix("but accepts it"))
        // The module name derives from PRODUCT_NAME, as Xcode derives it.
        let scenes = try #require(report.sceneManifest)
        #expect(scenes.supportsMultipleScenes)
        #expect(
            scenes.configurations.map(\.delegateClass) == [
                "NetNewsWire.SceneDelegate", "NetNewsWire.ImageViewerSceneDelegate",
            ])
        #expect(scenes.configurations.map(\.name) == ["Default Configuration", "Image Configuration"])

        // The simulator installs it given a team (Apple's comes from the code signature); without
        // one it says which key and how to give it.
        let noTeam = try #require(throws: ManifestError.self) {
            try AppManifest(infoPlistAt: info, buildSettings: settings)
        }
        #expect(noTeam.description.contains("TeamIdentifier: no team identifier"))
        #expect(noTeam.description.contains("--team"))
        let manifest = try AppManifest(infoPlistAt: info, buildSettings: settings, team: "ABCDE12345")
        #expect(manifest.activityTypes.contains("ReadArticle"))
        #expect(manifest.sceneManifest?.configurations.count == 2)
    }

    /// Lint is no stricter than Xcode: without `--define`, ordinary Xcode Info.plists have no
    /// error; the settings Xcode defines are notes, and a team is at most a warning.
    @Test(arguments: ["RealWorld/NetNewsWire/Info.plist", "RealWorld/DocumentApp/Info.plist"])
    func ordinaryXcodeInfoPlistsLintWithoutBuildSettings(_ path: String) throws {
        let report = try ManifestLint.lint(infoPlistAt: Self.url(path))
        #expect(report.errors == [])
        #expect(report.bundleIdentifier == "$(PRODUCT_BUNDLE_IDENTIFIER)")
        #expect(report.notes.contains { $0.key == "CFBundleIdentifier" && $0.message.contains("Xcode defines it") })
    }

    @Test func documentAppSharesOneUbiquitousTypeAcrossDocumentTypes() throws {
        let info = try Self.url("RealWorld/DocumentApp/Info.plist")
        let report = try ManifestLint.lint(infoPlistAt: info, team: "ABCDE12345")
        #expect(report.problems == [])
        #expect(
            report.documentTypes.map(\.ubiquitousActivityType) == [
                "$(PRODUCT_BUNDLE_IDENTIFIER).example-document", "$(PRODUCT_BUNDLE_IDENTIFIER).example-document",
            ])
        // Given the bundle identifier, as Xcode would, it installs with both document types.
        let manifest = try AppManifest(
            infoPlistAt: info, buildSettings: ["PRODUCT_BUNDLE_IDENTIFIER": "com.example.checklists"],
            team: "ABCDE12345")
        #expect(
            manifest.documentTypes.map(\.ubiquitousActivityType) == [
                "com.example.checklists.example-document", "com.example.checklists.example-document",
            ])
        #expect(manifest.displayName == "com.example.checklists")
    }

    @Test func xcodeTemplateNeedsNoBuildSettingsForItsSceneDelegate() throws {
        let report = try ManifestLint.lint(
            infoPlistAt: Self.url("RealWorld/XcodeTemplate/Info.plist"), team: "ABCDE12345")
        #expect(report.problems == [])
        #expect(report.notes == [])
        let configuration = try #require(report.sceneManifest?.configurations.first)
        // Kept as written: Xcode defines PRODUCT_MODULE_NAME; the simulator matches the class alone.
        #expect(configuration.delegateClass == "$(PRODUCT_MODULE_NAME).SceneDelegate")
        #expect(configuration.role == "UIWindowSceneSessionRoleApplication")
        #expect(report.sceneManifest?.supportsMultipleScenes == false)
    }

    @Test func aBrokenSceneManifestIsAnErrorNamingEachKey() throws {
        let url = try Self.url("BrokenScenes-Info.plist")
        let report = try ManifestLint.lint(infoPlistAt: url)
        let prefix = "UIApplicationSceneManifest"
        let role = "\(prefix).UISceneConfigurations.UIWindowSceneSessionRoleApplication"
        #expect(
            report.errors.map { "\($0.key): \($0.message)" } == [
                "\(prefix).UIApplicationSupportsMultipleScenes: expected a Boolean, found a string",
                "\(role)[0]: expected a dictionary (UISceneConfigurationName, UISceneDelegateClassName), found a string",
                "\(role)[1].UISceneDelegateClassName: expected a string, found an integer",
            ])
        #expect(report.errors.allSatisfy { $0.file == url.relativePath })
        // What could be read is kept.
        #expect(report.sceneManifest?.configurations.map(\.name) == ["Default Configuration"])

        // Installing it fails with the same message, naming the file and the key: no crash.
        let error = try #require(throws: ManifestError.self) { try AppManifest(infoPlistAt: url) }
        #expect(
            error.description.contains(
                "BrokenScenes-Info.plist: \(prefix).UIApplicationSupportsMultipleScenes: expected a Boolean"))
    }

    @Test func aSceneManifestThatIsNotADictionaryIsAnError() throws {
        let data = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>com.example.app</string>
            <key>NSUserActivityTypes</key><array><string>com.example.app.view</string></array>
            <key>UIApplicationSceneManifest</key><array/>
            </dict></plist>
            """.utf8)
        let report = try ManifestLint.lint(infoPlist: data)
        let problem = try #require(report.errors.first)
        #expect(problem.key == "UIApplicationSceneManifest")
        #expect(problem.message.hasPrefix("expected a dictionary"))
        #expect(report.sceneManifest == nil)
    }
}
