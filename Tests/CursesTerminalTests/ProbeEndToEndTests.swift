import Foundation
import HandoffTestSupport
import TerminalCells
import Testing

/// The probe built with the tests (`terminal-probe`), or nil.
private let probe = TmuxSession.builtExecutable(named: "terminal-probe")

/// A tmux session running the probe inside a shell that records `stty -g` before it and
/// compares after it, prints the exit status, then keeps the pane open.
private func startProbe(width: Int = 80, height: Int = 24, environment: [String: String] = [:]) throws -> TmuxSession {
    let path = try #require(probe).path
    let script = #"before=$(stty -g); "\#(path)"; echo "EXIT=$?"; "#
        + #"if [ "$(stty -g)" = "$before" ]; then echo STTY-SAME; else echo STTY-CHANGED; fi; exec sleep 60"#
    let session = try #require(try TmuxSession(width: width, height: height, environment: environment, command: script))
    try session.waitFor(matching: "size=\(width)x\(height)")
    return session
}

/// The SGR parameters in `screen` (from `capture-pane -e`) that set a colour.
private func colorParameters(in screen: String) -> [String] {
    let sequence = /\x1B\[([0-9;:]*)m/
    let colors: Set<Int> = Set(30...38).union(40...48).union(90...97).union(100...107)
    return screen.matches(of: sequence).flatMap { match in
        match.output.1.split(whereSeparator: { $0 == ";" || $0 == ":" }).filter { Int($0).map(colors.contains) ?? false }
    }.map(String.init)
}

/// The display columns at which `character` occurs in `line`.
private func columns(of character: Character, in line: Substring) -> [Int] {
    var column = 0
    var found: [Int] = []
    for glyph in line {
        if glyph == character { found.append(column) }
        column += TextWidth.of(glyph)
    }
    return found
}

/// CPU time (user + system) a process has used, from /proc.
private func cpuTime(of pid: pid_t) throws -> Duration {
    let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
    let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
    let ticks = try #require(Int(fields[11])) + #require(Int(fields[12]))     // utime, stime
    return .milliseconds(ticks * 1000 / sysconf(Int32(_SC_CLK_TCK)))
}

@Suite("terminal-probe in tmux", .enabled(if: TmuxSession.isAvailable && probe != nil, "needs tmux and terminal-probe"))
struct ProbeEndToEndTests {
    @Test func firstFrameLinesUpWideGlyphs() throws {
        let tmux = try startProbe()
        let screen = try tmux.capture()
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).prefix(24)
        #expect(lines.count == 24)
        for (index, line) in lines.enumerated() {
            #expect(TextWidth.of(line) == 80, "row \(index) is \(TextWidth.of(line)) cells: \(line)")
            #expect(["┐", "│", "┘"].contains(line.last), "row \(index) ends with \(String(describing: line.last))")
        }
        let wide = try #require(lines.first { $0.contains("漢字") })
        let narrow = try #require(lines.first { $0.contains("abcd") })
        #expect(columns(of: "|", in: wide) == columns(of: "|", in: narrow))
        #expect(columns(of: "|", in: wide) == [1, 6, 9, 12, 14])
        #expect(screen.contains("🌍") && screen.contains("color=yes"))
    }

    @Test func keysArrive() throws {
        let tmux = try startProbe()
        try tmux.sendKeys("Up", "Down", "Left", "Right", "Enter")
        try tmux.sendText("é")
        try tmux.waitFor(matching: "last=é keys=↑ ↓ ← → Enter é")
        try tmux.sendKeys("BTab", "NPage", "PPage", "Home", "End", "DC", "F5", "BSpace")
        try tmux.waitFor(matching: "keys=Shift-Tab PgDn PgUp Home End Delete F5 Backspace")
        try tmux.sendKeys("Escape")
        try tmux.waitFor(matching: "last=Esc ")
        try tmux.sendKeys("C-a", "Tab", "Escape", "Space")
        try tmux.sendText("漢")
        try tmux.waitFor(matching: "keys=.*Ctrl-A Tab Esc Space 漢$|keys=.*Ctrl-A Tab Esc Space 漢 ")
    }

    @Test func wakeUpsAndDeadlinesReachTheLoop() throws {
        let tmux = try startProbe()
        try tmux.sendKeys("w", "t")
        try tmux.waitFor(matching: "wakes=1 ticks=1")
        try tmux.sendKeys("C-l")
        try tmux.waitFor(matching: "last=Ctrl-L")
    }

    @Test func resizeShowsTheNewSize() throws {
        let tmux = try startProbe()
        try tmux.resizeWindow(width: 60, height: 20)
        let screen = try tmux.waitFor(matching: "size=60x20 resizes=1")
        let lines = screen.split(separator: "\n").prefix(20)
        #expect(lines.allSatisfy { TextWidth.of($0) == 60 })
        try tmux.resizeWindow(width: 100, height: 30)
        try tmux.waitFor(matching: "size=100x30 resizes=2")
    }

    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        case quitKey, interrupt, terminate, hangUp
        var testDescription: String { rawValue }
    }

    @Test(arguments: Ending.allCases)
    func everyWayOutRestoresTheTerminal(_ ending: Ending) throws {
        let tmux = try startProbe()
        let expected: String
        switch ending {
        case .quitKey:
            try tmux.sendKeys("q")
            expected = "bye: quit\nEXIT=0\nSTTY-SAME"
        case .interrupt:
            try tmux.sendKeys("C-c")
            expected = "bye: signal 2\nEXIT=130\nSTTY-SAME"
        case .terminate:
            kill(try tmux.waitForProgram(named: "terminal-probe"), SIGTERM)
            expected = "bye: signal 15\nEXIT=143\nSTTY-SAME"
        case .hangUp:
            kill(try tmux.waitForProgram(named: "terminal-probe"), SIGHUP)
            expected = "bye: signal 1\nEXIT=129\nSTTY-SAME"
        }
        // The alternate screen is gone: the shell's output is back, the probe's box is not.
        let screen = try tmux.waitFor("the shell's output after \(ending)") { $0.contains(expected) }
        #expect(!screen.contains("size=80x24"))
    }

    @Test func aSecondSignalEndsAHungProgramAndStillRestoresTheTerminal() throws {
        let tmux = try startProbe()
        try tmux.sendKeys("z")
        try tmux.waitFor(matching: "last=frozen")
        try tmux.sendKeys("C-c")
        try tmux.sendKeys("C-c")
        let screen = try tmux.waitFor("the shell's output") { $0.contains("EXIT=130\nSTTY-SAME") }
        #expect(!screen.contains("bye:") && !screen.contains("last=frozen"))
    }

    @Test func aCrashStillRestoresTheTerminal() throws {
        let tmux = try startProbe(environment: ["SWIFT_BACKTRACE": "enable=no"])
        try tmux.sendKeys("!")
        // fatalError traps: SIGILL (x86_64) or SIGTRAP (arm64), so 132 or 133.
        let screen = try tmux.waitFor(matching: "EXIT=13[23]\nSTTY-SAME")
        #expect(!screen.contains("size=80x24"))
    }

    @Test func colorsFollowTheTheme() throws {
        let tmux = try startProbe()
        let screen = try tmux.capture(colors: true)
        let title = try #require(screen.split(separator: "\n").first { $0.contains("Title role") })
        #expect(colorParameters(in: String(title)).contains("36"), "title is cyan: \(title.debugDescription)")
    }

    @Test func noColorRunsInMonochrome() throws {
        let tmux = try startProbe(environment: ["NO_COLOR": "1"])
        let screen = try tmux.waitFor(matching: "color=no")
        let escaped = try tmux.capture(colors: true)
        #expect(colorParameters(in: escaped).isEmpty, "colour SGR in: \(escaped.debugDescription)")
        #expect(escaped.contains("\u{1B}[1m"), "the title is still bold")
        #expect(screen.contains("Title role"))
    }

    @Test func anIdleProbeUsesAlmostNoCPU() throws {
        let tmux = try startProbe()
        let pid = try tmux.waitForProgram(named: "terminal-probe")
        let before = try cpuTime(of: pid)
        let start = ContinuousClock.now
        usleep(1_000_000)       // a measuring window, not a synchronisation
        let used = try cpuTime(of: pid) - before
        let elapsed = ContinuousClock.now - start
        #expect(used < elapsed * 0.05, "used \(used) of CPU in \(elapsed)")
    }

    @Test func twoPanesRunTheirOwnProbes() throws {
        let tmux = try startProbe()
        let path = try #require(probe).path
        let second = try tmux.splitWindow(command: "\"\(path)\"")
        let left = try tmux.waitFor(matching: "size=40x24 resizes=1")
        let right = try tmux.waitFor(matching: "size=39x24 resizes=0", in: second)
        #expect(left != right)
        try tmux.sendKeys("x", to: second)
        try tmux.waitFor(matching: "last=x", in: second)
        #expect(try !tmux.capture().contains("last=x"))
    }
}

