import Foundation
import HandoffCore
import HandoffProcesses
import HandoffTestSupport
import Testing

/// End-to-end tests of `handoff manifest lint`: they run the built executable as a process.
@Suite("handoff manifest lint (end to end)", .tags(.endToEnd), .ownThread)
struct ManifestLintCommandTests {
    // MARK: Exit status 0

    @Test func cleanManifestExitsZeroWithAReadableReport() throws {
        let result = try Handoff.run(
            "manifest", "lint", Fixture.path("Browser-Info.plist"), "--entitlements",
            Fixture.path("Minimal.entitlements"))
        #expect(result.status == 0)
        #expect(result.standardError == "")
        let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Info.plist:        \(Fixture.path("Browser-Info.plist"))")
        #expect(lines.contains("Entitlements:      \(Fixture.path("Minimal.entitlements"))"))
        #expect(lines.contains("Bundle identifier: com.example.browser"))
        #expect(lines.contains("Team identifier:   ABCDE12345"))
        #expect(lines.contains("Activity types (1):"))
        #expect(lines.contains("  NSUserActivityTypeBrowsingWeb"))
        #expect(lines.contains("Document types: none"))
        #expect(lines.contains("Associated domains: none"))
        #expect(lines.contains("Problems: none"))
        // TeamIdentifier in the Info.plist is the simulator's key: a note, not a problem.
        #expect(lines.contains("Notes (1):"))
        #expect(lines.suffix(2) == ["0 errors, 0 warnings, 1 note", ""])
    }

    @Test func warningsAloneExitZero() throws {
        let directory = try TemporaryDirectory()
        let info = try directory.write(
            "Info.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>com.example.app</string>
            <key>TeamIdentifier</key><string>team</string>
            <key>NSUserActivityTypes</key><array><string>com.example.app.view</string><string>com.example.app.view</string></array>
            </dict></plist>
            """)
        let result = try Handoff.run("manifest", "lint", info)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("  warning: \(info): TeamIdentifier: "))
        #expect(result.standardOutput.contains("  warning: \(info): NSUserActivityTypes[1]: "))
        #expect(result.standardOutput.contains("  note: \(info): TeamIdentifier: the simulator's key"))
        #expect(result.standardOutput.hasSuffix("0 errors, 2 warnings, 1 note\n"))
    }

    @Test func defineResolvesBuildSettings() throws {
        let arguments = [
            "manifest", "lint", Fixture.path("Reader-Info.plist"), "--entitlements",
            Fixture.path("Reader.entitlements"),
        ]
        // Every setting the Reader's files use is one Xcode defines: notes, exit 0.
        let unresolved = try Handoff.run(arguments)
        #expect(unresolved.status == 0)
        #expect(
            unresolved.standardOutput.contains(
                "CFBundleIdentifier: $(PRODUCT_BUNDLE_IDENTIFIER) is left as written: Xcode defines it when it builds the app"
            ))
        #expect(
            unresolved.standardOutput.hasSuffix(
                "0 errors, 0 warnings, 8 notes\nPass the values of build settings with --define NAME=VALUE, or in a BuildSettings.xcconfig file next to the Info.plist.\n"
            ))

        let resolved = try Handoff.run(
            arguments + [
                "--define", "PRODUCT_BUNDLE_IDENTIFIER=com.example.reader", "--define", "DEVELOPMENT_TEAM=ABCDE12345",
                "--define", "PRODUCT_NAME=Reader",
            ])
        #expect(resolved.status == 0)
        #expect(resolved.standardOutput.contains("Bundle identifier: com.example.reader"))
        #expect(resolved.standardOutput.contains("  com.example.reader.reading"))
        #expect(resolved.standardOutput.contains("    ubiquitous activity type: com.example.reader.document"))
        #expect(resolved.standardOutput.contains("  activitycontinuation:reader.example.com"))
        #expect(resolved.standardOutput.hasSuffix("0 errors, 0 warnings\n"))
    }

    @Test func theLastDefinitionOfANameWinsAndValuesMayContainEqualsSigns() throws {
        let directory = try TemporaryDirectory()
        let info = try directory.write(
            "Info.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>$(ID)</string>
            <key>CFBundleName</key><string>$(NAME)</string>
            <key>TeamIdentifier</key><string>ABCDE12345</string>
            <key>NSUserActivityTypes</key><array><string>$(ID).view</string></array>
            </dict></plist>
            """)
        let result = try Handoff.run(
            "manifest", "lint", info, "--json", "--define", "ID=com.example.first", "--define", "ID=com.example.second",
            "--define", "NAME=a=b")
        #expect(result.status == 0)
        let report = try JSONReport(result.standardOutput)
        #expect(report.object["bundleIdentifier"] as? String == "com.example.second")
        #expect(report.object["activityTypes"] as? [String] == ["com.example.second.view"])
    }

