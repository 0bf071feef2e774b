import Foundation
import Synchronization

/// The kinds of geometry a level holds, in the order a tile stores them.
package enum GeoKind: Int, CaseIterable, Sendable {
    /// Land polygons (filled); their edges that are not tile sides are the coast.
    case land = 0
    /// Lake polygons (cleared out of the land); their edges are shores.
    case lake = 1
    /// Country borders on land (lines).
    case border = 2
    /// First-level subdivisions: states, provinces (lines).
    case subdivision = 3
    /// Rivers (lines), longer ones from coarser levels.
    case river = 4

    var isPolygonal: Bool { self == .land || self == .lake }
}

/// One level of detail of the Map's vector geography: Natural Earth 1:10m simplified for a range
/// of zooms, cut into square tiles so a frame reads only the tiles it shows.
///
/// Coordinates are integers: quanta of ``quantum`` degrees east and north of their tile's
/// south-west corner. A point's x is stored shifted left by one, its low bit saying whether the
/// edge from it to the next point is drawn (a coast or a shore: 1; a tile side that only closes
/// a polygon for filling: 0); lines have the bit set on every point.
package struct GeoLevel: Sendable {
    /// The level's number (0 is the coarsest).
    package let index: Int
    /// Degrees per coordinate unit.
    package let quantum: Double
    /// Coordinate units per tile side.
    package let tileSize: Int
    /// Degrees per tile side.
    package var tileDegrees: Double { Double(tileSize) * quantum }
    /// Tiles around the world and from pole to pole.
    package let columns: Int
    package let rows: Int
    /// For each tile of the grid (row-major from the south-west), its number in ``tileOrigins``, or -1.
    let grid: [Int32]
    /// Each tile's column and row.
    let tileOrigins: [(column: Int32, row: Int32)]
    /// For tile `t` and kind `k`, its parts are `kindParts[t * 5 + k] ..< kindParts[t * 5 + k + 1]`
    /// (a sentinel at the end).
    let kindParts: [Int32]
    /// For part `p`, its points are `partStarts[p] ..< partStarts[p + 1]` (a sentinel at the end).
    let partStarts: [Int32]
    /// x (shifted, with the drawn bit) and y of every point, interleaved.
    let points: [Int32]
    /// Each part's bounding box in its tile's units: west, south, east, north.
    let partBoxes: [Int32]

    /// The number of tiles with any geometry.
    package var tileCount: Int { tileOrigins.count }
    /// The number of points of every kind.
    package var pointCount: Int { points.count / 2 }

    /// The tile at `column`, `row` of the grid (`column` wraps around the world), or nil where
    /// the level has nothing.
    func tile(column: Int, row: Int) -> Int? {
        guard row >= 0, row < rows else { return nil }
        var column = column % columns
        if column < 0 { column += columns }
        let tile = grid[row * columns + column]
        return tile < 0 ? nil : Int(tile)
    }

    /// The parts of `kind` in `tile`.
    func parts(of kind: GeoKind, inTile tile: Int) -> Range<Int> {
        Int(kindParts[tile * 5 + kind.rawValue])..<Int(kindParts[tile * 5 + kind.rawValue + 1])
    }

    // MARK: Reading

    /// The file's first bytes.
    static let magic = Array("HMAPGEO1".utf8)
    static let headerSize = 8 + 16
    static let indexEntrySize = 12

    /// Reads a level file (`geo-N.bin`), treating every byte as hostile.
    ///
    /// - Throws: ``MapError/malformed(file:line:reason:)`` naming `file` and the byte where the
    ///   fault is: a wrong magic or level, a tile grid that does not tile the world, an index entry
    ///   outside the grid or the file, a truncated or overlong varint, an unknown or repeated kind,
    ///   empty parts, a coordinate outside its tile, or a tile whose bytes do not end with its
    ///   last part.
    package init(bytes: [UInt8], expectedIndex: Int, file: String) throws(MapError) {
        try self.init(
            header: LevelHeader(bytes: bytes, expectedIndex: expectedIndex, file: file), bytes: bytes, file: file)
    }

    /// Decodes the tiles of a file whose header and index were checked.
    init(header: LevelHeader, bytes: [UInt8], file: String) throws(MapError) {
        func fail(_ offset: Int?, _ reason: String) -> MapError {
            .malformed(file: file, line: nil, reason: (offset.map { "byte \($0): " } ?? "") + reason)
        }
        let level = header.level
        let quantum = header.quantum
        let tileSize = header.tileSize
        let columns = header.columns
        let rows = header.rows
        let tileCount = header.tiles.count
        let dataStart = header.dataStart
        var grid = [Int32](repeating: -1, count: columns * rows)
        var origins: [(column: Int32, row: Int32)] = []
        origins.reserveCapacity(tileCount)
        var kindParts: [Int32] = []
        kindParts.reserveCapacity(tileCount * 5)
        var partStarts: [Int32] = [0]
        var partBoxes: [Int32] = []
        var points: [Int32] = []
        // Each point takes at least two bytes, so the file bounds the arrays.
        points.reserveCapacity(bytes.count - dataStart)

        for (tile, entry) in header.tiles.enumerated() {
            let column = entry.column
            let row = entry.row
            let start = entry.start
            let length = entry.length
            grid[row * columns + column] = Int32(origins.count)
            origins.append((Int32(column), Int32(row)))
            var reader = VarintReader(bytes: bytes, position: start, end: start + length)
            // Kinds come in order, each at most once; a kind's parts start where the tile's parts
            // stood when it began (an absent kind: where the next one begins, an empty range).
            var next = 0
            while !reader.isAtEnd {
                let at = reader.position
                let kindValue = try reader.next(file)
                guard let kind = GeoKind(rawValue: kindValue) else {
                    throw fail(at, "unknown kind \(kindValue) in tile \(tile)")
                }
                guard kind.rawValue >= next else {
                    throw fail(at, "kind \(kindValue) out of order or repeated in tile \(tile)")
                }
                while next <= kind.rawValue {
                    kindParts.append(Int32(partStarts.count - 1))
                    next += 1
                }
                let partCount = try reader.next(file)
                guard partCount > 0, partCount <= reader.remaining else {
                    throw fail(at, "\(partCount) parts in \(reader.remaining) bytes")
                }
                for _ in 0..<partCount {
                    let partAt = reader.position
                    let pointCount = try reader.next(file)
                    let fewest = kind.isPolygonal ? 3 : 2
                    guard pointCount >= fewest, pointCount <= reader.remaining / 2 else {
                        throw fail(
                            partAt,
                            "a part of \(pointCount) points (a \(kind.isPolygonal ? "ring" : "line") needs \(fewest), "
                                + "and \(reader.remaining) bytes hold at most \(reader.remaining / 2))")
                    }
                    var x = 0
                    var y = 0
                    var west = Int.max
                    var south = Int.max
                    var east = Int.min
                    var north = Int.min
                    for _ in 0..<pointCount {
                        let pointAt = reader.position
                        var dx = try reader.next(file)
                        var drawn = 1
                        if kind.isPolygonal {
                            drawn = dx & 1
                            dx >>= 1
                        }
                        x += Self.unzigzag(dx)
                        y += Self.unzigzag(try reader.next(file))
                        guard x >= 0, x <= tileSize, y >= 0, y <= tileSize else {
                            throw fail(pointAt, "point (\(x), \(y)) is outside its tile (0 to \(tileSize))")
                        }
                        points.append(Int32(x << 1 | drawn))
                        points.append(Int32(y))
                        west = min(west, x)
                        east = max(east, x)
                        south = min(south, y)
                        north = max(north, y)
                    }
                    partStarts.append(Int32(points.count / 2))
                    partBoxes += [Int32(west), Int32(south), Int32(east), Int32(north)]
                }
            }
            while next <= 4 {
                kindParts.append(Int32(partStarts.count - 1))
                next += 1
            }
        }
        // The end of the last tile's last kind (every other kind ends where the next begins).
        kindParts.append(Int32(partStarts.count - 1))
        index = level
        self.quantum = quantum
        self.tileSize = tileSize
        self.columns = columns
        self.rows = rows
        self.grid = grid
        tileOrigins = origins
        self.kindParts = kindParts
        self.partStarts = partStarts
        self.partBoxes = partBoxes
        self.points = points
    }

    static func unzigzag(_ value: Int) -> Int { (value >> 1) ^ -(value & 1) }
}

