import ArgumentParser
import Foundation
import HandoffCore

/// `handoff demo`: two devices side by side in tmux.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Show two devices side by side in tmux (a laptop and a phone of the account \"demo\").",
        discussion: """
            Outside tmux this starts a tmux session named by --session with two panes and attaches \
            to it (or attaches to it when it is already running); inside tmux it opens a new window \
            split in two. The panes are side by side when the terminal has room for two devices \
            (161 columns), else one above the other. Each pane runs `handoff device`. \
            Quit a device with q on its home screen (or Ctrl-Q); `tmux kill-session -t handoff-demo` \
            ends both.
            """
    )

    @Option(help: ArgumentHelp("The kinds of the two devices, comma-separated.", valueName: "kind,kind"))
    var kinds = "laptop,phone"

    @Option(help: "The account both devices sign in to.")
    var account = "demo"

    @Option(help: "The shared UDP discovery port.")
    var port = 47_820

    @Option(help: ArgumentHelp("Beacon timing: instant or apple.", valueName: "profile"))
    var timing = "instant"

    @Option(help: "The tmux session to create when not already inside tmux.")
    var session = "handoff-demo"

    @Option(help: ArgumentHelp("Where accounts are kept (default: $XDG_CONFIG_HOME/handoff/accounts).", valueName: "dir"))
    var configDir: String?

    @Flag(help: "Print the tmux command instead of running it.")
    var dryRun = false

    func validate() throws {
        let parts = kinds.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { throw ValidationError("--kinds takes two kinds, such as laptop,phone.") }
        for part in parts where PeerInfo.Kind(rawValue: part) == nil {
            throw ValidationError("Unknown device kind \"\(part)\": use phone, tablet or laptop.")
        }
        guard ["instant", "apple"].contains(timing) else { throw ValidationError("--timing is instant or apple, not \(timing).") }
    }

    func run() throws {
        let executable = Self.currentExecutable()
        let commands = kinds.split(separator: ",").map { kind -> String in
            var arguments = [executable, "device", "--kind", kind.trimmingCharacters(in: .whitespaces),
                             "--account", account, "--port", String(port), "--timing", timing]
            if let configDir { arguments += ["--config-dir", configDir] }
            return arguments.map(Self.shellQuoted).joined(separator: " ")
        }
        let insideTmux = ProcessInfo.processInfo.environment["TMUX"].map { !$0.isEmpty } ?? false
        // Side by side when the terminal is wide enough for two devices (80 columns each), else
        // one above the other when it is tall enough; side by side otherwise (each device says
        // when its pane is too small).
        let size = Self.terminalSize()
        let sideBySide = size.map { $0.columns >= 161 || $0.rows < 49 } ?? true
        let split = sideBySide ? "-h" : "-v"
        let layout = sideBySide ? "even-horizontal" : "even-vertical"
        let tmuxArguments: [String]
        if insideTmux {
            // A new window of the current session, split in two: the devices get the whole window.
            tmuxArguments = ["tmux", "new-window", "-n", "handoff", commands[0], ";", "split-window", split, commands[1], ";",
                             "select-layout", layout]
        } else if !dryRun, let tmux = Self.find("tmux"), Self.succeeds(tmux, ["has-session", "-t", "=" + session]) {
            // Already running: attach to it rather than start two more devices.
            tmuxArguments = ["tmux", "attach-session", "-t", "=" + session]
        } else {
            tmuxArguments = ["tmux", "new-session", "-s", session, "-n", "handoff", commands[0], ";",
                             "split-window", split, "-t", session, commands[1], ";", "select-layout", "-t", session, layout]
        }
        if dryRun {
            print(tmuxArguments.map(Self.shellQuoted).joined(separator: " "))
            return
        }
        guard let tmux = Self.find("tmux") else {
            throw ValidationError("tmux is not installed. Install it (apt-get install -y tmux), or run `handoff device` in two terminals.")
        }
        // Replace this process with tmux, which takes over the terminal.
        var argv: [UnsafeMutablePointer<CChar>?] = tmuxArguments.map { strdup($0) }
        argv.append(nil)
        execv(tmux, argv)
        throw ValidationError("Could not run tmux at \(tmux): \(String(cString: strerror(errno))).")
    }

    /// The running `handoff` binary, by absolute path (tmux runs the panes' commands in a shell).
    static func currentExecutable() -> String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
    }

    /// `text` quoted for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        if !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || "-_./,=:".contains($0) }) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The controlling terminal's size, if standard output is a terminal.
    static func terminalSize() -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Whether `program arguments` exits with status 0 (its output discarded).
    static func succeeds(_ program: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    static func find(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
