import Foundation
import HandoffTestSupport
import Testing

/// `handoff bench --classroom N --processes` as a user runs it: one child process per pair, the
/// class's figures added up in the driver. Figures are not asserted (the release bench prints
/// them); what is checked is that every pair continued back and forth without a failure and that
/// every figure the report names is there.
@Suite(
    "handoff bench --classroom (end to end)", .tags(.endToEnd), .ownThread, .enabled(if: HandoffExecutable.url != nil))
struct BenchClassroomEndToEndTests {
    @Test func twoPairsInTwoProcessesContinueWithoutFailures() throws {
        let result = try DoctorRun.handoff(
            "bench", "--classroom", "2", "--processes", "--seconds", "2", "--idle-seconds", "1", "--json")
        #expect(result.status == 0, "\(result.output)\(result.error)")
        let report = try DoctorRun.object(result.output)
        #expect(report["pairs"] as? Int == 2)
        #expect(report["processes"] as? Int == 2)
        #expect(report["failures"] as? Int == 0, "\(report["failureReasons"] ?? "")")
        #expect((report["continuations"] as? Int ?? 0) > 0)
        #expect((report["latencies"] as? [Double])?.count == report["continuations"] as? Int)
        #expect((report["beaconsSent"] as? Int ?? 0) > 0)
        #expect((report["cpuSeconds"] as? Double ?? 0) > 0)
        #expect(report["idleSeconds"] as? Double == 1)
        // The default pace: a busy class, a round every half second per pair.
        #expect(report["pace"] as? Double == 0.5)
        #expect((report["continuations"] as? Int ?? 0) <= 2 * 5)
        // The table goes to standard error with --json.
        for words in [
            "2 processes (one per pair)", "a round every 0.5 s per pair", "Failures                0", "Idle beacons",
            "CPU per device",
        ] {
            #expect(result.error.contains(words), "\(words)")
        }
    }
}
