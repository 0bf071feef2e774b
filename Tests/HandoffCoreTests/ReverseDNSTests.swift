import HandoffCore
import Testing

@Suite("Reverse-DNS rule")
struct ReverseDNSTests {
    @Test(arguments: [
        "com.example.app", "a.b", "com.example-app.task_1", "COM.Example.9", "io.github.user.reader.view",
    ])
    func acceptsReverseDNSStrings(_ string: String) {
        #expect(ReverseDNS.validate(string) == nil)
        #expect(ReverseDNS.isValid(string))
    }

    @Test(arguments: [
        ("", ReverseDNSProblem.empty),
        ("com.example.with space", .containsWhitespace),
        ("com.example\t.tab", .containsWhitespace),
        ("com.example\u{00A0}no-break", .containsWhitespace),
        (" com.example.app", .containsWhitespace),
        (".com.example", .leadingDot),
        ("com.example.", .trailingDot),
        (".", .leadingDot),
        ("com..example", .emptyComponent(index: 1)),
        ("single", .singleComponent),
        ("NSUserActivityTypeBrowsingWeb", .singleComponent),
        ("com.café.app", .invalidCharacter("é", componentIndex: 1)),
        ("com.example/app.x", .invalidCharacter("/", componentIndex: 1)),
        ("com.example.app:view", .invalidCharacter(":", componentIndex: 2)),
        ("com.example.a+b", .invalidCharacter("+", componentIndex: 2)),
    ])
    func rejects(_ string: String, _ expected: ReverseDNSProblem) {
        #expect(ReverseDNS.validate(string) == expected)
        #expect(!ReverseDNS.isValid(string))
    }

    @Test func descriptionsExplainTheProblem() {
        #expect(ReverseDNSProblem.singleComponent.description.contains("at least two"))
        #expect(ReverseDNSProblem.emptyComponent(index: 1).description == "component 2 is empty (two dots in a row)")
        #expect(
            ReverseDNSProblem.invalidCharacter("/", componentIndex: 0).description.hasPrefix("component 1 contains '/'")
        )
        #expect(ReverseDNSProblem.invalidCharacter("é", componentIndex: 0).description.contains("'é' (U+00E9)"))
    }

    @Test func invisibleCharactersAreDescribedByCodePointOnly() throws {
        let problem = try #require(ReverseDNS.validate("com.example.\u{1B}[31m"))
        #expect(problem.description.contains("U+001B"))
        #expect(!problem.description.contains("\u{1B}"))
    }
}
