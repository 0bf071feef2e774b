import Foundation
import HandoffCore

/// An Xcode project as `NAME.xcodeproj/project.pbxproj` describes it (an old-style property
/// list): its native targets and, per build configuration, the build settings of the project and
/// of each target, which is what Xcode expands an app's Info.plist and entitlements with.
///
/// The file is hostile input: it is read as a property list (``PropertyListReader``, size-capped),
/// and every object it refers to is looked up, never trusted; a missing or mistyped one is an
/// ``XcodeProjectError`` naming the file and the object.
public struct XcodeProject: Sendable, Hashable {
    /// One native target.
    public struct Target: Sendable, Hashable {
        /// The target's name (`TARGET_NAME`).
        public var name: String
        /// `productType`, e.g. `com.apple.product-type.application`; nil when absent.
        public var productType: String?
        /// The target's own build settings per configuration name.
        public var configurations: [String: [String: String]]
        /// The configuration Xcode builds when none is named (`defaultConfigurationName`).
        public var defaultConfiguration: String?

        /// Whether the target builds an app (iOS, macOS or a Mac Catalyst app).
        public var isApplication: Bool {
            productType?.hasPrefix("com.apple.product-type.application") == true
        }
    }

    /// The project file, as the caller named it.
    public var file: String
    /// The project's name (`PROJECT_NAME`): the `.xcodeproj` folder's name without extension.
    public var name: String
    /// The folder that holds the `.xcodeproj` (`SRCROOT`): paths in build settings are relative to it.
    public var sourceRoot: URL
    /// The native targets, in the project's order.
    public var targets: [Target]
    /// The project-level build settings per configuration name.
    public var configurations: [String: [String: String]]

    /// Reads `url`: a `.xcodeproj` folder, its `project.pbxproj`, or a folder holding exactly one
    /// `.xcodeproj`.
    public init(contentsOf url: URL) throws(XcodeProjectError) {
        let pbxproj = try Self.projectFile(at: url)
        let data: Data
        do {
            data = try PropertyListReader.readData(at: pbxproj, name: pbxproj.relativePath)
        } catch {
            throw XcodeProjectError(file: pbxproj.relativePath, message: "\(error.description)")
        }
        let bundle = pbxproj.deletingLastPathComponent()
        try self.init(
            data: data, file: pbxproj.relativePath, name: bundle.deletingPathExtension().lastPathComponent,
            sourceRoot: bundle.deletingLastPathComponent())
    }

    /// Parses a `project.pbxproj`'s bytes, naming the file `file` in errors.
    public init(data: Data, file: String, name: String, sourceRoot: URL) throws(XcodeProjectError) {
        let root: [String: PropertyListValue]
        do {
            root = try PropertyListReader.parse(data, name: file).root
        } catch {
            throw XcodeProjectError(file: file, message: "not a project file: \(error.description)")
        }
        var reader = ObjectReader(file: file, root: root)
        let objects = try reader.objects()
        reader.objectsTable = objects
        guard case .string(let rootID) = root["rootObject"] else {
            throw XcodeProjectError(file: file, message: "rootObject: missing, or not an object identifier")
        }
        let project = try reader.object(rootID, isa: "PBXProject", at: "rootObject")
        let projectConfigurations = try reader.configurations(of: project, at: "the project")
        var targets: [Target] = []
        for (index, targetID) in try reader.identifiers(project["targets"], at: "the project's targets").enumerated() {
            guard case .dictionary(let target) = objects[targetID] else {
                throw XcodeProjectError(
                    file: file, message: "the project's targets[\(index)]: no object \(targetID.quotedForDisplay)")
            }
            // Aggregate and legacy targets build nothing an app is made of.
            guard case .string("PBXNativeTarget") = target["isa"] else { continue }
            let label = "target \(reader.string(target["name"]) ?? targetID)"
            guard let name = reader.string(target["name"]), !name.isEmpty else {
                throw XcodeProjectError(file: file, message: "\(label): name: missing")
            }
            let (settings, defaultName) = try reader.configurationList(of: target, at: label)
            targets.append(
                Target(
                    name: name, productType: reader.string(target["productType"]), configurations: settings,
                    defaultConfiguration: defaultName))
        }
        self.file = file
        self.name = name
        self.sourceRoot = sourceRoot
        self.targets = targets
        self.configurations = projectConfigurations
    }