    // MARK: Exit status 1

    @Test func errorsExitOneAndListEveryProblem() throws {
        let result = try Handoff.run(
            "manifest", "lint", Fixture.path("Problems-Info.plist"), "--entitlements",
            Fixture.path("Problems.entitlements"))
        #expect(result.status == 1)
        #expect(result.standardError == "")
        let output = result.standardOutput
        #expect(output.contains("Problems (23):"))
        #expect(
            output.contains(
                "  error: \(Fixture.path("Problems-Info.plist")): NSUserActivityTypes[2]: expected a string, found an integer"
            ))
        #expect(
            output.contains(
                "  warning: \(Fixture.path("Problems-Info.plist")): CFBundleDocumentTypes[0].NSUbiquitousDocumentUserActivityType: "
            ))
        #expect(
            output.contains(
                "  error: \(Fixture.path("Problems.entitlements")): com.apple.developer.associated-domains[1]: \"problems.example.com\" has no service prefix"
            ))
        #expect(
            output.contains(
                "  warning: \(Fixture.path("Problems.entitlements")): com.apple.developer.team-identifier: "))
        // Activity types that are not reverse-DNS are warnings (Apple accepts them); an empty one is an error.
        #expect(
            output.contains(
                "  warning: \(Fixture.path("Problems-Info.plist")): NSUserActivityTypes[1]: \"viewing\" is not a reverse-DNS activity type"
            ))
        #expect(output.contains("  error: \(Fixture.path("Problems-Info.plist")): NSUserActivityTypes[10]: is empty"))
        #expect(
            output.hasSuffix(
                "13 errors, 10 warnings\nPass the values of build settings with --define NAME=VALUE, or in a BuildSettings.xcconfig file next to the Info.plist.\n"
            ))
    }

    @Test func wrongValueTypesExitOne() throws {
        let result = try Handoff.run("manifest", "lint", Fixture.path("WrongTypes-Info.plist"))
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("NSUserActivityTypes: expected an array of strings, found a string"))
        #expect(result.standardOutput.contains("Bundle identifier: (unknown)"))
        #expect(result.standardOutput.hasSuffix("5 errors, 0 warnings\n"))
    }

    // MARK: Exit status 2

    @Test func missingFileExitsTwoNamingIt() throws {
        let path = "/nonexistent-\(UUID().uuidString)/Info.plist"
        let result = try Handoff.run("manifest", "lint", path)
        #expect(result.status == 2)
        #expect(result.standardOutput == "")
        #expect(result.standardError == "error: \(path): cannot read the file: no such file\n")
    }

    @Test func missingEntitlementsExitTwoNamingThem() throws {
        let path = "/nonexistent-\(UUID().uuidString)/App.entitlements"
        let result = try Handoff.run("manifest", "lint", Fixture.path("Browser-Info.plist"), "--entitlements", path)
        #expect(result.status == 2)
        #expect(result.standardError == "error: \(path): cannot read the file: no such file\n")
    }

    @Test func malformedXMLExitsTwo() throws {
        let path = Fixture.path("Malformed-Info.plist")
        let result = try Handoff.run("manifest", "lint", path, "--json")
        #expect(result.status == 2)
        #expect(result.standardOutput == "")
        #expect(result.standardError.hasPrefix("error: \(path): not a valid property list: "))
        #expect(result.standardError.contains("line 6"))
    }

    @Test func topLevelArrayExitsTwo() throws {
        let path = Fixture.path("TopLevelArray.plist")
        let result = try Handoff.run("manifest", "lint", path)
        #expect(result.status == 2)
        #expect(result.standardError == "error: \(path): the property list's top level is an array, not a dictionary\n")
    }

    @Test func directoryExitsTwo() throws {
        let directory = try TemporaryDirectory()
        let result = try Handoff.run("manifest", "lint", directory.path)
        #expect(result.status == 2)
        #expect(
            result.standardError
                == "error: \(directory.path): a folder with no .xcodeproj in it; give an Info.plist or an Xcode project\n"
        )
    }

    @Test(arguments: 0..<8)
    func randomBytesExitTwoWithAClearMessage(_ seed: Int) throws {
        var generator = SplitMix64(seed: UInt64(seed) &+ 0xC0FFEE)
        var bytes = (0..<(64 + seed * 97)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        if seed % 2 == 1 { bytes = Array("bplist00".utf8) + bytes }
        let directory = try TemporaryDirectory()
        let path = try directory.write("Random.plist", Data(bytes))
        let result = try Handoff.run("manifest", "lint", path)
        #expect(result.status == 2)
        #expect(result.standardOutput == "")
        #expect(result.standardError.hasPrefix("error: \(path): "))
        #expect(result.standardError.hasSuffix("\n"))
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(!result.standardError.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test func binaryPropertyListWithASetExitsTwoInsteadOfCrashing() throws {
        // bplist00: a dictionary { "k": set("a", "b") }, which crashes Foundation on Linux if parsed.
        var bytes = Array("bplist00".utf8)
        let objects: [[UInt8]] = [[0xD1, 1, 2], [0x51, 0x6B], [0xC2, 3, 4], [0x51, 0x61], [0x51, 0x62]]
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let tableOffset = UInt8(bytes.count)
        bytes += offsets
        bytes +=
            [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)] + [UInt8](repeating: 0, count: 8)
            + [0, 0, 0, 0, 0, 0, 0, tableOffset]
        let directory = try TemporaryDirectory()
        let path = try directory.write("Set.plist", Data(bytes))
        let result = try Handoff.run("manifest", "lint", path)
        #expect(result.status == 2)
        #expect(
            result.standardError.hasPrefix(
                "error: \(path): not a valid property list: binary property list: it contains a set"))
    }

    // MARK: JSON

    @Test func jsonHasTheDocumentedShape() throws {
        let result = try Handoff.run(
            "manifest", "lint", Fixture.path("Problems-Info.plist"), "--entitlements",
            Fixture.path("Problems.entitlements"), "--json")
        #expect(result.status == 1)
        let report = try JSONReport(result.standardOutput)
        #expect(
            Set(report.object.keys) == [
                "bundleIdentifier", "teamIdentifier", "activityTypes", "documentTypes", "associatedDomains",
                "sceneManifest", "problems", "notes",
            ])
        #expect(report.object["sceneManifest"] is NSNull)
        #expect((report.object["notes"] as? [Any])?.isEmpty == true)
        #expect(report.object["bundleIdentifier"] as? String == "com.example.problems")
        #expect(report.object["teamIdentifier"] as? String == "abc123")
        #expect((report.object["activityTypes"] as? [String])?.first == "com.example.problems.viewing")
        let documentTypes = try #require(report.object["documentTypes"] as? [[String: Any]])
        #expect(documentTypes.count == 2)
        for documentType in documentTypes {
            #expect(Set(documentType.keys) == ["name", "contentTypes", "ubiquitousActivityType"])
        }
        #expect(documentTypes[0]["ubiquitousActivityType"] as? String == "editing a note")
        #expect(documentTypes[1]["ubiquitousActivityType"] is NSNull)
        #expect(documentTypes[0]["contentTypes"] as? [String] == ["com.example.problems.note"])
        #expect((report.object["associatedDomains"] as? [String])?.first == "activitycontinuation:problems.example.com")
        let problems = try #require(report.object["problems"] as? [[String: Any]])
        #expect(problems.count == 23)
        for problem in problems {
            #expect(Set(problem.keys) == ["severity", "message", "key", "file"])
            #expect(["error", "warning"].contains(problem["severity"] as? String))
        }
        let ubiquitous = try #require(
            problems.first { $0["key"] as? String == "CFBundleDocumentTypes[0].NSUbiquitousDocumentUserActivityType" })
        #expect(ubiquitous["severity"] as? String == "warning")
        #expect(ubiquitous["file"] as? String == Fixture.path("Problems-Info.plist"))
        #expect(
            problems.contains {
                $0["key"] as? String == "NSUserActivityTypes[2]"
                    && $0["message"] as? String == "expected a string, found an integer"
            })
    }

    @Test func jsonUsesNullForAnUnknownTeam() throws {
        let directory = try TemporaryDirectory()
        let info = try directory.write(
            "Info.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>com.example.app</string>
            <key>NSUserActivityTypes</key><array><string>com.example.app.view</string></array>
            </dict></plist>
            """)
        let result = try Handoff.run("manifest", "lint", "--json", info)
        // Apple reads the team from the code signature: without one the simulator warns, and exits 0.
        #expect(result.status == 0)
        let report = try JSONReport(result.standardOutput)
        #expect(report.object["teamIdentifier"] is NSNull)
        let problems = try #require(report.object["problems"] as? [[String: Any]])
        #expect(problems.map { $0["key"] as? String } == ["TeamIdentifier"])
        // The human-readable hint about build settings stays out of the JSON.
        #expect(!result.standardOutput.contains("Pass the values of build settings"))
    }

    // MARK: Build-settings files

    @Test(arguments: ["Reader", "Map", "Browser"])
    func theProjectsOwnManifestsLintCleanWithoutArguments(app: String) throws {
        let plist = "demos/apps/\(app)/Info.plist"
        let result = try Handoff.run("manifest", "lint", plist)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardError == "")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        // The entitlements and the build settings beside the Info.plist are found.
        let entitlements = app == "Browser" ? [] : ["Entitlements:      demos/apps/\(app)/\(app).entitlements"]
        #expect(
            Array(lines.prefix(entitlements.count + 2))
                == ["Info.plist:        \(plist)"] + entitlements + [
                    "Build settings:    demos/apps/\(app)/BuildSettings.xcconfig"
                ])
        #expect(lines.contains("Bundle identifier: com.handoffsim.\(app.lowercased())"))
        #expect(lines.contains("Team identifier:   SIMTEAM001"))
        #expect(lines.contains("Problems: none"))
        #expect(lines.last == "0 errors, 0 warnings, 1 note")
    }

    @Test(arguments: [("Reader", "ReaderApp.ReaderSceneDelegate"), ("Map", "MapApp.MapSceneDelegate")])
    func theScenesVariantsLintCleanWithoutArguments(app: String, delegate: String) throws {
        let plist = "demos/apps/\(app)/Info-Scenes.plist"
        let result = try Handoff.run("manifest", "lint", plist)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("Entitlements:      demos/apps/\(app)/\(app).entitlements"))
        #expect(lines.contains("  UIWindowSceneSessionRoleApplication: Default Configuration → \(delegate)"))
        #expect(lines.contains("Problems: none"))
        #expect(lines.last == "0 errors, 0 warnings, 1 note")
        let json = try JSONReport(try Handoff.run("manifest", "lint", plist, "--json").standardOutput)
        let scenes = try #require(json.object["sceneManifest"] as? [String: Any])
        let configurations = try #require(scenes["configurations"] as? [[String: Any]])
        #expect(configurations.first?["delegateClass"] as? String == delegate)
        #expect(configurations.first?["role"] as? String == "UIWindowSceneSessionRoleApplication")
    }

    @Test func theMapsEntitlementsLintCleanToo() throws {
        let result = try Handoff.run(
            "manifest", "lint", "demos/apps/Map/Info.plist", "--entitlements", "demos/apps/Map/Map.entitlements")
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("  activitycontinuation:maps.handoffsim.example"))
        #expect(result.standardOutput.hasSuffix("0 errors, 0 warnings, 1 note\n"))
    }

    @Test func theFileNextToTheInfoPlistIsReadAndDefinitionsWin() throws {
        let directory = try TemporaryDirectory()
        let info = try directory.write(
            "Info.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>
            <key>TeamIdentifier</key><string>$(DEVELOPMENT_TEAM)</string>
            <key>NSUserActivityTypes</key><array><string>$(PRODUCT_BUNDLE_IDENTIFIER).view</string></array>
            </dict></plist>
            """)
        _ = try directory.write(
            "BuildSettings.xcconfig",
            "// settings\nPRODUCT_BUNDLE_IDENTIFIER = com.example.file\nDEVELOPMENT_TEAM = ABCDE12345\n")
        let fromFile = try Handoff.run("manifest", "lint", info)
        #expect(fromFile.status == 0)
        #expect(fromFile.standardOutput.contains("Build settings:    \(directory.path)/BuildSettings.xcconfig"))
        #expect(fromFile.standardOutput.contains("  com.example.file.view"))
        let defined = try Handoff.run(
            "manifest", "lint", info, "--define", "PRODUCT_BUNDLE_IDENTIFIER=com.example.defined")
        #expect(defined.status == 0)
        #expect(
            defined.standardOutput.contains("Bundle identifier: com.example.defined"), "a --define wins over the file")
        // --build-settings names another file instead.
        let other = try directory.write("Other.xcconfig", "PRODUCT_BUNDLE_IDENTIFIER = com.example.other\n")
        let instead = try Handoff.run("manifest", "lint", info, "--build-settings", other)
        // The other file has no DEVELOPMENT_TEAM, which Xcode defines: a note, not an error.
        #expect(instead.status == 0)
        #expect(instead.standardOutput.contains("Build settings:    \(other)"))
        #expect(instead.standardOutput.contains("Bundle identifier: com.example.other"))
        #expect(instead.standardOutput.contains("TeamIdentifier: $(DEVELOPMENT_TEAM) is left as written"))
    }

    @Test func aBadBuildSettingsFileExitsTwoNamingTheFileAndTheLine() throws {
        let directory = try TemporaryDirectory()
        let info = try directory.write("Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        _ = try directory.write("BuildSettings.xcconfig", "A = 1\n#include \"Base.xcconfig\"\n")
        let result = try Handoff.run("manifest", "lint", info)
        #expect(result.status == 2)
        #expect(result.standardOutput == "")
        #expect(
            result.standardError
                == "error: \(directory.path)/BuildSettings.xcconfig:2: #include is not supported: write every setting in this file\n"
        )
        let missing = try Handoff.run("manifest", "lint", info, "--build-settings", directory.path + "/none.xcconfig")
        #expect(missing.status == 2)
        #expect(missing.standardError.hasPrefix("error: \(directory.path)/none.xcconfig: cannot read the file: "))
    }

    // MARK: Usage

    @Test func helpDescribesTheCommandAndItsOptions() throws {
        let result = try Handoff.run("manifest", "lint", "--help")
        #expect(result.status == 0)
        // Words, whatever the wrapping.
        let help = result.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for expected in [
            "USAGE: handoff manifest lint", "<info-plist>", "--entitlements <file>", "--define <KEY=VALUE>", "--json",
            "Exit status", "64 when",
            "--build-settings <file>", "from BuildSettings.xcconfig in the Info.plist's folder when there is one",
            "`handoff manifest lint demos/apps/Reader/Info.plist` needs no other argument",
        ] {
            #expect(help.contains(expected), "help lacks \(expected)")
        }
    }

    @Test func rootHelpListsTheManifestCommand() throws {
        let result = try Handoff.run("--help")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("USAGE: handoff <subcommand>"))
        #expect(result.standardOutput.contains("manifest"))
        let manifest = try Handoff.run("manifest", "--help")
        #expect(manifest.status == 0)
        #expect(manifest.standardOutput.contains("lint"))
    }

    @Test func versionIsPrinted() throws {
        let result = try Handoff.run("--version")
        #expect(result.status == 0)
        #expect(result.standardOutput == "0.1.0\n")
    }

    @Test(arguments: [
        ["manifest", "lint"], ["manifest", "lint", "Info.plist", "--define", "NOVALUE"],
        ["manifest", "lint", "Info.plist", "--define", "=x"], ["manifest", "lint", "--bogus"],
        ["manifest", "lint", "Info.plist", "--build-settings", ""],
    ])
    func usageErrorsExitSixtyFour(_ arguments: [String]) throws {
        let result = try Handoff.run(arguments)
        #expect(result.status == 64)
        #expect(result.standardOutput == "")
        #expect(result.standardError.contains("Usage: handoff manifest lint"))
    }

    /// An Xcode project is linted as Xcode builds the app, saying where each value came from.
    @Test func anXcodeProjectIsLintedAsXcodeBuildsTheApp() throws {
        let project = Fixture.path("RealWorld/XcodeProject")
        let debug = try Handoff.run("manifest", "lint", project, "--configuration", "Debug")
        #expect(debug.status == 0)
        let lines = debug.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "Xcode project:")
        #expect(
            lines.contains(#"  PRODUCT_BUNDLE_IDENTIFIER = com.example.checklists.debug (target "Checklists", Debug)"#))
        #expect(lines.contains(#"  DEVELOPMENT_TEAM = ABCDE12345 (project "Checklists", Debug)"#))
        #expect(lines.contains("Bundle identifier: com.example.checklists.debug"))
        #expect(lines.contains("  com.example.checklists.debug.editing"))
        #expect(lines.last == "0 errors, 0 warnings")
        let unknown = try Handoff.run("manifest", "lint", project, "--target", "Nope")
        #expect(unknown.status == 2)
        #expect(unknown.standardError.contains(#"no target "Nope"; the targets are "Checklists", "ChecklistsTests""#))
        let notAProject = try Handoff.run("manifest", "lint", Fixture.path("Reader-Info.plist"), "--target", "App")
        #expect(notAProject.status == 64)
    }
}

