import Foundation
import HandoffCore
import HandoffProcesses
import HandoffRecordings
import HandoffTestSupport
import Testing

/// `handoff doctor` as a user runs it: the built executable on the manifest fixtures (and
/// recordings written here); exit 0 when the activity continues, 1 when it does not, 2 on bad input.
@Suite("handoff doctor (end to end)", .tags(.endToEnd), .ownThread, .enabled(if: HandoffExecutable.url != nil))
struct DoctorCommandTests {
    static let notes = DoctorFixture.path("Doctor/Notes/Info.plist")
    static let notesScenes = DoctorFixture.path("Doctor/NotesScenes/Info.plist")
    static let otherTeam = DoctorFixture.path("Doctor/OtherTeam/Info.plist")
    static let sites = DoctorFixture.path("Doctor/sites")

    // MARK: Two apps

    @Test func aSceneReceiverOfTheSameTeamContinuesWithAWarning() throws {
        let result = try DoctorRun.handoff(
            "doctor", "--origin", Self.notes, "--receiver", Self.notesScenes, "--receiver-define",
            "PRODUCT_BUNDLE_IDENTIFIER=com.example.notes.mobile", "--type", "com.example.notes.editing")
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.error == "")
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Origin:   com.example.notes (team ABCDE12345)")
        #expect(
            lines.contains(
                "Receiver: com.example.notes.mobile (team ABCDE12345, app ID ABCDE12345.com.example.notes.mobile)"))
        #expect(lines.contains("Verdict: continues in com.example.notes.mobile (0 errors, 1 warning)"))
        #expect(lines.contains { $0.hasPrefix("1. warning scene-cold-launch-carries-type: ") })
    }

    /// The Notes pair of the own-app fixtures (a Mac app and its iPhone app, one team) and the
    /// activity file the devices rehearse it with: the doctor reads the same file they do.
    @Test func anActivityFileIsJudgedAsTheDevicesSendIt() throws {
        let mac = DoctorFixture.path("NotesPair/NotesMac")
        let phone = DoctorFixture.path("NotesPair/NotesPhone")
        let note = "Tests/HandoffManifestTests/Fixtures/activities/note.plist"
        let kept = try DoctorRun.handoff("doctor", "--origin", mac, "--receiver", phone, "--activity", note)
        #expect(kept.status == 0, "\(kept.output)\(kept.error)")
        #expect(kept.output.contains("Activity: com.example.notes.editing, payload "), "\(kept.output)")
        #expect(kept.output.contains("Verdict: continues in com.example.notes"), "\(kept.output)")

        let folder = try DoctorTemporaryFolder()
        // Past the 4611 limit, and a required key the userInfo lacks.
        let big = folder.url.appendingPathComponent("big.json")
        let body = String(repeating: "x", count: 600_000)
        try Data(
            #"{"activityType": "com.example.notes.editing", "userInfo": {"body": "\#(body)"}, "requiredUserInfoKeys": ["noteID"]}"#
                .utf8
        ).write(to: big)
        let refused = try DoctorRun.handoff("doctor", "--origin", mac, "--receiver", phone, "--activity", big.path)
        #expect(refused.status == 1, "\(refused.output)\(refused.error)")
        #expect(
            refused.output.contains("error required-user-info-keys") || refused.output.contains("noteID"),
            "\(refused.output)")
        #expect(refused.output.contains("4611"), "\(refused.output)")

        let both = try DoctorRun.handoff(
            "doctor", "--origin", mac, "--receiver", phone, "--activity", note, "--type", "x")
        #expect(both.status == 2)
        #expect(both.error.contains("--activity FILE gives the type: leave out --type"), "\(both.error)")
        let typo = folder.url.appendingPathComponent("typo.json")
        try Data(#"{"activityType": "com.example.notes.editing", "userinfo": {}}"#.utf8).write(to: typo)
        let bad = try DoctorRun.handoff("doctor", "--origin", mac, "--receiver", phone, "--activity", typo.path)
        #expect(bad.status == 2)
        #expect(bad.error.contains("userinfo"), "\(bad.error)")
    }

    @Test func anotherTeamsAppDoesNotContinueAndBothTeamsAreNamed() throws {
        let result = try DoctorRun.handoff(
            "doctor", "--origin", Self.notes, "--receiver", Self.otherTeam, "--type", "com.example.notes.editing")
        #expect(result.status == 1, "\(result.output)\(result.error)")
        #expect(
            result.output.contains(
                "Verdict: does not continue in org.other.notes (1 error, 0 warnings): the other device offers nothing to continue"
            ))
        #expect(result.output.contains("1. error same-team: "))
        #expect(
            result.output.contains(
                "   the origin com.example.notes is of team ABCDE12345; the receiver org.other.notes is of team ZYXWV98765"
            ))
    }

    @Test func aRealWorldProjectAndInfoPlistListTheTypesTheReceiverClaims() throws {
        // The project's Debug configuration names its bundle com.example.checklists.debug; the
        // NetNewsWire Info.plist is not a project, so --configuration is the project's alone.
        let result = try DoctorRun.handoff(
            "doctor", "--origin", DoctorFixture.path("RealWorld/XcodeProject"), "--configuration", "Debug",
            "--receiver", DoctorFixture.path("RealWorld/NetNewsWire/Info.plist"), "--receiver-team", "ABCDE12345",
            "--type", "com.example.checklists.debug.editing")
        #expect(result.status == 1, "\(result.output)\(result.error)")
        #expect(result.output.contains("Origin:   com.example.checklists.debug (team ABCDE12345)"))
        #expect(result.output.contains("1. error type-claimed: "))
        #expect(
            result.output.contains(
                "   com.ranchero.NetNewsWire-iOS does not claim com.example.checklists.debug.editing"))
        #expect(result.output.contains("   NSUserActivityTypes: AddWebFeedIntent, NextUnread, ReadArticle, SelectFeed"))
        #expect(!result.output.contains("same-team"))
    }

    @Test func everyActivityReasonInOrderFromTheOptions() throws {
        let result = try DoctorRun.handoff(
            "doctor", "--origin", Self.notes, "--receiver", Self.otherTeam, "--type", "com.example.notes.sharing",
            "--not-eligible", "--expiration", "2020-01-01T00:00:00Z", "--required-key", "noteID", "--user-info-key",
            "cursor", "--payload-bytes", "600000", "--json")
        #expect(result.status == 1, "\(result.output)\(result.error)")
        let object = try DoctorRun.object(result.output)
        let reasons = try #require(object["reasons"] as? [[String: Any]])
        #expect(
            reasons.map { $0["rule"] as? String } == [
                "eligible-for-handoff", "not-expired", "same-team", "type-claimed", "required-keys-present",
                "payload-within-limit", "payload-size-guidance",
            ])
        #expect(reasons.last?["severity"] as? String == "warning")
        #expect(Set(reasons[0].keys) == ["rule", "sentence", "source", "severity", "details"])
        #expect(object["verdict"] as? String == "doesNotContinue")
        #expect(object["errors"] as? Int == 6)
        #expect(object["warnings"] as? Int == 1)
    }

    // MARK: Web pages and association files

    @Test func aPageTheSiteFileApprovesContinuesWithoutAnOrigin() throws {
        let result = try DoctorRun.handoff(
            "doctor", "--receiver", Self.notes, "--webpage", "https://notes.example.com/n/1", "--site-file",
            "notes.example.com=\(Self.sites)/approving.json")
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("Origin:   a web browser"))
        #expect(result.output.contains("  entitlement entry: activitycontinuation:notes.example.com"))
        #expect(
            result.output.contains(
                "  for ABCDE12345.com.example.notes: approved; read from \(Self.sites)/approving.json"))
        #expect(result.output.contains("Verdict: continues in com.example.notes (0 errors, 0 warnings)"))
    }

    @Test func aSiteFileThatDoesNotListTheAppOrIsNotJSONSendsThePageToTheBrowser() throws {
        for (file, said) in [
            ("unapproving.json", "not listed (the file approves ABCDE12345.com.example.other)"),
            ("not-json.json", "not JSON: not JSON (it starts “<html>not found</html>”)"),
        ] {
            let result = try DoctorRun.handoff(
                "doctor", "--receiver", Self.notes, "--webpage", "https://notes.example.com/n/1", "--site-file",
                "notes.example.com=\(Self.sites)/\(file)")
            #expect(result.status == 1, "\(result.output)\(result.error)")
            #expect(result.output.contains("error web-needs-approval: "))
            #expect(result.output.contains("for ABCDE12345.com.example.notes: \(said); read from "), "\(result.output)")
            #expect(result.output.contains("the other device's browser opens https://notes.example.com/n/1 instead"))
        }
    }

    @Test func aWildcardEntryIsVerifiedWithTheDomainsFile() throws {
        let folder = try DoctorTemporaryFolder()
        let approving = try folder.write(
            "example.org.json", #"{"activitycontinuation":{"apps":["ABCDE12345.com.example.notes"]}}"#)
        let wildcard = try DoctorRun.handoff(
            "doctor", "--receiver", Self.notes, "--webpage", "https://a.example.org/", "--site-file",
            "example.org=\(approving)")
        #expect(wildcard.status == 0, "\(wildcard.output)\(wildcard.error)")
        #expect(wildcard.output.contains("  entitlement entry: activitycontinuation:*.example.org (wildcard)"))
        #expect(
            wildcard.output.contains("  association file: https://example.org/.well-known/apple-app-site-association"))
        let apex = try DoctorRun.handoff(
            "doctor", "--receiver", Self.notes, "--webpage", "https://example.org/", "--site-file",
            "example.org=\(approving)")
        #expect(apex.status == 1)
        #expect(apex.output.contains("*.example.org names the subdomains of example.org, not example.org itself"))
    }

    @Test func withoutASiteFileOrALocalWebTheFileIsNotChecked() throws {
        let folder = try DoctorTemporaryFolder()
        let result = try DoctorRun.handoff(
            "doctor", "--receiver", Self.notes, "--webpage", "https://notes.example.com/", "--web-dir", folder.path,
            "--json")
        #expect(result.status == 1, "\(result.output)\(result.error)")
        let object = try DoctorRun.object(result.output)
        let web = try #require(object["web"] as? [String: Any])
        let file = try #require(web["associationFile"] as? [String: Any])
        #expect(file["checked"] as? Bool == false)
        #expect(file["outcome"] as? String == "notChecked")
        #expect((file["description"] as? String)?.contains("no local web is running") == true)
    }

    // MARK: Bad input

    @Test func badInputExitsTwoNamingTheFileTheKeyAndTheOption() throws {
        let missing = try DoctorRun.handoff(
            "doctor", "--origin", "no/such/Info.plist", "--receiver", Self.notes, "--type", "com.example.notes.editing")
        #expect(missing.status == 2)
        #expect(
            missing.error.hasPrefix("handoff doctor: --origin no/such/Info.plist: no such file or folder"),
            "\(missing.error)")

        let wrongTypes = try DoctorRun.handoff(
            "doctor", "--origin", Self.notes, "--receiver", DoctorFixture.path("WrongTypes-Info.plist"), "--type", "x.y"
        )
        #expect(wrongTypes.status == 2)
        #expect(wrongTypes.error.contains(DoctorFixture.path("WrongTypes-Info.plist")), "\(wrongTypes.error)")

        let unresolved = try DoctorRun.handoff(
            "doctor", "--origin", Self.notes, "--receiver", Self.notesScenes, "--type", "com.example.notes.editing")
        #expect(unresolved.status == 2)
        #expect(
            unresolved.error.contains(
                "\(Self.notesScenes): CFBundleIdentifier: unresolved build setting $(PRODUCT_BUNDLE_IDENTIFIER)"),
            "\(unresolved.error)")
        #expect(
            unresolved.error.contains(
                "(for the receiver alone: --receiver-define NAME=VALUE; for both apps: --define NAME=VALUE)"))

        let entitlements = try DoctorRun.handoff(
            "doctor", "--origin", Self.notes, "--receiver", Self.notes, "--receiver-entitlements",
            DoctorFixture.path("Problems.entitlements"), "--type", "com.example.notes.editing")
        #expect(entitlements.status == 2)
        #expect(
            entitlements.error.contains(
                "\(DoctorFixture.path("Problems.entitlements")): com.apple.developer.associated-domains[3]: expected a string, found an integer"
            ), "\(entitlements.error)")

        let configuration = try DoctorRun.handoff(
            "doctor", "--origin", Self.notes, "--origin-configuration", "Debug", "--receiver", Self.notes, "--type",
            "com.example.notes.editing")
        #expect(configuration.status == 2)
        #expect(
            configuration.error.contains("--target and --configuration are for an Xcode project"),
            "\(configuration.error)")

        let target = try DoctorRun.handoff(
            "doctor", "--origin", DoctorFixture.path("RealWorld/XcodeProject"), "--origin-target", "Nope", "--receiver",
            Self.notes, "--type", "x.y")
        #expect(target.status == 2)
        #expect(target.error.contains("Nope"), "\(target.error)")

        let siteFile = try DoctorRun.handoff(
            "doctor", "--receiver", Self.notes, "--webpage", "https://notes.example.com/", "--site-file", "nohost")
        #expect(siteFile.status == 2)
        #expect(siteFile.error == "handoff doctor: --site-file expects HOST=FILE, got \"nohost\"\n")

        let unreadableSite = try DoctorRun.handoff(
            "doctor", "--receiver", Self.notes, "--webpage", "https://notes.example.com/", "--site-file",
            "notes.example.com=no/such.json")
        #expect(unreadableSite.status == 2)
        #expect(
            unreadableSite.error.hasPrefix(
                "handoff doctor: --site-file notes.example.com=no/such.json: cannot read the file"))
    }

    // MARK: Recordings

    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let laptop = PeerReference(id: "laptop-id", name: "Laptop")

    /// A phone's recording of one native continuation from the laptop: it ends `continued`, or
    /// fails with 4610 where the payload should have arrived.
    static func phoneRecording(in folder: DoctorTemporaryFolder, failing: Bool) throws -> String {
        let c = ContinuationID(rawValue: UUID())
        let type = "com.example.notes.editing"
        let bundle = "com.example.notes"
        func at(_ ms: Int, _ occurrence: LifecycleEvent.Occurrence) -> LifecycleEvent {
            LifecycleEvent(time: start.addingTimeInterval(Double(ms) / 1000), device: "Phone", occurrence)
        }
        let route = Route.app(bundleIdentifier: bundle, activityType: type)
        var events = [
            at(60, .continueChosen(c, laptop, route: route)),
            at(61, .applicationLaunched(c, bundleIdentifier: bundle, launch: .cold)),
            at(70, .willContinue(c, laptop, bundleIdentifier: bundle, activityType: type, appShowsProgress: true)),
            at(71, .fetchStarted(c, laptop, timeout: 5)),
        ]
        if failing {
            events.append(
                at(
                    5071,
                    .continuationFailed(
                        c, laptop, bundleIdentifier: bundle, activityType: type,
                        HandoffError(.remoteApplicationTimedOut, "no answer in 5 s"))))
        } else {
            events += [
                at(90, .payloadReceived(c, laptop, activityType: type, bytes: 90, milliseconds: 19, userInfo: [:])),
                at(91, .continueCalled(c, bundleIdentifier: bundle, activityType: type)),
                at(
                    92,
                    .continued(c, laptop, bundleIdentifier: bundle, .application(restoredObjects: 0), milliseconds: 32)),
            ]
        }
        let path = folder.url.appendingPathComponent(failing ? "failing.jsonl" : "succeeding.jsonl").path
        let recorder = try LifecycleRecorder(
            path: path, device: PeerInfo(id: "phone-id", name: "Phone", kind: .phone), account: "demo")
        for event in events { recorder.record(event) }
        return path
    }

    @Test func recordingsExitZeroWhenEveryContinuationSucceededAndOneWhenOneFailed() throws {
        let folder = try DoctorTemporaryFolder()
        let succeeding = try DoctorRun.handoff("doctor", try Self.phoneRecording(in: folder, failing: false))
        #expect(succeeding.status == 0, "\(succeeding.output)\(succeeding.error)")
        #expect(succeeding.output.contains("Phone: continuation "))
        #expect(succeeding.output.contains("from Laptop (native, cold launch): succeeded"))
        #expect(
            succeeding.output.hasSuffix(
                "1 continuation chosen in 1 recording (Phone): 1 succeeded, 0 failed, 0 unfinished.\n"))

        let failing = try DoctorRun.handoff("doctor", try Self.phoneRecording(in: folder, failing: true))
        #expect(failing.status == 1, "\(failing.output)\(failing.error)")
        for text in [
            "from Laptop (native, cold launch): failed",
            "  first difference: Phone #5 2026-11-18T",
            "  continuation-ends-once: Every continuation the user chose ends exactly once",
            "  failed with 4610 (NSUserActivityRemoteApplicationTimedOutError): the remote app did not send the data in time: no answer in 5 s",
            "  a continuation that succeeds has payloadReceived here",
            "  a continuation that succeeds: continueChosen → applicationLaunched → willContinue → fetchStarted → payloadReceived → continueCalled → continued",
            "0 succeeded, 1 failed, 0 unfinished.",
        ] {
            #expect(failing.output.contains(text), "\(text): \(failing.output)")
        }

        let json = try DoctorRun.handoff("doctor", "--json", try Self.phoneRecording(in: folder, failing: true))
        #expect(json.status == 1)
        let object = try DoctorRun.object(json.output)
        #expect(object["failed"] as? Int == 1)
        let finding = try #require((object["continuations"] as? [[String: Any]])?.first)
        #expect(finding["rule"] as? String == "continuation-ends-once")
        #expect(finding["expectedThere"] as? String == "payloadReceived")

        let notJSON = try folder.write(
            "not-json.jsonl",
            "{\"recording\":\"handoff-lifecycle\",\"version\":1,\"device\":\"A\",\"account\":\"demo\"}\nnot json\n")
        let unreadable = try DoctorRun.handoff("doctor", notJSON)
        #expect(unreadable.status == 2)
        #expect(unreadable.error.hasPrefix("handoff doctor: \(notJSON):2: not JSON"), "\(unreadable.error)")

        let mixed = try DoctorRun.handoff("doctor", notJSON, "--type", "x.y")
        #expect(mixed.status == 2)
        #expect(mixed.error == "handoff doctor: --type is for two apps; recordings take no app options\n")
    }
}

