import Foundation
import HandoffCore
import HandoffProcesses
import HandoffTestSupport
import Synchronization
import Testing

/// The process driver under churn: many children started and ended at once, from several
/// threads, as the end-to-end suites do in parallel. Their pipes are read by blocking reads on
/// threads of their own (`drainOnOwnThread`); with `FileHandle.readabilityHandler` this churn
/// arms and cancels libdispatch read sources concurrently, which can crash the whole process in
/// `_dispatch_event_loop_drain` (swift-corelibs-libdispatch#949).
@Suite("The headless process driver", .tags(.endToEnd), .ownThread)
struct HeadlessProcessTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")

    @Test func manyShortLivedChildrenAtOnceLoseNoOutputAndLeaveNoReaders() throws {
        // The readers are seen by name while their child runs (so their absence below means
        // they ended, not that they were never named).
        let sleeper = try HeadlessProcess(name: "hptsleeper", command: ["-c", "sleep 1"], executable: Self.shell)
        let seen = Date().addingTimeInterval(5)
        while Self.readerThreads().isEmpty && Date() < seen { usleep(5_000) }
        #expect(Self.readerThreads().contains { $0.hasPrefix("hptsleeper") }, "threads: \(Self.readerThreads())")
        _ = sleeper.waitForExit(timeout: 20)
        let workers = 8
        let perWorker = 50
        let failures = FailureList()
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in 0..<perWorker {
                let tag = "\(worker)-\(index)"
                do {
                    let child = try HeadlessProcess(
                        name: "hpt\(tag)",
                        command: [
                            "-c", "echo '{\"event\":\"hello\",\"tag\":\"\(tag)\"}'; echo 'complaint \(tag)' >&2",
                        ],
                        executable: Self.shell)
                    guard child.waitFor(timeout: 20, where: { $0["tag"] as? String == tag }) != nil else {
                        failures.add("child \(tag): no stdout line; got \(child.lastRawLines(3))")
                        continue
                    }
                    guard child.waitForExit(timeout: 20) == 0 else {
                        failures.add("child \(tag): did not exit with 0")
                        continue
                    }
                    let deadline = Date().addingTimeInterval(20)
                    while !child.standardError.contains("complaint \(tag)") && Date() < deadline { usleep(2_000) }
                    if !child.standardError.contains("complaint \(tag)") {
                        failures.add("child \(tag): stderr was \(child.standardError.debugDescription)")
                    }
                } catch {
                    failures.add("child \(tag): \(error)")
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
        // Every reader thread ends at its pipe's end of file. They are named after their child
        // ("hpt0-1 stdout"), so other suites' threads running at the same time do not count.
        let deadline = Date().addingTimeInterval(20)
        while !Self.readerThreads().isEmpty && Date() < deadline { usleep(10_000) }
        #expect(Self.readerThreads().isEmpty, "reader threads left: \(Self.readerThreads().prefix(5))")
    }

    /// The names of this process's threads that read a child of this test.
    static func readerThreads() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .filter { $0.hasPrefix("hpt") }
    }

    final class FailureList: Sendable {
        private let list = Mutex<[String]>([])
        func add(_ failure: String) { list.withLock { $0.append(failure) } }
        var all: [String] { list.withLock { $0 } }
    }
}

/// The driver's JSON through a real child (`HeadlessProcessJSONTests`, a unit suite, checks the
/// parsing of the same line without a process).
@Suite("The headless process driver's JSON, through a child", .tags(.endToEnd))
struct HeadlessProcessJSONEndToEndTests {
    static let line =
        #"{"event":"x","int":7,"zero":0,"one":1,"double":2.0,"half":0.5,"yes":true,"no":false,"none":null,"#
        + #""text":"é\n","list":[1,"a",false],"object":{"inner":[{"k":-3}]}}"#

    /// End to end through a child: what it prints arrives as JSONValue objects and as the view.
    @Test(.ownThread) func aChildsLinesArriveInBothForms() throws {
        let child = try HeadlessProcess(
            name: "hpjson", command: ["-c", "printf '%s\\n' 'not json' '[1]' '\(Self.line)'"],
            executable: URL(fileURLWithPath: "/bin/sh"))
        let message = try #require(child.waitForMessage(timeout: 20) { $0["event"] == "x" })
        #expect(message["object"]?["inner"]?.arrayValue?.first?["k"] == -3)
        #expect(message["double"] == .double(2.0) && message["int"] == .integer(7))
        #expect(child.waitFor(timeout: 20) { $0["event"] as? String == "x" }?["int"] as? Int == 7)
        #expect(child.receivedMessages.count == 1 && child.received.count == 1, "only the object line")
        _ = child.waitForExit(timeout: 20)
    }
}
