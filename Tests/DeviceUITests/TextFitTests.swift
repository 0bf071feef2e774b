import DeviceUI
import Foundation
import HandoffCore
import TerminalCells
import Testing

/// Issue 23's "text that is cut or raw": at 80x24 and at each kind's minimum, every screen shows
/// whole words or an ellipsis, never two texts run together.
@Suite("Text that fits")
struct TextFitTests {
    /// 80x24 and each kind's minimum (phone and tablet 34x18, laptop 36x19).
    static let sizes: [(PeerInfo, Size)] = [
        (Fixture.phone, Size(width: 80, height: 24)),
        (Fixture.phone, ScreenLayout.minimumSize(for: .phone)),
        (Fixture.tablet, ScreenLayout.minimumSize(for: .tablet)),
        (Fixture.laptop, ScreenLayout.minimumSize(for: .laptop)),
    ]

    /// The words a scrolled page's hint line may hold: its keys and actions and "1–16 of 41".
    static func hintWordsAreWhole(_ line: String) -> Bool {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "║" || $0 == "│" })
        let keys: Set<String> = ["←→", "tab", "↑↓", "PgUp", "PgDn", "scroll", "Esc", "close", "of"]
        return words.allSatisfy { word in
            keys.contains(String(word)) || word.allSatisfy(\.isNumber) || word.wholeMatch(of: /\d+–\d+/) != nil
        }
    }

    /// The inspector's hint line keeps its keys away from "1–17 of 51" (it read
    /// "PgUp PgDn scrol1–16 of 41"), at 80x24 and at every minimum.
    @Test(arguments: [InspectorState.Tab.payload, .beacon])
    func theInspectorsHintNeverRunsIntoThePosition(tab: InspectorState.Tab) {
        for (info, size) in Self.sizes {
            var state = Fixture.state(info, size: size)
            state.overlay = .inspector(InspectorState(subject: .latest, tab: tab))
            var device = InspectorFixture.device()
            device.inspection = InspectorFixture.inspection()
            let grid = Fixture.render(state, device)
            let hint = grid.line(size.height - 3)
            #expect(hint.contains(" of "), "\(size): \(hint)")
            #expect(Self.hintWordsAreWhole(hint), "\(size): \(hint)")
        }
    }

    /// Every beacon and payload field's name is whole and its value wraps rather than being cut
    /// ("versi…" at a narrow inspector), whatever the width.
    @Test(arguments: [InspectorState.Tab.payload, .beacon])
    func theInspectorsFieldNamesAndValuesAreWhole(tab: InspectorState.Tab) {
        for (info, size) in Self.sizes {
            var device = InspectorFixture.device()
            device.inspection = InspectorFixture.inspection()
            var text = ""
            for scroll in stride(from: 0, to: 200, by: 4) {
                var state = Fixture.state(info, size: size)
                state.overlay = .inspector(InspectorState(subject: .latest, tab: tab, scroll: scroll))
                let grid = Fixture.render(state, device)
                // The body only: below the tabs, meter and rule; above the hint.
                text += (4..<(size.height - 3)).map { grid.line($0) }.joined(separator: "\n") + "\n"
            }
            let names =
                tab == .beacon
                ? [
                    "version", "nonce", "ciphertext", "tag", "device", "header", "message", "name length", "padding",
                    "(in clear,", "AES-256-GCM", "54 zero bytes",
                ]
                : [
                    "magic", "activityIdentifier", "activityType length", "\"com.example.notes.editing\"",
                    "title length",
                ]
            // A value wrapped over rows reads on when the rows are joined.
            func flat(_ text: String) -> String { text.filter { !" \n║".contains($0) } }
            for name in names { #expect(flat(text).contains(flat(name)), "\(size): \(name) is whole") }
            let cut = text.split(separator: "\n").filter {
                $0.contains("…") && !$0.contains("more bytes") && !$0.contains("more field")
            }
            #expect(cut.isEmpty || tab == .payload, "\(size): a beacon's labels wrap, never cut: \(cut)")
        }
    }

    /// F1 at 60 columns and at each minimum: every explanation is there whole (wrapped under
    /// itself), and the position never runs into the keys.
    @Test func helpExplanationsWrapInsteadOfBeingCut() {
        var sizes = Self.sizes
        sizes.append((Fixture.phone, Size(width: 60, height: 24)))
        for (info, size) in sizes {
            var text = ""
            for scroll in stride(from: 0, to: 400, by: 3) {
                var state = Fixture.state(info, size: size)
                state.overlay = .help(scroll: scroll)
                let grid = Fixture.render(state, Fixture.device(info))
                text += (0..<(size.height - 1)).map { grid.line($0) }.joined(separator: "\n") + "\n"
                let hint = grid.line(size.height - 3)
                #expect(!hint.contains("scrol1") && !hint.contains("scroll1"), "\(size): \(hint)")
            }
            #expect(!text.contains("…"), "\(size): nothing in the help is cut")
            let flat = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "║" }).joined(separator: " ")
            #expect(flat.contains("the bytes that travelled (i outside apps)"), "\(size)")
            #expect(flat.contains("open the chosen app, or app N"), "\(size)")
        }
    }

    /// A three-device badge keeps the peer's name before the longer key wording
    /// (it read "◉ Nearby 2 · ↩ ▤ · Tab shows").
    @Test func theBadgeKeepsTheOffersPeerBeforeTheKeysWording() {
        for (info, size) in Self.sizes where size.width < 60 {
            let grid = Fixture.render(
                Fixture.state(info, size: size),
                Fixture.device(info, offers: [Fixture.laptopOffer, Fixture.tabletOffer]))
            let badge = grid.line(0)
            #expect(badge.contains("Laptop"), "\(size): \(badge)")
        }
    }

    /// A web page offered while an app here has an approved domain is "web page" until its host
    /// is known (it said "Browser" when the page opened in the Map); with no approved app it is
    /// the Browser's.
    @Test func aWebOfferNamesNoAppUntilItsHostIsKnown() {
        let offer = DeviceSnapshot.OfferInfo(
            peer: Fixture.laptop, firstSeen: Fixture.now, lastSeen: Fixture.now,
            savedAt: Fixture.now, options: [.isEligibleForHandoff, .hasWebpageURL],
            route: .web(browserBundleIdentifier: "com.example.browser"))
        var device = Fixture.device(offers: [offer])
        device.siteAssociations = [
            .init(
                appName: "Map", bundleIdentifier: "com.example.map", domain: "maps.handoffsim.example",
                outcome: .approved, isApproved: true)
        ]
        var state = Fixture.state()
        state.network = .offline
        let text = Fixture.render(state, device).text()
        #expect(text.contains("↩ web page from Laptop · Ctrl-O"), "\(text)")
        #expect(!text.contains("Browser from Laptop"), "\(text)")
        // The sidebar shows the whole type and the whole domain, wrapped, never cut.
        // The sidebar's column only (between a row's last two "│"), so the screen's rows do not interleave.
        let flat = text.split(separator: "\n").compactMap { row -> String? in
            let parts = row.split(separator: "│", omittingEmptySubsequences: false)
            return parts.count >= 3 ? String(parts[parts.count - 2]) : nil
        }.joined().filter { $0 != " " }
        #expect(flat.contains("NSUserActivityTypeBrowsingWeb"), "\(text)")
        #expect(flat.contains("maps.handoffsim.example"), "\(text)")
        device.siteAssociations = []
        #expect(Fixture.render(state, device).text().contains("↩ ◍ Browser from Laptop · Ctrl-O"))
    }

    /// An alert names Apple's constant whole, broken before a capital at a phone's minimum
    /// (it read "…UserInfoTooLarge…").
    @Test func anAlertNamesTheWholeErrorConstant() {
        for (info, size) in Self.sizes {
            var state = Fixture.state(info, size: size)
            state.overlay = .alert(
                ContinuationAlert(
                    code: .userInfoTooLarge, reason: "too large", peer: "Laptop",
                    bundleIdentifier: "com.example.notes", shownBySystem: false))
            let grid = Fixture.render(state, Fixture.device(info))
            let rows = (0..<size.height).map {
                grid.line($0).split(whereSeparator: { " │║".contains($0) }).map(String.init)
            }
            let name = HandoffError.Code.userInfoTooLarge.constantName
            guard let row = rows.firstIndex(where: { $0.contains { $0.hasPrefix("NSUserActivity") } }) else {
                Issue.record("\(size): no error constant in \(grid.text())")
                continue
            }
            var shown = rows[row].first { $0.hasPrefix("NSUserActivity") }!
            if shown != name, row + 1 < rows.count, let rest = rows[row + 1].first { shown += rest }
            #expect(shown == name, "\(size): \(grid.text())")
            #expect(grid.text().contains("Error 4611"), "\(size)")
        }
    }

    /// The app bar's failure notice picks a wording that fits: the code stays whole
    /// (it read "failed (4610); R…").
    @Test func aFailureNoticeKeepsItsCodeWhole() {
        for (info, size) in Self.sizes {
            var state = Fixture.state(info, size: size)
            state.foregroundApp = "com.example.notes"
            state.notice = ScreenState.Notice(
                text: "Continuing from Laptop failed (4610); Reader was told",
                shorter: [
                    "Continuing from Laptop failed (4610)", "From Laptop: failed (4610)",
                    "Failed (4610)",
                ],
                role: .warning, expires: Fixture.now.addingTimeInterval(3))
            let text = Fixture.render(state, Fixture.device(info)).text()
            #expect(text.contains("(4610)"), "\(size): \(text)")
            #expect(!text.contains("(4610); R…"), "\(size)")
        }
    }
}
