import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The demos a tmux server runs, found by the options `handoff demo` sets on what it creates:
/// `@handoff-demo` (the story's signature) on a demo's window, `@handoff-web` on the local web's
/// window, and `@handoff-demo-session` on a session the demo created itself (outside tmux).
/// So a demo is found wherever it runs, inside the user's own tmux session or in its own, and
/// stopped or replaced with every process it started.
struct DemoTmux {
    /// The option on a demo's window: its signature (story, devices, account, port…).
    static let demoOption = "@handoff-demo"
    /// The option on the local web's window.
    static let webOption = "@handoff-web"
    /// The option on a session `handoff demo` created (ended whole by `--stop`).
    static let sessionOption = "@handoff-demo-session"

    /// One pane of the tmux server.
    struct Pane: Equatable {
        var session: String
        var windowID: String
        var windowName: String
        var paneID: String
        var processID: pid_t
        /// The window's `@handoff-demo`, empty when it is no demo's.
        var demoSignature: String
        var isWeb: Bool
        var sessionIsDemos: Bool
    }

    /// One demo window, with its panes.
    struct Window: Equatable {
        var session: String
        var id: String
        var signature: String
        var panes: [Pane]
        /// The story's name (the signature's first field).
        var story: String {
            signature.split(separator: "|", omittingEmptySubsequences: false).first.map(String.init) ?? "other"
        }
    }

    let tmux: String

    /// Every pane of the server, or none when no server runs.
    func panes() -> [Pane] {
        let fields = [
            "#{session_name}", "#{window_id}", "#{window_name}", "#{pane_id}", "#{pane_pid}",
            "#{\(Self.demoOption)}", "#{\(Self.webOption)}", "#{\(Self.sessionOption)}",
        ]
        guard let text = DemoCommand.output(tmux, ["list-panes", "-a", "-F", fields.joined(separator: "\t")]) else {
            return []
        }
        return Self.parsePanes(text)
    }

    static func parsePanes(_ text: String) -> [Pane] {
        text.split(separator: "\n").compactMap { line in
            // Empty fields at the end of the output may have been trimmed away.
            var parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if parts.count < 8 { parts += Array(repeating: "", count: 8 - parts.count) }
            guard parts.count == 8, let pid = pid_t(parts[4]) else { return nil }
            return Pane(
                session: parts[0], windowID: parts[1], windowName: parts[2], paneID: parts[3], processID: pid,
                demoSignature: parts[5], isWeb: !parts[6].isEmpty || parts[2] == DemoCommand.webWindow,
                sessionIsDemos: !parts[7].isEmpty)
        }
    }

    /// The demo windows among `panes`, in the server's order.
    static func demoWindows(in panes: [Pane]) -> [Window] {
        var windows: [Window] = []
        for pane in panes where !pane.demoSignature.isEmpty {
            if let index = windows.firstIndex(where: { $0.id == pane.windowID }) {
                windows[index].panes.append(pane)
            } else {
                windows.append(
                    Window(session: pane.session, id: pane.windowID, signature: pane.demoSignature, panes: [pane]))
            }
        }
        return windows
    }

    /// The clients attached to `session` (their tmux names).
    func clients(of session: String) -> [String] {
        (DemoCommand.output(tmux, ["list-clients", "-t", "=" + session, "-F", "#{client_name}"]) ?? "")
            .split(separator: "\n").map(String.init)
    }

    /// Ends `windows`' devices before another demo starts: each window's first pane says what
    /// replaced it (so a terminal attached to it reads why, rather than `[exited]`), its other
    /// panes close, and every process the panes ran is gone before this returns.
    func retire(_ windows: [Window], replacedBy story: String, in place: String) -> [pid_t] {
        let leaders = Set(windows.flatMap(\.panes).map(\.processID))
        let processes = Self.processes(inSessionsOf: leaders)
        for window in windows {
            let message =
                "printf '\\n  The %s demo was replaced by the %s demo (%s).\\n  Enter closes this window.\\n' "
                + [window.story, story, place].map(DemoCommand.shellQuoted).joined(separator: " ")
                + "; IFS= read -r line"
            var arguments = ["set-option", "-w", "-u", "-t", window.id, Self.demoOption]
            arguments += [";", "respawn-pane", "-k", "-t", window.panes[0].paneID, message]
            for pane in window.panes.dropFirst() { arguments += [";", "kill-pane", "-t", pane.paneID] }
            _ = DemoCommand.succeeds(tmux, arguments)
        }
        return Self.end(processes)
    }

