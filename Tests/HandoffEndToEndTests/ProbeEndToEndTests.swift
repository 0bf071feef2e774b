import Foundation
import HandoffProcesses
import HandoffTestSupport
import TerminalCells
import Testing

/// The probe built with the tests (`terminal-probe`), or nil.
private let probe = TmuxSession.builtExecutable(named: "terminal-probe")

/// A tmux session running the probe inside a shell that records `stty -g` before it and
/// compares after it, prints the exit status, then keeps the pane open. Returns once the first
/// frame is on the screen, all of it.
private func startProbe(width: Int = 80, height: Int = 24, environment: [String: String] = [:]) throws -> TmuxSession {
    let path = try #require(probe).path
    let script =
        #"before=$(stty -g); "\#(path)"; echo "EXIT=$?"; "#
        + #"if [ "$(stty -g)" = "$before" ]; then echo STTY-SAME; else echo STTY-CHANGED; fi; exec sleep 60"#
    let session = try #require(try TmuxSession(width: width, height: height, environment: environment, command: script))
    try session.waitFor("the whole first frame") { isWholeFrame($0, width: width, height: height) }
    return session
}

/// An interactive shell (job control: Ctrl-Z, `fg`, `kill %1`) in a tmux session, with the
/// probe started from it; returns once the probe's whole first frame is on the screen. The
/// shell's `before` holds `stty -g` from before the probe, and it reports a job's end at once
/// (`set -b`: "[1]+  Exit 143 ...").
private func startProbeInShell(
    width: Int = 80, height: Int = 24, environment: [String: String] = [:]
) throws -> TmuxSession {
    let path = try #require(probe).path
    let session = try #require(
        try TmuxSession(
            width: width, height: height, environment: environment,
            command: "exec bash --norc --noprofile"))
    try session.sendText(#"set -b; before=$(stty -g); "\#(path)""# + "\n")
    try session.waitFor("the whole first frame") { isWholeFrame($0, width: width, height: height) }
    return session
}

/// Types a check of the terminal settings against the shell's `before` into the shell of
/// `tmux`, and returns whether they are the same (after waiting for the whole answer, which
/// the command line itself never spells out, even wrapped).
private func settingsAreAsBefore(in tmux: TmuxSession, check: String) throws -> Bool {
    try tmux.sendText(
        #"echo "STTY-$(if [ "$(stty -g)" = "$before" ]; then echo SAME; else echo CHANGED; fi)-\#(check)""# + "\n")
    let screen = try tmux.waitFor(matching: "STTY-(SAME|CHANGED)-\(check)\n")
    return screen.contains("STTY-SAME-\(check)\n")
}

/// Whether `screen` shows a whole probe frame of that size: the size, every row of the box as
/// wide as the terminal, and its last line.
private func isWholeFrame(_ screen: String, width: Int, height: Int) -> Bool {
    let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).prefix(height)
    return screen.contains("size=\(width)x\(height)") && screen.contains("Error role") && lines.count == height
        && lines.first?.hasPrefix("┌") == true && lines.last?.hasPrefix("└") == true
        && lines.allSatisfy { TextWidth.of($0) == width }
}

