// handoff-ui-bench: measures the terminal device as a person sees it, through tmux, next to
// the floor of the same measuring path (tmux, a pty and the kernel's echo), in one run.
//
//   scripts/release-build handoff handoff-ui-bench
//   (swift build -c release, one product per command, cross-module optimized)
//   .build-release/release/handoff-ui-bench [--keys 200] [--idle-seconds 30] [--json]
//                                           [--starts 5] [--first-frame-only]
//
// Rows:
// - first frame: from asking tmux to start the program until the device frame is on the
//   screen (floor: the same for `echo ready`);
// - key to changed screen: from sending a key until tmux shows a different screen, p50/p99
//   (floor: the same for `cat`, whose echo the kernel's line discipline does);
// - idle CPU: user + system time of an idle device (with a peer) over the idle period;
// - resident memory: VmRSS and its peak VmHWM at the end;
// - a 5 MB document over continuation streams: from Ctrl-O on a device without it until its
//   first page shows (floor: the same bytes through a local socket pair);
// - the inspector (F10) after that continuation: a tab key to a changed screen, p99 (floor: `cat`);
// - the timeline (F9) after that continuation: ↑/↓ choosing an event, to a changed screen, p99;
// - a 100 MB document opened from the list: from Enter until its first page shows (floor: `head`
//   showing the file's first screenful in a tmux pane, the same measuring path). The file is
//   written at run time into the run's temporary folder and removed with it.
import Foundation
import HandoffProcesses

#if canImport(Glibc)
import Glibc
#endif

struct Options {
    var keys = 200
    var idleSeconds = 30.0
    /// Print the rows as one JSON object (name → value, floor, target, verdict) instead of a table.
    var json = false
    /// How many starts (and `echo` floors) the first-frame row takes the median of.
    var starts = 5
    /// Measure the first frame only (to compare builds quickly, alternately).
    var firstFrameOnly = false

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--keys": keys = iterator.next().flatMap(Int.init) ?? keys
            case "--idle-seconds": idleSeconds = iterator.next().flatMap(Double.init) ?? idleSeconds
            case "--json": json = true
            case "--starts": starts = max(1, iterator.next().flatMap(Int.init) ?? starts)
            case "--first-frame-only": firstFrameOnly = true
            case "-h", "--help":
                print(
                    "usage: handoff-ui-bench [--keys N] [--idle-seconds S] [--json] [--starts N] [--first-frame-only]")
                exit(0)
            default:
                FileHandle.standardError.write(Data("handoff-ui-bench: unknown argument \(argument)\n".utf8))
                exit(2)
            }
        }
    }
}

enum BenchFailure: Error, CustomStringConvertible {
    case missing(String)
    var description: String {
        switch self {
        case .missing(let what): "handoff-ui-bench: \(what)"
        }
    }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let index = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)
    return sorted[max(0, index)]
}

/// A tmux control-mode client (`tmux -C attach`) on a session's server: it writes commands and
/// reads the `%output` notifications tmux sends as soon as a pane's program writes, so a key's
/// effect is seen without spawning a client per poll.
final class ControlClient {
    let process: ChildProcess
    private var buffer: [UInt8] = []

    init(session: TmuxSession, tmux: String) throws {
        process = try ChildProcess(
            executable: tmux,
            arguments: ["-S", session.directory + "/socket", "-C", "attach-session", "-t", session.name],
            standardInput: .pipe, standardOutput: .pipe)
        // The attach itself answers with one %begin/%end block; wait for it.
        _ = try readLine(until: .now + .seconds(5)) { $0.hasPrefix("%end") || $0.hasPrefix("%error") }
    }

    func send(_ command: String) {
        process.standardInput!.write(Data((command + "\n").utf8))
    }

