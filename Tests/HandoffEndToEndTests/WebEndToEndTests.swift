import Foundation
import HandoffProcesses
import HandoffTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Web → native over the real local web: `handoff web serve` on loopback (HTTPS with the local
/// certificate authority, the hosts map in a private web folder) and two headless devices that
/// fetch association files through it.
@Suite(
    "Web to native over the local web (end to end)", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil))
struct WebEndToEndTests {
    /// `handoff web serve --port 0` with its own web folder, until stopped.
    final class WebServer {
        let process: ChildProcess
        private let buffer = Buffer()

        final class Buffer: Sendable {
            private let data = Mutex(Data())
            func append(_ more: Data) { data.withLock { $0.append(more) } }
            var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }
        }

        init(webDirectory: URL, maxAge: Int) throws {
            let executable: URL = try #require(HandoffExecutable.url)
            process = try ChildProcess(
                executable: executable.path,
                arguments: [
                    "web", "serve", "--port", "0", "--http-port", "0", "--web-dir", webDirectory.path,
                    "--max-age", String(maxAge),
                ],
                standardOutput: .pipe, standardError: .standardOutput)
            let buffer = self.buffer
            drainOnOwnThread(process.standardOutput!, named: "web serve output") { buffer.append($0) }
        }

        var text: String { buffer.text }

        /// Waits until the server says it serves (its hosts map is then written).
        func waitUntilServing(timeout: Duration = .seconds(30)) throws {
            let deadline = ContinuousClock.now + timeout
            while !text.contains("Ctrl-C stops.") {
                if !process.isRunning || ContinuousClock.now >= deadline {
                    throw Failure("handoff web serve did not start: \(text)")
                }
                usleep(20_000)
            }
        }

        /// SIGTERM, then waits for the exit.
        func stop(timeout: Duration = .seconds(10)) throws -> Int32 {
            process.terminate()
            if let termination = process.waitForExit(timeout: Double(timeout.components.seconds)) {
                return termination.status
            }
            process.send(SIGKILL)
            throw Failure("handoff web serve did not stop on SIGTERM")
        }

