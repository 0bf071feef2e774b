import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// The README's "Asymmetric apps" demo: Studio's reading and map continue in the phone's
/// Reader and Map; the tablet's app of another team cannot continue either, and says so.
/// Three devices need 110x20 side by side, so it runs at 120x40 only (80x24 does not fit: the
/// demo says so and starts nothing), inside and outside tmux.
@Suite(
    "README: asymmetric apps", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct AsymmetricWalkthroughTests {
    @Test(arguments: [WalkthroughSetup.insideLarge, .plainLarge])
    func asymmetricApps(_ setup: WalkthroughSetup) throws {
        let run = try DemoRun("asymmetric", setup, devices: 3)
        let (laptop, phone, tablet) = (0, 1, 2)
        try run.see(
            "the three devices, each listing the others", timeout: .seconds(40),
            [
                (laptop, "Laptop 1", { $0.contains("Laptop 1 · laptop") && $0.contains("Nearby 2") }),
                (phone, "Phone 1", { $0.contains("Phone 1 · phone") && $0.contains("Nearby 2") }),
                (tablet, "Tablet 1", { $0.contains("Tablet 1 · tablet") && $0.contains("Nearby 2") }),
            ])

        try run.step(
            "The laptop runs `--apps studio` (one app that reads and maps; F5 switches), the phone `--apps reader,map`, and the tablet `--apps other` (another team's reader that claims the Reader's activity type)."
        ) {
            try run.see(
                "each device's apps",
                [
                    (laptop, "Studio alone on the laptop", { $0.contains("1 Studio") && !$0.contains("Reader") }),
                    (phone, "the Reader and the Map on the phone", { $0.contains("1 Reader") && $0.contains("2 Map") }),
                    (tablet, "the other team's app on the tablet", { $0.contains("1 Other") }),
                ])
        }

        try run.step(
            "The phone continues the reading in its Reader, and the tablet's Nearby says \"team differs\" on it (Enter explains that nothing there can continue it)."
        ) {
            try run.openFirstDocument(laptop, listing: "F5 switches")
            try run.press(laptop, "Space")
            try run.see(laptop, "page 2 of 6")
            try run.see(phone, "↩ ▤ Reader from Laptop 1 · Ctrl-O")
            try run.press(phone, "C-o")
            try run.see(phone, "Continued from Laptop 1", "page 2 of 6")

            try run.press(tablet, "Tab")
            try run.see(tablet, "▸ Laptop 1", "✗ team differs")
            try run.press(tablet, "Enter")
            try run.see(
                "the explanation",
                [
                    (
                        tablet, "\"Can't continue here\", another team",
                        { screen in
                            let text = DemoRun.unframed(screen)
                            return screen.contains("Can't continue here")
                                && text.contains(
                                    "belongs to another team than the app on Laptop 1; Handoff only continues into the same team's apps."
                                )
                        }
                    )
                ])
            try run.press(tablet, "Enter")
            try run.see("the explanation closed", [(tablet, "no explanation", { !$0.contains("Can't continue here") })])
        }

        try run.step("After F5 on the laptop the phone continues the map in its Map, which the tablet has no app for.")
        {
            try run.press(laptop, "F5")
            try run.see(phone, "↩ ◍ Map from Laptop 1 · Ctrl-O")
            try run.press(phone, "C-o")
            try run.see(
                "the map on the phone, and nothing on the tablet for it",
                [
                    (
                        phone, "the phone's Map, continued",
                        { screen in
                            screen.contains("Continued from Laptop 1") && screen.contains("zoom")
                                && !screen.contains("page 2 of 6")
                        }
                    ),
                    (
                        tablet, "no app for the map on the tablet",
                        { DemoRun.unframed($0).contains("no app here claims this activity type") }
                    ),
                ])
            // The log file, not the screen: in a 39-column pane the log's newest event can stay
            // out of reach of ``DemoRun/logKinds(_:)`` (its explanation fills the small panel).
            let kinds = try run.fileLogKinds("Phone 1")
            #expect(kinds.filter { $0 == "continued" }.count == 2, "\(kinds)")
        }
    }
}
