import ArgumentParser
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
            detail (what Apple does at that step, its fields) is below the lanes, or beside them \
            on a wide terminal.

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
        let recordings: [LifecycleRecording]
        do {
            recordings = try LifecycleRecording.load(files)
        } catch {
            FileHandle.standardError.write(Data("handoff timeline: \(error)\n".utf8))
            throw ExitCode(1)
        }
        for recording in recordings where recording.skippedBytes > 0 {
            let megabytes = LifecycleRecording.maximumBytes / (1024 * 1024)
            FileHandle.standardError.write(
                Data(
                    ("handoff timeline: \(recording.file): its first \(ByteCount.text(recording.skippedBytes)) "
                        + "of events are left out; the timeline shows its last \(megabytes) MiB.\n").utf8))
        }
        let timeline = Timeline(recordings: recordings, continuation: continuation)
        let outputs: [(path: String?, make: () -> String)] = [
            (svg, timeline.svg), (mermaid, timeline.mermaid), (trace, timeline.trace),
        ]
        for case (let path?, let make) in outputs {
            do {
                try Data(make().utf8).write(to: URL(fileURLWithPath: path))
            } catch {
                FileHandle.standardError.write(Data("handoff timeline: \(Self.cannotWrite(path, error))\n".utf8))
                throw ExitCode(2)
            }
        }
        let writesFiles = outputs.contains { $0.path != nil }
        if !print, !writesFiles, isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 {
            do {
                try TimelineReplayTerminal.run(timeline)
            } catch {
                FileHandle.standardError.write(Data("handoff timeline: \(error)\n".utf8))
                throw ExitCode(1)
            }
            return
        }
        if print || !writesFiles {
            // Recordings are files anyone may hand over: what they say reaches the terminal only
            // through the sanitizer. The lanes are drawn as the replay and F9 draw them, each
            // event's text wrapped within its lane.
            let text = TimelineReplayView.lanes(of: timeline).text(laneWidth: laneWidth)
            FileHandle.standardOutput.write(Data(TerminalText.sanitized(text, keepingLines: true).utf8))
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
