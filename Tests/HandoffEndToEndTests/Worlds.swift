import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

// The end-to-end tests' two worlds of real devices: headless processes, and terminal devices in
// tmux. (The demo suites start `handoff demo` in worlds of their own: what they need around it,
// a state folder and the demo's tmux server, is the demo's.)

/// A private neighbourhood of `handoff device --headless` processes: one folder, one account,
/// one discovery port, so the devices never see one someone else runs. Its processes end, and
/// its folder goes, with it. The devices' configuration folder is the world's own folder, or a
/// `configFolder` inside it; `fetchTimeout` is each device's `--fetch-timeout`.
final class HeadlessProcessWorld {
    let directory: URL
    let account: String
    let port: Int
    /// The devices' `--config-dir`.
    let configDirectory: URL
    let fetchTimeout: Int
    var processes: [HeadlessProcess] = []

    init(
        account: String = "t-\(UUID().uuidString.prefix(8).lowercased())", port: Int = DiscoveryPort.random(),
        directory: URL? = nil, configFolder: String? = nil, fetchTimeout: Int = 3
    ) throws {
        let directory =
            directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("handoff-mp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        self.account = account
        self.port = port
        configDirectory = configFolder.map { directory.appendingPathComponent($0) } ?? directory
        self.fetchTimeout = fetchTimeout
    }

    func start(
        _ name: String, kind: String = "phone", account: String? = nil, extra: [String] = [],
        fileLimit: Int? = nil, environment: [String: String]? = nil
    ) throws -> HeadlessProcess {
        let executable = try #require(HandoffExecutable.url)
        let process = try HeadlessProcess(
            name: name,
            arguments: [
                "--kind", kind, "--account", account ?? self.account, "--port", String(port),
                "--config-dir", configDirectory.path, "--fetch-timeout", String(fetchTimeout),
            ] + extra, executable: executable, fileLimit: fileLimit, environment: environment)
        processes.append(process)
        _ = try #require(
            process.waitFor(timeout: 30) { $0["event"] as? String == "ready" },
            "\(name) did not start: \(process.standardError)")
        return process
    }

    /// The device id a process announced in its `ready` event.
    func id(of process: HeadlessProcess) -> String? {
        (process.received.first { $0["event"] as? String == "ready" }?["device"] as? [String: Any])?["id"] as? String
    }

    deinit {
        for process in processes {
            process.closeInput()
            if process.waitForExit(timeout: 5) == nil { process.kill() }
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Real terminal devices (`handoff device`), each in a private tmux server, in a private
/// neighbourhood: one folder (configuration, logs), one account, one discovery port. Its tmux
/// servers end, and its folder goes, with it.
final class TerminalDevicesWorld {
    let directory: URL
    let account = "e2e-\(UUID().uuidString.prefix(8).lowercased())"
    let port = DiscoveryPort.random()
    var sessions: [TmuxSession] = []

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The command line that runs a device named `name` in this world.
    func deviceCommand(_ name: String, kind: String, extra: [String]) throws -> String {
        let executable = try #require(HandoffExecutable.url).path
        let arguments =
            [
                "device", "--name", name, "--kind", kind, "--account", account, "--port", String(port),
                "--config-dir", directory.appendingPathComponent("config").path,
                "--log-file", directory.appendingPathComponent("\(name).log").path,
            ] + extra
        return "'\(executable)' " + arguments.map { "'\($0)'" }.joined(separator: " ")
    }

    /// Starts a device in a new tmux server. The shell around it records the terminal's
    /// settings before and compares them after, prints the exit status, and keeps the pane.
    func start(
        _ name: String, kind: String, width: Int = 100, height: Int = 30, extra: [String] = [],
        environment: [String: String] = [:], expecting app: String = "Reader"
    ) throws -> TmuxSession {
        let command =
            "before=$(stty -g); " + (try deviceCommand(name, kind: kind, extra: extra))
            + #"; echo "EXIT=$?"; if [ "$(stty -g)" = "$before" ]; then echo STTY-SAME; else echo STTY-CHANGED; fi; exec sleep 120"#
        let session = try #require(
            try TmuxSession(width: width, height: height, environment: environment, command: command))
        sessions.append(session)
        try session.waitFor("\(name)'s home screen", timeout: .seconds(30)) {
            isHomeScreen($0, of: name, kind: kind, app: app)
        }
        return session
    }

    /// Starts a device from an interactive shell (job control: Ctrl-Z, `fg`, `kill %1`) in a
    /// new tmux server; the shell's `before` holds the terminal's settings from before, and
    /// it reports a job's end at once (`set -b`: "[1]+  Exit 143 ...").
    func startInShell(_ name: String, kind: String, width: Int = 100, height: Int = 30) throws -> TmuxSession {
        let session = try #require(
            try TmuxSession(width: width, height: height, command: "exec bash --norc --noprofile"))
        sessions.append(session)
        try session.sendText("set -b; before=$(stty -g); " + (try deviceCommand(name, kind: kind, extra: [])) + "\n")
        try session.waitFor("\(name)'s home screen", timeout: .seconds(30)) {
            isHomeScreen($0, of: name, kind: kind, app: "Reader")
        }
        return session
    }

    func log(of name: String) -> String {
        (try? String(contentsOf: directory.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? ""
    }

    /// Waits until the log of `name` contains every one of `texts`; returns the log.
    @discardableResult
    func waitForLog(of name: String, containing texts: [String], timeout: Duration = .seconds(10)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let log = log(of: name)
            if texts.allSatisfy(log.contains) { return log }
            if ContinuousClock.now >= deadline {
                throw TmuxSession.Failure(
                    "timed out after \(timeout) waiting for \(texts) in the log of \(name):\n\(log.suffix(3000))")
            }
            usleep(25_000)
        }
    }

    deinit {
        for session in sessions { session.close() }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Whether `screen` shows the whole home screen of the device `name`: its title, the app, and
/// the key hints on its last row.
func isHomeScreen(_ screen: String, of name: String, kind: String, app: String) -> Bool {
    screen.contains("\(name) · \(kind)") && screen.contains(app)
}
