import Foundation
import HandoffCore
import HandoffManifest
import HandoffTestSupport
import Testing

@Suite("Build-setting expansion")
struct BuildSettingsTests {
    private func expand(_ string: String, _ settings: [String: String] = [:]) -> BuildSettingExpansion {
        BuildSettingExpander(settings: settings).expand(string)
    }

    // MARK: Syntax

    @Test func textWithoutReferencesIsUnchanged() {
        let result = expand("com.example.app", ["X": "y"])
        #expect(result.value == "com.example.app")
        #expect(result.isComplete)
    }

    @Test func parenthesesAndBracesBothExpand() {
        let settings = ["PRODUCT_BUNDLE_IDENTIFIER": "com.example.reader"]
        #expect(expand("$(PRODUCT_BUNDLE_IDENTIFIER).reading", settings).value == "com.example.reader.reading")
        #expect(expand("${PRODUCT_BUNDLE_IDENTIFIER}.reading", settings).value == "com.example.reader.reading")
    }

    @Test func severalReferencesAndTextBetweenThem() {
        let result = expand("[$(A)-${B}-$(A)]", ["A": "1", "B": "2"])
        #expect(result.value == "[1-2-1]")
        #expect(result.isComplete)
    }

    @Test(arguments: ["$", "$$", "cost: $5", "$ (X)", "a$b", "ends with $", "$[X]"])
    func dollarThatOpensNoReferenceIsKept(_ string: String) {
        let result = expand(string, ["X": "never"])
        #expect(result.value == string)
        #expect(result.isComplete)
    }

    @Test func mismatchedCloserIsPartOfTheNameUntilTheRightOne() {
        // `${A)}` names the setting "A)", which is not defined.
        let result = expand("${A)}", ["A": "x"])
        #expect(result.value == "${A)}")
        #expect(result.undefinedNames == ["A)"])
    }

    @Test func referencesInsideValuesExpandRecursively() {
        let settings = [
            "PRODUCT_BUNDLE_IDENTIFIER": "com.example.$(PRODUCT_NAME:lower)",
            "PRODUCT_NAME": "$(TARGET_NAME)",
            "TARGET_NAME": "Reader",
        ]
        #expect(expand("$(PRODUCT_BUNDLE_IDENTIFIER).document", settings).value == "com.example.reader.document")
    }

    @Test func referencesInsideNamesExpandFirst() {
        let settings = [
            "CONFIGURATION": "Debug", "BUNDLE_ID_Debug": "com.example.debug", "BUNDLE_ID_Release": "com.example",
        ]
        #expect(expand("$(BUNDLE_ID_$(CONFIGURATION))", settings).value == "com.example.debug")
        #expect(expand("${BUNDLE_ID_${CONFIGURATION}}", settings).value == "com.example.debug")
    }

    @Test func anUndefinedReferenceInsideANameIsReportedOnce() {
        let result = expand("$(BUNDLE_ID_$(CONFIGURATION))", ["BUNDLE_ID_Debug": "x"])
        #expect(result.value == "$(BUNDLE_ID_$(CONFIGURATION))")
        #expect(result.issues == [.undefined(name: "CONFIGURATION")])
    }

    // MARK: Modifiers

    @Test(arguments: [
        ("rfc1034identifier", "My App 2.0", "My-App-2-0"),
        ("rfc1034identifier", "2Go_app", "-Go-app"),
        ("rfc1034identifier", "Déjà vu", "D-j--vu"),
        ("identifier", "My App-2.0", "My_App_2_0"),
        ("identifier", "9lives", "_lives"),
        ("identifier", "under_score", "under_score"),
        ("c99extidentifier", "Café au lait", "Café_au_lait"),
        ("c99extidentifier", "9lives", "_lives"),
        ("c99extidentifier", "a-b.c", "a_b_c"),
        ("lower", "Reader App", "reader app"),
        ("upper", "Reader App", "READER APP"),
    ])
    func modifier(_ modifier: String, _ value: String, _ expected: String) {
        let result = expand("$(NAME:\(modifier))", ["NAME": value])
        #expect(result.value == expected)
        #expect(result.isComplete)
    }

