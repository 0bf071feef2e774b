import Foundation
import HandoffCore
import Testing

/// Association files are read with HandoffCore's one JSON model, and sorted into not JSON,
/// malformed and approved as when JSONSerialization read them.
@Suite("Association files read as JSONValue")
struct SiteAssociationJSONTests {
    func problem(_ body: [UInt8]) -> SiteAssociationError.Problem? {
        do {
            _ = try SiteAssociationFile(host: "maps.example.com", data: Data(body))
            return nil
        } catch {
            return error.problem
        }
    }

    func problem(_ body: String) -> SiteAssociationError.Problem? { problem(Array(body.utf8)) }

    @Test func whatIsNotJSONIsStillNotJSON() {
        #expect(problem("") == .notJSON)
        #expect(problem("<html>") == .notJSON)
        // A top-level string or number: JSONSerialization refused fragments, and so does this.
        #expect(problem(#""SIMTEAM001.com.handoffsim.map""#) == .notJSON)
        #expect(problem("42") == .notJSON)
        // Bytes that are not UTF-8.
        #expect(problem([0x7B, 0xFF, 0xFE, 0x7D]) == .notJSON)
        #expect(problem(#"{"activitycontinuation": {"apps": ["#) == .notJSON)
    }

    @Test func theShapeIsCheckedAsBefore() throws {
        #expect(problem("[1, 2]") == .malformed)
        #expect(problem(#"{"activitycontinuation": {"apps": "x"}}"#) == .malformed)
        // An entry that is no app ID is ignored, not a malformed file (it voids no other entry).
        #expect(problem(#"{"activitycontinuation": {"apps": [42]}}"#) == nil)
        #expect(problem(#"{"applinks": {}}"#) == nil)
        let file = try SiteAssociationFile(
            host: "Maps.Example.com",
            data: Data("\u{FEFF}{\"activitycontinuation\": {\"apps\": [\"SIMTEAM001.com.handoffsim.map\"]}}".utf8))
        #expect(file.approvedApplicationIdentifiers == ["SIMTEAM001.com.handoffsim.map"])
        let ignoring = try SiteAssociationFile(
            host: "maps.example.com", data: Data(#"{"activitycontinuation": {"apps": ["nope"]}}"#.utf8))
        #expect(ignoring.approvedApplicationIdentifiers.isEmpty)
        #expect(ignoring.ignoredEntries == [#"apps[0] holds "nope", not an app ID (TEAMID.bundle.id)"#])
    }
}
