import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// The README's map hand-off, the failures lab, and record and replay, with the keys it gives in
/// the order it gives them.
@Suite(
    "README: the map, the lab, record and replay", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct MapAndLabWalkthroughTests {
    /// Both devices up, each listing the other.
    func bothUp(_ run: DemoRun) throws {
        try run.see(
            "both devices, each listing the other", timeout: .seconds(40),
            [
                (0, "the laptop, listing the phone", { $0.contains("Laptop 1 · laptop") && $0.contains("Phone 1") }),
                (1, "the phone, listing the laptop", { $0.contains("Phone 1 · phone") && $0.contains("Laptop 1") }),
            ])
    }

    @Test(arguments: [WalkthroughSetup.insideLarge, .plainSmall])
    func mapHandOff(_ setup: WalkthroughSetup) throws {
        let run = try DemoRun("map", setup, devices: 2)
        let (laptop, phone) = (0, 1)
        try bothUp(run)
        try run.step(
            "On the laptop open Map (→ then Enter on the home screen), press `/`, type `Lisbon`, Enter: the map flies there (zoom 6, the coast of Portugal drawn as lines, Lisbon highlighted); then `+` to zoom: every pan or zoom sets `needsSave`."
        ) {
            try run.press(laptop, "Right", "Enter")
            try run.see(laptop, "Map")
            try run.press(laptop, "/")
            try run.type(laptop, "Lisbon")
            try run.press(laptop, "Enter")
            try run.see(laptop, "Lisbon", "zoom 6")
            try run.press(laptop, "+")
            try run.see(
                "a closer zoom",
                [
                    (
                        laptop, "zoom past 6",
                        { $0.contains("zoom ") && !$0.contains("zoom 6 ") && !$0.contains("zoom 6\n") }
                    )
                ])
        }
        try run.step(
            "On the phone press Ctrl-O: the same region, as plain numbers (centre and span), on a smaller screen."
        ) {
            // The same centre and span; the zoom that shows that span on a smaller screen differs.
            try run.press(phone, "C-o")
            try run.see(phone, "Map — 38.7°N 9.1°W", "· zoom ")
        }
        try run.step("the phone's (scenes) shows `sceneContinue` and `continued`") {
            let laptopKinds = try run.logKinds(laptop)
            #expect(laptopKinds.containsInOrder(["needsSaveSet", "payloadRequested", "payloadSent"]), "\(laptopKinds)")
            #expect(laptopKinds.contains("saved"), "the coalesced save, or the one before the payload: \(laptopKinds)")
            let phoneKinds = try run.logKinds(phone)
            #expect(phoneKinds.containsInOrder(["sceneContinue", "continued"]), "\(phoneKinds)")
            #expect(!phoneKinds.contains("restoreUserActivityState"), "\(phoneKinds)")
        }
    }

    @Test(arguments: [WalkthroughSetup.plainLarge, .insideSmall])
    func theLabAFailedContinuationInFrontOfAClass(_ setup: WalkthroughSetup) throws {
        let run = try DemoRun("failures", setup, devices: 2)
        let (laptop, phone) = (0, 1)
        try bothUp(run)
        try run.step(
            "On the laptop open the Reader and a document (Enter, Enter). Press F8: the faults panel lists every fault with the device it is armed on and what should follow. Choose `no-answer` and press Enter (armed once; `s` keeps it armed, `x` disarms, as the panel says); the panel closes."
        ) {
            try run.openFirstDocument(laptop)
            try run.press(laptop, "F8")
            try run.see(laptop, "Faults (F8)", "no-answer", "s keep armed · x disarm")
            // no-answer is the first fault of the panel.
            try run.press(laptop, "Enter")
        }
        try run.step(
            "The status bar now says what is armed, and the top of the screen says \"Fault struck: no-answer\" when it strikes."
        ) {
            // The status bar's mark, with the panel closed: the panel itself lists "no-answer", and
            // the phone's request must not reach the laptop before the laptop has taken the Enter.
            try run.see(
                "the fault armed on the laptop",
                [
                    (
                        laptop, "⚠ no-answer in the status bar",
                        { $0.contains("⚠ no-answer") && !$0.contains("Faults (F8)") }
                    )
                ])
        }
        try run.step(
            "Press Ctrl-O on the phone. Its app is asked `willContinue`, the fetch starts, and the laptop receives the request but does not answer. Five seconds later (the phone's fetch timeout, `--fetch-timeout`) the continuation fails with 4610"
        ) {
            try run.press(phone, "C-o")
            try run.see(
                "the strike on the laptop and 4610 on the phone", timeout: .seconds(25),
                [
                    (laptop, "\"Fault struck: no-answer\" on the laptop", { $0.contains("Fault struck: no-answer") }),
                    (phone, "4610 on the phone", { $0.contains("4610") }),
                ])
        }
        try run.step("The laptop still offers its activity: nothing was lost.") {
            try run.see(phone, "↩ ▤ Reader from Laptop 1 · Ctrl-O")
            try run.see(laptop, "page 1 of")
        }
        try run.step(
            "Press F9 on the phone: one lane per device, time going down, the beacon that made the offer, the payload request crossing to the laptop, and no payload coming back; the failure sits on the phone's lane at the timeout."
        ) {
            try run.press(phone, "F9")
            // The arrow's label is cut in a narrow pane ("payload…").
            try run.see(phone, "│Laptop 1", "│Phon", "payload", "4610")
            try run.press(phone, "Escape")
        }
        try run.step(
            "Press F6 on the phone (step mode) and continue again: the phone pauses before each phase (launch, willContinue, the fetch, continue) and its continuation box says what comes next, whole, for as long as it is paused (\"⏸ Next: …\", \"F7 go on\");"
        ) {
            try run.press(phone, "F6")
            try run.press(phone, "C-o")
            try run.see(phone, "⏸ Next:", "F7")
            // F7 goes on, phase by phase, until the Reader has the document.
            var pauses = 0
            let deadline = ContinuousClock.now + .seconds(40)
            while ContinuousClock.now < deadline {
                let screen = try run.screen(phone)
                if screen.contains("Continued from Laptop 1") || screen.contains("page 1 of") { break }
                if screen.contains("⏸ Next:") {
                    pauses += 1
                    try run.press(phone, "F7")
                    try run.see(
                        "the pause taken", [(phone, "the next phase", { !$0.contains("⏸ Next:") || $0 != screen })])
                }
                usleep(100_000)
            }
            #expect(pauses >= 3, "a pause before each phase: \(pauses)")
            try run.see(phone, "page 1 of")
        }
    }

    @Test(arguments: [WalkthroughSetup.insideLarge])
    func recordAndReplay(_ setup: WalkthroughSetup) throws {
        let run = try DemoRun("reading", setup, devices: 2)
        let (laptop, phone) = (0, 1)
        try bothUp(run)
        let laptopFile = run.directory.appendingPathComponent("laptop.jsonl").path
        let phoneFile = run.directory.appendingPathComponent("phone.jsonl").path
        try run.step(
            "`handoff device --record laptop.jsonl` (terminal or headless) writes the typed lifecycle as JSON lines;"
        ) {
            // Each pane takes another command once its device quits (README, "Set up").
            for (index, kind, file) in [(laptop, "laptop", laptopFile), (phone, "phone", phoneFile)] {
                try run.press(index, "C-q")
                try run.see(index, "Enter starts it again, or type another command")
                try run.type(
                    index, "handoff device --kind \(kind) --account \(run.account) --port \(run.port) --record \(file)")
                try run.press(index, "Enter")
            }
            try bothUp(run)
            try run.openFirstDocument(laptop)
            try run.press(phone, "C-o")
            try run.see(
                "the continuation on both",
                [
                    (phone, "the Reader on the phone", { $0.contains("page 1 of") }),
                    (laptop, "\"Continued on Phone 1\"", { $0.contains("Continued on Phone 1") }),
                ])
            for index in [laptop, phone] {
                try run.press(index, "C-q")
                try run.see(index, "quit (exit status 0)")
            }
        }
        try run.step(
            "`handoff timeline laptop.jsonl phone.jsonl` draws both devices as lanes of one timeline with arrows for the beacon, the payload request, the payload and \"was continued\", in causal order (`--continuation ID` for one continuation, `--svg FILE` for a picture to put on a slide or attach to a bug report, `--mermaid FILE` for a Mermaid sequence diagram, `--trace FILE` for Perfetto or Chrome's trace viewer, `--print` for text; docs/timeline.md)."
        ) {
            let (status, printed) = try run.handoff(["timeline", laptopFile, phoneFile, "--print"])
            #expect(status == 0, "\(printed)")
            for text in ["Laptop 1", "Phone 1", "payload", "was continued"] {
                #expect(printed.contains(text), "\(text): \(printed)")
            }
            let svg = run.directory.appendingPathComponent("timeline.svg").path
            let (svgStatus, svgOutput) = try run.handoff(["timeline", laptopFile, phoneFile, "--svg", svg])
            #expect(svgStatus == 0, "\(svgOutput)")
            let picture = (try? String(contentsOfFile: svg, encoding: .utf8)) ?? ""
            #expect(picture.hasPrefix("<svg") || picture.contains("<svg "), "an SVG picture")
            #expect(picture.contains("Laptop 1") && picture.contains("Phone 1"))
            let mermaid = run.directory.appendingPathComponent("timeline.mmd").path
            let trace = run.directory.appendingPathComponent("timeline.json").path
            let (exportStatus, exportOutput) = try run.handoff([
                "timeline", laptopFile, phoneFile, "--mermaid", mermaid, "--trace", trace,
            ])
            #expect(exportStatus == 0, "\(exportOutput)")
            let diagram = (try? String(contentsOfFile: mermaid, encoding: .utf8)) ?? ""
            #expect(diagram.hasPrefix("sequenceDiagram\n") && diagram.contains("as Laptop 1 (laptop)"))
            #expect(diagram.contains("->>") && diagram.contains("was continued"))
            let events = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
            #expect(events.hasPrefix("{") && events.contains("\"traceEvents\"") && events.contains("\"ph\":\"s\""))
        }
        try run.step(
            "`handoff check laptop.jsonl phone.jsonl` checks them against Apple's rules (docs/rules.md) and prints each violation with its rule, its source and the events that show it (exit status 1)."
        ) {
            let (status, printed) = try run.handoff(["check", laptopFile, phoneFile])
            #expect(status == 0, "\(printed)")
            #expect(printed.contains("no violation"), "\(printed)")
            #expect(printed.contains("2 devices (Laptop 1, Phone 1)"), "\(printed)")
        }
        try run.step("On a terminal it replays them: → the next event, ← back, Space plays, with each event's detail.")
        {
            try run.type(laptop, "handoff timeline \(laptopFile) \(phoneFile)")
            try run.press(laptop, "Enter")
            let first = try run.see(laptop, "Laptop 1", "Phone 1")
            try run.press(laptop, "Right")
            try run.see("the next event", [(laptop, "another screen", { $0 != first })])
            try run.press(laptop, "q")
        }
    }
}