    /// The `project.pbxproj` that `url` names.
    static func projectFile(at url: URL) throws(XcodeProjectError) -> URL {
        if url.lastPathComponent == "project.pbxproj" { return url }
        if url.pathExtension == "xcodeproj" { return url.appendingPathComponent("project.pbxproj") }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
        let projects = names.filter { $0.hasSuffix(".xcodeproj") }
        guard projects.count == 1 else {
            throw XcodeProjectError(
                file: url.relativePath,
                message: projects.isEmpty
                    ? "a folder with no .xcodeproj in it; give an Info.plist or an Xcode project"
                    : "several projects (\(projects.joined(separator: ", "))); name one")
        }
        return url.appendingPathComponent(projects[0]).appendingPathComponent("project.pbxproj")
    }

    /// The target `name` names, or the only app target when `name` is nil.
    public func target(named name: String?) throws(XcodeProjectError) -> Target {
        if let name {
            guard let target = targets.first(where: { $0.name == name }) else {
                throw XcodeProjectError(
                    file: file,
                    message: "no target \(name.quotedForDisplay); the targets are "
                        + targets.map(\.name.quotedForDisplay).joined(separator: ", "))
            }
            return target
        }
        let apps = targets.filter(\.isApplication)
        guard apps.count == 1 else {
            throw XcodeProjectError(
                file: file,
                message: apps.isEmpty
                    ? "no app target (the targets are \(targets.map(\.name.quotedForDisplay).joined(separator: ", ")))"
                    : "several app targets (\(apps.map(\.name.quotedForDisplay).joined(separator: ", "))); "
                        + "choose one with --target")
        }
        return apps[0]
    }

    /// The build settings Xcode uses for `target` in `configuration` (the target's default when
    /// nil, else Release): the project's, then the target's over them (`$(inherited)` is the
    /// project's value), and what Xcode always defines for a target (`TARGET_NAME`,
    /// `PROJECT_NAME`, `SRCROOT`, `CONFIGURATION`, and `PRODUCT_NAME` as `$(TARGET_NAME)` when the
    /// project sets none). Each value says where it came from.
    public func buildSettings(
        for target: Target, configuration: String? = nil
    ) throws(XcodeProjectError) -> ResolvedBuildSettings {
        let chosen = configuration ?? target.defaultConfiguration ?? "Release"
        guard let own = target.configurations[chosen] else {
            throw XcodeProjectError(
                file: file,
                message: "target \(target.name.quotedForDisplay) has no configuration \(chosen.quotedForDisplay); "
                    + "it has " + target.configurations.keys.sorted().map(\.quotedForDisplay).joined(separator: ", "))
        }
        var resolved = ResolvedBuildSettings(target: target.name, configuration: chosen)
        let implied = [
            "TARGET_NAME": target.name, "PROJECT_NAME": name, "SRCROOT": sourceRoot.path, "CONFIGURATION": chosen,
            "PRODUCT_NAME": "$(TARGET_NAME)",
        ]
        for (key, value) in implied { resolved.set(key, value, from: "Xcode, for every target") }
        for (key, value) in configurations[chosen] ?? [:] {
            resolved.set(key, value, from: "project \(name.quotedForDisplay), \(chosen)")
        }
        for (key, value) in own {
            let inherited = resolved.values[key] ?? ""
            resolved.set(
                key, value.replacingOccurrences(of: "$(inherited)", with: inherited),
                from: "target \(target.name.quotedForDisplay), \(chosen)")
        }
        return resolved
    }
}

/// Build settings with where each one came from.
public struct ResolvedBuildSettings: Sendable, Hashable {
    public var target: String
    public var configuration: String
    public var values: [String: String] = [:]
    /// For each setting: "target "App", Debug", "project "App", Debug", "--define", …
    public var origins: [String: String] = [:]

