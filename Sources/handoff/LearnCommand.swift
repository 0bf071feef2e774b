import ArgumentParser
import Foundation
import HandoffCore
import HandoffLessons
import HandoffNetwork
import HandoffRecordings
import HandoffRules
import HandoffWeb

#if canImport(Glibc)
import Glibc
#endif

/// `handoff learn`: guided lessons on the two-device demo. Each lesson is a file of
/// `demos/lessons` (docs/lessons.md); its goal is checked live against both devices' recorded
/// lifecycle by the lesson pane, which says when it is met and what happened.
struct LearnCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "learn",
        abstract: "Learn Handoff in guided lessons on two devices, each goal checked live.",
        discussion: """
            `handoff learn` starts the next lesson not yet done: the lesson's demo (as `handoff demo`) \
            with a lesson pane below the devices that shows the goal, checks it against both devices' \
            lifecycle as you go (any way of getting there counts), gives a hint after a while, and \
            says what happened once the goal is met. At 80x24 the pane is one line (the goal); zoom \
            it with tmux's Ctrl-B z to read the lesson. `handoff learn N` starts lesson N; \
            `--list` lists them with your progress ($XDG_STATE_HOME/handoff/lessons.json); \
            `--check` validates lesson files (a teacher's copy: `--lessons DIR`).
            """)

    @Argument(help: "The lesson to start (default: the first not done).")
    var number: Int?

    @Flag(help: "List the lessons and which are done.")
    var list = false

    @Flag(help: "Only check that the lesson files are valid (exit 2 when one is not).")
    var check = false

    @Option(help: ArgumentHelp("The folder of lesson files (default: demos/lessons).", valueName: "dir"))
    var lessons: String?

    @Option(help: "The account the lesson's devices sign in to.")
    var account = "demo"

    @Option(help: "The shared UDP discovery port.")
    var port = NetworkOptions.defaultDiscoveryPort

    @Option(help: ArgumentHelp("The terminal's size, e.g. 120x40 (default: measured).", valueName: "WxH"))
    var terminalSize: String?

    @Flag(help: "Print the tmux command instead of running it.")
    var dryRun = false

    @Option(help: .hidden)
    var pane: Int?

    @Option(help: .hidden)
    var recordings: String?

    func run() throws {
        let folder = try Self.lessonsFolder(lessons)
        let course: [Lesson]
        do {
            course = try LessonFile.load(folder: folder, stories: Set(DemoStory.all.map(\.name)))
        } catch {
            Self.fail("handoff learn: \(error)")
        }
        if check {
            print("\(course.count) lessons in \(folder.path): valid.")
            return
        }
        var progress = LessonsProgress.load()
        if list {
            for lesson in course {
                let mark = progress.done.contains(lesson.number) ? "✓" : " "
                print("\(mark) \(String(format: "%2d", lesson.number)). \(lesson.title)  [\(lesson.story)]")
                print("      \(lesson.goal)")
            }
            print("\(progress.done.intersection(course.map(\.number)).count) of \(course.count) done.")
            return
        }
        if let pane, let recordings {
            guard let lesson = course.first(where: { $0.number == pane }) else {
                Self.fail("handoff learn: no lesson \(pane)")
            }
            // The closure captures the lesson's number, not the lesson the panel consumes: capturing
            // both crashes Swift 6.3.1's optimizer (CopyPropagation: "Found outside of lifetime
            // use"), so a release build of this executable failed.
            let number = lesson.number
            var panel = LessonPanel(lesson: lesson, count: course.count, folder: URL(fileURLWithPath: recordings))
            panel.run { progress.markDone(number) }
            return
        }
        let chosen = number ?? course.first(where: { !progress.done.contains($0.number) })?.number ?? 1
        guard let lesson = course.first(where: { $0.number == chosen }) else {
            Self.fail("handoff learn: there is no lesson \(chosen) (1 to \(course.count); handoff learn --list)")
        }
        var arguments = [
            "demo", lesson.story, "--lesson", String(lesson.number), "--lessons", folder.path, "--account", account,
            "--port", String(port),
        ]
        if let terminalSize { arguments += ["--terminal-size", terminalSize] }
        if dryRun { arguments.append("--dry-run") }
        let demo = try DemoCommand.parse(arguments.dropFirst().map { $0 })
        try demo.run()
    }

    /// The lessons folder: the one given, else `demos/lessons` in the current folder or in the
    /// checkout the executable was built in.
    static func lessonsFolder(_ given: String?) throws -> URL {
        if let given { return URL(fileURLWithPath: given) }
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
            "demos/lessons")
        if FileManager.default.fileExists(atPath: here.path) { return here }
        var candidate = URL(fileURLWithPath: DemoCommand.currentExecutable()).deletingLastPathComponent()
        for _ in 0..<5 {
            let lessons = candidate.appendingPathComponent("demos/lessons")
            if FileManager.default.fileExists(atPath: lessons.path) { return lessons }
            candidate.deleteLastPathComponent()
        }
        fail("handoff learn: no demos/lessons here or beside the executable; give --lessons DIR")
    }

    /// Prints `message` (which names the command) on standard error and exits with status 2.
    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
        Foundation.exit(2)
    }
}

/// The lessons a learner has done: `$XDG_STATE_HOME/handoff/lessons.json`.
struct LessonsProgress: Codable {
    var done: Set<Int> = []

    static var file: URL { WebFolder.stateFolder().appendingPathComponent("lessons.json") }

    static func load() -> LessonsProgress {
        guard let data = try? Data(contentsOf: file), data.count < 64 * 1024,
            let progress = try? JSONDecoder().decode(LessonsProgress.self, from: data)
        else { return LessonsProgress() }
        return progress
    }

