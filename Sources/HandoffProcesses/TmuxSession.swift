import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private tmux server for end-to-end tests of full-screen programs: start programs in panes,
/// type into them, read their screens, resize them, signal them.
///
/// Each session has its own server (`-S` socket in a fresh temporary directory, no config file),
/// killed and removed by ``close()`` or deinit, so a failing test leaves nothing behind.
/// tmux is run as a ``ChildProcess`` (empty signal mask, default dispositions, output to a
/// file, not a pipe: the tmux server would inherit a pipe and hold it open).
///
/// ```swift
/// guard let tmux = try TmuxSession(command: probe.path) else { return }   // no tmux: skip
/// try tmux.waitFor(matching: "size=80x24")
/// try tmux.sendKeys("Down", "Enter")
/// try tmux.waitFor("the selection moved") { $0.contains("> Paris") }
/// ```
package final class TmuxSession {
    /// Why a tmux command or a wait failed; the description includes the screen, if any.
    package struct Failure: Error, CustomStringConvertible {
        package var message: String
        package var screen: String?

        package init(_ message: String, screen: String? = nil) {
            self.message = message
            self.screen = screen
        }

        package var description: String {
            guard let screen else { return message }
            return "\(message)\nscreen:\n>>>>\n\(screen)\n<<<<"
        }
    }

    /// The tmux executable on `PATH`, or nil when tmux is not installed.
    package static let tmuxPath: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/tmux"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }()

    /// Whether tmux is installed (use it to skip end-to-end tests: `.enabled(if: TmuxSession.isAvailable)`).
    package static var isAvailable: Bool { tmuxPath != nil }

    /// The temporary directory holding the socket (and free for the test's own files).
    package let directory: String
    /// The session's name.
    package let name = "e2e"
    /// The pane the session started with (a tmux pane id such as `%0`).
    package let mainPane: String
    private let tmux: String
    private let socket: String
    private let environment: [String: String]
    private var commandCount = 0
    private var isClosed = false

    /// Starts a server with one session of `width` x `height` cells running `command` (a shell
    /// command line). Panes get `LANG=C.UTF-8` and `TERM=tmux-256color` plus `environment`
    /// (which may override them: add `NO_COLOR=1` to test monochrome, `TERM=linux` to test a
    /// terminal without an alternate screen; `TERM` becomes the server's `default-terminal`,
    /// since tmux sets a pane's `TERM` from that option, not from `-e`).
    /// Returns nil when tmux is not installed.
    package init?(width: Int = 80, height: Int = 24, environment: [String: String] = [:], command: String) throws {
        guard let tmux = Self.tmuxPath else { return nil }
        self.tmux = tmux
        var template = Array("/tmp/handoff-tmux.XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw Failure("mkdtemp failed: errno \(errno)") }
        directory = String(cString: created)
        socket = directory + "/socket"

        // The server's own environment: ours, less anything tied to an outer tmux or terminal.
        var inherited = ProcessInfo.processInfo.environment
        for name in ["TMUX", "TMUX_PANE", "NO_COLOR", "COLUMNS", "LINES", "LC_ALL"] { inherited[name] = nil }
        inherited["LANG"] = "C.UTF-8"
        let serverEnvironment = inherited
        self.environment = serverEnvironment

        var paneEnvironment = ["LANG": "C.UTF-8", "TERM": "tmux-256color"]
        paneEnvironment.merge(environment) { $1 }
        // The server first, then its default terminal, then the session: one tmux invocation.
        var arguments = [
            "start-server", ";", "set-option", "-g", "default-terminal", paneEnvironment["TERM"] ?? "tmux-256color",
            ";",
            "new-session", "-d", "-s", name, "-x", String(width), "-y", String(height), "-P", "-F", "#{pane_id}",
        ]
        for (key, value) in paneEnvironment.sorted(by: { $0.key < $1.key }) { arguments += ["-e", "\(key)=\(value)"] }
        arguments.append(command)
        do {
            mainPane = try Self.firstLine(
                of: Self.run(
                    tmux, socket: socket, environment: serverEnvironment,
                    directory: directory, index: 0, arguments))
        } catch {
            _ = try? Self.run(
                tmux, socket: socket, environment: serverEnvironment, directory: directory, index: 1, ["kill-server"])
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    deinit {
        close()
    }

    /// Kills the server (and the programs in its panes) and removes the temporary directory.
    /// Idempotent.
    package func close() {
        guard !isClosed else { return }
        _ = try? run(["kill-server"])
        isClosed = true
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: Commands

    /// Runs a tmux command on this server and returns its standard output.
    @discardableResult
    package func run(_ arguments: [String]) throws -> String {
        guard !isClosed else { throw Failure("the tmux session is closed") }
        commandCount += 1
        return try Self.run(
            tmux, socket: socket, environment: environment, directory: directory,
            index: commandCount, arguments)
    }

    /// Sends named keys (`"Up"`, `"Enter"`, `"C-c"`, `"F5"`, `"BTab"`, ...) to `pane` (default:
    /// the main pane). Plain words are typed too, but use ``sendText(_:to:)`` for text.
    package func sendKeys(_ keys: String..., to pane: String? = nil) throws {
        try run(["send-keys", "-t", pane ?? mainPane] + keys)
    }

    /// Types `text` literally (UTF-8 included) into `pane`.
    package func sendText(_ text: String, to pane: String? = nil) throws {
        try run(["send-keys", "-t", pane ?? mainPane, "-l", text])
    }

    /// The visible screen of `pane`, one line per row, trailing blanks trimmed. With `colors`,
    /// SGR escape sequences are kept (`capture-pane -e`).
    package func capture(_ pane: String? = nil, colors: Bool = false) throws -> String {
        try run(["capture-pane", "-p"] + (colors ? ["-e"] : []) + ["-t", pane ?? mainPane])
    }

    /// Polls the screen of `pane` every 25 ms until `predicate` accepts it, and returns that
    /// screen; throws after `timeout`, with the last screen in the error.
    @discardableResult
    package func waitFor(
        _ description: String, in pane: String? = nil, colors: Bool = false,
        timeout: Duration = .seconds(5), until predicate: (String) throws -> Bool
    ) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let screen = try capture(pane, colors: colors)
            if try predicate(screen) { return screen }
            if ContinuousClock.now >= deadline {
                throw Failure(
                    "timed out after \(timeout) waiting for \(description) in pane \(pane ?? mainPane)", screen: screen)
            }
            usleep(25_000)
        }
    }

    /// One thing to see on the screen of a pane, for ``waitUntilSeen(_:timeout:)``.
    package struct Sighting {
        package var session: TmuxSession
        package var pane: String?
        package var description: String
        package var predicate: (String) -> Bool

        package init(
            _ description: String, on session: TmuxSession, in pane: String? = nil,
            where predicate: @escaping (String) -> Bool
        ) {
            self.session = session
            self.pane = pane
            self.description = description
            self.predicate = predicate
        }
    }

    /// Polls the screens of several panes (of one server or several) every 25 ms until each
    /// sighting has been seen once, and returns the screens that showed them, in order. For
    /// outcomes that appear at about the same time on different screens and may not last (a
    /// notice that goes away after a few seconds): waiting for one, then the other, could miss
    /// the second. Throws after `timeout`, with the screens of the sightings still missing.
    @discardableResult
    package static func waitUntilSeen(_ sightings: [Sighting], timeout: Duration = .seconds(10)) throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        var seen = [String?](repeating: nil, count: sightings.count)
        while true {
            var missing: [(Sighting, String)] = []
            for (index, sighting) in sightings.enumerated() where seen[index] == nil {
                let screen = try sighting.session.capture(sighting.pane)
                if sighting.predicate(screen) { seen[index] = screen } else { missing.append((sighting, screen)) }
            }
            if missing.isEmpty { return seen.map { $0 ?? "" } }
            if ContinuousClock.now >= deadline {
                let screens = missing.map { "\($0.0.description):\n>>>>\n\($0.1)\n<<<<" }.joined(separator: "\n")
                throw Failure(
                    "timed out after \(timeout) waiting for \(missing.map(\.0.description).joined(separator: ", "))\n\(screens)"
                )
            }
            usleep(25_000)
        }
    }

    /// Waits until the screen of `pane` contains every one of `texts` (the whole outcome, say
    /// `["EXIT=", "STTY-"]` when the shell prints a status and then compares the settings),
    /// and returns that screen.
    @discardableResult
    package func waitFor(all texts: [String], in pane: String? = nil, timeout: Duration = .seconds(5)) throws -> String
    {
        try waitFor(texts.map { "\"\($0)\"" }.joined(separator: " and "), in: pane, timeout: timeout) { screen in
            texts.allSatisfy(screen.contains)
        }
    }

    /// Waits until the screen of `pane` contains a match for the regular expression `pattern`.
    @discardableResult
    package func waitFor(
        matching pattern: String, in pane: String? = nil, timeout: Duration = .seconds(5)
    ) throws -> String {
        let regex = try Regex(pattern)
        return try waitFor("/\(pattern)/", in: pane, timeout: timeout) { $0.contains(regex) }
    }

    /// Resizes the session's window (the programs in it get SIGWINCH).
    package func resizeWindow(width: Int, height: Int) throws {
        try run(["resize-window", "-t", name, "-x", String(width), "-y", String(height)])
    }

    /// Splits the pane (side by side when `horizontal`) to run `command`; returns the new pane.
    package func splitWindow(horizontal: Bool = true, of pane: String? = nil, command: String) throws -> String {
        try Self.firstLine(
            of: run([
                "split-window", horizontal ? "-h" : "-v", "-t", pane ?? mainPane,
                "-P", "-F", "#{pane_id}", command,
            ]))
    }

    /// Opens a new window running `command`; returns its pane.
    package func newWindow(command: String) throws -> String {
        try Self.firstLine(of: run(["new-window", "-t", name, "-P", "-F", "#{pane_id}", command]))
    }

    /// A tmux format expanded for `pane` (`#{alternate_on}`, `#{cursor_flag}`, `#{pane_tty}`...).
    package func display(_ format: String, in pane: String? = nil) throws -> String {
        try run(["display-message", "-p", "-t", pane ?? mainPane, format]).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// Whether `pane` shows its alternate screen (a full-screen program that has not given the
    /// terminal back).
    package func isAlternateScreenOn(in pane: String? = nil) throws -> Bool {
        try display("#{alternate_on}", in: pane) == "1"
    }

    /// Writes `text` straight to the terminal of `pane`, as another program writing over the
    /// screen would (to test that a program repaints it).
    package func scribble(_ text: String, on pane: String? = nil) throws {
        let tty = try display("#{pane_tty}", in: pane)
        let descriptor = open(tty, O_WRONLY | O_NOCTTY)
        guard descriptor >= 0 else { throw Failure("cannot open \(tty): errno \(errno)") }
        defer { Glibc.close(descriptor) }
        let bytes = Array(text.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count else {
            throw Failure("cannot write to \(tty): errno \(errno)")
        }
    }

    // MARK: Processes

    /// The pid of the process tmux started in `pane` (often a shell).
    package func panePID(_ pane: String? = nil) throws -> pid_t {
        let text = try Self.firstLine(of: run(["display-message", "-p", "-t", pane ?? mainPane, "#{pane_pid}"]))
        guard let pid = pid_t(text) else { throw Failure("no pane pid in '\(text)'") }
        return pid
    }

    /// The pid of the process named `name` (as in `/proc/PID/comm`, at most 15 characters) in
    /// `pane`: the pane's own process or one of its descendants. Nil when there is none.
    package func programPID(named name: String, in pane: String? = nil) throws -> pid_t? {
        let root = try panePID(pane)
        var queue = [root]
        while !queue.isEmpty {
            let pid = queue.removeFirst()
            if Self.commandName(of: pid) == String(name.prefix(15)) { return pid }
            queue += Self.children(of: pid)
        }
        return nil
    }

    /// Waits until a process named `name` runs in `pane`, and returns its pid.
    package func waitForProgram(
        named name: String, in pane: String? = nil, timeout: Duration = .seconds(5)
    ) throws -> pid_t {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let pid = try programPID(named: name, in: pane) { return pid }
            if ContinuousClock.now >= deadline {
                throw Failure("timed out after \(timeout) waiting for process \(name)", screen: try? capture(pane))
            }
            usleep(25_000)
        }
    }

    /// Whether `pid` has exited: gone, or a zombie its parent has not reaped yet (a shell may
    /// take its time, and its job report is no sure sign either).
    package static func hasExited(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(after: end)...].split(separator: " ").first == "Z"
    }

    /// Waits until the process `pid` has exited (see ``hasExited(_:)``).
    package func waitForExit(ofProcess pid: pid_t, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        while !Self.hasExited(pid) {
            if ContinuousClock.now >= deadline {
                throw Failure("timed out after \(timeout) waiting for process \(pid) to exit", screen: try? capture())
            }
            usleep(25_000)
        }
    }

    /// The direct children of `pid`, from `/proc` (no pgrep needed).
    package static func children(of pid: pid_t) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry in
            guard let child = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return nil }
            // After "pid (comm)": state, then the parent's pid.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }

    /// `/proc/PID/comm`, or nil when the process is gone.
    package static func commandName(of pid: pid_t) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: Executables

    /// An executable built with the tests (`swift test` runs the test binary from the build
    /// directory, where the package's executables are), or nil.
    package static func builtExecutable(named name: String) -> URL? {
        let binaries = [CommandLine.arguments.first.map { URL(fileURLWithPath: $0) }, Bundle.main.executableURL]
        for binary in binaries.compactMap({ $0?.resolvingSymlinksInPath() }) {
            var directory = binary.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                    !isDirectory.boolValue,
                    FileManager.default.isExecutableFile(atPath: candidate.path)
                {
                    return candidate
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }

    // MARK: Spawning tmux

    private static func firstLine(of text: String) throws -> String {
        guard let line = text.split(separator: "\n").first.map(String.init), !line.isEmpty else {
            throw Failure("tmux printed nothing")
        }
        return line
    }

    /// Runs `tmux -S socket -f /dev/null arguments...` with an empty signal mask and default
    /// signal dispositions (a test runner's thread blocks most signals, and children inherit
    /// that), stdin from /dev/null and output to files, then waits for it.
    private static func run(
        _ tmux: String, socket: String, environment: [String: String], directory: String,
        index: Int, _ arguments: [String]
    ) throws -> String {
        let outputPath = "\(directory)/out-\(index).txt"
        let errorPath = "\(directory)/err-\(index).txt"
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }
        // ChildProcess passes nothing else of the test process to tmux: its server outlives this
        // call and would hold every descriptor it inherited, such as the listening socket of a
        // server another test has since stopped (whose port then accepts connections nobody answers).
        let child: ChildProcess
        do {
            child = try ChildProcess(
                executable: tmux, arguments: ["-S", socket, "-f", "/dev/null"] + arguments,
                environment: environment, standardOutput: .file(outputPath), standardError: .file(errorPath))
        } catch {
            throw Failure("cannot run tmux: \(error.reason)")
        }
        let termination = child.waitForExit()

        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard termination == .exited(0) else {
            let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw Failure(
                "tmux \(arguments.joined(separator: " ")) failed (\(termination.map { "\($0)" } ?? "no status")): \(errors)"
            )
        }
        return output
    }
}
