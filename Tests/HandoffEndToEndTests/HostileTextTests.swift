import Foundation
import HandoffCore
import HandoffProcesses
import HandoffRecordings
import HandoffTestSupport
import Testing

/// Text that came from elsewhere (a recording someone handed over, a peer's name) reaches the
/// terminal only through the sanitizer: an escape sequence in it is shown, never obeyed.
@Suite("Hostile text on the terminal", .tags(.endToEnd), .ownThread, .enabled(if: HandoffExecutable.url != nil))
struct HostileTextTests {
    @Test func aRecordingWithEscapeSequencesPrintsThemAsCodePoints() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = "Lap\u{1B}]0;owned\u{7}top\u{1B}[2J"
        let device = PeerInfo(id: "8d3e5c1a-0b6f-4e2a-9c7d-1f2e3a4b5c6d", name: name, kind: .laptop)
        let file = folder.appendingPathComponent("laptop.jsonl").path
        let recorder = try LifecycleRecorder(path: file, device: device, account: "demo")
        let activity = ActivityReference(
            id: UUID(), activityType: "com.example.\u{1B}[31mred", title: "Title\u{9B}2J",
            bundleIdentifier: "com.example.notes")
        let identity = AdvertisementIdentity(
            device: device.id, serial: 1, activityTypeHash: ActivityTypeHash(activityType: "com.example.notes"))
        recorder.record(LifecycleEvent(time: Date(), device: name, .advertised(activity, identity, isEligible: true)))
        withExtendedLifetime(recorder) {}

        let output = folder.appendingPathComponent("printed.txt")
        let child = try ChildProcess(
            executable: try #require(HandoffExecutable.url).path, arguments: ["timeline", file, "--print"],
            standardOutput: .file(output.path), standardError: .standardOutput)
        #expect(child.waitForExit() == .exited(0))
        let printed = try Data(contentsOf: output)
        #expect(!printed.contains(0x1B) && !printed.contains(0x07), "no escape or bell reaches the terminal")
        #expect(!String(decoding: printed, as: UTF8.self).contains("\u{9B}"), "no C1 CSI either")
        #expect(String(decoding: printed, as: UTF8.self).contains("\\u{1b}"), "shown as code points")
    }
}
