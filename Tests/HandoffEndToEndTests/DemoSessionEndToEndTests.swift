import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `handoff demo` started from a plain terminal (not inside tmux), as the README's first command
/// is: the tmux it starts, its signals, a resize, `--stop`, and a second demo replacing the
/// first. The plain terminal is a pane of a private tmux server with `TMUX` unset; the demo's
/// own tmux server lives in a private `TMUX_TMPDIR`, so nothing reaches the user's tmux.
@Suite(
    "The demo from a plain terminal", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct DemoSessionEndToEndTests {
    /// A private account, configuration and state folders, discovery port and demo tmux server.
    final class World {
        let directory: URL
        let account = "demo-\(UUID().uuidString.prefix(8).lowercased())"
        let port = DiscoveryPort.random()
        var terminals: [TmuxSession] = []

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "handoff-demo-plain-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: tmuxFolder, withIntermediateDirectories: true)
        }

        var executable: String { HandoffExecutable.url?.path ?? "handoff" }
        var tmuxFolder: URL { directory.appendingPathComponent("tmux") }
        var environment: [String: String] {
            ["TMUX_TMPDIR": tmuxFolder.path, "XDG_STATE_HOME": directory.appendingPathComponent("state").path]
        }

        /// The arguments every `handoff demo` of this world takes.
        func demoArguments(_ story: String?) -> String {
            (story.map { "\($0) " } ?? "")
                + "--account \(account) --port \(port) --config-dir '\(directory.appendingPathComponent("config").path)'"
        }

        /// A plain terminal of `width` x `height` (no TMUX) running `handoff demo STORY`.
        func demoInPlainTerminal(_ story: String? = nil, width: Int, height: Int) throws -> TmuxSession {
            let command =
                "env -u TMUX -u TMUX_PANE '\(executable)' demo \(demoArguments(story)); echo DEMO-EXIT=$?; exec sleep 300"
            let terminal = try #require(
                try TmuxSession(width: width, height: height, environment: environment, command: command))
            terminals.append(terminal)
            return terminal
        }

        /// A tmux command on the demo's server: its status and output.
        @discardableResult
        func demoTmux(_ arguments: [String]) throws -> (status: Int32, output: String) {
            try run([TmuxSession.tmuxPath ?? "tmux"] + arguments)
        }

        /// Runs a program outside tmux, with this world's environment, to its end.
        func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
            try runOutsideTmux(arguments, environment: environment, scratch: directory)
        }

        deinit {
            _ = try? demoTmux(["kill-server"])
            for terminal in terminals { terminal.close() }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// The panes of the demo's server: window name, pane id and pane process.
    func demoPanes(_ world: World) throws -> [(window: String, pane: String, pid: pid_t)] {
        let (status, output) = try world.demoTmux(["list-panes", "-a", "-F", "#{window_name}\t#{pane_id}\t#{pane_pid}"])
        guard status == 0 else { return [] }
        return output.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\t").map(String.init)
            guard parts.count == 3, let pid = pid_t(parts[2]) else { return nil }
            return (parts[0], parts[1], pid)
        }
    }

    /// Waits until the demo's window (of `story`) has `count` panes whose screens all satisfy
    /// `predicate`.
    @discardableResult
    func waitForDevices(
        _ world: World, story: String = "reading", count: Int, timeout: Duration = .seconds(40),
        _ description: String, where predicate: ([String]) -> Bool
    ) throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        var screens: [String] = []
        while ContinuousClock.now < deadline {
            let stories = try world.demoTmux(["list-panes", "-a", "-F", "#{window_name} #{@handoff-demo}"]).output
                .split(separator: "\n").filter { $0.hasPrefix("handoff ") }
            let panes = try demoPanes(world).filter { $0.window == "handoff" }
            screens = panes.map { (try? world.demoTmux(["capture-pane", "-p", "-t", $0.pane]).output) ?? "" }
            if panes.count == count, stories.count == count, stories.allSatisfy({ $0.hasPrefix("handoff \(story)|") }),
                predicate(screens)
            {
                return screens
            }
            usleep(50_000)
        }
        throw TmuxSession.Failure(
            "timed out waiting for \(description)", screen: screens.joined(separator: "\n=====\n"))
    }

    /// Every process in the sessions the demo server's panes lead (shells, devices, the web).
    func demoProcesses(_ world: World) throws -> [pid_t] {
        let leaders = Set(try demoPanes(world).map(\.pid))
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 3 && fields[0] != "Z" && pid_t(fields[3]).map(leaders.contains) == true
        }
    }

    /// The blocked-signal mask of `pid` (`SigBlk` in /proc/PID/status), nil when it is gone.
    func blockedSignals(of pid: pid_t) -> String? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        return status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
            .map { $0.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces) }
    }

    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[stat.index(after: close)...].hasPrefix(" Z")
    }

    func bothDevicesSeeEachOther(_ screens: [String]) -> Bool {
        screens.count == 2 && screens[0].contains("Laptop 1 · laptop") && screens[0].contains("Phone 1")
            && screens[1].contains("Phone 1 · phone") && screens[1].contains("Laptop 1")
    }

    @Test func fromAPlainTerminalTmuxAndEveryPaneBlockNoSignalAndAResizeReachesTheDevices() throws {
        let world = try World()
        let terminal = try world.demoInPlainTerminal(width: 120, height: 40)
        try waitForDevices(world, count: 2, "both devices, each listing the other", where: bothDevicesSeeEachOther)
        // The demo's status line says how to stop it.
        try terminal.waitFor("the stop hint in the demo's status line") { $0.contains("handoff demo --stop ends it") }
        let server = try #require(
            pid_t(
                world.demoTmux(["display-message", "-p", "#{pid}"]).output
                    .trimmingCharacters(in: .whitespacesAndNewlines)))
        let processes = try demoProcesses(world)
        #expect(processes.count >= 6, "two device shells and devices, and the web's shell and server: \(processes)")
        #expect(
            blockedSignals(of: server) == "0000000000000000",
            "the tmux server blocks signals: \(blockedSignals(of: server) ?? "gone")")
        // SIGHUP, SIGINT, SIGTERM and SIGWINCH reach every process (a shell blocks SIGCHLD while
        // it waits for its child, as shells do).
        let needed: UInt64 = [SIGHUP, SIGINT, SIGTERM, SIGWINCH].reduce(0) { $0 | (1 << UInt64($1 - 1)) }
        for pid in processes {
            let mask = blockedSignals(of: pid).flatMap { UInt64($0, radix: 16) }
            #expect(mask.map { $0 & needed == 0 } == true, "process \(pid) blocks \(blockedSignals(of: pid) ?? "gone")")
        }
        // A resize reaches both devices: each draws its footer on the new last row.
        try terminal.resizeWindow(width: 100, height: 30)
        try waitForDevices(world, count: 2, "both devices redrawn at 29 rows (the footer on the last row)") { screens in
            screens.count == 2
                && screens.allSatisfy { screen in
                    let lines = screen.components(separatedBy: "\n")
                    let last = lines.lastIndex { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
                    return last == 28 && lines[28].contains("quit")
                }
        }
    }

    @Test func stopEndsTheDemoItsWebAndItsSessionAndLeavesNoProcess() throws {
        let world = try World()
        let terminal = try world.demoInPlainTerminal(width: 120, height: 40)
        try waitForDevices(world, count: 2, "both devices, each listing the other", where: bothDevicesSeeEachOther)
        let processes = try demoProcesses(world)
        #expect(!processes.isEmpty)
        let (status, output) = try world.run([world.executable, "demo", "--stop"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("Stopped the reading demo in tmux session handoff-demo"), "\(output)")
        #expect(output.contains("Stopped the local web"), "\(output)")
        let left = processes.filter(Self.isRunning)
        #expect(left.isEmpty, "still running after --stop: \(left)")
        #expect(try world.demoTmux(["has-session", "-t", "=handoff-demo"]).status != 0, "the demo's session is gone")
        // The plain terminal is back at its shell, which says how the demo command ended.
        try terminal.waitFor("the shell after the demo", timeout: .seconds(10)) { $0.contains("DEMO-EXIT=0") }
        let (again, message) = try world.run([world.executable, "demo", "--stop"])
        #expect(again == 0 && message.contains("No demo is running"), "\(message)")
    }

    @Test func insideTmuxStopFindsTheDemoInTheCurrentSession() throws {
        let world = try World()
        let command = "'\(world.executable)' demo \(world.demoArguments(nil)); echo DEMO-EXIT=$?; exec sleep 300"
        let session = try #require(
            try TmuxSession(width: 120, height: 40, environment: world.environment, command: command))
        world.terminals.append(session)
        let deadline = ContinuousClock.now + .seconds(40)
        var panes: [String] = []
        while ContinuousClock.now < deadline, panes.count != 2 {
            panes = ((try? session.run(["list-panes", "-t", "\(session.name):handoff", "-F", "#{pane_id}"])) ?? "")
                .split(separator: "\n").map(String.init)
            usleep(50_000)
        }
        try #require(panes.count == 2)
        try session.waitFor("the phone, listing the laptop", in: panes[1], timeout: .seconds(30)) {
            $0.contains("Phone 1 · phone") && $0.contains("Laptop 1")
        }
        // `--stop` typed in another window of the same tmux session.
        let other = try session.newWindow(
            command: "'\(world.executable)' demo --stop; echo STOP-EXIT=$?; exec sleep 300")
        let screen = try session.waitFor("the stop's report", in: other, timeout: .seconds(20)) {
            $0.contains("STOP-EXIT=")
        }
        #expect(
            screen.contains("STOP-EXIT=0") && screen.contains("Stopped the reading demo in tmux session e2e"),
            "\(screen)")
        let windows = try session.run(["list-windows", "-F", "#{window_name}"]).split(separator: "\n").map(String.init)
        #expect(!windows.contains("handoff") && !windows.contains("handoff-web"), "\(windows)")
        // The session the user was in stays: only the demo's windows closed.
        #expect(windows.count == 2, "\(windows)")
    }

    @Test func aSecondDemoReplacesTheFirstSaysSoAndNeverMixesIntoIt() throws {
        let world = try World()
        let first = try world.demoInPlainTerminal(width: 120, height: 40)
        try waitForDevices(world, count: 2, "the reading demo's devices", where: bothDevicesSeeEachOther)
        let before = try demoProcesses(world)
        // A second terminal starts the map demo: the first one's devices quit first, so the new
        // ones take the same names (not Laptop 2), and the first terminal now shows the map demo.
        let second = try world.demoInPlainTerminal("map", width: 120, height: 40)
        try waitForDevices(
            world, story: "map", count: 2, "the map demo's devices, named as the first ones were",
            where: bothDevicesSeeEachOther)
        let oldDevices = before.filter(Self.isRunning).filter { pid in
            (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8))?.contains("device") == true
        }
        #expect(oldDevices.isEmpty, "the reading demo's devices still run: \(oldDevices)")
        let windows = try demoPanes(world).filter { $0.window == "handoff" }
        #expect(windows.count == 2, "one demo window of two panes: \(windows)")
        for terminal in [first, second] {
            try terminal.waitFor("the map demo in this terminal too", timeout: .seconds(20)) {
                $0.contains("Laptop 1 · laptop") && !$0.contains("Laptop 2")
            }
        }
        let running = try world.demoTmux(["list-windows", "-a", "-F", "#{@handoff-demo}"]).output
        #expect(running.contains("map|") && !running.contains("reading|"), "\(running)")
    }
}
