import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// The README's "Handoff versions" demo: an older Reader's activity restored by the current
/// one, a newer Reader's refused, and what the system makes of the refusal with scenes. Three
/// devices need 110x20 side by side, so it runs at 120x40 only (80x24 does not fit: the demo
/// says so and starts nothing), inside and outside tmux.
@Suite(
    "README: Handoff versions", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct VersionsWalkthroughTests {
    @Test(arguments: [WalkthroughSetup.insideLarge, .plainLarge])
    func handoffVersions(_ setup: WalkthroughSetup) throws {
        let run = try DemoRun("versions", setup, devices: 3)
        let (laptop, phone, tablet) = (0, 1, 2)
        #expect(Readme.says("**Handoff versions: `handoff demo versions`** (three devices)."))
        try run.see(
            "the three devices, each listing the others", timeout: .seconds(40),
            [
                (laptop, "Laptop v1", { $0.contains("Laptop v1 · laptop") && $0.contains("Nearby 2") }),
                (phone, "Phone 1", { $0.contains("Phone 1 · phone") && $0.contains("Nearby 2") }),
                (tablet, "Tablet v3", { $0.contains("Tablet v3 · tablet") && $0.contains("Nearby 2") }),
            ])

        try run.step(
            "\"Laptop v1\" runs `--reader-version 1`: it writes the older key names (`name`, `pageNumber`, `offset`) and `handoffVersion: 1` in `didUpdate`; the current Reader on the phone restores them."
        ) {
            try run.openFirstDocument(laptop)
            try run.press(laptop, "Space")
            try run.see(laptop, "page 2 of 6")
            try run.see(phone, "↩ ▤ Reader from Laptop v1 · Ctrl-O")
            try run.press(phone, "C-o")
            try run.see(phone, "Continued from Laptop v1", "page 2 of 6")
            // What the phone was given: the older keys, as the inspector shows them.
            try run.press(phone, "F10")
            try run.see(phone, "handoffVersion: 1", "name: \"handoff-guide.txt\"", "pageNumber: 2", "offset: ")
            try run.press(phone, "Escape")
            try run.see("the inspector closed", [(phone, "no inspector", { !$0.contains("handoffVersion: 1") })])
            let kinds = try run.logKinds(laptop)
            #expect(kinds.containsInOrder(["didUpdate", "payloadSent", "wasContinued"]), "\(kinds)")
        }

        try run.step(
            "\"Tablet v3\" runs `--reader-version 3`, newer than the phone's Reader knows: the Reader refuses it, says why in full (\"This activity comes from a newer Reader (version 3)…\") and keeps what it shows."
        ) {
            try run.openFirstDocument(tablet)
            try run.see(phone, "↩ ▤ Reader from Tablet v3 · Ctrl-O")
            try run.press(phone, "C-o")
            try run.see(
                "the refusal, said in full, and the page kept",
                [
                    (
                        phone, "the Reader's message and page 2 kept",
                        { screen in
                            let text = DemoRun.unframed(screen)
                            return text.contains(
                                "This activity comes from a newer Reader (version 3); this Reader understands versions 1 to 2."
                            )
                                && screen.contains("page 2 of 6")
                        }
                    )
                ])
        }

        try run.step(
            "With scenes (the phone's default) `scene(_:continue:)` returns nothing, so the system cannot learn of it: the phone logs `sceneContinue` then `continued` (its screen says \"Continued from Tablet v3\" without a ✓, above the Reader's message), and the tablet is told (`wasContinued`, \"✓ Continued on Phone 1\"), though nothing was restored."
        ) {
            try run.see(
                "both sides of the refused continuation",
                [
                    (
                        phone, "\"Continued from Tablet v3\" without a ✓ above the message",
                        { screen in
                            guard let said = screen.range(of: "Continued from Tablet v3"),
                                let message = screen.range(of: "This activity comes from a newer")
                            else { return false }
                            return !screen.contains("✓ Continued from Tablet v3")
                                && said.upperBound < message.lowerBound
                        }
                    ),
                    (tablet, "\"✓ Continued on Phone 1\" on the tablet", { $0.contains("✓ Continued on Phone 1") }),
                ])
            // The log file, not the screen: in a 39-column pane the log's newest event can stay
            // out of reach of ``DemoRun/logKinds(_:)`` (its explanation fills the small panel).
            let phoneKinds = try run.fileLogKinds("Phone 1")
            let last = phoneKinds.lastIndex(of: "continueChosen").map { Array(phoneKinds[$0...]) } ?? []
            #expect(last.containsInOrder(["continueChosen", "sceneContinue", "continued"]), "\(phoneKinds)")
            #expect(!last.contains("notHandled"), "\(phoneKinds)")
            let tabletKinds = try run.logKinds(tablet)
            #expect(tabletKinds.containsInOrder(["payloadSent", "wasContinued"]), "\(tabletKinds)")
        }
    }
}
