import Foundation
import HandoffScenarios
import HandoffTestSupport
import Testing

/// The soak's short version (`handoff soak` runs thousands; docs/soak.md has a long run): two
/// device processes, continuations in a row with random faults. Every continuation ends restored
/// or with a documented code in time, memory stays flat and descriptors come back.
@Suite("Soak under faults", .tags(.endToEnd), .ownThread, .serialized, .enabled(if: HandoffExecutable.url != nil))
struct SoakTests {
    /// A new seed each run (printed with the report, so a failure can be replayed with
    /// `handoff soak --seed`).
    static let seed = UInt64.random(in: 1...UInt64(Int64.max))

    static let mapManifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("demos/apps/Map/Info.plist")

    @Test func continuationsUnderRandomFaultsAllEndAndNothingLeaks() throws {
        let executable = try #require(HandoffExecutable.url)
        let runner = SoakRunner(
            executable: executable,
            options: SoakRunner.Options(
                continuations: 150, faultRate: 0.3, seed: SoakTests.seed, deadline: 20, mapManifest: Self.mapManifest,
                shareLifecycle: true))
        let report = try runner.run()
        print("soak seed \(Self.seed):\n\(report)")
        #expect(report.hangs == 0)
        #expect(report.unexpected.isEmpty, "\(report.unexpected)")
        #expect(report.restored > 0)
        #expect(report.continuations == 150)
        #expect(report.descriptorsBack, "\(report)")
        #expect(report.memoryFlat, "\(report)")
        // The web was in the loop: pages continued into the Map, and the server survived.
        #expect(report.webInApp > 0, "\(report)")
        #expect(report.webRunning, "\(report)")
        #expect(report.sharing)
    }
}
