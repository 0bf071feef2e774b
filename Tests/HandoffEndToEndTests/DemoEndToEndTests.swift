import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `handoff demo` as a new user runs it: inside tmux, at the sizes people have, its panes, its
/// stories, and what a pane does when its device quits.
@Suite(
    "The demo end to end", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct DemoEndToEndTests {
    /// A private account, configuration folder, state folder and discovery port.
    final class World {
        let directory: URL
        let account = "demo-\(UUID().uuidString.prefix(8).lowercased())"
        let port = DiscoveryPort.random()
        var sessions: [TmuxSession] = []

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "handoff-demo-e2e-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        var executable: String { HandoffExecutable.url?.path ?? "handoff" }

        /// `handoff demo ARGUMENTS` in a tmux server of `width` x `height`; the shell prints the
        /// demo command's exit status and keeps the first window.
        func demo(_ arguments: String = "", width: Int, height: Int) throws -> TmuxSession {
            let command =
                "'\(executable)' demo \(arguments) --account \(account) --port \(port) "
                + "--config-dir '\(directory.appendingPathComponent("config").path)'; echo DEMO-EXIT=$?; exec sleep 120"
            let session = try #require(
                try TmuxSession(
                    width: width, height: height,
                    environment: ["XDG_STATE_HOME": directory.appendingPathComponent("state").path],
                    command: command))
            sessions.append(session)
            return session
        }

        deinit {
            for session in sessions { session.close() }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// The demo window's panes, once it has `count` of them.
    func panes(of session: TmuxSession, count: Int) throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(30)
        var panes: [String] = []
        while ContinuousClock.now < deadline {
            panes = ((try? session.run(["list-panes", "-t", "\(session.name):handoff", "-F", "#{pane_id}"])) ?? "")
                .split(separator: "\n").map(String.init)
            if panes.count == count { return panes }
            usleep(50_000)
        }
        throw TmuxSession.Failure(
            "the demo window has \(panes.count) panes, not \(count)", screen: try? session.capture())
    }

    /// Both devices of the reading demo draw their frames and list each other as nearby.
    func expectTwoDevicesThatSeeEachOther(width: Int, height: Int) throws {
        let world = try World()
        let session = try world.demo(width: width, height: height)
        let panes = try panes(of: session, count: 2)
        try session.waitFor("the laptop, listing the phone", in: panes[0], timeout: .seconds(30)) {
            $0.contains("Laptop 1 · laptop · \(world.account)") && $0.contains("Phone 1") && !$0.contains("too small")
        }
        try session.waitFor("the phone, listing the laptop", in: panes[1], timeout: .seconds(30)) {
            $0.contains("Phone 1 · phone · \(world.account)") && $0.contains("Laptop 1") && !$0.contains("too small")
        }
    }

    @Test func at120x40TwoDevicesSeeEachOther() throws {
        try expectTwoDevicesThatSeeEachOther(width: 120, height: 40)
    }

    @Test func at80x24TwoDevicesSeeEachOther() throws {
        try expectTwoDevicesThatSeeEachOther(width: 80, height: 24)
    }

    /// `handoff demo web`: the local web runs in its own window; a Map page in the laptop's
    /// Browser continues in the phone's Map app, whose site the phone verified through it.
    @Test func theWebDemoServesTheSitesAndAMapPageContinuesInTheMapApp() throws {
        let world = try World()
        let session = try world.demo("web", width: 120, height: 40)
        let panes = try panes(of: session, count: 2)
        try session.waitFor(
            "the local web serving, and the phone's Map verified", in: "\(session.name):handoff-web",
            timeout: .seconds(30)
        ) {
            $0.contains("Ctrl-C stops.")
                && $0.contains("GET maps.handoffsim.example/.well-known/apple-app-site-association → 200")
        }
        try session.waitFor("the laptop's home screen", in: panes[0], timeout: .seconds(30)) {
            $0.contains("1 Browser") && $0.contains("Phone 1")
        }
        try session.sendKeys("Enter", to: panes[0])
        try session.waitFor("the Browser's home page", in: panes[0]) { $0.contains("Handoff on the web") }
        try session.sendKeys("g", to: panes[0])
        try session.sendText("maps.handoffsim.example/?lat=38.7&lon=-9.1&z=6", to: panes[0])
        try session.sendKeys("Enter", to: panes[0])
        try session.waitFor("the Map's page on the laptop", in: panes[0]) {
            $0.contains("Map of 38.7°N 9.1°W at zoom 6")
        }
        // The phone's Map has an approved domain, so the offer names no app until the page's host
        // is known: "web page", not "Browser" (the page opens in the Map).
        try session.waitFor("the Browser's offer on the phone", in: panes[1], timeout: .seconds(10)) {
            $0.contains("web page from Laptop 1")
        }
        try session.sendKeys("C-o", to: panes[1])
        try session.waitFor("the Map app at the page's place on the phone", in: panes[1], timeout: .seconds(15)) {
            $0.contains("Continued from Laptop 1") && $0.contains("38.7°N 9.1°W · zoom 6")
        }
        // Every other command finds the demo's web where the demo put it, with no --web-dir.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let plist = root.appendingPathComponent("demos/apps/Map/Info.plist").path
        let (status, lint) = try run(
            [world.executable, "manifest", "lint", plist, "--check-sites"],
            environment: ["XDG_STATE_HOME": world.directory.appendingPathComponent("state").path])
        #expect(status == 0, "\(lint)")
        #expect(lint.contains("activitycontinuation:maps.handoffsim.example: approved"), "\(lint)")
    }

    @Test func aTerminalTooSmallForBothIsRefusedBeforeAnythingStarts() throws {
        let world = try World()
        let session = try world.demo(width: 60, height: 15)
        // The pane is 60 columns wide: the message wraps, so read it with the lines joined.
        let screen = try session.waitFor("the refusal and the exit status", timeout: .seconds(15)) {
            let joined = $0.replacingOccurrences(of: "\n", with: "")
            return joined.contains("DEMO-EXIT=1") && joined.contains("too small for the reading demo")
        }
        #expect(screen.replacingOccurrences(of: "\n", with: "").contains("73x19 side by side"))
        let windows = try session.run(["list-windows", "-F", "#{window_name}"]).split(separator: "\n").map(String.init)
        #expect(!windows.contains("handoff"), "no demo window was opened: \(windows)")
    }

    @Test func aDeviceThatQuitsLeavesItsPaneAndEnterStartsItAgain() throws {
        let world = try World()
        let session = try world.demo(width: 120, height: 40)
        let panes = try panes(of: session, count: 2)
        try session.waitFor("the phone's home screen", in: panes[1], timeout: .seconds(30)) {
            $0.contains("Phone 1 · phone")
        }
        try session.sendKeys("C-q", to: panes[1])
        try session.waitFor("the exit status and how to start it again", in: panes[1], timeout: .seconds(15)) {
            $0.contains("The phone quit (exit status 0)") && $0.contains("Enter starts it again") && $0.contains("\n>")
        }
        try session.sendKeys("Enter", to: panes[1])
        try session.waitFor("the phone again, listing the laptop", in: panes[1], timeout: .seconds(30)) {
            $0.contains("Phone 1 · phone") && $0.contains("Laptop 1")
        }
    }

    @Test func theStoriesPassTheirOptionsToEachPane() throws {
        let world = try World()
        let stories: [(String, [String])] = [
            ("reading", ["--kind laptop", "--kind phone"]),
            ("map", ["--kind laptop", "--kind phone"]),
            (
                "web",
                [
                    "--kind phone", "--apps map,browser", "--apps browser,map", "--web-dir",
                    "new-window -d -t handoff-demo: -n handoff-web",
                    "handoff web serve --port 0 --http-port 0 --web-dir",
                ]
            ),
            ("fallback", ["--kind laptop", "--kind phone", "--apps browser"]),
            ("streams", ["--kind phone", "--no-cloud"]),
            ("versions", ["--reader-version 1", "--reader-version 3", "--kind tablet"]),
            ("asymmetric", ["--apps studio", "--apps reader,map", "--apps other"]),
        ]
        for (story, fragments) in stories {
            let (status, output) = try run([world.executable, "demo", story, "--dry-run", "--terminal-size", "200x50"])
            #expect(status == 0, "\(story): \(output)")
            for fragment in fragments { #expect(output.contains(fragment), "\(story) lacks \(fragment): \(output)") }
        }
        let (status, list) = try run([world.executable, "demo", "--list"])
        #expect(status == 0)
        for (story, _) in stories { #expect(list.contains(story + " ")) }
        let (bad, message) = try run([world.executable, "demo", "bogus"])
        #expect(bad != 0)
        #expect(message.contains("No demo story named \"bogus\""))
    }

    @Test func theArrangementFitsTheTerminal() throws {
        let world = try World()
        let expected: [(String, String, String)] = [
            ("reading", "80x24", "columns, panes 40x23, 39x23"),
            ("reading", "120x40", "columns, panes 60x39, 59x39"),
            ("reading", "200x50", "columns, panes 100x49, 99x49"),
            ("reading", "70x44", "rows, panes 70x21, 70x21"),
            ("versions", "120x40", "columns, panes 40x39, 39x39, 39x39"),
            ("versions", "90x50", "leftAndStack"),
        ]
        for (story, size, arrangement) in expected {
            let (status, output) = try run([world.executable, "demo", story, "--dry-run", "--terminal-size", size])
            #expect(status == 0 && output.contains(arrangement), "\(story) at \(size): \(output)")
        }
        let (status, output) = try run([world.executable, "demo", "versions", "--dry-run", "--terminal-size", "80x24"])
        #expect(status == 1)
        #expect(output.contains("too small for the versions demo"))
    }

    /// A second demo with other options replaces the running one and says so; the same demo is
    /// attached to. (A private tmux socket folder stands in for the user's tmux.)
    @Test func aSecondDemoWithOtherOptionsReplacesTheFirstAndSaysSo() throws {
        let world = try World()
        guard let tmux = TmuxSession.tmuxPath else { return }
        let socketFolder = world.directory.appendingPathComponent("tmux").path
        try FileManager.default.createDirectory(atPath: socketFolder, withIntermediateDirectories: true)
        let environment = ["TMUX_TMPDIR": socketFolder, "TMUX": ""]
        defer { try? spawn([tmux, "kill-server"], environment: environment) }
        let signature = "reading|laptop:|phone:|\(world.account)|\(world.port)|instant|"
        // Spawned, not run with Process: the tmux server it starts would hold Process's pipe open.
        try spawn(
            [
                tmux, "-f", "/dev/null", "new-session", "-d", "-s", "handoff-demo", "-n", "handoff", "sleep 60", ";",
                "set-option", "-w", "-t", "handoff-demo:handoff", "@handoff-demo", signature,
            ], environment: environment)
        let base = [
            world.executable, "demo", "--dry-run", "--terminal-size", "120x40", "--account", world.account,
            "--port", String(world.port),
        ]
        let (_, same) = try run(base, environment: environment)
        #expect(same.contains("attach-session -t =handoff-demo ';' select-window -t @0"), "\(same)")
        let (_, other) = try run(base + ["map"], environment: environment)
        #expect(other.contains("Replacing the reading demo (tmux session handoff-demo) with the map demo"), "\(other)")
        // The new demo goes into the same session; the old window closes after it is made, and
        // the terminal attaches.
        #expect(other.contains("new-window -t handoff-demo: -n handoff"), "\(other)")
        #expect(other.contains("kill-window -t @0"), "\(other)")
        #expect(other.hasSuffix("attach-session -t =handoff-demo\n"), "\(other)")
    }

    /// This process's environment without TMUX, with `environment` on top (an empty value
    /// removes a variable).
    func merged(_ environment: [String: String]) -> [String: String] {
        var merged = ProcessInfo.processInfo.environment
        merged["TMUX"] = nil
        for (key, value) in environment { merged[key] = value.isEmpty ? nil : value }
        return merged
    }

    /// Runs a program to its end, its output discarded.
    func spawn(_ arguments: [String], environment: [String: String]) throws {
        let child = try ChildProcess(
            executable: arguments[0], arguments: Array(arguments.dropFirst()), environment: merged(environment))
        child.waitForExit()
    }

    /// Runs a program to its end; its status and its output (standard output and error). The
    /// output goes to a file, not a pipe: a tmux server the program starts keeps what it inherits
    /// open, and a pipe would never end.
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-demo-run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let child = try ChildProcess(
            executable: arguments[0], arguments: Array(arguments.dropFirst()), environment: merged(environment),
            standardOutput: .file(output.path), standardError: .standardOutput)
        let termination = child.waitForExit()!
        return (termination.status, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }
}
