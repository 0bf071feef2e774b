import Foundation
import HandoffCore
import TerminalCells

extension ScreenView {
    /// The Nearby sidebar: every peer of the account, what it offers and whether (and where) this
    /// device can continue it; then what this device offers, and the network.
    func drawNearby(into grid: inout Grid, area: Rect) {
        let focused = state.focus == .nearby && !state.isLocked && state.overlay == nil
        let rows = state.nearbyRows(device: device)
        grid.box(
            area, style: Style(focused ? .accent : .frame), title: "Nearby · \(rows.count)",
            titleStyle: Style(focused ? .accent : .title), lines: focused ? .heavy : .light)
        let inside = area.inset(top: 1, left: 1, bottom: 1, right: 1)
        let (list, status) = inside.splitBottom(4)
        drawOwnStatus(into: &grid, area: status, isFocused: focused)

        guard !rows.isEmpty else {
            let lines = TextWidth.wrap(
                "No devices nearby. Devices signed in to \(state.account) appear here.", width: list.width - 1)
            for (index, line) in lines.enumerated() {
                grid.write(line, in: list, row: index + 1, column: 1, style: Style(.dim))
            }
            return
        }
        let selected = state.selectedNearbyIndex(in: rows) ?? 0
        let blocks = rows.enumerated().map { index, row in
            peerBlock(row, width: list.width, isSelected: index == selected, isFocused: focused)
        }
        // Scroll so that the selected peer is whole on screen.
        var first = 0
        while first < selected, blocks[first...selected].reduce(0, { $0 + $1.count + 1 }) - 1 > list.height {
            first += 1
        }
        var y = 0
        for block in blocks[first...] {
            for line in block {
                guard y < list.height else { break }
                grid.write(line, in: list, row: y)
                y += 1
            }
            y += 1
        }
    }

    /// The Nearby badge that stands for the sidebar when the width is short: how many peers,
    /// the offer the device would continue, and the key that shows the sidebar over the screen.
    func drawNearbyBadge(into grid: inout Grid, area: Rect) {
        let rows = state.nearbyRows(device: device)
        let focused = state.focus == .nearby && !state.isLocked
        grid.fill(area, style: Style(.normal))
        let head: (String, Style) = ("◉ Nearby \(rows.count)", Style(focused ? .accent : .title))
        // The longest wording that fits: the offer (or the peers), then less of it.
        var details: [(String, Style)] = []
        if let offer = device.featuredOffer {
            let style = Style(offer.route.isContinuable ? .continuable : .unavailable)
            let short = isUndecidedWebPage(offer) ? "↩" : "↩ \(glyph(for: offer))"
            details = [
                ("↩ \(targetLabel(for: offer)) from \(offer.peer.name)", style),
                ("\(short) \(offer.peer.name)", style),
                ("\(short) \(TextWidth.truncate(offer.peer.name, to: 8))", style),
                (short, style),
            ]
        } else if rows.isEmpty {
            details = [("no devices yet", Style(.dim))]
        } else {
            details = [(rows.map(\.peer.name).joined(separator: ", "), Style(.dim))]
        }
        let keys = focused ? ["Esc hides", "Esc"] : ["Tab shows", "Tab"]
        let separator: (String, Style) = (" · ", Style(.dim))
        // The offer's words come before the key's: a shorter key first, then less of the offer.
        var candidates: [[(String, Style)]] = []
        for detail in details {
            for key in keys { candidates.append([head, separator, detail, separator, (key, Style(.accent))]) }
        }
        for key in keys { candidates.append([head, separator, (key, Style(.accent))]) }
        let room = area.width - 2
        let chosen = candidates.first { $0.reduce(0) { $0 + TextWidth.of($1.0) } <= room } ?? [head]
        grid.write(chosen, in: area, column: 1)
    }

