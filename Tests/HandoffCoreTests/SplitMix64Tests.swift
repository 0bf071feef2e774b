import HandoffCore
import Testing

/// The one seeded generator gives the sequences the four copies it replaced gave: scenarios,
/// soak runs, `stream-send` bytes and generated test inputs are made again from their seeds.
@Suite("SplitMix64")
struct SplitMix64Tests {
    /// The first outputs for a few seeds, computed with the reference algorithm (Vigna's
    /// splitmix64.c), which every removed copy implemented.
    static let known: [(seed: UInt64, outputs: [UInt64])] = [
        (0, [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F, 0xF88B_B8A8_724C_81EC]),
        (42, [0xBDD7_3226_2FEB_6E95, 0x28EF_E333_B266_F103, 0x4752_6757_130F_9F52, 0x581C_E1FF_0E4A_E394]),
        (1_234_567, [0x599E_D017_FB08_FC85, 0x2C73_F084_5854_0FA5, 0x883E_BCE5_A3F2_7C77, 0x3FBE_F740_E917_7B3F]),
    ]

    @Test func theSameSeedGivesTheSameSequenceAsBefore() {
        for (seed, outputs) in Self.known {
            var generator = SplitMix64(seed: seed)
            #expect((0..<outputs.count).map { _ in generator.next() } == outputs, "seed \(seed)")
        }
    }

    @Test func doublesAreTheTop53Bits() {
        var generator = SplitMix64(seed: 7)
        #expect(generator.nextDouble() == 0.3898297483912715)
        #expect(generator.nextDouble() == 0.01678829452815611)
    }

    /// Draws through `RandomNumberGenerator` (as the tests' generated inputs do) use `next()`.
    @Test func standardLibraryDrawsAreRepeatable() {
        var a = SplitMix64(seed: 13)
        var b = SplitMix64(seed: 13)
        let first = (0..<100).map { _ in Int.random(in: 0...300, using: &a) }
        let second = (0..<100).map { _ in Int.random(in: 0...300, using: &b) }
        #expect(first == second)
    }
}
