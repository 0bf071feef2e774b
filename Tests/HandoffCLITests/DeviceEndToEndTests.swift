import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HandoffTestSupport
import Testing

/// Two real terminal devices (`handoff device`), each in its own private tmux server, in a
/// private account, configuration folder and discovery port: the reading hand-off a person
/// does in two terminals, driven by keys and checked on the screens.
@Suite("Terminal devices end to end", .serialized,
       .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct DeviceEndToEndTests {
    /// A private neighbourhood: one folder (accounts, logs), one account, one port.
    final class World {
        let directory: URL
        let account = "e2e-\(UUID().uuidString.prefix(8).lowercased())"
        let port = Int.random(in: 20_000...60_000)
        var sessions: [TmuxSession] = []

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-e2e-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        /// Starts a device in a new tmux server. The shell around it records the terminal's
        /// settings before and compares them after, prints the exit status, and keeps the pane.
        func start(_ name: String, kind: String, width: Int = 100, height: Int = 30, extra: [String] = [],
                   expecting app: String = "Reader") throws -> TmuxSession {
            let executable = try #require(HandoffExecutable.url).path
            let arguments = ["device", "--name", name, "--kind", kind, "--account", account, "--port", String(port),
                             "--config-dir", directory.appendingPathComponent("config").path,
                             "--log-file", directory.appendingPathComponent("\(name).log").path] + extra
            let command = "before=$(stty -g); '\(executable)' " + arguments.map { "'\($0)'" }.joined(separator: " ")
                + #"; echo "EXIT=$?"; if [ "$(stty -g)" = "$before" ]; then echo STTY-SAME; else echo STTY-CHANGED; fi; exec sleep 120"#
            let session = try #require(try TmuxSession(width: width, height: height, command: command))
            sessions.append(session)
            try session.waitFor("\(name)'s home screen", timeout: .seconds(30)) { $0.contains("\(name) · \(kind)") && $0.contains(app) }
            return session
        }

        func log(of name: String) -> String {
            (try? String(contentsOf: directory.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? ""
        }

        deinit {
            for session in sessions { session.close() }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func aDocumentReadOnOneDeviceContinuesAtTheSamePageOnTheOther() throws {
        let world = try World()
        let a = try world.start("Alpha", kind: "laptop")
        let b = try world.start("Beta", kind: "phone", width: 80, height: 24)
        try a.waitFor("Beta in Alpha's sidebar", timeout: .seconds(10)) { $0.contains("Beta phone") }
        try b.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }

        // A opens the Reader, the first document, and goes to page 3.
        try readPageThree(on: a)

        // B's sidebar shows the offer; locking B shows the lock-screen prompt.
        try b.waitFor("the offer in Beta's sidebar", timeout: .seconds(10)) { $0.contains("continuable") }
        try b.sendKeys("F3")
        let locked = try b.waitFor("the lock-screen prompt", timeout: .seconds(10)) {
            $0.contains("locked") && $0.contains("from Alpha") && $0.contains("Enter continue")
        }
        #expect(locked.contains("▤"))

        // Accepting unlocks and opens the same document at page 3.
        try b.sendKeys("Enter")
        let continued = try b.waitFor("the document at page 3 on Beta", timeout: .seconds(15)) {
            $0.contains("A Short Guide to Handoff") && $0.contains("page 3 of")
        }
        #expect(continued.contains("unlocked"))
        try a.waitFor("Alpha saying it was continued", timeout: .seconds(10)) { $0.contains("Continued on Beta") }

        // Both follow a resize, and a too-small terminal says so.
        try a.resizeWindow(width: 160, height: 48)
        try a.waitFor("Alpha at 160 columns") { screen in
            screen.split(separator: "\n").contains { $0.count >= 150 && $0.contains("Alpha · laptop") }
        }
        try b.resizeWindow(width: 60, height: 20)
        try b.waitFor("the too-small screen on Beta") { $0.localizedCaseInsensitiveContains("too small") }
        try b.resizeWindow(width: 90, height: 30)
        try b.waitFor("Beta's page again") { $0.contains("page 3 of") }

        // The lifecycle log pane lists the continuation on both.
        try b.sendKeys("F2")
        try b.waitFor("Beta's lifecycle log") { $0.contains("Lifecycle log") && $0.contains("continued") }
        #expect(world.log(of: "Alpha").contains("wasContinued"))

        // Ctrl-Q quits A; SIGTERM stops B. Both give the terminal back as it was.
        try a.sendKeys("C-q")
        let aExit = try a.waitFor("Alpha's exit", timeout: .seconds(10)) { $0.contains("EXIT=") }
        #expect(aExit.contains("EXIT=0"))
        #expect(aExit.contains("STTY-SAME"))
        #expect(try a.run(["display-message", "-p", "-t", a.mainPane, "#{alternate_on}"]).hasPrefix("0"))

        let pid = try #require(try b.programPID(named: "handoff"))
        kill(pid, SIGTERM)
        let bExit = try b.waitFor("Beta's exit", timeout: .seconds(10)) { $0.contains("EXIT=") }
        #expect(bExit.contains("STTY-SAME"))
        #expect(try b.run(["display-message", "-p", "-t", b.mainPane, "#{alternate_on}"]).hasPrefix("0"))
    }

    @Test func theMapRegionHandsOffBetweenTwoDevices() throws {
        let world = try World()
        let a = try world.start("Alpha", kind: "laptop", extra: ["--apps", "map"], expecting: "Map")
        let b = try world.start("Beta", kind: "phone", width: 80, height: 24, extra: ["--apps", "map"], expecting: "Map")
        try b.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }
        try showLisbon(on: a)
        let before = try a.capture()
        try a.sendKeys("+")
        try a.waitFor("zoomed in") { $0.contains("38.72°N 9.15°W · zoom") && $0 != before }
        try b.waitFor("the map offer on Beta", timeout: .seconds(10)) { $0.contains("Map from Alpha") }
        try b.sendKeys("C-o")
        let continued = try b.waitFor("the same region on Beta", timeout: .seconds(15)) {
            $0.contains("38.72°N 9.15°W") && $0.contains("Continued from Alpha")
        }
        #expect(continued.contains("◍"))
        try a.waitFor("Alpha saying it was continued", timeout: .seconds(10)) { $0.contains("Continued on Beta") }
    }

    /// Opens the Map on `device` (its only app) and searches for Lisbon.
    func showLisbon(on device: TmuxSession) throws {
        try device.sendKeys("Enter")
        try device.waitFor("the map") { $0.contains("zoom") }
        try device.sendKeys("/")
        try device.sendText("Lisbon")
        try device.sendKeys("Enter")
        try device.waitFor("Lisbon") { $0.contains("38.72°N 9.15°W") }
    }

    /// Opens the first document on `device` and turns to page 3.
    func readPageThree(on device: TmuxSession) throws {
        try device.sendKeys("Enter")
        try device.waitFor("the document list") { $0.contains("A Short Guide to Handoff") && $0.contains("In the cloud") }
        try device.sendKeys("Enter")
        try device.waitFor("page 1") { $0.contains("page 1 of") }
        try device.sendKeys("PageDown")
        try device.waitFor("page 2") { $0.contains("page 2 of") }
        try device.sendKeys("PageDown")
        try device.waitFor("page 3") { $0.contains("page 3 of") }
    }

    @Test func aDocumentMissingOnTheContinuingDeviceArrivesOverStreams() throws {
        let world = try World()
        let a = try world.start("Alpha", kind: "laptop", extra: ["--apps", "reader"])
        let b = try world.start("Beta", kind: "phone", width: 80, height: 24, extra: ["--apps", "reader", "--no-cloud"])
        try b.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }
        try readPageThree(on: a)
        try b.waitFor("the offer on Beta", timeout: .seconds(10)) { $0.contains("Reader from Alpha") }
        try b.sendKeys("C-o")
        try b.waitFor("the document at page 3 on Beta", timeout: .seconds(20)) {
            $0.contains("A Short Guide to Handoff") && $0.contains("page 3 of")
        }
        try a.waitFor("Alpha saying it sent the document", timeout: .seconds(10)) { $0.contains("Sent") }
    }

    @Test func aVersionOneReaderHandsOffToTheCurrentOne() throws {
        let world = try World()
        let a = try world.start("Alpha", kind: "laptop", extra: ["--apps", "reader", "--reader-version", "1"])
        let b = try world.start("Beta", kind: "phone", width: 80, height: 24, extra: ["--apps", "reader"])
        try b.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }
        try readPageThree(on: a)
        try b.waitFor("the offer on Beta", timeout: .seconds(10)) { $0.contains("Reader from Alpha") }
        try b.sendKeys("C-o")
        try b.waitFor("the document at page 3 on Beta", timeout: .seconds(15)) {
            $0.contains("A Short Guide to Handoff") && $0.contains("page 3 of")
        }
        try a.waitFor("Alpha saying it was continued", timeout: .seconds(10)) { $0.contains("Continued on Beta") }
        #expect(world.log(of: "Alpha").contains("wasContinued"))
    }

    @Test func anAllInOneAppHandsOffToSeparateAppsAndAnotherTeamsAppIsNeverChosen() throws {
        let world = try World()
        let a = try world.start("Alpha", kind: "laptop", extra: ["--apps", "studio"], expecting: "Studio")
        let b = try world.start("Beta", kind: "phone", width: 80, height: 24, extra: ["--apps", "reader,map"])
        let c = try world.start("Gamma", kind: "phone", width: 80, height: 24, extra: ["--apps", "other"], expecting: "▥")
        try b.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }
        try readPageThree(on: a)
        // Gamma has only another team's app that claims the type: the sidebar says why not.
        try c.waitFor("the reason on Gamma", timeout: .seconds(10)) { $0.contains("team differs") }
        try b.waitFor("the reading offer on Beta", timeout: .seconds(10)) { $0.contains("Reader from Alpha") }
        try b.sendKeys("C-o")
        try b.waitFor("the document at page 3 in Beta's Reader", timeout: .seconds(15)) {
            $0.contains("A Short Guide to Handoff") && $0.contains("page 3 of")
        }
        // The same app switches to its map: Beta continues it in its separate Map app.
        try a.sendKeys("F5")
        try a.waitFor("Studio's map") { $0.contains("◍ Map") && $0.contains("zoom") }
        try b.waitFor("the map offer on Beta", timeout: .seconds(10)) { $0.contains("Map from Alpha") }
        try b.sendKeys("C-o")
        try b.waitFor("the map in Beta's Map app", timeout: .seconds(15)) { $0.contains("zoom") && $0.contains("Continued from Alpha") }
    }

    @Test func aMapActivityOnADeviceWithoutTheMapOpensTheBrowserAtItsWebPage() throws {
        let world = try World()
        let a = try world.start("Alpha", kind: "laptop", extra: ["--apps", "map"], expecting: "Map")
        let b = try world.start("Beta", kind: "phone", width: 80, height: 24, extra: ["--apps", "browser"], expecting: "Browser")
        try b.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }
        try showLisbon(on: a)
        // Beta has no Map app, but the activity has a web page: the offer is continuable in the Browser.
        try b.waitFor("the offer on Beta", timeout: .seconds(10)) { $0.contains("from Alpha") }
        try b.sendKeys("C-o")
        let page = try b.waitFor("the map's web page in Beta's Browser", timeout: .seconds(15)) {
            $0.contains("maps.handoffsim.example") && $0.contains("Map of")
        }
        #expect(page.contains("38.7"))
        try a.waitFor("Alpha saying it was continued", timeout: .seconds(10)) { $0.contains("Continued on Beta") }
    }

    @Test func aDeviceWithAnUnknownAppSaysSoBeforeTakingTheTerminal() throws {
        let world = try World()
        let executable = try #require(HandoffExecutable.url).path
        let command = "'\(executable)' device --apps reader,atlas --config-dir '\(world.directory.path)' --port \(world.port); echo EXIT=$?; exec sleep 60"
        let session = try #require(try TmuxSession(command: command))
        world.sessions.append(session)
        let screen = try session.waitFor("the error", timeout: .seconds(30)) { $0.contains("EXIT=") }
        #expect(screen.contains("atlas"))
        #expect(!screen.contains("EXIT=0"))
    }

    @Test func theDemoOpensTwoDevicesThatFindEachOther() throws {
        let world = try World()
        let executable = try #require(HandoffExecutable.url).path
        let command = "'\(executable)' demo --account \(world.account) --port \(world.port) "
            + "--config-dir '\(world.directory.appendingPathComponent("config").path)'; exec sleep 120"
        let session = try #require(try TmuxSession(width: 180, height: 40,
                                                   environment: ["XDG_STATE_HOME": world.directory.appendingPathComponent("state").path],
                                                   command: command))
        world.sessions.append(session)
        // Inside tmux, the demo opens a window split in two, one device per pane.
        var panes: [String] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while panes.count < 2 && ContinuousClock.now < deadline {
            // Until the demo has run, there is no window of that name.
            panes = ((try? session.run(["list-panes", "-t", "\(session.name):handoff", "-F", "#{pane_id}"])) ?? "")
                .split(separator: "\n").map(String.init)
            if panes.count < 2 { usleep(50_000) }
        }
        #expect(panes.count == 2)
        guard panes.count == 2 else { return }
        try session.waitFor("the laptop seeing the phone", in: panes[0], timeout: .seconds(30)) {
            $0.contains("laptop · \(world.account)") && $0.contains("phone")
        }
        try session.waitFor("the phone seeing the laptop", in: panes[1], timeout: .seconds(30)) {
            $0.contains("phone · \(world.account)") && $0.contains("laptop")
        }
    }
}

/// The shipped scenarios, replayed by `handoff scenario` with real headless processes.
@Suite("Scenarios end to end", .enabled(if: HandoffExecutable.url != nil))
struct ScenarioEndToEndTests {
    @Test func everyShippedScenarioPasses() throws {
        let executable = try #require(HandoffExecutable.url)
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../demos/scenarios").standardized
        let process = Process()
        process.executableURL = executable
        process.arguments = ["scenario", folder.path]
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let text = try String(contentsOf: output, encoding: .utf8)
        try? FileManager.default.removeItem(at: output)
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("scenarios passed"))
        #expect(!text.contains("FAIL"))
    }

    @Test func aScenarioThatFailsSaysWhereAndExitsOne() throws {
        let executable = try #require(HandoffExecutable.url)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("failing-\(UUID().uuidString).json")
        try #"""
        {"name": "never", "devices": [{"name": "A"}],
         "steps": [{"on": "A", "expect": {"event": "restored"}, "within": 0.5}]}
        """#.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["scenario", file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        #expect(process.terminationStatus == 1)
        #expect(text.contains("✗ A: no line matching"))
        #expect(text.contains("latest lines from A"))
    }
}