// MARK: - Running the executable

enum DoctorRun {
    /// Runs the built `handoff` from the package root, its output captured in files.
    static func handoff(_ arguments: String...) throws -> (status: Int32, output: String, error: String) {
        try handoff(arguments)
    }

    static func handoff(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let executable = try #require(HandoffExecutable.url)
        let folder = try DoctorTemporaryFolder()
        let output = folder.url.appendingPathComponent("out").path
        let error = folder.url.appendingPathComponent("err").path
        let process = try ChildProcess(
            executable: executable.path, arguments: arguments, currentDirectory: DoctorFixture.packageRoot.path,
            standardOutput: .file(output), standardError: .file(error))
        let termination = try #require(
            process.waitForExit(timeout: 60), "handoff \(arguments.joined(separator: " ")) did not end")
        return (
            termination.status, try String(contentsOfFile: output, encoding: .utf8),
            try String(contentsOfFile: error, encoding: .utf8)
        )
    }

    static func object(_ text: String) throws -> [String: Any] {
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(parsed as? [String: Any], "not a JSON object: \(text)")
    }
}

enum DoctorFixture {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ name: String) -> String { "Tests/HandoffManifestTests/Fixtures/manifests/\(name)" }
}

final class DoctorTemporaryFolder {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func write(_ name: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }
}
