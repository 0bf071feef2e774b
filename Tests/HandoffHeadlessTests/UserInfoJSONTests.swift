import Foundation
import HandoffCore
import HandoffHeadless
import Testing

@Suite("Headless JSON and userInfo mapping")
struct UserInfoJSONTests {
    /// userInfo → JSON value → one line of text → parsed → userInfo.
    func roundTrip(_ userInfo: UserInfo) throws -> UserInfo {
        let text = UserInfoJSON.json(from: userInfo).jsonText
        #expect(!text.contains("\n"))
        return try UserInfoJSON.userInfo(from: try JSONValue.parse(text))
    }

    @Test(
        arguments: [
            ("string", UserInfoValue.string("naïve ☕️ \u{0} \u{1F} \\ \" / \u{2028}")),
            ("bool", .bool(false)),
            ("null", .null),
            ("int", .integer(.max)),
            ("minInt", .integer(.min)),
            ("double", .double(0.1)),
            ("integralDouble", .double(2.0)),
            ("negativeZero", .double(-0.0)),
            ("positiveZero", .double(0.0)),
            ("huge", .double(1e300)),
            ("subnormal", .double(.leastNonzeroMagnitude)),
            ("max", .double(.greatestFiniteMagnitude)),
            ("nan", .double(.nan)),
            ("negativeNaN", .double(-Double.nan)),
            ("payloadNaN", .double(Double(nan: 0x1234, signaling: false))),
            ("signalingNaN", .double(.signalingNaN)),
            ("infinity", .double(.infinity)),
            ("minusInfinity", .double(-.infinity)),
            ("data", .data(Data([0, 1, 2, 254, 255]))),
            ("emptyData", .data(Data())),
            ("date", .date(Date(timeIntervalSinceReferenceDate: 12_345.678_912_345_6))),
            ("dateBefore2001", .date(Date(timeIntervalSinceReferenceDate: -987_654_321.000_001))),
            ("integralDate", .date(Date(timeIntervalSinceReferenceDate: 0))),
            ("url", .url(URL(string: "https://example.com/a%20b?q=1&r=%C3%A9#frag")!)),
            ("uuid", .uuid(UUID())),
            ("array", .array([1, 1.0, true, "1", .null, [[]]])),
            ("dictionary", .dictionary(["a": ["b": ["c": 1.5]]])),
            ("dollarDictionary", .dictionary(["$data": "not data"])),
            ("dollarDictionaries", .dictionary(["$a": 1, "$b": 2])),
            ("set", .set([1, 1.0, true, "1", .null])),
            ("nestedSets", .set([.set([1, 2]), .set([.set([]), 2.0]), .array([.set(["x"])])])),
            ("emptySet", .set([])),
        ] as [(String, UserInfoValue)])
    func everyKindRoundTripsExactly(_ key: String, _ value: UserInfoValue) throws {
        let userInfo: UserInfo = [key: value, "$top": value]
        #expect(try roundTrip(userInfo) == userInfo)
    }

    @Test func theWrittenFormsAreDocumented() throws {
        #expect(UserInfoJSON.json(from: .double(2.0)) == ["$double": 2.0])
        #expect(UserInfoJSON.json(from: .double(-0.0)).jsonText == #"{"$double":-0.0}"#)
        #expect(UserInfoJSON.json(from: .double(2.5)) == .double(2.5))
        #expect(UserInfoJSON.json(from: .double(.nan)) == ["$double": "nan"])
        #expect(UserInfoJSON.json(from: .double(-.infinity)) == ["$double": "-inf"])
        #expect(UserInfoJSON.json(from: .integer(2)) == .integer(2))
        #expect(UserInfoJSON.json(from: .data(Data([1, 2, 3]))) == ["$data": "AQID"])
        #expect(UserInfoJSON.json(from: .date(Date(timeIntervalSinceReferenceDate: 1.25))) == ["$date": 1.25])
        #expect(UserInfoJSON.json(from: .url(URL(string: "https://a.example/")!)) == ["$url": "https://a.example/"])
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(UserInfoJSON.json(from: .uuid(uuid)) == ["$uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"])
        #expect(UserInfoJSON.json(from: .set([2, 1])) == ["$set": [1, 2]])
        #expect(UserInfoJSON.json(from: .dictionary(["$x": 1])) == ["$dict": ["$x": 1]])
        #expect(UserInfoJSON.json(from: ["page": 3, "title": "x"]).jsonText == #"{"page":3,"title":"x"}"#)
    }

