import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// The README's "Walkthrough: rehearse your own app", with the files of `demos/own-app` and the
/// commands it gives: the doctor's verdict on the pair and on the broken note, then the two
/// devices continuing the note from the Mac app into the iPhone app.
@Suite(
    "README: rehearse your own app", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct OwnAppWalkthroughTests {
    /// `handoff ARGUMENTS` from the repository's root (where the README's paths start).
    static func handoff(_ command: String) throws -> (status: Int32, output: String) {
        #expect(Readme.says(command), "README.md no longer says: \(command)")
        // The README's paths start at the repository's root.
        let arguments = command.split(separator: " ").dropFirst().map { argument in
            argument.hasPrefix("demos/") ? Readme.root.appendingPathComponent(String(argument)).path : String(argument)
        }
        let executable = try #require(HandoffExecutable.url)
        let (termination, output) = try ChildProcess.run(executable.path, arguments)
        if case .exited(let code) = termination { return (code, output) }
        return (-1, output)
    }

    @Test func theDoctorThenTwoDevicesRehearseTheNotesPair() throws {
        let kept = try Self.handoff(
            "handoff doctor --origin demos/own-app/NotesMac --receiver demos/own-app/NotesPhone --activity demos/own-app/note.plist"
        )
        #expect(kept.status == 0, "\(kept.output)")
        #expect(kept.output.contains("Verdict: continues in com.example.notes"), "\(kept.output)")
        #expect(kept.output.contains("warning scene-cold-launch-carries-type"), "\(kept.output)")

        let broken = try Self.handoff(
            "handoff doctor --origin demos/own-app/NotesMac --receiver demos/own-app/NotesPhone --activity demos/own-app/viewing.plist"
        )
        #expect(broken.status == 1, "\(broken.output)")
        #expect(broken.output.contains("does not continue"), "\(broken.output)")
        #expect(broken.output.contains("error type-claimed"), "\(broken.output)")
        #expect(broken.output.contains("NSUserActivityTypes: com.example.notes.editing"), "\(broken.output)")

        // Step 3, in two terminals (the world gives each a private account, port and folders).
        #expect(
            Readme.says("handoff device --kind laptop --app demos/own-app/NotesMac --activity demos/own-app/note.plist")
        )
        #expect(Readme.says("handoff device --kind phone --app demos/own-app/NotesPhone"))
        let own = Readme.root.appendingPathComponent("demos/own-app")
        let world = try TerminalDevicesWorld()
        let laptop = try world.start(
            "Laptop 1", kind: "laptop", width: 100, height: 30,
            extra: [
                "--app", own.appendingPathComponent("NotesMac").path, "--activity",
                own.appendingPathComponent("note.plist").path,
            ], expecting: "Notes for Mac")
        let phone = try world.start(
            "Phone 1", kind: "phone", width: 80, height: 24,
            extra: ["--app", own.appendingPathComponent("NotesPhone").path], expecting: "Notes")
        // "Open Notes for Mac from the home screen": its number key, as the home screen labels it.
        let home = try laptop.capture()
        let key = try #require(
            home.split(separator: "\n").lazy.compactMap { line -> Character? in
                guard let range = line.range(of: " Notes") else { return nil }
                return line[..<range.lowerBound].last(where: \.isNumber)
            }.first, "no number under Notes for Mac:\n\(home)")
        try laptop.sendKeys(String(key))
        try laptop.waitFor("the note's tree", timeout: .seconds(10)) {
            $0.contains("com.example.notes.editing") && $0.contains("3 KB guidance")
        }
        try laptop.sendKeys("c")
        try phone.waitFor("the offer on the phone", timeout: .seconds(15)) { $0.contains("Notes from Laptop 1") }
        try phone.sendKeys("C-o")
        try phone.waitFor("the continued note", timeout: .seconds(15)) {
            $0.contains("Continued from Laptop 1") && $0.contains("milk, eggs")
        }
    }
}