/// The top-level command line: unknown commands and the device's options are reported with the
/// right usage.
@Suite("handoff usage errors (end to end)", .tags(.endToEnd), .ownThread)
struct HandoffUsageTests {
    @Test func anUnknownCommandIsNamedWithTheTopLevelUsage() throws {
        let result = try Handoff.run("bogus")
        #expect(result.status == 64)
        #expect(result.standardOutput == "")
        #expect(
            result.standardError.hasPrefix(
                "Error: unknown command \"bogus\" (commands: device, demo, scenario, account, manifest, web, "))
        #expect(result.standardError.contains(" bench"))
        #expect(result.standardError.contains("Usage: handoff <subcommand>"))
        #expect(!result.standardError.contains("handoff device"), "not the device's usage")
        // Options alone still run a device (here, its help), and `help` is the built-in command.
        #expect(try Handoff.run("--version").status == 0)
        #expect(try Handoff.run("help").standardOutput.contains("USAGE: handoff <subcommand>"))
    }

    @Test(arguments: [
        (["--apps", "reader,foo"], "--apps: no app named \"foo\" (known: reader, map, browser, studio, other)."),
        (
            ["device", "--apps", "reader,foo"],
            "--apps: no app named \"foo\" (known: reader, map, browser, studio, other)."
        ),
        (
            ["device", "--headless", "--apps", "studio"],
            "--apps: no app named \"studio\" (known: reader, map, browser)."
        ),
        (["device", "--reader-version", "7"], "--reader-version must be 1, 2 or 3, not 7."),
    ])
    func aBadDeviceOptionIsNamedWithTheDevicesUsage(arguments: [String], message: String) throws {
        let result = try Handoff.run(arguments + ["--config-dir", "/nonexistent/handoff-usage-test"])
        #expect(result.status == 64)
        #expect(result.standardError.hasPrefix("Error: \(message)\n"), "\(result.standardError)")
        #expect(result.standardError.contains("Usage: handoff device"), "the device's usage")
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent/handoff-usage-test"), "nothing was started")
    }

    @Test func theDevicesHelpNamesTheLogFileAsItIs() throws {
        let result = try Handoff.run("device", "--help")
        #expect(result.status == 0)
        let help = result.standardOutput.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(
            separator: " ")
        #expect(help.contains("$XDG_STATE_HOME/handoff/ACCOUNT-NAME.log"), "\(help)")
        #expect(help.contains("3 (a newer Reader"))
    }
}

