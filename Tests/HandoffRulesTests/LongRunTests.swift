import Foundation
import HandoffCore
import HandoffRules
import Testing

/// A long run (many continuations between two devices) keeps every rule, and its check says so.
@Suite struct LongRunTests {
    typealias S = Stories

    /// `count` native continuations one after another, each with its own identifier.
    static func run(_ count: Int) -> [DeviceHistory] {
        var laptop: [LifecycleEvent] = []
        var phone: [LifecycleEvent] = []
        for n in 0..<count {
            let id = ContinuationID(rawValue: UUID())
            let shift = Double(n) * 0.5
            /// The event `shift` seconds later, of continuation `id` (read back from its fields
            /// with the identifier replaced).
            func moved(_ event: LifecycleEvent) -> LifecycleEvent {
                let fields = event.fields.map { field in
                    LifecycleEntry.Field(field.key, field.key == "continuation" ? .string(id.description) : field.value)
                }
                var copy = (try? LifecycleEvent(fields: fields)) ?? event
                copy.time = event.time.addingTimeInterval(shift)
                return copy
            }
            laptop += S.nativeOrigin().map(moved)
            phone += S.nativeContinuing().map(moved)
        }
        return [S.history(S.laptop, laptop), S.history(S.phone, phone)]
    }

    /// Every continuation is found by its identifier, not by scanning the histories (40,000
    /// events took 173 s in a debug build when each rule scanned, 5 s indexed).
    @Test func aLongRunKeepsEveryRule() {
        let histories = Self.run(500)
        #expect(RuleBook.eventCount(histories) == 10_000)
        let found = RuleBook.check(histories)
        #expect(found.isEmpty, "\(found.prefix(3).map(\.description).joined(separator: "\n"))")
    }
}
