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

    /// A mask from its run lengths (a country-border file, `borders-WxH.rle`): LEB128 varints
    /// (7 bits a byte, least significant group first, the high bit set on all but the last byte)
    /// giving alternating runs of unset and set cells, row-major, the first run unset (it may be
    /// 0 cells long, no other may), adding up to exactly `width` x `width / 2` cells.
    ///
    /// - Throws: ``MapError/malformed(file:line:reason:)`` naming the byte offset of the fault:
    ///   a bad width, a truncated or overlong varint, an empty run, or runs that do not add up.
    public init(width: Int, runLengths data: [UInt8], file: String = "border mask") throws(MapError) {
        guard width >= 8, width % 8 == 0, width <= 1 << 16 else {
            throw .malformed(file: file, line: nil, reason: "a border mask must be a positive multiple of 8 cells wide, not \(width)")
        }
        let cells = width * (width / 2)
        var packed = [UInt8](repeating: 0, count: cells / 8)
        var position = 0  // cells decoded
        var offset = 0  // bytes read
        var set = false
        var runIndex = 0
        while offset < data.count {
            let start = offset
            var run = 0
            var shift = 0
            while true {
                guard offset < data.count else {
                    throw .malformed(file: file, line: nil, reason: "byte \(start): the file ends inside a run length")
                }
                guard shift <= 28 else {
                    throw .malformed(file: file, line: nil, reason: "byte \(start): a run length longer than 5 bytes")
                }
                let byte = data[offset]
                offset += 1
                run |= Int(byte & 0x7F) << shift
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            guard run > 0 || runIndex == 0 else {
                throw .malformed(file: file, line: nil, reason: "byte \(start): a run of 0 cells (only the first run may be empty)")
            }
            guard run <= cells - position else {
                throw .malformed(file: file, line: nil,
                                 reason: "byte \(start): a run of \(run) cells goes past the \(cells) cells of \(width)x\(width / 2)")
            }
            if set {
                var cell = position
                let end = position + run
                while cell < end {
                    packed[cell >> 3] |= 0x80 >> UInt8(cell & 7)
                    cell += 1
                }
            }
            position += run
            set.toggle()
            runIndex += 1
        }
        guard position == cells else {
            throw .malformed(file: file, line: nil, reason: "the runs cover \(position) cells, expected \(cells) for \(width)x\(width / 2)")
        }
        try self.init(width: width, packed: packed, file: file)
    }

    /// Reads the run-length encoded mask `width` cells wide from `url` (see ``init(width:runLengths:file:)``).
    public init(contentsOf url: URL, width: Int, runLengths: Bool) throws(MapError) {
        guard runLengths else {
            try self.init(contentsOf: url, width: width)
            return
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(file: url.lastPathComponent, reason: error.localizedDescription)
        }
        try self.init(width: width, runLengths: [UInt8](data), file: url.lastPathComponent)
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

/// The land masks of the Map, coarse to fine, and the choice of one for a zoom; with the
/// country borders of the finer ones.
public struct LandAtlas: Hashable, Sendable {
    /// The widths of the masks the Map ships (1°, 0.5°, 0.25° and 0.125° cells).
    public static let widths = [360, 720, 1440, 2880]
    /// The widths with a country-border mask (borders are drawn from zoom 2, where the coarsest
    /// mask is never used).
    public static let borderWidths = [720, 1440, 2880]

    /// Coarse to fine.
    public let masks: [LandMask]
    /// Country borders (land cells whose east or south neighbour is another country), by width.
    public let borders: [Int: LandMask]

    /// - Throws: ``MapError`` when there is no mask, or a border mask has no land mask of its width.
    public init(masks: [LandMask], borders: [LandMask] = []) throws(MapError) {
        guard !masks.isEmpty else { throw .malformed(file: "land masks", line: nil, reason: "no land mask") }
        self.masks = masks.sorted { $0.width < $1.width }
        var byWidth: [Int: LandMask] = [:]
        for border in borders {
            guard masks.contains(where: { $0.width == border.width }) else {
                throw .malformed(file: "border masks", line: nil, reason: "no land mask \(border.width) cells wide for its borders")
            }
            byWidth[border.width] = border
        }
        self.borders = byWidth
    }

    /// Reads every mask of ``widths`` and border mask of ``borderWidths`` from `resources`.
    public init(resources: MapResources) throws(MapError) {
        var masks: [LandMask] = []
        for width in Self.widths {
            masks.append(try LandMask(contentsOf: resources.landMask(width: width), width: width))
        }
        var borders: [LandMask] = []
        for width in Self.borderWidths {
            borders.append(try LandMask(contentsOf: resources.borderMask(width: width), width: width, runLengths: true))
        }
        try self.init(masks: masks, borders: borders)
    }

    /// The country borders on the grid of `mask`, if the Map has them.
    public func borders(for mask: LandMask) -> LandMask? {
        borders[mask.width]
    }

    /// The coarsest mask whose cells are no larger than `degreesPerPixel` (so no pixel skips a
    /// cell), or the finest one.
    public func mask(forDegreesPerPixel degreesPerPixel: Double) -> LandMask {
        masks.first { $0.cellSize <= degreesPerPixel } ?? masks[masks.count - 1]
    }
}
