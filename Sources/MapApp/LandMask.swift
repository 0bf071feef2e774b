import Foundation

/// Land or water for every cell of an equirectangular grid of the world, one bit per cell.
///
/// Row 0 is the band just south of 90°N, column 0 the band just east of 180°W; each row is
/// packed most significant bit first (the westmost cell is the high bit of its byte).
public struct LandMask: Hashable, Sendable {
    /// Cells around the world (the mask is half as high).
    public let width: Int
    public var height: Int { width / 2 }
    /// Degrees per cell, in both directions.
    public var cellSize: Double { 360 / Double(width) }
    let bytesPerRow: Int
    let bits: [UInt8]

    /// A mask from its packed bytes.
    ///
    /// - Throws: ``MapError/malformed(file:line:reason:)`` when the width is not a positive
    ///   multiple of 16 or the byte count does not match it.
    public init(width: Int, packed: [UInt8], file: String = "land mask") throws(MapError) {
        guard width >= 8, width % 8 == 0, width <= 1 << 16 else {
            throw .malformed(file: file, line: nil, reason: "a land mask must be a positive multiple of 8 cells wide, not \(width)")
        }
        let expected = width / 8 * (width / 2)
        guard packed.count == expected else {
            throw .malformed(file: file, line: nil,
                             reason: "\(packed.count) bytes, expected \(expected) for \(width)x\(width / 2) cells at 1 bit each")
        }
        self.width = width
        bytesPerRow = width / 8
        bits = packed
    }

    /// Reads the mask `width` cells wide from `url`.
    public init(contentsOf url: URL, width: Int) throws(MapError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(file: url.lastPathComponent, reason: error.localizedDescription)
        }
        try self.init(width: width, packed: [UInt8](data), file: url.lastPathComponent)
    }

    /// The cell at `row`, `column` (no bounds checks beyond the array's: callers clamp).
    @inline(__always)
    public func isLand(row: Int, column: Int) -> Bool {
        bits[row &* bytesPerRow &+ (column >> 3)] & (0x80 >> UInt8(column & 7)) != 0
    }

    /// Whether the point is on land; latitudes beyond the poles are water, longitudes wrap.
    public func isLand(latitude: Double, longitude: Double) -> Bool {
        guard let row = row(latitude: latitude) else { return false }
        return isLand(row: row, column: column(longitude: longitude))
    }

    /// The row holding `latitude`, or nil beyond the poles (or not a number).
    public func row(latitude: Double) -> Int? {
        let row = ((90 - latitude) / cellSize).rounded(.down)
        guard row >= 0, row < Double(height) else { return nil }
        return Int(row)
    }

    /// The column holding `longitude`, wrapped around the world.
    public func column(longitude: Double) -> Int {
        guard longitude.isFinite else { return 0 }
        let column = Int(((longitude + 180) / cellSize).rounded(.down)) % width
        return column < 0 ? column + width : column
    }
}

/// The land masks of the Map, coarse to fine, and the choice of one for a zoom.
public struct LandAtlas: Hashable, Sendable {
    /// The widths of the masks the Map ships (1°, 0.5°, 0.25° and 0.125° cells).
    public static let widths = [360, 720, 1440, 2880]

    /// Coarse to fine.
    public let masks: [LandMask]

    /// - Throws: ``MapError`` when there is no mask.
    public init(masks: [LandMask]) throws(MapError) {
        guard !masks.isEmpty else { throw .malformed(file: "land masks", line: nil, reason: "no land mask") }
        self.masks = masks.sorted { $0.width < $1.width }
    }

    /// Reads every mask of ``widths`` from `resources`.
    public init(resources: MapResources) throws(MapError) {
        var masks: [LandMask] = []
        for width in Self.widths {
            masks.append(try LandMask(contentsOf: resources.landMask(width: width), width: width))
        }
        try self.init(masks: masks)
    }

    /// The coarsest mask whose cells are no larger than `degreesPerPixel` (so no pixel skips a
    /// cell), or the finest one.
    public func mask(forDegreesPerPixel degreesPerPixel: Double) -> LandMask {
        masks.first { $0.cellSize <= degreesPerPixel } ?? masks[masks.count - 1]
    }
}
