/// Something that shows grids: a real terminal (`CursesTerminal`) or ``MemoryTerminal`` in tests.
///
/// A backend is owned by one thread (the run loop's); it is not meant to be shared.
package protocol TerminalBackend: AnyObject {
    /// The visible area in cells.
    var size: Size { get }
    /// Shows `grid`, replacing what was shown before.
    func draw(_ grid: Grid)
}

/// A headless backend for tests: it keeps the last grid drawn, and counts draws.
///
/// ```swift
/// let terminal = MemoryTerminal(size: Size(width: 80, height: 24))
/// terminal.draw(view.render(size: terminal.size))
/// #expect(terminal.text.contains("Nearby"))
/// ```
package final class MemoryTerminal: TerminalBackend {
    /// The visible area; set it to simulate a resize.
    package var size: Size
    /// The last grid drawn, or nil before the first draw.
    package private(set) var lastGrid: Grid?
    /// How many times ``draw(_:)`` was called.
    package private(set) var drawCount = 0

    package init(size: Size = Size(width: 80, height: 24)) {
        self.size = size
    }

    package func draw(_ grid: Grid) {
        lastGrid = grid
        drawCount += 1
    }

    /// The last grid as text (see ``Grid/text()``); empty before the first draw.
    package var text: String { lastGrid?.text() ?? "" }

    /// Forgets the last grid and resets the draw count.
    package func reset() {
        lastGrid = nil
        drawCount = 0
    }
}