/// A level file's header and tile index, checked: what a level is made of before its tiles are
/// decoded (cheap: the Map checks every level when it starts and decodes a level when it is
/// first drawn).
struct LevelHeader: Sendable {
    struct Tile: Sendable {
        var column: Int, row: Int, start: Int, length: Int
    }

    let level: Int
    let quantum: Double
    let tileSize: Int
    let columns: Int
    let rows: Int
    let dataStart: Int
    let tiles: [Tile]

    /// Reads the header and the index of a level file (`geo-N.bin`), treating every byte as hostile.
    /// `bytes` is the whole file: an array, or the file mapped into memory (`Data`), whose pages the
    /// check reads without copying them.
    init<Bytes: RandomAccessCollection<UInt8>>(bytes: Bytes, expectedIndex: Int, file: String) throws(MapError)
    where Bytes.Index == Int {
        func fail(_ offset: Int?, _ reason: String) -> MapError {
            .malformed(file: file, line: nil, reason: (offset.map { "byte \($0): " } ?? "") + reason)
        }
        guard bytes.count >= GeoLevel.headerSize else {
            throw fail(nil, "\(bytes.count) bytes, too short for the \(GeoLevel.headerSize)-byte header (truncated?)")
        }
        guard bytes.startIndex == 0, Array(bytes[0..<8]) == GeoLevel.magic else {
            throw fail(0, "not a Map geography file (no \"HMAPGEO1\" at the start)")
        }
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        let level = u32(8)
        let nanodegrees = u32(12)
        let tileSize = u32(16)
        let tileCount = u32(20)
        guard level == expectedIndex else {
            throw fail(8, "level \(level), expected \(expectedIndex) (the number in the file's name)")
        }
        guard nanodegrees > 0, nanodegrees <= 1_000_000_000 else {
            throw fail(12, "a quantum of \(nanodegrees) nanodegrees (expected 1 to 1,000,000,000)")
        }
        let quantum = Double(nanodegrees) / 1e9
        let tileDegrees = Double(tileSize) * quantum
        let columnsValue = 360 / tileDegrees
        let rowsValue = 180 / tileDegrees
        guard tileSize > 0, tileSize < 1 << 24, tileDegrees >= 0.1, tileDegrees <= 180,
            abs(columnsValue - columnsValue.rounded()) < 1e-6, abs(rowsValue - rowsValue.rounded()) < 1e-6
        else {
            throw fail(
                16, "tiles of \(tileSize) units of \(quantum)° do not divide the world into 0.1° to 180° squares")
        }
        let columns = Int(columnsValue.rounded())
        let rows = Int(rowsValue.rounded())
        guard tileCount <= columns * rows else {
            throw fail(20, "\(tileCount) tiles, but the grid has only \(columns * rows)")
        }
        let dataStart = GeoLevel.headerSize + tileCount * GeoLevel.indexEntrySize
        guard dataStart <= bytes.count else {
            throw fail(nil, "\(bytes.count) bytes, too short for the index of \(tileCount) tiles (truncated?)")
        }
        // One bit per square of the grid (at most 3,600 x 1,800 of them, 810 KB, for the
        // finest grid the check above allows): a set of integers cost a hash and, as it grew,
        // rehashing for each of a level's thousands of tiles when a device started.
        var seen = [UInt64](repeating: 0, count: (columns * rows + 63) / 64)
        var tiles: [Tile] = []
        tiles.reserveCapacity(tileCount)
        for tile in 0..<tileCount {
            let entry = GeoLevel.headerSize + tile * GeoLevel.indexEntrySize
            let column = u16(entry)
            let row = u16(entry + 2)
            let offset = u32(entry + 4)
            let length = u32(entry + 8)
            guard column < columns, row < rows else {
                throw fail(
                    entry, "tile \(tile) is at column \(column), row \(row), outside the \(columns)x\(rows) grid")
            }
            let square = row * columns + column
            let bit: UInt64 = 1 << UInt64(square % 64)
            guard seen[square / 64] & bit == 0 else {
                throw fail(entry, "tile \(tile) repeats column \(column), row \(row)")
            }
            seen[square / 64] |= bit
            let start = dataStart + offset
            guard offset <= bytes.count - dataStart, length <= bytes.count - start, length > 0 else {
                throw fail(
                    entry, "tile \(tile)'s \(length) bytes at \(offset) go past the end of the file (truncated?)")
            }
            tiles.append(Tile(column: column, row: row, start: start, length: length))
        }
        self.level = level
        self.quantum = quantum
        self.tileSize = tileSize
        self.columns = columns
        self.rows = rows
        self.dataStart = dataStart
        self.tiles = tiles
    }
}

