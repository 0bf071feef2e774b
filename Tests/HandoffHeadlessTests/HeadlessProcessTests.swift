import Foundation
import Synchronization
import HandoffHeadless
import Testing
import TestThreads

/// The process driver under churn: many children started and ended at once, from several
/// threads, as the end-to-end suites do in parallel. Their pipes are read by blocking reads on
/// threads of their own (`drainOnOwnThread`); with `FileHandle.readabilityHandler` this churn
/// arms and cancels libdispatch read sources concurrently, which can crash the whole process in
/// `_dispatch_event_loop_drain` (swift-corelibs-libdispatch#949).
@Suite("The headless process driver", .ownThread)
struct HeadlessProcessTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")

    @Test func manyShortLivedChildrenAtOnceLoseNoOutputAndLeaveNoReaders() throws {
        let baseline = Self.threadCount()
        let workers = 8, perWorker = 50
        let failures = FailureList()
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in 0..<perWorker {
                let tag = "\(worker)-\(index)"
                do {
                    let child = try HeadlessProcess(
                        name: "child \(tag)",
                        command: ["-c", "echo '{\"event\":\"hello\",\"tag\":\"\(tag)\"}'; echo 'complaint \(tag)' >&2"],
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
        // Every reader thread ends at its pipe's end of file: the count comes back to where it was
        // (a few threads of the runtime's own pools may come and go, hence the small allowance).
        let deadline = Date().addingTimeInterval(20)
        while Self.threadCount() > baseline + 4 && Date() < deadline { usleep(10_000) }
        #expect(Self.threadCount() <= baseline + 4, "threads: \(baseline) before, \(Self.threadCount()) after")
    }

    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    final class FailureList: Sendable {
        private let list = Mutex<[String]>([])
        func add(_ failure: String) { list.withLock { $0.append(failure) } }
        var all: [String] { list.withLock { $0 } }
    }
}