    mutating func markDone(_ number: Int) {
        var latest = Self.load()
        latest.done.insert(number)
        self = latest
        try? FileManager.default.createDirectory(
            at: Self.file.deletingLastPathComponent(), withIntermediateDirectories: true)
        if let data = try? JSONEncoder().encode(self) { try? data.write(to: Self.file, options: .atomic) }
    }
}

/// The lesson pane: reads the devices' recordings in `folder` twice a second, judges the goal,
/// and draws the lesson in the pane's size (one line at the smallest).
struct LessonPanel {
    let lesson: Lesson
    let count: Int
    let folder: URL
    var start = Date()

    /// What has been read of one device's recording: its header line, how far, and its events.
    struct RecordingSoFar {
        var header = Data()
        var offset: UInt64 = 0
        var device = ""
        var events: [LifecycleEvent] = []
    }

    /// Each recording read so far, by file name.
    var recordings: [String: RecordingSoFar] = [:]

    /// The lifecycles recorded so far. Each tick reads only what was appended since the last one,
    /// up to its last complete line (a partly written line is left for the next read).
    mutating func lifecycles() -> [(device: String, events: [LifecycleEvent])] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
            $0.hasSuffix(".jsonl")
        }.sorted()
        for name in names { readNewLines(of: name) }
        return names.compactMap { name in
            recordings[name].flatMap { $0.header.isEmpty ? nil : ($0.device, $0.events) }
        }
    }

    private mutating func readNewLines(of name: String) {
        let path = folder.appendingPathComponent(name).path
        var so = recordings[name] ?? RecordingSoFar()
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: so.offset)) != nil, let appended = try? handle.readToEnd(),
            let end = appended.lastIndex(of: 0x0A)
        else { return }
        let complete = appended[...end]
        var text = complete
        if so.header.isEmpty {
            // The first read: the header line, then the events.
            so.header = Data(complete[...(complete.firstIndex(of: 0x0A) ?? end)])
        } else {
            text = so.header + complete
        }
        guard let recording = try? LifecycleRecording(data: Data(text), file: path),
            let events = try? recording.lifecycleEvents()
        else { return }
        so.device = recording.device
        so.events += events
        so.offset += UInt64(complete.count)
        recordings[name] = so
    }

    mutating func run(done: () -> Void) {
        var reported = false
        var shown = ""
        while true {
            let progress = lesson.progress(lifecycles())
            let size = Self.paneSize()
            let text = lines(progress, width: size.width, height: size.height).joined(separator: "\n")
            // Drawn again only when it changed: clearing the pane twice a second made it flicker.
            let frame = "\(size.width)x\(size.height)\n" + text
            if frame != shown {
                FileHandle.standardOutput.write(Data(("\u{1B}[H\u{1B}[2J" + text).utf8))
                shown = frame
            }
            if progress.isMet, !reported {
                done()
                reported = true
            }
            usleep(500_000)
        }
    }

    /// The pane's text for `progress` in `width` x `height`.
    func lines(_ progress: LessonProgress, width: Int, height: Int) -> [String] {
        let state: String
        if progress.isMet {
            state = "✓ done"
        } else if progress.mistake != nil {
            state = "✗ not this way"
        } else {
            state = "\(progress.met.count)/\(lesson.steps.count)"
        }
        let head = "Lesson \(lesson.number)/\(count) · \(state) · \(lesson.goal)"
        if height <= 2 {
            return [Self.clip(head + (height == 2 ? "" : "  (Ctrl-B z: the lesson)"), width)]
                + (height == 2
                    ? [Self.clip("Ctrl-B z zooms this pane to read the lesson; q in the devices quits", width)] : [])
        }
        let essential =
            [Self.clip("Lesson \(lesson.number) of \(count): \(lesson.title)  [\(state)]", width)]
            + Self.wrap("Goal: \(lesson.goal)", width)
        var out: [String] = []
        for paragraph in lesson.text { out += [""] + Self.wrap(paragraph, width) }
        if out.first == "" { out.removeFirst() }
        out.append("")
        out += Self.wrap("Teaches: \(lesson.teaches)", width)
        if let id = lesson.rule, let rule = RuleBook.rule(id: id) {
            out += Self.wrap("Rule \(rule.id): \(rule.sentence) (\(rule.source))", width)
        }
        if let source = lesson.source { out += Self.wrap("Source: \(source)", width) }
        if let mistake = progress.mistake {
            out +=
                [""]
                + Self.wrap(
                    "✗ \(mistake.device): \(mistake.event.logLine) — not the way this lesson asks; start again.", width)
        } else if progress.isMet {
            out += [""] + Self.wrap("✓ Goal met. What happened:", width)
            for (device, event) in progress.met { out += Self.wrap("  \(device): \(event.logLine)", width) }
            out += Self.wrap(
                lesson.number < count ? "Next: handoff learn \(lesson.number + 1)" : "That was the last lesson.", width)
        } else {
            if let next = progress.next { out += [""] + Self.wrap("Waiting for: \(next)", width) }
            if Date().timeIntervalSince(start) >= lesson.hintAfter { out += Self.wrap("Hint: \(lesson.hint)", width) }
        }
        // The head and the goal always show; then the end matters most (the state, the hint).
        let room = max(0, height - essential.count)
        return Array((essential + (out.count > room ? Array(out.suffix(room)) : out)).prefix(height))
    }

    static func clip(_ text: String, _ width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(0, width - 1))) + "…"
    }

    static func wrap(_ text: String, _ width: Int) -> [String] {
        guard width > 8 else { return [clip(text, width)] }
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
            while line.count > width {
                lines.append(String(line.prefix(width)))
                line = String(line.dropFirst(width))
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    static func paneSize() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return (80, 8) }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}
