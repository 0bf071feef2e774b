import Foundation
import HandoffCore
import HandoffProcesses
import HandoffTestSupport
import Testing

/// Your own apps and your own activity between two real headless devices: a Mac app made current
/// from an activity file (`--activity`) at start, continued into its iPhone app (a SwiftUI app
/// whose generated scene manifest names no delegate) by its bundle identifier.
@Suite(
    "Activity files and own apps end to end", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil))
struct ActivityFileEndToEndTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("HandoffManifestTests/Fixtures")
    static let macApp = fixtures.appendingPathComponent("manifests/NotesPair/NotesMac/Info.plist").path
    static let phoneApp = fixtures.appendingPathComponent("manifests/NotesPair/NotesPhone/Info.plist").path
    static let note = fixtures.appendingPathComponent("activities/note.plist").path

    @Test func theFilesActivityContinuesIntoTheOtherDevicesAppWithItsUserInfo() throws {
        let world = try HeadlessProcessWorld(fetchTimeout: 5)
        let mac = try world.start(
            "Mac", kind: "laptop", extra: ["--apps", "browser", "--app", Self.macApp, "--activity", Self.note])
        // The file's activity was made current in the Mac app before the network started.
        let made = try #require(
            mac.waitForMessage(timeout: 10) { $0["event"] == "activity-file" },
            "no activity-file event: \(mac.lastRawLines(10).joined(separator: "\n"))")
        #expect(made["app"] == "com.example.notes.mac")
        #expect(made["type"] == "com.example.notes.editing")
        #expect(made["current"] == true)
        #expect(made["file"] == .string(Self.note))

        let phone = try world.start("Phone", extra: ["--apps", "browser", "--app", Self.phoneApp])
        let macID = try #require(world.id(of: mac))
        _ = try #require(
            phone.waitForMessage(timeout: 15) { $0["event"] == "lifecycle" && $0["kind"] == "offerReceived" },
            "no offer: \(phone.lastRawLines(10).joined(separator: "\n"))")
        // The iPhone app is a SwiftUI app: scenes, with SwiftUI's delegate standing in.
        let mark = phone.receivedMessages.count
        try phone.send(["cmd": "status", "id": "s"])
        let status = try #require(phone.waitForMessage(after: mark, timeout: 10) { $0["id"] == "s" })
        let apps = status["apps"]?.arrayValue ?? []
        let notes = try #require(apps.first { $0["bundle"] == "com.example.notes" })
        #expect(notes["model"] == "swiftui")
        #expect(notes["usesScenes"] == true)

        try phone.send(["cmd": "continue", "peer": macID])
        let restored = try #require(
            phone.waitForMessage(after: mark, timeout: 20) { $0["event"] == "restored" },
            "not restored: \(phone.lastRawLines(20).joined(separator: "\n"))")
        #expect(restored["app"] == "com.example.notes")
        #expect(restored["type"] == "com.example.notes.editing")
        #expect(restored["title"] == "Groceries")
        let info = try #require(restored["userInfo"])
        #expect(info["noteID"] == 42)
        #expect(info["cursor"] == 12.5)
        #expect(info["pinned"] == true)
        #expect(info["body"] == "milk, eggs")
        #expect(info["thumbnail"] == ["$data": "AAEC/w=="])
        #expect(info["tags"] == ["home", "weekly"])
        #expect(info["position"] == ["line": 3])
        #expect(info.objectValue?.count == 7)
        // The system counted it continued, and the Mac was told.
        _ = try #require(
            phone.waitForMessage(after: mark, timeout: 10) { $0["event"] == "lifecycle" && $0["kind"] == "continued" })
        _ = try #require(
            mac.waitForMessage(timeout: 10) { $0["event"] == "continued-elsewhere" },
            "the Mac was not told: \(mac.lastRawLines(10).joined(separator: "\n"))")
    }
}