    public init(target: String, configuration: String) {
        self.target = target
        self.configuration = configuration
    }

    public mutating func set(_ key: String, _ value: String, from origin: String) {
        values[key] = value
        origins[key] = origin
    }

    /// A path setting (`INFOPLIST_FILE`, `CODE_SIGN_ENTITLEMENTS`) as a file under `sourceRoot`,
    /// after expansion; nil when unset or empty.
    public func path(_ key: String, in sourceRoot: URL) -> URL? {
        guard let raw = values[key] else { return nil }
        let expanded = BuildSettingExpander(settings: values).expand(raw).value
        guard !expanded.isEmpty else { return nil }
        return expanded.hasPrefix("/") ? URL(fileURLWithPath: expanded) : sourceRoot.appendingPathComponent(expanded)
    }

    /// One line per setting an app's files use, with its origin, sorted by name.
    public func describe(_ keys: [String]) -> [String] {
        keys.sorted().compactMap { key in
            values[key].map { "\(key) = \($0.escapingInvisibleCharacters) (\(origins[key] ?? "?"))" }
        }
    }
}

/// A project file that cannot be used: the file and what is wrong, naming the object.
public struct XcodeProjectError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var message: String

    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }
}

/// Looks objects up in a project's `objects` table, checking each one's shape.
private struct ObjectReader {
    let file: String
    let root: [String: PropertyListValue]
    var objectsTable: [String: PropertyListValue] = [:]

    init(file: String, root: [String: PropertyListValue]) {
        self.file = file
        self.root = root
    }

    func objects() throws(XcodeProjectError) -> [String: PropertyListValue] {
        guard case .dictionary(let objects) = root["objects"] else {
            throw XcodeProjectError(file: file, message: "objects: missing, or not a dictionary")
        }
        return objects
    }

    func string(_ value: PropertyListValue?) -> String? {
        if case .string(let text) = value { text } else { nil }
    }

    func object(_ id: String, isa: String, at place: String) throws(XcodeProjectError) -> [String: PropertyListValue] {
        guard case .dictionary(let object) = objectsTable[id] else {
            throw XcodeProjectError(file: file, message: "\(place): no object \(id.quotedForDisplay)")
        }
        guard case .string(isa) = object["isa"] else {
            throw XcodeProjectError(
                file: file, message: "\(place): object \(id.quotedForDisplay) is not a \(isa)")
        }
        return object
    }

    func identifiers(_ value: PropertyListValue?, at place: String) throws(XcodeProjectError) -> [String] {
        guard case .array(let entries) = value else {
            throw XcodeProjectError(file: file, message: "\(place): missing, or not a list")
        }
        var identifiers: [String] = []
        for (index, entry) in entries.enumerated() {
            guard case .string(let id) = entry else {
                throw XcodeProjectError(file: file, message: "\(place)[\(index)]: not an object identifier")
            }
            identifiers.append(id)
        }
        return identifiers
    }

    func configurations(
        of owner: [String: PropertyListValue], at place: String
    ) throws(XcodeProjectError) -> [String: [String: String]] {
        try configurationList(of: owner, at: place).settings
    }

    /// The build settings of each configuration in `owner`'s `buildConfigurationList`.
    func configurationList(
        of owner: [String: PropertyListValue], at place: String
    ) throws(XcodeProjectError) -> (settings: [String: [String: String]], defaultName: String?) {
        guard let listID = string(owner["buildConfigurationList"]) else {
            throw XcodeProjectError(file: file, message: "\(place): buildConfigurationList: missing")
        }
        let list = try object(listID, isa: "XCConfigurationList", at: "\(place)'s buildConfigurationList")
        var result: [String: [String: String]] = [:]
        for id in try identifiers(list["buildConfigurations"], at: "\(place)'s buildConfigurations") {
            let configuration = try object(id, isa: "XCBuildConfiguration", at: "\(place)'s buildConfigurations")
            guard let name = string(configuration["name"]) else {
                throw XcodeProjectError(
                    file: file, message: "\(place): configuration \(id.quotedForDisplay) has no name")
            }
            guard case .dictionary(let raw) = configuration["buildSettings"] ?? .dictionary([:]) else {
                throw XcodeProjectError(
                    file: file, message: "\(place), \(name): buildSettings is not a dictionary")
            }
            var settings: [String: String] = [:]
            for (key, value) in raw {
                switch value {
                case .string(let text): settings[key] = text
                case .array(let items):
                    // A list setting (search paths, flags): its items, space-separated.
                    settings[key] = items.compactMap { string($0) }.joined(separator: " ")
                default:
                    throw XcodeProjectError(
                        file: file,
                        message: "\(place), \(name): \(key) is \(value.kindDescription), not a setting's value")
                }
            }
            result[name] = settings
        }
        return (result, string(list["defaultConfigurationName"]))
    }
}

