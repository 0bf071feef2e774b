import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The README, read once, with its whitespace folded (a quote may wrap differently).
enum Readme {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let text: String = {
        let raw = (try? String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
        return folded(raw)
    }()

    static func folded(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
    }

    /// Whether the README says `quote` (whitespace folded).
    static func says(_ quote: String) -> Bool {
        text.contains(folded(quote))
    }
}

/// Where and at what size a walkthrough runs: inside the user's tmux (a new window of its
/// session) or from a plain terminal (the demo's own tmux session, attached in it).
struct WalkthroughSetup: CustomTestStringConvertible, Sendable {
    enum Terminal: String, Sendable {
        case insideTmux = "inside tmux"
        case plain = "plain terminal"
    }

    var terminal: Terminal
    var width: Int
    var height: Int

    var testDescription: String { "\(terminal.rawValue) at \(width)x\(height)" }

    static let insideSmall = WalkthroughSetup(terminal: .insideTmux, width: 80, height: 24)
    static let insideLarge = WalkthroughSetup(terminal: .insideTmux, width: 120, height: 40)
    static let plainSmall = WalkthroughSetup(terminal: .plain, width: 80, height: 24)
    static let plainLarge = WalkthroughSetup(terminal: .plain, width: 120, height: 40)
    static let all = [insideSmall, insideLarge, plainSmall, plainLarge]
}

/// One `handoff demo STORY` as a reader of the README runs it: a terminal of the setup's size,
/// the story's devices in panes, keys typed into a device's pane and its screen read back.
/// Everything is private: account, configuration and state folders, discovery port, tmux servers.
final class DemoRun {
    let setup: WalkthroughSetup
    let story: String
    let directory: URL
    let account = "walk-\(UUID().uuidString.prefix(8).lowercased())"
    let port = DiscoveryPort.random()
    /// The user's terminal: a tmux server of the setup's size.
    private(set) var terminal: TmuxSession!
    /// The device panes of the demo's window, in the story's order, then the terminals
    /// opened with ``openTerminal(_:command:)``.
    private(set) var panes: [String] = []
    /// The panes of ``panes`` that are windows of the user's terminal, not of the demo's tmux.
    private var terminalPanes: Set<String> = []

    var executable: String { HandoffExecutable.url?.path ?? "handoff" }
    var tmuxFolder: URL { directory.appendingPathComponent("tmux") }
    var stateFolder: URL { directory.appendingPathComponent("state") }
    var configFolder: URL { directory.appendingPathComponent("config") }
    var environment: [String: String] {
        ["TMUX_TMPDIR": tmuxFolder.path, "XDG_STATE_HOME": stateFolder.path, "XDG_CONFIG_HOME": configFolder.path]
    }

    /// Starts `handoff demo STORY` (or `handoff learn LESSON`, whose demo has a lesson pane
    /// above the devices, listed after them here) and waits for its `devices` panes (the lesson pane counted).
    init(_ story: String, _ setup: WalkthroughSetup, devices: Int, lesson: Int? = nil) throws {
        self.setup = setup
        self.story = story
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-walk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmuxFolder, withIntermediateDirectories: true)
        let demo =
            lesson.map { "'\(executable)' learn \($0) --account \(account) --port \(port)" }
            ?? "'\(executable)' demo \(story) --account \(account) --port \(port)"
        let command =
            setup.terminal == .plain
            ? "env -u TMUX -u TMUX_PANE \(demo); echo DEMO-EXIT=$?; exec sleep 600"
            : "\(demo); echo DEMO-EXIT=$?; exec sleep 600"
        guard
            let terminal = try TmuxSession(
                width: setup.width, height: setup.height, environment: environment, command: command)
        else {
            throw TmuxSession.Failure("tmux is not installed")
        }
        self.terminal = terminal
        try waitForPanes(devices, lessonFirst: lesson != nil)
    }

