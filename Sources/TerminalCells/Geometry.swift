/// A cell position on a grid: column `x` from the left, row `y` from the top, both from 0.
package struct Point: Hashable, Sendable, CustomStringConvertible {
    package var x: Int
    package var y: Int

    package init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    package static let zero = Point(x: 0, y: 0)
    package var description: String { "(\(x), \(y))" }
}

/// A size in cells.
package struct Size: Hashable, Sendable, CustomStringConvertible {
    package var width: Int
    package var height: Int

    package init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
    }

    package static let zero = Size(width: 0, height: 0)
    package var description: String { "\(width)x\(height)" }
}

/// A rectangle of cells. Empty when either side is 0; never negative.
package struct Rect: Hashable, Sendable, CustomStringConvertible {
    package var origin: Point
    package var size: Size

    package init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    package init(x: Int, y: Int, width: Int, height: Int) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    package var x: Int { origin.x }
    package var y: Int { origin.y }
    package var width: Int { size.width }
    package var height: Int { size.height }
    package var minX: Int { origin.x }
    package var minY: Int { origin.y }
    /// One past the last column.
    package var maxX: Int { origin.x + size.width }
    /// One past the last row.
    package var maxY: Int { origin.y + size.height }
    package var isEmpty: Bool { size.width == 0 || size.height == 0 }
    package var description: String { "\(origin) \(size)" }

    package func contains(_ point: Point) -> Bool {
        point.x >= minX && point.x < maxX && point.y >= minY && point.y < maxY
    }

    /// The overlap of two rectangles (empty, at `self`'s origin, when they do not overlap).
    package func intersection(_ other: Rect) -> Rect {
        let left = max(minX, other.minX)
        let top = max(minY, other.minY)
        let right = min(maxX, other.maxX)
        let bottom = min(maxY, other.maxY)
        guard right > left, bottom > top else { return Rect(origin: origin, size: .zero) }
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Shrunk by the given margins on each side (never below zero size).
    package func inset(top: Int = 0, left: Int = 0, bottom: Int = 0, right: Int = 0) -> Rect {
        Rect(x: x + left, y: y + top, width: width - left - right, height: height - top - bottom)
    }

    /// Shrunk by `amount` on every side.
    package func inset(by amount: Int) -> Rect {
        inset(top: amount, left: amount, bottom: amount, right: amount)
    }

    /// Splits off `count` rows from the top: (top part, rest).
    package func splitTop(_ count: Int) -> (Rect, Rect) {
        let taken = min(max(0, count), height)
        return (
            Rect(x: x, y: y, width: width, height: taken),
            Rect(x: x, y: y + taken, width: width, height: height - taken)
        )
    }

    /// Splits off `count` rows from the bottom: (rest, bottom part).
    package func splitBottom(_ count: Int) -> (Rect, Rect) {
        let taken = min(max(0, count), height)
        return (
            Rect(x: x, y: y, width: width, height: height - taken),
            Rect(x: x, y: maxY - taken, width: width, height: taken)
        )
    }

    /// Splits off `count` columns from the left: (left part, rest).
    package func splitLeft(_ count: Int) -> (Rect, Rect) {
        let taken = min(max(0, count), width)
        return (
            Rect(x: x, y: y, width: taken, height: height),
            Rect(x: x + taken, y: y, width: width - taken, height: height)
        )
    }

    /// Splits off `count` columns from the right: (rest, right part).
    package func splitRight(_ count: Int) -> (Rect, Rect) {
        let taken = min(max(0, count), width)
        return (
            Rect(x: x, y: y, width: width - taken, height: height),
            Rect(x: maxX - taken, y: y, width: taken, height: height)
        )
    }

    /// A rectangle of `size` (clamped to this one) centred in this one.
    package func centered(_ size: Size) -> Rect {
        let w = min(size.width, width)
        let h = min(size.height, height)
        return Rect(x: x + (width - w) / 2, y: y + (height - h) / 2, width: w, height: h)
    }

    /// The row `index` rows below the top, one row high (empty when outside).
    package func row(_ index: Int) -> Rect {
        guard index >= 0, index < height else { return Rect(x: x, y: y, width: width, height: 0) }
        return Rect(x: x, y: y + index, width: width, height: 1)
    }
}
