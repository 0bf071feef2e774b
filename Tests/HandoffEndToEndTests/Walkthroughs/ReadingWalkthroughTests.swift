import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// The README's first walkthrough, "continue reading on the other device", with the keys it
/// gives in the order it gives them, inside and outside tmux, at 80x24 and 120x40.
@Suite(
    "README: continue reading", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct ReadingWalkthroughTests {
    @Test(arguments: WalkthroughSetup.all)
    func continueReadingOnTheOtherDevice(_ setup: WalkthroughSetup) throws {
        let run = try DemoRun("reading", setup, devices: 2)
        let (laptop, phone) = (0, 1)
        #expect(Readme.says("`handoff demo` (the `reading` story; `handoff demo --list` lists them all)."))
        try run.see(
            "both devices, each listing the other", timeout: .seconds(40),
            [
                (
                    laptop, "the laptop, listing the phone",
                    { $0.contains("Laptop 1 · laptop") && $0.contains("Phone 1") }
                ),
                (phone, "the phone, listing the laptop", { $0.contains("Phone 1 · phone") && $0.contains("Laptop 1") }),
            ])

        try run.step(
            "In the laptop (left), press Enter to open the Reader, Enter again to open \"A Short Guide to Handoff\", then Space twice: page 3."
        ) {
            try run.openFirstDocument(laptop, listing: "A Short Guide to")
            try run.press(laptop, "Space")
            try run.see(laptop, "page 2 of")
            try run.press(laptop, "Space")
            try run.see(laptop, "page 3 of")
        }

        try run.step("Its bottom bar reads \"↩ ▤ Reader from Laptop 1 · Ctrl-O\".") {
            try run.see(phone, "↩ ▤ Reader from Laptop 1 · Ctrl-O")
        }
        try run.step(
            "In a narrow pane (the demo's) its Nearby badge at the top shows it (\"◉ Nearby 1 · ↩ ▤ Reader from Laptop 1\", shorter when the pane is narrower); Tab shows the Nearby sidebar over the screen: the Reader's glyph ▤, the activity type, \"✓ continuable\", its age (Esc closes it)."
        ) {
            try run.see(
                "the offer in the badge",
                [
                    (
                        phone, "◉ Nearby 1 · ↩ ▤ … Laptop 1 in the first row",
                        { screen in
                            let badge = screen.split(separator: "\n").first ?? ""
                            return badge.contains("◉ Nearby 1 · ↩ ▤") && badge.contains("Laptop 1")
                        }
                    )
                ])
            try run.press(phone, "Tab")
            try run.see(phone, "✓ continuable", "com.handoffsim.reader", "Laptop 1")
            try run.press(phone, "Escape")
            try run.see("the sidebar closed", [(phone, "no sidebar", { !$0.contains("✓ continuable") })])
        }

        try run.step(
            "Press F3 (or Ctrl-P, the power button) on the phone to lock it: the lock screen shows the offer at the bottom left with the app's glyph, as iOS does. Press Enter to accept."
        ) {
            try run.press(phone, "F3")
            try run.see(phone, "from Laptop 1", "Enter continue")
            try run.press(phone, "Enter")
        }

        try run.step(
            "The phone unlocks, the Reader shows it is loading, and the document opens at page 3, at the same place on the page. The laptop says \"✓ Continued on Phone 1\"."
        ) {
            try run.see(
                "the phone at page 3 and the laptop told",
                [
                    (phone, "the Reader at page 3 on the phone", { $0.contains("page 3 of") && $0.contains("Reader") }),
                    (laptop, "\"✓ Continued on Phone 1\" on the laptop", { $0.contains("✓ Continued on Phone 1") }),
                ])
        }

        try run.step(
            "The laptop logs `needsSaveSet` when a page turn marks its state changed (once until the next save), then, about a second later, `saved` (coalesced needsSave); when the phone asks, `payloadRequested`,"
        ) {
            let kinds = try run.logKinds(laptop)
            #expect(kinds.filter { $0 == "needsSaveSet" }.count >= 1, "\(kinds)")
            #expect(
                kinds.containsInOrder(["needsSaveSet", "payloadRequested", "payloadSent", "wasContinued"]), "\(kinds)")
            #expect(kinds.contains("saveSkipped") || kinds.contains("saved"), "\(kinds)")
            #expect(kinds.contains("saved"), "the coalesced save, or the one before the payload: \(kinds)")
        }
        try run.step(
            "with scenes (the default on a phone) `applicationLaunched`, `sceneWillConnect`, `sceneWillContinue`, `fetchStarted`, `payloadReceived`, `sceneContinue` and `continued`"
        ) {
            let kinds = try run.logKinds(phone)
            let expected = [
                "continueChosen", "applicationLaunched", "sceneWillConnect", "sceneWillContinue",
                "fetchStarted", "payloadReceived", "sceneContinue", "continued",
            ]
            // F2 shows every one of them. Their order is read from the device's log file: on a
            // small screen an event of the same millisecond may first show on another page of
            // the log (an explanation can fill the panel), which the screen reading cannot place.
            #expect(Set(expected).isSubset(of: Set(kinds)), "\(kinds)")
            let ordered = try run.fileLogKinds("Phone 1")
            #expect(ordered.containsInOrder(expected), "\(ordered)")
            #expect(
                !kinds.contains("restoreUserActivityState"), "scene(_:continue:) has no restoration handler: \(kinds)")
        }

        try run.step(
            "Press F9 (or `t` on the home screen) on the phone for the timeline: the continuation as a sequence diagram, one lane per device,"
        ) {
            try run.press(phone, "F9")
            // Both lanes (the phone's name is cut in a narrow pane) and the payload's arrow.
            try run.see(phone, "│Laptop 1", "│Phon", "payload")
            try run.press(phone, "Escape")
        }

        try run.step(
            "Press F10 (or `i` on the home screen; some terminals take F10 for their menu) for the inspector: the userInfo the laptop saved beside what the phone restored,"
        ) {
            try run.press(phone, "F10")
            try run.see(phone, "userInfo", "3 KB")
        }

        try run.step(
            "It finds 1 difference, the document URL (`~`): every device has its own iCloud container path, and the system rewrote the laptop's path to the phone's,"
        ) {
            try run.see(phone, "1 difference")
            try run.press(phone, "Escape")
        }
    }
}
