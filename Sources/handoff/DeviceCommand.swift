import ArgumentParser
import DeviceUI
import Dispatch
import Foundation
import HandoffCore
import HandoffHeadless
import HandoffManifest
import HandoffNetwork
import HandoffRecordings
import HandoffWeb
import ReaderApp
import Synchronization

/// `handoff device`: runs one simulated device.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Run one simulated device that finds the other devices of its account nearby.",
        discussion: """
            With --headless the device reads commands as JSON lines on standard input and writes \
            every lifecycle event and command result as JSON lines on standard output (see \
            docs/headless.md).
            """
    )

    @Option(help: "The device's name (default: the first free of \"Phone 1\", \"Phone 2\", ... for its kind).")
    var name: String?

    @Option(help: ArgumentHelp("The kind of device: phone, tablet or laptop.", valueName: "kind"))
    var kind: PeerInfo.Kind = .phone

    @Option(help: "The account the device signs in to (created on first use).")
    var account = "demo"

    @Option(help: "The shared UDP discovery port.")
    var port = NetworkOptions.defaultDiscoveryPort

    @Option(
        help: ArgumentHelp(
            "The TCP port this device's sessions listen on (default: any free port). A fixed one lets a capture be filtered by it before the device starts.",
            valueName: "port"))
    var sessionPort: Int?

    @Flag(help: "Also find devices on other hosts of the LAN (multicast), and accept their sessions.")
    var lan = false

    @Option(
        help: ArgumentHelp(
            "Beacon timing: instant (a change is broadcast at once) or apple (Apple's cadence).", valueName: "profile"))
    var timing: TimingProfile = .instant

    @Flag(help: "Run without the terminal UI: JSON lines on stdin and stdout.")
    var headless = false

    @Option(
        help: ArgumentHelp(
            "When the lifecycle log is drawn: hidden (until F2), shown, or when-room (beside or below the device whenever the terminal has room, as in handoff demo). F2 hides or shows it.",
            valueName: "mode"))
    var log: ScreenState.LogMode = .hidden

    @Flag(help: "With --headless: exit with status 2 on the first bad command instead of reporting it and going on.")
    var strict = false

    @Option(
        name: .customLong("claim"),
        help: ArgumentHelp(
            "An extra activity type the headless device's scripted app claims (repeatable).", valueName: "type"))
    var claimedTypes: [String] = []

    @Option(
        help: ArgumentHelp(
            "With --headless: the team identifier of the scripted app (default SIMTEAM001, the demo apps' team); another team stages a third-party app.",
            valueName: "team"))
    var claimTeam = "SIMTEAM001"

    @Option(
        help: ArgumentHelp("Where accounts are kept (default: $XDG_CONFIG_HOME/handoff/accounts).", valueName: "dir"))
    var configDir: String?

    @Option(help: ArgumentHelp("How long a continuing device waits for the payload (seconds).", valueName: "seconds"))
    var fetchTimeout: Double = 5

    func validate() throws {
        guard (1...65_535).contains(port) else {
            throw ValidationError("--port must be between 1 and 65535, not \(port).")
        }
        if let sessionPort, !(1...65_535).contains(sessionPort) {
            throw ValidationError("--session-port must be between 1 and 65535, not \(sessionPort).")
        }
        guard fetchTimeout > 0 else { throw ValidationError("--fetch-timeout must be positive.") }
        if let name, name.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--name is empty.") }
        if let sampleDocument {
            guard let bytes = Self.byteSize(sampleDocument), bytes > 0,
                bytes <= DocumentTransferProtocol.maximumDocumentSize
            else {
                throw ValidationError(
                    "--sample-document takes a size such as 8MB, 500kB or 20000 (bytes), up to 64MB, not \(sampleDocument)."
                )
            }
        }
        // Checked here, not in run(), so that a mistake is reported with this command's usage.
        _ = try appNames
        _ = try armedFaults
        _ = try parsedSlowLink
        if let appModel, appModel == .scenesConnectionOptionsOnly || appModel == .swiftUI, !headless {
            throw ValidationError(
                "--app-model \(appModel.rawValue) is for --headless (the scripted apps); the Reader and the Map take delegate or scenes."
            )
        }
        guard ReadingState.writableVersions.contains(readerVersion) else {
            throw ValidationError("--reader-version must be 1, 2 or 3, not \(readerVersion).")
        }
    }

    @Option(
        help: ArgumentHelp(
            "The apps installed on the device, comma-separated (default: \(TerminalDeviceRunner.defaultApps.joined(separator: ","))). Known: \(TerminalDeviceRunner.knownApps.joined(separator: ", ")); studio is one app that reads and maps; other is a third-party app of another team.",
            valueName: "list"))
    var apps: String?

    @Option(
        help: ArgumentHelp(
            "How the apps talk to the system for Handoff: delegate (the app delegate, Apple's path before scenes) or scenes (a scene manifest and scene delegates). Default: scenes on a phone or tablet, delegate on a laptop. With --headless also scenes-connection-options-only (a scene app that looks for the activity only in connectionOptions.userActivities, and misses it as real apps do) and swiftui (onContinueUserActivity); given, it applies to --app apps too, which otherwise take the model their Info.plist implies.",
            valueName: "model"))
    var appModel: ScriptedAppModel?

    /// The app model in effect: the one chosen, else Apple's usual one for the device's kind.
    var effectiveAppModel: ScriptedAppModel {
        if let appModel { return appModel }
        if headless { return .delegate }
        return kind == .laptop ? .delegate : .scenes
    }

    @Option(
        name: .customLong("fault"),
        help: ArgumentHelp(
            "Arm a fault of the lab at start: KIND for its next occasion, KIND:sticky until disarmed (repeatable). Kinds: \(Fault.names).",
            valueName: "kind"))
    var faults: [String] = []

    /// The faults given with --fault, checked.
    var armedFaults: [(Fault, Bool)] {
        get throws {
            try faults.map { text in
                // "slow-link:" is a mistake, not "slow-link": keep the empty value to refuse it.
                let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard let fault = parts.first.flatMap(Fault.init(rawValue:)) else {
                    throw ValidationError("--fault: no fault named \"\(parts.first ?? text)\" (kinds: \(Fault.names)).")
                }
                guard parts.count == 1 || parts[1] == "sticky" else {
                    throw ValidationError("--fault \(text): write KIND or KIND:sticky.")
                }
                return (fault, parts.count == 2)
            }
        }
    }

    @Option(
        help: ArgumentHelp(
            "Arm the lab's slow link until disarmed, at KBPS kilobytes a second with LATENCY milliseconds before each transfer (default \(Int(SlowLink.standard.latency * 1000))): what this device sends, the payload and stream data, is held back so a transfer can be watched (handoff demo streams uses 256:20).",
            valueName: "KBPS[:LATENCY]"))
    var slowLink: String?

    /// The slow link given with --slow-link, checked.
    var parsedSlowLink: SlowLink? {
        get throws {
            guard let slowLink else { return nil }
            let parts = slowLink.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let rate = Double(parts[0]), parts.count == 1 || Double(parts[1]) != nil else {
                throw ValidationError(
                    "--slow-link \(slowLink): write KBPS or KBPS:LATENCY, such as 256:20 (256 kB/s, 20 ms).")
            }
            do {
                return try SlowLink(
                    latencyMilliseconds: parts.count == 2 ? Double(parts[1]) : nil, kilobytesPerSecond: rate)
            } catch {
                throw ValidationError("--slow-link \(slowLink): \(error)")
            }
        }
    }

    @Flag(
        help:
            "Step mode: pause before each phase of a continuation (launch, willContinue, the fetch, continue; on the origin the save and the payload leaving) until told to go on; timeouts are suspended while paused. Headless: {\"cmd\":\"next\"} goes on."
    )
    var step = false

    @Option(
        help: ArgumentHelp(
            "Write this device's lifecycle, typed, as JSON lines to this file (handoff timeline replays recordings).",
            valueName: "file"))
    var record: String?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Share this device's lifecycle events with the devices of its account over their sessions (never another account's), so their timeline view (F9) shows this device's lane; at most 100 events a second. On in handoff demo."
    )
    var shareLifecycle = false

    @Flag(
        help:
            "Run without an iCloud container (the account's simulated cloud folder, at ACCOUNT/containers/DEVICE-ID): only this device's local documents are available."
    )
    var noCloud = false

    @Option(
        help: ArgumentHelp(
            "The Reader's handoff version, to rehearse a mixed-version hand-off: 2 (current), 1 (older key names) or 3 (a newer Reader: the current keys under version 3, which a current Reader refuses). With --headless, the Reader stand-in refuses versions newer than this (or than 2).",
            valueName: "version"))
    var readerVersion = ReadingState.currentVersion

    @Option(
        help: ArgumentHelp(
            "Also put a generated \"\(LongBook.title)\" of this size (such as 8MB or 500kB) among this device's own documents, for watching a transfer over continuation streams.",
            valueName: "size"))
    var sampleDocument: String?

    @Option(
        help: ArgumentHelp(
            "Where the log goes (default: $XDG_STATE_HOME/handoff/ACCOUNT-NAME.log, e.g. demo-Phone-1.log; ~/.local/state without XDG_STATE_HOME).",
            valueName: "file"))
    var logFile: String?

    @Option(
        help: ArgumentHelp(
            "Where the local web's hosts map and certificate authority are (default: $XDG_STATE_HOME/handoff/web, as `handoff web serve` writes them).",
            valueName: "dir"))
    var webDir: String?

    @Option(
        name: .customLong("install"),
        help: ArgumentHelp(
            "With --headless: also install the app this Info.plist describes (with the entitlements and BuildSettings.xcconfig beside it), driven by the scripted delegate (repeatable).",
            valueName: "info-plist"))
    var installPlists: [String] = []

    @Option(
        name: .customLong("app"),
        help: ArgumentHelp(
            "Also install your app from its files (repeatable): an Info.plist, an .app-style folder (Contents/Info.plist or Info.plist, its .entitlements beside it), or an Xcode project (a .xcodeproj or the folder holding it), read as Xcode builds it. With --headless the scripted delegate drives it; on the terminal device it is on the home screen, and its screen shows the --activity file's activity.",
            valueName: "path"))
    var appPaths: [String] = []

    @Option(
        name: .customLong("define"),
        help: ArgumentHelp(
            "For --app: a build setting its files refer to, over the project's or BuildSettings.xcconfig's (repeatable).",
            valueName: "KEY=VALUE"))
    var definitions: [String] = []

    @Option(
        name: .customLong("team"),
        help: ArgumentHelp("For --app: the team (Apple reads it from the code signature).", valueName: "TEAMID"))
    var appTeam: String?

    @Option(
        name: .customLong("target"),
        help: ArgumentHelp(
            "For --app with an Xcode project: the target (default: its only app target).", valueName: "name"))
    var appTarget: String?

    @Option(
        name: .customLong("configuration"),
        help: ArgumentHelp(
            "For --app with an Xcode project: the build configuration (default: the target's).", valueName: "name"))
    var appConfiguration: String?

    @Option(
        name: .customLong("entitlements"),
        help: ArgumentHelp(
            "For --app with an Info.plist: its entitlements file, instead of the one beside it.", valueName: "file"))
    var appEntitlements: String?

    @Option(
        name: .customLong("activity"),
        help: ArgumentHelp(
            "An activity file (a property list or JSON: activityType, title, userInfo, webpageURL, requiredUserInfoKeys, expirationDate, eligibleForHandoff…; docs/headless.md). With --headless it is made current at start in the app that claims its type; on the terminal device your app's screen shows it.",
            valueName: "file"))
    var activityPath: String?

    @Option(
        name: .customLong("app-behaviour"),
        help: ArgumentHelp(
            "How a scripted app behaves for Handoff, [BUNDLE:]KEY=VALUE,… (repeatable; without BUNDLE every scripted app): model=delegate|scenes|scenes-connection-options-only|swiftui, willContinue=true|false, continue=true|false, didFail=implemented|missing, needsSave=set|forgotten.",
            valueName: "spec"))
    var appBehaviours: [String] = []

    /// The activity file `--activity` names, read; the error names the file and the key path.
    func activityFile() throws -> ActivityFile? {
        guard let activityPath else { return nil }
        do {
            return try ActivityFile(contentsOf: URL(fileURLWithPath: activityPath), name: activityPath)
        } catch {
            throw ValidationError("--activity \(error)")
        }
    }

    /// Each scripted app's behaviour: `--app-behaviour` over the model its files imply (an app
    /// from --app or --install) or --app-model.
    func behaviours(stands: [AppManifest], own: [AppManifest]) throws -> [String: ScriptedBehaviour] {
        let specs: [AppBehaviourSpec]
        do {
            specs = try appBehaviours.map { text throws(AppBehaviourError) in try AppBehaviourSpec.parse(text) }
        } catch {
            throw ValidationError(error.message)
        }
        let ownBundles = Set(own.map(\.bundleIdentifier))
        let all = (stands + own).filter { !$0.isBrowser }
        do {
            return try AppBehaviourSpec.resolve(specs, bundles: all.map(\.bundleIdentifier)) { bundle in
                guard ownBundles.contains(bundle), let manifest = own.first(where: { $0.bundleIdentifier == bundle })
                else { return ScriptedBehaviour(model: effectiveAppModel) }
                return ScriptedBehaviour(model: appModel ?? ScriptedAppModel.implied(by: manifest))
            }
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// The apps `--app` names, read; every error names the path and what is wrong.
    func appSources() throws -> [AppSource] {
        let defines = try BuildSettingDefinitions.parse(definitions)
        return try appPaths.map { path in
            do {
                return try AppSource(
                    path: path, defines: defines, team: appTeam, entitlements: appEntitlements, target: appTarget,
                    configuration: appConfiguration)
            } catch {
                throw ValidationError("--app \(error)")
            }
        }
    }

    /// The local web's folder.
    var webFolder: WebFolder {
        webDir.map { WebFolder(url: URL(fileURLWithPath: $0, isDirectory: true)) } ?? WebFolder.defaultFolder()
    }

    /// The apps chosen with `--apps`, validated (the headless device has stand-ins for the
    /// demo apps: reader, map and browser).
    var appNames: [String] {
        get throws {
            let known = headless ? HeadlessRunner.knownApps : TerminalDeviceRunner.knownApps
            guard let apps else { return headless ? known : TerminalDeviceRunner.defaultApps }
            let names = apps.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter {
                !$0.isEmpty
            }
            if let unknown = names.first(where: { !known.contains($0) }) {
                throw ValidationError("--apps: no app named \"\(unknown)\" (known: \(known.joined(separator: ", "))).")
            }
            return names
        }
    }

    func run() async throws {
        do {
            try await runDevice()
        } catch let error as PortInUse {
            // One line: the port, and the option that chooses another.
            let remedy =
                switch error.kind {
                case .discovery: "choose another with --port N, the same for every device of the account."
                case .session: "choose another with --session-port N, or leave it out for any free port."
                }
            FileHandle.standardError.write(Data("error: \(error): \(remedy)\n".utf8))
            throw ExitCode(1)
        }
    }

    private func runDevice() async throws {
        let appNames = try self.appNames
        // Read the apps' files before anything is claimed or started: a bad file is one message.
        let sources = try appSources()
        let activity = try activityFile()
        if !headless, activity != nil, sources.isEmpty {
            throw ValidationError("--activity on the terminal device goes with --app: your app's screen shows it.")
        }
        if !headless, !appBehaviours.isEmpty {
            throw ValidationError("--app-behaviour is for --headless (the scripted apps).")
        }
        let store = AccountStore(
            directory: configDir.map { URL(fileURLWithPath: $0) } ?? AccountStore.defaultDirectory())
        // The account file is read once, under the account's lock with the identity (a start read
        // and checked it three times).
        try store.createAccountIfNeeded(named: self.account)
        let runDirectory = store.directory(ofAccount: self.account).appendingPathComponent("running")
        let claim: DeviceNameClaim
        if let name {
            guard let held = DeviceNameClaim.claim(name, in: runDirectory) else {
                throw ValidationError("A device named \"\(name)\" is already running in account \(self.account).")
            }
            claim = held
        } else {
            guard let held = DeviceNameClaim.claimFirstFree(base: kind.rawValue.capitalized, in: runDirectory) else {
                throw ValidationError("Too many \(kind.rawValue) devices are running in account \(self.account).")
            }
            claim = held
        }
        defer { withExtendedLifetime(claim) {} }
        let (identity, account) = try store.deviceIdentityAndAccount(named: claim.name, kind: kind, in: self.account)
        let host = try DeviceHost(
            identity: identity, account: account, store: store,
            options: networkOptions(environment: ProcessInfo.processInfo.environment),
            configuration: DeviceConfiguration(saveCoalescingInterval: 1, fetchTimeout: fetchTimeout))
        if step { host.performAndWait { device in device.isStepping = true } }
        if let link = try parsedSlowLink {
            host.performAndWait { device in
                device.slowLink = link
                device.arm(.slowLink, sticky: true)
            }
        }
        let faultsToArm = try armedFaults
        if !faultsToArm.isEmpty {
            let list = faultsToArm.map { [$0.0.rawValue, $0.1 ? "sticky" : "once"] }
            host.performAndWait { device in
                for entry in list {
                    if let fault = Fault(rawValue: entry[0]) { device.arm(fault, sticky: entry[1] == "sticky") }
                }
            }
        }
        if let record {
            // The recorder lives on the device's queue, held by the handler that feeds it.
            let problem = host.performAndWait { device -> String? in
                do {
                    let recorder = try LifecycleRecorder(path: record, device: device.info, account: account.name)
                    device.addLifecycleObserver { event in recorder.record(event) }
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            if let problem { throw ValidationError("--record: \(problem)") }
        }
        if headless {
            if !noCloud {
                let container = try Self.ubiquityContainer(
                    accountFolder: store.directory(ofAccount: account.name), device: identity.id.rawValue)
                host.performAndWait { device in device.ubiquityContainerURL = container }
            }
            var installed: [AppManifest] = sources.map(\.manifest)
            for plist in installPlists {
                do {
                    installed.append(try AppManifest(appAt: URL(fileURLWithPath: plist)))
                } catch {
                    throw ValidationError("--install \(plist): \(error)")
                }
            }
            var runner = HeadlessRunner(
                host: host, strict: strict, claimedTypes: claimedTypes,
                apps: appNames, team: claimTeam, readerVersion: readerVersion,
                appModel: effectiveAppModel, webFolder: webFolder, installed: installed)
            runner.behaviours = try behaviours(stands: runner.manifests, own: installed)
            runner.activity = activity
            let status = try await runner.run()
            if status != 0 { throw ExitCode(status) }
            return
        }
        // This device's own documents: next to the account's files, never inside `devices/`,
        // which holds only device certificates.
        let deviceFolder = store.directory(ofAccount: account.name).appendingPathComponent(
            "local/\(identity.id.rawValue)")
        if let size = sampleDocument.flatMap(Self.byteSize) {
            try LongBook.write(bytes: size, into: deviceFolder)
        }
        let ownApps = zip(sources, appPaths).map { source, path in
            OwnAppSpec(manifest: source.manifest, productName: Self.productName(path: path, target: appTarget))
        }
        let runner = try TerminalDeviceRunner(
            host: host, accountName: account.name, appNames: appNames, ownApps: ownApps, activity: activity,
            readerVersion: readerVersion,
            appModel: effectiveAppModel == .delegate ? .delegate : .scenes,
            cloudFolder: noCloud
                ? nil
                : try Self.ubiquityContainer(
                    accountFolder: store.directory(ofAccount: account.name), device: identity.id.rawValue),
            localFolder: deviceFolder, webFolder: webFolder, logMode: log,
            logFile: logFile.map { URL(fileURLWithPath: $0) }
                ?? FileLogSink.defaultURL(deviceName: "\(account.name)-\(identity.name)"))
        let status = try await runner.run()
        if status != 0 { throw ExitCode(status) }
    }
}

extension DeviceCommand {
    /// How the device joins the network, from the options and, for the TLS key log, the
    /// process's `SSLKEYLOGFILE` (read here, never in the library, so tests pass a file
    /// explicitly). A headless device says on standard error that secrecy is weakened; the
    /// terminal device says it on its log.
    func networkOptions(environment: [String: String]) throws -> NetworkOptions {
        var options = NetworkOptions(discoveryPort: port, lan: lan, timing: timing)
        options.sessionPort = sessionPort ?? 0
        options.shareLifecycle = shareLifecycle
        if let path = environment["SSLKEYLOGFILE"], !path.isEmpty {
            do {
                options.keyLog = try KeyLogFile(path: path)
            } catch {
                throw ValidationError("SSLKEYLOGFILE: \(error)")
            }
            if headless, let keyLog = options.keyLog {
                FileHandle.standardError.write(Data("warning: \(keyLog.warning)\n".utf8))
            }
        }
        return options
    }

    /// This device's iCloud container: `ACCOUNT/containers/DEVICE-ID`, a link to the account's
    /// cloud documents (`ACCOUNT/cloud`), so every device has the same documents at a path of its
    /// own, as every Apple device has its own container path (URLs in activities are rewritten
    /// from one to the other).
    static func ubiquityContainer(accountFolder: URL, device: String) throws -> URL {
        let files = FileManager.default
        let cloud = accountFolder.appendingPathComponent("cloud", isDirectory: true)
        let containers = accountFolder.appendingPathComponent("containers", isDirectory: true)
        let container = containers.appendingPathComponent(device, isDirectory: true)
        do {
            for folder in [cloud, containers] {
                try files.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            if (try? files.destinationOfSymbolicLink(atPath: container.path)) == nil {
                try files.createSymbolicLink(atPath: container.path, withDestinationPath: "../cloud")
            }
        } catch {
            throw ValidationError("the iCloud container \(container.path) cannot be made: \(error)")
        }
        return container
    }

    /// The product name an app's path implies, for an app whose Info.plist names none: the
    /// target, the project, the `.app` folder, or the folder holding the Info.plist.
    static func productName(path: String, target: String?) -> String {
        if let target { return target }
        var url = URL(fileURLWithPath: path)
        if url.lastPathComponent == "project.pbxproj" { url.deleteLastPathComponent() }
        if url.lastPathComponent == "Info.plist" { url.deleteLastPathComponent() }
        if url.lastPathComponent == "Contents" { url.deleteLastPathComponent() }
        return url.deletingPathExtension().lastPathComponent
    }

    /// "8MB", "500kB", "20000": decimal units, as sizes are shown everywhere.
    static func byteSize(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Int)] = [("gb", 1_000_000_000), ("mb", 1_000_000), ("kb", 1000), ("b", 1)]
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            return Double(trimmed.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)).map {
                Int($0 * Double(factor))
            }
        }
        return Int(trimmed)
    }
}

