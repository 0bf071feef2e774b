import Foundation

/// Bounds that the payload decoder enforces on hostile input.
public struct PayloadLimits: Sendable, Hashable {
    /// The largest encoded payload accepted, in bytes.
    public var maximumPayloadBytes: Int
    /// The deepest nesting of arrays, dictionaries and sets.
    public var maximumDepth: Int
    /// The most elements in one array, dictionary or set.
    public var maximumCollectionCount: Int
    /// The total number of values in one payload.
    public var maximumValueCount: Int

    public init(
        maximumPayloadBytes: Int = 4 << 20, maximumDepth: Int = 32,
        maximumCollectionCount: Int = 65_536, maximumValueCount: Int = 262_144
    ) {
        self.maximumPayloadBytes = maximumPayloadBytes
        self.maximumDepth = maximumDepth
        self.maximumCollectionCount = maximumCollectionCount
        self.maximumValueCount = maximumValueCount
    }

    public static let `default` = PayloadLimits()
}
