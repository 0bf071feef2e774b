import DeviceAppKit
import Foundation
import TerminalCells

extension MapApp {
    /// The most rows a message may take at the bottom of the area.
    static let maximumMessageRows = 2

    /// Draws the map into `area` (and nowhere else): the map (``mapSize(in:)``) with the cursor
    /// when it is shown, a status line at the bottom (the centre or the cursor's position, the
    /// zoom and a scale bar), or instead a message, which takes the map's last row when it needs
    /// two, and the search field over the map's top left while it is open. It only draws.
    package func render(into grid: inout Grid, area: Rect) {
        let area = area.intersection(grid.bounds)
        guard !area.isEmpty else { return }
        let (mapArea, footer) = area.splitBottom(area.height - Self.mapSize(in: area.size).height)
        renderer.render(camera, rendering: rendering, highlighted: highlighted, into: &grid, area: mapArea)
        if let cursor {
            let point = Point(x: mapArea.x + mapArea.width / 2 + cursor.x, y: mapArea.y + mapArea.height / 2 + cursor.y)
            if mapArea.contains(point) {
                grid[point.x, point.y] = Cell("+", style: Style(.accent, bold: true, reverse: true))
            }
        }
        let notice = noticeLines(width: area.width, available: area.height - 1)
        if notice.isEmpty {
            drawStatus(into: &grid, row: footer)
        } else {
            let rows = area.splitBottom(notice.count).1
            grid.fill(rows)
            for (index, line) in notice.prefix(rows.height).enumerated() {
                grid.put(line.text, at: Point(x: rows.x, y: rows.y + index), style: line.style, clip: rows)
            }
        }
        if let search { drawSearch(search, into: &grid, area: mapArea) }
    }

    /// "48.86°N 2.35°E · zoom 4" (the centre; with the cursor shown, "cursor 48.86°N 2.35°E ·
    /// zoom 4", where it points) on the left, a scale bar on the right.
    private func drawStatus(into grid: inout Grid, row: Rect) {
        guard !row.isEmpty else { return }
        grid.fill(row, style: Style(.statusBar))
        let position: String
        if let point = cursorCoordinate {
            position = "cursor " + MapRegion.describe(latitude: point.latitude, longitude: point.longitude)
        } else {
            position = MapRegion.describe(latitude: camera.latitude, longitude: camera.longitude)
        }
        let left = " \(position) · zoom \(MapRegion.format(camera.zoom, decimals: 1))"
        let scale = Self.scaleBar(camera)
        let scaleWidth = TextWidth.of(scale.bar) + 1 + TextWidth.of(scale.label) + 1
        let room = row.width - scaleWidth - 1
        if room >= TextWidth.of(left) {
            grid.put(left, at: row.origin, style: Style(.statusBar), clip: row)
            let x = row.maxX - scaleWidth
            grid.put(scale.bar, at: Point(x: x, y: row.y), style: Style(.statusBar, bold: true), clip: row)
            grid.put(
                scale.label, at: Point(x: x + TextWidth.of(scale.bar) + 1, y: row.y), style: Style(.statusBar),
                clip: row)
        } else {
            grid.put(TextWidth.truncate(left, to: row.width), at: row.origin, style: Style(.statusBar), clip: row)
        }
    }

    /// A bar of a round distance ("├────┤", "500 km") a few cells long at the centre's latitude.
    static func scaleBar(_ camera: MapCamera) -> (bar: String, label: String) {
        let kilometresPerColumn = camera.degreesPerColumn * 111.32 * max(cos(camera.latitude * .pi / 180), 0.01)
        var distance = 1.0
        for exponent in 0...5 {
            for step in [1.0, 2.0, 5.0] {
                let candidate = step * pow(10, Double(exponent))
                if candidate / kilometresPerColumn <= 12 { distance = candidate }
            }
        }
        let cells = max(2, Int((distance / kilometresPerColumn).rounded()))
        let label =
            distance >= 1000
            ? "\(Int(distance / 1000)),\(String(format: "%03d", Int(distance) % 1000)) km" : "\(Int(distance)) km"
        return ("├" + String(repeating: "─", count: cells - 2) + "┤", label)
    }

    /// A box over the map's top left: the query and up to five matches.
    private func drawSearch(_ search: MapSearch, into grid: inout Grid, area: Rect) {
        let width = min(area.width, 44)
        let shown = min(search.matches.count, 5, max(0, area.height - 3))
        let height = min(area.height, 3 + max(shown, search.query.isEmpty ? 0 : 1))
        guard width >= 8, height >= 3 else { return }
        let box = Rect(x: area.x, y: area.y, width: width, height: height)
        grid.fill(box)
        grid.box(box, style: Style(.frame), title: "Search")
        let inner = box.inset(by: 1)
        grid.put(
            TextWidth.truncate("› " + search.query, to: inner.width - 1) + "▏", at: inner.origin, style: Style(.accent),
            clip: inner)
        if search.matches.isEmpty {
            if !search.query.isEmpty, inner.height > 1 {
                grid.put("No place matches", at: Point(x: inner.x, y: inner.y + 1), style: Style(.dim), clip: inner)
            }
            return
        }
        let first = max(0, search.selection - shown + 1)
        for (offset, city) in search.matches.dropFirst(first).prefix(shown).enumerated() {
            let index = first + offset
            let row = inner.row(1 + offset)
            let selected = index == search.selection
            let style = selected ? Style(.selection) : Style.normal
            if selected { grid.fill(row, style: style) }
            let text = (selected ? "▸ " : "  ") + city.name + (city.country.isEmpty ? "" : ", \(city.country)")
            grid.put(TextWidth.truncate(text, to: row.width), at: row.origin, style: style, clip: row)
        }
    }

    /// The continuation in progress, else the message (wrapped), else nothing.
    private func noticeLines(width: Int, available: Int) -> [(text: String, style: Style)] {
        guard available > 1, width > 0 else { return [] }
        if isContinuing { return [("Opening a region from another device…", Style(.accent))] }
        guard let message else { return [] }
        return message.lines(width: width, limit: min(Self.maximumMessageRows, available - 1))
    }
}
