import Foundation
import Testing

@testable import HandoffNetwork

/// The inotify watch that spares each revocation check a `stat`: it must see a change made
/// just before the look (the kernel queues the event inside the changing call), and say so when
/// it can no longer see anything.
@Suite("Account file watch")
struct AccountFileWatchTests {
    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aRenameIntoPlaceIsSeenByTheVeryNextLookAndOnlyOnce() throws {
        let url = try folder()
        defer { try? FileManager.default.removeItem(at: url) }
        let watch = try #require(AccountFileWatch(folder: url.path))
        #expect(watch.look() == .unchanged)
        let file = url.appendingPathComponent("bench.json")
        try Data("{}".utf8).write(to: file, options: .atomic)  // a temporary file renamed into place
        #expect(watch.look() == .maybeChanged)
        #expect(watch.look() == .unchanged)
        try Data("{\"revoked\":[]}".utf8).write(to: file)  // written in place
        #expect(watch.look() == .maybeChanged)
        try FileManager.default.removeItem(at: file)
        #expect(watch.look() == .maybeChanged)
        #expect(watch.look() == .unchanged)
    }

    @Test func aFolderThatGoesAwayEndsTheWatchForGood() throws {
        let url = try folder()
        let watch = try #require(AccountFileWatch(folder: url.path))
        try FileManager.default.removeItem(at: url)
        #expect(watch.look() == .watchEnded)
    }

    /// Watches share the process's one inotify instance: two watches of one folder each see a
    /// change once, and hundreds of them (a bench's devices) take no more of the user's 128.
    @Test func watchesOfOneFolderEachSeeAChangeAndShareOneInstance() throws {
        let url = try folder()
        defer { try? FileManager.default.removeItem(at: url) }
        let watches = try (0..<300).map { _ in try #require(AccountFileWatch(folder: url.path)) }
        #expect(watches.allSatisfy { $0.look() == .unchanged })
        try Data("{}".utf8).write(to: url.appendingPathComponent("bench.json"), options: .atomic)
        #expect(watches.allSatisfy { $0.look() == .maybeChanged })
        #expect(watches.allSatisfy { $0.look() == .unchanged })
    }

    @Test func aFolderThatDoesNotExistGivesNoWatch() {
        #expect(AccountFileWatch(folder: "/nonexistent-\(UUID().uuidString)") == nil)
    }
}
