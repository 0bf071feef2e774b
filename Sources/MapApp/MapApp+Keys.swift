import DeviceAppKit
import TerminalCells

extension MapApp {
    /// The map: arrows pan by a quarter of the view (or, with the cursor shown, move it; at the
    /// edge the map pans), + (or =) and - (or _) zoom (towards the cursor when it is shown), c
    /// shows or hides the cursor, / opens the search, 0 shows the whole world, m switches braille
    /// and half blocks. A key pressed during a flight lands it first. The search field:
    /// characters type, Backspace deletes, ↑ ↓ choose a match, Enter flies there, Esc closes.
    /// Other keys are the device's.
    package func handle(_ key: Key) -> Bool {
        if let search {
            return handleSearch(key, search)
        }
        guard Self.isMapKey(key) else { return false }
        landFlight()
        let columns = Double(max(1, viewport.width / 4))
        let rows = Double(max(1, viewport.height / 4))
        switch key {
        case .left: cursor == nil ? move(camera.panned(columns: -columns, rows: 0)) : moveCursor(x: -2, y: 0)
        case .right: cursor == nil ? move(camera.panned(columns: columns, rows: 0)) : moveCursor(x: 2, y: 0)
        case .up: cursor == nil ? move(camera.panned(columns: 0, rows: -rows)) : moveCursor(x: 0, y: -1)
        case .down: cursor == nil ? move(camera.panned(columns: 0, rows: rows)) : moveCursor(x: 0, y: 1)
        case .character("+"), .character("="): move(zoomed(by: 1))
        case .character("-"), .character("_"): move(zoomed(by: -1))
        case .character("0"):
            move(
                MapCamera(
                    fitting: MapRegion(latitude: 0, longitude: 0, latitudeDelta: 180, longitudeDelta: 360), in: viewport
                ))
        case .character("c"):
            message = nil
            cursor = cursor == nil ? Point(x: 0, y: 0) : nil
        case .character("/"):
            message = nil
            setSearch(MapSearch())
        case .character("m"):
            message = nil
            setRendering(rendering == .braille ? .halfBlocks : .braille)
        default:
            return false
        }
        return true
    }

    /// The keys the map itself uses (the search field takes any character).
    private static func isMapKey(_ key: Key) -> Bool {
        switch key {
        case .left, .right, .up, .down: true
        case .character(let character): "+=-_0c/m".contains(character)
        default: false
        }
    }

    private func move(_ target: MapCamera) {
        message = nil
        clearHighlight()
        show(target)
    }

    /// Zoomed by `steps`, keeping the point under the cursor (when shown) under it.
    func zoomed(by steps: Double) -> MapCamera {
        let zoomed = camera.zoomed(by: steps)
        guard let cursor, let point = cursorCoordinate else { return zoomed }
        return MapCamera(
            latitude: point.latitude + Double(cursor.y) * 2 * zoomed.degreesPerColumn,
            longitude: point.longitude - Double(cursor.x) * zoomed.degreesPerColumn, zoom: zoomed.zoom)
    }

    /// Moves the cursor by `x` columns and `y` rows; past the map's edge the map pans instead.
    private func moveCursor(x: Int, y: Int) {
        guard let cursor else { return }
        message = nil
        let moved = Point(x: cursor.x + x, y: cursor.y + y)
        // The cursor's cells run from -width/2 to width - width/2 - 1 (the centre cell is width/2).
        let minX = -(viewport.width / 2)
        let maxX = viewport.width - viewport.width / 2 - 1
        let minY = -(viewport.height / 2)
        let maxY = viewport.height - viewport.height / 2 - 1
        let clamped = Point(x: min(max(moved.x, minX), maxX), y: min(max(moved.y, minY), maxY))
        self.cursor = clamped
        if clamped != moved {
            move(camera.panned(columns: Double(moved.x - clamped.x), rows: Double(moved.y - clamped.y)))
        }
    }

    private func handleSearch(_ key: Key, _ search: MapSearch) -> Bool {
        var search = search
        switch key {
        case .escape:
            setSearch(nil)
            return true
        case .enter:
            guard search.matches.indices.contains(search.selection) else {
                message = search.query.isEmpty ? nil : MapMessage(.warning, "No place matches “\(search.query)”.")
                return true
            }
            let city = search.matches[search.selection]
            setSearch(nil)
            message = nil
            fly(to: city)
            return true
        case .up:
            search.selection = max(0, search.selection - 1)
        case .down:
            search.selection = min(max(0, search.matches.count - 1), search.selection + 1)
        case .backspace, .delete:
            guard !search.query.isEmpty else { break }
            search.query.removeLast()
            search.matches = renderer.cities.search(search.query)
            search.selection = 0
        case .character(let character):
            guard search.query.count < Self.maximumQueryLength, TextWidth.of(character) > 0 else { break }
            search.query.append(character)
            search.matches = renderer.cities.search(search.query)
            search.selection = 0
        case .function, .control, .tab, .backTab:
            return false  // the device's keys (help, log, lock, quit) still work
        default:
            break
        }
        message = nil
        setSearch(search)
        return true
    }
}
