import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// One continuation between two real headless processes on loopback: the continuing device's
/// events in Apple's order, one `continuation` on both devices, time never going back, and the
/// userInfo where state moves.
@Suite(
    "One continuation, correlated across two processes", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil))
struct CorrelatedLifecycleTests {
    @Test func bothDevicesTellOneContinuationInAppleOrder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-corr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let executable = try #require(HandoffExecutable.url)
        let account = "c-\(UUID().uuidString.prefix(8).lowercased())"
        let port = DiscoveryPort.random()
        func start(_ name: String, _ kind: String) throws -> HeadlessProcess {
            let process = try HeadlessProcess(
                name: name,
                arguments: [
                    "--kind", kind, "--account", account, "--port", String(port),
                    "--config-dir", directory.path,
                ], executable: executable)
            _ = try #require(
                process.waitFor(timeout: 30) { $0["event"] as? String == "ready" }, "\(name): \(process.standardError)")
            return process
        }
        let laptop = try start("Laptop", "laptop")
        let phone = try start("Phone", "phone")
        defer {
            laptop.terminate()
            phone.terminate()
            try? FileManager.default.removeItem(at: directory)
        }
        try laptop.send([
            "cmd": "become-current", "type": "com.handoffsim.reader.reading", "title": "Moby-Dick",
            "userInfo": ["page": 3],
        ])
        _ = try #require(phone.waitFor(timeout: 20) { $0["kind"] as? String == "offerReceived" })
        try phone.send(["cmd": "continue", "peer": "Laptop"])
        // The whole outcome on both sides: the phone's `continued` and the laptop's `wasContinued`.
        let continued = try #require(
            phone.waitFor(timeout: 20) { $0["kind"] as? String == "continued" },
            "\(phone.lastRawLines(20).joined(separator: "\n"))")
        _ = try #require(
            laptop.waitFor(timeout: 20) { $0["kind"] as? String == "wasContinued" },
            "\(laptop.lastRawLines(20).joined(separator: "\n"))")
        let id = try #require(continued["continuation"] as? String)
        #expect(!id.isEmpty)

        let phoneEvents = phone.received.filter { $0["event"] as? String == "lifecycle" }
        let mine = phoneEvents.filter { $0["continuation"] as? String == id }.compactMap { $0["kind"] as? String }
        // The phone's scripted app was not running: the system launches it cold first.
        #expect(
            mine == [
                "continueChosen", "applicationLaunched", "willContinue", "fetchStarted", "payloadReceived",
                "continueCalled",
                "restoreUserActivityState", "continued",
            ])
        let laptopEvents = laptop.received.filter { $0["event"] as? String == "lifecycle" }
        let theirs = Set(
            laptopEvents.filter { $0["continuation"] as? String == id }.compactMap { $0["kind"] as? String })
        #expect(theirs.isSuperset(of: ["payloadRequested", "payloadSent", "wasContinued"]), "\(theirs.sorted())")
        // The origin saves before the payload only if needsSave is still set (the coalesced save
        // may have run first): one or the other, stamped with the continuation.
        #expect(theirs.contains("saved") != theirs.contains("saveSkipped"), "\(theirs.sorted())")

        for (name, events) in [("Phone", phoneEvents), ("Laptop", laptopEvents)] {
            let times = events.compactMap { $0["time"] as? String }
            #expect(times.count == events.count)
            #expect(times == times.sorted(), "\(name)'s timestamps never decrease")
        }
        let checks: [([[String: Any]], String)] = [
            (laptopEvents, "payloadSent"),
            (phoneEvents, "payloadReceived"), (phoneEvents, "restoreUserActivityState"),
        ]
        for (events, kind) in checks {
            let event = events.first { $0["kind"] as? String == kind && $0["continuation"] as? String == id }
            let userInfo = event?["userInfo"] as? [String: Any]
            #expect((userInfo?["page"] as? NSNumber)?.intValue == 3, "\(kind) carries the userInfo")
        }
    }
}
