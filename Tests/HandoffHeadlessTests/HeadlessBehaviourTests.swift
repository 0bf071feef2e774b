import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

@testable import HandoffHeadless

/// `--app-behaviour`: each knob changes the lifecycle the way a real app with that bug does.
@Suite("Headless: app behaviour knobs")
struct HeadlessBehaviourTests {
    static let reader = TestManifests.reader.bundleIdentifier

    /// A laptop offering a reading activity to a phone whose Reader behaves as `behaviour` says.
    private func offering(
        _ behaviour: ScriptedBehaviour, apps: [AppManifest] = HeadlessWorld.apps
    ) -> (HeadlessWorld, HeadlessNode, HeadlessNode) {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let bundle = apps[0].bundleIdentifier
        let phone = world.add("Phone", apps: apps, behaviours: [bundle: behaviour])
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 5]])
        world.hood.settle()
        return (world, laptop, phone)
    }

    // MARK: The spec

    @Test func specsParseAndResolveGeneralFirstThenPerAppInOrder() throws {
        let general = try AppBehaviourSpec.parse("continue=false,didFail=missing")
        #expect(general.bundleIdentifier == nil)
        let own = try AppBehaviourSpec.parse("com.example.reader:model=scenes,continue=true,needsSave=forgotten")
        #expect(own.bundleIdentifier == "com.example.reader")
        let resolved = try AppBehaviourSpec.resolve(
            [own, general], bundles: ["com.example.reader", "com.example.other"]
        ) { _ in ScriptedBehaviour() }
        let reader = try #require(resolved["com.example.reader"])
        #expect(reader.model == .scenes)
        #expect(reader.continues, "the app's own spec wins over the general one")
        #expect(!reader.implementsDidFail)
        #expect(!reader.setsNeedsSave)
        #expect(reader.summary == "model=scenes,didFail=missing,needsSave=forgotten")
        let other = try #require(resolved["com.example.other"])
        #expect(!other.continues && other.model == nil)
    }

    @Test(arguments: [
        ("model=windows", "model must be one of delegate, scenes, scenes-connection-options-only, swiftui"),
        ("continue=maybe", "continue must be true or false, not \"maybe\""),
        ("didFail=yes", "didFail must be implemented or missing"),
        ("needsSave", "\"needsSave\" needs a value"),
        ("colour=red", "unknown key \"colour\" (keys: model, willContinue, continue, didFail, needsSave)"),
        (":continue=false", "the bundle identifier before \":\" is empty"),
        ("com.example.reader:", "no KEY=VALUE"),
    ])
    func badSpecsSayWhatIsWrong(spec: String, message: String) throws {
        let error = #expect(throws: AppBehaviourError.self) { try AppBehaviourSpec.parse(spec) }
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        #expect(error?.message.hasPrefix("--app-behaviour \(spec):") == true)
    }

    @Test func anUnknownAppOrAnImpossibleCombinationIsRefused() throws {
        let unknown = #expect(throws: AppBehaviourError.self) {
            try AppBehaviourSpec.resolve(
                [AppBehaviourSpec.parse("com.nope:continue=false")], bundles: ["com.example.reader"]
            ) { _ in ScriptedBehaviour() }
        }
        #expect(unknown?.message.contains("no app \"com.nope\" is installed (installed: com.example.reader)") == true)
        let scenes = #expect(throws: AppBehaviourError.self) {
            try AppBehaviourSpec.resolve(
                [AppBehaviourSpec.parse("model=scenes,willContinue=false")], bundles: ["com.example.reader"]
            ) { _ in ScriptedBehaviour() }
        }
        #expect(scenes?.message.contains("willContinue=false needs model=delegate") == true)
    }

    // MARK: Each knob's lifecycle

    @Test func willContinueFalseLetsTheSystemShowTheProgressAndTheContinuationGoesOn() throws {
        let (world, laptop, phone) = offering(ScriptedBehaviour(willContinue: false))
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        let asked = try #require(phone.events("lifecycle").first { $0["kind"] == "willContinue" })
        #expect(asked["appShowsProgress"] == false)
        #expect(!phone.lifecycleKinds.contains("faultInjected"), "the app's own answer, not the lab's")
        #expect(phone.events("restored").first?["userInfo"] == ["page": 5])
        #expect(laptop.lifecycleKinds.contains("wasContinued"))
        // A correct app answers true.
        let (world2, laptop2, phone2) = offering(ScriptedBehaviour())
        phone2.ok(["cmd": "continue", "peer": "laptop"])
        world2.hood.settle()
        #expect(laptop2.lifecycleKinds.contains("wasContinued"))
        #expect(phone2.events("lifecycle").first { $0["kind"] == "willContinue" }?["appShowsProgress"] == true)
    }

    @Test func continueFalseWithTheAppDelegateRestoresNothingAndTheOriginIsNotTold() throws {
        let (world, laptop, phone) = offering(ScriptedBehaviour(model: .delegate, continues: false))
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.lifecycleKinds.contains("continueCalled"))
        let refused = try #require(phone.events("continue-refused").first)
        #expect(refused["reason"]?.stringValue?.contains("continue=false") == true)
        #expect(refused["app"] == .string(Self.reader))
        #expect(phone.events("lifecycle").first { $0["kind"] == "notHandled" } != nil)
        #expect(phone.events("restored").isEmpty)
        #expect(!laptop.lifecycleKinds.contains("wasContinued"))
    }

    @Test func continueFalseWithScenesIsASceneDelegateWithoutSceneContinue() throws {
        let (world, laptop, phone) = offering(ScriptedBehaviour(model: .scenes, continues: false))
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.lifecycleKinds.contains("sceneContinue"))
        let notHandled = try #require(phone.events("lifecycle").first { $0["kind"] == "notHandled" })
        #expect(notHandled["notHandled"]?.stringValue?.contains("does not implement scene(_:continue:)") == true)
        #expect(phone.events("restored").isEmpty)
        #expect(!laptop.lifecycleKinds.contains("wasContinued"))
    }

    @Test func didFailMissingLeavesTheErrorToTheSystem() throws {
        for implemented in [true, false] {
            let (world, laptop, phone) = offering(ScriptedBehaviour(implementsDidFail: implemented))
            laptop.ok(["cmd": "fault", "kind": "origin-leaves"])
            phone.ok(["cmd": "continue", "peer": "laptop"])
            world.hood.advance(by: 2)
            #expect(phone.lifecycleKinds.contains("continuationFailed"))
            #expect(phone.events("continue-failed").isEmpty == !implemented, "implemented: \(implemented)")
            #expect(phone.lifecycleKinds.contains("systemShowedError") == !implemented, "implemented: \(implemented)")
        }
    }

    @Test func didFailMissingInASceneAppLeavesTheErrorToTheSystemToo() throws {
        let (world, laptop, phone) = offering(ScriptedBehaviour(model: .scenes, implementsDidFail: false))
        laptop.ok(["cmd": "fault", "kind": "origin-leaves"])
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.advance(by: 2)
        #expect(phone.lifecycleKinds.contains("sceneDidFailToContinue"))
        #expect(phone.lifecycleKinds.contains("systemShowedError"))
        #expect(phone.events("continue-failed").isEmpty)
    }

    @Test func needsSaveForgottenMakesThePayloadCarryTheStaleUserInfo() throws {
        let world = HeadlessWorld()
        let laptop = world.add(
            "Laptop", kind: .laptop, behaviours: [Self.reader: ScriptedBehaviour(setsNeedsSave: false)])
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 3]])
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.events("restored").last?["userInfo"] == ["page": 3])
        // No "needsSave" field: the app's behaviour decides, and it forgets.
        let updated = laptop.ok(["cmd": "update", "userInfo": ["page": 40]])
        #expect(updated["needsSave"] == false)
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.events("restored").last?["userInfo"] == ["page": 3], "the payload carried the state saved last")
        let skipped = try #require(laptop.events("lifecycle").last { $0["kind"] == "saveSkipped" })
        #expect(skipped["detail"]?.stringValue?.contains("but needsSave was not set") == true)
        // The command can still set it.
        laptop.ok(["cmd": "update", "userInfo": ["page": 41], "needsSave": true])
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.events("restored").last?["userInfo"] == ["page": 41])
    }

    @Test func aConnectionOptionsOnlySceneAppLosesColdAndWarmContinuations() throws {
        let (world, laptop, phone) = offering(ScriptedBehaviour(model: .scenesConnectionOptionsOnly))
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        let launches = phone.events("lifecycle").filter { $0["kind"] == "applicationLaunched" }.map { $0["launch"] }
        #expect(launches == ["cold"], "the second finds the app running")
        #expect(phone.events("scene-connected").count == 1)
        #expect(phone.events("scene-connected").first?["missed"] != nil)
        #expect(phone.events("lifecycle").filter { $0["kind"] == "notHandled" }.count == 2, "the warm one is lost too")
        #expect(phone.events("restored").isEmpty)
        #expect(!laptop.lifecycleKinds.contains("wasContinued"))
    }

    @Test func aSwiftUIAppContinuesThroughOnContinueUserActivity() throws {
        let (world, laptop, phone) = offering(ScriptedBehaviour(model: .swiftUI))
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.lifecycleKinds.contains("sceneWillConnect"))
        #expect(phone.lifecycleKinds.contains("sceneContinue"))
        #expect(phone.events("restored").first?["userInfo"] == ["page": 5])
        #expect(phone.events("restored").first?["app"] == .string(Self.reader))
        #expect(laptop.lifecycleKinds.contains("wasContinued"))
        let app = try #require(phone.ok(["cmd": "status"])["apps"]?.arrayValue?.first)
        #expect(app["model"] == "swiftui")
        #expect(app["usesScenes"] == true)
        #expect(app["hasSceneDelegate"] == true)
    }

    @Test func aSwiftUIAppWithoutAHandlerDropsTheActivityThoughTheOriginIsTold() throws {
        let (world, laptop, phone) = offering(ScriptedBehaviour(model: .swiftUI, continues: false))
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        let dropped = try #require(phone.events("continue-dropped").first)
        #expect(dropped["reason"]?.stringValue?.contains("onContinueUserActivity(\"\(readingType)\")") == true)
        #expect(phone.events("restored").isEmpty)
        #expect(phone.lifecycleKinds.contains("continued"), "SwiftUI's delegate took it")
        #expect(laptop.lifecycleKinds.contains("wasContinued"))
    }

    /// The generated SwiftUI scene manifest names no delegate class: the app is a SwiftUI app,
    /// whose scene delegate SwiftUI supplies, not a scene app without one.
    @Test func aGeneratedSwiftUISceneManifestMakesASwiftUIAppWithADelegate() throws {
        var manifest = TestManifests.reader
        manifest.sceneManifest = AppManifest.SceneManifest(supportsMultipleScenes: true, configurations: [])
        #expect(ScriptedAppModel.implied(by: manifest) == .swiftUI)
        var named = manifest
        named.sceneManifest?.configurations = [
            .init(role: "UIWindowSceneSessionRoleApplication", delegateClass: "App.SceneDelegate")
        ]
        #expect(ScriptedAppModel.implied(by: named) == .scenes)
        #expect(ScriptedAppModel.implied(by: TestManifests.reader) == .delegate)
        // The scene manifest's own role and multiplicity stay; the stand-in class fills the gap.
        let applied = ScriptedAppModel.swiftUI.applied(to: named)
        #expect(applied.sceneManifest?.configurations.map(\.role) == ["UIWindowSceneSessionRoleApplication"])
        #expect(applied.sceneManifest?.configurations.first?.delegateClass?.hasSuffix("SwiftUISceneDelegate") == true)
        #expect(ScriptedAppModel.delegate.applied(to: named).sceneManifest == nil)

        // Keep the laptop's node: its controller holds its app's state.
        let (world, laptop, phone) = offering(
            ScriptedBehaviour(model: ScriptedAppModel.implied(by: manifest)), apps: [manifest, TestManifests.browser])
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(!phone.lifecycleKinds.contains("notHandled"))
        #expect(phone.events("restored").first?["userInfo"] == ["page": 5])
        #expect(laptop.lifecycleKinds.contains("wasContinued"))
    }

    @Test func theLabsFaultsApplyToAnAppWithBehaviours() throws {
        let (world, laptop, phone) = offering(ScriptedBehaviour(model: .delegate, implementsDidFail: true))
        phone.ok(["cmd": "fault", "kind": "no-did-fail"])
        laptop.ok(["cmd": "fault", "kind": "origin-leaves"])
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.advance(by: 2)
        #expect(phone.lifecycleKinds.contains("systemShowedError"), "the lab's no-did-fail wins over the app")
        #expect(phone.events("continue-failed").isEmpty)
        let (world2, laptop2, phone2) = offering(ScriptedBehaviour(model: .delegate, willContinue: true))
        phone2.ok(["cmd": "fault", "kind": "continue-false"])
        phone2.ok(["cmd": "continue", "peer": "laptop"])
        world2.hood.settle()
        #expect(phone2.events("restored").isEmpty)
        #expect(!laptop2.lifecycleKinds.contains("wasContinued"))
    }
}

