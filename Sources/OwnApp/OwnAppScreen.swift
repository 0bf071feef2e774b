import DeviceAppKit
import Foundation
import HandoffCore
import TerminalCells

/// What the own-app screen shows: a value made from the app at each frame.
package struct OwnAppView: Hashable, Sendable {
    package enum ActivityState: Hashable, Sendable {
        /// No activity file was given, and nothing was continued here.
        case none
        /// The activity is ready but was never made current (or was invalidated): `c` makes it.
        case notMade
        case current
        case notCurrent
    }

    package var displayName: String
    package var activityType: String?
    package var title: String?
    package var state: ActivityState
    package var needsSave: Bool
    package var userInfo: UserInfo
    /// The encoded payload's size, in bytes.
    package var payloadBytes: Int
    /// Apple's guidance (3 KB) and the limit past which devices refuse it (4611).
    package var guidanceBytes: Int
    package var limitBytes: Int
    /// Where the activity came from: the activity file, or the device it was continued from.
    package var source: String

    package init(
        displayName: String, activityType: String?, title: String?, state: ActivityState, needsSave: Bool,
        userInfo: UserInfo, payloadBytes: Int, guidanceBytes: Int, limitBytes: Int, source: String
    ) {
        self.displayName = displayName
        self.activityType = activityType
        self.title = title
        self.state = state
        self.needsSave = needsSave
        self.userInfo = userInfo
        self.payloadBytes = payloadBytes
        self.guidanceBytes = guidanceBytes
        self.limitBytes = limitBytes
        self.source = source
    }
}