// MARK: - Running the executable

/// The outcome of one run of `handoff`.
private struct ProcessResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

private enum Handoff {
    static func run(_ arguments: String...) throws -> ProcessResult {
        try run(arguments)
    }

    /// Runs `handoff` with `arguments`, its output captured in files (so that no pipe can fill up).
    static func run(_ arguments: [String]) throws -> ProcessResult {
        let executable = try #require(
            HandoffExecutable.url, "the handoff executable was not found; build it with swift build")
        let directory = try TemporaryDirectory()
        let outputURL = directory.url.appendingPathComponent("stdout")
        let errorURL = directory.url.appendingPathComponent("stderr")
        let process = try ChildProcess(
            executable: executable.path, arguments: arguments,
            currentDirectory: Fixture.packageRoot.path,
            standardOutput: .file(outputURL.path), standardError: .file(errorURL.path))
        let termination = try #require(
            process.waitForExit(timeout: 60), "handoff \(arguments.joined(separator: " ")) did not end")
        return ProcessResult(
            status: termination.status,
            standardOutput: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
    }
}

/// The manifest fixtures of the manifest tests, named by paths relative to the package root (the
/// working directory of every run).
private enum Fixture {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ name: String) -> String {
        "Tests/HandoffManifestTests/Fixtures/manifests/\(name)"
    }
}