extension PeerInfo.Kind: ExpressibleByArgument {}
extension ScreenState.LogMode: ExpressibleByArgument {}
extension TimingProfile: ExpressibleByArgument {}
extension ScriptedAppModel: ExpressibleByArgument {}

/// Wires a headless controller to standard input and output and to the device's queue.
struct HeadlessRunner {
    let host: DeviceHost
    let strict: Bool
    let claimedTypes: [String]
    /// The demo apps the scripted app stands in for (reader, map), and whether the Browser is there.
    var apps: [String] = HeadlessRunner.knownApps
    /// The scripted app's team.
    var team = "SIMTEAM001"
    /// The handoff version of the Reader the scripted app stands in for: it refuses reading
    /// activities of a newer version, as the Reader does (``readerCheck``).
    var readerVersion = ReadingState.currentVersion
    /// How the scripted apps talk to the system.
    var appModel = ScriptedAppModel.delegate
    /// Where the local web is: the apps' association files are fetched through it.
    var webFolder = WebFolder.defaultFolder()
    /// Apps installed from real manifests (`--install`), with the scripted delegate.
    var installed: [AppManifest] = []
    /// Each scripted app's behaviour, by bundle identifier.
    var behaviours: [String: ScriptedBehaviour] = [:]
    /// The activity made current at start (`--activity`).
    var activity: ActivityFile?

