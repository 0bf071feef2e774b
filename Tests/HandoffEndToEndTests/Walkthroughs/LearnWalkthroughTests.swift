import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// `handoff learn` as a learner runs it: the lesson's demo with the lesson pane under the devices
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
        #expect(list.contains("1 of 12 done."), "\(list)")
        _ = try run.stopDemo()
    }
}