/// The exit status and settings check the probe's shell prints, once both are on the screen.
private func waitForExit(
    of tmux: TmuxSession, timeout: Duration = .seconds(5)
) throws -> (status: Int, sttySame: Bool, screen: String) {
    let screen = try tmux.waitFor(matching: #"EXIT=\d+\nSTTY-(SAME|CHANGED)\n"#, timeout: timeout)
    let match = try #require(screen.firstMatch(of: /EXIT=(\d+)\nSTTY-(SAME|CHANGED)\n/))
    return (try #require(Int(match.output.1)), match.output.2 == "SAME", screen)
}

/// What a crash report or the runtime's crash message would leave on the screen.
private let crashReportTraces = ["crashed", "Crashed", "Backtrac", "Press space", "Fatal error", "💣", "Thread 0"]

/// The SGR parameters in `screen` (from `capture-pane -e`) that set a colour.
private func colorParameters(in screen: String) -> [String] {
    let sequence = /\x1B\[([0-9;:]*)m/
    let colors: Set<Int> = Set(30...38).union(40...48).union(90...97).union(100...107)
    return screen.matches(of: sequence).flatMap { match in
        match.output.1.split(whereSeparator: { $0 == ";" || $0 == ":" }).filter {
            Int($0).map(colors.contains) ?? false
        }
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
    let ticks = try #require(Int(fields[11])) + #require(Int(fields[12]))  // utime, stime
    return .milliseconds(ticks * 1000 / sysconf(Int32(_SC_CLK_TCK)))
}

@Suite(
    "terminal-probe in tmux", .tags(.endToEnd), .ownThread,
    .enabled(if: TmuxSession.isAvailable && probe != nil, "needs tmux and terminal-probe"))
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
    }

    @Test func ctrlLRepaintsWhatAnotherProgramWroteOver() throws {
        let tmux = try startProbe()
        let clean = try tmux.capture()
        try tmux.scribble("\u{1B}[5;10HSCRIBBLED OVER\u{1B}[12;3HMORE SCRIBBLES")
        try tmux.waitFor(all: ["SCRIBBLED OVER", "MORE SCRIBBLES"])
        try tmux.sendKeys("C-l")
        let repainted = try tmux.waitFor("the repainted frame") {
            $0.contains("last=Ctrl-L") && !$0.contains("SCRIBBL") && isWholeFrame($0, width: 80, height: 24)
        }
        // The same frame as before, but for the keys line.
        func withoutKeys(_ screen: String) -> [Substring] {
            screen.split(separator: "\n").filter { !$0.contains("last=") }
        }
        #expect(withoutKeys(repainted) == withoutKeys(clean))
    }

    @Test func resizeShowsTheNewSize() throws {
        let tmux = try startProbe()
        try tmux.resizeWindow(width: 60, height: 20)
        try tmux.waitFor("the whole 60x20 frame") {
            isWholeFrame($0, width: 60, height: 20) && $0.contains("resizes=1")
        }
        try tmux.resizeWindow(width: 100, height: 30)
        try tmux.waitFor("the whole 100x30 frame") {
            isWholeFrame($0, width: 100, height: 30) && $0.contains("resizes=2")
        }
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
        let screen = try tmux.waitFor("the shell's output after \(ending)") { $0.contains(expected + "\n") }
        #expect(!screen.contains("size=80x24"))
        #expect(try !tmux.isAlternateScreenOn())
    }

    @Test func aSecondSignalEndsAHungProgramAndStillRestoresTheTerminal() throws {
        let tmux = try startProbe()
        try tmux.sendKeys("z")
        try tmux.waitFor(matching: "last=frozen")
        try tmux.sendKeys("C-c")
        // Two SIGINTs pending at once are one (standard signals do not queue): the second key
        // goes only once the first signal has been delivered, as a person's second press would.
        Thread.sleep(forTimeInterval: 0.5)
        try tmux.sendKeys("C-c")
        let screen = try tmux.waitFor("the shell's output") { $0.contains("EXIT=130\nSTTY-SAME\n") }
        #expect(!screen.contains("bye:") && !screen.contains("last=frozen"))
    }

    @Test func aCrashStillRestoresTheTerminal() throws {
        let tmux = try startProbe(environment: ["SWIFT_BACKTRACE": "enable=no"])
        try tmux.sendKeys("!")
        // fatalError traps: SIGILL (x86_64) or SIGTRAP (arm64), so 132 or 133.
        let exit = try waitForExit(of: tmux)
        #expect([132, 133].contains(exit.status))
        #expect(exit.sttySame)
        #expect(!exit.screen.contains("size=80x24"))
        #expect(try !tmux.isAlternateScreenOn())
    }

    enum Crash: String, CaseIterable, CustomTestStringConvertible {
        /// A trap (`fatalError`): the fault happens again after the terminal is restored.
        case trap
        /// `kill -SEGV`: no fault to happen again; the report is written, then the process ends.
        case sentSegmentationFault
        var testDescription: String { rawValue }
    }

    @Test(arguments: Crash.allCases)
    func aCrashReportGoesToTheLogAfterTheTerminalIsRestored(_ crash: Crash) throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("probe-crash-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        // The Swift runtime's default crash settings: the probe makes them non-interactive and
        // sends them to standard error, which is the log while curses runs.
        let tmux = try startProbe(environment: ["PROBE_LOG": log.path])
        let expectedStatus: Set<Int>
        switch crash {
        case .trap:
            try tmux.sendKeys("!")
            expectedStatus = [132, 133]
        case .sentSegmentationFault:
            kill(try tmux.waitForProgram(named: "terminal-probe"), SIGSEGV)
            expectedStatus = [139]
        }
        let exit = try waitForExit(of: tmux, timeout: .seconds(60))
        #expect(expectedStatus.contains(exit.status))
        #expect(exit.sttySame)
        #expect(try !tmux.isAlternateScreenOn())
        for trace in crashReportTraces {
            #expect(!exit.screen.contains(trace), "\(trace) on the screen:\n\(exit.screen)")
        }
        // The runtime waits for the report before the process ends: it is whole by now.
        let report = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(report.contains("Program crashed"), "log:\n\(report)")
        #expect(report.contains("Backtrace took"), "log:\n\(report)")
        if crash == .trap { #expect(report.contains("Fatal error: the probe crashed on purpose")) }
        #expect(!report.contains("\u{1B}["), "the report is not coloured")
    }

    @Test func ctrlZThenKillEndsTheStoppedProgramWithTheTerminalRestored() throws {
        let tmux = try startProbeInShell()
        let pid = try tmux.waitForProgram(named: "terminal-probe")
        try tmux.sendKeys("C-z")
        try tmux.waitFor(matching: "Stopped")
        #expect(try !tmux.isAlternateScreenOn())
        #expect(try settingsAreAsBefore(in: tmux, check: "stopped"))
        // bash's kill sends SIGTERM and SIGCONT to a stopped job: the probe quits on its own
        // ("bye: signal 15", status 143). (bash's own report of the job is no sure sign: it
        // may say "Stopped" again, and reap late.)
        try tmux.sendText("kill %1\n")
        try tmux.waitForExit(ofProcess: pid)
        try tmux.waitFor(all: ["bye: signal 15\n"])
        #expect(try settingsAreAsBefore(in: tmux, check: "killed"))
        let final = try tmux.capture()
        for trace in crashReportTraces { #expect(!final.contains(trace), "\(trace) on the screen:\n\(final)") }
        #expect(try !tmux.isAlternateScreenOn())
    }

    @Test func ctrlZThenFgRepaintsTheWholeScreenAndKeysStillWork() throws {
        let tmux = try startProbeInShell()
        try tmux.sendKeys("C-z")
        try tmux.waitFor(matching: "Stopped")
        #expect(try !tmux.isAlternateScreenOn())
        try tmux.sendText("fg\n")
        try tmux.waitFor("the whole frame again") {
            isWholeFrame($0, width: 80, height: 24) && $0.contains("resumes=1")
        }
        #expect(try tmux.isAlternateScreenOn())
        try tmux.sendKeys("x")
        try tmux.waitFor(matching: "last=x ")
        // Stopped and continued again, resized meanwhile: the new size, all of it.
        try tmux.sendKeys("C-z")
        try tmux.waitFor("the second stop") { $0.components(separatedBy: "Stopped").count == 3 }
        try tmux.resizeWindow(width: 70, height: 20)
        try tmux.sendText(
            #"fg; echo "EXIT=$?"; if [ "$(stty -g)" = "$before" ]; then echo STTY-SAME; else echo STTY-CHANGED; fi"#
                + "\n")
        try tmux.waitFor("the whole 70x20 frame") {
            isWholeFrame($0, width: 70, height: 20) && $0.contains("resumes=2")
        }
        try tmux.sendKeys("q")
        let exit = try waitForExit(of: tmux)
        #expect(exit.status == 0 && exit.sttySame)
        #expect(exit.screen.contains("bye: quit"))
        #expect(try !tmux.isAlternateScreenOn())
    }

    @Test func continuedAfterSomeoneElsesStopItTakesTheTerminalBackAndRepaints() throws {
        let tmux = try startProbe()
        let pid = try tmux.waitForProgram(named: "terminal-probe")
        kill(pid, SIGSTOP)
        try tmux.scribble("\u{1B}[5;10HWRITTEN WHILE STOPPED")
        try tmux.waitFor(all: ["WRITTEN WHILE STOPPED"])
        kill(pid, SIGCONT)
        try tmux.waitFor("the repainted frame") {
            isWholeFrame($0, width: 80, height: 24) && $0.contains("resumes=1") && !$0.contains("WRITTEN")
        }
        try tmux.sendKeys("q")
        let exit = try waitForExit(of: tmux)
        #expect(exit.status == 0 && exit.sttySame)
    }

    @Test func aSecondCtrlZStopsAHungProgramWithTheTerminalRestored() throws {
        let tmux = try startProbeInShell()
        try tmux.sendKeys("z")
        try tmux.waitFor(matching: "last=frozen")
        try tmux.sendKeys("C-z")
        // Two Ctrl-Z sent back to back can both be pending at once, and a pending signal is not
        // counted twice (a person's second press never comes that fast): press again until the
        // program stops, a few times at most.
        var stopped = false
        for _ in 0..<5 where !stopped {
            try tmux.sendKeys("C-z")
            stopped = (try? tmux.waitFor(matching: "Stopped", timeout: .seconds(2))) != nil
        }
        try tmux.waitFor(matching: "Stopped")
        #expect(try !tmux.isAlternateScreenOn())
        #expect(try settingsAreAsBefore(in: tmux, check: "stopped"))
        // Still hung once continued: two terminating signals end it, the terminal untouched.
        let pid = try tmux.waitForProgram(named: "terminal-probe")
        kill(pid, SIGINT)
        kill(pid, SIGTERM)
        kill(pid, SIGCONT)
        try tmux.waitForExit(ofProcess: pid)
        #expect(try settingsAreAsBefore(in: tmux, check: "ended"))
        #expect(try !tmux.isAlternateScreenOn())
    }

    @Test func aTerminalWithoutAlternateScreenIsClearedOnExit() throws {
        let tmux = try startProbe(environment: ["TERM": "linux"])
        try tmux.sendKeys("q")
        let exit = try waitForExit(of: tmux)
        #expect(exit.status == 0 && exit.sttySame)
        // The probe's frame is gone, and the shell's output starts at the top.
        #expect(
            !exit.screen.contains("size=80x24") && !exit.screen.contains("┌") && !exit.screen.contains("Error role"))
        #expect(exit.screen.hasPrefix("bye: quit\nEXIT=0\nSTTY-SAME\n"), "screen:\n\(exit.screen)")
    }

    @Test func colorsFollowTheTheme() throws {
        let tmux = try startProbe()
        let screen = try tmux.capture(colors: true)
        let title = try #require(screen.split(separator: "\n").first { $0.contains("Title role") })
        #expect(colorParameters(in: String(title)).contains("36"), "title is cyan: \(title.debugDescription)")
    }

    @Test func noColorRunsInMonochrome() throws {
        let tmux = try startProbe(environment: ["NO_COLOR": "1"])
        let screen = try tmux.capture()
        #expect(screen.contains("color=no"))
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
        usleep(1_000_000)  // a measuring window, not a synchronisation
        let used = try cpuTime(of: pid) - before
        let elapsed = ContinuousClock.now - start
        #expect(used < elapsed * 0.05, "used \(used) of CPU in \(elapsed)")
    }

    @Test func twoPanesRunTheirOwnProbes() throws {
        let tmux = try startProbe()
        let path = try #require(probe).path
        let second = try tmux.splitWindow(command: "\"\(path)\"")
        let left = try tmux.waitFor("the left probe's whole frame") {
            isWholeFrame($0, width: 40, height: 24) && $0.contains("resizes=1")
        }
        let right = try tmux.waitFor("the right probe's whole frame", in: second) {
            isWholeFrame($0, width: 39, height: 24)
        }
        #expect(left != right)
        try tmux.sendKeys("x", to: second)
        try tmux.waitFor(matching: "last=x", in: second)
        #expect(try !tmux.capture().contains("last=x"))
    }
}

@Suite("TmuxSession", .tags(.endToEnd), .ownThread, .enabled(if: TmuxSession.isAvailable, "needs tmux"))
struct TmuxSessionTests {
    @Test func closeKillsTheServerAndRemovesItsDirectory() throws {
        let tmux = try #require(try TmuxSession(width: 40, height: 10, command: "exec sleep 60"))
        let server = try #require(
            pid_t(tmux.run(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)))
        let shell = try tmux.panePID()
        // The pane's shell becomes sleep (exec) soon after the session starts: wait for it.
        #expect(try tmux.waitForProgram(named: "sleep") == shell)
        #expect(FileManager.default.fileExists(atPath: tmux.directory))
        tmux.close()
        #expect(!FileManager.default.fileExists(atPath: tmux.directory))
        let deadline = ContinuousClock.now + .seconds(5)
        while !(TmuxSession.hasExited(server) && TmuxSession.hasExited(shell)) && ContinuousClock.now < deadline {
            usleep(20_000)
        }
        #expect(TmuxSession.hasExited(server) && TmuxSession.hasExited(shell))
        #expect(throws: TmuxSession.Failure.self) { try tmux.capture() }
    }

    /// tmux's server outlives the call that starts it, so it must inherit none of the test
    /// process's descriptors: a listening socket it held (SwiftNIO's lack close-on-exec) kept a
    /// stopped server's port accepting connections that nobody answered.
    @Test func theServerAndThePaneInheritNoneOfTheTestProcesssDescriptors() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)  // without close-on-exec
        try #require(listener >= 0)
        defer { close(listener) }
        #expect(Glibc.listen(listener, 1) == 0)
        let inode = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(listener)")
        let tmux = try #require(try TmuxSession(width: 40, height: 10, command: "exec sleep 60"))
        let server = try #require(
            pid_t(tmux.run(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)))
        let shell = try tmux.panePID()
        for process in [server, shell] {
            let held = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/fd")) ?? []).filter {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process)/fd/\($0)")) == inode
            }
            #expect(held.isEmpty, "process \(process) holds the test's socket \(inode) as descriptor \(held)")
        }
    }

    @Test func aTimeoutShowsTheWholeScreen() throws {
        let tmux = try #require(
            try TmuxSession(width: 40, height: 5, command: "echo hello from the pane; exec sleep 60"))
        try tmux.waitFor(matching: "hello from")
        let error = #expect(throws: TmuxSession.Failure.self) {
            try tmux.waitFor(matching: "never shown", timeout: .milliseconds(100))
        }
        #expect(error?.description.contains("hello from the pane") == true)
        #expect(error?.description.contains("never shown") == true)
    }
}