    /// The stand-ins a headless device can have.
    static let knownApps = ScriptedApps.known

    /// The scripted app's manifest (the chosen demo apps' types and any extra claimed types),
    /// and the Browser's when chosen.
    var manifests: [AppManifest] {
        ScriptedApps.manifests(apps: apps, claimedTypes: claimedTypes, team: team)
    }

    /// The Reader's rule for the reading activities the scripted app continues in its place: a
    /// handoff version newer than the Reader knows is refused with the Reader's own message
    /// (other keys are the script's business: the stand-in restores them as they are).
    static func readerCheck(version: Int) -> @Sendable (UserActivity) -> String? {
        let readable = ReadingState.readableVersions(writing: version)
        let types: Set = ["com.handoffsim.reader.reading", "com.handoffsim.reader.document"]
        return { activity in
            guard types.contains(activity.activityType) else { return nil }
            do throws(ReadingRestoreError) {
                try ReadingState.checkVersion(of: activity.userInfo, readable: readable)
                return nil
            } catch {
                return error.description
            }
        }
    }

    /// Installs the apps and attaches the controller, then starts the network: nothing a peer
    /// does once this device is on the network (its offer, a payload request) happens before the
    /// apps are there or goes unreported. Events from before `ready` are written right after it.
    func run() async throws -> Int32 {
        let held = HeldLines { line in StandardOutput.shared.write(line) }
        let output = LineWriter { line in held.write(line) }
        let finished = OneShot<Int32>()
        let manifests = self.manifests + installed
        let strict = self.strict
        let webFolder = self.webFolder
        let deviceHost = self.host
        let readerCheck = apps.contains("reader") ? Self.readerCheck(version: readerVersion) : nil
        let behaviours = self.behaviours
        let activity = self.activity
        let (controller, problem) = host.performAndWait { device in
            WebWiring.attachVerifier(folder: webFolder, to: device, host: deviceHost)
            let controller = HeadlessController(
                device: device, apps: manifests, output: output, strict: strict, appModel: appModel,
                behaviours: behaviours,
                continuationCheck: readerCheck.map { check in { _, activity in check(activity) } })
            // The file's activity is current before the network starts: the first beacon offers it.
            var problem: String?
            if let activity {
                do throws(CommandError) {
                    var fields = try controller.becomeCurrent(activity, app: nil)
                    fields["file"] = .string(activity.file)
                    controller.emit("activity-file", fields)
                } catch {
                    problem = "--activity \(error.message)"
                }
            }
            return (Confined(controller), problem)
        }
        if let problem { throw ValidationError(problem) }
        try await host.start()
        held.writeFirst(
            JSONValue.object([
                "event": .string("ready"),
                "device": .object([
                    "id": .string(host.identity.id.rawValue), "name": .string(host.identity.name),
                    "kind": .string(host.identity.kind.rawValue), "account": .string(host.identity.accountName),
                ]),
                "sessionPort": .integer(Int64(host.sessionPort)),
                "discovery": .string(host.discoveryMode),
            ]).jsonText)
        let host = self.host
        Thread.detachNewThread {
            var input = HeadlessInput()
            while let next = input.next() {
                guard case .text(let line) = next else {
                    host.perform { _ in
                        if !controller.value.reject(line: next) { finished.set(controller.value.exitStatus) }
                    }
                    continue
                }
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                host.perform { _ in
                    if !controller.value.handle(line: line) { finished.set(controller.value.exitStatus) }
                }
            }
            host.perform { _ in
                _ = controller.value.handle(line: #"{"cmd":"quit"}"#)
                finished.set(0)
            }
        }
        let signalSources = [SIGINT, SIGTERM, SIGHUP].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { finished.set(0) }
            source.resume()
            return source
        }
        let status = await finished.wait()
        // The signal sources live as long as the device runs.
        withExtendedLifetime(signalSources) {}
        await host.shutdown()
        return status
    }
}

/// Lines held back until a first line is written ahead of them (the headless `ready` line, which
/// can only be written once the network has started), then written through.
final class HeldLines: Sendable {
    private let sink: @Sendable (String) -> Void
    private let held = Mutex<[String]?>([])

    init(_ sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    func write(_ line: String) {
        let written = held.withLock { lines -> Bool in
            guard lines != nil else { return false }
            lines?.append(line)
            return true
        }
        if !written { sink(line) }
    }

    /// Writes `line`, then what was held, and from then on every line as it comes.
    func writeFirst(_ line: String) {
        held.withLock { lines in
            sink(line)
            for line in lines ?? [] { sink(line) }
            lines = nil
        }
    }
}

/// Line-buffered standard output shared by every thread.
final class StandardOutput: Sendable {
    static let shared = StandardOutput()
    private let lock = Mutex(())

    func write(_ line: String) {
        lock.withLock { _ in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }
}
