/// The one seeded generator of the project: SplitMix64 (Steele, Lea and Flood; Vigna's
/// constants). The same seed always gives the same sequence, so whatever is drawn from it can be
/// made again from the seed: a soak's faults, the bytes of `stream-send {"seed": S}`, the loss a
/// test injects, generated test inputs.
///
/// Not for secrets: anything an attacker must not guess comes from `SystemRandomNumberGenerator`.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in `0..<1`, from the top 53 bits of the next output.
    public mutating func nextDouble() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }
}