    @Test func otherToolsFormsAreAccepted() throws {
        let json = try JSONValue.parse(
            """
            {"int": 3, "double": 3.0, "exp": 1e2, "tagged": {"$double": 2}, "tint": {"$int": 7},
             "iso": {"$date": "2001-01-01T00:00:01.5Z"}, "isoWhole": {"$date": "2001-01-01T00:01:00Z"},
             "seconds": {"$date": 60}, "lower": {"$uuid": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"},
             "inf": {"$double": "Infinity"}, "bits": {"$double": "0x7ff8000000000001"}}
            """)
        let userInfo = try UserInfoJSON.userInfo(from: json)
        #expect(userInfo["int"] == .integer(3))
        #expect(userInfo["double"] == .double(3.0))
        #expect(userInfo["exp"] == .double(100))
        #expect(userInfo["tagged"] == .double(2))
        #expect(userInfo["tint"] == .integer(7))
        #expect(userInfo["iso"] == .date(Date(timeIntervalSinceReferenceDate: 1.5)))
        #expect(userInfo["isoWhole"] == .date(Date(timeIntervalSinceReferenceDate: 60)))
        #expect(userInfo["seconds"] == .date(Date(timeIntervalSinceReferenceDate: 60)))
        #expect(userInfo["lower"] == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        #expect(userInfo["inf"] == .double(.infinity))
        #expect(userInfo["bits"] == .double(Double(bitPattern: 0x7ff8_0000_0000_0001)))
    }

