import HandoffCore
import TerminalCells

/// The home screen's grid of app icons.
enum HomeScreenView {
    static let cellWidth = 10
    static let cellHeight = 5

    /// How many icons fit on a row of a screen `width` cells wide.
    static func columns(forWidth width: Int) -> Int {
        max(1, (width - 2) / cellWidth)
    }
}

extension ScreenView {
    func drawHome(into grid: inout Grid, area: Rect) {
        let apps = device.apps.filter(\.canOpen)
        // A laptop's menu bar already says "Desktop".
        if device.info.kind != .laptop { grid.write("Home", in: area, row: 0, style: Style(.dim), alignment: .center) }
        guard !apps.isEmpty else {
            grid.write("No apps installed", in: area, row: 2, style: Style(.dim), alignment: .center)
            return
        }
        let columns = HomeScreenView.columns(forWidth: area.width)
        let used = min(columns, apps.count) * HomeScreenView.cellWidth
        let left = area.x + max(1, (area.width - used) / 2)
        let selected = min(max(0, state.homeSelection), apps.count - 1)
        let focused = state.focus == .main && state.overlay == nil
        for (index, app) in apps.enumerated() {
            let cell = Rect(
                x: left + (index % columns) * HomeScreenView.cellWidth,
                y: area.y + 1 + (index / columns) * HomeScreenView.cellHeight,
                width: HomeScreenView.cellWidth, height: HomeScreenView.cellHeight)
            guard cell.maxY <= area.maxY else { break }
            let isSelected = index == selected && focused
            let icon = Rect(x: cell.x + 2, y: cell.y, width: 5, height: 3)
            grid.box(icon, style: Style(isSelected ? .accent : .frame), lines: .rounded)
            grid.put(String(app.glyph), at: Point(x: icon.x + 2, y: icon.y + 1), style: Style(.title))
            let label = index < 9 ? "\(index + 1) \(app.name)" : app.name
            grid.write(
                TextWidth.truncate(label, to: cell.width - 1), in: cell, row: 3,
                style: isSelected ? Style(.selection) : Style(.normal), alignment: .center)
        }
    }
}
