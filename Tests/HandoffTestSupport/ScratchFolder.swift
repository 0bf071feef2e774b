import Foundation

/// A folder of its own under the temporary directory for one test's files, removed with
/// everything in it when the value goes away (a suite keeps one as a stored property: Swift
/// Testing makes a suite instance per test and drops it when the test ends).
public final class ScratchFolder: Sendable {
    public let url: URL

    /// Makes the folder, named `label-UUID`.
    public init(_ label: String = "handoff-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the folder (nothing is made).
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