/// An app as an Xcode project builds it: the target's build settings, its Info.plist
/// (`INFOPLIST_FILE`, and the keys Xcode generates when `GENERATE_INFOPLIST_FILE` is `YES`, from
/// `INFOPLIST_KEY_*` settings), its entitlements (`CODE_SIGN_ENTITLEMENTS`) and its team
/// (`DEVELOPMENT_TEAM`), each with where it came from.
public struct XcodeApp: Sendable {
    public var project: XcodeProject
    public var settings: ResolvedBuildSettings
    /// `INFOPLIST_FILE`, when the target names one.
    public var infoPlist: URL?
    /// `CODE_SIGN_ENTITLEMENTS`, when the target names one.
    public var entitlements: URL?
    /// The Info.plist keys Xcode generates from build settings (empty unless
    /// `GENERATE_INFOPLIST_FILE` is `YES`), each with the setting it comes from.
    public var generatedKeys: [String: String] { generated.mapValues(\.setting) }

    var generated: [String: (value: PropertyListValue, setting: String)] {
        guard settings.values["GENERATE_INFOPLIST_FILE"] == "YES" else { return [:] }
        var keys: [String: (value: PropertyListValue, setting: String)] = [
            "CFBundleDevelopmentRegion": (.string("$(DEVELOPMENT_LANGUAGE)"), "GENERATE_INFOPLIST_FILE"),
            "CFBundleExecutable": (.string("$(EXECUTABLE_NAME)"), "GENERATE_INFOPLIST_FILE"),
            "CFBundleIdentifier": (.string("$(PRODUCT_BUNDLE_IDENTIFIER)"), "GENERATE_INFOPLIST_FILE"),
            "CFBundleName": (.string("$(PRODUCT_NAME)"), "GENERATE_INFOPLIST_FILE"),
            "CFBundlePackageType": (.string("$(PRODUCT_BUNDLE_PACKAGE_TYPE)"), "GENERATE_INFOPLIST_FILE"),
            "CFBundleShortVersionString": (.string("$(MARKETING_VERSION)"), "GENERATE_INFOPLIST_FILE"),
            "CFBundleVersion": (.string("$(CURRENT_PROJECT_VERSION)"), "GENERATE_INFOPLIST_FILE"),
        ]
        for (setting, value) in settings.values where setting.hasPrefix("INFOPLIST_KEY_") {
            let key = String(setting.dropFirst("INFOPLIST_KEY_".count))
            guard !key.isEmpty else { continue }
            if key == "UIApplicationSceneManifest_Generation" {
                // A SwiftUI app's scenes: the manifest Xcode writes names no delegate class.
                if value == "YES" {
                    keys["UIApplicationSceneManifest"] = (
                        .dictionary(["UIApplicationSupportsMultipleScenes": .boolean(true)]), setting
                    )
                }
                continue
            }
            let boolean: PropertyListValue? = value == "YES" ? .boolean(true) : value == "NO" ? .boolean(false) : nil
            keys[key] = (Self.booleanKeys.contains(key) ? boolean ?? .string(value) : .string(value), setting)
        }
        return keys
    }

    /// Info.plist keys whose generated value is a Boolean (`YES`/`NO` in the setting).
    static let booleanKeys: Set<String> = [
        "LSRequiresIPhoneOS", "UIApplicationSupportsIndirectInputEvents", "UIRequiresFullScreen",
        "UIStatusBarHidden", "ITSAppUsesNonExemptEncryption", "UISupportsDocumentBrowser",
        "LSSupportsOpeningDocumentsInPlace",
    ]