/// Commands naming the app: `app` picks the activity when several apps have one.
@Suite("Headless: several apps' activities")
struct HeadlessSeveralAppsTests {
    static let notes = AppManifest(
        bundleIdentifier: "com.example.notes", teamIdentifier: TestManifests.reader.teamIdentifier,
        displayName: "Notes", activityTypes: ["com.example.notes.editing", readingType])

    @Test func commandsNameTheAppWhenSeveralHaveAnActivity() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop, apps: [TestManifests.reader, Self.notes])
        // Two apps claim the reading type: become-current must be told which.
        let ambiguous = laptop.fails(raw: #"{"cmd":"become-current","type":"\#(readingType)"}"#)
        #expect(ambiguous.contains("2 apps claim \(readingType)"))
        #expect(ambiguous.contains("name one with \"app\""))
        laptop.ok(["cmd": "become-current", "type": "com.example.notes.editing", "userInfo": ["note": 1]])
        // One app has an activity: commands need no app.
        laptop.ok(["cmd": "update", "userInfo": ["note": 2]])
        laptop.ok([
            "cmd": "become-current", "type": .string(readingType), "app": "com.example.reader", "userInfo": ["page": 1],
        ])
        let error = laptop.fails(raw: #"{"cmd":"update","userInfo":{"page":2}}"#)
        #expect(
            error.contains("2 apps have an activity (com.example.notes, com.example.reader): name one with \"app\""))
        let updated = laptop.ok(["cmd": "update", "app": "com.example.notes", "userInfo": ["note": 3]])
        #expect(updated["app"] == "com.example.notes")
        #expect(updated["userInfo"] == ["note": 3])
        let resigned = laptop.ok(["cmd": "resign", "app": "com.example.reader"])
        #expect(resigned["current"] == false)
        laptop.ok(["cmd": "invalidate", "app": "com.example.reader"])
        // One activity left: no app needed again.
        let only = laptop.ok(["cmd": "update", "userInfo": ["note": 4]])
        #expect(only["app"] == "com.example.notes")
        #expect(laptop.fails(raw: #"{"cmd":"resign","app":"com.nope"}"#).contains("no app \"com.nope\" is installed"))
        #expect(
            laptop.fails(raw: #"{"cmd":"resign","app":"com.example.reader"}"#).contains(
                "com.example.reader has no activity"))
        let status = laptop.ok(["cmd": "status"])
        #expect(status["activities"]?.arrayValue?.count == 1)
    }

    @Test func becomeCurrentReadsAnActivityFileAndSaysWhatIsWrongWithOne() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-af-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("note.json")
        try Data(
            #"{"activityType": "com.example.notes.editing", "title": "Groceries", "userInfo": {"note": 7}, "keywords": ["k"]}"#
                .utf8
        ).write(to: good)
        let bad = folder.appendingPathComponent("bad.json")
        try Data(#"{"activityType": "com.example.notes.editing", "userInfo": {"a": {"b": 1}}, "title": 3}"#.utf8).write(
            to: bad)

        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop, apps: [TestManifests.reader, Self.notes])
        let phone = world.add("Phone", apps: [Self.notes])
        let made = laptop.ok(["cmd": "become-current", "file": .string(good.path)])
        #expect(made["app"] == "com.example.notes")
        #expect(made["title"] == "Groceries")
        #expect(made["userInfo"] == ["note": 7])
        #expect(made["file"] == .string(good.path))
        #expect(made["warnings"]?.arrayValue?.first?.stringValue?.contains("keywords: read and ignored") == true)
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.events("restored").first?["userInfo"] == ["note": 7])
        #expect(phone.events("restored").first?["app"] == "com.example.notes")

        let error = laptop.fails(raw: #"{"cmd":"become-current","file":"\#(bad.path)"}"#)
        #expect(error == "become-current: \(bad.path): title: must be a string, not an integer")
        let mixed = laptop.fails(raw: #"{"cmd":"become-current","file":"\#(good.path)","title":"x"}"#)
        #expect(mixed.contains("goes with \"app\" only"))
        let missing = laptop.fails(raw: #"{"cmd":"become-current","file":"/nonexistent/a.plist"}"#)
        #expect(missing == "become-current: /nonexistent/a.plist: cannot read the file: no such file")
    }
}
