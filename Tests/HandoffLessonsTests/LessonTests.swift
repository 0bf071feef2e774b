import Foundation
import HandoffCore
import HandoffExplore
import HandoffHeadless
import HandoffLessons
import HandoffManifest
import HandoffScenarios
import Testing

/// Every lesson of `demos/lessons` is a test: its solution, played by a scripted learner on two
/// headless devices in the in-process world, meets the goal; its mistake does not.
@Suite("Lessons: every goal met by its solution, and not by its mistake")
struct LessonTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../demos/lessons").standardized
    static let stories: Set<String> = [
        "reading", "map", "web", "fallback", "streams", "versions", "failures", "asymmetric",
    ]
    static let demos = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../demos").standardized

    static func lessons() throws -> [Lesson] {
        try LessonFile.load(folder: folder, stories: stories)
    }

    /// The Map as its files describe it (its `activitycontinuation:` domain with it).
    static func mapApp() throws -> AppManifest {
        try AppManifest(appAt: demos.appendingPathComponent("apps/Map/Info.plist"))
    }

    /// The local web's association files (demos/sites), by host.
    static func sites() throws -> [String: SiteAssociationFile] {
        let folder = demos.appendingPathComponent("sites")
        var files: [String: SiteAssociationFile] = [:]
        for host in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let file = folder.appendingPathComponent(host).appendingPathComponent(SiteAssociationFile.fileName)
            guard let data = FileManager.default.contents(atPath: file.path) else { continue }
            files[host] = try SiteAssociationFile(host: host, data: data)
        }
        return files
    }

    /// The devices of `story` as `handoff demo STORY` starts them, in the in-process world (the
    /// headless stand-ins of its apps): a laptop through the app delegate, a phone or tablet with
    /// scenes (each kind's default), the web story's Map from its files, the fallback story's
    /// phone with only the Browser.
    static func devices(of story: String) throws -> [ExploreDevice] {
        let laptop = ExploreDevice(name: "Laptop", kind: "laptop", appModel: .delegate)
        var phone = ExploreDevice(name: "Phone", kind: "phone", appModel: .scenes)
        switch story {
        case "web":
            let apps = ScriptedApps.manifests(apps: ["browser"]) + [try mapApp()]
            return [
                ExploreDevice(name: "Laptop", kind: "laptop", apps: apps, appModel: .delegate),
                ExploreDevice(name: "Phone", kind: "phone", apps: apps, appModel: .scenes),
            ]
        case "fallback":
            phone.apps = ScriptedApps.manifests(apps: ["browser"])
            return [laptop, phone]
        case "versions":
            return [laptop, phone, ExploreDevice(name: "Tablet", kind: "tablet", appModel: .scenes)]
        default:
            return [laptop, phone]
        }
    }

    /// Plays `steps` (scenario steps on "Laptop" and "Phone") on the lesson's demo devices, with
    /// an iCloud container they share and the local web's association files, and judges the
    /// lesson's goal.
    static func play(_ steps: [JSONValue], for lesson: Lesson) throws -> LessonProgress {
        let (progress, _) = try run(steps, for: lesson)
        return progress
    }

    /// Plays `steps` as ``play(_:for:)`` does; the world too.
    static func run(_ steps: [JSONValue], for lesson: Lesson) throws -> (LessonProgress, ExploreWorld) {
        let setups = try devices(of: lesson.story)
        let scenario = try Scenario.parse(
            JSONValue.object([
                "name": .string(lesson.title),
                "devices": .array(setups.map { ["name": .string($0.name), "kind": .string($0.kind)] }),
                "steps": .array(steps),
            ]).jsonText, file: lesson.file)
        let cloud = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lessons-cloud-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: cloud) }
        let world = ExploreWorld(setups: setups, cloud: cloud, sites: try sites())
        for step in scenario.steps {
            if case .impossible(let why) = world.perform(step) { Issue.record("\(lesson.file): \(why)") }
        }
        world.finish()
        return (lesson.progress(world.lifecycles.map { ($0.device, $0.events) }), world)
    }

    @Test func theCourseHasAtLeastTenLessonsNumberedInOrder() throws {
        let lessons = try Self.lessons()
        #expect(lessons.count >= 10)
        #expect(lessons.map(\.number) == Array(1...lessons.count))
    }

    /// What a goal may name is what events carry: every field of every event the lessons'
    /// solutions and mistakes make is one a lesson file may name.
    @Test func everyFieldTheLessonsRecordIsOneAGoalMayName() throws {
        var seen: Set<String> = []
        for lesson in try Self.lessons() {
            for steps in [lesson.solution, lesson.mistake] {
                let (_, world) = try Self.run(steps, for: lesson)
                for lifecycle in world.lifecycles {
                    for event in lifecycle.events { seen.formUnion(event.fields.map(\.key)) }
                }
            }
        }
        #expect(seen.subtracting(EventPattern.knownFields).isEmpty, "\(seen.subtracting(EventPattern.knownFields))")
        #expect(seen.count > 40, "the lessons make many kinds of event: \(seen.count) fields")
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

/// The goal's predicates: several kinds for one step, values inside a userInfo.
@Suite("Lessons: event patterns")
struct EventPatternTests {
    static let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    static let activity = ActivityReference(
        id: UUID(), activityType: "com.handoffsim.reader.reading", title: nil,
        bundleIdentifier: "com.handoffsim.scripted")

    func saved(_ info: UserInfoSnapshot) -> LifecycleEvent {
        LifecycleEvent(
            time: Self.t0, device: "Laptop 1",
            .saved(Self.activity, reason: .beforeSending, userInfo: info, continuation: nil))
    }

    func parse(_ pattern: String) throws(LessonError) -> EventPattern {
        let text = LessonFileTests.good.replacingOccurrences(
            of: "{\"on\": \"laptop\", \"kind\": \"advertised\"}", with: pattern)
        return try LessonFile.parse(text, file: "x.json", number: 1, stories: ["reading"]).steps[0]
    }

    func reason(_ pattern: String) -> String? {
        do {
            _ = try parse(pattern)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func aStepOfSeveralKindsMatchesAnyOfThem() throws {
        let pattern = try parse(#"{"on": "phone", "kind": ["willContinue", "sceneWillContinue"]}"#)
        #expect(pattern.kinds == [.willContinue, .sceneWillContinue])
        #expect(pattern.description == "willContinue or sceneWillContinue on the phone")
        let lesson = try LessonFile.parse(
            LessonFileTests.good.replacingOccurrences(
                of: "{\"on\": \"laptop\", \"kind\": \"advertised\"}",
                with: #"{"on": "laptop", "kind": ["willSave", "saved"]}"#),
            file: "x.json", number: 1, stories: ["reading"])
        #expect(lesson.progress([("Laptop 1", [saved([:])])]).isMet)
        #expect(!lesson.progress([("Phone 1", [saved([:])])]).isMet, "on the laptop only")
    }

    /// Recorded times are whole milliseconds: a step on one device and the next step on another,
    /// caused by it within the same millisecond, carry the same time, and either may come first
    /// in the merge. The goal still holds; a next step strictly earlier still does not count.
    @Test func stepsOfTheSameMillisecondOnTwoDevicesMeetTheGoalInEitherOrder() throws {
        let lesson = try LessonFile.parse(
            LessonFileTests.good.replacingOccurrences(
                of: "{\"on\": \"laptop\", \"kind\": \"advertised\"}",
                with: #"{"on": "phone", "kind": "saved"}, {"on": "laptop", "kind": "saved"}"#),
            file: "x.json", number: 1, stories: ["reading"])
        func saved(on device: String, at time: Date) -> LifecycleEvent {
            LifecycleEvent(
                time: time, device: device,
                .saved(Self.activity, reason: .beforeSending, userInfo: [:], continuation: nil))
        }
        let sameTime = lesson.progress([
            ("Laptop 1", [saved(on: "Laptop 1", at: Self.t0)]), ("Phone 1", [saved(on: "Phone 1", at: Self.t0)]),
        ])
        #expect(sameTime.isMet)
        #expect(sameTime.met.map(\.device) == ["Phone 1", "Laptop 1"])
        let laptopFirst = lesson.progress([
            ("Laptop 1", [saved(on: "Laptop 1", at: Self.t0.addingTimeInterval(-0.001))]),
            ("Phone 1", [saved(on: "Phone 1", at: Self.t0)]),
        ])
        #expect(!laptopFirst.isMet, "the laptop's step came a millisecond before the phone's")
    }

    @Test func aUserInfoFieldLooksInsideTheEventsUserInfo() throws {
        let version = try parse(#"{"on": "laptop", "kind": "saved", "fields": {"userInfo.handoffVersion": 1}}"#)
        #expect(version.matches(saved(["handoffVersion": .integer(1), "page": .integer(3)]), on: "Laptop 1"))
        #expect(!version.matches(saved(["handoffVersion": .integer(3)]), on: "Laptop 1"), "another value")
        #expect(!version.matches(saved(["page": .integer(3)]), on: "Laptop 1"), "no such key")
        let nested = try parse(#"{"on": "any", "kind": "saved", "fields": {"userInfo.region.zoom": 6}}"#)
        #expect(nested.matches(saved(["region": .dictionary(["zoom": .integer(6)])]), on: "Phone 1"))
        #expect(!nested.matches(saved(["region": .integer(6)]), on: "Phone 1"))
    }

    @Test func badKindsAndUserInfoFieldsAreRefusedWithTheReason() {
        #expect(reason(#"{"on": "phone", "kind": []}"#)?.contains("\"kind\" is an empty list") == true)
        #expect(
            reason(#"{"on": "phone", "kind": ["willContinue", "wilContinue"]}"#)?.contains(
                "not a lifecycle event kind the simulator records: \"wilContinue\"") == true)
        #expect(reason(#"{"on": "phone", "kind": [3]}"#)?.contains("not a lifecycle event kind") == true)
        #expect(reason(#"{"on": "phone"}"#)?.contains("missing \"kind\"") == true)
        #expect(
            reason(#"{"on": "phone", "kind": "continued", "fields": {"userInfo.page": 3}}"#)?.hasPrefix(
                "steps[0]: the goal can never hold: continued carries no userInfo") == true)
        #expect(
            reason(#"{"on": "phone", "kind": "saved", "fields": {"userInfo.": 3}}"#)?.contains("names no userInfo key")
                == true)
        #expect(
            reason(#"{"on": "phone", "kind": "saved", "fields": {"userInfo.a..b": 3}}"#)?.contains(
                "names no userInfo key") == true)
    }

    @Test func anUnknownFieldIsRefusedWithItsLine() {
        let text = LessonFileTests.good.replacingOccurrences(
            of: "{\"on\": \"laptop\", \"kind\": \"advertised\"}",
            with: #"{"on": "phone", "kind": "continuationFailed", "fields": {"errorcode": 4610}}"#)
        do {
            _ = try LessonFile.parse(text, file: "x.json", number: 1, stories: ["reading"])
            Issue.record("accepted")
        } catch {
            #expect(error.reason.hasPrefix("steps[0]: unknown field \"errorcode\""), "\(error)")
            #expect(error.line == 3)
        }
    }

    @Test func aStepWhoseEveryKindIsAMistakeCanNeverHold() {
        let text = LessonFileTests.good.replacingOccurrences(
            of: "{\"on\": \"laptop\", \"kind\": \"advertised\"}",
            with: #"{"on": "laptop", "kind": ["advertised", "withdrawn"]}"#
        ).replacingOccurrences(
            of: "\"solution\"", with: #""unless": [{"on": "any", "kind": ["withdrawn", "advertised"]}], "solution""#)
        do {
            _ = try LessonFile.parse(text, file: "x.json", number: 1, stories: ["reading"])
            Issue.record("accepted")
        } catch {
            #expect(error.reason.hasPrefix("the goal can never hold"))
        }
        // A mistake covering only one of the step's kinds leaves the other way open.
        let open = text.replacingOccurrences(
            of: #"["withdrawn", "advertised"]"#, with: #""withdrawn""#)
        #expect(throws: Never.self) { try LessonFile.parse(open, file: "x.json", number: 1, stories: ["reading"]) }
    }

    @Test func aSourceIsReadWhenGiven() throws {
        let text = LessonFileTests.good.replacingOccurrences(
            of: "\"hint\": \"H\"", with: "\"hint\": \"H\", \"source\": \"handoff-programming-guide.txt\"")
        #expect(try LessonFile.parse(text, file: "x.json", number: 1, stories: ["reading"]).source != nil)
        let empty = text.replacingOccurrences(of: "\"handoff-programming-guide.txt\"", with: "\"\"")
        do {
            _ = try LessonFile.parse(empty, file: "x.json", number: 1, stories: ["reading"])
            Issue.record("accepted")
        } catch {
            #expect(error.reason == "\"source\" is not a non-empty string")
            #expect(error.line == 2)
        }
    }
}