    /// Reads lines until one satisfies `predicate` (returned) or the deadline passes (nil).
    func readLine(until deadline: ContinuousClock.Instant, where predicate: (String) -> Bool) throws -> String? {
        let descriptor = process.standardOutput!.fileDescriptor
        while true {
            while let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if predicate(line) { return line }
            }
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let timeout = Int32(max(1, min(1000, milliseconds(remaining))))
            if poll(&poller, 1, timeout) > 0 {
                var chunk = [UInt8](repeating: 0, count: 65_536)
                let count = read(descriptor, &chunk, chunk.count)
                if count <= 0 { throw BenchFailure.missing("the tmux control client ended") }
                buffer += chunk[..<count]
            }
        }
    }

    /// Runs a tmux command and returns its output, the lines between its `%begin` and `%end`
    /// (nil when the deadline passes first), and whether an `%output` notification of `pane`
    /// came before the answer (the screen may have changed since).
    func command(
        _ command: String, pane: String, until deadline: ContinuousClock.Instant
    ) throws -> (
        lines: [String], paneWrote: Bool
    )? {
        send(command)
        var paneWrote = false
        var lines: [String] = []
        var inBlock = false
        let done = try readLine(until: deadline) { line in
            if inBlock {
                if line.hasPrefix("%end ") || line.hasPrefix("%error ") { return true }
                lines.append(line)
            } else if line.hasPrefix("%begin ") {
                inBlock = true
            } else if line.hasPrefix("%output \(pane) ") {
                paneWrote = true
            }
            return false
        }
        return done == nil ? nil : (lines, paneWrote)
    }

    /// Drops everything already received (waits `quiet` for stragglers).
    func drain(quiet: Duration = .milliseconds(30)) throws {
        while try readLine(until: .now + quiet, where: { _ in true }) != nil {}
    }

    func close() {
        try? process.standardInput!.close()
        process.waitForExit()
    }
}

/// Sends `key(i)` to `pane` through the control client and times until the pane's program
/// writes its answer (the first `%output` of that pane); returns the times in milliseconds.
func keyLatencies(_ client: ControlClient, pane: String, count: Int, key: (Int) -> String) throws -> [Double] {
    var samples: [Double] = []
    for index in 0..<count {
        try client.drain()
        let start = ContinuousClock.now
        client.send("send-keys -t \(pane) \(key(index))")
        guard try client.readLine(until: start + .seconds(5), where: { $0.hasPrefix("%output \(pane) ") }) != nil else {
            throw BenchFailure.missing("no output after key \(index)")
        }
        samples.append(milliseconds(ContinuousClock.now - start))
    }
    return samples
}

/// CPU seconds (user + system) used by `pid` so far.
func cpuSeconds(of pid: pid_t) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    // After the name: state (0), ppid (1), ... utime (11), stime (12).
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// A field of /proc/PID/status in kB (e.g. VmRSS).
func statusKilobytes(_ field: String, of pid: pid_t) -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Double(line.split(separator: " ").dropFirst().first { !$0.isEmpty }.map(String.init) ?? "")
    }
    return nil
}

/// Original filler text: numbered paragraphs, about `bytes` long, titled "A Big Book".
func makeBigDocument(bytes: Int) -> String {
    var text = "A Big Book\n\n"
    var paragraph = 1
    while text.utf8.count < bytes {
        text +=
            "Paragraph \(paragraph). The simulator carries this book from one device to another over a "
            + "continuation stream, because the continuing device has no copy of it. Every line is plain text.\n\n"
        paragraph += 1
    }
    return text
}

/// Writes about `bytes` of numbered paragraphs titled "A Huge Book" to `url`, a megabyte at a time.
func writeHugeDocument(bytes: Int, to url: URL) throws {
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
    }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var written = 0
    var paragraph = 1
    var batch = "A Huge Book\n\n"
    while written < bytes {
        while batch.utf8.count < 1 << 20 {
            batch +=
                "Paragraph \(paragraph). Nobody reads a hundred megabytes at once: the Reader shows the screen "
                + "in front of the reader first and counts the pages behind it while the reader reads.\n\n"
            paragraph += 1
        }
        try handle.write(contentsOf: Data(batch.utf8))
        written += batch.utf8.count
        batch = ""
    }
}

/// Milliseconds from asking tmux for a session of `width` x `height` running `command` until
/// the screen satisfies `predicate`, and the session (to close). A control client attached to
/// the new session captures the screen through its own connection (no tmux process per look)
/// at once, and again as soon as the program writes (an `%output` notification), or after
/// 10 ms without any: the floor and the device are seen the same way, within a capture of
/// their drawing, where polling with a pause between looks would add up to that pause to a
/// program that draws after the first look and nothing to one done before it.
func millisecondsToScreen(
    width: Int, height: Int, command: String, tmux: String, timeout: Duration,
    _ predicate: (String) -> Bool
) throws -> (milliseconds: Double, session: TmuxSession) {
    let start = ContinuousClock.now
    let deadline = start + timeout
    guard let session = try TmuxSession(width: width, height: height, command: command) else {
        throw BenchFailure.missing("tmux")
    }
    let client = try ControlClient(session: session, tmux: tmux)
    defer { client.close() }
    let pane = session.mainPane
    while true {
        guard let answer = try client.command("capture-pane -p -t \(pane)", pane: pane, until: deadline) else { break }
        if predicate(answer.lines.joined(separator: "\n")) {
            return (milliseconds(ContinuousClock.now - start), session)
        }
        if !answer.paneWrote {
            _ = try client.readLine(until: min(deadline, .now + .milliseconds(10))) {
                $0.hasPrefix("%output \(pane) ")
            }
        }
    }
    session.close()
    throw BenchFailure.missing("the screen never showed what it should after \(timeout): \(command)")
}

