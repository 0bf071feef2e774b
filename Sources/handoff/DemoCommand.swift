import ArgumentParser
import CursesTerminal
import DeviceUI
import Foundation
import HandoffCore
import HandoffNetwork
import HandoffProcesses
import HandoffWeb
import TerminalCells

/// `handoff demo [STORY]`: the devices of a README walkthrough, one per tmux pane.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract:
            "Run a walkthrough's devices in tmux panes (default: reading, a laptop and a phone of the account \"demo\").",
        discussion: """
            STORY is one of \(DemoStory.all.map(\.name).joined(separator: ", ")); --list says what \
            each shows. Outside tmux this starts a tmux session named by --session and attaches to \
            it; inside tmux it opens a new window. One demo runs at a time: the same story with the \
            same options is shown again, another replaces the running one (its devices quit first, \
            and a terminal still showing it says what replaced it). \
            The panes are side by side when every device gets its kind's minimum size (phone \
            \(Self.describe(.phone)), tablet \(Self.describe(.tablet)), laptop \(Self.describe(.laptop))), \
            else stacked; a terminal too small for all of them is refused before anything starts. \
            A pane with room below its device's smallest size shows the device's lifecycle log there \
            as it happens (F2 hides or shows it). \
            When a device quits, its pane stays with the exit status: Enter starts it again, or type \
            another command (such as `handoff device --kind phone --apps browser`). \
            The local web (`handoff web serve`, the demo sites over HTTPS on loopback) runs in a \
            background window, handoff-web, with its certificate authority and hosts map in the \
            default web folder ($XDG_STATE_HOME/handoff/web), where every other command finds it. \
            `handoff demo --stop` ends the demo, its devices and its web, inside or outside tmux.
            """
    )

    @Argument(help: ArgumentHelp("The walkthrough to run.", valueName: "story"))
    var story = "reading"

    @Flag(help: "List the stories and what each shows.")
    var list = false

    @Flag(
        help: "Stop the running demo: its devices, its local web and the tmux session it made (inside or outside tmux)."
    )
    var stop = false

    @Option(
        help: ArgumentHelp(
            "Override the devices' kinds, comma-separated, one per device of the story.", valueName: "kind,kind"))
    var kinds: String?

    @Option(help: "The account every device signs in to.")
    var account = "demo"

    @Option(help: "The shared UDP discovery port.")
    var port = NetworkOptions.defaultDiscoveryPort

    @Option(help: ArgumentHelp("Beacon timing: instant or apple.", valueName: "profile"))
    var timing = "instant"

    @Option(help: "The tmux session to create when not already inside tmux.")
    var session = "handoff-demo"

    @Option(
        help: ArgumentHelp("Where accounts are kept (default: $XDG_CONFIG_HOME/handoff/accounts).", valueName: "dir"))
    var configDir: String?

    @Option(
        help: ArgumentHelp(
            "Plan for this terminal size instead of the real one (with --dry-run, for checking).", valueName: "WxH"))
    var terminalSize: String?

    @Flag(help: "Print the tmux command instead of running it.")
    var dryRun = false

    /// `handoff learn`: the lesson whose pane goes below the devices, and its folder.
    @Option(help: .hidden)
    var lesson: Int?

    @Option(help: .hidden)
    var lessons: String?

    /// The environment the panes get from the caller: a tmux server started earlier has its own.
    /// (TERM is tmux's inside a pane, as it must be for tmux to draw it.) SSLKEYLOGFILE makes
    /// the demo's devices write a TLS key log for Wireshark (docs/wire.md, "Looking at the wire").
    static let forwardedEnvironment = [
        "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
        "XDG_RUNTIME_DIR", "NO_COLOR", "LANG", "LC_ALL", "LC_CTYPE", "PATH", "SSLKEYLOGFILE",
    ]

    /// `NAME=value` for each variable the panes get: the forwarded ones, and `SWIFT_BACKTRACE`
    /// with the settings a terminal device needs for its crash reports, so that no device has to
    /// re-execute itself for them (``CrashReports``).
    static func paneEnvironment(from environment: [String: String]) -> [String] {
        var pairs = forwardedEnvironment.compactMap { name in environment[name].map { "\(name)=\($0)" } }
        let current = environment["SWIFT_BACKTRACE"]
        if let settings = CrashReports.settings(replacing: current) ?? current {
            pairs.append("SWIFT_BACKTRACE=\(settings)")
        }
        return pairs
    }

    static func describe(_ kind: PeerInfo.Kind) -> String {
        let size = ScreenLayout.minimumSize(for: kind)
        return "\(size.width)x\(size.height)"
    }

    func validate() throws {
        guard list || DemoStory.named(story) != nil else {
            throw ValidationError(
                "No demo story named \"\(story)\". Stories: \(DemoStory.all.map(\.name).joined(separator: ", ")) (handoff demo --list says what each shows)."
            )
        }
        if let kinds, let story = DemoStory.named(story) {
            let parts = kinds.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == story.devices.count else {
                throw ValidationError(
                    "--kinds takes \(story.devices.count) kinds for the \(story.name) story, such as \(story.devices.map(\.kind.rawValue).joined(separator: ","))."
                )
            }
            for part in parts where PeerInfo.Kind(rawValue: part) == nil {
                throw ValidationError("Unknown device kind \"\(part)\": use phone, tablet or laptop.")
            }
        }
        guard ["instant", "apple"].contains(timing) else {
            throw ValidationError("--timing is instant or apple, not \(timing).")
        }
        if let terminalSize, Self.parseSize(terminalSize) == nil {
            throw ValidationError("--terminal-size is WIDTHxHEIGHT, such as 120x40, not \(terminalSize).")
        }
    }

    /// The story's devices with `--kinds` applied.
    func devices(of story: DemoStory) -> [DemoStory.Device] {
        guard let kinds else { return story.devices }
        let parts = kinds.split(separator: ",").compactMap {
            PeerInfo.Kind(rawValue: $0.trimmingCharacters(in: .whitespaces))
        }
        return zip(story.devices, parts).map { device, kind in
            var device = device
            device.kind = kind
            return device
        }
    }

    func run() throws {
        if list {
            for story in DemoStory.all {
                let devices = story.devices.map { device in
                    ([device.name ?? device.kind.rawValue] + device.arguments).joined(separator: " ")
                }
                print("\(story.name)\(String(repeating: " ", count: max(1, 12 - story.name.count)))\(story.summary)")
                print("            devices: \(devices.joined(separator: " · "))")
                print("            try: \(story.firstSteps)")
            }
            return
        }
        if stop { return try stopDemo(tmux: Self.find("tmux")) }
        guard let story = DemoStory.named(story) else { throw ExitCode.validationFailure }
        var devices = devices(of: story)
        // A lesson records both devices where its pane reads them.
        let lessonRecordings = lesson.map { Self.lessonRecordingsFolder(lesson: $0) }
        if let lessonRecordings {
            if !dryRun {
                try? FileManager.default.removeItem(at: lessonRecordings)
                try FileManager.default.createDirectory(at: lessonRecordings, withIntermediateDirectories: true)
            }
            for index in devices.indices {
                let file = lessonRecordings.appendingPathComponent("\(index + 1)-\(devices[index].kind.rawValue).jsonl")
                devices[index].arguments += ["--record", file.path]
            }
        }
        let environment = ProcessInfo.processInfo.environment
        let insideTmux = environment["TMUX"].map { !$0.isEmpty } ?? false
        let tmux = Self.find("tmux")
        if tmux == nil, !dryRun {
            Self.printError(
                "tmux is not installed. Install it (apt-get install -y tmux), or run `handoff device` in \(devices.count) terminals."
            )
            throw ExitCode.failure
        }

        // The window the panes share: inside tmux the current window's size; outside, the
        // terminal less tmux's status line.
        var window: Size?
        if let terminalSize {
            window = Self.parseSize(terminalSize).map {
                Size(width: $0.width, height: $0.height - (insideTmux ? 0 : 1))
            }
        } else if insideTmux, let tmux {
            window = Self.output(tmux, ["display-message", "-p", "#{window_width}x#{window_height}"]).flatMap(
                Self.parseSize)
        } else {
            window = Self.terminalSize().map { Size(width: $0.width, height: $0.height - 1) }
        }
        // The lesson pane's rows (and its border) come off the devices' window.
        let lessonRows = window.map { Self.lessonPaneRows(windowHeight: $0.height) } ?? 8
        if lesson != nil, let measured = window {
            window = Size(width: measured.width, height: measured.height - lessonRows - 1)
        }
        let kinds = devices.map(\.kind)
        let arrangement: DemoArrangement
        if let window {
            guard let best = DemoArrangement.best(for: kinds, in: window) else {
                let side = DemoArrangement.smallestWindow(for: kinds, shape: .columns)
                let stacked = DemoArrangement.smallestWindow(for: kinds, shape: .rows)
                let status = insideTmux ? 0 : 1
                let names = kinds.map(\.rawValue).joined(separator: ", ")
                Self.printError(
                    """
                    This terminal is too small for the \(story.name) demo: its \(names) need \(side.width)x\(side.height + status) \
                    side by side or \(stacked.width)x\(stacked.height + status) stacked, and the window has \
                    \(window.width)x\(window.height + status). Enlarge it, or run `handoff device` in separate terminals.
                    """)
                throw ExitCode.failure
            }
            arrangement = best
        } else {
            // No terminal to measure (output redirected): side by side, each device says if its
            // pane is too small.
            arrangement = DemoArrangement(shape: .columns, paneSizes: [])
        }

        let executable = Self.currentExecutable()
        let webFolder = WebFolder.defaultFolder(environment: environment).url.path
        let commands = devices.map { paneScript(for: $0, executable: executable, webFolder: webFolder) }
        let webCommand = webServerScript(executable: executable, webFolder: webFolder)
        let signature =
            ([story.name] + devices.map { "\($0.kind.rawValue):\($0.arguments.joined(separator: " "))" }
            + [account, String(port), timing, configDir ?? ""]).joined(separator: "|")
        let forwarded = Self.paneEnvironment(from: environment).flatMap { ["-e", $0] }

        // What the tmux server already runs: one demo at a time, one local web.
        let server = tmux.map(DemoTmux.init)
        let panes = server?.panes() ?? []
        let running = DemoTmux.demoWindows(in: panes)
        let currentSession =
            insideTmux ? tmux.flatMap { Self.output($0, ["display-message", "-p", "#{session_name}"]) } : nil
        let targetSession = currentSession ?? session
        if let same = running.first(where: { $0.signature == signature }), let tmux {
            // The same demo runs: show it rather than start more devices.
            let show =
                insideTmux
                ? ["tmux", "switch-client", "-t", "=" + same.session, ";", "select-window", "-t", same.id]
                : ["tmux", "attach-session", "-t", "=" + same.session, ";", "select-window", "-t", same.id]
            if dryRun {
                print(show.map(Self.shellQuoted).joined(separator: " "))
                return
            }
            Self.exec(tmux, show)
        }
        var retiredHere: [String] = []
        var notices: [(client: String, text: String)] = []
        if let server, !running.isEmpty {
            let names = running.map { "the \($0.story) demo (tmux session \($0.session))" }.joined(separator: " and ")
            let text = "handoff demo: \(names) replaced by the \(story.name) demo"
            print("Replacing \(names) with the \(story.name) demo: its devices quit first.")
            for window in running where window.session == targetSession { retiredHere.append(window.id) }
            notices = server.clients(of: targetSession).map { ($0, text) }
            if !dryRun {
                let left = server.retire(running, replacedBy: story.name, in: "tmux session \(targetSession)")
                if !left.isEmpty {
                    Self.printError(
                        "processes \(left.map(String.init).joined(separator: ", ")) of the replaced demo did not end.")
                }
            }
        }
        let hasWeb = panes.contains(where: \.isWeb)

        var tmuxArguments: [String] = ["tmux"]
        let sessionExists =
            !insideTmux && (tmux.map { Self.succeeds($0, ["has-session", "-t", "=" + session]) } ?? false)
        if insideTmux || sessionExists {
            // A new window of the session: the devices get the whole window.
            let target = insideTmux ? [] : ["-t", session + ":"]
            tmuxArguments +=
                ["new-window"] + target + ["-n", "handoff"] + forwarded + [
                    commands[0], ";",
                    "set-option", "-w", Self.demoOptionName, signature,
                ]
        } else {
            // A session of the demo's own, marked so that `--stop` ends it whole; its status line
            // says how to stop it.
            tmuxArguments +=
                ["new-session", "-s", session, "-n", "handoff"] + forwarded + [
                    commands[0], ";",
                    "set-option", "-t", session, DemoTmux.sessionOption, "1", ";",
                    "set-option", "-t", session, "status-right", Self.stopHint, ";",
                    "set-option", "-t", session, "status-right-length", String(Self.stopHint.count + 2), ";",
                    "set-option", "-w", Self.demoOptionName, signature,
                ]
        }
        if !hasWeb {
            // The local web, once per tmux server, in a background window of the demo's session.
            tmuxArguments +=
                [";", "new-window", "-d"] + (insideTmux ? [] : ["-t", session + ":"]) + ["-n", Self.webWindow]
                + forwarded + [
                    webCommand, ";", "set-option", "-w", "-t", (insideTmux ? "" : session + ":") + Self.webWindow,
                    DemoTmux.webOption, "1",
                ]
        }
        let demoWindow = insideTmux ? nil : session + ":"
        tmuxArguments += splitArguments(arrangement.shape, commands: commands, forwarded: forwarded, window: demoWindow)
        if let lesson, let lessonRecordings {
            // The first device has the focus; then the lesson pane, the whole width above the
            // devices (the goal first, where the eye starts), made without taking the focus (-d).
            let script = [
                "handoff() { \(Self.shellQuoted(executable)) \"$@\"; }",
                (["handoff", "learn", "--pane", String(lesson), "--recordings", lessonRecordings.path]
                    + (lessons.map { ["--lessons", $0] } ?? [])).map(Self.shellQuoted).joined(separator: " "),
            ].joined(separator: "; ")
            let target = demoWindow.map { ["-t", $0] } ?? []
            tmuxArguments += [";", "select-pane", "-t", (demoWindow.map { $0 + "." } ?? "") + "{top-left}"]
            tmuxArguments +=
                [";", "split-window", "-d", "-b", "-v", "-f", "-l", String(lessonRows)] + target + forwarded + [script]
        }
        for window in retiredHere { tmuxArguments += [";", "kill-window", "-t", window] }
        for notice in notices {
            tmuxArguments += [";", "display-message", "-c", notice.client, "-d", "8000", notice.text]
        }
        if insideTmux {
            // The user's own status line stays theirs: the way to stop is said for a while.
            tmuxArguments += [
                ";", "display-message", "-d", "10000", "handoff demo: the \(story.name) demo; \(Self.stopHint)",
            ]
        }
        if sessionExists { tmuxArguments += [";", "attach-session", "-t", "=" + session] }
        if dryRun {
            let sizes = arrangement.paneSizes.map { "\($0.width)x\($0.height)" }.joined(separator: ", ")
            if !sizes.isEmpty { print("# \(story.name): \(arrangement.shape.rawValue), panes \(sizes)") }
            print(tmuxArguments.map(Self.shellQuoted).joined(separator: " "))
            return
        }
        guard let tmux else { return }
        Self.exec(tmux, tmuxArguments)
    }

    static let demoOptionName = DemoTmux.demoOption

    /// Where a lesson's devices record their lifecycle for the lesson pane.
    static func lessonRecordingsFolder(lesson: Int) -> URL {
        LessonsProgress.file.deletingLastPathComponent().appendingPathComponent(
            "lesson-\(lesson)", isDirectory: true)
    }

    /// The lesson pane's height: the goal in one line at 80x24, the lesson itself where rows allow.
    static func lessonPaneRows(windowHeight: Int) -> Int {
        windowHeight >= 40 ? 10 : windowHeight >= 32 ? 6 : 1
    }

    /// How to stop a demo, on screen: the demo session's status line, or a message inside tmux.
    static let stopHint = "handoff demo --stop ends it"

    /// `--stop`: ends every demo of the tmux server, its web and the session it made.
    func stopDemo(tmux: String?) throws {
        guard let tmux else {
            print("No demo is running (tmux is not installed).")
            return
        }
        let (report, leftOver) = DemoTmux(tmux: tmux).stopAll()
        if !report.isEmpty { print(report.joined(separator: "\n")) }
        if !leftOver.isEmpty {
            Self.printError(
                "processes \(leftOver.map(String.init).joined(separator: ", ")) did not end, even after SIGKILL.")
            throw ExitCode.failure
        }
    }

    /// The tmux commands that add the second and later panes in `shape`, then focus the first.
    /// Each split divides the pane made last (the active one), so pane numbering options of the
    /// user's tmux do not matter; `window` is nil inside tmux (the new window is the current one).
    private func splitArguments(
        _ shape: DemoArrangement.Shape, commands: [String], forwarded: [String], window: String?
    ) -> [String] {
        var arguments: [String] = []
        let target = window.map { ["-t", $0] } ?? []
        func split(_ direction: String, size: String?, _ command: String) {
            arguments += [";", "split-window", direction] + target
            if let size { arguments += ["-l", size] }
            arguments += forwarded + [command]
        }
        switch shape {
        case .columns, .rows:
            let direction = shape == .columns ? "-h" : "-v"
            for command in commands.dropFirst() { split(direction, size: nil, command) }
            arguments += [";", "select-layout"] + target + [shape == .columns ? "even-horizontal" : "even-vertical"]
        case .leftAndStack, .topAndRow:
            let (first, rest) = shape == .leftAndStack ? ("-h", "-v") : ("-v", "-h")
            split(first, size: "50%", commands[1])
            for (index, command) in commands.enumerated().dropFirst(2) {
                let share = 100 * (commands.count - index) / (commands.count - index + 1)
                split(rest, size: "\(share)%", command)
            }
        }
        arguments += [";", "select-pane", "-t", (window.map { $0 + "." } ?? "") + "{top-left}"]
        return arguments
    }

    /// The name of the tmux window the demo's local web runs in.
    static let webWindow = "handoff-web"

    /// The script of the local web's window: `handoff web serve` on any free loopback ports (the
    /// hosts map in `webFolder` tells the devices which), kept with its exit status when it stops.
    func webServerScript(executable: String, webFolder: String) -> String {
        let command = [
            "handoff", "web", "serve", "--port", "0", "--http-port", "0", "--web-dir", webFolder, "--verbose",
        ]
        .map(Self.shellQuoted).joined(separator: " ")
        return [
            "handoff() { \(Self.shellQuoted(executable)) \"$@\"; }",
            "cmd=\(Self.shellQuoted(command))",
            "while :; do eval \"$cmd\"; status=$?",
            "printf '\\nThe local web stopped (exit status %s):\\n  %s\\nEnter starts it again; Ctrl-D closes this window.\\n> ' \"$status\" \"$cmd\"",
            "IFS= read -r line || exit \"$status\"",
            "if [ -n \"$line\" ]; then cmd=$line; fi",
            "done",
        ].joined(separator: "; ")
    }

    /// The shell script of one pane: runs the device, and when it quits keeps the pane with its
    /// exit status; Enter runs it again, another command line replaces it, Ctrl-D closes the pane.
    func paneScript(for device: DemoStory.Device, executable: String, webFolder: String? = nil) -> String {
        var arguments = [
            "handoff", "device", "--kind", device.kind.rawValue, "--account", account,
            "--port", String(port), "--timing", timing,
        ]
        // The demo's devices show each other's lane on the timeline (F9), and their lifecycle
        // log wherever the pane has room for it, so the room sees every step as it happens.
        arguments += ["--share-lifecycle", "--log", "when-room"]
        if let webFolder { arguments += ["--web-dir", webFolder] }
        if let name = device.name { arguments += ["--name", name] }
        if let configDir { arguments += ["--config-dir", configDir] }
        arguments += device.arguments
        let command = arguments.map(Self.shellQuoted).joined(separator: " ")
        let label = device.name ?? "The \(device.kind.rawValue)"
        // The local web starts in its own window beside the devices and writes its hosts map once
        // it listens. A device checks its apps' association files as it starts, and a failed
        // check is asked again only at the next launch: so the first start waits for the map
        // (at most 5 s; a web already running has one), or a fast device finds no web.
        let waitForWeb =
            webFolder.map { folder in
                let hosts = Self.shellQuoted(WebFolder(url: URL(fileURLWithPath: folder)).hostsMap.path)
                return "i=0; while [ ! -e \(hosts) ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done"
            }
        return [
            "handoff() { \(Self.shellQuoted(executable)) \"$@\"; }",
            waitForWeb,
            "cmd=\(Self.shellQuoted(command))",
            "while :; do eval \"$cmd\"; status=$?",
            "printf '\\n%s quit (exit status %s):\\n  %s\\nEnter starts it again, or type another command; Ctrl-D closes this pane.\\n> ' \(Self.shellQuoted(label)) \"$status\" \"$cmd\"",
            "IFS= read -r line || exit \"$status\"",
            "if [ -n \"$line\" ]; then cmd=$line; fi",
            "done",
        ].compactMap { $0 }.joined(separator: "; ")
    }

    // MARK: Processes and the terminal

    static func parseSize(_ text: String) -> Size? {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 1 else {
            return nil
        }
        return Size(width: width, height: height)
    }

    /// The running `handoff` binary, by absolute path (tmux runs the panes' commands in a shell).
    static func currentExecutable() -> String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
    }

    /// `text` quoted for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        if !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || "-_./,=:%@".contains($0) }) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The controlling terminal's size, if standard output is a terminal.
    static func terminalSize() -> Size? {
        var size = winsize()
        guard isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else {
            return nil
        }
        return Size(width: Int(size.ws_col), height: Int(size.ws_row))
    }

    /// Whether `program arguments` exits with status 0 (its output discarded).
    static func succeeds(_ program: String, _ arguments: [String]) -> Bool {
        (try? ChildProcess(executable: program, arguments: arguments))?.waitForExit() == .exited(0)
    }

    /// What `program arguments` prints, trimmed, when it exits with status 0.
    static func output(_ program: String, _ arguments: [String]) -> String? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-demo-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        // A file, not a pipe: a tmux server started by the command would hold a pipe open.
        guard
            let child = try? ChildProcess(executable: program, arguments: arguments, standardOutput: .file(file.path)),
            child.waitForExit() == .exited(0), let data = try? Data(contentsOf: file)
        else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Replaces this process with `arguments` (tmux, which takes over the terminal), with no
    /// signal blocked and every signal's default action (``replaceProcess(executable:arguments:)``).
    static func exec(_ program: String, _ arguments: [String]) -> Never {
        let failure = replaceProcess(executable: program, arguments: arguments)
        FileHandle.standardError.write(
            Data("handoff demo: could not run tmux at \(program): \(String(cString: strerror(failure)))\n".utf8))
        Foundation.exit(1)
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("handoff demo: \(message)\n".utf8))
    }

    static func find(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
