import Foundation
import HandoffCore
import HandoffManifest
import HandoffTestSupport
import Testing

/// Activity files (`--activity FILE`): property lists and JSON read into an activity, and every
/// kind of bad input refused with the file and the key path.
@Suite("Activity files")
struct ActivityFileTests {
    static func url(_ name: String) throws -> URL {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return fixtures.appendingPathComponent("activities").appendingPathComponent(name)
    }

    /// An XML property list whose top-level dictionary holds `body`.
    static func plist(_ body: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>\(body)</dict></plist>
            """.utf8)
    }

    static func error(_ data: Data, name: String = "a.plist") -> ActivityFileError? {
        do {
            _ = try ActivityFile(data: data, name: name)
            return nil
        } catch {
            return error
        }
    }

    static func error(json: String) -> ActivityFileError? { error(Data(json.utf8), name: "a.json") }

    @Test func anXMLPropertyListGivesEveryPropertyAndEveryKindOfValue() throws {
        let file = try ActivityFile(contentsOf: Self.url("reading.plist"), name: "reading.plist")
        #expect(file.format == .xmlPropertyList)
        #expect(file.activityType == "com.example.notes.editing")
        #expect(file.title == "Groceries")
        #expect(file.webpageURL?.absoluteString == "https://notes.example.com/n/42")
        #expect(file.requiredUserInfoKeys == ["noteID", "cursor"])
        #expect(file.expirationDate == ISO8601DateFormatter().date(from: "2030-01-01T00:00:00Z"))
        #expect(file.isEligibleForHandoff)
        #expect(!file.supportsContinuationStreams)
        #expect(file.warnings.isEmpty)
        let info = file.userInfo
        #expect(info["noteID"] == .integer(42))
        #expect(info["cursor"] == .double(12.5))
        #expect(info["pinned"] == .bool(false))
        #expect(info["body"] == "milk, eggs")
        #expect(info["edited"] == .date(try #require(ISO8601DateFormatter().date(from: "2026-11-28T09:00:00Z"))))
        #expect(info["thumbnail"] == .data(Data([0, 1, 2, 255])))
        #expect(info["tags"] == ["home", 1])
        #expect(info["position"] == ["line": 3])
    }

    @Test func aJSONFileGivesWhatJSONCan() throws {
        let file = try ActivityFile(contentsOf: Self.url("reading.json"), name: "reading.json")
        #expect(file.format == .json)
        #expect(file.activityType == "com.example.notes.editing")
        #expect(file.expirationDate == ISO8601DateFormatter().date(from: "2030-01-01T00:00:00Z"))
        #expect(file.userInfo["noteID"] == .integer(42))
        #expect(file.userInfo["cursor"] == .double(12.5))
        #expect(file.userInfo["missing"] == .null)
        #expect(file.userInfo["position"] == ["line": 3])
        // The same activity as the property list, but for the kinds JSON has not.
        let plist = try ActivityFile(contentsOf: Self.url("reading.plist"), name: "reading.plist")
        #expect(file.requiredUserInfoKeys == plist.requiredUserInfoKeys)
        #expect(file.title == plist.title)
    }

    @Test func aBinaryPropertyListReadsTheSame() throws {
        let object: [String: Any] = [
            "activityType": "com.example.binary", "userInfo": ["n": 7, "flag": true, "d": Data([9])],
            "supportsContinuationStreams": true,
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let file = try ActivityFile(data: data, name: "b.plist")
        #expect(file.format == .binaryPropertyList)
        #expect(file.userInfo == ["n": 7, "flag": true, "d": .data(Data([9]))])
        #expect(file.supportsContinuationStreams)
    }

    @Test func theActivityTheFileMakesCarriesItsProperties() throws {
        let device = Device(info: PeerInfo(id: DeviceID("d1"), name: "Phone", kind: .phone))
        let app = device.install(
            AppManifest(
                bundleIdentifier: "com.example.notes", teamIdentifier: "ABCDE12345",
                activityTypes: ["com.example.notes.editing"]))
        let file = try ActivityFile(contentsOf: Self.url("reading.plist"), name: "reading.plist")
        let activity = try file.makeActivity(in: app)
        #expect(activity.activityType == file.activityType)
        #expect(activity.title == "Groceries")
        #expect(activity.userInfo == file.userInfo)
        #expect(activity.requiredUserInfoKeys == ["noteID", "cursor"])
        #expect(activity.webpageURL == file.webpageURL)
        #expect(activity.expirationDate == file.expirationDate)
        activity.becomeCurrent()
        #expect(activity.isCurrent)
    }

    @Test func aFileThatIsNotAPropertyListOrJSONSaysSo() throws {
        let garbage = try #require(Self.error(Data("<plist><dict><key>a</key></plist>".utf8), name: "x.plist"))
        #expect(garbage.keyPath == nil)
        #expect(garbage.description.hasPrefix("x.plist: not a property list or JSON"))
        let badJSON = try #require(Self.error(json: #"{"activityType": }"#))
        #expect(badJSON.description.hasPrefix("a.json: not a property list or JSON: JSON:"))
        let empty = try #require(Self.error(Data(), name: "e.plist"))
        #expect(empty.description == "e.plist: not a property list or JSON: the file is empty")
        let array = try #require(Self.error(json: #"["activityType"]"#))
        #expect(array.description == "a.json: must be a JSON object at the top level, not an array")
        let plistArray = try #require(
            Self.error(Data(#"<?xml version="1.0"?><plist version="1.0"><array/></plist>"#.utf8)))
        #expect(plistArray.description.contains("must be a dictionary"))
        let missing = #expect(throws: ActivityFileError.self) {
            try ActivityFile(contentsOf: URL(fileURLWithPath: "/nonexistent/activity.plist"))
        }
        #expect(missing?.description == "/nonexistent/activity.plist: cannot read the file: no such file")
    }

    @Test func wrongTypesNameTheKeyPath() throws {
        let type = try #require(Self.error(Self.plist("<key>activityType</key><integer>3</integer>")))
        #expect(type.description == "a.plist: activityType: must be a string, not an integer")
        let missing = try #require(Self.error(Self.plist("<key>title</key><string>t</string>")))
        #expect(missing.description == "a.plist: activityType: missing (required)")
        let empty = try #require(Self.error(json: #"{"activityType": "  "}"#))
        #expect(empty.description == "a.json: activityType: must not be empty")
        let eligible = try #require(Self.error(json: #"{"activityType": "t", "eligibleForHandoff": 1}"#))
        #expect(eligible.description == "a.json: eligibleForHandoff: must be a Boolean, not an integer")
        let keys = try #require(Self.error(json: #"{"activityType": "t", "requiredUserInfoKeys": ["a", 2]}"#))
        #expect(keys.description == "a.json: requiredUserInfoKeys[1]: must be a string, not an integer")
        let info = try #require(Self.error(json: #"{"activityType": "t", "userInfo": [1]}"#))
        #expect(info.description == "a.json: userInfo: must be a dictionary, not an array")
        let url = try #require(Self.error(json: #"{"activityType": "t", "webpageURL": "ftp://x.example/"}"#))
        #expect(url.description == #"a.json: webpageURL: must use http or https, not "ftp""#)
        let date = try #require(Self.error(json: #"{"activityType": "t", "expirationDate": "tomorrow"}"#))
        #expect(date.keyPath == "expirationDate")
        #expect(date.description.contains("not an ISO 8601 date"))
        let plistDate = try #require(
            Self.error(Self.plist("<key>activityType</key><string>t</string><key>expirationDate</key><true/>")))
        #expect(plistDate.description.contains("expirationDate: must be a date"))
    }

    @Test func unknownKeysAreErrorsWithASuggestionAndApplesOtherKeysAreWarnings() throws {
        let typo = try #require(Self.error(json: #"{"activityType": "t", "userinfo": {}}"#))
        #expect(typo.keyPath == "userinfo")
        #expect(typo.description.contains("unknown key (did you mean userInfo?)"))
        let apple = try #require(Self.error(json: #"{"activityType": "t", "isEligibleForHandoff": true}"#))
        #expect(apple.description.contains("did you mean eligibleForHandoff?"))
        let other = try #require(Self.error(json: #"{"activityType": "t", "colour": "red"}"#))
        #expect(other.description.hasPrefix("a.json: colour: unknown key; keys: activityType"))
        let file = try ActivityFile(
            data: Data(#"{"activityType": "t", "eligibleForSearch": true, "keywords": ["a"]}"#.utf8), name: "w.json")
        #expect(file.warnings.map(\.keyPath) == ["eligibleForSearch", "keywords"])
        #expect(file.warnings[0].description.hasPrefix("w.json: eligibleForSearch: read and ignored"))
        let badIgnored = try #require(Self.error(json: #"{"activityType": "t", "keywords": "a"}"#))
        #expect(badIgnored.description == "a.json: keywords: must be an array of strings, not a string")
    }

    @Test func userInfoPathsNameTheValueDeepInside() throws {
        let json = #"{"activityType": "t", "userInfo": {"items": [1, {"when": [[[]]]}], "odd key": {"x": 1}}}"#
        // Valid: nothing too deep.
        let file = try ActivityFile(data: Data(json.utf8), name: "a.json")
        #expect(file.userInfo["odd key"] == ["x": 1])
        #expect(file.userInfo["items"] == [1, ["when": [[[]]]]])
        // A JSON integer outside Int64 is an error, not a rounded number.
        let huge = try #require(Self.error(json: #"{"activityType": "t", "userInfo": {"n": 99999999999999999999}}"#))
        #expect(huge.description.hasPrefix("a.json: not a property list or JSON: JSON:"))
    }

    @Test func tooDeepAndTooManyAreRefusedWithThePayloadsLimits() throws {
        let limit = ActivityFile.limits.maximumDepth
        // `limit` nested arrays under a userInfo key is the deepest allowed; one more is refused.
        let ok =
            #"{"activityType": "t", "userInfo": {"a": "# + String(repeating: "[", count: limit)
            + String(repeating: "]", count: limit) + "}}"
        #expect(throws: Never.self) { try ActivityFile(data: Data(ok.utf8), name: "a.json") }
        let deep =
            #"{"activityType": "t", "userInfo": {"a": "# + String(repeating: "[", count: limit + 1)
            + String(repeating: "]", count: limit + 1) + "}}"
        let error = try #require(Self.error(json: deep))
        #expect(error.reason == .tooDeep(limit: limit))
        #expect(error.keyPath?.hasPrefix("userInfo.a[0][0]") == true)
        #expect(error.description.contains("nested deeper than \(limit) levels"))
        // Far deeper than any parser should recurse: an error, not a crash.
        let abyss = #"{"activityType": "t", "userInfo": {"a": "# + String(repeating: "[", count: 100_000) + "}}"
        #expect(Self.error(json: abyss) != nil)
        let plistAbyss =
            "<key>activityType</key><string>t</string><key>userInfo</key><dict><key>a</key>"
            + String(repeating: "<array>", count: 5_000) + String(repeating: "</array>", count: 5_000) + "</dict>"
        #expect(Self.error(Self.plist(plistAbyss)) != nil)
        // Too many elements in one collection.
        let many =
            #"{"activityType": "t", "userInfo": {"a": ["#
            + Array(repeating: "0", count: ActivityFile.limits.maximumCollectionCount + 1).joined(separator: ",")
            + "]}}"
        let tooMany = try #require(Self.error(json: many))
        #expect(tooMany.keyPath == "userInfo.a")
        #expect(tooMany.description.contains("more than \(ActivityFile.limits.maximumCollectionCount)"))
        // Too large a file.
        let large = Data(count: ActivityFile.maximumFileBytes + 1)
        let tooLarge = try #require(Self.error(large))
        #expect(tooLarge.reason == .tooLarge(limit: ActivityFile.maximumFileBytes))
    }

    /// The fuzz target's checks over its seed corpus: an activity whose userInfo survives the
    /// payload codec, or an error naming the file on one line.
    @Test func theFuzzSeedsDecodeOrFailNamingTheFile() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/fuzz-activity-file")
        let seeds = try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted()
        #expect(seeds.count >= 8)
        var accepted = 0
        for seed in seeds {
            let data = try Data(contentsOf: corpus.appendingPathComponent(seed))
            do {
                let file = try ActivityFile(data: data, name: "fuzz.plist")
                let payload = ActivityPayload(
                    activityType: file.activityType, userInfo: file.userInfo, teamIdentifier: "T",
                    bundleIdentifier: "b")
                #expect(try ActivityPayload(decoding: payload.encoded()).userInfo == file.userInfo, "\(seed)")
                accepted += 1
            } catch {
                let message = "\(error)"
                #expect(message.hasPrefix("fuzz.plist: "), "\(seed)")
                #expect(!message.contains("\n"), "\(seed)")
            }
        }
        #expect(accepted >= 5, "the seeds are mostly valid files to mutate")
    }

    @Test func hostileKeysAreShownEscapedAndCut() throws {
        let json =
            #"{"activityType": "t", "userInfo": {""# + "bad\\u001b[31m" + String(repeating: "k", count: 200)
            + #"": {"x": []}}, "extra\u0007": 1}"#
        let error = try #require(Self.error(json: json))
        #expect(!error.description.contains("\u{1B}"))
        #expect(!error.description.contains("\u{07}"))
        #expect(error.description.contains("\\u{7}"))
        let nested =
            #"{"activityType": "t", "userInfo": {""# + "bad\\u001b[31m" + String(repeating: "k", count: 200)
            + #"": {"x": "# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}}}"
        let deep = try #require(Self.error(json: nested))
        #expect(!deep.description.contains("\u{1B}"))
        #expect(deep.description.contains("…"))
    }
}