/// Milliseconds from `action` until the screen of `session` satisfies `predicate`, polling as
/// fast as tmux answers (each capture is a tmux command); nil after `timeout`.
func millisecondsUntil(
    _ session: TmuxSession, timeout: Duration, after action: () throws -> Void,
    _ predicate: (String) -> Bool
) throws -> Double? {
    let start = ContinuousClock.now
    try action()
    while ContinuousClock.now - start < timeout {
        if predicate(try session.capture()) { return milliseconds(ContinuousClock.now - start) }
        usleep(1_000)
    }
    return nil
}

/// Seconds to move `bytes` through an AF_UNIX stream socket pair, written by one thread and read
/// by this one.
func socketPairSeconds(bytes: Int) -> Double {
    var pair: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { return .nan }
    defer {
        close(pair[0])
        close(pair[1])
    }
    let writer = pair[0]
    let reader = pair[1]
    let start = ContinuousClock.now
    Thread.detachNewThread {
        let chunk = [UInt8](repeating: 0x61, count: 65_536)
        var left = bytes
        while left > 0 {
            let count = chunk.withUnsafeBytes { write(writer, $0.baseAddress, min(left, $0.count)) }
            if count <= 0 { return }
            left -= count
        }
    }
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var received = 0
    while received < bytes {
        let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        received += count
    }
    return milliseconds(ContinuousClock.now - start) / 1000
}

/// The rows printed: a table as they come, or one JSON object at the end (`--json`).
struct Table {
    var json: Bool
    var rows: [(name: String, fields: [String: String])] = []

    mutating func row(_ name: String, _ value: String, _ floor: String, _ target: String, _ verdict: String) {
        guard json else {
            func pad(_ text: String, _ width: Int) -> String {
                text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
            }
            print(pad(name, 34) + pad(value, 22) + pad(floor, 22) + pad(target, 14) + verdict)
            return
        }
        rows.append(
            (
                name.trimmingCharacters(in: .whitespaces),
                ["value": value, "floor": floor, "target": target, "verdict": verdict]
            ))
    }

    /// Prints the JSON object (rows in order, as an array of objects with their name).
    func printJSON() {
        guard json else { return }
        let objects = rows.map { row in row.fields.merging(["name": row.name]) { $1 } }
        if let data = try? JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys]) {
            print(String(decoding: data, as: UTF8.self))
        }
    }

    /// A line of explanation (table only).
    func note(_ line: String) {
        if !json { print(line) }
    }
}

