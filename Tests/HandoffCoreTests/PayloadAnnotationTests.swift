import Foundation
import HandoffCore
import Testing

/// The inspector's byte view of a payload comes from the encoder: its notes cover every byte of
/// real encodings, in order, and name the fields docs/payload.md names.
@Suite("PayloadAnnotation")
struct PayloadAnnotationTests {
    static let identifier = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!

    static let payloads: [ActivityPayload] = [
        // docs/payload.md's example.
        ActivityPayload(
            activityIdentifier: identifier, activityType: "com.example.read", title: "Ch 1",
            userInfo: ["page": .integer(12), "ratio": .double(0.5)], teamIdentifier: "ABCDE12345",
            bundleIdentifier: "com.example.reader", requiredUserInfoKeys: ["page"]),
        // Every value kind, nested, every optional field, a stream token.
        ActivityPayload(
            activityIdentifier: identifier, activityType: "com.example.everything", title: "All",
            userInfo: [
                "null": .null, "yes": .bool(true), "no": .bool(false), "negative": .integer(-300),
                "big": .integer(.max), "pi": .double(3.14159), "text": .string("Zoë’s café 👨‍👩‍👧"),
                "empty": .string(""), "blob": .data(Data([0, 1, 2, 255])), "noData": .data(Data()),
                "when": .date(Date(timeIntervalSinceReferenceDate: 812_345_678.25)),
                "link": .url(URL(string: "https://reader.handoffsim.example/book?page=3")!),
                "id": .uuid(identifier),
                "list": .array([.integer(1), .string("two"), .array([.null])]),
                "nested": .dictionary(["inner": .dictionary(["deep": .bool(true)]), "n": .integer(0)]),
                "tags": .set([.string("b"), .string("a"), .integer(3), .set([.null])]),
                "emptyList": .array([]), "emptySet": .set([]), "emptyDictionary": .dictionary([:]),
            ],
            webpageURL: URL(string: "https://reader.handoffsim.example/book")!, teamIdentifier: "ABCDE12345",
            bundleIdentifier: "com.example.reader", expirationDate: Date(timeIntervalSinceReferenceDate: 900_000_000),
            requiredUserInfoKeys: ["text", "list", "big"], targetContentIdentifier: "book-1",
            supportsContinuationStreams: true, streamToken: Data(repeating: 0xAB, count: 16)),
        // A long string (two-byte length) and nothing optional.
        ActivityPayload(
            activityIdentifier: identifier, activityType: "t",
            userInfo: ["long": .string(String(repeating: "x", count: 300))],
            teamIdentifier: "com.example.team", bundleIdentifier: "com.example.app"),
    ]

    @Test("The notes cover every byte, and the bytes are encoded()'s", arguments: payloads.indices)
    func coversEveryByte(index: Int) throws {
        let payload = Self.payloads[index]
        let annotated = payload.annotatedEncoding()
        #expect(annotated.bytes == Array(payload.encoded()))
        #expect(annotated.coversEveryByte)
        // And from the bytes that travelled.
        let again = try #require(try ActivityPayload.annotated(payload.encoded()))
        #expect(again == annotated)
    }

    @Test func theExampleIsAnnotatedAsTheSpecificationSays() {
        let annotated = Self.payloads[0].annotatedEncoding()
        let names = annotated.fields.map(\.name)
        #expect(
            names == [
                "magic", "version", "flags", "activityIdentifier", "activityType length", "activityType",
                "title length", "title",
                "userInfo count",
                "userInfo[\"page\"] key length", "userInfo[\"page\"] key", "userInfo[\"page\"] tag",
                "userInfo[\"page\"]",
                "userInfo[\"ratio\"] key length", "userInfo[\"ratio\"] key", "userInfo[\"ratio\"] tag",
                "userInfo[\"ratio\"]",
                "teamIdentifier length", "teamIdentifier", "bundleIdentifier length", "bundleIdentifier",
                "requiredUserInfoKeys count", "requiredUserInfoKeys[0] length", "requiredUserInfoKeys[0]",
                "streamToken length",
            ])
        func field(_ name: String) -> ByteField? { annotated.fields.first { $0.name == name } }
        #expect(field("magic")?.range == 0..<4)
        #expect(field("flags")?.value == "title")
        #expect(field("activityIdentifier")?.range == 6..<22)
        #expect(field("userInfo[\"page\"]")?.value == "12 (zig-zag 24)")
        #expect(field("userInfo[\"page\"]")?.depth == 1)
        #expect(field("userInfo[\"ratio\"]")?.value == "0.5")
        #expect(field("title")?.value == "\"Ch 1\"")
        #expect(annotated.bytes.count == 104)
        #expect(annotated.field(at: 5)?.name == "flags")
    }

    @Test func setElementsAreNamedByTheirPlaceInTheEncoding() {
        let annotated = Self.payloads[1].annotatedEncoding()
        let tags = annotated.fields.filter { $0.name.hasPrefix("userInfo[\"tags\"][") && !$0.name.contains(" ") }
        // Sorted by encoded bytes: the integer (tag 03) before the strings (05), the set (0c) last.
        #expect(tags.map(\.name).first == "userInfo[\"tags\"][0]")
        #expect(tags.first?.value == "3 (zig-zag 6)")
        #expect(
            annotated.fields.contains { $0.name == "userInfo[\"nested\"][\"inner\"][\"deep\"] tag" && $0.depth == 3 })
    }

    @Test func bytesThatAreNotAPayloadAreRefusedWithTheDecodersError() {
        #expect(throws: PayloadDecodingError.self) { try ActivityPayload.annotated(Data("not a payload".utf8)) }
    }

    @Test func aPayloadInAnotherOrderIsNotAnnotated() throws {
        // Two entries written in the reverse of the encoder's order: it decodes, but the notes
        // would describe other bytes.
        func string(_ text: String) -> [UInt8] { [UInt8(text.utf8.count)] + Array(text.utf8) }
        let bytes: [UInt8] =
            [0x48, 0x4F, 0x50, 0x4C, 0x01, 0x00] + Array(repeating: 0, count: 16) + string("t")
            + [0x02] + string("b") + [0x00] + string("a") + [0x00]
            + string("com.example.team") + string("com.example.app") + [0x00, 0x00]
        #expect(try ActivityPayload(decoding: Data(bytes)).userInfo.count == 2)
        #expect(try ActivityPayload.annotated(Data(bytes)) == nil)
    }
}
