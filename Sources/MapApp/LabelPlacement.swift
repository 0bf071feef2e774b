import TerminalCells

/// A city to label: where its marker goes and its name.
package struct LabelCandidate: Hashable, Sendable {
    package var marker: Point
    package var text: String
    /// The text's width in cells.
    package var width: Int

    package init(marker: Point, text: String) {
        self.init(marker: marker, text: text, width: TextWidth.of(text))
    }

    /// A candidate whose text's width is known (`TextWidth.of(text)`).
    init(marker: Point, text: String, width: Int) {
        self.marker = marker
        self.text = text
        self.width = width
    }
}

/// A marker that was placed, with its label when one fitted; or a name without a marker (a
/// country's), centred on its point.
package struct PlacedLabel: Hashable, Sendable {
    /// Where the label goes relative to its marker.
    package enum Position: Hashable, Sendable, CaseIterable {
        case right, left, above, below
        /// On the point itself (a name without a marker).
        case centred

        /// The positions a place's name is tried in, in order.
        static let aroundMarker: [Position] = [.right, .left, .above, .below]
    }

    package var marker: Point
    package var text: String
    /// Nil: the marker alone (no position for the name was free).
    package var position: Position?
    /// The cells of the name (empty without one).
    package var textFrame: Rect
    /// A name without a marker (``marker`` is only its point).
    package var isName = false

    /// The marker's cell (none for a name alone) and the name's cells.
    package var cells: [Rect] {
        (isName ? [textFrame] : [Rect(origin: marker, size: Size(width: 1, height: 1)), textFrame]).filter {
            !$0.isEmpty
        }
    }
}

/// Places markers and names without overlaps: a greedy placement in priority order over an
/// occupancy grid, one flag a cell (a grid index: a label's test and its marking read only the
/// cells it covers; the standard approach of map labelling, as in Imhof's rules: a point's name
/// goes to its right by preference, then left, above, below).
///
/// Each candidate in order: its marker cell must be free and not next to another name, else the
/// city is left out; then the first of its positions whose cells, with a one-cell margin left
/// and right, are free and inside the area takes the name; when none is free, the marker stays
/// alone. Names never cover a marker or another name, and two names on one row are at least a
/// cell apart.
package struct LabelPlacer: Sendable {
    package var area: Rect
    private var occupied: [Bool]

    package init(area: Rect) {
        self.area = area
        occupied = Array(repeating: false, count: max(0, area.width * area.height))
    }

    /// Places `candidates` (most important first) and returns those placed, in that order.
    package static func place(_ candidates: [LabelCandidate], in area: Rect) -> [PlacedLabel] {
        var placer = LabelPlacer(area: area)
        return candidates.compactMap { placer.place($0) }
    }

    /// Places one candidate, or returns nil when its marker's cell is taken or outside.
    package mutating func place(_ candidate: LabelCandidate) -> PlacedLabel? {
        let marker = candidate.marker
        guard area.contains(marker), isFree(Rect(origin: marker, size: Size(width: 1, height: 1))) else { return nil }
        let width = candidate.width
        var placed = PlacedLabel(
            marker: marker, text: candidate.text, position: nil,
            textFrame: Rect(x: marker.x, y: marker.y, width: 0, height: 0))
        if width > 0 {
            for position in PlacedLabel.Position.aroundMarker {
                let frame = Self.frame(of: position, marker: marker, width: width)
                let padded = frame.inset(left: -1, right: -1)
                guard area.contains(frame.origin), frame.maxX <= area.maxX, frame.maxY <= area.maxY,
                    isFree(padded.intersection(area))
                else { continue }
                placed.position = position
                placed.textFrame = frame
                mark(padded.intersection(area))
                break
            }
        }
        mark(Rect(origin: marker, size: Size(width: 1, height: 1)))
        return placed
    }

    /// Places a name without a marker, centred on `point`, with a free cell either side; nil
    /// when its cells are taken or leave the area.
    package mutating func placeName(_ text: String, centredAt point: Point) -> PlacedLabel? {
        let width = TextWidth.of(text)
        guard width > 0 else { return nil }
        let frame = Self.frame(of: .centred, marker: point, width: width)
        let padded = frame.inset(left: -1, right: -1)
        guard area.contains(frame.origin), frame.maxX <= area.maxX, frame.maxY <= area.maxY,
            isFree(padded.intersection(area))
        else { return nil }
        mark(padded.intersection(area))
        return PlacedLabel(marker: point, text: text, position: .centred, textFrame: frame, isName: true)
    }

    /// The name's cells for `position` ("● Name" to the right, "Name ●" to the left, centred on
    /// the row above or below).
    static func frame(of position: PlacedLabel.Position, marker: Point, width: Int) -> Rect {
        switch position {
        case .right: Rect(x: marker.x + 2, y: marker.y, width: width, height: 1)
        case .left: Rect(x: marker.x - 1 - width, y: marker.y, width: width, height: 1)
        case .above: Rect(x: marker.x - width / 2, y: marker.y - 1, width: width, height: 1)
        case .below: Rect(x: marker.x - width / 2, y: marker.y + 1, width: width, height: 1)
        case .centred: Rect(x: marker.x - width / 2, y: marker.y, width: width, height: 1)
        }
    }

    private func isFree(_ rect: Rect) -> Bool {
        guard !rect.isEmpty else { return true }
        for y in rect.minY..<rect.maxY {
            let row = (y - area.y) * area.width - area.x
            for x in rect.minX..<rect.maxX where occupied[row + x] { return false }
        }
        return true
    }

    private mutating func mark(_ rect: Rect) {
        guard !rect.isEmpty else { return }
        for y in rect.minY..<rect.maxY {
            let row = (y - area.y) * area.width - area.x
            for x in rect.minX..<rect.maxX { occupied[row + x] = true }
        }
    }
}
