import Foundation
import HandoffCore
import Testing

@testable import HandoffManifest

/// An app as its Xcode project builds it: targets, configurations, the settings' origins, the
/// generated Info.plist keys, and project files that are wrong.
@Suite("Xcode projects")
struct XcodeProjectTests {
    static func url(_ path: String) throws -> URL {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return fixtures.appendingPathComponent("manifests/RealWorld/XcodeProject").appendingPathComponent(path)
    }

    @Test func theProjectListsItsTargetsAndPicksTheOnlyAppTarget() throws {
        let project = try XcodeProject(contentsOf: Self.url(""))
        #expect(project.name == "Checklists")
        #expect(project.targets.map(\.name) == ["Checklists", "ChecklistsTests"])
        #expect(project.targets.map(\.isApplication) == [true, false])
        #expect(try project.target(named: nil).name == "Checklists")
        // The .xcodeproj and its project.pbxproj name the same project.
        #expect(try XcodeProject(contentsOf: Self.url("Checklists.xcodeproj")) == project)
        #expect(try XcodeProject(contentsOf: Self.url("Checklists.xcodeproj/project.pbxproj")) == project)
    }

    @Test func settingsComeFromTheProjectThenTheTargetAndSayWhere() throws {
        let project = try XcodeProject(contentsOf: Self.url(""))
        let target = try project.target(named: "Checklists")
        let debug = try project.buildSettings(for: target, configuration: "Debug")
        #expect(debug.values["PRODUCT_BUNDLE_IDENTIFIER"] == "com.example.checklists.debug")
        #expect(debug.origins["PRODUCT_BUNDLE_IDENTIFIER"] == #"target "Checklists", Debug"#)
        #expect(debug.values["DEVELOPMENT_TEAM"] == "ABCDE12345")
        #expect(debug.origins["DEVELOPMENT_TEAM"] == #"project "Checklists", Debug"#)
        #expect(debug.values["TARGET_NAME"] == "Checklists")
        // A list setting's items, space-separated; $(inherited) is the project's value (none here).
        #expect(debug.values["LD_RUNPATH_SEARCH_PATHS"] == " @executable_path/Frameworks")
        // Without a configuration: the target's default, Release.
        let release = try project.buildSettings(for: target)
        #expect(release.configuration == "Release")
        #expect(release.values["PRODUCT_BUNDLE_IDENTIFIER"] == "com.example.checklists")
    }

    @Test func theAppIsReadAsXcodeBuildsIt() throws {
        let app = try XcodeApp(projectAt: Self.url(""), configuration: "Debug")
        #expect(app.infoPlist?.lastPathComponent == "Info.plist")
        #expect(app.entitlements?.lastPathComponent == "Checklists.entitlements")
        #expect(app.generatedKeys["CFBundleDisplayName"] == "INFOPLIST_KEY_CFBundleDisplayName")
        #expect(
            app.generatedKeys["UIApplicationSceneManifest"] == "INFOPLIST_KEY_UIApplicationSceneManifest_Generation")
        let manifest = try app.manifest()
        #expect(manifest.bundleIdentifier == "com.example.checklists.debug")
        #expect(manifest.teamIdentifier == "ABCDE12345")
        #expect(manifest.displayName == "Checklists β")
        #expect(manifest.activityTypes.contains("com.example.checklists.debug.editing"))
        #expect(manifest.documentTypes.first?.ubiquitousActivityType == "com.example.checklists.debug.document")
        #expect(manifest.associatedDomains == ["activitycontinuation:checklists.example.com"])
        #expect(manifest.sceneManifest?.supportsMultipleScenes == true)
        // Where each value came from.
        #expect(
            app.provenance.contains(
                #"PRODUCT_BUNDLE_IDENTIFIER = com.example.checklists.debug (target "Checklists", Debug)"#))
        #expect(app.provenance.contains(#"DEVELOPMENT_TEAM = ABCDE12345 (project "Checklists", Debug)"#))
        #expect(
            app.provenance.contains("Info.plist CFBundleDisplayName generated from INFOPLIST_KEY_CFBundleDisplayName"))
        // --define and --team win.
        let defined = try XcodeApp(
            projectAt: Self.url(""), configuration: "Release", defines: ["PRODUCT_BUNDLE_IDENTIFIER": "com.example.qa"])
        #expect(defined.settings.origins["PRODUCT_BUNDLE_IDENTIFIER"] == "--define")
        #expect(try defined.manifest(team: "ZYXWV98765").teamIdentifier == "ZYXWV98765")
        #expect(try defined.manifest().bundleIdentifier == "com.example.qa")
        #expect(try defined.lint().problems == [])
    }

    @Test func aWrongTargetOrConfigurationIsNamedWithTheChoices() throws {
        let project = try XcodeProject(contentsOf: Self.url(""))
        let noTarget = try #require(throws: XcodeProjectError.self) { try project.target(named: "Nope") }
        #expect(noTarget.message == #"no target "Nope"; the targets are "Checklists", "ChecklistsTests""#)
        let target = try project.target(named: "Checklists")
        let noConfiguration = try #require(throws: XcodeProjectError.self) {
            try project.buildSettings(for: target, configuration: "Beta")
        }
        #expect(noConfiguration.message.hasSuffix(#"has no configuration "Beta"; it has "Debug", "Release""#))
        // A test target has no Info.plist file and generates one: it reads, but it is no app.
        let tests = try XcodeApp(projectAt: Self.url(""), target: "ChecklistsTests")
        #expect(tests.infoPlist == nil)
    }

    /// A project file is hostile input: each broken part is an error naming the object.
    @Test(arguments: [
        ("{ objects = {}; }", "rootObject: missing, or not an object identifier"),
        ("{ rootObject = X; }", "objects: missing, or not a dictionary"),
        ("{ rootObject = X; objects = { X = { isa = PBXGroup; }; }; }", #"rootObject: object "X" is not a PBXProject"#),
        (
            "{ rootObject = X; objects = { X = { isa = PBXProject; buildConfigurationList = L; }; }; }",
            #"the project's buildConfigurationList: no object "L""#
        ),
        (
            """
            { rootObject = X; objects = { X = { isa = PBXProject; buildConfigurationList = L; targets = T; };
              L = { isa = XCConfigurationList; buildConfigurations = (); }; }; }
            """,
            "the project's targets: missing, or not a list"
        ),
        ("not a property list {", "not a project file"),
    ])
    func brokenProjectFilesAreNamedErrors(text: String, message: String) throws {
        let error = try #require(throws: XcodeProjectError.self) {
            try XcodeProject(
                data: Data(text.utf8), file: "App.xcodeproj/project.pbxproj", name: "App",
                sourceRoot: URL(fileURLWithPath: "/tmp"))
        }
        #expect(error.file == "App.xcodeproj/project.pbxproj")
        #expect(error.message.hasPrefix(message), "\(error)")
    }
}