/// Reads LEB128 varints, never past `end`.
struct VarintReader {
    let bytes: [UInt8]
    var position: Int
    let end: Int

    var isAtEnd: Bool { position >= end }
    var remaining: Int { end - position }

    /// The next unsigned varint (at most 5 bytes, below 2^35).
    mutating func next(_ file: String) throws(MapError) -> Int {
        let start = position
        var value = 0
        var shift = 0
        while true {
            guard position < end else {
                throw .malformed(
                    file: file, line: nil, reason: "byte \(start): the data ends inside a number (truncated?)")
            }
            guard shift <= 28 else {
                throw .malformed(file: file, line: nil, reason: "byte \(start): a number longer than 5 bytes")
            }
            let byte = bytes[position]
            position += 1
            value |= Int(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 { return value }
        }
    }
}

/// The Map's geography: its levels of detail, with what could not be loaded.
///
/// Every level's file is read and its header and tile index checked when the Map starts (a
/// truncated or damaged file is named in ``problems`` at once); a level's tiles are decoded the
/// first time it is drawn (or by ``decodeAll()`` in the background, once a Map first comes to
/// the front), so starting costs a few milliseconds whatever the finest level weighs. A level
/// that is missing or damaged is left out, and its zooms are drawn from the nearest level that
/// loaded.
package struct MapGeography: Sendable {
    /// The zoom from which each level is used (level 0 below level 1's). A level's tolerance is
    /// half a braille dot a quarter of a zoom step past its first zoom (`scripts/map/README.md`),
    /// so a level is used until then: a coarser level is less to draw.
    package static let levelZooms: [Double] = [-.infinity, 0, 1.25, 3.25, 5.25, 7.25]
    private let slots: [LevelSlot]
    /// What could not be read or checked when the Map started.
    private let startProblems: [MapError]

    /// Levels already decoded (nil for one that is missing).
    package init(levels: [GeoLevel?], problems: [MapError] = []) {
        slots = levels.map { LevelSlot(decoded: $0) }
        startProblems = problems
    }

    /// Checks every level's file of `resources`, its header and index; the tiles are read and
    /// decoded when first needed.
    ///
    /// The check reads the file mapped into memory, so a device whose Map is never opened holds
    /// none of its 7.7 MB in private memory (the pages stay the file's, shared and reclaimable).
    package init(resources: MapResources) {
        var slots: [LevelSlot] = []
        var problems: [MapError] = []
        for index in Self.levelZooms.indices {
            let url = resources.geography(level: index)
            do throws(MapError) {
                let data = try LevelSlot.read(url, options: .alwaysMapped)
                // Through a buffer pointer: `Data`'s own subscript costs a branch per byte read.
                let header = data.withUnsafeBytes { raw in
                    Result { () throws(MapError) in
                        try LevelHeader(bytes: raw, expectedIndex: index, file: url.lastPathComponent)
                    }
                }
                _ = try header.get()
                slots.append(LevelSlot(waitingFor: url, expectedIndex: index))
            } catch {
                slots.append(LevelSlot(decoded: nil))
                problems.append(error)
            }
        }
        self.slots = slots
        startProblems = problems
    }

    /// Every level, decoded now (nil for one that could not be).
    package var levels: [GeoLevel?] { slots.map { $0.level() } }

    /// What could not be loaded, one error per file: at start, and any level whose tiles turned
    /// out damaged when decoded.
    package var problems: [MapError] { startProblems + slots.compactMap(\.decodingProblem) }

    /// How many levels have been decoded (or found damaged) so far.
    var decodedLevelCount: Int { slots.count { !$0.isWaiting } }

    /// Decodes every level not decoded yet (the Map does it in the background once it is first
    /// brought to the front).
    package func decodeAll() {
        for slot in slots { _ = slot.level() }
    }

    /// Decodes the levels not decoded yet on a thread of its own, so zooming in seldom waits for
    /// them; nothing when every level is decoded. The Map calls it when it comes to the front: a
    /// device whose Map is never opened keeps none of it (the decoded levels take about 28 MB).
    package func decodeInBackground() {
        guard slots.contains(where: \.isWaiting) else { return }
        Thread.detachNewThread { decodeAll() }
    }

    /// The level for `zoom` (the finest whose zoom has been reached), or the nearest one that
    /// loaded; nil when none did.
    package func level(forZoom zoom: Double) -> GeoLevel? {
        let wanted = Self.levelZooms.lastIndex { $0 <= zoom } ?? 0
        let order = slots.indices.sorted { (abs($0 - wanted), -$0) < (abs($1 - wanted), -$1) }
        for index in order { if let level = slots[index].level() { return level } }
        return nil
    }
}

/// One level: decoded, or its checked file waiting to be read and decoded (once, by whoever needs
/// it first; a second caller waits for that decoding rather than repeating it).
final class LevelSlot: Sendable {
    private enum State {
        case waiting(URL, expectedIndex: Int)
        case decoded(GeoLevel?)
        case failed(MapError)
    }

