import Foundation
import HandoffCore
import HandoffProcesses
import HandoffTestSupport
import Testing

/// `handoff learn` as a learner runs it: the lesson's demo with the lesson pane above the devices
/// (the goal alone at 80x24, the lesson at 120x40), the goal checked live against both devices'
/// lifecycle, and the progress kept.
@Suite(
    "README: learning with handoff learn", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct LearnWalkthroughTests {
    @Test(arguments: [WalkthroughSetup.insideSmall, .plainLarge])
    func theFirstLessonIsMetByOpeningADocument(_ setup: WalkthroughSetup) throws {
        let run = try DemoRun("reading", setup, devices: 3, lesson: 1)
        let (laptop, phone, lesson) = (0, 1, 2)
        try run.see(
            "both devices, and the lesson pane with its goal", timeout: .seconds(40),
            [
                (laptop, "the laptop", { $0.contains("Laptop 1 · laptop") }),
                (phone, "the phone", { $0.contains("Phone 1 · phone") && $0.contains("Laptop 1") }),
                (lesson, "the lesson's goal", { $0.contains("Lesson 1") && $0.contains("0/3") }),
            ])
        if setup.height >= 40 {
            try run.see(lesson, "Goal: Open a document", "Waiting for: becameCurrent on the laptop")
        }
        try run.openFirstDocument(laptop)
        let done = try run.see(lesson, "✓ done", timeout: .seconds(30))
        if setup.height >= 40 {
            #expect(done.contains("Laptop 1: becameCurrent"), "\(done)")
            #expect(done.contains("Phone 1: offerReceived Laptop 1"), "\(done)")
            #expect(done.contains("Next: handoff learn 2"), "\(done)")
        }
        let (status, list) = try run.handoff(["learn", "--list"])
        #expect(status == 0)
        #expect(list.contains("✓  1. An activity becomes current and is offered"), "\(list)")
        #expect(list.contains("1 of 18 done."), "\(list)")
        _ = try run.stopDemo()
    }

    /// A web lesson needs nothing but `handoff learn`: its demo starts the local web, and the
    /// phone's Browser loads the laptop's map page from it.
    @Test func theNativeToWebLessonIsMetOverTheLocalWebTheLessonStarts() throws {
        let run = try DemoRun("fallback", .plainLarge, devices: 3, lesson: 9)
        let (laptop, phone, lesson) = (0, 1, 2)
        try run.see(
            "both devices, and the lesson pane", timeout: .seconds(40),
            [
                (laptop, "the laptop", { $0.contains("Laptop 1 · laptop") && $0.contains("Phone 1") }),
                (phone, "the phone", { $0.contains("Phone 1 · phone") && $0.contains("Laptop 1") }),
                (lesson, "the lesson's goal", { $0.contains("Lesson 9") && $0.contains("0/4") }),
            ])
        try run.see(lesson, "Source: handoff-programming-guide.txt, Native App-to-Web Browser Handoff")
        // The laptop's Map, at Lisbon: its activity carries the page of the region.
        try run.press(laptop, "Right", "Enter")
        try run.see(laptop, "Map")
        try run.press(laptop, "/")
        try run.type(laptop, "Lisbon")
        try run.press(laptop, "Enter")
        try run.see(laptop, "Lisbon", "zoom 6")
        try run.see(lesson, "1/4", timeout: .seconds(30))
        try run.press(phone, "C-o")
        try run.see(phone, "Continued from Laptop 1", "The Map, on the web", timeout: .seconds(30))
        let done = try run.see(lesson, "✓ done", timeout: .seconds(30))
        #expect(done.contains("Phone 1: continued"), "\(done)")
        #expect(done.contains("Laptop 1: wasContinued"), "\(done)")
        _ = try run.stopDemo()
    }

    /// 4608 by the keys the lesson gives: step mode holds the phone before its fetch while the
    /// laptop closes its document; the pane sees the refusal and the failure.
    @Test func the4608LessonIsMetByStepModeAndClosingTheDocument() throws {
        let run = try DemoRun("failures", .plainLarge, devices: 3, lesson: 15)
        let (laptop, phone, lesson) = (0, 1, 2)
        try run.see(
            "both devices, and the lesson pane", timeout: .seconds(40),
            [
                (laptop, "the laptop", { $0.contains("Laptop 1 · laptop") && $0.contains("Phone 1") }),
                (phone, "the phone", { $0.contains("Phone 1 · phone") && $0.contains("Laptop 1") }),
                (lesson, "the lesson's goal", { $0.contains("Lesson 15") && $0.contains("0/4") }),
            ])
        try run.openFirstDocument(laptop)
        try run.see(phone, "↩ ▤ Reader from Laptop 1 · Ctrl-O")
        try run.press(phone, "F6")
        try run.press(phone, "C-o")
        try run.see(phone, "⏸ Next:", "F7")
        try run.see(lesson, "1/4")
        try run.press(laptop, "Escape")
        try run.see(lesson, "2/4")
        // F7 goes on, phase by phase, until the fetch is refused.
        let deadline = ContinuousClock.now + .seconds(40)
        while ContinuousClock.now < deadline {
            let pane = try run.screen(lesson)
            if pane.contains("✓ done") || pane.contains("✗") { break }
            let screen = try run.screen(phone)
            if screen.contains("⏸ Next:") {
                try run.press(phone, "F7")
                try run.see("the pause taken", [(phone, "the next phase", { $0 != screen })])
            }
            usleep(100_000)
        }
        let done = try run.see(lesson, "✓ done", timeout: .seconds(10))
        // The pane's end (the events that met the goal, the last one last) is what fits in it.
        #expect(done.contains("Phone 1: continuationFailed from Laptop 1: 4608"), "\(done)")
        _ = try run.stopDemo()
    }

    /// The scenes lesson by its keys: the connection-options-only fault armed in the phone's
    /// faults panel makes its Reader miss a cold launch; quit from the app switcher, the next cold
    /// launch reaches scene(_:continue:).
    @Test func theScenesLessonIsMetByTheFaultThenAColdLaunch() throws {
        let run = try DemoRun("reading", .plainLarge, devices: 3, lesson: 7)
        let (laptop, phone, lesson) = (0, 1, 2)
        try run.see(
            "both devices, and the lesson pane", timeout: .seconds(40),
            [
                (laptop, "the laptop", { $0.contains("Laptop 1 · laptop") && $0.contains("Phone 1") }),
                (phone, "the phone", { $0.contains("Phone 1 · phone") && $0.contains("Laptop 1") }),
                (lesson, "the lesson's goal", { $0.contains("Lesson 7") && $0.contains("0/7") }),
            ])
        try run.openFirstDocument(laptop)
        try run.see(phone, "↩ ▤ Reader from Laptop 1 · Ctrl-O")
        try run.press(phone, "F8")
        try run.see(phone, "Faults (F8)")
        let index = try #require(Fault.allCases.firstIndex(of: .connectionOptionsOnly))
        for _ in 0..<index { try run.press(phone, "Down") }
        try run.see(phone, "▸ connection-options-only")
        try run.press(phone, "Enter")
        try run.press(phone, "C-o")
        try run.see(lesson, "2/7", timeout: .seconds(20))
        // Quit the Reader from the app switcher: its next launch is cold.
        try run.press(phone, "F4")
        try run.see(phone, "x quit app")
        try run.press(phone, "Up")
        try run.see(phone, "▸ ▤ Reader")
        try run.press(phone, "x")
        try run.see(lesson, "3/7", timeout: .seconds(20))
        try run.press(phone, "Escape")
        try run.press(phone, "C-o")
        let done = try run.see(lesson, "✓ done", timeout: .seconds(30))
        #expect(done.contains("Phone 1: continued"), "\(done)")
        _ = try run.stopDemo()
    }

    /// The documents lesson by its keys: the Reader's first document is an iCloud document, whose
    /// own activity (the document type's) continues on the phone.
    @Test func theDocumentsLessonIsMetByAnICloudDocument() throws {
        let run = try DemoRun("reading", .plainLarge, devices: 3, lesson: 6)
        let (laptop, phone, lesson) = (0, 1, 2)
        try run.see(
            "both devices, and the lesson pane", timeout: .seconds(40),
            [
                (laptop, "the laptop", { $0.contains("Laptop 1 · laptop") && $0.contains("Phone 1") }),
                (phone, "the phone", { $0.contains("Phone 1 · phone") && $0.contains("Laptop 1") }),
                (lesson, "the lesson's goal", { $0.contains("Lesson 6") && $0.contains("0/4") }),
            ])
        try run.openFirstDocument(laptop)
        try run.see(lesson, "2/4")
        try run.see(phone, "↩ ▤ Reader from Laptop 1 · Ctrl-O")
        try run.press(phone, "C-o")
        try run.see(phone, "Continued from Laptop 1", "page 1 of")
        let done = try run.see(lesson, "✓ done", timeout: .seconds(30))
        #expect(done.contains("Phone 1: continued"), "\(done)")
        _ = try run.stopDemo()
    }

    /// The versioning lesson by its keys: Laptop v1's document, then Tablet v3's, continued on the
    /// phone; the pane reads each payload's handoffVersion.
    @Test func theVersioningLessonIsMetByBothVersions() throws {
        let run = try DemoRun("versions", .plainLarge, devices: 4, lesson: 5)
        let (laptop, phone, tablet, lesson) = (0, 1, 2, 3)
        try run.see(
            "the three devices, and the lesson pane", timeout: .seconds(40),
            [
                (laptop, "Laptop v1", { $0.contains("Laptop v1 · laptop") && $0.contains("Nearby 2") }),
                (phone, "Phone 1", { $0.contains("Phone 1 · phone") && $0.contains("Nearby 2") }),
                (tablet, "Tablet v3", { $0.contains("Tablet v3 · tablet") && $0.contains("Nearby 2") }),
                (lesson, "the lesson's goal", { $0.contains("Lesson 5") && $0.contains("0/4") }),
            ])
        try run.openFirstDocument(laptop)
        try run.see(phone, "↩ ▤ Reader from Laptop v1 · Ctrl-O")
        try run.press(phone, "C-o")
        try run.see(phone, "Continued from Laptop v1")
        try run.see(lesson, "3/4", timeout: .seconds(20))
        try run.openFirstDocument(tablet)
        try run.see(phone, "↩ ▤ Reader from Tablet v3 · Ctrl-O")
        try run.press(phone, "C-o")
        let done = try run.see(lesson, "✓ done", timeout: .seconds(30))
        #expect(done.contains("Phone 1: payloadReceived"), "\(done)")
        _ = try run.stopDemo()
    }

    /// The web-to-native lesson by its keys, over the local web the lesson's demo starts: the
    /// laptop's Browser shows a page of maps.handoffsim.example, which continues in the phone's Map.
    @Test func theWebToNativeLessonIsMetByTheApprovedMap() throws {
        let run = try DemoRun("web", .plainLarge, devices: 3, lesson: 8)
        let (laptop, phone, lesson) = (0, 1, 2)
        try run.see(
            "both devices, and the lesson pane", timeout: .seconds(40),
            [
                (laptop, "the laptop", { $0.contains("Laptop 1 · laptop") && $0.contains("Phone 1") }),
                (phone, "the phone", { $0.contains("Phone 1 · phone") && $0.contains("Laptop 1") }),
                (lesson, "the lesson's goal", { $0.contains("Lesson 8") && $0.contains("0/3") }),
            ])
        try run.press(laptop, "Enter")
        try run.see(laptop, "◀ ▶ https://handoffsim.example/")
        try run.press(laptop, "g")
        try run.type(laptop, "maps.handoffsim.example/?lat=38.7&lon=-9.1&z=6")
        try run.press(laptop, "Enter")
        try run.see(laptop, "The Map, on the web")
        try run.see(phone, "↩ web page from Laptop 1")
        try run.press(phone, "C-o")
        try run.see(phone, "Continued from Laptop 1", "38.7°N 9.1°W · zoom 6")
        let done = try run.see(lesson, "✓ done", timeout: .seconds(30))
        #expect(done.contains("Phone 1: continued"), "\(done)")
        _ = try run.stopDemo()
    }
}

/// `handoff learn --check` on a teacher's folder: the shipped course is valid; a copy with a
/// mistake is refused with the file, the line and the reason, and exit status 2.
@Suite("handoff learn --check", .tags(.endToEnd), .enabled(if: HandoffExecutable.url != nil))
struct LearnCheckTests {
    @Test func aTeachersCopyIsCheckedWithTheFileTheLineAndTheReason() throws {
        let executable = try #require(HandoffExecutable.url).path
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../demos/lessons").standardized
        let (valid, said) = try ChildProcess.run(executable, ["learn", "--check", "--lessons", shipped.path])
        #expect(valid == .exited(0), "\(said)")
        #expect(said.contains("18 lessons in"), "\(said)")

        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("lessons-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: copy) }
        let original = try String(
            contentsOf: shipped.appendingPathComponent("13-timeout-4610.json"), encoding: .utf8)
        let file = copy.appendingPathComponent("01-mine.json")
        try original.replacingOccurrences(of: "\"errorCode\": 4610", with: "\"errorcode\": 4610")
            .write(to: file, atomically: true, encoding: .utf8)
        let line =
            try #require(
                original.split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
                    $0.contains("\"errorCode\": 4610")
                }) + 1
        let (refused, message) = try ChildProcess.run(executable, ["learn", "--check", "--lessons", copy.path])
        #expect(refused == .exited(2), "\(message)")
        #expect(
            message.contains("handoff learn: \(file.path):\(line): steps[1]: unknown field \"errorcode\""),
            "\(message)")
    }
}
