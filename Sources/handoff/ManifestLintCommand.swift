import ArgumentParser
import Foundation
import HandoffCore
import HandoffManifest
import HandoffWeb

/// `handoff manifest lint`: reports what an app can continue and every problem in its manifest.
struct ManifestLintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check an app's Info.plist and entitlements for Handoff.",
        discussion: """
            Prints the activity types, document types (with their ubiquitous activity types) and \
            associated domains the app declares, then every problem found.

            Build settings: $(NAME) references in the files expand to the values of an app's \
            build settings, as Xcode expands them. They are read, in this order (a later value of \
            a name wins), from BuildSettings.xcconfig in the Info.plist's folder when there is one \
            (the folder of the path given, in Xcode's .xcconfig syntax: NAME = VALUE lines, // \
            comments), or from the file given with --build-settings instead, then from each \
            --define. The project's own apps keep theirs next to their manifests \
            (demos/apps/Reader/BuildSettings.xcconfig), so `handoff manifest lint \
            demos/apps/Reader/Info.plist` needs no other argument. The entitlements are found \
            the same way: the only *.entitlements file beside the Info.plist (or the one named \
            after its folder), unless --entitlements names one.

            The team: --team, else the entitlements (com.apple.developer.team-identifier, or the \
            prefix of application-identifier), else TeamIdentifier in the Info.plist, a key of the \
            simulator's own (Apple reads the team from the code signature): notes say where the \
            simulator needs what Apple does not.

            --check-sites fetches the association file of each activitycontinuation: domain over \
            the local web (`handoff web serve`, through its hosts map and certificate authority) \
            as a device does, and reports the outcome per domain; an outcome other than approved \
            is an error.

            Lint is no stricter than Xcode: a setting Xcode defines for every app it builds \
            (PRODUCT_BUNDLE_IDENTIFIER, PRODUCT_NAME, EXECUTABLE_NAME, DEVELOPMENT_LANGUAGE, \
            DEVELOPMENT_TEAM …) is a note when no value is given, and the value stays as written; \
            any other unresolved setting is an error. Installing the app on a device needs every \
            value it uses.

            An Xcode project (a .xcodeproj, its project.pbxproj, or the folder holding it) is read as \
            Xcode builds the app: the target's build settings (the project's, then the target's, \
            then each --define), its INFOPLIST_FILE with the keys GENERATE_INFOPLIST_FILE makes from \
            INFOPLIST_KEY_* settings, its CODE_SIGN_ENTITLEMENTS and DEVELOPMENT_TEAM; the report \
            first says where each value came from. --target and --configuration choose.

            Exit status: 0 when there is no error (warnings allowed), 1 when there are errors, \
            2 when a file cannot be read or parsed, 64 when the arguments are invalid.
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The app's Info.plist (XML, binary or OpenStep property list), or its Xcode project (a .xcodeproj or the folder holding it).",
            valueName: "info-plist"))
    var infoPlist: String

    @Option(help: ArgumentHelp("The app's entitlements file.", valueName: "file"))
    var entitlements: String?

    @Option(
        name: .customLong("define"),
        help: ArgumentHelp(
            "A build setting that $(NAME) and ${NAME} references expand to. Repeat for several; the last value of a name wins.",
            valueName: "KEY=VALUE"))
    var definitions: [String] = []

    @Option(
        name: .customLong("build-settings"),
        help: ArgumentHelp(
            "A file of build settings (.xcconfig syntax) to use instead of the BuildSettings.xcconfig next to the Info.plist.",
            valueName: "file"))
    var buildSettingsFile: String?

    @Flag(help: "Print the report as one JSON object.")
    var json = false

    @Option(
        help: ArgumentHelp("The app's team identifier (Apple takes it from the code signature).", valueName: "TEAMID"))
    var team: String?

    @Flag(help: "Fetch each activitycontinuation: domain's association file over the local web and report the outcome.")
    var checkSites = false

    @Option(
        help: ArgumentHelp(
            "With --check-sites: where the local web's hosts map and authority are (default: $XDG_STATE_HOME/handoff/web).",
            valueName: "dir"))
    var webDir: String?

    @Option(help: ArgumentHelp("With --check-sites: how long each fetch may take (seconds).", valueName: "seconds"))
    var timeout: Double = 5

    @Option(help: ArgumentHelp("For an Xcode project: the target (default: its only app target).", valueName: "name"))
    var target: String?

    @Option(
        help: ArgumentHelp(
            "For an Xcode project: the build configuration (default: the target's, usually Release).",
            valueName: "name"))
    var configuration: String?

    /// Whether the path is an Xcode project (a `.xcodeproj`, its `project.pbxproj`, or a folder
    /// holding one) rather than an Info.plist.
    private var isXcodeProject: Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: infoPlist, isDirectory: &isDirectory) else { return false }
        return isDirectory.boolValue || infoPlist.hasSuffix("project.pbxproj")
    }

    func validate() throws {
        if infoPlist.isEmpty { throw ValidationError("The Info.plist path is empty.") }
        if entitlements?.isEmpty == true { throw ValidationError("The --entitlements path is empty.") }
        if buildSettingsFile?.isEmpty == true { throw ValidationError("The --build-settings path is empty.") }
        if team?.isEmpty == true { throw ValidationError("--team is empty.") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive.") }
        _ = try definedSettings()
    }

    func run() async throws {
        var report: ManifestLintReport
        let settingsFile: URL?
        let entitlementsFile: URL?
        var provenance: [String] = []
        var shownInfoPlist = infoPlist
        if isXcodeProject {
            settingsFile = nil
            do {
                let app = try XcodeApp(
                    projectAt: URL(fileURLWithPath: infoPlist), target: target, configuration: configuration,
                    defines: try definedSettings())
                entitlementsFile = app.entitlements
                provenance = app.provenance
                shownInfoPlist =
                    app.infoPlist.map { $0.relativePath + (app.generatedKeys.isEmpty ? "" : " (with generated keys)") }
                    ?? "generated by Xcode (GENERATE_INFOPLIST_FILE)"
                report = try app.lint(team: team)
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw ExitCode(2)
            }
        } else {
            if target != nil || configuration != nil {
                FileHandle.standardError.write(
                    Data("error: --target and --configuration are for an Xcode project, not an Info.plist\n".utf8))
                throw ExitCode(64)
            }
            do {
                settingsFile = self.settingsFile
                // Several entitlements files beside it and none named after the folder: lint without.
                entitlementsFile =
                    entitlements.map { URL(fileURLWithPath: $0) }
                    ?? (try? AppFiles.beside(URL(fileURLWithPath: infoPlist)))?.entitlements
                var settings =
                    try settingsFile.map { url throws(BuildSettingsFileError) in
                        try BuildSettingsFile(contentsOf: url).settings
                    } ?? [:]
                settings.merge(try definedSettings()) { _, defined in defined }
                report = try ManifestLint.lint(
                    infoPlistAt: URL(fileURLWithPath: infoPlist),
                    entitlementsAt: entitlementsFile,
                    buildSettings: settings, team: team)
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw ExitCode(2)
            }
        }
        var siteLines: [String] = []
        if checkSites {
            let results = await checkedSites(report)
            for (domain, outcome, notes) in results {
                siteLines.append("  activitycontinuation:\(domain): \(outcome)")
                siteLines += notes.map { "    \($0)" }
                if outcome != .approved {
                    report.problems.append(
                        ManifestProblem(
                            severity: .error,
                            message: "\(domain.fileHost)/.well-known/apple-app-site-association: \(outcome)",
                            key: "com.apple.developer.associated-domains",
                            file: entitlementsFile?.relativePath ?? "entitlements"))
                }
            }
            if results.isEmpty { siteLines.append("  no activitycontinuation: domain to check") }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(report)
            print(String(decoding: data, as: UTF8.self))
        } else {
            if !provenance.isEmpty {
                print(
                    TerminalText.sanitized(
                        (["Xcode project:"] + provenance.map { "  " + $0 }).joined(separator: "\n"), keepingLines: true)
                )
            }
            print(
                report.formattedText(
                    infoPlist: shownInfoPlist, entitlements: entitlementsFile?.relativePath,
                    buildSettings: settingsFile?.relativePath))
            // What a site's association file says reaches the terminal only through the sanitizer.
            if checkSites {
                print(
                    TerminalText.sanitized(
                        (["Association files (over the local web):"] + siteLines).joined(separator: "\n"),
                        keepingLines: true))
            }
            if report.problems.contains(where: { $0.message.hasPrefix("unresolved build setting") })
                || report.notes.contains(where: { $0.message.contains("Xcode defines it when it builds the app") })
            {
                print(
                    "Pass the values of build settings with --define NAME=VALUE, or in a \(BuildSettingsFile.defaultFileName) "
                        + "file next to the Info.plist.")
            }
        }
        if report.hasErrors { throw ExitCode(1) }
    }

    /// Each `activitycontinuation:` domain's association file, fetched as a device does, judged
    /// for the app's ID.
    private func checkedSites(
        _ report: ManifestLintReport
    ) async -> [(AssociatedDomain, AssociationOutcome, notes: [String])] {
        let domains = report.associatedDomains.compactMap { AssociatedDomain(entry: $0) }
        guard let bundle = report.bundleIdentifier, let team = report.teamIdentifier else {
            return domains.map {
                ($0, AssociationOutcome.unreachable("the app ID is unknown (no bundle or team identifier)"), [])
            }
        }
        let folder =
            webDir.map { WebFolder(url: URL(fileURLWithPath: $0, isDirectory: true)) } ?? WebFolder.defaultFolder()
        let verifier = SiteAssociationVerifier(folder: folder, timeout: timeout)
        var results: [(AssociatedDomain, AssociationOutcome, notes: [String])] = []
        for domain in domains {
            // As a device fetches it: /.well-known/ first, the root on 404, a signed file opened.
            let fetched = await verifier.fetch(host: domain.fileHost)
            results.append((domain, fetched.outcome(for: "\(team).\(bundle)"), fetched.notes))
        }
        return results
    }

    /// The build-settings file to read: the one given, else the default one next to the Info.plist
    /// when it exists.
    private var settingsFile: URL? {
        if let buildSettingsFile { return URL(fileURLWithPath: buildSettingsFile) }
        let folder = (infoPlist as NSString).deletingLastPathComponent
        let path =
            folder.isEmpty
            ? BuildSettingsFile.defaultFileName
            : (folder as NSString).appendingPathComponent(BuildSettingsFile.defaultFileName)
        return FileManager.default.fileExists(atPath: path) ? URL(fileURLWithPath: path) : nil
    }

    /// The `--define` options as a map.
    private func definedSettings() throws(ValidationError) -> [String: String] {
        try BuildSettingDefinitions.parse(definitions)
    }
}
