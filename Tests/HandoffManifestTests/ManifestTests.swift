import Foundation
import HandoffCore
import HandoffManifest
import HandoffTestSupport
import Testing

// MARK: - Helpers

/// The manifest fixtures in `Fixtures/manifests`.
private enum ManifestFixture {
    static func url(_ name: String) throws -> URL {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return fixtures.appendingPathComponent("manifests").appendingPathComponent(name)
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: url(name))
    }

    /// The build settings Xcode would supply for the Reader fixture.
    static let readerSettings = [
        "PRODUCT_BUNDLE_IDENTIFIER": "com.example.reader",
        "PRODUCT_NAME": "Reader",
        "DEVELOPMENT_TEAM": "ABCDE12345",
    ]
}

/// An XML property list whose top-level dictionary contains `body`.
private func plist(_ body: String) -> Data {
    Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \(body)
        </dict>
        </plist>
        """.utf8)
}

/// A bundle identifier, a team and one activity type: an Info.plist with nothing to report.
private let validIdentity = """
    <key>CFBundleIdentifier</key><string>com.example.app</string>
    <key>TeamIdentifier</key><string>ABCDE12345</string>
    """
private let oneActivityType = "<key>NSUserActivityTypes</key><array><string>com.example.app.view</string></array>"

/// Lints inline property lists named `Info.plist` and `App.entitlements`.
private func lint(
    _ info: String, entitlements: String? = nil, settings: [String: String] = [:]
) throws -> ManifestLintReport {
    try ManifestLint.lint(
        infoPlist: plist(info), entitlements: entitlements.map(plist), buildSettings: settings,
        infoPlistName: "Info.plist", entitlementsName: "App.entitlements")
}

/// Each problem as `severity file: key`, to compare lists of problems at a glance.
private func located(_ report: ManifestLintReport) -> [String] {
    report.problems.map { "\($0.severity) \($0.file): \($0.key)" }
}

/// The one problem at `key`, failing the test when there is not exactly one.
private func problem(
    at key: String, in report: ManifestLintReport, sourceLocation: SourceLocation = #_sourceLocation
) throws -> ManifestProblem {
    let matching = report.problems.filter { $0.key == key }
    try #require(matching.count == 1, "problems at \(key): \(matching)", sourceLocation: sourceLocation)
    return matching[0]
}

/// A binary property list (`bplist00`) made of `objects` (each already encoded, with object
/// references of `referenceSize` bytes), whose top object is the first.
private func binaryPropertyList(_ objects: [[UInt8]], referenceSize: UInt8 = 1) -> Data {
    var bytes = Array("bplist00".utf8)
    var offsets: [UInt64] = []
    for object in objects {
        offsets.append(UInt64(bytes.count))
        bytes += object
    }
    let tableOffset = UInt64(bytes.count)
    for offset in offsets { bytes += bigEndian(offset) }
    bytes += [0, 0, 0, 0, 0, 0, 8, referenceSize]
    bytes += bigEndian(UInt64(objects.count)) + bigEndian(0) + bigEndian(tableOffset)
    return Data(bytes)
}

private func bigEndian(_ value: UInt64) -> [UInt8] {
    (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}

/// A binary-plist ASCII string object (of fewer than 256 characters).
private func asciiString(_ string: String) -> [UInt8] {
    let count = UInt8(string.utf8.count)
    // Counts from 15 up follow the marker as an integer object.
    return (count < 15 ? [0x50 | count] : [0x5F, 0x10, count]) + Array(string.utf8)
}

// MARK: - Reading property lists

@Suite("Manifest files: formats and hostile input")
struct ManifestReadingTests {
    @Test func xmlWithDoctypeCommentsAndEveryValueKindIsRead() throws {
        let report = try ManifestLint.lint(
            infoPlistAt: ManifestFixture.url("Reader-Info.plist"),
            entitlementsAt: ManifestFixture.url("Reader.entitlements"),
            buildSettings: ManifestFixture.readerSettings)
        #expect(report.problems == [])
        #expect(report.bundleIdentifier == "com.example.reader")
        #expect(
            report.activityTypes == [
                "com.example.reader.reading", "com.example.reader.search", "com.example.shared.bookmark",
            ])
    }

    @Test func commentsInsideValuesAreRemovedAndCDATAIsKept() throws {
        // Foundation on Linux fails on a comment inside an element's content; the reader strips it.
        let manifest = try AppManifest(infoPlistAt: ManifestFixture.url("CommentInString-Info.plist"))
        #expect(manifest.bundleIdentifier == "com.example.comments")
        #expect(manifest.activityTypes == ["com.example.comments.viewing"])
        #expect(manifest.displayName == "Comments <!-- not a comment --> & more")
    }

    @Test func commentsInsideKeysAreRemoved() throws {
        let report = try lint(
            """
            <key>CFBundle<!-- c -->Identifier</key><string>com.example.app</string>
            <key>TeamIdentifier</key><string><!-- c -->ABCDE12345</string>
            """ + oneActivityType)
        #expect(report.problems == [])
        #expect(report.bundleIdentifier == "com.example.app")
        #expect(report.teamIdentifier == "ABCDE12345")
    }

    @Test func commentsInsideNumbersAreRemoved() throws {
        let report = try lint(
            validIdentity + "<key>NSUserActivityTypes</key><array><integer>1<!-- c -->2</integer></array>")
        #expect(try problem(at: "NSUserActivityTypes[0]", in: report).message == "expected a string, found an integer")
    }

    @Test func anUnterminatedCommentIsAParseError() {
        #expect(throws: ManifestReadError.self) {
            try lint(validIdentity + "<!-- never closed")
        }
    }

    @Test func binaryPropertyListIsRead() throws {
        let dictionary: [String: Any] = [
            "CFBundleIdentifier": "$(PRODUCT_BUNDLE_IDENTIFIER)",
            "TeamIdentifier": "ABCDE12345",
            "NSUserActivityTypes": ["com.example.binary.viewing", "NSUserActivityTypeBrowsingWeb"],
            "CFBundleDocumentTypes": [
                [
                    "CFBundleTypeName": "Binary Document",
                    "LSItemContentTypes": ["com.example.binary.document"],
                    "NSUbiquitousDocumentUserActivityType": "com.example.binary.editing",
                ]
            ],
            "LSRequiresIPhoneOS": true,
            "UIRequiresFullScreen": false,
            "ReaderFontSize": 17.5,
            "ReaderPages": 0,
            "ReaderReleaseDate": Date(timeIntervalSince1970: 1_700_000_000),
            "ReaderKey": Data([0, 1, 2, 3]),
            "UIApplicationSceneManifest": [
                "UIApplicationSupportsMultipleScenes": true, "UISceneConfigurations": [:] as [String: Any],
            ],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
        #expect(data.starts(with: Array("bplist00".utf8)))
        let manifest = try AppManifest(
            infoPlist: data, buildSettings: ["PRODUCT_BUNDLE_IDENTIFIER": "com.example.binary"])
        #expect(manifest.bundleIdentifier == "com.example.binary")
        #expect(manifest.teamIdentifier == "ABCDE12345")
        #expect(manifest.activityTypes == ["com.example.binary.viewing", "NSUserActivityTypeBrowsingWeb"])
        #expect(
            manifest.documentTypes == [
                .init(
                    name: "Binary Document", contentTypes: ["com.example.binary.document"],
                    ubiquitousActivityType: "com.example.binary.editing")
            ])
        #expect(manifest.isBrowser)
    }

    @Test func binaryWrongTypesAreReportedLikeXML() throws {
        let dictionary: [String: Any] = [
            "CFBundleIdentifier": 7, "TeamIdentifier": "ABCDE12345",
            "NSUserActivityTypes": ["com.example.a", true, 1.5],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
        let report = try ManifestLint.lint(infoPlist: data)
        #expect(try problem(at: "CFBundleIdentifier", in: report).message == "expected a string, found an integer")
        #expect(try problem(at: "NSUserActivityTypes[1]", in: report).message == "expected a string, found a Boolean")
        #expect(
            try problem(at: "NSUserActivityTypes[2]", in: report).message == "expected a string, found a real number")
    }

    @Test func openStepPropertyListIsRead() throws {
        let manifest = try AppManifest(infoPlistAt: ManifestFixture.url("OpenStep-Info.plist"))
        #expect(manifest.bundleIdentifier == "com.example.legacy")
        #expect(manifest.activityTypes == ["com.example.legacy.viewing"])
    }

    @Test func utf16PropertyListIsRead() throws {
        let xml = String(decoding: plist(validIdentity + oneActivityType), as: UTF8.self)
            .replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"UTF-16\"")
        var data = Data([0xFF, 0xFE])
        data.append(try #require(xml.data(using: .utf16LittleEndian)))
        let report = try ManifestLint.lint(infoPlist: data)
        #expect(report.problems == [])
        #expect(report.bundleIdentifier == "com.example.app")
    }

    @Test(arguments: [
        ("<integer>0</integer>", "an integer"),
        ("<integer>1</integer>", "an integer"),
        ("<integer>18446744073709551615</integer>", "an integer"),
        ("<real>1</real>", "a real number"),
        ("<real>0.0</real>", "a real number"),
        ("<true/>", "a Boolean"),
        ("<false/>", "a Boolean"),
        ("<date>2024-01-01T00:00:00Z</date>", "a date"),
        ("<data>AAEC</data>", "data"),
        ("<array/>", "an array"),
        ("<dict/>", "a dictionary"),
    ])
    func valueKindsAreToldApart(_ value: String, _ kind: String) throws {
        let report = try lint(validIdentity + "<key>NSUserActivityTypes</key><array>\(value)</array>")
        #expect(try problem(at: "NSUserActivityTypes[0]", in: report).message == "expected a string, found \(kind)")
    }

    @Test func malformedXMLNamesTheFileAndTheLine() throws {
        let url = try ManifestFixture.url("Malformed-Info.plist")
        let error = try #require(throws: ManifestReadError.self) {
            try ManifestLint.lint(infoPlistAt: url)
        }
        #expect(error.file == url.relativePath)
        guard case .malformed(let detail) = error.reason else {
            Issue.record("expected malformed, got \(error.reason)")
            return
        }
        #expect(detail.contains("line 6"))
        #expect(error.description.hasPrefix("\(url.relativePath): not a valid property list: "))
    }

    /// Found by fuzz-manifest-plist: Foundation's reason for an unknown encoding quotes the rest
    /// of the document as the encoding's name, and with every NUL escaped the message grew to
    /// 17,933 bytes. The reason is cut; the message stays one short line that names the file.
    @Test func aReasonThatQuotesTheDocumentIsCut() throws {
        let document =
            Data("<?xml version=\"1.0\" encoding=\"UT".utf8) + Data(repeating: 0, count: 6_000)
            + Data("\"?><plist version=\"1.0\"><dict/></plist>".utf8)
        let error = try #require(throws: ManifestReadError.self) { try ManifestLint.lint(infoPlist: document) }
        guard case .malformed(let detail) = error.reason else {
            Issue.record("expected malformed, got \(error.reason)")
            return
        }
        #expect(detail.hasPrefix("Encountered unknown encoding"), "\(detail.prefix(200))")
        #expect(detail.contains(" more characters)"), "\(detail.suffix(200))")
        #expect(error.description.utf8.count < 2_048, "\(error.description.utf8.count) bytes")
        #expect(error.description.hasPrefix("Info.plist: not a valid property list: "))
        #expect(!error.description.contains("\n"))
    }

    @Test func aTopLevelArrayIsNotAManifest() throws {
        let error = try #require(throws: ManifestReadError.self) {
            try ManifestLint.lint(infoPlistAt: ManifestFixture.url("TopLevelArray.plist"))
        }
        #expect(error.reason == .notADictionary(found: "an array"))
    }

    @Test func plainTextIsNotAManifest() {
        // Foundation reads plain text as an OpenStep string.
        #expect(throws: ManifestReadError(file: "Info.plist", reason: .notADictionary(found: "a string"))) {
            try ManifestLint.lint(infoPlist: Data("com.example.app".utf8))
        }
    }

    @Test func emptyDataIsMalformed() {
        #expect(throws: ManifestReadError(file: "Info.plist", reason: .malformed(detail: "the file is empty"))) {
            try ManifestLint.lint(infoPlist: Data())
        }
    }

    @Test func oversizedDataIsRejectedBeforeParsing() {
        let huge = Data(repeating: 0x20, count: 8 << 20 + 1)
        #expect(throws: ManifestReadError(file: "Info.plist", reason: .tooLarge(limit: 8 << 20))) {
            try ManifestLint.lint(infoPlist: huge)
        }
    }

    @Test func missingFileAndDirectoryAreUnreadable() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/Info.plist")
        #expect(throws: ManifestReadError(file: missing.path, reason: .unreadable(detail: "no such file"))) {
            try ManifestLint.lint(infoPlistAt: missing)
        }
        let directory = FileManager.default.temporaryDirectory
        #expect(
            throws: ManifestReadError(file: directory.relativePath, reason: .unreadable(detail: "it is a directory"))
        ) {
            try ManifestLint.lint(infoPlistAt: directory)
        }
    }

    @Test func unreadableEntitlementsNameTheEntitlementsFile() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/App.entitlements")
        let error = try #require(throws: ManifestReadError.self) {
            try ManifestLint.lint(infoPlistAt: ManifestFixture.url("Browser-Info.plist"), entitlementsAt: missing)
        }
        #expect(error.file == missing.path)
        #expect(error.description == "\(missing.path): cannot read the file: no such file")
    }

    @Test func binaryPropertyListWithASetIsRejectedWithoutCrashing() throws {
        // PropertyListSerialization on Linux crashes (SIGSEGV) bridging a parsed set.
        let data = binaryPropertyList([
            [0xD1, 1, 2], asciiString("k"), [0xC2, 3, 4], asciiString("a"), asciiString("b"),
        ])
        let error = try #require(throws: ManifestReadError.self) { try ManifestLint.lint(infoPlist: data) }
        guard case .malformed(let detail) = error.reason else {
            Issue.record("expected malformed, got \(error.reason)")
            return
        }
        #expect(detail.contains("set"))
    }

    @Test func binaryDictionaryKeysMustBeStrings() throws {
        let data = binaryPropertyList([[0xD1, 1, 2], [0x10, 5], asciiString("v")])
        #expect(
            throws: ManifestReadError(
                file: "Info.plist", reason: .malformed(detail: "binary property list: a dictionary key is not a string")
            )
        ) {
            try ManifestLint.lint(infoPlist: data)
        }
    }

    @Test func binaryNullIsAWrongType() throws {
        let data = binaryPropertyList([[0xD1, 1, 2], asciiString("CFBundleIdentifier"), [0x00]])
        let report = try ManifestLint.lint(infoPlist: data)
        #expect(try problem(at: "CFBundleIdentifier", in: report).message == "expected a string, found a null")
    }

    @Test(arguments: [
        Array("bplist00".utf8),
        Array("bplist00".utf8) + [UInt8](repeating: 0, count: 40),
        Array("bplist01".utf8) + [UInt8](repeating: 0, count: 40),
        Array("bplist00".utf8) + [0x08] + [UInt8](repeating: 0xFF, count: 40),
    ])
    func truncatedOrInconsistentBinaryIsMalformed(_ bytes: [UInt8]) throws {
        let error = try #require(throws: ManifestReadError.self) { try ManifestLint.lint(infoPlist: Data(bytes)) }
        guard case .malformed = error.reason else {
            Issue.record("expected malformed, got \(error.reason)")
            return
        }
    }

    @Test func deeplyNestedXMLIsRejected() {
        let depth = 600
        let body =
            "<key>CFBundleIdentifier</key>" + String(repeating: "<array>", count: depth)
            + String(repeating: "</array>", count: depth)
        #expect(throws: ManifestReadError.self) { try lint(body) }
    }

    @Test func deeplyNestedBinaryIsRejected() {
        // 600 arrays, each holding the next (two-byte object references): deeper than Foundation accepts.
        let depth = 600
        let chain = (0..<depth).map { index -> [UInt8] in
            index == depth - 1 ? [0xA0] : [0xA1, UInt8((index + 1) >> 8), UInt8((index + 1) & 0xFF)]
        }
        #expect(throws: ManifestReadError.self) {
            try ManifestLint.lint(infoPlist: binaryPropertyList(chain, referenceSize: 2))
        }
    }

    @Test func randomBytesNeverCrashAndAlwaysThrow() {
        var generator = SplitMix64(seed: 0xBAD_B17E5)
        for round in 0..<1_000 {
            let count = Int(generator.next() % 512)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if round % 3 == 0 { bytes = Array("bplist00".utf8) + bytes }
            if round % 3 == 1 { bytes = Array("<?xml version=\"1.0\"?><plist>".utf8) + bytes }
            #expect(throws: ManifestReadError.self) { try ManifestLint.lint(infoPlist: Data(bytes)) }
        }
    }

    @Test func mutatedBinaryPropertyListsNeverCrash() throws {
        let dictionary: [String: Any] = [
            "CFBundleIdentifier": "com.example.fuzz", "TeamIdentifier": "ABCDE12345",
            "NSUserActivityTypes": ["com.example.fuzz.a", "com.example.fuzz.b"], "n": 3, "r": 1.5, "b": true,
            "d": Data([1, 2]), "t": Date(timeIntervalSince1970: 0), "nested": ["k": ["x", 1, false]],
        ]
        let original = [UInt8](
            try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0))
        var generator = SplitMix64(seed: 0xF022)
        var parsed = 0
        for _ in 0..<5_000 {
            var bytes = original
            for _ in 0...(generator.next() % 4) {
                bytes[8 + Int(generator.next() % UInt64(bytes.count - 8))] = UInt8(truncatingIfNeeded: generator.next())
            }
            if (try? ManifestLint.lint(infoPlist: Data(bytes))) != nil { parsed += 1 }
        }
        #expect(parsed > 0)
    }

    @Test func mutatedXMLNeverCrashes() throws {
        let original = [UInt8](try ManifestFixture.data("Problems-Info.plist"))
        let alphabet = Array("<>/!-[]&;#?=\" \nkeystringarraydict0123".utf8)
        var generator = SplitMix64(seed: 0x3A11)
        for _ in 0..<1_000 {
            var bytes = original
            for _ in 0...(generator.next() % 6) {
                let index = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[index] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: index)
                }
            }
            _ = try? ManifestLint.lint(infoPlist: Data(bytes))
        }
    }
}

// MARK: - AppManifest from files

@Suite("AppManifest parsing")
struct ManifestParsingTests {
    @Test func readerManifestFromXMLWithVariables() throws {
        let manifest = try AppManifest(
            infoPlistAt: ManifestFixture.url("Reader-Info.plist"),
            entitlementsAt: ManifestFixture.url("Reader.entitlements"),
            buildSettings: ManifestFixture.readerSettings)
        let expected = AppManifest(
            bundleIdentifier: "com.example.reader",
            teamIdentifier: "ABCDE12345",
            displayName: "Reader",
            activityTypes: ["com.example.reader.reading", "com.example.reader.search", "com.example.shared.bookmark"],
            documentTypes: [
                .init(
                    name: "Text Document", contentTypes: ["public.plain-text", "net.daringfireball.markdown"],
                    ubiquitousActivityType: "com.example.reader.document"),
                .init(name: "PDF", contentTypes: ["com.adobe.pdf"]),
            ],
            associatedDomains: [
                "activitycontinuation:reader.example.com", "applinks:reader.example.com",
                "webcredentials:*.example.com?mode=developer",
            ],
            // Xcode's template name: the module name derives from PRODUCT_NAME, as Xcode derives it.
            sceneManifest: .init(
                supportsMultipleScenes: true,
                configurations: [
                    .init(
                        role: "UIWindowSceneSessionRoleApplication", name: "Default Configuration",
                        delegateClass: "Reader.SceneDelegate")
                ]))
        #expect(manifest == expected)
        #expect(manifest.applicationIdentifier == "ABCDE12345.com.example.reader")
        #expect(manifest.activityContinuationDomains == ["reader.example.com"])
        // The ubiquitous type need not be repeated in NSUserActivityTypes to be continuable.
        #expect(manifest.continuableActivityTypes.contains("com.example.reader.document"))
    }

    @Test func browserManifestWithTeamInTheInfoPlist() throws {
        let manifest = try AppManifest(
            infoPlistAt: ManifestFixture.url("Browser-Info.plist"),
            entitlementsAt: ManifestFixture.url("Minimal.entitlements"))
        #expect(manifest.bundleIdentifier == "com.example.browser")
        #expect(manifest.teamIdentifier == "ABCDE12345")
        #expect(manifest.displayName == "Browser")
        #expect(manifest.isBrowser)
    }

    @Test func missingBundleIdentifierThrowsNamingFileAndKey() throws {
        let error = try #require(throws: ManifestError.self) {
            try AppManifest(infoPlist: plist("<key>TeamIdentifier</key><string>ABCDE12345</string>" + oneActivityType))
        }
        #expect(error.description == "Info.plist: CFBundleIdentifier: missing; every app needs a bundle identifier")
        #expect(error.problems.map(\.key) == ["CFBundleIdentifier"])
    }

    @Test func wrongTypeInTheEntitlementsThrowsNamingFileAndKey() throws {
        let entitlements = """
            <key>com.apple.developer.associated-domains</key>
            <array><string>activitycontinuation:example.com</string><integer>1</integer></array>
            """
        let error = try #require(throws: ManifestError.self) {
            try AppManifest(
                infoPlist: plist(validIdentity + oneActivityType), entitlements: plist(entitlements),
                entitlementsName: "App.entitlements")
        }
        #expect(
            error.description
                == "App.entitlements: com.apple.developer.associated-domains[1]: expected a string, found an integer")
    }

    @Test func everyErrorIsListedOnItsOwnLine() throws {
        let error = try #require(throws: ManifestError.self) {
            try AppManifest(infoPlist: plist("<key>NSUserActivityTypes</key><array><string>bad</string></array>"))
        }
        #expect(error.description.split(separator: "\n").count == 1)
        #expect(error.problems.map(\.key) == ["CFBundleIdentifier"])
    }

    @Test func unreadableFileThrowsUnreadable() throws {
        let error = try #require(throws: ManifestError.self) {
            try AppManifest(infoPlistAt: ManifestFixture.url("Malformed-Info.plist"))
        }
        guard case .unreadable(let readError) = error else {
            Issue.record("expected unreadable, got \(error)")
            return
        }
        #expect(readError.file.hasSuffix("Malformed-Info.plist"))
        #expect(error.problems.isEmpty)
    }

    @Test func warningsDoNotPreventAManifest() throws {
        let manifest = try AppManifest(
            infoPlist: plist(
                """
                <key>CFBundleIdentifier</key><string>com.example.app</string>
                <key>TeamIdentifier</key><string>team-one</string>
                <key>NSUserActivityTypes</key><array><string>com.example.app.view</string><string>com.example.app.view</string></array>
                """))
        #expect(manifest.teamIdentifier == "team-one")
        #expect(manifest.activityTypes == ["com.example.app.view"])
    }

    @Test func displayNamePrefersDisplayNameThenNameThenBundleIdentifier() throws {
        let both = try AppManifest(
            infoPlist: plist(
                validIdentity + oneActivityType
                    + "<key>CFBundleName</key><string>Name</string><key>CFBundleDisplayName</key><string>Display</string>"
            ))
        #expect(both.displayName == "Display")
        let nameOnly = try AppManifest(
            infoPlist: plist(validIdentity + oneActivityType + "<key>CFBundleName</key><string>Name</string>"))
        #expect(nameOnly.displayName == "Name")
        let neither = try AppManifest(infoPlist: plist(validIdentity + oneActivityType))
        #expect(neither.displayName == "com.example.app")
    }

    @Test func anUnresolvedDisplayNameIsAWarningAndFallsBack() throws {
        let info =
            validIdentity + oneActivityType
            + "<key>CFBundleDisplayName</key><string>$(DISPLAY)</string><key>CFBundleName</key><string>$(PRODUCT_NAME)</string>"
        let manifest = try AppManifest(infoPlist: plist(info))
        #expect(manifest.displayName == "com.example.app")
        let resolved = try AppManifest(infoPlist: plist(info), buildSettings: ["PRODUCT_NAME": "Product"])
        #expect(resolved.displayName == "Product")
        let report = try lint(info)
        // $(DISPLAY) is the app's own setting: a warning; $(PRODUCT_NAME) is Xcode's: a note.
        #expect(located(report) == ["warning Info.plist: CFBundleDisplayName"])
        #expect(report.notes.map(\.key).contains("CFBundleName"))
    }
}

// MARK: - Lint rules

@Suite("Manifest lint rules")
struct ManifestLintTests {
    // MARK: Fixtures

    @Test func readerWithoutBuildSettingsNotesXcodesSettingsAndErrsOnItsOwn() throws {
        let report = try ManifestLint.lint(
            infoPlistAt: ManifestFixture.url("Reader-Info.plist"),
            entitlementsAt: ManifestFixture.url("Reader.entitlements"))
        let files = [
            try ManifestFixture.url("Reader-Info.plist").relativePath: "info",
            try ManifestFixture.url("Reader.entitlements").relativePath: "entitlements",
        ]
        #expect(
            report.problems.map { "\($0.severity) \(files[$0.file] ?? $0.file): \($0.key)" } == [])
        // Every setting the Reader's files use is one Xcode defines: lint is no stricter than
        // Xcode, so each is a note naming the setting, and the values stay as written.
        let notes = report.notes.map { "\(files[$0.file] ?? $0.file): \($0.key)" }
        #expect(
            notes == [
                "info: CFBundleIdentifier", "info: CFBundleName",
                "entitlements: com.apple.developer.team-identifier",
                "entitlements: application-identifier", "entitlements: application-identifier",
                "info: NSUserActivityTypes[0]", "info: NSUserActivityTypes[1]",
                "info: CFBundleDocumentTypes[0].NSUbiquitousDocumentUserActivityType",
            ])
        #expect(report.notes.allSatisfy { $0.message.contains("Xcode defines it when it builds the app") })
        #expect(report.notes.contains { $0.message.contains("--define PRODUCT_BUNDLE_IDENTIFIER=VALUE") })
        #expect(report.bundleIdentifier == "$(PRODUCT_BUNDLE_IDENTIFIER)")
        #expect(report.teamIdentifier == "$(DEVELOPMENT_TEAM)")
        #expect(report.activityTypes.first == "$(PRODUCT_BUNDLE_IDENTIFIER).reading")

        // Installing it needs the values: each is an error that says how to give it.
        let install = try #require(throws: ManifestError.self) {
            try AppManifest(
                infoPlistAt: ManifestFixture.url("Reader-Info.plist"),
                entitlementsAt: ManifestFixture.url("Reader.entitlements"))
        }
        #expect(
            install.description.contains("CFBundleIdentifier: unresolved build setting $(PRODUCT_BUNDLE_IDENTIFIER)"))
        #expect(install.description.contains("--define PRODUCT_BUNDLE_IDENTIFIER=VALUE"))
    }

    @Test func problemsFixtureReportsEveryProblemAtItsKey() throws {
        let report = try ManifestLint.lint(
            infoPlist: ManifestFixture.data("Problems-Info.plist"),
            entitlements: ManifestFixture.data("Problems.entitlements"),
            infoPlistName: "Problems-Info.plist", entitlementsName: "Problems.entitlements")
        #expect(
            located(report) == [
                "warning Problems.entitlements: com.apple.developer.team-identifier",
                // Apple advises reverse-DNS activity types but accepts any name: a warning each
                // (an integer, an unresolved setting and an empty name stay errors).
                "warning Problems-Info.plist: NSUserActivityTypes[1]",
                "error Problems-Info.plist: NSUserActivityTypes[2]",
                "warning Problems-Info.plist: NSUserActivityTypes[3]",
                "error Problems-Info.plist: NSUserActivityTypes[4]",
                "warning Problems-Info.plist: NSUserActivityTypes[5]",
                "warning Problems-Info.plist: NSUserActivityTypes[6]",
                "warning Problems-Info.plist: NSUserActivityTypes[7]",
                "warning Problems-Info.plist: NSUserActivityTypes[8]",
                "warning Problems-Info.plist: NSUserActivityTypes[9]",
                "error Problems-Info.plist: NSUserActivityTypes[10]",
                "warning Problems-Info.plist: CFBundleDocumentTypes[0].NSUbiquitousDocumentUserActivityType",
                "error Problems-Info.plist: CFBundleDocumentTypes[1].CFBundleTypeName",
                "error Problems-Info.plist: CFBundleDocumentTypes[1].LSItemContentTypes[1]",
                "error Problems-Info.plist: CFBundleDocumentTypes[1].NSUbiquitousDocumentUserActivityType",
                "error Problems-Info.plist: CFBundleDocumentTypes[2]",
                "error Problems.entitlements: com.apple.developer.associated-domains[1]",
                "error Problems.entitlements: com.apple.developer.associated-domains[2]",
                "error Problems.entitlements: com.apple.developer.associated-domains[3]",
                "error Problems.entitlements: com.apple.developer.associated-domains[4]",
                "error Problems.entitlements: com.apple.developer.associated-domains[5]",
                "error Problems.entitlements: com.apple.developer.associated-domains[6]",
                "warning Problems.entitlements: com.apple.developer.associated-domains[7]",
            ])
        #expect(report.errors.count == 13)
        #expect(report.warnings.count == 10)
        #expect(report.hasErrors)
    }

    @Test func wrongTypesFixtureReportsEachKey() throws {
        let report = try ManifestLint.lint(infoPlist: ManifestFixture.data("WrongTypes-Info.plist"))
        #expect(
            report.problems.map { "\($0.key): \($0.message)" } == [
                "CFBundleIdentifier: expected a string, found an integer",
                "CFBundleDisplayName: expected a string, found a date",
                "TeamIdentifier: expected a string, found an array",
                "NSUserActivityTypes: expected an array of strings, found a string",
                "CFBundleDocumentTypes: expected an array of dictionaries, found a dictionary",
            ])
        #expect(report.bundleIdentifier == nil)
        #expect(report.teamIdentifier == nil)
    }

    // MARK: Bundle identifier

    @Test func missingBundleIdentifierIsAnError() throws {
        let report = try lint("<key>TeamIdentifier</key><string>ABCDE12345</string>" + oneActivityType)
        let problem = try problem(at: "CFBundleIdentifier", in: report)
        #expect(problem.severity == .error)
        #expect(problem.message.hasPrefix("missing"))
        #expect(report.bundleIdentifier == nil)
    }

    @Test(arguments: ["com.example.my_app", "com.example.my app", "com..example", ".com.example", ""])
    func invalidBundleIdentifierIsAnError(_ identifier: String) throws {
        let report = try lint(
            "<key>CFBundleIdentifier</key><string>\(identifier)</string><key>TeamIdentifier</key><string>ABCDE12345</string>"
                + oneActivityType)
        let problem = try problem(at: "CFBundleIdentifier", in: report)
        #expect(problem.severity == .error)
        #expect(problem.message.contains("is not a valid bundle identifier"))
    }

    @Test func singleComponentBundleIdentifierIsAWarning() throws {
        let report = try lint(
            "<key>CFBundleIdentifier</key><string>Reader</string><key>TeamIdentifier</key><string>ABCDE12345</string>"
                + oneActivityType)
        let problem = try problem(at: "CFBundleIdentifier", in: report)
        #expect(problem.severity == .warning)
        #expect(problem.message.contains("reverse-DNS"))
    }

    @Test func bundleIdentifierWithVariableIsCheckedAfterExpansion() throws {
        let info =
            "<key>CFBundleIdentifier</key><string>com.example.$(PRODUCT_NAME:rfc1034identifier)</string>"
            + "<key>TeamIdentifier</key><string>ABCDE12345</string>" + oneActivityType
        #expect(try lint(info, settings: ["PRODUCT_NAME": "My App"]).bundleIdentifier == "com.example.My-App")
        #expect(try lint(info, settings: ["PRODUCT_NAME": "My App"]).problems == [])
        // PRODUCT_NAME is Xcode's: a note for lint, an error for installing.
        let unresolved = try lint(info)
        #expect(unresolved.problems == [])
        #expect(unresolved.notes.map(\.key) == ["CFBundleIdentifier", "TeamIdentifier"])
        let install = try #require(throws: ManifestError.self) { try AppManifest(infoPlist: plist(info)) }
        #expect(install.description.contains("unresolved build setting $(PRODUCT_NAME)"))
        // A setting of the app's own is an error for lint too.
        let own = try lint(info.replacingOccurrences(of: "PRODUCT_NAME", with: "MY_SUFFIX"))
        #expect(try problem(at: "CFBundleIdentifier", in: own).message == "unresolved build setting $(MY_SUFFIX)")
    }

    // MARK: Team identifier

    @Test func teamFromEachSource() throws {
        let bundle = "<key>CFBundleIdentifier</key><string>com.example.app</string>" + oneActivityType
        for (key, value) in [
            ("com.apple.developer.team-identifier", "ABCDE12345"),
            ("application-identifier", "ABCDE12345.com.example.app"),
            ("com.apple.application-identifier", "ABCDE12345.com.example.app"),
        ] {
            let report = try lint(bundle, entitlements: "<key>\(key)</key><string>\(value)</string>")
            #expect(report.teamIdentifier == "ABCDE12345", "from \(key)")
            #expect(report.problems == [], "from \(key)")
        }
    }

    @Test func teamFromApplicationIdentifierWithPrefixVariable() throws {
        let report = try lint(
            "<key>CFBundleIdentifier</key><string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>" + oneActivityType,
            entitlements:
                "<key>application-identifier</key><string>$(AppIdentifierPrefix)$(CFBundleIdentifier)</string>",
            settings: ["DEVELOPMENT_TEAM": "ABCDE12345", "PRODUCT_BUNDLE_IDENTIFIER": "com.example.app"])
        #expect(report.teamIdentifier == "ABCDE12345")
        #expect(report.problems == [])
    }

    @Test func unresolvedApplicationIdentifierLeavesTheTeamUnknown() throws {
        let report = try lint(
            "<key>CFBundleIdentifier</key><string>com.example.app</string>" + oneActivityType,
            entitlements:
                "<key>application-identifier</key><string>$(AppIdentifierPrefix)$(CFBundleIdentifier)</string>")
        #expect(report.teamIdentifier == nil)
        // Xcode derives $(AppIdentifierPrefix) from the signing team: a note, and no team known.
        #expect(located(report) == [])
        #expect(report.notes.map(\.key) == ["application-identifier"])
        #expect(report.notes.first?.message.hasPrefix("$(AppIdentifierPrefix) is left as written") == true)
    }

    @Test func aMissingTeamIsAWarningForLintAndAnErrorForTheSimulator() throws {
        let info = "<key>CFBundleIdentifier</key><string>com.example.app</string>" + oneActivityType
        let report = try lint(info, entitlements: "")
        let problem = try problem(at: "TeamIdentifier", in: report)
        #expect(problem.severity == .warning)
        #expect(problem.file == "Info.plist")
        #expect(problem.message.contains("Apple reads it from the code signature"))
        #expect(problem.message.contains("--team"))
        #expect(report.teamIdentifier == nil)
        let error = try #require(throws: ManifestError.self) { try AppManifest(infoPlist: plist(info)) }
        #expect(error.problems.map(\.key) == ["TeamIdentifier"])
    }

    @Test func theTeamComesFromTheCommandLineThenTheEntitlementsThenTheSimulatorsKey() throws {
        let info = "<key>CFBundleIdentifier</key><string>com.example.app</string>" + oneActivityType
        let data = plist(info)
        #expect(try ManifestLint.lint(infoPlist: data).teamIdentifier == nil)
        let fromEntitlements = try ManifestLint.lint(
            infoPlist: data,
            entitlements: plist("<key>com.apple.developer.team-identifier</key><string>ZYXWV98765</string>"))
        #expect(fromEntitlements.teamIdentifier == "ZYXWV98765")
        #expect(fromEntitlements.problems == [] && fromEntitlements.notes == [])
        let simulators = try ManifestLint.lint(infoPlist: plist(validIdentity + oneActivityType))
        #expect(simulators.teamIdentifier == "ABCDE12345")
        #expect(simulators.problems == [])
        #expect(simulators.notes.map(\.key) == ["TeamIdentifier"])
        #expect(simulators.notes.first?.message.hasPrefix("the simulator's key, not Apple's") == true)
    }

    /// Xcode signs with DEVELOPMENT_TEAM: a build setting names the team as the project would,
    /// `--team` overrides it as a command-line setting would, and the entitlements must agree.
    @Test func theDevelopmentTeamBuildSettingNamesTheTeam() throws {
        let info = "<key>CFBundleIdentifier</key><string>com.example.app</string>" + oneActivityType
        let fromSetting = try lint(info, settings: ["DEVELOPMENT_TEAM": "M8L2WTLA8W"])
        #expect(fromSetting.teamIdentifier == "M8L2WTLA8W")
        #expect(fromSetting.problems == [])
        let manifest = try AppManifest(infoPlist: plist(info), buildSettings: ["DEVELOPMENT_TEAM": "M8L2WTLA8W"])
        #expect(manifest.teamIdentifier == "M8L2WTLA8W")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("team-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Info.plist")
        try plist(info).write(to: file)
        let overridden = try ManifestLint.lint(
            infoPlistAt: file, buildSettings: ["DEVELOPMENT_TEAM": "M8L2WTLA8W"], team: "ABCDE12345")
        #expect(overridden.teamIdentifier == "ABCDE12345")
        #expect(overridden.problems == [])
        let conflicting = try lint(
            info, entitlements: "<key>com.apple.developer.team-identifier</key><string>ZYXWV98765</string>",
            settings: ["DEVELOPMENT_TEAM": "M8L2WTLA8W"])
        let problem = try problem(at: "com.apple.developer.team-identifier", in: conflicting)
        #expect(problem.severity == .error)
        #expect(problem.message.contains("does not match \"M8L2WTLA8W\" from DEVELOPMENT_TEAM in build settings"))
        // An empty setting is no team, as in Xcode before a team is chosen.
        #expect(try lint(info, settings: ["DEVELOPMENT_TEAM": ""]).teamIdentifier == nil)
    }

    @Test(arguments: ["abcde12345", "ABCDE1234", "ABCDE123456", "ABCDE-2345"])
    func malformedTeamIsAWarning(_ team: String) throws {
        let report = try lint(
            "<key>CFBundleIdentifier</key><string>com.example.app</string><key>TeamIdentifier</key><string>\(team)</string>"
                + oneActivityType)
        let problem = try problem(at: "TeamIdentifier", in: report)
        #expect(problem.severity == .warning)
        #expect(problem.message.contains("10 uppercase letters or digits"))
        #expect(report.teamIdentifier == team)
    }

    @Test func emptyTeamIsAnError() throws {
        let report = try lint(
            "<key>CFBundleIdentifier</key><string>com.example.app</string><key>TeamIdentifier</key><string></string>"
                + oneActivityType)
        #expect(try problem(at: "TeamIdentifier", in: report).message == "is empty")
        #expect(report.teamIdentifier == nil)
    }

    @Test func conflictingTeamsAreAnError() throws {
        let report = try lint(
            validIdentity + oneActivityType,
            entitlements: "<key>application-identifier</key><string>ZYXWV98765.com.example.app</string>")
        let problem = try problem(at: "TeamIdentifier", in: report)
        #expect(problem.severity == .error)
        #expect(problem.file == "Info.plist")
        #expect(
            problem.message.contains(
                "\"ABCDE12345\" does not match \"ZYXWV98765\" from application-identifier in App.entitlements"))
        #expect(report.teamIdentifier == "ZYXWV98765")
    }

    @Test(arguments: ["ABCDE12345", "ABCDE12345.", ".com.example.app"])
    func applicationIdentifierWithoutTeamAndBundleIsAnError(_ value: String) throws {
        let report = try lint(
            validIdentity + oneActivityType, entitlements: "<key>application-identifier</key><string>\(value)</string>")
        #expect(try problem(at: "application-identifier", in: report).message.contains("TEAMID.bundle.identifier"))
    }

    @Test func applicationIdentifierForAnotherBundleIsAWarning() throws {
        let report = try lint(
            validIdentity + oneActivityType,
            entitlements: "<key>application-identifier</key><string>ABCDE12345.com.example.other</string>")
        let problem = try problem(at: "application-identifier", in: report)
        #expect(problem.severity == .warning)
        #expect(problem.message.contains("com.example.other"))
    }

    @Test(arguments: ["ABCDE12345.*", "ABCDE12345.com.example.*"])
    func wildcardApplicationIdentifierMatches(_ value: String) throws {
        let report = try lint(
            validIdentity + oneActivityType, entitlements: "<key>application-identifier</key><string>\(value)</string>")
        #expect(report.problems == [])
    }

    // MARK: Activity types

    @Test func browsingWebIsAKnownType() throws {
        let report = try lint(
            validIdentity
                + "<key>NSUserActivityTypes</key><array><string>NSUserActivityTypeBrowsingWeb</string></array>")
        #expect(report.problems == [])
        #expect(report.activityTypes == [UserActivity.browsingWebType])
    }

    @Test func nonReverseDNSActivityTypeIsAWarning() throws {
        let report = try lint(
            validIdentity
                + "<key>NSUserActivityTypes</key><array><string>com.example.ok</string><string>reading</string></array>"
        )
        let problem = try problem(at: "NSUserActivityTypes[1]", in: report)
        #expect(problem.severity == .warning)
        #expect(
            problem.message == "\"reading\" is not a reverse-DNS activity type (\(ReverseDNSProblem.singleComponent)); "
                + "Apple advises reverse-DNS (com.example.app.reading) but accepts it")
        #expect(report.activityTypes == ["com.example.ok", "reading"])
    }

    @Test func activityTypeVariablesAreCheckedAfterExpansion() throws {
        let info = validIdentity + "<key>NSUserActivityTypes</key><array><string>$(PREFIX).reading</string></array>"
        #expect(try lint(info, settings: ["PREFIX": "com.example"]).problems == [])
        let invalid = try lint(info, settings: ["PREFIX": "bad prefix"])
        #expect(try problem(at: "NSUserActivityTypes[0]", in: invalid).message.contains("whitespace"))
        let unresolved = try lint(info)
        #expect(
            try problem(at: "NSUserActivityTypes[0]", in: unresolved).message == "unresolved build setting $(PREFIX)")
    }

    @Test func duplicateActivityTypeIsAWarning() throws {
        let report = try lint(
            validIdentity + """
                <key>NSUserActivityTypes</key>
                <array><string>com.example.a</string><string>com.example.b</string><string>com.example.a</string></array>
                """)
        let problem = try problem(at: "NSUserActivityTypes[2]", in: report)
        #expect(problem.severity == .warning)
        #expect(problem.message == "\"com.example.a\" is already declared at NSUserActivityTypes[0]")
        #expect(report.activityTypes == ["com.example.a", "com.example.b"])
    }

    @Test func duplicatesAreDetectedAfterExpansion() throws {
        let report = try lint(
            validIdentity
                + "<key>NSUserActivityTypes</key><array><string>com.example.a</string><string>$(ID).a</string></array>",
            settings: ["ID": "com.example"])
        #expect(try problem(at: "NSUserActivityTypes[1]", in: report).severity == .warning)
    }

    @Test func activityTypesThatAreNotAnArrayAreAnError() throws {
        let report = try lint(validIdentity + "<key>NSUserActivityTypes</key><dict/>")
        #expect(
            try problem(at: "NSUserActivityTypes", in: report).message
                == "expected an array of strings, found a dictionary")
    }

    @Test func nothingToContinueIsAWarning() throws {
        let report = try lint(validIdentity)
        let problem = try problem(at: "NSUserActivityTypes", in: report)
        #expect(problem.severity == .warning)
        #expect(problem.message.hasPrefix("missing"))
        let empty = try lint(validIdentity + "<key>NSUserActivityTypes</key><array/>")
        #expect(try ManifestTestsSupport.onlyProblem(in: empty).message.hasPrefix("is empty"))
    }

    @Test func aDocumentActivityOrAWebDomainIsSomethingToContinue() throws {
        let documents = try lint(
            validIdentity + """
                <key>CFBundleDocumentTypes</key><array><dict>
                <key>CFBundleTypeName</key><string>Note</string>
                <key>LSItemContentTypes</key><array><string>com.example.note</string></array>
                <key>NSUbiquitousDocumentUserActivityType</key><string>com.example.note.editing</string>
                </dict></array>
                """)
        #expect(documents.problems == [])
        let web = try lint(
            validIdentity,
            entitlements: """
                <key>com.apple.developer.associated-domains</key><array><string>activitycontinuation:example.com</string></array>
                """)
        #expect(web.problems == [])
    }

    // MARK: Document types

    private func documentTypes(_ entries: String) throws -> ManifestLintReport {
        try lint(validIdentity + oneActivityType + "<key>CFBundleDocumentTypes</key><array>\(entries)</array>")
    }

    @Test func documentTypesAreReported() throws {
        let report = try documentTypes(
            """
            <dict><key>CFBundleTypeName</key><string>Note</string>
            <key>LSItemContentTypes</key><array><string>com.example.note</string><string>public.plain-text</string></array>
            <key>NSUbiquitousDocumentUserActivityType</key><string>com.example.note.editing</string></dict>
            <dict><key>CFBundleTypeName</key><string>Image</string>
            <key>LSItemContentTypes</key><array><string>public.png</string></array></dict>
            """)
        #expect(report.problems == [])
        #expect(
            report.documentTypes == [
                .init(
                    name: "Note", contentTypes: ["com.example.note", "public.plain-text"],
                    ubiquitousActivityType: "com.example.note.editing"),
                .init(name: "Image", contentTypes: ["public.png"]),
            ])
    }

    @Test func ubiquitousTypeMustBeReverseDNS() throws {
        let report = try documentTypes(
            """
            <dict><key>CFBundleTypeName</key><string>Note</string><key>LSItemContentTypes</key><array><string>public.text</string></array>
            <key>NSUbiquitousDocumentUserActivityType</key><string>editing</string></dict>
            """)
        // As for NSUserActivityTypes: Apple advises reverse-DNS and accepts a short name.
        let problem = try problem(at: "CFBundleDocumentTypes[0].NSUbiquitousDocumentUserActivityType", in: report)
        #expect(problem.severity == .warning)
        #expect(problem.message.contains("is not a reverse-DNS activity type"))
        #expect(problem.message.hasSuffix("but accepts it"))
    }

    @Test func ubiquitousTypeMustBeAString() throws {
        let report = try documentTypes(
            """
            <dict><key>CFBundleTypeName</key><string>Note</string><key>LSItemContentTypes</key><array><string>public.text</string></array>
            <key>NSUbiquitousDocumentUserActivityType</key><integer>1</integer></dict>
            """)
        #expect(
            try problem(at: "CFBundleDocumentTypes[0].NSUbiquitousDocumentUserActivityType", in: report).message
                == "expected a string, found an integer")
        #expect(report.documentTypes.first?.ubiquitousActivityType == nil)
    }

    @Test func ubiquitousTypeSharedByTwoDocumentTypesIsAllowed() throws {
        let entry = """
            <dict><key>CFBundleTypeName</key><string>Note</string><key>LSItemContentTypes</key><array><string>public.text</string></array>
            <key>NSUbiquitousDocumentUserActivityType</key><string>com.example.editing</string></dict>
            """
        // PG: "Multiple document types can have the same activity type."
        let report = try documentTypes(entry + entry.replacingOccurrences(of: "public.text", with: "public.rtf"))
        #expect(report.problems == [])
        #expect(report.documentTypes.map(\.ubiquitousActivityType) == ["com.example.editing", "com.example.editing"])
    }

    @Test func documentTypeNeedsAName() throws {
        let report = try documentTypes(
            "<dict><key>LSItemContentTypes</key><array><string>public.text</string></array></dict>")
        let problem = try problem(at: "CFBundleDocumentTypes[0].CFBundleTypeName", in: report)
        #expect(problem.severity == .error)
        #expect(problem.message.hasPrefix("missing"))
        #expect(report.documentTypes == [.init(name: "", contentTypes: ["public.text"])])
    }

    @Test func documentTypeNameMustBeAString() throws {
        let report = try documentTypes(
            "<dict><key>CFBundleTypeName</key><true/><key>LSItemContentTypes</key><array><string>public.text</string></array></dict>"
        )
        #expect(
            try problem(at: "CFBundleDocumentTypes[0].CFBundleTypeName", in: report).message
                == "expected a string, found a Boolean")
    }

    @Test func documentTypeWithoutContentTypesIsAWarning() throws {
        let missing = try documentTypes("<dict><key>CFBundleTypeName</key><string>Note</string></dict>")
        #expect(try problem(at: "CFBundleDocumentTypes[0].LSItemContentTypes", in: missing).severity == .warning)
        let empty = try documentTypes(
            "<dict><key>CFBundleTypeName</key><string>Note</string><key>LSItemContentTypes</key><array/></dict>")
        #expect(try problem(at: "CFBundleDocumentTypes[0].LSItemContentTypes", in: empty).severity == .warning)
    }

    @Test func contentTypesMustBeAnArrayOfNonEmptyStrings() throws {
        let notArray = try documentTypes(
            "<dict><key>CFBundleTypeName</key><string>N</string><key>LSItemContentTypes</key><string>public.text</string></dict>"
        )
        #expect(
            try problem(at: "CFBundleDocumentTypes[0].LSItemContentTypes", in: notArray).message
                == "expected an array of strings, found a string")
        let elements = try documentTypes(
            """
            <dict><key>CFBundleTypeName</key><string>N</string>
            <key>LSItemContentTypes</key><array><string>public.text</string><data>AA==</data><string></string></array></dict>
            """)
        #expect(
            try problem(at: "CFBundleDocumentTypes[0].LSItemContentTypes[1]", in: elements).message
                == "expected a string, found data")
        #expect(try problem(at: "CFBundleDocumentTypes[0].LSItemContentTypes[2]", in: elements).message == "is empty")
        #expect(try problem(at: "CFBundleDocumentTypes[0].LSItemContentTypes[2]", in: elements).severity == .error)
    }

    @Test func oddContentTypesAndRepeatsAreWarnings() throws {
        let report = try documentTypes(
            """
            <dict><key>CFBundleTypeName</key><string>N</string>
            <key>LSItemContentTypes</key><array><string>text</string><string>public.text</string><string>public.text</string></array></dict>
            """)
        #expect(try problem(at: "CFBundleDocumentTypes[0].LSItemContentTypes[0]", in: report).severity == .warning)
        #expect(
            try problem(at: "CFBundleDocumentTypes[0].LSItemContentTypes[2]", in: report).message
                == "\"public.text\" is declared twice")
        #expect(report.documentTypes.first?.contentTypes == ["text", "public.text"])
    }

    @Test func documentTypeEntriesMustBeDictionaries() throws {
        let report = try documentTypes("<string>Note</string>")
        #expect(
            try problem(at: "CFBundleDocumentTypes[0]", in: report).message == "expected a dictionary, found a string")
        let notArray = try lint(validIdentity + oneActivityType + "<key>CFBundleDocumentTypes</key><string>x</string>")
        #expect(
            try problem(at: "CFBundleDocumentTypes", in: notArray).message
                == "expected an array of dictionaries, found a string")
    }

    // MARK: Associated domains

    private func domains(_ entries: [String]) throws -> ManifestLintReport {
        try lint(
            validIdentity + oneActivityType,
            entitlements: "<key>com.apple.developer.associated-domains</key><array>"
                + entries.map { "<string>\($0)</string>" }.joined() + "</array>")
    }

    @Test func validAssociatedDomains() throws {
        let entries = [
            "activitycontinuation:example.com", "applinks:www.example.com", "webcredentials:*.example.com",
            "appclips:clip.example.com", "applinks:example.com?mode=developer",
            "applinks:example.com:8443?mode=developer+managed",
            "activitycontinuation:xn--bcher-kva.example", "applinks:localhost?mode=managed",
        ]
        let report = try domains(entries)
        #expect(report.problems == [])
        #expect(report.associatedDomains == entries)
    }

    @Test(arguments: [
        ("example.com", "has no service prefix"),
        ("", "has no service prefix"),
        ("continuity:example.com", "has an unknown service \"continuity\""),
        ("ActivityContinuation:example.com", "has an unknown service"),
        ("applinks:", "has no domain"),
        ("applinks:?mode=developer", "has no domain"),
        ("applinks:exa mple.com", "has an invalid domain"),
        ("applinks:bad_host.example.com", "has an invalid domain"),
        ("applinks:-example.com", "has an invalid domain"),
        ("applinks:example..com", "has an invalid domain"),
        ("applinks:www.*.example.com", "has an invalid domain"),
        ("applinks:bücher.example", "has an invalid domain"),
        ("applinks:example.com?mode=production", "has an invalid query"),
        ("applinks:example.com?developer", "has an invalid query"),
        ("applinks:example.com:0", "has an invalid port"),
        ("applinks:example.com:99999", "has an invalid port"),
        ("applinks:example.com:", "has an invalid port"),
    ])
    func invalidAssociatedDomainIsAnError(_ entry: String, _ expected: String) throws {
        let report = try domains([entry])
        let problem = try problem(at: "com.apple.developer.associated-domains[0]", in: report)
        #expect(problem.severity == .error)
        #expect(problem.file == "App.entitlements")
        #expect(problem.message.contains(expected), "\(problem.message)")
    }

    @Test func serviceListIsTheDocumentedOne() {
        #expect(
            ManifestLint.associatedDomainServices == ["applinks", "webcredentials", "activitycontinuation", "appclips"])
    }

    @Test func duplicateAssociatedDomainIsAWarning() throws {
        let report = try domains(["applinks:example.com", "applinks:example.com"])
        #expect(try problem(at: "com.apple.developer.associated-domains[1]", in: report).severity == .warning)
        #expect(report.associatedDomains == ["applinks:example.com"])
    }

    @Test func associatedDomainsMustBeAnArrayOfStrings() throws {
        let notArray = try lint(
            validIdentity + oneActivityType,
            entitlements: "<key>com.apple.developer.associated-domains</key><string>applinks:example.com</string>")
        #expect(
            try problem(at: "com.apple.developer.associated-domains", in: notArray).message
                == "expected an array of strings, found a string")
        let element = try lint(
            validIdentity + oneActivityType,
            entitlements: """
                <key>com.apple.developer.associated-domains</key><array><string>applinks:example.com</string><integer>1</integer></array>
                """)
        #expect(
            try problem(at: "com.apple.developer.associated-domains[1]", in: element).message
                == "expected a string, found an integer")
        #expect(element.associatedDomains == ["applinks:example.com"])
    }

    @Test func associatedDomainVariablesExpandWithEntitlementDefaults() throws {
        let report = try lint(
            validIdentity + oneActivityType,
            entitlements:
                "<key>com.apple.developer.associated-domains</key><array><string>activitycontinuation:$(WEB_HOST)</string></array>",
            settings: ["WEB_HOST": "reader.example.com"])
        #expect(report.associatedDomains == ["activitycontinuation:reader.example.com"])
        #expect(report.problems == [])
        let unresolved = try lint(
            validIdentity + oneActivityType,
            entitlements:
                "<key>com.apple.developer.associated-domains</key><array><string>applinks:$(WEB_HOST)</string></array>")
        #expect(
            try problem(at: "com.apple.developer.associated-domains[0]", in: unresolved).message
                == "unresolved build setting $(WEB_HOST)")
    }

    @Test func associatedDomainsInTheInfoPlistAreAWarning() throws {
        let report = try lint(
            validIdentity + oneActivityType + """
                <key>com.apple.developer.associated-domains</key><array><string>activitycontinuation:example.com</string></array>
                """)
        let problem = try problem(at: "com.apple.developer.associated-domains", in: report)
        #expect(problem.severity == .warning)
        #expect(problem.file == "Info.plist")
        #expect(report.associatedDomains == [])
    }

    // MARK: Output

    @Test func jsonHasEveryKeyWithNullsForUnknownValues() throws {
        let report = try lint(
            "<key>CFBundleIdentifier</key><string>com.example.app</string>" + oneActivityType + """
                <key>CFBundleDocumentTypes</key><array><dict><key>CFBundleTypeName</key><string>Note</string>
                <key>LSItemContentTypes</key><array><string>public.text</string></array></dict></array>
                """)
        let data = try JSONEncoder().encode(report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "bundleIdentifier", "teamIdentifier", "activityTypes", "documentTypes", "associatedDomains",
                "sceneManifest",
                "problems", "notes",
            ])
        #expect(object["sceneManifest"] is NSNull)
        #expect(object["notes"] as? [Any] == nil || (object["notes"] as? [Any])?.isEmpty == true)
        #expect(object["teamIdentifier"] is NSNull)
        #expect(object["bundleIdentifier"] as? String == "com.example.app")
        #expect(object["activityTypes"] as? [String] == ["com.example.app.view"])
        let documentType = try #require((object["documentTypes"] as? [[String: Any]])?.first)
        #expect(Set(documentType.keys) == ["name", "contentTypes", "ubiquitousActivityType"])
        #expect(documentType["ubiquitousActivityType"] is NSNull)
        let problem = try #require((object["problems"] as? [[String: Any]])?.first)
        // Apple reads the team from the code signature: missing here, it is only a warning.
        #expect(
            problem as? [String: String] == [
                "severity": "warning", "key": "TeamIdentifier", "file": "Info.plist",
                "message": report.problems[0].message,
            ])
        #expect(try JSONDecoder().decode(ManifestLintReport.self, from: data) == report)
    }

    @Test func formattedTextHasSectionsProblemsAndCounts() throws {
        let report = try lint(
            validIdentity + """
                <key>NSUserActivityTypes</key><array><string>com.example.a</string><string>bad</string><string>com.example.a</string></array>
                """)
        let text = report.formattedText(infoPlist: "App/Info.plist", entitlements: "App/App.entitlements")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Info.plist:        App/Info.plist")
        #expect(lines.contains("Entitlements:      App/App.entitlements"))
        #expect(lines.contains("Bundle identifier: com.example.app"))
        #expect(lines.contains("Team identifier:   ABCDE12345"))
        #expect(lines.contains("Activity types (2):"))
        #expect(lines.contains("  com.example.a"))
        #expect(lines.contains("Document types: none"))
        #expect(lines.contains("Associated domains: none"))
        #expect(lines.contains("Problems (2):"))
        #expect(lines.contains { $0.hasPrefix("  warning: Info.plist: NSUserActivityTypes[1]: ") })
        #expect(lines.contains { $0.hasPrefix("  warning: Info.plist: NSUserActivityTypes[2]: ") })
        #expect(lines.contains("Scenes: none (the app delegate continues activities)"))
        // TeamIdentifier in the Info.plist is the simulator's key: a note, never a problem.
        #expect(lines.contains("Notes (1):"))
        #expect(lines.contains { $0.hasPrefix("  note: Info.plist: TeamIdentifier: the simulator's key") })
        #expect(lines.last == "0 errors, 2 warnings, 1 note")
    }

    @Test func formattedTextEscapesControlCharacters() throws {
        let report = try lint(
            validIdentity + "<key>NSUserActivityTypes</key><array><string>com.example.&#x1B;[2J</string></array>")
        let text = report.formattedText(infoPlist: "Info.plist")
        #expect(!text.contains("\u{1B}"))
        #expect(text.contains("\\u{1B}[2J"))
        // Not reverse-DNS (a warning: Apple accepts it), shown escaped.
        #expect(text.hasSuffix("0 errors, 1 warning, 1 note"))
    }

    @Test func formattedTextForACleanReport() throws {
        let text = try lint(validIdentity + oneActivityType).formattedText(infoPlist: "Info.plist")
        #expect(text.contains("Problems: none\n"))
        #expect(text.hasSuffix("\n\n0 errors, 0 warnings, 1 note"))
        // The team in the entitlements, as Apple has it: nothing to note.
        let noNotes = try lint(
            "<key>CFBundleIdentifier</key><string>com.example.app</string>" + oneActivityType,
            entitlements: "<key>com.apple.developer.team-identifier</key><string>ABCDE12345</string>"
        ).formattedText(infoPlist: "Info.plist")
        #expect(noNotes.hasSuffix("Problems: none\n\n0 errors, 0 warnings"))
        #expect(!text.contains("Entitlements:"))
        let unknown = try lint(oneActivityType).formattedText(infoPlist: "Info.plist")
        #expect(unknown.contains("Bundle identifier: (unknown)"))
        #expect(unknown.contains("Team identifier:   (unknown)"))
        // A missing bundle identifier is an error; a missing team only a warning (Apple reads it
        // from the code signature).
        #expect(unknown.hasSuffix("1 error, 1 warning"))
    }

    @Test func problemDescriptionNamesFileKeyAndMessage() {
        let problem = ManifestProblem(
            severity: .error, message: "expected a string, found an integer", key: "NSUserActivityTypes[2]",
            file: "Info.plist")
        #expect(problem.description == "Info.plist: NSUserActivityTypes[2]: expected a string, found an integer")
    }
}

private enum ManifestTestsSupport {
    static func onlyProblem(
        in report: ManifestLintReport, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ManifestProblem {
        try #require(report.problems.count == 1, "problems: \(report.problems)", sourceLocation: sourceLocation)
        return report.problems[0]
    }
}