/// The own-app screen's state and its reducer: which row is chosen, what is being edited, what
/// the screen says. Pure: keys in, an action for the app out.
package struct OwnAppScreen: Hashable, Sendable {
    /// An edit in progress: the value's path and the text typed so far.
    package struct Editing: Hashable, Sendable {
        package var path: [UserInfoPathStep]
        package var label: String
        package var text: String
    }

    /// What the app must do after a key.
    package enum Action: Hashable, Sendable {
        case makeCurrent
        case resign
        case invalidate
        case edit(path: [UserInfoPathStep], text: String)
    }

    package var selection = 0
    package var scroll = 0
    package var editing: Editing?
    package var message: AppMessage?
    /// The area's size, as the app was last told.
    package var viewport = Size(width: 76, height: 18)

    /// Rows above the tree: name and type, state, size, column heads.
    static let headerRows = 4
    /// The longest edit.
    static let maximumEditLength = 1024

    package init() {}

    /// How many tree rows fit (the last row is for the message or the editor).
    var visibleRows: Int { max(1, viewport.height - Self.headerRows - 1) }

    /// Handles `key` for a tree of `rows`; returns whether it was the app's, and what to do.
    package mutating func handle(_ key: Key, tree: ActivityTree) -> (handled: Bool, action: Action?) {
        if var editing {
            switch key {
            case .escape:
                self.editing = nil
                message = nil
            case .enter:
                self.editing = nil
                return (true, .edit(path: editing.path, text: editing.text))
            case .backspace, .delete:
                if !editing.text.isEmpty { editing.text.removeLast() }
                self.editing = editing
            case .character(let character):
                if editing.text.count < Self.maximumEditLength { editing.text.append(character) }
                self.editing = editing
            default:
                break
            }
            // Every key belongs to the editor while it is open.
            return (true, nil)
        }
        message = nil
        let count = tree.rows.count
        switch key {
        case .up: move(to: selection - 1, count: count)
        case .down: move(to: selection + 1, count: count)
        case .pageUp: move(to: selection - visibleRows, count: count)
        case .pageDown: move(to: selection + visibleRows, count: count)
        case .home: move(to: 0, count: count)
        case .end: move(to: count - 1, count: count)
        case .enter:
            guard tree.rows.indices.contains(selection) else { return (true, nil) }
            let row = tree.rows[selection]
            guard row.isEditable else {
                message = AppMessage(
                    .warning, "\(row.label) is a \(row.kind): only strings and numbers are edited here.")
                return (true, nil)
            }
            editing = Editing(path: row.path, label: row.label, text: editText(row))
        case .character("c"): return (true, .makeCurrent)
        case .character("r"): return (true, .resign)
        case .character("x"): return (true, .invalidate)
        default: return (false, nil)
        }
        return (true, nil)
    }

    private func editText(_ row: ActivityTree.Row) -> String {
        // A string row shows its value quoted; the editor starts from the bare text.
        if row.kind == "String", row.value.hasPrefix("\""), row.value.hasSuffix("\""), row.value.count >= 2 {
            return String(row.value.dropFirst().dropLast())
        }
        return row.value
    }

    mutating func move(to index: Int, count: Int) {
        selection = max(0, min(index, count - 1))
        if selection < scroll { scroll = selection }
        if selection >= scroll + visibleRows { scroll = selection - visibleRows + 1 }
    }

    /// Keeps the selection and scroll inside a tree of `count` rows and the viewport.
    package mutating func clamp(rows count: Int) {
        selection = max(0, min(selection, count - 1))
        scroll = max(0, min(scroll, max(0, count - visibleRows)))
        move(to: selection, count: count)
    }

    package static let keyHints = [
        KeyHint("↑↓", "choose"), KeyHint("Enter", "edit"), KeyHint("c", "make current"), KeyHint("r", "resign"),
        KeyHint("x", "invalidate"),
    ]

    // MARK: Drawing

    /// Draws `view` into `area` of `grid`.
    package func render(_ view: OwnAppView, into grid: inout Grid, area: Rect) {
        guard area.width > 0, area.height > 0 else { return }
        let tree = ActivityTree(view.userInfo)
        let x = area.x + 1
        let width = max(0, area.width - 2)
        func line(_ text: String, row: Int, style: Style) {
            guard row < area.height else { return }
            grid.put(TextWidth.truncate(text, to: width), at: Point(x: x, y: area.y + row), style: style, clip: area)
        }
        line("\(view.displayName) · \(view.activityType ?? "no activity")", row: 0, style: Style(.title, bold: true))
        var status: String
        switch view.state {
        case .none: status = "No activity: run the device with --activity FILE, or continue one here"
        case .notMade: status = "○ not made current yet (c makes it current)"
        case .current: status = "● current: nearby devices are offered it"
        case .notCurrent: status = "○ not current (c makes it current again)"
        }
        if view.needsSave { status += " · needsSave" }
        if let title = view.title, view.state != .none { status += " · “\(title)”" }
        line(status, row: 1, style: Style(view.state == .current ? .success : .dim))
        let percent = view.guidanceBytes > 0 ? view.payloadBytes * 100 / view.guidanceBytes : 0
        let size = ByteCount.text(view.payloadBytes)
        let sizeRole: Role
        var sizeText = "Payload \(size) · \(percent)% of Apple's 3 KB guidance · from \(view.source)"
        if view.payloadBytes > view.limitBytes {
            sizeRole = .error
            sizeText =
                "Payload \(size): over the \(view.limitBytes / 1024) KB limit, refused with 4611 · from \(view.source)"
        } else if view.payloadBytes > view.guidanceBytes {
            sizeRole = .warning
            sizeText = "Payload \(size): over Apple's 3 KB guidance (\(percent)%) · from \(view.source)"
        } else {
            sizeRole = .dim
        }
        line(sizeText, row: 2, style: Style(sizeRole))
        let columns = Self.columns(width: width)
        line(
            TextWidth.pad("Key", to: columns.key) + " " + TextWidth.pad("Type", to: columns.kind) + " Value", row: 3,
            style: Style(.dim, underline: true))
        let rows = tree.rows
        if rows.isEmpty {
            line(view.state == .none ? "" : "(the userInfo is empty)", row: Self.headerRows, style: Style(.dim))
        }
        for offset in 0..<visibleRows {
            let index = scroll + offset
            guard rows.indices.contains(index) else { break }
            let row = rows[index]
            let key = String(repeating: "  ", count: min(row.depth, 8)) + row.label
            let text =
                TextWidth.pad(key, to: columns.key) + " " + TextWidth.pad(row.kind, to: columns.kind) + " " + row.value
            let selected = index == selection && editing == nil
            line(text, row: Self.headerRows + offset, style: selected ? Style(.selection) : Style(.normal))
        }
        let bottom = area.height - 1
        if let editing {
            line(
                "Edit \(editing.label): \(editing.text)▏  Enter saves · Esc cancels", row: bottom, style: Style(.accent)
            )
        } else if let message {
            line(message.text, row: bottom, style: Style(message.role))
        }
    }

    /// The key and type columns' widths for a screen `width` cells wide: wider screens give
    /// the key more room; the value takes the rest.
    static func columns(width: Int) -> (key: Int, kind: Int) {
        let kind = width >= 60 ? 18 : 10
        let key = max(8, min(40, (width - kind) * 2 / 5))
        return (key, kind)
    }
}
