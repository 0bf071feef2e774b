import HandoffCore
import HandoffTestSupport
import TerminalCells
import Testing

@testable import MapApp

@Suite("Label placement")
struct LabelPlacementTests {
    @Test func theFirstPositionIsToTheRightThenTheOthers() {
        let area = Rect(x: 0, y: 0, width: 30, height: 5)
        let placed = LabelPlacer.place(
            [
                LabelCandidate(marker: Point(x: 5, y: 2), text: "Alpha"),
                LabelCandidate(marker: Point(x: 14, y: 2), text: "Beta"),  // right is free
                LabelCandidate(marker: Point(x: 8, y: 2), text: "Gamma"),  // inside Alpha's name: left out
                LabelCandidate(marker: Point(x: 29, y: 3), text: "Delta"),  // at the edge: to the left
                LabelCandidate(marker: Point(x: 14, y: 3), text: "Eps"),  // below Beta: its own row is free
            ], in: area)
        #expect(placed.map(\.text) == ["Alpha", "Beta", "Delta", "Eps"])
        #expect(placed[0].position == .right && placed[0].textFrame == Rect(x: 7, y: 2, width: 5, height: 1))
        #expect(placed[1].position == .right)
        #expect(placed[2].position == .left && placed[2].textFrame == Rect(x: 23, y: 3, width: 5, height: 1))
        expectNoLabelOverlaps(placed, in: area, "fixed")
    }

    @Test func aNameWithoutAMarkerIsCentredAndKeepsItsSpace() {
        var placer = LabelPlacer(area: Rect(x: 0, y: 0, width: 30, height: 3))
        let portugal = placer.placeName("Portugal", centredAt: Point(x: 10, y: 1))
        #expect(portugal?.textFrame == Rect(x: 6, y: 1, width: 8, height: 1))
        #expect(
            portugal?.isName == true && portugal?.cells == [Rect(x: 6, y: 1, width: 8, height: 1)], "no marker cell")
        #expect(
            placer.placeName("Spain", centredAt: Point(x: 16, y: 1)) == nil,
            "it would touch Portugal (no free cell between)")
        #expect(placer.placeName("Spain", centredAt: Point(x: 18, y: 1)) != nil)
        #expect(placer.placeName("Atlantic", centredAt: Point(x: 2, y: 0)) == nil, "it would leave the area")
        #expect(
            placer.place(LabelCandidate(marker: Point(x: 10, y: 1), text: "Lisbon")) == nil,
            "a marker never goes under a name")
    }

    @Test func aCrowdedMarkerKeepsItsDotWithoutAName() {
        let area = Rect(x: 0, y: 0, width: 12, height: 1)
        let placed = LabelPlacer.place(
            [
                LabelCandidate(marker: Point(x: 0, y: 0), text: "Longname"),
                LabelCandidate(marker: Point(x: 11, y: 0), text: "Other"),
            ], in: area)
        #expect(placed.count == 2)
        #expect(placed[0].position == .right)
        #expect(placed[1].position == nil, "no room left, right, above or below")
        expectNoLabelOverlaps(placed, in: area, "crowded")
    }

    /// Random crowds of random names: nothing overlaps, ever.
    @Test func randomCrowdsNeverOverlap() {
        var generator = SplitMix64(seed: 42)
        for round in 0..<300 {
            let area = Rect(
                x: Int(generator.next() % 5), y: Int(generator.next() % 5),
                width: 1 + Int(generator.next() % 120), height: 1 + Int(generator.next() % 40))
            let count = Int(generator.next() % 200)
            let candidates = (0..<count).map { _ in
                LabelCandidate(
                    marker: Point(
                        x: area.x - 2 + Int(generator.next() % UInt64(area.width + 4)),
                        y: area.y - 1 + Int(generator.next() % UInt64(area.height + 2))),
                    text: String(repeating: "x", count: Int(generator.next() % 14)))
            }
            let placed = LabelPlacer.place(candidates, in: area)
            expectNoLabelOverlaps(placed, in: area, "round \(round) in \(area)")
        }
    }

    /// The real map over many regions and sizes: markers and names never overlap, and every
    /// name drawn is on screen as placed.
    @Test func theMapNeverOverlapsItsLabels() throws {
        let map = try standaloneMap()
        var generator = SplitMix64(seed: 7)
        for round in 0..<120 {
            let camera = MapCamera(
                latitude: Double(generator.next() % 140) - 70, longitude: Double(generator.next() % 360) - 180,
                zoom: Double(generator.next() % 6))
            let size = Size(width: 20 + Int(generator.next() % 180), height: 6 + Int(generator.next() % 54))
            let grid = render(map, camera, width: size.width, height: size.height)
            let area = Rect(x: 0, y: 0, width: size.width, height: map.viewport.height)
            expectNoLabelOverlaps(map.placedLabels, in: area, "round \(round) at \(camera) in \(size)")
            for label in map.placedLabels where label.position != nil {
                let row = grid.line(label.textFrame.y)
                #expect(row.contains(label.text), "round \(round): “\(label.text)” is drawn")
            }
        }
    }

    @Test func theWorldViewNamesOnlyTheFirstCities() throws {
        let map = try standaloneMap()
        _ = render(map, .world, width: 200, height: 60)
        let named = map.placedLabels.filter { $0.position != nil && !$0.isName }
        #expect(named.count == MapRenderer.nameLimit(zoom: 0, area: Rect(x: 0, y: 0, width: 200, height: 59)))
        #expect(named.count == 12)
        #expect(named.contains { $0.text == "Beijing" }, "the most populous countries' cities come first")
        let markers = map.placedLabels.filter { !$0.isName }
        #expect(markers.count <= named.count + 4, "beyond the limit no more markers (a few crowded ones keep no name)")
    }

    /// A name of one-cell scalars is measured by counting its scalars (and drawn cell by cell):
    /// each such scalar is one cell wide and a character of its own, whatever follows it.
    @Test func aNarrowNameIsMeasuredByItsScalars() {
        let scalars =
            (UInt32(0x20)...0x7E).compactMap(Unicode.Scalar.init)
            + (UInt32(0xA0)...0x2FF).compactMap(Unicode.Scalar.init)
        for scalar in scalars { #expect(TextWidth.of(Character(scalar)) == 1, "U+\(String(scalar.value, radix: 16))") }
        var all = String()
        all.unicodeScalars.append(contentsOf: scalars + scalars.reversed())
        #expect(all.count == 2 * scalars.count, "none joins its neighbours into one character")
        for name in ["Lisbon", "São Paulo", "Zürich", "Łódź", "Ağrı", "N'Djamena"] {
            #expect(MapRenderer.narrowWidth(name) == TextWidth.of(name), "\(name)")
        }
        for name in ["東京", "Cafe\u{301}", "Tab\there"] {
            #expect(MapRenderer.narrowWidth(name) == nil, "\(name) is measured by TextWidth")
        }
    }
}