    private let state: Mutex<State>

    init(decoded level: GeoLevel?) { state = Mutex(.decoded(level)) }
    init(waitingFor file: URL, expectedIndex: Int) { state = Mutex(.waiting(file, expectedIndex: expectedIndex)) }

    /// The bytes of a level file, or the error that names it.
    static func read(_ url: URL, options: Data.ReadingOptions = []) throws(MapError) -> Data {
        do {
            return try Data(contentsOf: url, options: options)
        } catch {
            throw .unreadable(file: url.lastPathComponent, reason: error.localizedDescription)
        }
    }

    /// The level, decoded now if it was not; nil when it is missing or its tiles are damaged.
    ///
    /// The file is read again and checked whole: what was checked when the Map started may have
    /// changed on disk since.
    func level() -> GeoLevel? {
        state.withLock { state in
            switch state {
            case .decoded(let level): return level
            case .failed: return nil
            case .waiting(let url, let expectedIndex):
                do throws(MapError) {
                    let bytes = try [UInt8](Self.read(url))
                    let level = try GeoLevel(bytes: bytes, expectedIndex: expectedIndex, file: url.lastPathComponent)
                    state = .decoded(level)
                    return level
                } catch {
                    state = .failed(error)
                    return nil
                }
            }
        }
    }

    /// Whether the level's tiles are still waiting to be decoded.
    var isWaiting: Bool {
        state.withLock { state in
            if case .waiting = state { return true }
            return false
        }
    }

    /// The error of tiles found damaged when decoded.
    var decodingProblem: MapError? {
        state.withLock { state in
            if case .failed(let error) = state { return error }
            return nil
        }
    }
}