func main() throws {
    let options = Options(arguments: CommandLine.arguments)
    guard TmuxSession.isAvailable else { throw BenchFailure.missing("tmux is not installed") }
    guard let handoff = TmuxSession.builtExecutable(named: "handoff") else {
        throw BenchFailure.missing("no handoff executable next to this program; build both products")
    }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-ui-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let account = "bench-\(UUID().uuidString.prefix(8).lowercased())"
    let port = DiscoveryPort.random()
    func deviceCommand(_ name: String, kind: String) -> String {
        "exec '\(handoff.path)' device --name \(name) --kind \(kind) --account \(account) --port \(port) "
            + "--config-dir '\(folder.appendingPathComponent("config").path)' --log-file '\(folder.appendingPathComponent("\(name).log").path)'"
    }
    // The account exists before timing starts (creating it is a one-off, not part of a start).
    try ChildProcess(
        executable: handoff.path,
        arguments: ["account", "create", account, "--config-dir", folder.appendingPathComponent("config").path],
        standardError: .inherit
    ).waitForExit()

    var table = Table(json: options.json)
    table.note("handoff-ui-bench: \(handoff.path)")
    table.note("")
    if !options.json { table.row("measure", "device", "floor", "target", "") }

    // First frame: the floor is tmux starting `echo ready` and showing it, in a session of the
    // device's size, seen the same way (millisecondsToScreen).
    guard let tmux = TmuxSession.tmuxPath else { throw BenchFailure.missing("tmux") }
    var floorStarts: [Double] = []
    for _ in 0..<options.starts {
        let (time, session) = try millisecondsToScreen(
            width: 100, height: 30, command: "echo ready; exec sleep 30", tmux: tmux, timeout: .seconds(10)
        ) { $0.contains("ready") }
        floorStarts.append(time)
        session.close()
    }
    var deviceStarts: [Double] = []
    for index in 0..<options.starts {
        let (time, session) = try millisecondsToScreen(
            width: 100, height: 30, command: deviceCommand("Start\(index)", kind: "laptop"), tmux: tmux,
            timeout: .seconds(30)
        ) { $0.contains("Start\(index) · laptop") && $0.contains("Reader") }
        deviceStarts.append(time)
        session.close()
    }
    let firstFrame = percentile(deviceStarts, 0.5)
    table.row(
        "first frame (median of \(options.starts))", String(format: "%.0f ms", firstFrame),
        String(format: "%.0f ms", percentile(floorStarts, 0.5)),
        "≤ 50 ms", firstFrame <= 50 ? "PASS" : "MISS")
    table.note(
        "first frame, each start: " + deviceStarts.map { String(format: "%.0f", $0) }.joined(separator: ", ")
            + " ms; `echo`: " + floorStarts.map { String(format: "%.0f", $0) }.joined(separator: ", ") + " ms")
    if options.firstFrameOnly {
        table.printJSON()
        return
    }

    // Key to changed screen. Floor: `cat` echoing typed characters.
    guard let echo = try TmuxSession(command: "exec cat") else {
        throw BenchFailure.missing("tmux")
    }
    _ = try echo.waitForProgram(named: "cat")
    let echoClient = try ControlClient(session: echo, tmux: tmux)
    let floorKeys = try keyLatencies(echoClient, pane: echo.mainPane, count: options.keys) { _ in "x" }
    echoClient.close()
    echo.close()

    guard let a = try TmuxSession(width: 100, height: 30, command: deviceCommand("Alpha", kind: "laptop")),
        let b = try TmuxSession(width: 100, height: 30, command: deviceCommand("Beta", kind: "phone"))
    else {
        throw BenchFailure.missing("tmux")
    }
    defer {
        a.close()
        b.close()
    }
    try a.waitFor("Beta nearby", timeout: .seconds(30)) { $0.contains("Beta phone") }
    try a.sendKeys("Enter")
    try a.waitFor("the document list") { $0.contains("A Short Guide to Handoff") }
    try a.sendKeys("Enter")
    try a.waitFor("page 1") { $0.contains("page 1 of") }
    // Alternate next page and previous page: every key changes the screen, saves the position
    // (needsSave) and changes the offer the peer sees.
    let client = try ControlClient(session: a, tmux: tmux)
    let deviceKeys = try keyLatencies(client, pane: a.mainPane, count: options.keys) { $0 % 2 == 0 ? "Space" : "b" }
    client.close()
    let p99 = percentile(deviceKeys, 0.99)
    table.row(
        "key to changed screen p50", String(format: "%.1f ms", percentile(deviceKeys, 0.5)),
        String(format: "%.1f ms", percentile(floorKeys, 0.5)), "", "")
    table.row(
        "key to changed screen p99 (n=\(options.keys))", String(format: "%.1f ms", p99),
        String(format: "%.1f ms", percentile(floorKeys, 0.99)), "≤ 16 ms", p99 <= 16 ? "PASS" : "MISS")

    // Idle CPU: both devices idle, the clock on the screen ticking, beacons refreshing.
    guard let pid = try a.programPID(named: "handoff") else { throw BenchFailure.missing("the device process is gone") }
    try a.sendKeys("Escape")
    try a.waitFor("the document list again") { $0.contains("In the cloud") }
    let cpuBefore = cpuSeconds(of: pid) ?? .nan
    let idleStart = ContinuousClock.now
    Thread.sleep(forTimeInterval: options.idleSeconds)
    let elapsed = milliseconds(ContinuousClock.now - idleStart) / 1000
    let cpuAfter = cpuSeconds(of: pid) ?? .nan
    let idlePercent = (cpuAfter - cpuBefore) / elapsed * 100
    table.row(
        String(format: "idle CPU over %.0f s", elapsed), String(format: "%.2f %% of a core", idlePercent), "0 %",
        "≤ 1 %", idlePercent <= 1 ? "PASS" : "MISS")

    let rss = (statusKilobytes("VmRSS", of: pid) ?? .nan) / 1024
    let peak = (statusKilobytes("VmHWM", of: pid) ?? .nan) / 1024
    let anonymous = (statusKilobytes("RssAnon", of: pid) ?? .nan) / 1024
    table.row(
        "resident memory (peak)", String(format: "%.1f MB (%.1f MB)", rss, peak), "", "≤ 40 MB",
        peak <= 40 ? "PASS" : "MISS")
    table.row(
        "  of which private (RssAnon)", String(format: "%.1f MB", anonymous), "", "≤ 10 MB",
        anonymous <= 10 ? "PASS" : "MISS")

    // A 5 MB document that the continuing device does not have: it arrives over continuation
    // streams (a no-cloud device). Floor: the same bytes through a local socket pair.
    guard
        let c = try TmuxSession(width: 100, height: 30, command: deviceCommand("Gamma", kind: "phone") + " --no-cloud")
    else {
        throw BenchFailure.missing("tmux")
    }
    defer { c.close() }
    try c.waitFor("Alpha nearby on Gamma", timeout: .seconds(30)) { $0.contains("Alpha laptop") }
    // The document goes into the account's cloud folder (sorted first) only now, so that the rows
    // above measure the device with the sample documents.
    let cloud = folder.appendingPathComponent("config/\(account)/cloud", isDirectory: true)
    let bigDocument = makeBigDocument(bytes: 5_000_000)
    try Data(bigDocument.utf8).write(to: cloud.appendingPathComponent("aaa-big-book.txt"))
    try a.sendKeys("r")
    try a.waitFor("the big book in the list", timeout: .seconds(30)) { $0.contains("A Big Book") }
    for _ in 0..<6 { try a.sendKeys("Up") }
    try a.sendKeys("Enter")
    try a.waitFor("the big book", timeout: .seconds(30)) { $0.contains("A Big Book") && $0.contains("page 1 of") }
    try c.waitFor("the offer on Gamma", timeout: .seconds(10)) { $0.contains("Reader from Alpha") }
    guard
        let transferMilliseconds = try millisecondsUntil(
            c, timeout: .seconds(60), after: { try c.sendKeys("C-o") },
            {
                $0.contains("A Big Book") && $0.contains("page 1 of")
            })
    else { throw BenchFailure.missing("the big book never showed on Gamma") }
    let transferSeconds = transferMilliseconds / 1000
    let size = Double(bigDocument.utf8.count)
    let floorSeconds = socketPairSeconds(bytes: bigDocument.utf8.count)
    table.row(
        "5 MB document over streams",
        String(format: "%.0f MB/s (%.0f ms)", size / transferSeconds / 1e6, transferSeconds * 1000),
        String(format: "%.0f MB/s", size / floorSeconds / 1e6), "≤ 100 ms", transferSeconds <= 0.1 ? "PASS" : "MISS")

    // The inspector (F10) on Gamma after that continuation: changing tabs redraws the userInfo
    // tree, the payload's fields or the beacon's (the same key-to-screen budget as the device).
    try c.sendKeys("F10")
    try c.waitFor("the inspector on Gamma") { $0.contains("Inspector · Continuation") && $0.contains("Receiver Gamma") }
    let inspectorClient = try ControlClient(session: c, tmux: tmux)
    let inspectorKeys = try keyLatencies(inspectorClient, pane: c.mainPane, count: options.keys) {
        $0 % 2 == 0 ? "Right" : "Left"
    }
    inspectorClient.close()
    try c.sendKeys("Escape")
    let inspectorP99 = percentile(inspectorKeys, 0.99)
    table.row(
        "inspector F10: tab to screen p99", String(format: "%.1f ms", inspectorP99),
        String(format: "%.1f ms", percentile(floorKeys, 0.99)), "≤ 16 ms", inspectorP99 <= 16 ? "PASS" : "MISS")

    // The timeline (F9) on Gamma after that continuation: each key selects another event, which
    // redraws the diagram and the event's detail.
    try c.sendKeys("F9")
    try c.waitFor("the timeline on Gamma") { $0.contains("Timeline · continuation") }
    let timelineClient = try ControlClient(session: c, tmux: tmux)
    let timelineKeys = try keyLatencies(timelineClient, pane: c.mainPane, count: options.keys) {
        $0 % 2 == 0 ? "Up" : "Down"
    }
    timelineClient.close()
    try c.sendKeys("Escape")
    let timelineP99 = percentile(timelineKeys, 0.99)
    table.row(
        "timeline (F9) key to screen p99", String(format: "%.1f ms", timelineP99),
        String(format: "%.1f ms", percentile(floorKeys, 0.99)), "≤ 16 ms", timelineP99 <= 16 ? "PASS" : "MISS")

    // A 100 MB document opened from the list on Alpha. Floor: `head` printing the file's first
    // screenful in a tmux pane (a shell waiting with the command typed; Enter is timed).
    let hugeURL = cloud.appendingPathComponent("aaa-huge-book.txt")
    try writeHugeDocument(bytes: 100_000_000, to: hugeURL)
    let hugeSize = (try? FileManager.default.attributesOfItem(atPath: hugeURL.path)[.size] as? Int) ?? 0
    guard let shell = try TmuxSession(width: 100, height: 30, command: "exec sh") else {
        throw BenchFailure.missing("tmux")
    }
    defer { shell.close() }
    var headTimes: [Double] = []
    for _ in 0..<5 {
        try shell.sendKeys("clear", "Enter")
        try shell.waitFor("a clear screen") { $0.trimmingCharacters(in: .whitespacesAndNewlines).count <= 2 }
        // 12 lines fill about 18 rows of the 30: the first screenful, nothing scrolled away.
        try shell.sendText("head -n 12 '\(hugeURL.path)'")
        guard
            let time = try millisecondsUntil(
                shell, timeout: .seconds(10), after: { try shell.sendKeys("Enter") },
                {
                    $0.contains("Paragraph 2.")
                })
        else { throw BenchFailure.missing("head never showed the huge book") }
        headTimes.append(time)
    }
    try a.sendKeys("Escape")
    try a.waitFor("the document list on Alpha", timeout: .seconds(30)) { $0.contains("In the cloud") }
    try a.sendKeys("r")
    try a.waitFor("the huge book in the list", timeout: .seconds(60)) {
        $0.contains("A Huge Book") || $0.contains("aaa-huge-book")
    }
    try a.sendKeys("Home")
    var openTimes: [Double] = []
    var refusal: String?
    for _ in 0..<5 {
        guard
            let time = try millisecondsUntil(
                a, timeout: .seconds(60), after: { try a.sendKeys("Enter") },
                {
                    ($0.contains("page 1 of") && $0.contains("Paragraph 2.")) || $0.contains("could not be read")
                })
        else { throw BenchFailure.missing("the huge book never opened on Alpha") }
        let screen = try a.capture()
        if screen.contains("could not be read") {
            refusal = screen.split(separator: "\n").first { $0.contains("could not be read") }.map { String($0) }
            break
        }
        openTimes.append(time)
        try a.sendKeys("Escape")
        try a.waitFor("the document list on Alpha", timeout: .seconds(30)) { $0.contains("In the cloud") }
    }
    let hugeName = "100 MB document, first page (p50)"
    let headFloor = String(format: "%.0f ms (head)", percentile(headTimes, 0.5))
    if let refusal {
        table.row(hugeName, "refused", headFloor, "≤ 50 ms", "MISS")
        table.note("  " + refusal.trimmingCharacters(in: .whitespaces))
    } else {
        let open = percentile(openTimes, 0.5)
        table.row(hugeName, String(format: "%.0f ms", open), headFloor, "≤ 50 ms", open <= 50 ? "PASS" : "MISS")
    }

    table.note("")
    table.note("Stream row: from Ctrl-O on a device without the document until it shows page 1 (continue, open")
    table.note("streams, request, receive, lay out and show); floor: the same bytes through a local socket pair.")
    table.note(
        String(
            format:
                "100 MB row (%.1f MB): from Enter on the document in the list until its first page shows, median of 5; floor: `head`",
            Double(hugeSize) / 1e6))
    table.note(
        "printing the file's first 12 lines in a tmux pane, median of 5. Both are polled with tmux captures, about 1 ms apart."
    )
    table.note("Key times: a tmux control client sends the key and waits for the pane's first output; the floor")
    table.note("is `cat` (the kernel echoes the key). First frame: tmux starts the program and a control client")
    table.note("captures the screen at once and after each output until the frame shows; the floor is `echo ready`")
    table.note("seen the same way. The difference is the device's own time.")
    table.printJSON()
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