        deinit {
            process.send(SIGKILL)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static let page = "https://maps.handoffsim.example/?lat=38.7&lon=-9.1&z=6"
    static let mapPlist = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("demos/apps/Map/Info.plist").path

    /// The phone's association event for the Map's domain, after `start`.
    func associationCheck(
        on phone: HeadlessProcess, after start: Int, outcome: String, timeout: TimeInterval = 15
    ) -> [String: Any]? {
        phone.waitForLifecycle("siteAssociationChecked", after: start, timeout: timeout) {
            $0["bundleIdentifier"] as? String == "com.handoffsim.map"
                && $0["domain"] as? String == "maps.handoffsim.example"
                && $0["outcome"] as? String == outcome
        }
    }

    @Test func aMapPageContinuesInTheMapAppChosenBeforeTheFetchAndInTheBrowserOnceTheServerIsGone() throws {
        let world = try HeadlessProcessWorld(configFolder: "config", fetchTimeout: 5)
        let webDirectory = world.directory.appendingPathComponent("web")
        // A short max-age: the approval expires soon after the server stops.
        let server = try WebServer(webDirectory: webDirectory, maxAge: 2)
        try server.waitUntilServing()

        let web = ["--web-dir", webDirectory.path]
        let laptop = try world.start("Laptop", kind: "laptop", extra: ["--apps", "browser"] + web)
        let phone = try world.start("Phone", extra: ["--apps", "browser", "--install", Self.mapPlist] + web)

        // Installing the Map fetched maps.handoffsim.example's association file over HTTPS: approved.
        let approved = try #require(
            associationCheck(on: phone, after: 0, outcome: "approved"),
            "no approval: \(phone.lastRawLines(10).joined(separator: "\n"))\n\(server.text)")
        #expect(approved["approved"] as? Bool == true)
        #expect(approved["applicationIdentifier"] as? String == "SIMTEAM001.com.handoffsim.map")
        #expect(approved["host"] as? String == "maps.handoffsim.example")

        // The laptop's Browser shows the Map's page; the phone continues it in the Map app.
        var mark = phone.received.count
        try laptop.send([
            "cmd": "become-current", "type": "NSUserActivityTypeBrowsingWeb", "app": "com.handoffsim.browser",
            "title": "Lisbon", "webpageURL": Self.page, "userInfo": ["scroll": 3],
        ])
        _ = try #require(
            phone.waitForLifecycle("offerReceived", after: mark, timeout: 10) { $0["peer"] as? String == "Laptop" },
            "no offer from the laptop")
        let laptopID = try #require(world.id(of: laptop))
        mark = phone.received.count
        try phone.send(["cmd": "continue", "peer": laptopID])
        let routed = try #require(phone.waitForLifecycle("webRouted", after: mark, timeout: 10))
        #expect(routed["approved"] as? Bool == true)
        #expect(routed["bundleIdentifier"] as? String == "com.handoffsim.map")
        #expect(routed["host"] as? String == "maps.handoffsim.example")
        let restored = try #require(phone.waitFor(after: mark, timeout: 10) { $0["event"] as? String == "restored" })
        #expect(restored["app"] as? String == "com.handoffsim.map")
        #expect(restored["type"] as? String == "NSUserActivityTypeBrowsingWeb")
        #expect(restored["webpageURL"] as? String == Self.page)
        // The system hands a web activity over with the page only, as Apple does.
        #expect((restored["userInfo"] as? [String: Any])?.isEmpty == true)
        // The Map was chosen by the host the beacon hashes, before the fetch: routed, launched
        // and asked willContinue first, as for a native activity.
        let kinds = phone.received.dropFirst(mark).compactMap { line -> String? in
            line["event"] as? String == "lifecycle" ? line["kind"] as? String : nil
        }
        let fetched = try #require(kinds.firstIndex(of: "fetchStarted"), "\(kinds)")
        #expect(kinds[..<fetched].contains("webRouted"), "\(kinds)")
        #expect(kinds[..<fetched].contains("applicationLaunched"), "\(kinds)")
        #expect(kinds[..<fetched].contains("willContinue"), "\(kinds)")

        // The server stops. When the approval expires (max-age 2 s) the device fetches the file
        // again, as it caches it: the site is unreachable now.
        #expect(try server.stop() == 0)
        let unreachable = try #require(
            associationCheck(on: phone, after: mark, outcome: "unreachable"),
            "no failed check: \(phone.lastRawLines(20).joined(separator: "\n"))")
        #expect(unreachable["approved"] as? Bool == false)
        #expect(unreachable["keptAnswer"] as? String == "approved")
        #expect((unreachable["detail"] as? String)?.contains("unreachable") == true)

        // The same page now opens in the Browser, and the lifecycle says why.
        mark = phone.received.count
        try phone.send(["cmd": "continue", "peer": laptopID])
        let refused = try #require(phone.waitForLifecycle("webRouted", after: mark, timeout: 10))
        #expect(refused["approved"] as? Bool == false)
        #expect(refused["bundleIdentifier"] as? String == "com.handoffsim.browser")
        let detail = try #require(refused["detail"] as? String)
        #expect(detail.contains("unreachable"), "\(detail)")
        // Per app and domain, what the fetch gave.
        #expect(
            refused["outcomes"] as? String == "com.handoffsim.map maps.handoffsim.example: unreachable", "\(refused)")
        let inBrowser = try #require(phone.waitFor(after: mark, timeout: 10) { $0["event"] as? String == "restored" })
        #expect(inBrowser["app"] as? String == "com.handoffsim.browser")
        #expect(inBrowser["webpageURL"] as? String == Self.page)
        #expect((inBrowser["userInfo"] as? [String: Any])?.isEmpty == true)
    }
}