/// A JSON object printed by `handoff manifest lint --json`.
private struct JSONReport {
    var object: [String: Any]

    init(_ text: String) throws {
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        object = try #require(parsed as? [String: Any], "not a JSON object: \(text)")
    }
}

/// A directory that is removed when the value is no longer used.
private final class TemporaryDirectory {
    let url: URL

    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-cli-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `text` to a file called `name` and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, Data(text.utf8))
    }

    /// Writes `data` to a file called `name` and returns its path.
    func write(_ name: String, _ data: Data) throws -> String {
        let file = url.appendingPathComponent(name)
        try data.write(to: file)
        return file.path
    }
}

/// `handoff manifest lint` on Info.plists as shipping apps write them.
@Suite("handoff manifest lint on real-world Info.plists (end to end)", .tags(.endToEnd), .ownThread)
struct RealWorldManifestLintCommandTests {
    @Test func netNewsWireStyleExitsZeroWithWarnings() throws {
        let plist = Fixture.path("RealWorld/NetNewsWire/Info.plist")
        let result = try Handoff.run("manifest", "lint", plist)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardError == "")
        let output = result.standardOutput
        #expect(output.contains("Build settings:    \(Fixture.path("RealWorld/NetNewsWire/BuildSettings.xcconfig"))"))
        #expect(
            output.contains(
                "  warning: \(plist): NSUserActivityTypes[2]: \"ReadArticle\" is not a reverse-DNS activity type"))
        #expect(
            output.contains("  UIWindowSceneSessionRoleApplication: Default Configuration → NetNewsWire.SceneDelegate"))
        #expect(output.hasSuffix("0 errors, 5 warnings\n"))
        // With the team given, only the short activity types remain.
        let withTeam = try Handoff.run("manifest", "lint", plist, "--team", "ABCDE12345")
        #expect(withTeam.status == 0)
        #expect(withTeam.standardOutput.hasSuffix("0 errors, 4 warnings\n"))
    }

    @Test func aBrokenSceneManifestExitsOneNamingTheKey() throws {
        let plist = Fixture.path("BrokenScenes-Info.plist")
        let result = try Handoff.run("manifest", "lint", plist)
        #expect(result.status == 1)
        #expect(
            result.standardOutput.contains(
                "  error: \(plist): UIApplicationSceneManifest.UIApplicationSupportsMultipleScenes: expected a Boolean, found a string"
            ))
        #expect(
            result.standardOutput.contains(
                "  error: \(plist): UIApplicationSceneManifest.UISceneConfigurations.UIWindowSceneSessionRoleApplication[1].UISceneDelegateClassName: expected a string, found an integer"
            ))
    }
}
