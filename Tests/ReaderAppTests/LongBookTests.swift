import Foundation
import Testing

@testable import ReaderApp

@Suite("The generated long book")
struct LongBookTests {
    @Test func itIsWrittenOnceAndKeptWhenTheDeviceStartsAgain() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("longbook-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try LongBook.write(bytes: 20_000, into: folder)
        let first = try FileManager.default.attributesOfItem(atPath: url.path)
        let size = try #require(first[.size] as? Int)
        #expect(size >= 20_000 && size < 20_000 + LongBook.maximumParagraphBytes)
        #expect(try String(contentsOf: url, encoding: .utf8).hasPrefix(LongBook.title))
        _ = try LongBook.write(bytes: 20_000, into: folder)
        let second = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect(second[.systemFileNumber] as? Int == first[.systemFileNumber] as? Int, "not written again")
        _ = try LongBook.write(bytes: 40_000, into: folder)
        #expect(
            (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0) >= 40_000,
            "another size is written")
    }
}
