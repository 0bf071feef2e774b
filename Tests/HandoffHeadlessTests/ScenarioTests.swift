import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

@testable import HandoffScenarios

@Suite("Scenario files", .ownThread)
struct ScenarioTests {
    static let minimal = #"""
        {"name": "n", "devices": [{"name": "A", "kind": "laptop"}, {"name": "B", "apps": ["browser"], "team": "T2", "claims": ["x.y"]}],
         "steps": [{"say": "hello"}, {"on": "A", "send": {"cmd": "peers"}}, {"on": "B", "expect": {"event": "ready"}, "within": 2.5},
                   {"on": "B", "expectNone": {"event": "restored"}}, {"on": "A", "send": {"cmd": "continue"}, "error": true, "note": "refused"}]}
        """#

    @Test func aValidScenarioReadsEveryField() throws {
        let scenario = try Scenario.parse(Self.minimal, file: "s.json")
        #expect(scenario.name == "n")
        #expect(scenario.devices.map(\.name) == ["A", "B"])
        #expect(scenario.devices[1].kind == "phone")
        #expect(scenario.devices[1].apps == ["browser"])
        #expect(scenario.devices[1].team == "T2")
        #expect(scenario.devices[1].claims == ["x.y"])
        #expect(scenario.steps.count == 5)
        #expect(scenario.steps[0] == .say("hello"))
        #expect(scenario.steps[2] == .expect(device: "B", pattern: ["event": "ready"], within: 2.5, note: nil))
        #expect(scenario.steps[3] == .expectNone(device: "B", pattern: ["event": "restored"], within: 1, note: nil))
        #expect(
            scenario.steps[4] == .send(device: "A", command: ["cmd": "continue"], expectsError: true, note: "refused"))
    }

    @Test(arguments: [
        ("[]", "", "expected an object"),
        ("{", "", "not valid JSON"),
        (#"{"name": "n", "devices": [], "steps": [{"say": "x"}]}"#, "devices", "non-empty"),
        (
            #"{"name": "n", "devices": [{"name": "A", "kind": "watch"}], "steps": [{"say": "x"}]}"#, "devices[0].kind",
            "not phone"
        ),
        (
            #"{"name": "n", "devices": [{"name": "A"}, {"name": "A"}], "steps": [{"say": "x"}]}"#, "devices[1].name",
            "named twice"
        ),
        (
            #"{"name": "n", "devices": [{"name": "A", "apps": ["mail"]}], "steps": [{"say": "x"}]}"#, "devices[0].apps",
            "no app \"mail\""
        ),
        (
            #"{"name": "n", "devices": [{"name": "A"}], "steps": [{"on": "B", "send": {"cmd": "peers"}}]}"#,
            "steps[0].on", "no device named"
        ),
        (
            #"{"name": "n", "devices": [{"name": "A"}], "steps": [{"on": "A", "send": {"x": 1}}]}"#,
            "steps[0].send.cmd", "missing"
        ),
        (
            #"{"name": "n", "devices": [{"name": "A"}], "steps": [{"on": "A", "send": {"cmd": "peers", "id": 4}}]}"#,
            "steps[0].send.id", "set by the runner"
        ),
        (
            #"{"name": "n", "devices": [{"name": "A"}], "steps": [{"on": "A", "say": "x", "expect": {}}]}"#, "steps[0]",
            "exactly one"
        ),
        (
            #"{"name": "n", "devices": [{"name": "A"}], "steps": [{"on": "A", "expect": {}, "within": -1}]}"#,
            "steps[0].within", "between 0 and 300"
        ),
        (
            #"{"name": "n", "devices": [{"name": "A"}], "steps": [{"say": "x", "colour": 1}]}"#, "steps[0].colour",
            "unknown key"
        ),
    ])
    func badScenariosNameTheFileThePathAndTheProblem(text: String, path: String, message: String) {
        do {
            _ = try Scenario.parse(text, file: "bad.json")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.file == "bad.json")
            #expect(error.path == path)
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test func patternsMatchSubsetsAndNumbersByValue() throws {
        let line = try JSONValue.parse(
            #"{"event":"restored","userInfo":{"page":3,"zoom":2.0,"tags":["a","b"]},"streams":true}"#)
        #expect(line.matches(["event": "restored"]))
        #expect(line.matches(["userInfo": ["page": 3]]))
        #expect(line.matches(["userInfo": ["page": 3.0, "zoom": 2]]))
        #expect(line.matches(["userInfo": ["tags": ["a", "b"]]]))
        #expect(!line.matches(["userInfo": ["tags": ["a"]]]))
        #expect(!line.matches(["userInfo": ["page": 4]]))
        #expect(!line.matches(["missing": .null]))
        #expect(!line.matches(["streams": 1]))
    }

    @Test func aScenarioMayAskForALocalWebAndInstallsAppsRelativeToItsFile() throws {
        let text = #"{"name": "w", "web": true, "devices": [{"name": "P"}], "steps": [{"say": "hi"}]}"#
        #expect(try Scenario.parse(text, file: "w.json").web)
        #expect(
            try !Scenario.parse(#"{"name": "w", "devices": [{"name": "P"}], "steps": [{"say": "hi"}]}"#, file: "w.json")
                .web)
        #expect(throws: ScenarioError.self) {
            try Scenario.parse(
                #"{"name": "w", "web": "yes", "devices": [{"name": "P"}], "steps": [{"say": "hi"}]}"#, file: "w.json")
        }
        let folder = URL(fileURLWithPath: "/demo/scenarios/failures")
        #expect(
            ScenarioRunner.resolvingInstalls(
                ["--install", "../../apps/Map/Info.plist", "--kind", "phone"], from: folder)
                == ["--install", "/demo/apps/Map/Info.plist", "--kind", "phone"])
        #expect(
            ScenarioRunner.resolvingInstalls(["--install", "/abs/Info.plist"], from: folder) == [
                "--install", "/abs/Info.plist",
            ])
        #expect(ScenarioRunner.resolvingInstalls(["--install"], from: folder) == ["--install"])
    }

    /// The closest line to an expectation: the same kind first, then the most equal values.
    @Test func theNearestLineSharesTheKindAndMostValues() {
        let pattern: JSONValue = ["event": "lifecycle", "kind": "continued", "peer": "Laptop"]
        let lines = [
            #"{"event":"lifecycle","kind":"continueChosen","peer":"Laptop"}"#,
            #"{"event":"lifecycle","kind":"continued","peer":"Tablet"}"#,
            "not json",
            #"{"event":"status"}"#,
        ]
        #expect(ScenarioRunner.nearest(to: pattern, in: lines) == lines[1])
        #expect(ScenarioRunner.nearest(to: pattern, in: ["not json"]) == nil)
    }

    @Test func theShippedScenariosAreValid() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../demos/scenarios"
        ).standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 6)
        for file in files {
            let scenario = try Scenario.load(folder.appendingPathComponent(file))
            #expect(!scenario.steps.isEmpty)
        }
    }
}