    /// The lines of one peer in the sidebar.
    private func peerBlock(_ row: NearbyRow, width: Int, isSelected: Bool, isFocused: Bool) -> [[(String, Style)]] {
        var lines: [[(String, Style)]] = []
        let age = Format.age(since: row.lastSeen, now: state.now)
        let marker = isSelected ? "▸ " : "  "
        let highlighted = isSelected && isFocused
        let headStyle = highlighted ? Style(.selection) : Style(.normal, bold: true)
        let name = TextWidth.truncate(row.peer.name, to: max(1, width - 4 - TextWidth.of(age) - 7))
        let kind = row.peer.kind.rawValue
        let gap = max(1, width - 2 - TextWidth.of(name) - 1 - TextWidth.of(kind) - TextWidth.of(age) - 1)
        lines.append([
            (marker + name + " ", headStyle), (kind, highlighted ? headStyle : Style(.dim)),
            (String(repeating: " ", count: gap) + age + " ", highlighted ? headStyle : Style(.dim)),
        ])
        let indent = "   "
        let textWidth = width - 4
        guard let offer = row.offer else {
            lines.append([(indent + "no activity offered", Style(.dim))])
            return lines
        }
        let continuable = offer.route.isContinuable
        let role: Role = continuable ? .continuable : .unavailable
        // What would continue it here: the app's glyph and name (the beacon has no title).
        var what = targetLabel(for: offer)
        switch offer.route {
        case .web where isUndecidedWebPage(offer): what += ": an approved app's, else the browser"
        case .browser, .web: what += " (web page)"
        case .unavailable(.teamDiffers(let apps)): what = "? " + names(of: apps)
        default: break
        }
        for line in hangingWrap(what, width: textWidth, limit: 3) { lines.append([(indent + line, Style(role))]) }
        if let type = offer.activityType {
            // The whole type, broken after its dots when the column is narrow.
            for line in TextWidth.wrap(type, width: textWidth).prefix(3) {
                lines.append([(indent + line, Style(.dim))])
            }
        }
        let verdict: String
        switch offer.route {
        case .app, .web: verdict = "✓ continuable: Enter"
        case .browser(_, let why): verdict = "✓ in the browser: " + Format.reason(why)
        case .unavailable(.teamDiffers(let apps)):
            verdict = "✗ team differs: \(names(of: apps)) claims the type for another team"
        case .unavailable(let why): verdict = "✗ " + Format.reason(why)
        }
        for line in hangingWrap(verdict, width: textWidth, limit: 3) {
            lines.append([(indent + line, Style(role))])
        }
        if case .web = offer.route { lines += webRouteLines(indent: indent, width: textWidth) }
        let offered = Format.age(since: offer.firstSeen, now: state.now)
        var facts = [offered == "now" ? "offered now" : "offered \(offered) ago"]
        if let size = offer.payloadSize { facts.append(Format.bytes(size)) }
        if offer.options.contains(.supportsContinuationStreams) { facts.append("streams") }
        if offer.options.contains(.isDocument) { facts.append("document") }
        // Whole facts per line, so a line never ends in a separator.
        var line = ""
        for fact in facts {
            if line.isEmpty {
                line = fact
            } else if TextWidth.of(line + " · " + fact) <= textWidth {
                line += " · " + fact
            } else {
                lines.append([(indent + line, Style(.dim))])
                line = fact
            }
        }
        lines.append([(indent + TextWidth.truncate(line, to: textWidth), Style(.dim))])
        return lines
    }

    /// `text` wrapped to `width`, its second and later lines indented by two cells.
    /// Why a web page would go to an app or to the browser: each app's domain and what its
    /// site's association file said (the page's host is known only once the payload arrives).
    private func webRouteLines(indent: String, width: Int) -> [[(String, Style)]] {
        let associations = device.siteAssociations
        guard !associations.isEmpty else {
            return hangingWrap("no app here names a web domain: pages open in the browser", width: width, limit: 2)
                .map { [(indent + $0, Style(.dim))] }
        }
        var lines: [[(String, Style)]] = []
        for association in associations.prefix(3) {
            // The verdict first (what matters in a narrow sidebar), then the domain.
            let style = Style(association.isApproved ? .continuable : .unavailable)
            let verdict = "\(association.isApproved ? "✓" : "✗") \(association.appName): \(association.summary)"
            for line in hangingWrap(verdict, width: width, limit: 2) { lines.append([(indent + line, style)]) }
            var domain = TextWidth.wrap(association.domain, width: max(1, width - 2))
            if domain.count > 2 { domain = [domain[0], TextWidth.truncate(domain[1] + " …", to: max(1, width - 2))] }
            for part in domain { lines.append([(indent + "  " + part, Style(.dim))]) }
        }
        if associations.count > 3 { lines.append([(indent + "… \(associations.count - 3) more domains", Style(.dim))]) }
        return lines
    }

    /// At most `limit` lines; when there are more, the last one shown ends with "…".
    private func hangingWrap(_ text: String, width: Int, limit: Int = .max) -> [String] {
        guard let first = TextWidth.wrap(text, width: width).first else { return [] }
        let rest = text.dropFirst(first.count).drop { $0 == " " }
        guard !rest.isEmpty else { return [first] }
        var lines = [first] + TextWidth.wrap(String(rest), width: width - 2).map { "  " + $0 }
        if lines.count > limit, limit > 0 {
            lines = Array(lines.prefix(limit))
            lines[limit - 1] = TextWidth.truncate(lines[limit - 1] + " …", to: width)
        }
        return lines
    }

    /// The names of installed apps, for bundle identifiers.
    private func names(of bundles: [String]) -> String {
        bundles.map { device.app($0)?.name ?? $0 }.joined(separator: ", ")
    }

    /// What this device offers its peers, and the network.
    private func drawOwnStatus(into grid: inout Grid, area: Rect, isFocused: Bool) {
        // A separator joined to the sidebar's border.
        let border = Rect(x: area.x - 1, y: area.y, width: area.width + 2, height: 1)
        let (left, right) = isFocused ? ("┠", "┨") : ("├", "┤")
        grid.write(
            left + String(repeating: "─", count: area.width) + right, in: border,
            style: Style(isFocused ? .accent : .frame))
        let area = area.inset(left: 1, right: 1)
        grid.write("This device offers", in: area, row: 1, style: Style(.dim))
        if let own = device.ownActivity {
            let app = device.app(own.bundleIdentifier)
            var text = "\(app?.glyph ?? "◇") \(app?.name ?? own.bundleIdentifier)"
            if let title = own.title, !title.isEmpty { text += " · \(title)" }
            if !own.isAdvertised { text += " (not advertised)" }
            grid.write(text, in: area, row: 2, style: Style(own.isAdvertised ? .normal : .dim))
        } else {
            grid.write("nothing", in: area, row: 2, style: Style(.dim))
        }
        let network = state.network
        grid.write(
            network.line, in: area, row: 3, style: Style(network.link == .offline ? .warning : .dim))
    }
}