/// `--app PATH`: an Info.plist, an `.app`-style folder or an Xcode project, each read as a device
/// installs it.
@Suite("Apps from their files")
struct AppSourceTests {
    @Test func eachKindOfPathGivesTheAppItsFilesDeclare() throws {
        let project = try XcodeProjectTests.url("")
        let fromProject = try AppSource(path: project.path, configuration: "Debug")
        #expect(fromProject.manifest.bundleIdentifier == "com.example.checklists.debug")
        #expect(fromProject.provenance.first?.hasPrefix("project ") == true)

        // An .app-style folder: Contents/Info.plist, its entitlements beside it.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let contents = folder.appendingPathComponent("Contents")
        try FileManager.default.createDirectory(at: contents, withIntermediateDirectories: true)
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>
            <key>CFBundleDisplayName</key><string>Notes</string>
            <key>NSUserActivityTypes</key><array><string>com.example.notes.editing</string></array>
            </dict></plist>
            """.utf8
        ).write(to: contents.appendingPathComponent("Info.plist"))
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>
            <key>com.apple.developer.team-identifier</key><string>ABCDE12345</string>
            </dict></plist>
            """.utf8
        ).write(to: contents.appendingPathComponent("Notes.entitlements"))
        let app = try AppSource(path: folder.path, defines: ["PRODUCT_BUNDLE_IDENTIFIER": "com.example.notes"])
        #expect(app.manifest.bundleIdentifier == "com.example.notes")
        #expect(app.manifest.teamIdentifier == "ABCDE12345")
        #expect(app.manifest.displayName == "Notes")
        #expect(app.provenance.contains("PRODUCT_BUNDLE_IDENTIFIER = com.example.notes (--define)"))

        // Without the value Xcode would give, installing says which setting and how to give it.
        let missing = try #require(throws: AppSourceError.self) { try AppSource(path: folder.path) }
        #expect(missing.description.contains("unresolved build setting $(PRODUCT_BUNDLE_IDENTIFIER)"))
        #expect(missing.description.contains("--define PRODUCT_BUNDLE_IDENTIFIER=VALUE"))
    }

    @Test func badPathsAndOptionsAreNamed() throws {
        let nowhere = try #require(throws: AppSourceError.self) { try AppSource(path: "/nonexistent/App") }
        #expect(nowhere.description == "/nonexistent/App: no such file or folder")
        let plist = try XcodeProjectTests.url("Checklists/Info.plist")
        let projectOption = try #require(throws: AppSourceError.self) {
            try AppSource(path: plist.path, target: "Checklists")
        }
        #expect(projectOption.description.hasSuffix("--target and --configuration are for an Xcode project"))
        let project = try XcodeProjectTests.url("")
        let entitlements = try #require(throws: AppSourceError.self) {
            try AppSource(path: project.path, entitlements: "x.entitlements")
        }
        #expect(entitlements.description.contains("a project names its CODE_SIGN_ENTITLEMENTS"))
    }
}
