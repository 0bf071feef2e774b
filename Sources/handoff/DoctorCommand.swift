import ArgumentParser
import Foundation
import HandoffCore
import HandoffDoctor
import HandoffManifest
import HandoffRecordings
import HandoffWeb

/// `handoff doctor`: whether an activity continues from one app into another on a device of the
/// same account, and every reason it does not (docs/doctor.md); or, given recordings, where each
/// recorded continuation that failed differs from one that succeeds.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Explain why an activity does or does not continue from one app into another.",
        discussion: """
            handoff doctor --origin APP --receiver APP (--type TYPE | --webpage URL): APP is an \
            Info.plist, an .app-style folder or an Xcode project, as for handoff manifest lint. The \
            doctor reads both apps and answers whether the activity continues into the receiver on \
            another device of the same account and, if not, every reason, in the order the system \
            checks them, each with Apple's rule and its source: the web page's scheme, eligibility, \
            expiration, the team, the type the receiver claims, for a web page the entitlement entry \
            that names its host and what the site's association file says for the receiver's app ID, \
            the required userInfo keys, the payload limit (4611) and Apple's 3 KB guidance (a \
            warning), a scene-based receiver's cold launch (a warning). Warnings never change the \
            verdict. --webpage alone is a browser's page: --origin may be omitted.

            Association files: --site-file HOST=FILE reads HOST's file from disk; without one, the \
            file is fetched over the local web (handoff web serve) as a device fetches it, or is \
            "not checked" when no local web runs.

            handoff doctor RECORDING…: the recordings of one run (handoff device --record FILE, \
            read as handoff check reads them); every continuation chosen there is compared with \
            the events a continuation that succeeds records on its path (native, scenes, browser, \
            web), and each that failed is named with its first event that differs and the rule.

            Exit status: 0 when the activity continues (every recorded continuation succeeded), 1 \
            when it does not (one failed), 2 on bad input: a file that cannot be read, a manifest \
            with errors, an unknown target, a build setting left unresolved (the message names the \
            file, the key and the option that sets it).
            """
    )

    @Argument(help: ArgumentHelp("Recordings of one run (handoff device --record FILE).", valueName: "recording"))
    var recordings: [String] = []

    @Option(help: ArgumentHelp("The app that makes the activity.", valueName: "app"))
    var origin: String?

    @Option(help: ArgumentHelp("The app that should continue it on the other device.", valueName: "app"))
    var receiver: String?

    @Option(help: ArgumentHelp("The activity's type.", valueName: "type"))
    var type: String?

    @Option(
        help: ArgumentHelp(
            "The activity from a file (a property list or JSON: activityType, userInfo, webpageURL, requiredUserInfoKeys, expirationDate, eligibleForHandoff; docs/headless.md), in place of --type.",
            valueName: "file"))
    var activity: String?

    @Option(
        help: ArgumentHelp(
            "The activity's webpageURL; alone, a browser's page (NSUserActivityTypeBrowsingWeb).", valueName: "url"))
    var webpage: String?

    @Option(help: ArgumentHelp("Both apps' team identifier.", valueName: "TEAMID"))
    var team: String?

    @Option(name: .customLong("define"), help: ArgumentHelp("A build setting of both apps.", valueName: "KEY=VALUE"))
    var definitions: [String] = []

    @Option(help: ArgumentHelp("The origin's team identifier.", valueName: "TEAMID"))
    var originTeam: String?

    @Option(help: ArgumentHelp("The receiver's team identifier.", valueName: "TEAMID"))
    var receiverTeam: String?

    @Option(
        name: .customLong("origin-define"), help: ArgumentHelp("A build setting of the origin.", valueName: "KEY=VALUE")
    )
    var originDefinitions: [String] = []

    @Option(
        name: .customLong("receiver-define"),
        help: ArgumentHelp("A build setting of the receiver.", valueName: "KEY=VALUE"))
    var receiverDefinitions: [String] = []

    @Option(help: ArgumentHelp("The origin's entitlements file (an Info.plist's).", valueName: "file"))
    var originEntitlements: String?

    @Option(help: ArgumentHelp("The receiver's entitlements file (an Info.plist's).", valueName: "file"))
    var receiverEntitlements: String?

    @Option(help: ArgumentHelp("The origin's target in its Xcode project.", valueName: "name"))
    var originTarget: String?

    @Option(help: ArgumentHelp("The receiver's target in its Xcode project.", valueName: "name"))
    var receiverTarget: String?

    @Option(
        help: ArgumentHelp("The build configuration of whichever app is an Xcode project.", valueName: "name"))
    var configuration: String?

    @Option(
        help: ArgumentHelp(
            "The origin's build configuration (its Xcode project's), over --configuration.", valueName: "name"))
    var originConfiguration: String?

    @Option(
        help: ArgumentHelp(
            "The receiver's build configuration (its Xcode project's), over --configuration.", valueName: "name"))
    var receiverConfiguration: String?

    @Option(
        name: .customLong("site-file"),
        help: ArgumentHelp("HOST's apple-app-site-association, from disk. Repeat for several.", valueName: "HOST=FILE"))
    var siteFiles: [String] = []

    @Option(
        help: ArgumentHelp(
            "Where the local web's hosts map and authority are (default: $XDG_STATE_HOME/handoff/web).",
            valueName: "dir"))
    var webDir: String?

    @Option(help: ArgumentHelp("How long a fetch over the local web may take (seconds).", valueName: "seconds"))
    var timeout: Double = 5

    @Option(help: ArgumentHelp("The activity's encoded payload size.", valueName: "bytes"))
    var payloadBytes: Int?

    @Option(
        name: .customLong("required-key"),
        help: ArgumentHelp("A key of requiredUserInfoKeys. Repeat for several.", valueName: "key"))
    var requiredKeys: [String] = []

    @Option(
        name: .customLong("user-info-key"),
        help: ArgumentHelp("A key the userInfo holds. Repeat for several.", valueName: "key"))
    var userInfoKeys: [String] = []

    @Flag(help: "The userInfo is empty (no --user-info-key).")
    var emptyUserInfo = false

    @Option(help: ArgumentHelp("The activity's expirationDate (ISO 8601).", valueName: "date"))
    var expiration: String?

    @Flag(help: "The activity's isEligibleForHandoff is false.")
    var notEligible = false

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        do {
            if recordings.isEmpty {
                let diagnosis = try await diagnoseApps()
                if json {
                    print(diagnosis.json.jsonText)
                } else {
                    print(TerminalText.sanitized(diagnosis.report.joined(separator: "\n"), keepingLines: true))
                }
                if !diagnosis.continues { throw ExitCode(1) }
            } else {
                try diagnoseRecordings()
            }
        } catch let error as DoctorInputError {
            FileHandle.standardError.write(Data("handoff doctor: \(error.message)\n".utf8))
            throw ExitCode(2)
        }
    }

    // MARK: Recordings

    private func diagnoseRecordings() throws {
        let appOptions: [(String, Bool)] = [
            ("--origin", origin != nil), ("--receiver", receiver != nil), ("--type", type != nil),
            ("--webpage", webpage != nil), ("--site-file", !siteFiles.isEmpty),
        ]
        if let option = appOptions.first(where: \.1)?.0 {
            throw DoctorInputError("\(option) is for two apps; recordings take no app options")
        }
        let check: RecordingCheck
        do {
            check = try RecordingCheck(files: recordings)
        } catch {
            throw DoctorInputError("\(error)")
        }
        let findings = RecordingDoctor.diagnose(check.histories)
        let failed = findings.filter { $0.outcome == .failed }.count
        let succeeded = findings.filter { $0.outcome == .succeeded }.count
        let unfinished = findings.count - failed - succeeded
        let devices = check.histories.map(\.device).joined(separator: ", ")
        let summary =
            "\(findings.count) continuation\(findings.count == 1 ? "" : "s") chosen in \(check.histories.count) recording\(check.histories.count == 1 ? "" : "s") (\(devices)): \(succeeded) succeeded, \(failed) failed, \(unfinished) unfinished."
        if json {
            let object: JSONValue = [
                "continuations": .array(findings.map(\.json)), "succeeded": .integer(Int64(succeeded)),
                "failed": .integer(Int64(failed)), "unfinished": .integer(Int64(unfinished)),
            ]
            print(object.jsonText)
        } else {
            var lines: [String] = []
            for finding in findings {
                lines += finding.report + [""]
            }
            lines.append(summary)
            print(TerminalText.sanitized(lines.joined(separator: "\n"), keepingLines: true))
        }
        if failed > 0 { throw ExitCode(1) }
    }

    // MARK: Two apps

    private func diagnoseApps() async throws(DoctorInputError) -> Diagnosis {
        guard let receiver else { throw DoctorInputError("give --receiver APP (or recordings)") }
        if activity != nil, type != nil {
            throw DoctorInputError("--activity FILE gives the type: leave out --type")
        }
        let file = try activity.map { path throws(DoctorInputError) -> ActivityFile in
            do {
                return try ActivityFile(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw DoctorInputError("\(error)")
            }
        }
        let type = file?.activityType ?? self.type
        let webpage = self.webpage ?? file?.webpageURL?.absoluteString
        guard type != nil || webpage != nil else {
            throw DoctorInputError("give the activity: --type TYPE, --activity FILE, --webpage URL, or both")
        }
        if type != nil, origin == nil {
            throw DoctorInputError("--type needs --origin APP (only a browser's page, --webpage alone, needs none)")
        }
        if type?.isEmpty == true { throw DoctorInputError("--type is empty") }
        guard timeout > 0 else { throw DoctorInputError("--timeout must be positive") }
        if let payloadBytes, payloadBytes < 0 { throw DoctorInputError("--payload-bytes must not be negative") }
        if emptyUserInfo, !userInfoKeys.isEmpty {
            throw DoctorInputError("--empty-user-info and --user-info-key contradict each other")
        }
        let shared = try definitions(definitions, option: "--define")
        let originDefines = shared.merging(try definitions(originDefinitions, option: "--origin-define")) { $1 }
        let receiverDefines = shared.merging(try definitions(receiverDefinitions, option: "--receiver-define")) { $1 }
        var originApp: AppManifest?
        if let origin {
            originApp = try read(
                origin, side: "origin", defines: originDefines, team: originTeam ?? team,
                entitlements: originEntitlements, target: originTarget, configuration: originConfiguration)
        }
        let receiverApp = try read(
            receiver, side: "receiver", defines: receiverDefines, team: receiverTeam ?? team,
            entitlements: receiverEntitlements, target: receiverTarget, configuration: receiverConfiguration)

        var expirationDate: Date?
        if let expiration {
            guard let date = ISO8601DateFormatter().date(from: expiration) else {
                throw DoctorInputError("--expiration \(expiration) is not an ISO 8601 date (2026-11-28T10:00:00Z)")
            }
            expirationDate = date
        }
        var activity = DoctorActivity(
            activityType: type ?? UserActivity.browsingWebType, webpageURL: webpage, payloadBytes: payloadBytes,
            requiredUserInfoKeys: Set(requiredKeys),
            userInfoKeys: emptyUserInfo || !userInfoKeys.isEmpty ? Set(userInfoKeys) : nil,
            expirationDate: expirationDate, isEligibleForHandoff: !notEligible)
        if let file {
            // The file's activity, as the origin would send it; options given as well win.
            let payload = ActivityPayload(
                activityType: file.activityType, title: file.title, userInfo: file.userInfo,
                webpageURL: file.webpageURL, teamIdentifier: originApp?.teamIdentifier ?? "",
                bundleIdentifier: originApp?.bundleIdentifier ?? "")
            activity.payloadBytes = payloadBytes ?? payload.encoded().count
            activity.requiredUserInfoKeys.formUnion(file.requiredUserInfoKeys)
            if activity.userInfoKeys == nil { activity.userInfoKeys = Set(file.userInfo.keys) }
            activity.expirationDate = expirationDate ?? file.expirationDate
            activity.isEligibleForHandoff = !notEligible && file.isEligibleForHandoff
            for warning in file.warnings { FileHandle.standardError.write(Data("handoff doctor: \(warning)\n".utf8)) }
        }
        let answers = try await siteAnswers(for: activity, receiver: receiverApp)
        return Doctor.diagnose(
            DoctorCase(origin: originApp, receiver: receiverApp, activity: activity, siteAnswers: answers, now: Date()))
    }

    /// One app, read as `handoff manifest lint` reads it; errors name the side and the option.
    private func read(
        _ path: String, side: String, defines: [String: String], team: String?, entitlements: String?,
        target: String?, configuration own: String?
    ) throws(DoctorInputError) -> AppManifest {
        do {
            return try AppSource(
                path: path, defines: defines, team: team, entitlements: entitlements, target: target,
                configuration: own ?? (Self.isXcodeProject(path) ? configuration : nil)
            ).manifest
        } catch {
            var message = "--\(side) \(error)"
            if message.contains("--define") {
                message += "\n(for the \(side) alone: --\(side)-define NAME=VALUE; for both apps: --define NAME=VALUE)"
            }
            if message.contains("TeamIdentifier") {
                message += "\n(give the team with --\(side)-team TEAMID, or --team TEAMID for both apps)"
            }
            throw DoctorInputError(message)
        }
    }

    /// Whether `path` is read as an Xcode project (as ``AppSource`` decides): a `.xcodeproj`, its
    /// `project.pbxproj`, or a folder without an Info.plist.
    static func isXcodeProject(_ path: String) -> Bool {
        if path.hasSuffix("project.pbxproj") || path.hasSuffix(".xcodeproj") || path.hasSuffix(".xcodeproj/") {
            return true
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return false
        }
        let folder = URL(fileURLWithPath: path)
        return !["Contents/Info.plist", "Info.plist"].contains {
            FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path)
        }
    }

    private func definitions(_ values: [String], option: String) throws(DoctorInputError) -> [String: String] {
        do {
            return try BuildSettingDefinitions.parse(values)
        } catch {
            throw DoctorInputError(error.description.replacingOccurrences(of: "--define", with: option))
        }
    }

    /// What the association file of the receiver's entry for the page's host says for its app ID:
    /// from `--site-file`, else over the local web, else not checked.
    private func siteAnswers(
        for activity: DoctorActivity, receiver: AppManifest
    ) async throws(DoctorInputError) -> [String: DoctorSiteAnswer] {
        var files: [String: String] = [:]
        for value in siteFiles {
            guard let equals = value.firstIndex(of: "="), equals != value.startIndex,
                value.index(after: equals) != value.endIndex
            else {
                throw DoctorInputError("--site-file expects HOST=FILE, got \"\(value)\"")
            }
            files[value[..<equals].lowercased()] = String(value[value.index(after: equals)...])
        }
        guard activity.isBrowsingWeb, let text = activity.webpageURL, let host = URL(string: text)?.host,
            let entry = receiver.activityContinuationEntry(matching: host)
        else { return [:] }
        let folder =
            webDir.map { WebFolder(url: URL(fileURLWithPath: $0, isDirectory: true)) } ?? WebFolder.defaultFolder()
        let verifier = SiteAssociationVerifier(folder: folder, timeout: timeout)
        let fileHost = entry.fileHost
        let appID = receiver.applicationIdentifier
        if let path = files[fileHost] {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw DoctorInputError(
                    "--site-file \(fileHost)=\(path): cannot read the file: \((error as NSError).localizedDescription)")
            }
            let fetched = await verifier.judge(localFile: data, host: fileHost)
            return [fileHost: .checked(fetched.outcome(for: appID), source: "read from \(path)", notes: fetched.notes)]
        }
        let client: WebClient
        do {
            client = try WebClient(folder: folder)
        } catch {
            return [fileHost: .notChecked("no --site-file for \(fileHost), and no local web is running: \(error)")]
        }
        guard client.hostsMap.entry(for: fileHost) != nil else {
            return [fileHost: .notChecked("no --site-file for \(fileHost), and the local web does not serve it")]
        }
        // As a device fetches it: /.well-known/ first, the root on 404, a signed file opened.
        let fetched = await verifier.fetch(host: fileHost)
        return [
            fileHost: .checked(fetched.outcome(for: appID), source: "fetched over the local web", notes: fetched.notes)
        ]
    }
}

/// Bad input to `handoff doctor` (exit status 2): what is wrong, naming the file, key or option.
struct DoctorInputError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
