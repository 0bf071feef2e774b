/// A key press as the run loop delivers it, independent of curses.
package enum Key: Hashable, Sendable, CustomStringConvertible {
    /// A printable character (including space).
    case character(Character)
    /// Control plus a letter, e.g. `.control("l")` for Ctrl-L.
    case control(Character)
    case up, down, left, right
    case enter, escape, backspace, tab, backTab, delete
    case pageUp, pageDown, home, end
    case function(Int)

    package var description: String {
        switch self {
        case .character(" "): "Space"
        case .character(let c): String(c)
        case .control(let c): "Ctrl-\(c.uppercased())"
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .enter: "Enter"
        case .escape: "Esc"
        case .backspace: "Backspace"
        case .tab: "Tab"
        case .backTab: "Shift-Tab"
        case .delete: "Delete"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .home: "Home"
        case .end: "End"
        case .function(let n): "F\(n)"
        }
    }
}