    /// Reads the project at `url` and chooses `target` (the only app target when nil) in
    /// `configuration`; `defines` add to and override the project's settings.
    public init(
        projectAt url: URL, target: String? = nil, configuration: String? = nil, defines: [String: String] = [:]
    ) throws(XcodeProjectError) {
        let project = try XcodeProject(contentsOf: url)
        let chosen = try project.target(named: target)
        var settings = try project.buildSettings(for: chosen, configuration: configuration)
        for (key, value) in defines { settings.set(key, value, from: "--define") }
        self.project = project
        self.settings = settings
        infoPlist = settings.path("INFOPLIST_FILE", in: project.sourceRoot)
        entitlements = settings.path("CODE_SIGN_ENTITLEMENTS", in: project.sourceRoot)
        if infoPlist == nil, settings.values["GENERATE_INFOPLIST_FILE"] != "YES" {
            throw XcodeProjectError(
                file: project.file,
                message: "target \(chosen.name.quotedForDisplay) (\(settings.configuration)) has no INFOPLIST_FILE "
                    + "and does not generate its Info.plist")
        }
    }

    /// The team: `team` when given, else `DEVELOPMENT_TEAM`.
    func team(_ team: String?) -> String? {
        team ?? settings.values["DEVELOPMENT_TEAM"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The Info.plist the app would be built with: the file's keys over the generated ones.
    func infoPlistFile() throws(ManifestReadError) -> (file: PropertyListFile, overridden: [String]) {
        let generated = generated
        var root = generated.mapValues(\.value)
        var name = "the Info.plist Xcode generates for \(settings.target)"
        var overridden: [String] = []
        if let infoPlist {
            let file = try PropertyListReader.read(contentsOf: infoPlist, name: infoPlist.relativePath)
            overridden = file.root.keys.filter { generated[$0] != nil }.sorted()
            root.merge(file.root) { _, fromFile in fromFile }
            name = infoPlist.relativePath
        }
        return (PropertyListFile(name: name, root: root), overridden)
    }

    /// Lints the app as Xcode would build it.
    public func lint(team: String? = nil) throws(ManifestReadError) -> ManifestLintReport {
        try analysis(team: team).report
    }

    func analysis(team: String?) throws(ManifestReadError) -> ManifestAnalysis {
        let (info, overridden) = try infoPlistFile()
        let entitlementsFile = try entitlements.map { url throws(ManifestReadError) in
            try PropertyListReader.read(contentsOf: url, name: url.relativePath)
        }
        var analysis = ManifestLint.analyze(
            info: info, entitlements: entitlementsFile, buildSettings: settings.values, team: self.team(team))
        let generated = generated
        for key in overridden {
            analysis.report.notes.append(
                ManifestProblem(
                    severity: .note,
                    message: "set in the file and generated from \(generated[key]?.setting ?? "a build setting"); "
                        + "the file's value is used",
                    key: key, file: info.name))
        }
        return analysis
    }

    /// The app's manifest, as a device installs it.
    public func manifest(team: String? = nil) throws(ManifestError) -> AppManifest {
        let analysis: ManifestAnalysis
        do {
            analysis = try self.analysis(team: team)
        } catch {
            throw .unreadable(error)
        }
        return try AppManifest(analysis)
    }

    /// Where each value that decides Handoff came from, one line each.
    public var provenance: [String] {
        var lines = [
            "project \(project.file), target \(settings.target.quotedForDisplay), configuration \(settings.configuration)"
        ]
        lines += settings.describe([
            "PRODUCT_BUNDLE_IDENTIFIER", "PRODUCT_NAME", "DEVELOPMENT_TEAM", "INFOPLIST_FILE",
            "CODE_SIGN_ENTITLEMENTS", "GENERATE_INFOPLIST_FILE",
        ])
        let generated = generatedKeys
        lines += generated.keys.sorted().compactMap { key in
            guard let setting = generated[key], setting != "GENERATE_INFOPLIST_FILE" else { return nil }
            return "Info.plist \(key) generated from \(setting)"
        }
        return lines
    }
}

/// Where an app's files are, as `handoff device --app PATH` and the doctor take them: an
/// Info.plist, an `.app`-style folder (`Contents/Info.plist` or `Info.plist`, the entitlements
/// beside it), or an Xcode project (a `.xcodeproj`, its `project.pbxproj`, or the folder holding
/// one), read as Xcode builds the app.
public struct AppSource: Sendable {
    /// The app's manifest, as a device installs it.
    public var manifest: AppManifest
    /// Where the values came from, one line each (the project's settings; the files read).
    public var provenance: [String]

    /// Reads the app at `path`.
    ///
    /// - Parameters:
    ///   - defines: Build settings (`--define`), over the project's or `BuildSettings.xcconfig`'s.
    ///   - team: The team (`--team`), over the files'.
    ///   - entitlements: An entitlements file instead of the one beside the Info.plist.
    ///   - target, configuration: For an Xcode project.
    /// - Throws: ``AppSourceError`` naming the file and what is wrong.
    public init(
        path: String, defines: [String: String] = [:], team: String? = nil, entitlements: String? = nil,
        target: String? = nil, configuration: String? = nil
    ) throws(AppSourceError) {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw AppSourceError(path: path, message: "no such file or folder")
        }
        let isProject = path.hasSuffix("project.pbxproj") || url.pathExtension == "xcodeproj"
        if !isProject, isDirectory.boolValue {
            for candidate in ["Contents/Info.plist", "Info.plist"] {
                let plist = url.appendingPathComponent(candidate)
                if FileManager.default.fileExists(atPath: plist.path) {
                    try self.init(
                        infoPlist: plist, defines: defines, team: team, entitlements: entitlements,
                        target: target, configuration: configuration)
                    return
                }
            }
        }
        if isProject || isDirectory.boolValue {
            if entitlements != nil {
                throw AppSourceError(
                    path: path,
                    message: "--entitlements is for an Info.plist; a project names its CODE_SIGN_ENTITLEMENTS")
            }
            do {
                let app = try XcodeApp(projectAt: url, target: target, configuration: configuration, defines: defines)
                self.init(manifest: try app.manifest(team: team), provenance: app.provenance)
            } catch let error as XcodeProjectError {
                throw AppSourceError(path: path, message: error.description)
            } catch {
                throw AppSourceError(path: path, message: "\(error)")
            }
            return
        }
        try self.init(
            infoPlist: url, defines: defines, team: team, entitlements: entitlements, target: target,
            configuration: configuration)
    }

    /// An app already read.
    public init(manifest: AppManifest, provenance: [String]) {
        self.manifest = manifest
        self.provenance = provenance
    }

    private init(
        infoPlist: URL, defines: [String: String], team: String?, entitlements: String?, target: String?,
        configuration: String?
    ) throws(AppSourceError) {
        if target != nil || configuration != nil {
            throw AppSourceError(
                path: infoPlist.relativePath, message: "--target and --configuration are for an Xcode project")
        }
        do {
            let entitlementsURL = entitlements.map { URL(fileURLWithPath: $0) }
            let manifest = try AppManifest(
                appAt: infoPlist, buildSettings: defines, team: team, entitlements: entitlementsURL)
            let files = try AppFiles.beside(infoPlist)
            self.init(
                manifest: manifest,
                provenance: ["Info.plist \(infoPlist.relativePath)"]
                    + ((entitlementsURL ?? files.entitlements).map { ["entitlements \($0.relativePath)"] } ?? [])
                    + (files.buildSettings.map { ["build settings \($0.relativePath)"] } ?? [])
                    + defines.keys.sorted().map { "\($0) = \(defines[$0] ?? "") (--define)" })
        } catch {
            throw AppSourceError(path: infoPlist.relativePath, message: "\(error)")
        }
    }
}

/// An app's files that cannot be installed: the path given and why.
public struct AppSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String {
        message.hasPrefix(path) ? message : "\(path): \(message)"
    }
}