    @Test func modifiersApplyLeftToRight() {
        let settings = ["PRODUCT_NAME": "My App"]
        #expect(expand("com.example.$(PRODUCT_NAME:rfc1034identifier:lower)", settings).value == "com.example.my-app")
        #expect(expand("${PRODUCT_NAME:upper:identifier}", settings).value == "MY_APP")
    }

    @Test func defaultModifierReplacesUndefinedOrEmptyValues() {
        #expect(expand("$(MISSING:default=com.example)").value == "com.example")
        #expect(expand("$(MISSING:default=com.example)").isComplete)
        #expect(expand("$(EMPTY:default=fallback)", ["EMPTY": ""]).value == "fallback")
        #expect(expand("$(SET:default=fallback)", ["SET": "value"]).value == "value")
    }

    @Test func defaultValueMayContainReferencesAndColons() {
        let result = expand("$(MISSING:default=$(HOST):8080)", ["HOST": "example.com"])
        #expect(result.value == "example.com:8080")
        #expect(result.isComplete)
    }

    @Test func unsupportedModifierIsReportedAndTheReferenceKept() {
        let result = expand("x.$(NAME:reverse)", ["NAME": "abc"])
        #expect(result.value == "x.$(NAME:reverse)")
        #expect(result.issues == [.unsupportedModifier(name: "NAME", modifier: "reverse")])
        #expect(result.issues[0].description.contains("rfc1034identifier"))
    }

    // MARK: Unresolved and malformed references

    @Test func undefinedReferencesStayVerbatimAndAreReportedOnceEach() {
        let result = expand("$(A).$(B).${A}", ["C": "c"])
        #expect(result.value == "$(A).$(B).${A}")
        #expect(result.undefinedNames == ["A", "B"])
        #expect(!result.isComplete)
        #expect(result.issues[0].description == "unresolved build setting $(A)")
    }

    @Test func undefinedReferenceInsideADefinedValueIsReported() {
        let result = expand("$(ID)", ["ID": "com.example.$(PRODUCT_NAME)"])
        #expect(result.value == "com.example.$(PRODUCT_NAME)")
        #expect(result.undefinedNames == ["PRODUCT_NAME"])
    }

    @Test(arguments: ["$(UNTERMINATED", "prefix ${OPEN", "$(A:lower", "$(A:default=x"])
    func unterminatedReferenceIsMalformed(_ string: String) {
        let result = expand(string, ["A": "a"])
        #expect(result.value == string)
        #expect(result.issues.count == 1)
        guard case .malformedReference = result.issues.first else {
            Issue.record("expected a malformed reference, got \(result.issues)")
            return
        }
    }

    @Test func emptyNameIsMalformed() {
        let result = expand("a.$().b")
        #expect(result.value == "a.$().b")
        #expect(result.issues == [.malformedReference("$()")])
    }

    @Test func selfReferenceIsReportedAsACycle() {
        let result = expand("$(A)", ["A": "x$(A)"])
        #expect(result.issues.contains(.cyclicReference(name: "A")))
    }

    @Test func indirectCycleIsReported() {
        let result = expand("$(A)", ["A": "$(B)", "B": "$(C)", "C": "$(A)"])
        #expect(result.issues.contains(.cyclicReference(name: "A")))
    }

    @Test func aSettingUsedTwiceIsNotACycle() {
        let result = expand("$(A)", ["A": "$(B)$(B)", "B": "b"])
        #expect(result.value == "bb")
        #expect(result.isComplete)
    }

    // MARK: Derived settings

