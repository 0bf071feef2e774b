// terminal-probe: a tiny full-screen program for CursesTerminal's end-to-end tests.
//
// It draws a box with wide glyphs, the terminal size, the keys received and a few counters, and
// quits on q. Keys: w wakes the loop from another thread, t sets a 50 ms deadline, z freezes (as
// a hung program would), ! crashes (fatalError), Ctrl-L repaints; Ctrl-Z stops it (resumes=N
// counts the continuations). On exit it prints "bye: quit" or "bye: signal N" (after the
// terminal is restored) and exits with 0 or 128 + N.
//
// PROBE_LOG=<file> sends standard error to that file while curses runs, with crash reports
// made non-interactive and written there (CrashReports), as the device does with its log.

import CursesTerminal
import Glibc
import TerminalCells

/// What the probe shows.
struct ProbeState {
    var size: Size
    var usesColor: Bool
    var keys: [String] = []
    var resizes = 0
    var wakes = 0
    var ticks = 0
    var resumes = 0
    var deadline: ContinuousClock.Instant?

    var lastKey: String { keys.last ?? "-" }
}

/// Why the probe stopped.
enum ProbeExit {
    case quit
    case signal(Int32)
}

func render(_ state: ProbeState) -> Grid {
    var grid = Grid(size: state.size)
    grid.box(grid.bounds, title: "probe")
    let inside = grid.bounds.inset(by: 1)
    let lines: [(String, Style)] = [
        ("size=\(state.size) resizes=\(state.resizes)", .normal),
        ("last=\(state.lastKey) keys=\(state.keys.suffix(8).joined(separator: " "))", .normal),
        (
            "wakes=\(state.wakes) ticks=\(state.ticks) color=\(state.usesColor ? "yes" : "no") resumes=\(state.resumes)",
            .normal
        ),
        ("|漢字|ab|🌍|x|", .normal),
        ("|abcd|ab|xx|x|", .normal),
        ("Title role", Style(.title)),
        ("Error role", Style(.error)),
    ]
    for (index, (text, style)) in lines.enumerated() {
        grid.put(text, at: Point(x: inside.x, y: inside.y + index), style: style, clip: inside)
    }
    return grid
}

func runProbe() throws -> ProbeExit {
    try CursesTerminal.withTerminal { terminal in
        let loop = try TerminalRunLoop(terminal: terminal)
        let inbox = TerminalInbox<String>(waker: loop.waker)
        var state = ProbeState(size: terminal.size, usesColor: terminal.theme.usesColor)
        terminal.draw(render(state))
        while true {
            switch loop.nextEvent(until: state.deadline) {
            case .key(.character("q")):
                return .quit
            case .key(.character("w")):
                Task.detached {
                    try? await Task.sleep(for: .milliseconds(20))
                    inbox.post("ping")
                }
                state.keys.append("w")
            case .key(.character("t")):
                state.deadline = .now + .milliseconds(50)
                state.keys.append("t")
            case .key(.character("z")):
                // Stop handling events, as a hung program would: only a second signal ends it.
                state.keys.append("frozen")
                terminal.draw(render(state))
                while true { pause() }
            case .key(.character("!")):
                fatalError("the probe crashed on purpose")
            case .key(.control("l")):
                terminal.redrawAll()
                state.keys.append("Ctrl-L")
            case .key(let key):
                state.keys.append(key.description)
            case .resize(let size):
                state.size = size
                state.resizes += 1
            case .wake:
                state.wakes += inbox.drain().count
            case .deadline:
                state.deadline = nil
                state.ticks += 1
            case .resumed:
                state.resumes += 1
            case .signal(let signal):
                return .signal(signal)
            }
            if !loop.hasPendingEvents { terminal.draw(render(state)) }
        }
    }
}

/// With PROBE_LOG, standard error goes to that file while curses runs (see the top).
func withStandardErrorInLog<Result>(_ body: () throws -> Result) throws -> Result {
    guard let path = getenv("PROBE_LOG").map({ String(cString: $0) }) else { return try body() }
    let log = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard log >= 0 else { return try body() }
    let saved = dup(STDERR_FILENO)
    dup2(log, STDERR_FILENO)
    defer {
        dup2(saved, STDERR_FILENO)
        close(saved)
        close(log)
    }
    return try body()
}

if getenv("PROBE_LOG") != nil { CrashReports.sendToStandardError() }
do {
    switch try withStandardErrorInLog(runProbe) {
    case .quit:
        print("bye: quit")
        exit(0)
    case .signal(let signal):
        print("bye: signal \(signal)")
        exit(128 + signal)
    }
} catch {
    print("terminal-probe: \(error)")
    exit(1)
}
