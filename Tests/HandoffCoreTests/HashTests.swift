import HandoffCore
import Testing

/// The activity type and team hashes (docs/wire.md), computed once per string and kept.
@Suite("Type and team hashes")
struct HashTests {
    @Test func theHashesAreTheWireDocumentsExample() {
        #expect(ActivityTypeHash(activityType: "com.example.reader.page").description == "a40daef05462cd")
        #expect(TeamHash(teamIdentifier: "ABCDE12345").description == "75e13a4c")
    }

    /// Past the cache's capacity it starts over: the values never change.
    @Test func theValuesSurviveTheCacheStartingOver() {
        let first = ActivityTypeHash(activityType: "com.example.reader.page")
        var seen: Set<ActivityTypeHash> = []
        for index in 0..<1200 { seen.insert(ActivityTypeHash(activityType: "com.example.type\(index)")) }
        #expect(seen.count == 1200)
        #expect(ActivityTypeHash(activityType: "com.example.reader.page") == first)
        #expect(ActivityTypeHash(activityType: "com.example.reader.page").description == "a40daef05462cd")
    }
}
