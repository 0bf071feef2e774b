/// One field of an encoding as the encoder wrote it: where its bytes are, what the layout calls
/// it and what it says. The inspector's byte views draw these (`ActivityPayload.annotatedEncoding()`,
/// and the beacon sealer's in HandoffNetwork); they come from the encoders themselves, never from a
/// copy of the layout.
public struct ByteField: Sendable, Hashable {
    /// The field's bytes within the encoding.
    public var range: Range<Int>
    /// The field's path as the decoder's errors name it (`userInfo["page"]`), with the part
    /// (`length`, `tag`, `count`, `key`) after a space.
    public var name: String
    /// What the bytes say, in words (`12 (zig-zag 24)`, `"Ch 1"`, `3 bytes`).
    public var value: String
    /// How many collections enclose the field (0 for the top-level fields).
    public var depth: Int

    public init(range: Range<Int>, name: String, value: String, depth: Int = 0) {
        self.range = range
        self.name = name
        self.value = value
        self.depth = depth
    }
}

/// An encoding and its fields, in order.
public struct AnnotatedBytes: Sendable, Hashable {
    public var bytes: [UInt8]
    public var fields: [ByteField]

    public init(bytes: [UInt8], fields: [ByteField]) {
        self.bytes = bytes
        self.fields = fields
    }

    /// Whether the fields cover every byte exactly once, in order, with no empty field.
    public var coversEveryByte: Bool {
        var next = 0
        for field in fields {
            guard field.range.lowerBound == next, !field.range.isEmpty else { return false }
            next = field.range.upperBound
        }
        return next == bytes.count
    }

    /// The field holding byte `offset`, if any.
    public func field(at offset: Int) -> ByteField? {
        // Fields are in order: a binary search on their starts.
        var low = 0
        var high = fields.count
        while low < high {
            let middle = (low + high) / 2
            if fields[middle].range.upperBound <= offset { low = middle + 1 } else { high = middle }
        }
        return low < fields.count && fields[low].range.contains(offset) ? fields[low] : nil
    }
}