    deinit {
        if setup.terminal == .plain { _ = try? runOutside([TmuxSession.tmuxPath ?? "tmux", "kill-server"]) }
        terminal?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: The demo's tmux

    /// A tmux command on the server the demo runs in.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        switch setup.terminal {
        case .insideTmux:
            return try terminal.run(arguments)
        case .plain:
            let (status, output) = try runOutside([TmuxSession.tmuxPath ?? "tmux"] + arguments)
            guard status == 0 else {
                throw TmuxSession.Failure("tmux \(arguments.joined(separator: " ")) failed: \(output)")
            }
            return output
        }
    }

    /// Runs a program outside any tmux, with this run's environment, to its end.
    func runOutside(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try runOutsideTmux(arguments, environment: environment, scratch: directory)
    }

    /// `handoff ARGUMENTS` outside tmux, with this run's account folders.
    func handoff(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try runOutside([executable] + arguments)
    }

    private func waitForPanes(_ count: Int, lessonFirst: Bool) throws {
        let deadline = ContinuousClock.now + .seconds(40)
        while ContinuousClock.now < deadline {
            let lines = ((try? tmux(["list-panes", "-a", "-F", "#{window_name}\t#{pane_id}"])) ?? "").split(
                separator: "\n")
            panes = lines.filter { $0.hasPrefix("handoff\t") }.map { String($0.split(separator: "\t")[1]) }
            // A lesson's pane is above the devices, so first in the window: it goes last here,
            // after the devices in the story's order.
            if lessonFirst, panes.count == count { panes.append(panes.removeFirst()) }
            if panes.count == count { return }
            usleep(50_000)
        }
        throw TmuxSession.Failure(
            "the \(story) demo has \(panes.count) device panes, not \(count)", screen: try? terminal.capture())
    }

    /// Another terminal of the user's (a window of the run's terminal, outside any tmux for a
    /// plain setup) running `command` with the run's folders; `handoff` in `command` is the
    /// built executable. Returns its index for ``screen(_:)``, ``press(_:_:)`` and ``see``.
    func openTerminal(_ name: String, command: String) throws -> Int {
        var arguments = ["new-window", "-d", "-P", "-F", "#{pane_id}", "-n", name]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { arguments += ["-e", "\(key)=\(value)"] }
        let unset = setup.terminal == .plain ? "unset TMUX TMUX_PANE; " : ""
        arguments.append("\(unset)handoff() { '\(executable)' \"$@\"; }; \(command); echo EXIT=$?; exec sleep 600")
        let pane = try terminal.run(arguments).trimmingCharacters(in: .whitespacesAndNewlines)
        terminalPanes.insert(pane)
        panes.append(pane)
        return panes.count - 1
    }

    /// `handoff demo --stop` as the user types it: in another window of their tmux (inside
    /// tmux), or in their plain terminal. Returns what it printed.
    @discardableResult
    func stopDemo() throws -> String {
        switch setup.terminal {
        case .plain:
            let (status, output) = try handoff(["demo", "--stop"])
            #expect(status == 0, "handoff demo --stop: \(output)")
            return output
        case .insideTmux:
            let window = try openTerminal("stop", command: "handoff demo --stop")
            let screen = try see(window, "EXIT=")
            #expect(screen.contains("EXIT=0"), "handoff demo --stop: \(screen)")
            return screen
        }
    }

    /// A tmux command on the server that holds `pane`.
    @discardableResult
    private func tmux(_ arguments: [String], pane: String) throws -> String {
        terminalPanes.contains(pane) ? try terminal.run(arguments) : try tmux(arguments)
    }

    // MARK: Devices

    /// The screen of device `index` (its pane).
    func screen(_ index: Int) throws -> String {
        try tmux(["capture-pane", "-p", "-t", panes[index]], pane: panes[index])
    }

    /// The text of device `index`'s screen with frames and sidebars' rules removed and its
    /// whitespace folded, so a message wrapped over several lines reads as one sentence.
    func text(_ index: Int) throws -> String {
        Self.unframed(try screen(index))
    }

    static func unframed(_ screen: String) -> String {
        let frames = Set("│┃║")
        return Readme.folded(String(screen.map { frames.contains($0) ? " " : $0 }))
    }

    /// Presses named keys (`Enter`, `Space`, `F3`, `C-o`…) on device `index`, each after the
    /// screen has taken the one before (tmux delivers them in order).
    func press(_ index: Int, _ keys: String...) throws {
        for key in keys { try tmux(["send-keys", "-t", panes[index], key], pane: panes[index]) }
    }

    /// Opens the Reader from the home screen and its first document (Enter, Enter), as the
    /// walkthroughs say, waiting for the list (which shows `listing`) and then page 1.
    func openFirstDocument(_ index: Int, listing: String = "Documents") throws {
        try press(index, "Enter")
        try see(index, listing, "Documents")
        try press(index, "Enter")
        try see(index, "page 1 of")
    }

    /// Types `text` into device `index`.
    func type(_ index: Int, _ text: String) throws {
        try tmux(["send-keys", "-t", panes[index], "-l", text], pane: panes[index])
    }

    /// Waits until each check has been seen once on its device's screen (together they are the
    /// whole outcome of a step; a notice that goes away after a few seconds is caught while it
    /// is there). Fails with the screens of the checks still missing.
    @discardableResult
    func see(
        _ description: String, timeout: Duration = .seconds(20),
        _ checks: [(device: Int, what: String, check: (String) -> Bool)]
    ) throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        var seen = [String?](repeating: nil, count: checks.count)
        while true {
            var missing: [(String, String)] = []
            for (index, check) in checks.enumerated() where seen[index] == nil {
                let screen = try self.screen(check.device)
                if check.check(screen) { seen[index] = screen } else { missing.append((check.what, screen)) }
            }
            if missing.isEmpty { return seen.map { $0 ?? "" } }
            if ContinuousClock.now >= deadline {
                let screens = missing.map { "\($0.0):\n>>>>\n\($0.1)\n<<<<" }.joined(separator: "\n")
                throw TmuxSession.Failure(
                    "\(story) (\(setup.testDescription)): timed out after \(timeout) waiting for "
                        + "\(description): \(missing.map(\.0).joined(separator: "; "))\n\(screens)\n\(logTails())")
            }
            usleep(40_000)
        }
    }

    /// The last lines of every device's log (`$XDG_STATE_HOME/handoff/*.log`), for a failure's
    /// message: what each device saw and when, beside what its screen shows.
    func logTails(lines: Int = 25) -> String {
        let folder = stateFolder.appendingPathComponent("handoff", isDirectory: true)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
            $0.hasSuffix(".log")
        }
        return names.sorted().map { name in
            let text = (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
            let tail = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines)
            return "log \(name):\n" + tail.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// Waits until device `index` shows every one of `texts`.
    @discardableResult
    func see(_ index: Int, _ texts: String..., timeout: Duration = .seconds(20)) throws -> String {
        try see(
            texts.joined(separator: ", "), timeout: timeout,
            [
                (
                    index, texts.map { "\"\($0)\"" }.joined(separator: " and "),
                    { screen in texts.allSatisfy(screen.contains) }
                )
            ])[0]
    }

    /// One step of a README walkthrough: the README must still say `quote` (a change to either
    /// the README or the product fails the test until both agree), then `action` does it.
    func step(_ quote: String, sourceLocation: SourceLocation = #_sourceLocation, _ action: () throws -> Void) throws {
        #expect(Readme.says(quote), "README.md no longer says: \(quote)", sourceLocation: sourceLocation)
        try action()
    }

    // MARK: The lifecycle log

    /// Waits until device `index`'s screen differs from `screen`, or a second has passed (the
    /// key moved nothing: the log's end is reached). A loaded machine may take a while to draw.
    private func waitForChange(_ index: Int, from screen: String) throws {
        let deadline = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < deadline, try self.screen(index) == screen { usleep(20_000) }
    }

    /// The kinds of the lifecycle events device `index`'s log lists, oldest first: the log is
    /// shown (F2) if it is not, focused, scrolled (↑) from the newest to the oldest event and
    /// back (End), and every event line read on the way.
    func logKinds(_ index: Int) throws -> [String] {
        if !(try screen(index)).contains("Lifecycle log") { try press(index, "F2") }
        try see(index, "Lifecycle log")
        // Tab moves the focus main → Nearby → log; the focused log's frame is heavy.
        for _ in 0..<4 where !(try screen(index)).contains("┏ Lifecycle log") {
            try press(index, "Tab")
            usleep(150_000)
        }
        try see(index, "┏ Lifecycle log")
        // Each event by its time and kind, with where it was first seen: the page (0 the newest,
        // older pages after) and the row, so events of the same millisecond keep the log's order.
        var events: [String: (time: String, page: Int, row: Int, kind: String)] = [:]
        let pattern = try Regex(#"(\d\d:\d\d:\d\d\.\d\d\d) ([A-Za-z]+)"#)
        var previous = ""
        for page in 0..<150 {
            let current = try screen(index)
            for (row, line) in current.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for match in line.matches(of: pattern) {
                    let time = String(match.output[1].substring ?? "")
                    let kind = String(match.output[2].substring ?? "")
                    if events[time + " " + kind] == nil { events[time + " " + kind] = (time, page, row, kind) }
                }
            }
            if current == previous { break }
            previous = current
            // One event at a time: a page would skip events whose explanations fill it.
            try press(index, "Up")
            try waitForChange(index, from: current)
        }
        // Back down from the oldest, one event at a time: the newest event's first line may
        // never have been on the screen (its explanation can fill a small log panel), and
        // choosing an event scrolls its first line into view. Pages after the newest sort last.
        for page in 1...150 {
            try press(index, "Down")
            try waitForChange(index, from: previous)
            let current = try screen(index)
            for (row, line) in current.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for match in line.matches(of: pattern) {
                    let time = String(match.output[1].substring ?? "")
                    let kind = String(match.output[2].substring ?? "")
                    if events[time + " " + kind] == nil { events[time + " " + kind] = (time, -page, row, kind) }
                }
            }
            if current == previous { break }
            previous = current
        }
        try press(index, "End", "Escape")
        return events.values.sorted { ($0.time, -$0.page, $0.row) < ($1.time, -$1.page, $1.row) }.map(\.kind)
    }
}

