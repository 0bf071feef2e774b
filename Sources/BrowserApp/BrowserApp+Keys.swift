import DeviceAppKit
import Foundation
import TerminalCells

extension BrowserApp {
    /// The page: `g` (or `e`) edits the address; ↑ ↓ choose the previous or next link on screen,
    /// or scroll a row when there is none; Enter follows the chosen link; ← `b` Backspace go back,
    /// → `f` forward; Space PgDn and PgUp scroll a screen, Home End go to the top and the bottom;
    /// `r` reloads. Editing the address: typing edits it, Enter goes there, Esc stops editing,
    /// ← → Home End (Ctrl-A, Ctrl-E) move, Backspace Delete erase, Ctrl-U clears. Other keys
    /// (Esc on the page included) are the device's. Tab and Ctrl-L are the device's too, which is
    /// why the address bar is `g`.
    package func handle(_ key: Key) -> Bool {
        if addressBar != nil { return handleAddressKey(key) }
        switch key {
        case .character("g"), .character("e"):
            message = nil
            addressBar = AddressBar(editing: page?.url.absoluteString ?? "")
        case .down:
            message = nil
            moveSelection(forward: true)
        case .up:
            message = nil
            moveSelection(forward: false)
        case .enter:
            followSelectedLink()
        case .left, .backspace, .character("b"):
            goBack()
        case .right, .character("f"):
            goForward()
        case .pageDown, .character(" "):
            message = nil
            scroll(to: scrollOffset + max(1, viewport.height - 1))
        case .pageUp:
            message = nil
            scroll(to: scrollOffset - max(1, viewport.height - 1))
        case .home:
            message = nil
            scroll(to: 0)
        case .end:
            message = nil
            scroll(to: Int.max)
        case .character("r"):
            message = nil
            reload()
        default:
            return false
        }
        return true
    }

    private func handleAddressKey(_ key: Key) -> Bool {
        guard var bar = addressBar else { return false }
        switch key {
        case .enter:
            let typed = bar.string
            guard let url = AddressBar.url(from: typed) else {
                message = BrowserMessage(
                    .error,
                    typed.trimmingCharacters(in: .whitespaces).isEmpty
                        ? "Type an address, such as maps.handoffsim.example, then Enter (Esc: stop editing)."
                        : "“\(PageParser.cleanValue(typed))” is not a web address, and the simulator has no search engine. "
                            + "Try maps.handoffsim.example/?lat=48.85&lon=2.35&z=4")
                return true
            }
            addressBar = nil
            message = nil
            navigate(to: url)
        case .escape:
            addressBar = nil
            message = nil
        case .up, .down, .pageUp, .pageDown, .tab, .backTab:
            return true
        default:
            guard bar.handle(key) else { return false }
            addressBar = bar
            message = nil
        }
        return true
    }

    /// Chooses the next (or previous) link on screen; scrolls a row when there is none.
    private func moveSelection(forward: Bool) {
        let layout = layout()
        let height = max(1, viewport.height)
        let visible = scrollOffset..<(scrollOffset + height)
        let links = page?.links.indices ?? 0..<0
        let current = selectedLink
        let candidates =
            forward
            ? Array(links.filter { link in current.map { link > $0 } ?? true })
            : Array(links.filter { link in current.map { link < $0 } ?? false }.reversed())
        if let next = candidates.first, let rows = layout.rows(ofLink: next), rows.overlaps(visible) {
            selectedLink = next
            // Show the whole link when it runs past the screen's edge.
            if rows.upperBound > visible.upperBound {
                scrollOffset = min(rows.upperBound - height, layout.lastTop(height: height))
            }
            if rows.lowerBound < visible.lowerBound { scrollOffset = rows.lowerBound }
            return
        }
        scroll(to: scrollOffset + (forward ? 1 : -1))
    }

    /// Scrolls to `top` (clamped); a chosen link scrolled off screen gives way to one on screen.
    private func scroll(to top: Int) {
        let last = layout().lastTop(height: viewport.height)
        scrollOffset = min(max(0, top), last)
        selectFirstVisibleLink()
    }

    private func followSelectedLink() {
        guard let page, let selectedLink, page.links.indices.contains(selectedLink) else {
            message = BrowserMessage(
                .info,
                page?.links.isEmpty ?? true
                    ? "This page has no links: g types an address."
                    : "No link is chosen: ↑ ↓ choose one.")
            return
        }
        let link = page.links[selectedLink]
        guard let url = link.url else {
            message = BrowserMessage(.error, "The link “\(link.target)” is not a usable address.")
            return
        }
        message = nil
        navigate(to: url)
    }
}