    @Test func identifierPrefixesDeriveFromTheDevelopmentTeam() {
        let expander = BuildSettingExpander(settings: ["DEVELOPMENT_TEAM": "ABCDE12345"])
        #expect(expander.expand("$(AppIdentifierPrefix)com.example.reader").value == "ABCDE12345.com.example.reader")
        #expect(expander.expand("$(TeamIdentifierPrefix)group").value == "ABCDE12345.group")
    }

    @Test func explicitIdentifierPrefixWinsOverTheDerivedOne() {
        let expander = BuildSettingExpander(settings: [
            "DEVELOPMENT_TEAM": "ABCDE12345", "AppIdentifierPrefix": "ZZZZZ99999.",
        ])
        #expect(expander.expand("$(AppIdentifierPrefix)x").value == "ZZZZZ99999.x")
    }

    @Test func withoutADevelopmentTeamThePrefixIsUnresolvedAndSaysWhy() {
        let result = expand("$(AppIdentifierPrefix)com.example")
        #expect(result.undefinedNames == ["AppIdentifierPrefix"])
        #expect(result.issues[0].description.contains("DEVELOPMENT_TEAM"))
    }

    @Test func addingADefaultNeverOverridesADefinition() {
        let expander = BuildSettingExpander(settings: ["CFBundleIdentifier": "com.example.defined"])
        #expect(
            expander.addingDefault("com.example.other", for: "CFBundleIdentifier").expand("$(CFBundleIdentifier)").value
                == "com.example.defined")
        #expect(
            BuildSettingExpander(settings: [:]).addingDefault("com.example.added", for: "CFBundleIdentifier")
                .expand("$(CFBundleIdentifier)").value == "com.example.added")
    }

    // MARK: Hostile input

    /// L30 would be 2^30 characters long: the expansion stops at its limit (a blow-up would run
    /// into the time limit).
    @Test(.timeLimit(.minutes(1)))
    func exponentialDefinitionsHitTheLimit() {
        var settings = ["L0": "xx"]
        for level in 1...30 { settings["L\(level)"] = "$(L\(level - 1))$(L\(level - 1))" }
        let result = expand("$(L30)", settings)
        #expect(result.value == "$(L30)")
        #expect(result.issues.contains(.limitExceeded))
    }

    @Test func exponentialEmptyDefinitionsHitTheReferenceLimit() {
        // Shallow enough for the depth limit, short enough for the length limit: 2^13 - 1 references.
        var settings = ["E0": ""]
        for level in 1...12 { settings["E\(level)"] = "$(E\(level - 1))$(E\(level - 1))" }
        #expect(expand("$(E8)", settings) == BuildSettingExpansion(value: "", issues: []))
        let result = expand("$(E12)", settings)
        #expect(result.issues == [.limitExceeded])
        #expect(result.value == "$(E12)")
    }

    @Test func longDefinitionChainsHitTheDepthLimit() {
        var settings: [String: String] = ["A0": "end"]
        for index in 1...200 { settings["A\(index)"] = "$(A\(index - 1))" }
        #expect(expand("$(A10)", settings).value == "end")
        let result = expand("$(A200)", settings)
        #expect(result.issues.contains(.limitExceeded))
        #expect(result.value == "$(A200)")
    }

    @Test func deeplyNestedNamesDoNotOverflowTheStack() {
        let opening = String(repeating: "$(", count: 100_000)
        let result = expand(opening + "X" + String(repeating: ")", count: 100_000), ["X": "x"])
        #expect(result.issues.contains(.limitExceeded))
        let unterminated = expand(opening)
        #expect(!unterminated.isComplete)
    }

    @Test func randomInputAlwaysTerminates() {
        var generator = SplitMix64(seed: 0x5EED_0001)
        let alphabet = Array("$(){}:=ABab.-_ ")
        let settings = ["A": "$(B)a", "B": "${A:lower}", "a": "$(b:default=$(A))", "b": "", "AB": "$(A)$(B)$(AB)"]
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 40)
            let string = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            let result = expand(string, settings)
            #expect(result.value.unicodeScalars.count <= BuildSettingExpander.maximumLength || result.value == string)
        }
    }
}

