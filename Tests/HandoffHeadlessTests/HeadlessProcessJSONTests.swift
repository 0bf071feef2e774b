import Foundation
import HandoffCore
import Testing

@testable import HandoffProcesses

/// The process driver parses its child's lines with HandoffCore's one JSON model; its
/// `[String: Any]` view answers `as?` as JSONSerialization's objects did, and a command given as
/// Foundation objects is written as that model's JSON.
@Suite("The headless process driver's JSON")
struct HeadlessProcessJSONTests {
    static let line =
        #"{"event":"x","int":7,"zero":0,"one":1,"double":2.0,"half":0.5,"yes":true,"no":false,"none":null,"#
        + #""text":"é\n","list":[1,"a",false],"object":{"inner":[{"k":-3}]}}"#

    /// JSONSerialization stays here only as the reference the view is compared with.
    @Test func theFoundationViewAnswersAsJSONSerializationDid() throws {
        let value = try JSONValue.parse(Self.line)
        let view = try #require(value.objectValue).mapValues(\.foundationObject)
        let reference = try #require(try JSONSerialization.jsonObject(with: Data(Self.line.utf8)) as? [String: Any])
        #expect(Set(view.keys) == Set(reference.keys))
        for key in reference.keys {
            let a = view[key]!
            let b = reference[key]!
            #expect((a as? Int) == (b as? Int), "\(key) as? Int")
            #expect((a as? Int64) == (b as? Int64), "\(key) as? Int64")
            #expect((a as? Double) == (b as? Double), "\(key) as? Double")
            #expect((a as? Bool) == (b as? Bool), "\(key) as? Bool")
            #expect((a as? String) == (b as? String), "\(key) as? String")
            #expect((a is NSNull) == (b is NSNull), "\(key) is NSNull")
            #expect(((a as? [Any])?.count) == ((b as? [Any])?.count), "\(key) as? [Any]")
            #expect(
                ((a as? [String: Any])?.keys.sorted()) == ((b as? [String: Any])?.keys.sorted()),
                "\(key) as? [String: Any]")
        }
        let inner = ((view["object"] as? [String: Any])?["inner"] as? [Any])?.first as? [String: Any]
        #expect(inner?["k"] as? Int == -3)
    }

    @Test func commandsAsFoundationObjectsAreWrittenAsJSONValues() throws {
        let serial = 3
        let command: [String: Any] = [
            "cmd": "become-current", "userInfo": ["page": serial, "soak": true, "ratio": 0.25, "none": NSNull()],
            "seed": UInt64(7), "requiredKeys": ["page"],
        ]
        let value = try JSONValue(foundationObject: command)
        #expect(
            value == [
                "cmd": "become-current", "userInfo": ["page": 3, "soak": true, "ratio": 0.25, "none": nil],
                "seed": 7, "requiredKeys": ["page"],
            ])
        #expect(
            value.jsonText
                == #"{"cmd":"become-current","requiredKeys":["page"],"seed":7,"userInfo":{"none":null,"page":3,"ratio":0.25,"soak":true}}"#
        )
        // An integer 1 never becomes true by bridging, and a received Boolean stays one.
        #expect(try JSONValue(foundationObject: 1 as Any) == .integer(1))
        #expect(try JSONValue(foundationObject: JSONValue.bool(true).foundationObject) == .bool(true))
        #expect(try JSONValue(foundationObject: JSONValue.integer(1).foundationObject) == .integer(1))
        #expect(try JSONValue(foundationObject: JSONValue.double(2.0).foundationObject) == .double(2.0))
        #expect(throws: (any Error).self) { try JSONValue(foundationObject: Date()) }
        #expect(throws: (any Error).self) { try JSONValue(foundationObject: UInt64.max) }
    }
}
