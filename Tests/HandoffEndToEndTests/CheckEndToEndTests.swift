import Foundation
import HandoffCore
import HandoffProcesses
import HandoffRecordings
import HandoffTestSupport
import Testing

/// `handoff check` as a user runs it: 0 for recordings that keep Apple's rules, 1 with each
/// violation printed, 2 for a recording that cannot be read (the file and the line named).
@Suite("handoff check end to end", .tags(.endToEnd), .ownThread, .enabled(if: HandoffExecutable.url != nil))
struct CheckEndToEndTests {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let laptop = PeerInfo(id: "laptop-id", name: "Laptop", kind: .laptop)
    static let phone = PeerInfo(id: "phone-id", name: "Phone", kind: .phone)
    static let activity = ActivityReference(
        id: UUID(uuidString: "11111111-2222-3333-4444-555555555555")!, activityType: "com.example.reader.reading",
        bundleIdentifier: "com.example.reader")
    static let identity = AdvertisementIdentity(
        device: laptop.id, serial: 1, activityTypeHash: ActivityTypeHash(activityType: activity.activityType))

    /// The laptop advertises its current activity and the phone hears it; when `resigned`, the
    /// laptop advertises it after resigning it (breaking only-current-offered).
    static func recordings(in folder: URL, resigned: Bool, phoneAccount: String = "demo") throws -> [String] {
        func at(_ ms: Int, _ device: PeerInfo, _ occurrence: LifecycleEvent.Occurrence) -> LifecycleEvent {
            LifecycleEvent(time: start.addingTimeInterval(Double(ms) / 1000), device: device.name, occurrence)
        }
        let laptopEvents =
            [at(0, laptop, .activityCreated(activity)), at(10, laptop, .becameCurrent(activity))]
            + (resigned ? [at(20, laptop, .resignedCurrent(activity))] : [])
            + [at(30, laptop, .advertised(activity, identity, isEligible: true))]
        let route = Route.app(bundleIdentifier: "com.example.reader", activityType: activity.activityType)
        let phoneEvents = [at(40, phone, .offerReceived(PeerReference(laptop), identity, route: route))]
        var paths: [String] = []
        for (device, events, account) in [(laptop, laptopEvents, "demo"), (phone, phoneEvents, phoneAccount)] {
            let path = folder.appendingPathComponent("\(device.name).jsonl").path
            let recorder = try LifecycleRecorder(path: path, device: device, account: account)
            for event in events { recorder.record(event) }
            paths.append(path)
        }
        return paths
    }

    func run(_ arguments: [String], in folder: URL) throws -> (status: Int32, output: String, error: String) {
        let executable = try #require(HandoffExecutable.url)
        let output = folder.appendingPathComponent("out").path
        let error = folder.appendingPathComponent("err").path
        let process = try ChildProcess(
            executable: executable.path, arguments: arguments, standardOutput: .file(output),
            standardError: .file(error))
        let termination = try #require(process.waitForExit(timeout: 60), "handoff check did not end")
        return (
            termination.status, try String(contentsOfFile: output, encoding: .utf8),
            try String(contentsOfFile: error, encoding: .utf8)
        )
    }

    @Test func exitStatusesSayKeptBrokenOrUnreadable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("check-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let kept = try run(["check"] + Self.recordings(in: folder, resigned: false), in: folder)
        #expect(kept.status == 0, "\(kept.output)\(kept.error)")
        #expect(
            kept.output.contains("15 rules, 4 events of 2 devices (Laptop, Phone): no violation."), "\(kept.output)")

        let broken = try run(["check"] + Self.recordings(in: folder, resigned: true), in: folder)
        #expect(broken.status == 1, "\(broken.output)\(broken.error)")
        for text in [
            "only-current-offered: A device offers only its current activity",
            "  source: handoff-programming-guide.txt, User Activity Object",
            "  Laptop advertised com.example.reader.reading (com.example.reader) while no activity is current",
            "  Laptop #3 2026-11-18T", "resignedCurrent com.example.reader.reading",
            "1 violation of 1 rule.",
        ] {
            #expect(broken.output.contains(text), "\(text): \(broken.output)")
        }

        let notJSON = folder.appendingPathComponent("not-json.jsonl").path
        try "{\"recording\":\"handoff-lifecycle\",\"version\":1,\"device\":\"A\",\"account\":\"demo\"}\nnot json\n"
            .write(toFile: notJSON, atomically: true, encoding: .utf8)
        let unreadable = try run(["check", notJSON], in: folder)
        #expect(unreadable.status == 2)
        #expect(unreadable.error.hasPrefix("handoff check: \(notJSON):2: not JSON"), "\(unreadable.error)")

        let mixed = try Self.recordings(in: folder, resigned: false, phoneAccount: "work")
        let accounts = try run(["check"] + mixed, in: folder)
        #expect(accounts.status == 2)
        #expect(accounts.error.contains("\(mixed[1]):1: Phone is in account work"), "\(accounts.error)")
    }
}