extension DemoRun {
    /// The lifecycle event kinds device `name` (such as "Phone 1") wrote to its log file
    /// (`$XDG_STATE_HOME/handoff/ACCOUNT-NAME.log`, as the README says), oldest first.
    func fileLogKinds(_ name: String) throws -> [String] {
        let pattern = try Regex(#"^([A-Za-z]+)"#)
        return try fileLogLines(name).compactMap { line in
            line.firstMatch(of: pattern).map { String($0.output[1].substring ?? "") }
        }
    }

    /// The lifecycle lines device `name` wrote to its log file, from the event's kind on
    /// (`activityCreated com.handoffsim.reader.reading in com.handoffsim.reader`), oldest first.
    func fileLogLines(_ name: String) throws -> [String] {
        let file = stateFolder.appendingPathComponent(
            "handoff/\(account)-\(name.replacingOccurrences(of: " ", with: "-")).log")
        let text = try String(contentsOf: file, encoding: .utf8)
        let pattern = try Regex(#" lifecycle (.*)$"#)
        return text.split(separator: "\n").compactMap { line in
            line.firstMatch(of: pattern).map { String($0.output[1].substring ?? "") }
        }
    }
}

/// Runs a program to its end outside any tmux (no `TMUX`, `TMUX_PANE`), with `environment` over
/// this process's: its status and its output, both streams. The output goes to a file in
/// `scratch`, not a pipe: a tmux server the program starts would hold a pipe open.
func runOutsideTmux(
    _ arguments: [String], environment: [String: String], scratch: URL
) throws -> (status: Int32, output: String) {
    let output = scratch.appendingPathComponent("run-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: output) }
    var variables = ProcessInfo.processInfo.environment
    variables["TMUX"] = nil
    variables["TMUX_PANE"] = nil
    variables.merge(environment) { $1 }
    let child = try ChildProcess(
        executable: arguments[0], arguments: Array(arguments.dropFirst()), environment: variables,
        standardOutput: .file(output.path), standardError: .standardOutput)
    let termination = try #require(child.waitForExit())
    return (termination.status, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
}

extension Array where Element == String {
    /// Whether `kinds` appear in this order (others may come between).
    func containsInOrder(_ kinds: [String]) -> Bool {
        var remaining = kinds[...]
        for kind in self where kind == remaining.first { remaining = remaining.dropFirst() }
        return remaining.isEmpty
    }
}
