import Foundation
import HandoffCore
import HandoffExplore
import HandoffLessons
import HandoffScenarios
import Testing

/// Every lesson of `demos/lessons` is a test: its solution, played by a scripted learner on two
/// headless devices in the in-process world, meets the goal; its mistake does not.
@Suite("Lessons: every goal met by its solution, and not by its mistake")
struct LessonTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../demos/lessons").standardized
    static let stories: Set<String> = ["reading", "map", "web", "streams", "versions", "failures", "asymmetric"]

    static func lessons() throws -> [Lesson] {
        try LessonFile.load(folder: folder, stories: stories)
    }

    /// Plays `steps` (scenario steps on "Laptop" and "Phone") and judges the lesson's goal.
    static func play(_ steps: [JSONValue], for lesson: Lesson) throws -> LessonProgress {
        let scenario = try Scenario.parse(
            JSONValue.object([
                "name": .string(lesson.title),
                "devices": [["name": "Laptop", "kind": "laptop"], ["name": "Phone", "kind": "phone"]],
                "steps": .array(steps),
            ]).jsonText, file: lesson.file)
        let world = ExploreWorld(devices: [("Laptop", "laptop"), ("Phone", "phone")])
        for step in scenario.steps {
            if case .impossible(let why) = world.perform(step) { Issue.record("\(lesson.file): \(why)") }
        }
        world.finish()
        return lesson.progress(world.lifecycles.map { ($0.device, $0.events) })
    }

    @Test func theCourseHasAtLeastTenLessonsNumberedInOrder() throws {
        let lessons = try Self.lessons()
        #expect(lessons.count >= 10)
        #expect(lessons.map(\.number) == Array(1...lessons.count))
    }

    @Test(arguments: try LessonTests.lessons())
    func theSolutionMeetsTheGoalAndTheMistakeDoesNot(_ lesson: Lesson) throws {
        let solved = try Self.play(lesson.solution, for: lesson)
        #expect(
            solved.isMet,
            "\(lesson.file): the solution stops before \(solved.next.map(\.description) ?? "-"); mistake: \(solved.mistake.map { "\($0.pattern)" } ?? "none")"
        )
        let mistaken = try Self.play(lesson.mistake, for: lesson)
        #expect(!mistaken.isMet, "\(lesson.file): the mistake meets the goal")
    }
}

/// Lesson files a teacher edits: refused with the file, the line and the reason.
@Suite("Lessons: bad lesson files")
struct LessonFileTests {
    static let good = """
        {
          "title": "T", "story": "reading", "goal": "G", "text": ["a"], "teaches": "X", "hint": "H",
          "steps": [ {"on": "laptop", "kind": "advertised"} ],
          "solution": [ {"wait": 1} ], "mistake": [ {"wait": 1} ]
        }
        """

    func error(_ text: String) -> LessonError? {
        do {
            _ = try LessonFile.parse(text, file: "x.json", number: 1, stories: ["reading"])
            return nil
        } catch {
            return error
        }
    }

    @Test func aGoodFileReads() throws {
        let lesson = try LessonFile.parse(Self.good, file: "x.json", number: 1, stories: ["reading"])
        #expect(lesson.steps == [EventPattern(device: .laptop, kind: .advertised)])
        #expect(lesson.hintAfter == 60)
    }

    @Test func anUnknownEventKindIsNamedWithItsLine() {
        let bad = Self.good.replacingOccurrences(of: "\"advertised\"", with: "\"advertized\"")
        let found = error(bad)
        #expect(found?.line == 3)
        #expect(found?.reason.contains("not a lifecycle event kind") == true, "\(String(describing: found))")
    }

    @Test func unknownKeysMissingFieldsAndWrongTypesAreNamed() {
        #expect(
            error(Self.good.replacingOccurrences(of: "\"hint\"", with: "\"hitn\""))?.reason.contains(
                "unknown key \"hitn\"") == true)
        #expect(error(Self.good.replacingOccurrences(of: "\"goal\": \"G\", ", with: ""))?.reason == "missing \"goal\"")
        #expect(
            error(Self.good.replacingOccurrences(of: "\"story\": \"reading\"", with: "\"story\": \"nope\""))?.line == 2)
        #expect(
            error(Self.good.replacingOccurrences(of: "\"on\": \"laptop\"", with: "\"on\": \"watch\""))?.reason.contains(
                "\"on\" is not one of") == true)
        #expect(error("{ \"title\": ")?.reason.hasPrefix("not JSON") == true)
        #expect(error("{ \"title\": ")?.line == 1)
    }

    @Test func aGoalThatCanNeverHoldIsRefused() {
        let impossible = Self.good.replacingOccurrences(
            of: "\"solution\"", with: "\"unless\": [ {\"on\": \"any\", \"kind\": \"advertised\"} ], \"solution\"")
        #expect(error(impossible)?.reason.hasPrefix("the goal can never hold") == true)
        let empty = Self.good.replacingOccurrences(of: "[ {\"on\": \"laptop\", \"kind\": \"advertised\"} ]", with: "[]")
        #expect(error(empty)?.reason.contains("is empty") == true)
    }
}