@Suite("Build-settings files (.xcconfig)")
struct BuildSettingsFileTests {
    @Test func settingsCommentsAndBlankLines() throws {
        let text = """
            // The Reader.
            PRODUCT_BUNDLE_IDENTIFIER = com.example.$(PRODUCT_NAME:lower)   // expanded later
            \tDEVELOPMENT_TEAM=ABCDE12345;

            PRODUCT_NAME = Reader
            EMPTY =
            PRODUCT_NAME = Reader2
            """
        let file = try BuildSettingsFile(parsing: text, file: "BuildSettings.xcconfig")
        #expect(
            file.settings == [
                "PRODUCT_BUNDLE_IDENTIFIER": "com.example.$(PRODUCT_NAME:lower)",
                "DEVELOPMENT_TEAM": "ABCDE12345",
                "PRODUCT_NAME": "Reader2",
                "EMPTY": "",
            ])
        #expect(
            BuildSettingExpander(settings: file.settings).expand("$(PRODUCT_BUNDLE_IDENTIFIER).reading").value
                == "com.example.reader2.reading")
        #expect(try BuildSettingsFile(parsing: "A = 1\r\nB = 2\r\n", file: "f").settings == ["A": "1", "B": "2"])
        #expect(try BuildSettingsFile(parsing: "", file: "f").settings == [:])
    }

    @Test(arguments: [
        ("A = 1\njust words", 2, "expected NAME = VALUE, found \"just words\""),
        ("#include \"Base.xcconfig\"", 1, "#include is not supported: write every setting in this file"),
        ("A[sdk=iphoneos*] = 1", 1, "conditional settings such as \"A[sdk=iphoneos*]\" are not supported"),
        (
            "\n\n9LIVES = x", 3,
            "\"9LIVES\" is not a build-setting name (letters, digits and _, not starting with a digit)"
        ),
        (
            "MY-NAME = x", 1,
            "\"MY-NAME\" is not a build-setting name (letters, digits and _, not starting with a digit)"
        ),
        (" = x", 1, "\"\" is not a build-setting name (letters, digits and _, not starting with a digit)"),
        ("A\u{1B}[2J = x", 1, "conditional settings such as \"A?[2J\" are not supported"),
    ])
    func badLinesNameTheFileAndTheLine(text: String, line: Int, message: String) {
        #expect(throws: BuildSettingsFileError(file: "apps/BuildSettings.xcconfig", line: line, message: message)) {
            try BuildSettingsFile(parsing: text, file: "apps/BuildSettings.xcconfig")
        }
        #expect(
            BuildSettingsFileError(file: "x.xcconfig", line: line, message: "m").description == "x.xcconfig:\(line): m")
    }

    @Test func filesThatCannotBeReadAreNamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xcconfig-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("missing.xcconfig")
        #expect(throws: BuildSettingsFileError.self) { try BuildSettingsFile(contentsOf: missing) }
        do {
            _ = try BuildSettingsFile(contentsOf: missing)
        } catch {
            #expect(
                error.file == missing.path && error.line == nil && error.message.hasPrefix("cannot read the file: "))
        }
        let binary = folder.appendingPathComponent("binary.xcconfig")
        try Data([0xFF, 0xFE, 0x00]).write(to: binary)
        #expect(throws: BuildSettingsFileError(file: binary.path, line: nil, message: "the file is not UTF-8 text")) {
            try BuildSettingsFile(contentsOf: binary)
        }
        let huge = folder.appendingPathComponent("huge.xcconfig")
        try Data(repeating: 0x20, count: BuildSettingsFile.maximumSize + 1).write(to: huge)
        #expect(throws: BuildSettingsFileError(file: huge.path, line: nil, message: "the file is larger than 256 KiB"))
        {
            try BuildSettingsFile(contentsOf: huge)
        }
    }
}