@Suite("TmuxSession", .enabled(if: TmuxSession.isAvailable, "needs tmux"))
struct TmuxSessionTests {
    /// Whether `pid` has exited (gone, or a zombie waiting for init to reap it).
    private func hasExited(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: end)...].split(separator: " ").first == "Z"
    }

    @Test func closeKillsTheServerAndRemovesItsDirectory() throws {
        let tmux = try #require(try TmuxSession(width: 40, height: 10, command: "exec sleep 60"))
        let server = try #require(pid_t(tmux.run(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)))
        let shell = try tmux.panePID()
        #expect(TmuxSession.commandName(of: shell) == "sleep")
        #expect(FileManager.default.fileExists(atPath: tmux.directory))
        tmux.close()
        #expect(!FileManager.default.fileExists(atPath: tmux.directory))
        let deadline = ContinuousClock.now + .seconds(5)
        while !(hasExited(server) && hasExited(shell)) && ContinuousClock.now < deadline { usleep(20_000) }
        #expect(hasExited(server) && hasExited(shell))
        #expect(throws: TmuxSession.Failure.self) { try tmux.capture() }
    }

    @Test func aTimeoutShowsTheWholeScreen() throws {
        let tmux = try #require(try TmuxSession(width: 40, height: 5, command: "echo hello from the pane; exec sleep 60"))
        try tmux.waitFor(matching: "hello from")
        let error = #expect(throws: TmuxSession.Failure.self) {
            try tmux.waitFor(matching: "never shown", timeout: .milliseconds(100))
        }
        #expect(error?.description.contains("hello from the pane") == true)
        #expect(error?.description.contains("never shown") == true)
    }
}