    @Test(arguments: [
        (#"{"a": {"$data": "%%%"}}"#, "userInfo.a.$data", "base64"),
        (#"{"a": [0, {"$uuid": 5}]}"#, "userInfo.a[1].$uuid", "string"),
        (#"{"a": {"$date": "yesterday"}}"#, "userInfo.a.$date", "ISO 8601"),
        (#"{"a": {"$date": true}}"#, "userInfo.a.$date", "seconds since 2001"),
        (#"{"a": {"$set": [1, 1]}}"#, "userInfo.a.$set[1]", "duplicate"),
        (#"{"a": {"$set": {}}}"#, "userInfo.a.$set", "array"),
        (#"{"a": {"$url": ""}}"#, "userInfo.a.$url", "URL"),
        (#"{"a": {"$double": "many"}}"#, "userInfo.a.$double", "nan"),
        (#"{"a": {"$int": 2.0}}"#, "userInfo.a.$int", "integer"),
        (#"{"a": {"$uid": "x"}}"#, "userInfo.a", "unknown tag \"$uid\""),
        (#"{"a b": {"c": {"$dict": 1}}}"#, #"userInfo["a b"].c.$dict"#, "object"),
    ])
    func errorsNameTheJSONPath(_ text: String, _ path: String, _ words: String) throws {
        let json = try JSONValue.parse(text)
        do {
            _ = try UserInfoJSON.userInfo(from: json)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.path == path)
            #expect(error.description.hasPrefix(path + ": "))
            #expect(error.message.contains(words), "\(error.message)")
        }
    }

    /// Found by fuzz-userinfo-json (Fuzz/Corpus/fuzz-userinfo-json/): an unknown tag of a few
    /// kilobytes of control characters came back whole, escaped, in a 4,373-byte message. Keys and
    /// literals are cut by bytes (a character may carry any number of combining marks).
    @Test func longTagsAndKeysAreCutInErrors() throws {
        let controls = String(repeating: "\u{01}\u{1F}\n", count: 1000)
        let marks = "e" + String(repeating: "\u{301}", count: 2000)
        for long in [controls, marks] {
            let tagged = JSONValue.object(["x": .object(["$" + long: .integer(1)])])
            let keyed = JSONValue.object([long: .object([long: .object(["$data": .string(long)])])])
            for json in [tagged, keyed] {
                #expect(throws: UserInfoJSONError.self) { try UserInfoJSON.userInfo(from: json) }
                do {
                    _ = try UserInfoJSON.userInfo(from: json)
                } catch {
                    #expect(error.description.utf8.count < 1024, "\(error.description.utf8.count) bytes")
                    #expect(error.description.contains("unknown tag") || error.description.contains("base64"))
                }
            }
        }
    }

    @Test func theParserKeepsNumberKindsApart() throws {
        #expect(try JSONValue.parse("1") == .integer(1))
        #expect(try JSONValue.parse("-0") == .integer(0))
        #expect(try JSONValue.parse("1.0") == .double(1.0))
        #expect(try JSONValue.parse("1e2") == .double(100))
        #expect(try JSONValue.parse("-0.0") == .double(-0.0))
        #expect(try JSONValue.parse("-0.0") != .double(0.0))
        #expect(try JSONValue.parse("true") == .bool(true))
        #expect(try JSONValue.parse("true") != .integer(1))
        #expect(try JSONValue.parse("0") != .bool(false))
        #expect(try JSONValue.parse("9223372036854775807") == .integer(.max))
        #expect(try JSONValue.parse("-9223372036854775808") == .integer(.min))
        #expect(try JSONValue.parse("0.1") == .double(0.1))
        #expect(try JSONValue.parse(" \t\r\n null \n") == .null)
        #expect(try JSONValue.parse("\u{FEFF}{}") == .object([:]))
        #expect(try JSONValue.parse(#""a\u00e9\ud83d\ude00\n\/""#) == .string("aé😀\n/"))
        for bad in [
            "01", "1.", ".5", "+1", "1e", "-", "NaN", "Infinity", "1e400", "9223372036854775808", "[1,]", "{\"a\":1,}",
            "{\"a\" 1}", "{a:1}", "\"\t\"", "'a'", "[1] [2]", "tru", "{\"a\":1,\"a\":2}", "\"\\ud800\"", "\"\\u12\"",
        ] {
            #expect(throws: JSONParseError.self, "\(bad)") { try JSONValue.parse(bad) }
        }
    }

    @Test func jsonTextIsOneSortedLineThatParsesBack() throws {
        let value: JSONValue = [
            "b": [1, 2.0, -0.0, 1e300, .double(.leastNonzeroMagnitude), 0.1], "a": ["z": nil, "y": "line\nbreak\u{7}"],
            "c": true,
        ]
        let text = value.jsonText
        #expect(text.hasPrefix(#"{"a":{"y":"line\nbreak\u0007","z":null},"b":[1,2.0,-0.0,"#))
        #expect(!text.contains("\n"))
        #expect(try JSONValue.parse(text) == value)
        // Non-finite doubles are not JSON.
        #expect(JSONValue.double(.infinity).jsonText == "null")
        // Foundation agrees that the text is JSON.
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
    }

    @Test func pseudoRandomBytesAreDeterministic() {
        let a = PseudoRandomBytes.bytes(1000, seed: 42)
        var generator = PseudoRandomBytes(seed: 42)
        let b = generator.next(3) + generator.next(997)
        #expect(a.count == 1000)
        #expect(b == a, "however the sequence is cut")
        #expect(PseudoRandomBytes.bytes(16, seed: 1) != PseudoRandomBytes.bytes(16, seed: 2))
        // SplitMix64's first output for seed 0 is 0xE220A8397B1DCDAF, written little-endian.
        #expect(PseudoRandomBytes.bytes(8, seed: 0) == [0xAF, 0xCD, 0x1D, 0x7B, 0x39, 0xA8, 0x20, 0xE2])
    }

    /// `stream-send`'s bytes are HandoffCore's one generator, each output little-endian.
    @Test func pseudoRandomBytesAreSplitMix64Outputs() {
        var generator = SplitMix64(seed: 0x5EED)
        let words = (0..<4).map { _ in generator.next() }
        let expected = words.flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
        #expect(PseudoRandomBytes.bytes(32, seed: 0x5EED) == expected)
    }
}
