import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// Your own app on real terminal devices (`handoff device --app PATH --activity FILE` in private
/// tmux servers): the Mac app of the Notes pair shows the file's activity, makes it current, and
/// an 80x24 phone continues it into its own app by the app's display name.
@Suite(
    "Own app end to end", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct OwnAppEndToEndTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("HandoffManifestTests/Fixtures")
    static let macApp = fixtures.appendingPathComponent("manifests/NotesPair/NotesMac/Info.plist").path
    static let phoneApp = fixtures.appendingPathComponent("manifests/NotesPair/NotesPhone/Info.plist").path
    static let note = fixtures.appendingPathComponent("activities/note.plist").path

    @Test func theAppsScreenMakesTheFilesActivityCurrentAndThePhoneContinuesIt() throws {
        let world = try TerminalDevicesWorld()
        let mac = try world.start(
            "Alpha", kind: "laptop", width: 100, height: 30,
            extra: ["--apps", "reader", "--app", Self.macApp, "--activity", Self.note], expecting: "Notes for Mac")
        let phone = try world.start(
            "Beta", kind: "phone", width: 80, height: 24, extra: ["--apps", "reader", "--app", Self.phoneApp],
            expecting: "Notes")

        // The laptop opens its Notes (the second app) and sees the file's activity as a tree.
        try mac.sendKeys("2")
        try mac.waitFor("the activity's tree on Alpha", timeout: .seconds(10)) {
            $0.contains("Notes for Mac · com.example.notes.editing") && $0.contains("not made current yet")
                && $0.contains("noteID") && $0.contains("Number(integer)") && $0.contains("3 KB guidance")
        }
        try mac.sendKeys("c")
        try mac.waitFor("the activity current on Alpha", timeout: .seconds(10)) { $0.contains("● current") }

        // The phone is offered it by its own app's name, and continues it there.
        try phone.waitFor("the offer on Beta", timeout: .seconds(15)) { $0.contains("Notes from Alpha") }
        try phone.sendKeys("C-o")
        try TmuxSession.waitUntilSeen(
            [
                .init("the continued activity on Beta", on: phone) {
                    $0.contains("Continued from Alpha") && $0.contains("\"milk, eggs\"")
                        && $0.contains("com.example.notes.editing")
                },
                .init("Alpha saying it was continued", on: mac) { $0.contains("Continued on Beta") },
            ], timeout: .seconds(15))
        try world.waitForLog(
            of: "Beta", containing: ["lifecycle sceneContinue", "com.example.notes", "lifecycle continued"])
    }
}
