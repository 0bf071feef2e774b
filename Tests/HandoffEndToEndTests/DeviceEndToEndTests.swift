import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Whether the device's whole frame is on `screen`: its last row, the key hints, ends with
/// "Ctrl-Q quit" (curses draws a frame top to bottom, and the terminal may show part of it).
private func isWholeDeviceFrame(_ screen: String) -> Bool {
    screen.split(separator: "\n").last { !$0.allSatisfy(\.isWhitespace) }?.hasSuffix("Ctrl-Q quit") == true
}

/// `screen` with the clock's time (`HH:MM`) blanked, to compare two pictures taken at different times.
private func withoutTimes(_ screen: String) -> String {
    screen.replacing(/\d\d:\d\d/, with: "HH:MM")
}

/// The exit status and settings check the device's shell prints, once both are on the screen.
private func waitForExit(
    of session: TmuxSession, timeout: Duration = .seconds(10)
) throws -> (status: Int, sttySame: Bool, screen: String) {
    let screen = try session.waitFor(matching: #"EXIT=\d+\nSTTY-(SAME|CHANGED)\n"#, timeout: timeout)
    let match = try #require(screen.firstMatch(of: /EXIT=(\d+)\nSTTY-(SAME|CHANGED)\n/))
    return (try #require(Int(match.output.1)), match.output.2 == "SAME", screen)
}

/// Types a check of the terminal settings against the shell's `before` into an interactive
/// shell, and returns whether they are the same (after waiting for the whole answer, which the
/// command line itself never spells out, even wrapped).
private func settingsAreAsBefore(in session: TmuxSession, check: String) throws -> Bool {
    try session.sendText(
        #"echo "STTY-$(if [ "$(stty -g)" = "$before" ]; then echo SAME; else echo CHANGED; fi)-\#(check)""# + "\n")
    let screen = try session.waitFor(matching: "STTY-(SAME|CHANGED)-\(check)\n")
    return screen.contains("STTY-SAME-\(check)\n")
}

/// What a crash report or the runtime's crash message would leave on the screen.
private let crashReportTraces = ["crashed", "Crashed", "Backtrac", "Press space", "Fatal error", "💣", "Thread 0"]

/// Two real terminal devices (`handoff device`), each in its own private tmux server, in a
/// private account, configuration folder and discovery port: the reading hand-off a person
/// does in two terminals, driven by keys and checked on the screens.
@Suite(
    "Terminal devices end to end", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct DeviceEndToEndTests {
    @Test func aDocumentReadOnOneDeviceContinuesAtTheSamePageOnTheOther() throws {
        let world = try TerminalDevicesWorld()
        let a = try world.start("Alpha", kind: "laptop")
        let b = try world.start("Beta", kind: "phone", width: 80, height: 24)
        try a.waitFor("Beta in Alpha's sidebar", timeout: .seconds(10)) { $0.contains("Beta phone") }
        try b.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }

        // A opens the Reader, the first document, and goes to page 3.
        try readPageThree(on: a)

        // B's sidebar shows the offer; locking B shows the lock-screen prompt.
        try b.waitFor("the offer in Beta's sidebar", timeout: .seconds(10)) { $0.contains("continuable") }
        try b.sendKeys("F3")
        try b.waitFor("the lock-screen prompt with the Reader's glyph", timeout: .seconds(10)) {
            $0.contains("locked") && $0.contains("from Alpha") && $0.contains("Enter continue") && $0.contains("▤")
        }

        // Accepting unlocks and opens the same document at page 3; both devices say so (for a
        // few seconds: seen on both screens, in whichever order).
        try b.sendKeys("Enter")
        try continuation(from: a, to: b, showing: "page 3 of", extra: "unlocked")

        // Both follow a resize, and a too-small terminal says so.
        try a.resizeWindow(width: 160, height: 48)
        try a.waitFor("Alpha at 160 columns") { screen in
            screen.split(separator: "\n").contains { $0.count >= 150 && $0.contains("Alpha · laptop") }
        }
        try b.resizeWindow(width: 30, height: 14)  // a phone needs 34x18
        try b.waitFor("the too-small screen on Beta") { $0.contains(/need \d+x\d+, have 30x14/) }
        try b.resizeWindow(width: 90, height: 30)
        // The same document: its title is back once the notice has gone.
        try b.waitFor("Beta's page again, with the document's title", timeout: .seconds(15)) {
            $0.contains("page 3 of") && $0.contains("A Short Guide to Handoff")
        }

        // The lifecycle log pane opens (it follows the latest events, which by now are Beta's
        // own offer); both logs list the continuation.
        try b.sendKeys("F2")
        try b.waitFor("Beta's lifecycle log") { $0.contains(/Lifecycle log · \d+ events/) }
        try world.waitForLog(of: "Beta", containing: ["lifecycle continued"])
        try world.waitForLog(of: "Alpha", containing: ["lifecycle wasContinued"])

        // Ctrl-Q quits A; SIGTERM stops B. Both give the terminal back as it was: wait for the
        // exit status and the settings check, both, before looking at either.
        try a.sendKeys("C-q")
        let aExit = try waitForExit(of: a)
        #expect(aExit.status == 0)
        #expect(aExit.sttySame)
        #expect(try !a.isAlternateScreenOn())

        let pid = try #require(try b.programPID(named: "handoff"))
        kill(pid, SIGTERM)
        let bExit = try waitForExit(of: b)
        #expect(bExit.status == 143)
        #expect(bExit.sttySame)
        #expect(try !b.isAlternateScreenOn())
    }

    @Test func theMapRegionHandsOffBetweenTwoDevices() throws {
        let world = try TerminalDevicesWorld()
        let a = try world.start("Alpha", kind: "laptop", extra: ["--apps", "map"], expecting: "Map")
        let b = try world.start(
            "Beta", kind: "phone", width: 80, height: 24, extra: ["--apps", "map"], expecting: "Map")
        try b.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }
        try showLisbon(on: a)
        // The zoom level itself (the whole status line: the number, then the scale bar), not
        // just any change of the picture (a frame still being drawn).
        let zoomLevel = /38\.73°N 9\.15°W · zoom ([0-9.]+) +├/
        let status = try a.waitFor("Lisbon's zoom level") { $0.contains(zoomLevel) }
        let before = try #require(status.firstMatch(of: zoomLevel).flatMap { Double($0.output.1) })
        try a.sendKeys("+")
        try a.waitFor("zoomed in") { screen in
            screen.firstMatch(of: zoomLevel).flatMap { Double($0.output.1) }.map { $0 > before } ?? false
        }
        try b.waitFor("the map offer on Beta", timeout: .seconds(10)) { $0.contains("Map from Alpha") }
        try b.sendKeys("C-o")
        let screens = try continuation(from: a, to: b, showing: "38.73°N 9.15°W")
        #expect(screens[0].contains("◍"))
    }

    @Test func ctrlZThenSIGTERMEndsTheStoppedDeviceWithTheTerminalAsBefore() throws {
        let world = try TerminalDevicesWorld()
        let a = try world.startInShell("Alpha", kind: "laptop")
        let pid = try #require(try a.programPID(named: "handoff"))
        try a.sendKeys("C-z")
        try a.waitFor(matching: "Stopped", timeout: .seconds(10))
        #expect(try !a.isAlternateScreenOn())
        #expect(try settingsAreAsBefore(in: a, check: "stopped"))
        // bash's kill sends SIGTERM, then SIGCONT to the stopped job: the device quits on its
        // own (no crash, no "Terminated"). (bash's own report of the job is no sure sign: it
        // may say "Stopped" again, and reap late.)
        try a.sendText("kill %1\n")
        try a.waitForExit(ofProcess: pid, timeout: .seconds(15))
        #expect(try settingsAreAsBefore(in: a, check: "ended"))
        #expect(try !a.isAlternateScreenOn())
        let final = try a.capture()
        for trace in crashReportTraces { #expect(!final.contains(trace), "\(trace) on the screen:\n\(final)") }
        let log = try world.waitForLog(of: "Alpha", containing: ["signal 15: quitting", "stopping device Alpha"])
        #expect(!log.contains("crashed"))
    }

    @Test func ctrlZThenFgRedrawsTheDeviceAndItKeepsWorking() throws {
        let world = try TerminalDevicesWorld()
        let a = try world.startInShell("Alpha", kind: "laptop")
        // Online: the first frame says "starting" until the device has joined the network.
        let home = try a.waitFor("the whole home screen, online") {
            $0.contains("Alpha · laptop") && $0.contains("● online") && isWholeDeviceFrame($0)
        }
        try a.sendKeys("C-z")
        try a.waitFor(matching: "Stopped", timeout: .seconds(10))
        #expect(try !a.isAlternateScreenOn())
        #expect(try settingsAreAsBefore(in: a, check: "stopped"))
        try a.sendText(
            #"fg; echo "EXIT=$?"; if [ "$(stty -g)" = "$before" ]; then echo STTY-SAME; else echo STTY-CHANGED; fi"#
                + "\n")
        // The whole picture again, as it was before the stop.
        try a.waitFor("the whole home screen again", timeout: .seconds(10)) { withoutTimes($0) == withoutTimes(home) }
        #expect(try a.isAlternateScreenOn())
        try world.waitForLog(of: "Alpha", containing: ["continued after a stop"])
        // Keys still work: the Reader opens.
        try a.sendKeys("Enter")
        try a.waitFor("the document list") { $0.contains("A Short Guide to Handoff") && $0.contains("In the cloud") }
        try a.sendKeys("C-q")
        let exit = try waitForExit(of: a)
        #expect(exit.status == 0)
        #expect(exit.sttySame)
        #expect(try !a.isAlternateScreenOn())
    }

    @Test func ctrlLRepaintsTheWholeScreenAndNeverReachesTheApp() throws {
        let world = try TerminalDevicesWorld()
        let a = try world.start("Alpha", kind: "laptop", extra: ["--apps", "browser"], expecting: "Browser")
        try a.sendKeys("Enter")
        // The page settled: loaded (not "Loading handoffsim.example…") and offered in the sidebar.
        // A frame taken before either would never come back, and the repaint could not match it.
        var page = try a.waitFor("the Browser's page, loaded and offered") {
            $0.contains("Handoff on the web") && !$0.contains("Loading ") && $0.contains("This device offers")
                && isWholeDeviceFrame($0)
        }
        // And whole: a capture can fall between two writes of one frame (the page's lines still
        // blank under a sidebar already drawn). The reference is a frame that stays 300 ms.
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            usleep(300_000)
            let again = try a.capture()
            if withoutTimes(again) == withoutTimes(page) { break }
            page = again
            guard ContinuousClock.now < deadline else {
                Issue.record("the page never stayed the same for 300 ms")
                return
            }
        }
        try a.scribble("\u{1B}[6;8HSCRIBBLED OVER THE DEVICE\u{1B}[20;30HMORE SCRIBBLES")
        try a.waitFor(all: ["SCRIBBLED OVER THE DEVICE", "MORE SCRIBBLES"])
        try a.sendKeys("C-l")
        // The same picture as before the scribbles: Ctrl-L went to no app (a browser would
        // focus its address bar).
        do {
            try a.waitFor("the page repainted as it was") { withoutTimes($0) == withoutTimes(page) }
        } catch {
            // Say which lines differ from the reference frame, not only what the screen became.
            let now = withoutTimes(try a.capture()).split(separator: "\n", omittingEmptySubsequences: false)
            let before = withoutTimes(page).split(separator: "\n", omittingEmptySubsequences: false)
            let differing = (0..<max(now.count, before.count)).filter { index in
                (index < now.count ? now[index] : "") != (index < before.count ? before[index] : "")
            }
            let lines = differing.map {
                "line \($0):\n  before: \($0 < before.count ? before[$0] : "")\n  now:    \($0 < now.count ? now[$0] : "")"
            }
            Issue.record(
                "the repaint differs from the settled page in \(differing.count) lines:\n\(lines.joined(separator: "\n"))"
            )
            throw error
        }
    }

    @Test func aTerminalWithoutAlternateScreenIsClearedWhenTheDeviceQuits() throws {
        let world = try TerminalDevicesWorld()
        let a = try world.start("Alpha", kind: "laptop", environment: ["TERM": "linux"])
        try a.sendKeys("C-q")
        let exit = try waitForExit(of: a)
        #expect(exit.status == 0)
        #expect(exit.sttySame)
        // Nothing of the device's screen is left: the shell's output starts at the top.
        #expect(!exit.screen.contains("Alpha") && !exit.screen.contains("┌") && !exit.screen.contains("│"))
        #expect(exit.screen.hasPrefix("EXIT=0\nSTTY-SAME\n"), "screen:\n\(exit.screen)")
    }

    @Test func aCrashRestoresTheTerminalAndTheReportGoesToTheLog() throws {
        let world = try TerminalDevicesWorld()
        let a = try world.start("Alpha", kind: "laptop")
        // A segmentation fault as `kill` sends it: the runtime's crash handler runs as for a real one.
        kill(try #require(try a.programPID(named: "handoff")), SIGSEGV)
        let exit = try waitForExit(of: a, timeout: .seconds(60))
        #expect(exit.status == 139)
        #expect(exit.sttySame)
        #expect(try !a.isAlternateScreenOn())
        for trace in crashReportTraces {
            #expect(!exit.screen.contains(trace), "\(trace) on the screen:\n\(exit.screen)")
        }
        // The runtime waits for the report before the process ends: it is whole by now.
        let log = world.log(of: "Alpha")
        #expect(log.contains("Program crashed"), "log:\n\(log.suffix(3000))")
        #expect(log.contains("Backtrace took"), "log:\n\(log.suffix(3000))")
        #expect(log.contains("starting device Alpha"), "the report is appended to the log")
        #expect(!log.contains("\u{1B}["), "the report is not coloured")
    }

    /// Waits until the continuing device (`to`, Beta) shows `texts` with its notice "Continued
    /// from Alpha", and the origin (`from`, Alpha) its notice "Continued on Beta". The notices
    /// last a few seconds and appear at about the same time, so both screens are watched at
    /// once. Returns the two screens (Beta's, Alpha's).
    @discardableResult
    func continuation(
        from origin: TmuxSession, to receiver: TmuxSession, showing texts: String...,
        extra: String? = nil
    ) throws -> [String] {
        let expected = texts + [extra].compactMap { $0 } + ["Continued from Alpha"]
        return try TmuxSession.waitUntilSeen(
            [
                .init("\(expected) on Beta", on: receiver) { screen in expected.allSatisfy(screen.contains) },
                .init("Alpha saying it was continued", on: origin) { $0.contains("Continued on Beta") },
            ], timeout: .seconds(15))
    }

    /// Opens the Map on `device` (its only app) and searches for Lisbon.
    func showLisbon(on device: TmuxSession) throws {
        try device.sendKeys("Enter")
        try device.waitFor("the map") { $0.contains("zoom") }
        try device.sendKeys("/")
        try device.sendText("Lisbon")
        try device.sendKeys("Enter")
        try device.waitFor("Lisbon") { $0.contains("38.73°N 9.15°W") }
    }

    /// Opens the first document on `device` and turns to page 3.
    func readPageThree(on device: TmuxSession) throws {
        try device.sendKeys("Enter")
        try device.waitFor("the document list") {
            $0.contains("A Short Guide to Handoff") && $0.contains("In the cloud")
        }
        try device.sendKeys("Enter")
        try device.waitFor("page 1") { $0.contains("page 1 of") }
        try device.sendKeys("PageDown")
        try device.waitFor("page 2") { $0.contains("page 2 of") }
        try device.sendKeys("PageDown")
        try device.waitFor("page 3") { $0.contains("page 3 of") }
    }

    @Test func aDocumentMissingOnTheContinuingDeviceArrivesOverStreams() throws {
        let world = try TerminalDevicesWorld()
        let a = try world.start("Alpha", kind: "laptop", extra: ["--apps", "reader"])
        let b = try world.start(
            "Beta", kind: "phone", width: 80, height: 24, extra: ["--apps", "reader", "--no-cloud"])
        try b.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }
        try readPageThree(on: a)
        try b.waitFor("the offer on Beta", timeout: .seconds(10)) { $0.contains("Reader from Alpha") }
        try b.sendKeys("C-o")
        try TmuxSession.waitUntilSeen(
            [
                .init("the document at page 3 on Beta", on: b) {
                    $0.contains("page 3 of")
                        && ($0.contains("A Short Guide to Handoff") || $0.contains("Continued from Alpha"))
                },
                .init("Alpha saying it sent the document", on: a) { $0.contains("Sent") },
            ], timeout: .seconds(20))
    }

    @Test func aVersionOneReaderHandsOffToTheCurrentOne() throws {
        let world = try TerminalDevicesWorld()
        let a = try world.start("Alpha", kind: "laptop", extra: ["--apps", "reader", "--reader-version", "1"])
        let b = try world.start("Beta", kind: "phone", width: 80, height: 24, extra: ["--apps", "reader"])
        try b.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }
        try readPageThree(on: a)
        try b.waitFor("the offer on Beta", timeout: .seconds(10)) { $0.contains("Reader from Alpha") }
        try b.sendKeys("C-o")
        try continuation(from: a, to: b, showing: "page 3 of")
        try world.waitForLog(of: "Alpha", containing: ["wasContinued"])
    }

    @Test func anAllInOneAppHandsOffToSeparateAppsAndAnotherTeamsAppIsNeverChosen() throws {
        let world = try TerminalDevicesWorld()
        let a = try world.start("Alpha", kind: "laptop", extra: ["--apps", "studio"], expecting: "Studio")
        let b = try world.start("Beta", kind: "phone", width: 80, height: 24, extra: ["--apps", "reader,map"])
        let c = try world.start(
            "Gamma", kind: "phone", width: 80, height: 24, extra: ["--apps", "other"], expecting: "▥")
        try b.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }
        try readPageThree(on: a)
        // Gamma has only another team's app that claims the type: the sidebar says why not.
        try c.waitFor("the reason on Gamma", timeout: .seconds(10)) { $0.contains("team differs") }
        try b.waitFor("the reading offer on Beta", timeout: .seconds(10)) { $0.contains("Reader from Alpha") }
        try b.sendKeys("C-o")
        try b.waitFor("the document at page 3 in Beta's Reader", timeout: .seconds(15)) {
            $0.contains("page 3 of") && ($0.contains("A Short Guide to Handoff") || $0.contains("Continued from Alpha"))
        }
        // The same app switches to its map: Beta continues it in its separate Map app.
        try a.sendKeys("F5")
        try a.waitFor("Studio's map") { $0.contains("◍ Map") && $0.contains("zoom") }
        try b.waitFor("the map offer on Beta", timeout: .seconds(10)) { $0.contains("Map from Alpha") }
        try b.sendKeys("C-o")
        try b.waitFor("the map in Beta's Map app", timeout: .seconds(15)) {
            $0.contains("zoom") && $0.contains("Continued from Alpha")
        }
    }

    @Test func aMapActivityOnADeviceWithoutTheMapOpensTheBrowserAtItsWebPage() throws {
        let world = try TerminalDevicesWorld()
        let a = try world.start("Alpha", kind: "laptop", extra: ["--apps", "map"], expecting: "Map")
        let b = try world.start(
            "Beta", kind: "phone", width: 80, height: 24, extra: ["--apps", "browser"], expecting: "Browser")
        try b.waitFor("Alpha in Beta's sidebar", timeout: .seconds(10)) { $0.contains("Alpha laptop") }
        try showLisbon(on: a)
        // Beta has no Map app, but the activity has a web page: the offer is continuable in the Browser.
        try b.waitFor("the offer on Beta", timeout: .seconds(10)) { $0.contains("from Alpha") }
        try b.sendKeys("C-o")
        try continuation(from: a, to: b, showing: "maps.handoffsim.example", "Map of", "38.7")
    }

    /// The device draws its first frame before it joins the network: when the discovery port is
    /// held by another program, the screen goes, the terminal is as before, and the error is the
    /// headless device's one line, on the shell's screen.
    @Test func aDiscoveryPortInUseEndsTheDeviceWithOneLineAndTheTerminalAsBefore() throws {
        let world = try TerminalDevicesWorld()
        let held = try PortInUseTests().holdPort(world.port, type: Int32(SOCK_DGRAM.rawValue), address: "0.0.0.0")
        defer { close(held) }
        let command =
            "before=$(stty -g); " + (try world.deviceCommand("Alpha", kind: "laptop", extra: []))
            + #"; echo "EXIT=$?"; if [ "$(stty -g)" = "$before" ]; then echo STTY-SAME; else echo STTY-CHANGED; fi; exec sleep 120"#
        let session = try #require(try TmuxSession(width: 100, height: 30, command: command))
        world.sessions.append(session)
        let exit = try waitForExit(of: session, timeout: .seconds(30))
        #expect(exit.status == 1)
        #expect(exit.sttySame)
        #expect(try !session.isAlternateScreenOn())
        #expect(
            exit.screen.contains("discovery port \(world.port) is in use") && exit.screen.contains("--port"),
            "screen:\n\(exit.screen)")
        #expect(!exit.screen.contains("Alpha · laptop"), "screen:\n\(exit.screen)")
        try world.waitForLog(of: "Alpha", containing: ["cannot join the network", "stopping device Alpha"])
    }

    @Test func aDeviceWithAnUnknownAppSaysSoBeforeTakingTheTerminal() throws {
        let world = try TerminalDevicesWorld()
        let executable = try #require(HandoffExecutable.url).path
        let command =
            "'\(executable)' device --apps reader,atlas --config-dir '\(world.directory.path)' --port \(world.port); echo EXIT=$?; exec sleep 60"
        let session = try #require(try TmuxSession(command: command))
        world.sessions.append(session)
        let screen = try session.waitFor("the error and the exit status", timeout: .seconds(30)) {
            $0.contains("atlas") && $0.contains(/EXIT=\d+\n/)
        }
        #expect(!screen.contains("EXIT=0\n"))
    }

    @Test func theDemoOpensTwoDevicesThatFindEachOther() throws {
        let world = try TerminalDevicesWorld()
        let executable = try #require(HandoffExecutable.url).path
        let command =
            "'\(executable)' demo --account \(world.account) --port \(world.port) "
            + "--config-dir '\(world.directory.appendingPathComponent("config").path)'; exec sleep 120"
        let session = try #require(
            try TmuxSession(
                width: 180, height: 40,
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
@Suite("Scenarios end to end", .tags(.endToEnd), .ownThread, .enabled(if: HandoffExecutable.url != nil))
struct ScenarioEndToEndTests {
    @Test func everyShippedScenarioPasses() throws {
        let executable = try #require(HandoffExecutable.url)
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../demos/scenarios"
        ).standardized
        let (termination, text) = try ChildProcess.run(executable.path, ["scenario", folder.path])
        // Every run's recordings were checked against Apple's rules (docs/rules.md).
        let passes = text.components(separatedBy: "PASS (").count - 1
        #expect(text.components(separatedBy: "✓ Apple's rules: ").count - 1 == passes, "\(text)")
        #expect(text.contains("scenarios passed"))
        #expect(termination == .exited(0), "\(text)")
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
        let (termination, text) = try ChildProcess.run(executable.path, ["scenario", file.path])
        #expect(termination == .exited(1), "\(text)")
        #expect(text.contains("✗ step 1: A did not report restored within 0.5 s"), "\(text)")
        #expect(text.contains("expected: {\"event\":\"restored\"}"), "\(text)")
        #expect(text.contains("latest lines from A"))
        #expect(text.contains("FAIL at step 1 of 1 (0 passed"), "\(text)")
    }
}
