import DeviceAppKit
import TerminalCells

extension MapApp {
    /// The map: arrows pan by a quarter of the view, + (or =) and - (or _) zoom, / opens the
    /// search, 0 shows the whole world, m switches braille and half blocks. The search field:
    /// characters type, Backspace deletes, ↑ ↓ choose a match, Enter goes there, Esc closes.
    /// Other keys are the device's.
    public func handle(_ key: Key) -> Bool {
        if let search {
            return handleSearch(key, search)
        }
        let columns = Double(max(1, viewport.width / 4)), rows = Double(max(1, viewport.height / 4))
        switch key {
        case .left: move(camera.panned(columns: -columns, rows: 0))
        case .right: move(camera.panned(columns: columns, rows: 0))
        case .up: move(camera.panned(columns: 0, rows: -rows))
        case .down: move(camera.panned(columns: 0, rows: rows))
        case .character("+"), .character("="): move(camera.zoomed(by: 1))
        case .character("-"), .character("_"): move(camera.zoomed(by: -1))
        case .character("0"): move(MapCamera(fitting: MapRegion(latitude: 0, longitude: 0, latitudeDelta: 180, longitudeDelta: 360), in: viewport))
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

    private func move(_ target: MapCamera) {
        message = nil
        clearHighlight()
        show(target)
    }

    private func handleSearch(_ key: Key, _ search: MapSearch) -> Bool {
        var search = search
        switch key {
        case .escape:
            setSearch(nil)
            return true
        case .enter:
            guard search.matches.indices.contains(search.selection) else {
                message = search.query.isEmpty ? nil : MapMessage(.warning, "No city matches “\(search.query)”.")
                return true
            }
            let city = search.matches[search.selection]
            setSearch(nil)
            message = nil
            show(city)
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
