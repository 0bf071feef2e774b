import ArgumentParser
import DeviceUI
import Foundation
import HandoffCore
import HandoffRecordings

/// `handoff timeline FILE…`: several devices' recorded lifecycles as one sequence diagram.
struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract:
            "Draw recorded lifecycles (handoff device --record FILE) as one timeline: a lane per device, arrows for what crossed the network.",
        discussion: """
            Give one recording per device of one account. The timeline lists every event in time \
            order in its device's lane; arrows pair what both ends recorded: the beacon that made \
            an offer, the payload request, the payload (or its refusal), continuation streams and \
            "was continued", matched by the continuation's identifier.

            On a terminal, without --print or an output file, the timeline is replayed interactively: \
            → steps to the next event, ← goes back, Space plays forward (and pauses), PgUp/PgDn \
            move a page, Home/End go to the first and last event, q quits; the shown event's \
            detail (the same panel as a device's F9: its time, continuation, error whole, what it \
            sent and received and what that paired with, what Apple does at that step, its userInfo \
            and fields) is below the lanes, or beside them from 120 columns; d or Tab turns its pages.

            Events are in causal order: a message's send comes before its receipt whatever the two \
            clocks say, and a message no lane received is drawn as lost.

            --print writes it as plain text (for documentation, bug reports and CI); --svg FILE \
            draws the same diagram as a picture; --mermaid FILE writes a Mermaid sequence diagram \
            (for docs, slides and issues); --trace FILE writes a Chrome/Perfetto trace (one track \
            per device and app, a span per phase, flow arrows for the messages). Every output \
            shows the same events, --continuation included. Without any and not on a terminal, \
            the text goes to standard output.

            Exit status: 0; 1 when a recording cannot be read (the message names the file and \
            line); 2 when an output file cannot be written.
            """
    )

    @Argument(help: ArgumentHelp("The recordings, one per device.", valueName: "file"))
    var files: [String]

    @Flag(help: "Write the timeline as plain text to standard output.")
    var print = false

    @Option(help: ArgumentHelp("Draw the timeline as an SVG picture into this file.", valueName: "file"))
    var svg: String?

    @Option(help: ArgumentHelp("Write the timeline as a Mermaid sequence diagram into this file.", valueName: "file"))
    var mermaid: String?

    @Option(
        help: ArgumentHelp(
            "Write the timeline as a Chrome/Perfetto trace (trace-event JSON) into this file.", valueName: "file"))
    var trace: String?

    @Option(
        help: ArgumentHelp(
            "Only this continuation (its identifier, or the first characters of it) and the beacon of its offer.",
            valueName: "id"))
    var continuation: String?

    @Option(help: ArgumentHelp("The width of each device's column in the text.", valueName: "columns"))
    var laneWidth = 44

    func validate() throws {
        if files.isEmpty {
            throw ValidationError("Give at least one recording (handoff device --record FILE makes one).")
        }
        if laneWidth < 16 || laneWidth > 400 {
            throw ValidationError("--lane-width must be between 16 and 400, not \(laneWidth).")
        }
    }

    func run() throws {
        do {
            try draw()
        } catch let error as RecordingError {
            FileHandle.standardError.write(Data("handoff timeline: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Draws every output asked for. The recordings are streamed (``TimelineStream``): the text,
    /// the Mermaid diagram and the replay hold a window of events, not the recordings.
    func draw() throws {
        let writesFiles = svg != nil || mermaid != nil || trace != nil
        let replays = !print && !writesFiles && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        if let continuation {
            // One continuation's rows: few, held whole, every output drawn from them.
            let timeline = try TimelineStream.timeline(files: files, continuation: continuation)
            try write(svg, timeline.svg)
            try write(mermaid, timeline.mermaid)
            try write(trace, timeline.trace)
            if replays {
                try runReplay(TimelineReplaySource(timeline: timeline))
            } else if print || !writesFiles {
                let text = TimelineReplayView.lanes(of: timeline).text(laneWidth: laneWidth)
                FileHandle.standardOutput.write(Data(TerminalText.sanitized(text, keepingLines: true).utf8))
            }
            return
        }
        // The picture and the trace are laid out whole (a picture's size comes before its rows,
        // and a trace's events are sorted by time): from each recording's last part when it is long.
        if svg != nil || trace != nil {
            let recordings = try LifecycleRecording.load(files)
            for recording in recordings where recording.skippedBytes > 0 {
                let megabytes = LifecycleRecording.maximumBytes / (1024 * 1024)
                FileHandle.standardError.write(
                    Data(
                        ("handoff timeline: \(recording.file): its first \(ByteCount.text(recording.skippedBytes)) "
                            + "of events are left out of the picture and the trace; they show its last \(megabytes) MiB.\n")
                            .utf8))
            }
            let timeline = Timeline(recordings: recordings)
            try write(svg, timeline.svg)
            try write(trace, timeline.trace)
        }
        if let mermaid {
            var stream = try TimelineStream(files: files)
            try writeStreamed(to: mermaid) { output in
                output.append(Timeline.mermaidHeader(stream.lanes).joined(separator: "\n") + "\n")
                while let row = try stream.next() {
                    let lines = Timeline.mermaidLines(
                        lane: row.lane, event: row.event, arrows: row.arrows.map { ($0.toLane, $0.label) },
                        lost: row.lost.map { ($0.toLane, $0.label) })
                    for line in lines { output.append(line + "\n") }
                }
            }
        }
        if replays {
            try runReplay(TimelineReplaySource(index: try TimelineIndex(files: files)))
            return
        }
        if print || !writesFiles {
            try printStreamed()
        }
    }

    /// `--print`: the lanes as the replay and F9 draw them, each event's text wrapped within its
    /// lane, written as the rows come. Recordings are files anyone may hand over: what they say
    /// reaches the terminal only through the sanitizer.
    func printStreamed() throws {
        // Two windows and a half read ahead: each event laid out about 1.25 times rather than
        // 1.5 (the layout was a sixth of `--print`), for some megabytes more.
        let window = TimelineStream.defaultWindow
        var stream = try TimelineStream(files: files, window: window, readAhead: 2 * window + window / 2)
        let output = BufferedOutput(handle: FileHandle.standardOutput)
        defer { output.flush() }
        // Lanes widened for the longest label of the first batch (every label, for recordings
        // that fit in the window).
        let first = try stream.firstBatch()
        guard !first.isEmpty else {
            let timeline = Timeline(lanes: stream.lanes, rows: [])
            let text = TimelineReplayView.lanes(of: timeline).text(laneWidth: laneWidth)
            output.append(TerminalText.sanitized(text, keepingLines: true))
            return
        }
        let labels = first.flatMap { row in row.sent.map { $0.receipt == nil ? $0.label + " lost" : $0.label } }
        var printer = TimelineTextPrinter(
            lanes: TimelineReplayView.laneNames(stream.lanes), timeWidth: TimelineReplayView.timeWidth,
            laneWidth: laneWidth, labels: labels)
        output.append(TerminalText.sanitized(printer.header(), keepingLines: true))
        var bytes: [UInt8] = []
        while let row = try stream.next() {
            var arrows: [TimelineTextPrinter.Message] = []
            var lost: [TimelineTextPrinter.Message] = []
            for message in row.sent {
                let printed = TimelineTextPrinter.Message(label: message.label, toLane: message.toLane)
                if message.receipt == nil { lost.append(printed) } else { arrows.append(printed) }
            }
            // The detail from the line's bytes: the printer sanitizes what is not narrow text.
            row.event.withDetailUTF8 { detail in
                printer.write(
                    TimelineReplayView.widgetEvent(lane: row.lane, event: row.event, detail: ""), detail: detail,
                    arrows: arrows, lost: lost, into: &bytes)
            }
            if bytes.count >= 64 * 1024 {
                output.append(bytes)
                bytes.removeAll(keepingCapacity: true)
            }
        }
        output.append(bytes)
    }

    func runReplay(_ source: TimelineReplaySource) throws {
        do {
            try TimelineReplayTerminal.run(source)
        } catch let error as RecordingError {
            throw error
        } catch {
            FileHandle.standardError.write(Data("handoff timeline: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Writes `make()` into `path` (nothing without a path); exit status 2 when it cannot be written.
    func write(_ path: String?, _ make: () -> String) throws {
        guard let path else { return }
        do {
            try Data(make().utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            FileHandle.standardError.write(Data("handoff timeline: \(Self.cannotWrite(path, error))\n".utf8))
            throw ExitCode(2)
        }
    }

    /// Writes into `path` what `body` appends, as it appends it; exit status 2 when it cannot be
    /// written, and the file removed when a recording cannot be read on the way.
    func writeStreamed(to path: String, _ body: (BufferedOutput) throws -> Void) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            let error = CocoaError(.fileWriteUnknown)
            FileHandle.standardError.write(Data("handoff timeline: \(Self.cannotWrite(path, error))\n".utf8))
            throw ExitCode(2)
        }
        let output = BufferedOutput(handle: handle)
        do {
            try body(output)
            output.flush()
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
    }

    /// Why `path` cannot be written, in one line: the folder that is missing, a folder in its
    /// place, a folder that cannot be written, or the error.
    static func cannotWrite(_ path: String, _ error: any Error) -> String {
        let files = FileManager.default
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        if !files.fileExists(atPath: folder, isDirectory: &isFolder) || !isFolder.boolValue {
            return "\(path): cannot be written (there is no folder \(folder))"
        }
        if files.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            return "\(path): cannot be written (it is a folder)"
        }
        if !files.isWritableFile(atPath: folder) {
            return "\(path): cannot be written (the folder \(folder) cannot be written)"
        }
        let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
        return "\(path): cannot be written (\(reason.split(separator: "\n").first ?? ""))"
    }
}

/// Text written to a file in blocks of 64 KiB rather than line by line.
final class BufferedOutput {
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    init(handle: FileHandle) {
        self.handle = handle
        buffer.reserveCapacity(80 * 1024)
    }

    func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 64 * 1024 { flush() }
    }

    func append(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 64 * 1024 { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}