    /// Stops every demo and local web of the server, and the sessions the demo created: their
    /// processes first (SIGTERM, then SIGKILL after 3 s), then the windows. Returns what it did,
    /// one line each, and the processes still running (none, unless they could not be killed).
    func stopAll() -> (report: [String], leftOver: [pid_t]) {
        let panes = panes()
        let demos = Self.demoWindows(in: panes)
        let webs = Set(panes.filter(\.isWeb).map(\.windowID))
        let sessions = Set(panes.filter(\.sessionIsDemos).map(\.session))
        // Everything in those windows and sessions, except this process's own pane (`--stop`
        // typed in a demo's pane ends with its window, after it has reported).
        let chosen = panes.filter {
            !$0.demoSignature.isEmpty || webs.contains($0.windowID) || sessions.contains($0.session)
        }
        guard !chosen.isEmpty else { return (["No demo is running (tmux has no handoff demo window)."], []) }
        let own = getsid(0)
        let leaders = Set(chosen.map(\.processID)).subtracting([own])
        let processes = Self.processes(inSessionsOf: leaders)
        var report: [String] = []
        for demo in demos {
            report.append(
                "Stopped the \(demo.story) demo in tmux session \(demo.session) (\(demo.panes.count) device pane\(demo.panes.count == 1 ? "" : "s"))."
            )
        }
        if !webs.isEmpty { report.append("Stopped the local web (handoff web serve).") }
        let leftOver = Self.end(processes)
        // The windows and sessions, this process's own last.
        var arguments: [String] = []
        let ownPane = chosen.first { $0.processID == own }
        for session in sessions.sorted() where session != ownPane?.session {
            arguments += [";", "kill-session", "-t", "=" + session]
        }
        let windows = Set(chosen.filter { !sessions.contains($0.session) }.map(\.windowID))
        for window in windows.sorted() where window != ownPane?.windowID {
            arguments += [";", "kill-window", "-t", window]
        }
        if let ownPane {
            arguments +=
                sessions.contains(ownPane.session)
                ? [";", "kill-session", "-t", "=" + ownPane.session]
                : [";", "kill-window", "-t", ownPane.windowID]
        }
        if ownPane != nil {
            // Said now: this process ends with its pane.
            report.append("This pane is the demo's: it closes now.")
            FileHandle.standardOutput.write(Data((report.joined(separator: "\n") + "\n").utf8))
            report = []
        }
        if !arguments.isEmpty { _ = DemoCommand.succeeds(tmux, Array(arguments.dropFirst())) }
        return (report, leftOver)
    }

    // MARK: Processes

    /// Every process whose session is led by one of `leaders` (a tmux pane's first process leads
    /// a session of its own: the shell, the device it started and anything they started).
    static func processes(inSessionsOf leaders: Set<pid_t>) -> [pid_t] {
        guard !leaders.isEmpty, let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else {
            return []
        }
        return entries.compactMap { pid_t($0) }.filter { pid in
            guard let status = stat(of: pid) else { return false }
            return leaders.contains(status.session)
        }
    }

    /// The process group and session of `pid` from `/proc/PID/stat`, or nil when it is gone.
    static func stat(of pid: pid_t) -> (group: pid_t, session: pid_t)? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        // The command name may hold spaces and parentheses: the fields start after the last ")".
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // state, ppid, pgrp, session, …
        guard fields.count > 3, let group = pid_t(fields[2]), let session = pid_t(fields[3]) else { return nil }
        return (group, session)
    }

    /// Ends `processes`: SIGTERM, then SIGKILL to those still running after 3 s. Returns those
    /// still running 1 s after that.
    static func end(_ processes: [pid_t]) -> [pid_t] {
        let own = getpid()
        let targets = processes.filter { $0 != own }
        for pid in targets { kill(pid, SIGTERM) }
        if waitUntilGone(targets, seconds: 3) { return [] }
        for pid in targets where isRunning(pid) { kill(pid, SIGKILL) }
        _ = waitUntilGone(targets, seconds: 1)
        return targets.filter(isRunning)
    }

    /// Whether `pid` runs (a zombie has ended: it only waits for its parent).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return false }
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return false }
        return !text[text.index(after: close)...].hasPrefix(" Z")
    }

    static func waitUntilGone(_ processes: [pid_t], seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while processes.contains(where: isRunning) {
            if Date() > deadline { return false }
            usleep(20_000)
        }
        return true
    }
}
