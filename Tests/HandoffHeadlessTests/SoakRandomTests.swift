import HandoffCore
@testable import HandoffHeadless
import Testing

/// The soak's generator (still its own copy in SoakRunner.swift, which another change owns) draws
/// the same sequence as HandoffCore's `SplitMix64`, so replacing it keeps every soak seed's faults.
@Suite("Soak random")
struct SoakRandomTests {
    @Test func theSoaksGeneratorMatchesSplitMix64() {
        for seed: UInt64 in [0, 1, 42, 0xDEAD_BEEF, .max] {
            var soak = SplitMix(seed: seed), core = SplitMix64(seed: seed)
            for _ in 0..<64 { #expect(soak.next() == core.next(), "seed \(seed)") }
            #expect(soak.nextDouble() == core.nextDouble())
        }
    }
}
