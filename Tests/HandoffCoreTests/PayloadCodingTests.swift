import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

@Suite("PayloadCoding")
struct PayloadCodingTests {
    // MARK: Round trips

    @Test("Every value kind round-trips exactly", arguments: PayloadSample.all)
    func valueRoundTrip(sample: PayloadSample) throws {
        let payload = ActivityPayload.minimal(userInfo: [
            "value": sample.value,
            "inArray": .array([sample.value, sample.value]),
            "inSet": .set([sample.value]),
            "inDictionary": .dictionary(["nested": sample.value]),
        ])
        let decoded = try ActivityPayload(decoding: payload.encoded())
        #expect(decoded == payload)
        let value = try #require(decoded.userInfo["value"])
        #expect(value == sample.value)
        #expect(value.kindName == sample.value.kindName)
        #expect(scalarsAreIdentical(value, sample.value))
    }

    @Test func integersKeepTheirKindAndExtremes() throws {
        let integers: [Int64] = [
            0, 1, -1, 63, -64, 64, -65, 127, 128, 300, -300,
            Int64(Int32.max), Int64(Int32.min), .max, .min, .max - 1, .min + 1,
        ]
        let payload = ActivityPayload.minimal(userInfo: [
            "integers": .array(integers.map(UserInfoValue.integer)),
            "one": .integer(1), "oneDouble": .double(1), "true": .bool(true),
            "zero": .integer(0), "zeroDouble": .double(0), "false": .bool(false),
        ])
        let decoded = try ActivityPayload(decoding: payload.encoded())
        #expect(decoded.userInfo["integers"]?.arrayValue?.compactMap(\.integerValue) == integers)
        #expect(decoded.userInfo["one"] == .integer(1))
        #expect(decoded.userInfo["oneDouble"] == .double(1))
        #expect(decoded.userInfo["true"] == .bool(true))
        #expect(decoded.userInfo["zero"] == .integer(0))
        #expect(decoded.userInfo["zeroDouble"] == .double(0))
        #expect(decoded.userInfo["false"] == .bool(false))
    }

    @Test func doublesRoundTripBitForBit() throws {
        let patterns: [UInt64] = [
            (0.0).bitPattern, (-0.0).bitPattern, Double.infinity.bitPattern, (-Double.infinity).bitPattern,
            Double.nan.bitPattern, (-Double.nan).bitPattern, Double.signalingNaN.bitPattern,
            0x7FF0_0000_0000_0001, 0xFFF8_DEAD_BEEF_0001, Double.leastNonzeroMagnitude.bitPattern,
            Double.greatestFiniteMagnitude.bitPattern, Double.ulpOfOne.bitPattern, (0.1).bitPattern,
        ]
        let payload = ActivityPayload.minimal(userInfo: [
            "doubles": .array(patterns.map { .double(Double(bitPattern: $0)) }),
            "dates": .array(patterns.map { .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0))) }),
        ])
        let decoded = try ActivityPayload(decoding: payload.encoded())
        let doubles = decoded.userInfo["doubles"]?.arrayValue?.compactMap { $0.doubleValue?.bitPattern }
        let dates = decoded.userInfo["dates"]?.arrayValue?.compactMap {
            $0.dateValue?.timeIntervalSinceReferenceDate.bitPattern
        }
        #expect(doubles == patterns)
        #expect(dates == patterns)
    }

    @Test func datesKeepSubMicrosecondFractions() throws {
        let intervals: [TimeInterval] = [
            0, 1e-9, -1e-9, 123_456_789.123_456_789, 1.000_000_000_1,
            -978_307_200.000_000_1, 4_102_444_800.987_654_321,
        ]
        for interval in intervals {
            let date = Date(timeIntervalSinceReferenceDate: interval)
            let payload = ActivityPayload.minimal(userInfo: ["at": .date(date)], expirationDate: date)
            let decoded = try ActivityPayload(decoding: payload.encoded())
            #expect(decoded.expirationDate?.timeIntervalSinceReferenceDate.bitPattern == interval.bitPattern)
            #expect(
                decoded.userInfo["at"]?.dateValue?.timeIntervalSinceReferenceDate.bitPattern
                    == interval.bitPattern)
        }
    }

    @Test func stringsKeepTheirExactScalars() throws {
        let strings = [
            "", "a", "héllo", "he\u{301}llo", "👩‍👩‍👧‍👦🇫🇷🏳️‍🌈",
            "e\u{301}\u{302}\u{303}\u{304}\u{305}", "\u{0}\u{1}\n\t\"\\",
            "Zalgo: Z\u{351}\u{34B}\u{300}a\u{35B}\u{301}l\u{322}g\u{31F}o",
            "עברית العربية 中文 日本語 한국어",
            "\u{FEFF}\u{200B}\u{10FFFF}\u{E000}", String(repeating: "x", count: 70_000),
            String(repeating: "ü🙂", count: 100_000),
        ]
        let payload = ActivityPayload.minimal(
            title: strings[4],
            userInfo: ["strings": .array(strings.map(UserInfoValue.string)), strings[3]: "combining key"],
            requiredUserInfoKeys: [strings[3], strings[4]],
            targetContentIdentifier: strings[5])
        let decoded = try ActivityPayload(decoding: payload.encoded())
        #expect(decoded == payload)
        let decodedValues = try #require(decoded.userInfo["strings"]?.arrayValue)
        let decodedStrings = decodedValues.compactMap(\.stringValue)
        #expect(decodedStrings.map { Array($0.unicodeScalars) } == strings.map { Array($0.unicodeScalars) })
        #expect(decoded.userInfo.keys.contains { Array($0.unicodeScalars) == Array(strings[3].unicodeScalars) })
        #expect(decoded.title.map { Array($0.unicodeScalars) } == Array(strings[4].unicodeScalars))
    }

    @Test func urlsRoundTripAsTheirAbsoluteString() throws {
        let texts = [
            "https://example.com", "https://example.com/path/to/page?q=a%20b&x=1&y=%E2%9C%93#frag%20ment",
            "https://user:pa%40ss@host.example:8443/p;params?query=1#fragment", "file:///tmp/a%20b%2Fc.txt",
            "mailto:someone@example.com?subject=Hi%21", "urn:isbn:0451450523", "http://[::1]:8080/",
            "https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9", "custom-scheme://open/item?id=42",
        ]
        let urls = try texts.map { try #require(URL(string: $0)) }
        let payload = ActivityPayload.minimal(
            userInfo: ["urls": .array(urls.map(UserInfoValue.url))], webpageURL: urls[1])
        let decoded = try ActivityPayload(decoding: payload.encoded())
        #expect(decoded == payload)
        #expect(decoded.webpageURL?.absoluteString == texts[1])
        #expect(decoded.userInfo["urls"]?.arrayValue?.compactMap { $0.urlValue?.absoluteString } == texts)
    }

    @Test func nestedAndMixedCollectionsRoundTrip() throws {
        let mixedSet: Set<UserInfoValue> = [
            .null, .bool(true), .bool(false), .integer(1), .integer(0), .double(1), .double(0), .double(-0.0),
            .double(.nan), .string("1"), .string(""), .data(Data()), .data(Data([1])),
            .date(Date(timeIntervalSinceReferenceDate: 1)),
            .url(URL(fileURLWithPath: "/tmp")), .uuid(UUID()), .array([]), .array([1, 2]), .dictionary([:]),
            .dictionary(["a": 1]), .set([]), .set([1, "1", 1.0]),
        ]
        let payload = ActivityPayload.minimal(userInfo: [
            "mixed": .set(mixedSet),
            "nested": ["a": [1, [2, [3, ["deep": [.set([[], [:], .set([])])]]]]], "b": [:], "c": []],
            "": "empty key",
        ])
        let decoded = try ActivityPayload(decoding: payload.encoded())
        #expect(decoded == payload)
        #expect(decoded.userInfo["mixed"]?.setValue?.count == mixedSet.count)
    }

    @Test func largeValuesRoundTrip() throws {
        var generator = SplitMix64(seed: 7)
        let megabyte = Data((0..<1 << 20).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        let manyElements = UserInfoValue.array((0..<10_000).map { .integer(Int64($0) * 1_000_003) })
        let payload = ActivityPayload.minimal(
            userInfo: ["blob": .data(megabyte), "empty": .data(Data()), "many": manyElements],
            streamToken: Data(megabyte.prefix(4096)))
        let decoded = try ActivityPayload(decoding: payload.encoded())
        #expect(decoded == payload)
        #expect(decoded.userInfo["blob"]?.dataValue == megabyte)
    }

    @Test func uuidsRoundTrip() throws {
        let uuids = [
            UUID(), UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
        ]
        for uuid in uuids {
            let payload = ActivityPayload.minimal(activityIdentifier: uuid, userInfo: ["id": .uuid(uuid)])
            let decoded = try ActivityPayload(decoding: payload.encoded())
            #expect(decoded.activityIdentifier == uuid)
            #expect(decoded.userInfo["id"] == .uuid(uuid))
        }
    }

    @Test("Optional fields round-trip present and absent", arguments: 0..<32)
    func optionalFields(mask: Int) throws {
        let date = Date(timeIntervalSinceReferenceDate: 800_000_000.25)
        let payload = ActivityPayload(
            activityType: "com.example.type",
            title: mask & 1 != 0 ? "Title" : nil,
            userInfo: ["k": 1],
            webpageURL: mask & 2 != 0 ? URL(string: "https://example.com/x?y#z") : nil,
            teamIdentifier: "TEAM123456",
            bundleIdentifier: "com.example.app",
            expirationDate: mask & 4 != 0 ? date : nil,
            requiredUserInfoKeys: ["k"],
            targetContentIdentifier: mask & 8 != 0 ? "target" : nil,
            supportsContinuationStreams: mask & 16 != 0,
            streamToken: mask & 16 != 0 ? Data(repeating: 0xA5, count: 32) : Data())
        let encoded = payload.encoded()
        #expect(encoded[encoded.startIndex + 5] == UInt8(mask))
        #expect(try ActivityPayload(decoding: encoded) == payload)
        // Empty optional strings stay present, distinct from absent ones.
        var empty = payload
        empty.title = mask & 1 != 0 ? "" : nil
        empty.targetContentIdentifier = mask & 8 != 0 ? "" : nil
        #expect(try ActivityPayload(decoding: empty.encoded()) == empty)
    }

    @Test func emptyPayloadFieldsRoundTrip() throws {
        let payload = ActivityPayload(activityType: "", teamIdentifier: "", bundleIdentifier: "")
        #expect(try ActivityPayload(decoding: payload.encoded()) == payload)
        #expect(payload.encoded().count == 4 + 1 + 1 + 16 + 1 + 1 + 1 + 1 + 1 + 1)
    }

    // MARK: Determinism and layout

    @Test func equalPayloadsEncodeToIdenticalBytes() throws {
        let keys = (0..<300).map { "key\($0)" }
        var forward: UserInfo = [:]
        for key in keys { forward[key] = .integer(Int64(key.count)) }
        var backward: UserInfo = [:]
        backward.reserveCapacity(4096)
        for key in keys.reversed() { backward[key] = .integer(Int64(key.count)) }
        let elements = (0..<300).map { UserInfoValue.string("element\($0)") } + [.integer(-1), .double(2), .null]
        var smallSet = Set<UserInfoValue>()
        for element in elements { smallSet.insert(element) }
        var largeSet = Set<UserInfoValue>(minimumCapacity: 8192)
        for element in elements.reversed() { largeSet.insert(element) }
        forward["set"] = .set(smallSet)
        backward["set"] = .set(largeSet)
        forward["nested"] = .dictionary(forward)
        backward["nested"] = .dictionary(backward)

        let required = Set(keys.prefix(50))
        var requiredLarge = Set<String>(minimumCapacity: 4096)
        for key in keys.prefix(50).reversed() { requiredLarge.insert(key) }

        let identifier = UUID()
        let a = ActivityPayload.minimal(
            activityIdentifier: identifier, userInfo: forward,
            requiredUserInfoKeys: required)
        let b = ActivityPayload.minimal(
            activityIdentifier: identifier, userInfo: backward,
            requiredUserInfoKeys: requiredLarge)
        #expect(a == b)
        #expect(a.encoded() == b.encoded())
        #expect(a.encoded() == a.encoded())
        let decoded = try ActivityPayload(decoding: a.encoded())
        #expect(decoded.encoded() == a.encoded())
    }

    @Test func dictionaryKeysAreOrderedByUTF8Bytes() {
        let payload = ActivityPayload.minimal(userInfo: ["é": 1, "apple": 2, "Zebra": 3, "": 4, "app": 5])
        let bytes = [UInt8](payload.encoded())
        let order = ["", "Zebra", "app", "apple", "é"].map { key in
            bytes.firstRange(of: PayloadBuilder.lengthPrefixed(key) + [0x03]).map(\.lowerBound) ?? -1
        }
        #expect(!order.contains(-1))
        #expect(order == order.sorted())
    }

    @Test func goldenBytes() throws {
        let payload = ActivityPayload(
            activityIdentifier: try #require(UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")),
            activityType: "com.example.read",
            title: "Ch 1",
            userInfo: ["page": 12, "ratio": 0.5],
            teamIdentifier: "ABCDE12345",
            bundleIdentifier: "com.example.reader",
            requiredUserInfoKeys: ["page"])
        let expected: [UInt8] =
            [
                0x48, 0x4F, 0x50, 0x4C,  // magic "HOPL"
                0x01,  // version
                0x01,  // flags: title
                0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF,
            ] + PayloadBuilder.lengthPrefixed("com.example.read")
            + PayloadBuilder.lengthPrefixed("Ch 1")
            + [0x02]  // userInfo: 2 entries
            + PayloadBuilder.lengthPrefixed("page") + [0x03, 0x18]  // integer 12, zig-zag 24
            + PayloadBuilder.lengthPrefixed("ratio") + [0x04, 0x3F, 0xE0, 0, 0, 0, 0, 0, 0]  // double 0.5
            + PayloadBuilder.lengthPrefixed("ABCDE12345")
            + PayloadBuilder.lengthPrefixed("com.example.reader")
            + [0x01] + PayloadBuilder.lengthPrefixed("page")  // requiredUserInfoKeys
            + [0x00]  // streamToken: empty
        #expect([UInt8](payload.encoded()) == expected)
        #expect(expected.count == 104)
        #expect(ActivityPayload.formatVersion == 1)
    }

    @Test func valueTagsAndScalarEncodings() {
        func valueBytes(_ value: UserInfoValue) -> [UInt8] {
            let all = [UInt8](ActivityPayload.minimal(userInfo: ["v": value]).encoded())
            let prefix = PayloadBuilder.minimalPrefix(userInfoCount: 1) + PayloadBuilder.lengthPrefixed("v")
            let suffix = PayloadBuilder.minimalSuffix
            return Array(all.dropFirst(prefix.count).dropLast(suffix.count))
        }
        #expect(valueBytes(.null) == [0x00])
        #expect(valueBytes(.bool(false)) == [0x01])
        #expect(valueBytes(.bool(true)) == [0x02])
        #expect(valueBytes(.integer(0)) == [0x03, 0x00])
        #expect(valueBytes(.integer(-1)) == [0x03, 0x01])
        #expect(valueBytes(.integer(1)) == [0x03, 0x02])
        #expect(valueBytes(.integer(-65)) == [0x03, 0x81, 0x01])
        #expect(valueBytes(.integer(.max)) == [0x03, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        #expect(valueBytes(.integer(.min)) == [0x03, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        #expect(valueBytes(.double(-0.0)) == [0x04, 0x80, 0, 0, 0, 0, 0, 0, 0])
        #expect(valueBytes(.string("é")) == [0x05, 0x02, 0xC3, 0xA9])
        #expect(valueBytes(.data(Data([1, 2]))) == [0x06, 0x02, 0x01, 0x02])
        #expect(valueBytes(.date(Date(timeIntervalSinceReferenceDate: 1))) == [0x07, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0])
        #expect(valueBytes(.url(URL(fileURLWithPath: "/a"))) == [0x08] + PayloadBuilder.lengthPrefixed("file:///a"))
        #expect(
            valueBytes(.uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))))
                == [0x09] + Array(1...16))
        #expect(valueBytes([1, true]) == [0x0A, 0x02, 0x03, 0x02, 0x02])
        #expect(valueBytes(["b": .null, "a": .null]) == [0x0B, 0x02, 0x01, 0x61, 0x00, 0x01, 0x62, 0x00])
        #expect(
            valueBytes(.set([.string("a"), .integer(1), .bool(true), .null]))
                == [0x0C, 0x04, 0x00, 0x02, 0x03, 0x02, 0x05, 0x01, 0x61])
    }

    @Test func typicalPayloadSizes() throws {
        #expect(ActivityPayload.readerPosition.encoded().count == 179)
        #expect(ActivityPayload.browsing.encoded().count == 169)
        #expect(ActivityPayload.minimal(userInfo: [:]).encoded().count == 60)
        #expect(try ActivityPayload(decoding: ActivityPayload.readerPosition.encoded()) == .readerPosition)
        #expect(try ActivityPayload(decoding: ActivityPayload.browsing.encoded()) == .browsing)
    }

    // MARK: Hostile input: structure

    @Test func everyTruncationIsReportedAsTruncated() throws {
        for payload in [ActivityPayload.rich, .readerPosition, .minimal(userInfo: [:])] {
            let bytes = payload.encoded()
            #expect(try ActivityPayload(decoding: bytes) == payload)
            for length in 0..<bytes.count {
                let error = decodingError(bytes.prefix(length))
                #expect(error?.kind.isTruncated == true, "prefix of \(length) bytes: \(String(describing: error))")
            }
        }
    }

    @Test func wrongMagicIsRejected() {
        let bytes = [UInt8](ActivityPayload.readerPosition.encoded())
        for index in 0..<4 {
            var corrupted = bytes
            corrupted[index] ^= 0x20
            #expect(decodingError(corrupted)?.kind == .badMagic)
            #expect(decodingError(corrupted)?.offset == 0)
            #expect(decodingError(corrupted)?.field == "magic")
            #expect(decodingError(corrupted.prefix(index + 1))?.kind == .badMagic)
        }
        #expect(decodingError(Data("PK\u{3}\u{4}".utf8))?.kind == .badMagic)
        #expect(decodingError([UInt8]())?.kind == .truncated(item: "magic", needed: 4, remaining: 0))
        #expect(decodingError(Array("HOP".utf8))?.kind == .truncated(item: "magic", needed: 4, remaining: 3))
    }

    @Test("Versions other than 1 are rejected", arguments: [0, 2, 3, 0x7F, 0xFF] as [UInt8])
    func wrongVersionIsRejected(version: UInt8) throws {
        var bytes = [UInt8](ActivityPayload.readerPosition.encoded())
        bytes[4] = version
        let error = try #require(decodingError(bytes))
        #expect(error.kind == .unsupportedVersion(version))
        #expect(error.offset == 4)
        #expect(error.field == "version")
        #expect(
            error.description
                == "payload byte 4, version: unsupported version \(version) (this decoder reads version 1)")
    }

    @Test func reservedFlagBitsAreRejected() throws {
        for bit in 5..<8 {
            var bytes = [UInt8](ActivityPayload.readerPosition.encoded())
            bytes[5] |= 1 << bit
            let error = try #require(decodingError(bytes))
            #expect(error.kind == .invalidField("reserved bits 0x\(String(1 << bit, radix: 16)) are set"))
            #expect(error.offset == 5)
            #expect(error.field == "flags")
        }
    }

    @Test func trailingBytesAreRejected() throws {
        let bytes = [UInt8](ActivityPayload.readerPosition.encoded())
        for extra in [[0x00], [0x00, 0x00, 0x00], [0x48, 0x4F, 0x50, 0x4C]] as [[UInt8]] {
            let error = try #require(decodingError(bytes + extra))
            #expect(error.kind == .trailingBytes(count: extra.count))
            #expect(error.offset == bytes.count)
        }
        // A payload followed by a copy of itself is not two payloads.
        #expect(decodingError(bytes + bytes)?.kind == .trailingBytes(count: bytes.count))
    }

    @Test func maximumPayloadBytesIsCheckedFirst() throws {
        let bytes = ActivityPayload.readerPosition.encoded()
        let exact = PayloadLimits(maximumPayloadBytes: bytes.count)
        #expect(try ActivityPayload(decoding: bytes, limits: exact) == .readerPosition)
        let tight = PayloadLimits(maximumPayloadBytes: bytes.count - 1)
        let error = try #require(decodingError(bytes, limits: tight))
        #expect(error.kind == .tooLarge(size: bytes.count, limit: bytes.count - 1))
        #expect(error.offset == 0)
        // Checked before the magic: garbage that is too large is reported as too large.
        let garbage = Data(repeating: 0xFF, count: 5 << 20)
        #expect(decodingError(garbage)?.kind == .tooLarge(size: 5 << 20, limit: 4 << 20))
        #expect(
            decodingError(garbage, limits: PayloadLimits(maximumPayloadBytes: -1))?.kind
                == .tooLarge(size: 5 << 20, limit: -1))
    }

    @Test func decodingWorksOnDataSlices() throws {
        let bytes = ActivityPayload.readerPosition.encoded()
        let padded = Data([0xAA, 0xBB, 0xCC]) + bytes + Data([0xDD])
        let slice = padded[3..<(3 + bytes.count)]
        #expect(try ActivityPayload(decoding: slice) == .readerPosition)
        let truncated = padded[3..<(3 + bytes.count - 1)]
        let error = decodingError(truncated)
        #expect(error?.kind == .truncated(item: "varint", needed: 1, remaining: 0))
        #expect(error?.offset == bytes.count - 1)
        #expect(error?.field == "streamToken")
    }

    // MARK: Hostile input: values

    @Test func unknownTagsAreRejected() throws {
        for tag in [0x0D, 0x0E, 0x7F, 0x80, 0xFF] as [UInt8] {
            var builder = PayloadBuilder(userInfoCount: 1)
            builder.string("region")
            builder.bytes([0x0A, 0x03, 0x00, 0x00])
            let tagOffset = builder.count
            builder.bytes([tag])
            let error = try #require(decodingError(builder.bytes))
            #expect(error.kind == .unknownTag(tag))
            #expect(error.offset == tagOffset)
            #expect(error.field == #"userInfo["region"][2]"#)
            let hex = (tag < 0x10 ? "0" : "") + String(tag, radix: 16)
            #expect(error.description == #"payload byte \#(tagOffset), userInfo["region"][2]: unknown tag 0x\#(hex)"#)
        }
    }

    @Test func depthBombIsRejected() throws {
        // Exactly the default limit of nested arrays decodes; one more does not.
        let limit = PayloadLimits.default.maximumDepth
        #expect(throws: Never.self) { try ActivityPayload(decoding: nestedArrays(depth: limit)) }
        let error = try #require(decodingError(nestedArrays(depth: limit + 1)))
        #expect(error.kind == .tooDeep(limit: limit))
        let prefixLength =
            PayloadBuilder.minimalPrefix(userInfoCount: 1).count
            + PayloadBuilder.lengthPrefixed("a").count
        #expect(error.offset == prefixLength + 2 * limit)
        #expect(error.field == #"userInfo["a"]"# + String(repeating: "[0]", count: limit))

        // Dictionaries and sets count as levels too.
        var builder = PayloadBuilder(userInfoCount: 1)
        builder.string("a")
        for _ in 0..<3 {
            builder.bytes([0x0B, 0x01])
            builder.string("k")
            builder.bytes([0x0C, 0x01])
        }
        builder.bytes([0x00])
        builder.finish()
        #expect(decodingError(builder.bytes, limits: PayloadLimits(maximumDepth: 5))?.kind == .tooDeep(limit: 5))
        #expect(throws: Never.self) {
            try ActivityPayload(decoding: Data(builder.bytes), limits: PayloadLimits(maximumDepth: 6))
        }
        #expect(decodingError(builder.bytes, limits: PayloadLimits(maximumDepth: 0))?.kind == .tooDeep(limit: 0))
    }

    @Test func depthIsCappedWhateverTheLimitSays() throws {
        // A million levels with no depth limit: rejected at the supported ceiling, no stack overflow.
        let bomb = nestedArrays(depth: 1_000_000, finished: false)
        let limits = PayloadLimits(
            maximumPayloadBytes: .max, maximumDepth: .max,
            maximumCollectionCount: .max, maximumValueCount: .max)
        let error = try #require(decodingError(bomb, limits: limits))
        #expect(error.kind == .tooDeep(limit: PayloadLimits.maximumSupportedDepth))
        let ceiling = PayloadLimits.maximumSupportedDepth
        #expect(throws: Never.self) { try ActivityPayload(decoding: nestedArrays(depth: ceiling), limits: limits) }
    }

    @Test func lengthsClaimingMoreThanRemainsAreRejected() throws {
        let claims: [UInt64] = [1, 41, 1 << 20, 1 << 40, UInt64(Int.max), UInt64.max]
        for claim in claims {
            for tag in [0x05, 0x06, 0x08] as [UInt8] {
                var builder = PayloadBuilder(userInfoCount: 1)
                builder.string("pages")
                builder.bytes([tag])
                let lengthOffset = builder.count
                builder.varint(claim)
                let error = try #require(decodingError(builder.bytes))
                let item = tag == 0x05 ? "string" : tag == 0x06 ? "data" : "URL"
                #expect(error.kind == .truncated(item: item, needed: Int(clamping: claim), remaining: 0))
                #expect(error.offset == lengthOffset)
            }
        }
        // The stream token is a length too.
        var bytes = [UInt8](ActivityPayload.minimal(userInfo: [:]).encoded())
        bytes.removeLast()
        bytes += [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]
        #expect(decodingError(bytes)?.kind == .truncated(item: "data", needed: 0xFFFF_FFFF, remaining: 0))
        #expect(decodingError(bytes)?.field == "streamToken")
    }

    @Test func countsClaimingMoreThanRemainsAreRejectedWithoutAllocating() throws {
        let unlimited = PayloadLimits(
            maximumPayloadBytes: .max, maximumDepth: 32,
            maximumCollectionCount: .max, maximumValueCount: .max)
        let cases: [(tag: UInt8, item: String, perElement: Int)] = [
            (0x0A, "array", 1), (0x0B, "dictionary", 2), (0x0C, "set", 1),
        ]
        for (tag, item, perElement) in cases {
            for claim in [UInt64(60_000), 1 << 40, 1 << 62, UInt64.max] {
                var builder = PayloadBuilder(userInfoCount: 1)
                builder.string("c")
                builder.bytes([tag])
                let countOffset = builder.count
                builder.varint(claim)
                builder.bytes([0x00, 0x00, 0x00])
                let error = try #require(decodingError(builder.bytes, limits: unlimited))
                let count = Int(clamping: claim)
                let needed = count.multipliedReportingOverflow(by: perElement)
                let noun = tag == 0x0B ? "entries" : "elements"
                #expect(
                    error.kind
                        == .truncated(
                            item: "\(item) of \(count) \(noun)",
                            needed: needed.overflow ? .max : needed.partialValue, remaining: 3))
                #expect(error.offset == countOffset)
                #expect(error.field == #"userInfo["c"]"#)
            }
        }
        // The top-level userInfo count and the required keys count are checked the same way.
        var builder = PayloadBuilder(userInfoCount: 1 << 50)
        builder.bytes([0x00])
        #expect(decodingError(builder.bytes, limits: unlimited)?.field == "userInfo")
    }

    @Test func collectionCountLimitIsEnforced() throws {
        var builder = PayloadBuilder(userInfoCount: 1)
        builder.string("list")
        builder.bytes([0x0A])
        let countOffset = builder.count
        builder.varint(70_000)
        let error = try #require(decodingError(builder.bytes))
        #expect(error.kind == .tooManyElements(count: 70_000, limit: 65_536))
        #expect(error.offset == countOffset)
        let huge = PayloadBuilder(userInfoCount: .max)
        #expect(decodingError(huge.bytes)?.kind == .tooManyElements(count: .max, limit: 65_536))

        let payload = ActivityPayload.minimal(
            userInfo: ["a": .array(Array(repeating: .null, count: 11))],
            requiredUserInfoKeys: Set((0..<11).map(String.init)))
        let limits = PayloadLimits(maximumCollectionCount: 10)
        #expect(decodingError(payload.encoded(), limits: limits)?.field == #"userInfo["a"]"#)
        var keysOnly = payload
        keysOnly.userInfo = [:]
        #expect(decodingError(keysOnly.encoded(), limits: limits)?.field == "requiredUserInfoKeys")
    }

    @Test func totalValueLimitIsEnforced() throws {
        let payload = ActivityPayload.minimal(userInfo: [
            "a": .array(Array(repeating: [1, 2], count: 3))  // 1 + 3 + 6 = 10 values
        ])
        #expect(throws: Never.self) {
            try ActivityPayload(decoding: payload.encoded(), limits: PayloadLimits(maximumValueCount: 10))
        }
        let error = try #require(decodingError(payload.encoded(), limits: PayloadLimits(maximumValueCount: 9)))
        #expect(error.kind == .tooManyValues(limit: 9))
        #expect(error.field == #"userInfo["a"][2][1]"#)

        // Many small values, each under the per-collection limit, still add up.
        let wide = ActivityPayload.minimal(
            userInfo: Dictionary(
                uniqueKeysWithValues: (0..<100).map {
                    ("k\($0)", UserInfoValue.array(Array(repeating: .null, count: 100)))
                }))
        let limits = PayloadLimits(maximumCollectionCount: 1000, maximumValueCount: 5000)
        #expect(decodingError(wide.encoded(), limits: limits)?.kind == .tooManyValues(limit: 5000))
    }

    @Test func duplicateKeysAreRejected() throws {
        var builder = PayloadBuilder(userInfoCount: 2)
        builder.string("a")
        builder.bytes([0x00])
        let duplicateOffset = builder.count
        builder.string("a")
        builder.bytes([0x02])
        builder.finish()
        let error = try #require(decodingError(builder.bytes))
        #expect(error.kind == .duplicateKey("a"))
        #expect(error.offset == duplicateOffset)
        #expect(error.field == "userInfo")
        #expect(error.description == "payload byte \(duplicateOffset), userInfo: duplicate key \"a\"")

        // Two canonically equivalent spellings of one key are one key.
        var nested = PayloadBuilder(userInfoCount: 1)
        nested.string("outer")
        nested.bytes([0x0B, 0x02])
        nested.string("caf\u{E9}")
        nested.bytes([0x00])
        nested.string("cafe\u{301}")
        nested.bytes([0x00])
        nested.finish()
        let nestedError = try #require(decodingError(nested.bytes))
        #expect(nestedError.kind == .duplicateKey("cafe\u{301}"))
        #expect(nestedError.field == #"userInfo["outer"]"#)
    }

    @Test func duplicateSetElementsAreRejected() throws {
        var builder = PayloadBuilder(userInfoCount: 1)
        builder.string("s")
        builder.bytes([0x0C, 0x03, 0x03, 0x02, 0x04, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0])  // 1 and 1.0 are distinct
        let duplicateOffset = builder.count
        builder.bytes([0x03, 0x02])
        builder.finish()
        let error = try #require(decodingError(builder.bytes))
        #expect(error.kind == .duplicateSetElement)
        #expect(error.offset == duplicateOffset)
        #expect(error.field == #"userInfo["s"]"#)

        var keys = PayloadBuilder(userInfoCount: 0)
        keys.string("com.example.team")
        keys.string("com.example.app")
        keys.varint(2)
        keys.string("k")
        keys.string("k")
        keys.bytes([0x00])
        let keysError = try #require(decodingError(keys.bytes))
        #expect(keysError.kind == .duplicateSetElement)
        #expect(keysError.field == "requiredUserInfoKeys")
    }

    @Test func invalidUTF8IsRejected() throws {
        let invalid: [[UInt8]] = [
            [0xFF], [0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0x61, 0x80], [0xE2, 0x82],
        ]
        for bytes in invalid {
            // In a key.
            var builder = PayloadBuilder(userInfoCount: 1)
            let keyOffset = builder.count
            builder.varint(UInt64(bytes.count))
            builder.bytes(bytes)
            builder.bytes([0x00])
            builder.finish()
            let keyError = try #require(decodingError(builder.bytes))
            #expect(keyError.kind == .invalidUTF8)
            #expect(keyError.offset == keyOffset + 1)
            #expect(keyError.field == "userInfo[key #0]")

            // In a value.
            var valueBuilder = PayloadBuilder(userInfoCount: 1)
            valueBuilder.string("name")
            valueBuilder.bytes([0x05])
            valueBuilder.varint(UInt64(bytes.count))
            valueBuilder.bytes(bytes)
            valueBuilder.finish()
            #expect(decodingError(valueBuilder.bytes)?.kind == .invalidUTF8)
            #expect(decodingError(valueBuilder.bytes)?.field == #"userInfo["name"]"#)

            // In a top-level field.
            var header = PayloadBuilder.minimalPrefix(userInfoCount: 0)
            header.removeSubrange(22...)
            header += [UInt8(bytes.count)] + bytes
            #expect(decodingError(header)?.kind == .invalidUTF8)
            #expect(decodingError(header)?.field == "activityType")
        }
    }

    @Test func invalidURLsAreRejected() throws {
        for text in ["", "http://[::1", "http://exa mple.com:port/"] {
            var builder = PayloadBuilder(userInfoCount: 1)
            builder.string("link")
            builder.bytes([0x08])
            let textOffset = builder.count + 1
            builder.string(text)
            builder.finish()
            let error = try #require(decodingError(builder.bytes))
            #expect(error.kind == .invalidURL)
            #expect(error.offset == textOffset)
            #expect(error.field == #"userInfo["link"]"#)
        }
        // The webpage URL too.
        var bytes = PayloadBuilder.minimalPrefix(userInfoCount: 0)
        bytes[5] = 0x02
        bytes += [0x00]  // webpageURL ""
        #expect(decodingError(bytes)?.kind == .invalidURL)
        #expect(decodingError(bytes)?.field == "webpageURL")
    }

    @Test func invalidVarintsAreRejected() throws {
        let varints: [[UInt8]] = [
            [0x80, 0x00],  // not minimal
            [0xFF, 0x80, 0x00],  // not minimal
            [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02],  // above UInt64.max
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],  // above UInt64.max
            [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0x00],  // 11 bytes
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
        ]
        for varint in varints {
            var builder = PayloadBuilder(userInfoCount: 1)
            builder.string("n")
            builder.bytes([0x03])
            let varintOffset = builder.count
            builder.bytes(varint)
            builder.finish()
            let error = try #require(decodingError(builder.bytes))
            #expect(error.kind == .invalidVarint)
            #expect(error.offset == varintOffset)
            #expect(error.field == #"userInfo["n"]"#)
        }
        // The largest valid varint is accepted.
        var builder = PayloadBuilder(userInfoCount: 1)
        builder.string("n")
        builder.bytes([0x03, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        builder.finish()
        #expect(try ActivityPayload(decoding: Data(builder.bytes)).userInfo["n"] == .integer(.min))
    }

    @Test func errorDescriptionsNameOffsetFieldAndProblem() throws {
        var builder = PayloadBuilder(userInfoCount: 2)
        builder.string("pages")
        let lengthOffset = builder.count + 1
        builder.bytes([0x05, 40])
        builder.bytes(Array("abc".utf8))
        let error = try #require(decodingError(builder.bytes))
        #expect(error.offset == lengthOffset)
        #expect(error.field == #"userInfo["pages"]"#)
        #expect(error.kind == .truncated(item: "string", needed: 40, remaining: 3))
        #expect(
            error.description
                == #"payload byte \#(lengthOffset), userInfo["pages"]: truncated (string needs 40 bytes, 3 remain)"#)

        var region = PayloadBuilder(userInfoCount: 1)
        region.string("region")
        region.bytes([0x0A, 0x03, 0x00, 0x02])
        let uuidOffset = region.count + 1
        region.bytes([0x09, 1, 2, 3])
        let regionError = try #require(decodingError(region.bytes))
        #expect(
            regionError.description
                == #"payload byte \#(uuidOffset), userInfo["region"][2]: truncated (UUID needs 16 bytes, 3 remain)"#)

        let tooLarge = try #require(decodingError(Data(count: 10), limits: PayloadLimits(maximumPayloadBytes: 9)))
        #expect(tooLarge.description == "payload byte 0: too large (10 bytes, the limit is 9)")

        let longKey = String(repeating: "k", count: 10_000)
        var duplicate = PayloadBuilder(userInfoCount: 2)
        duplicate.string(longKey)
        duplicate.bytes([0x00])
        duplicate.string(longKey)
        duplicate.bytes([0x00])
        duplicate.finish()
        let duplicateError = try #require(decodingError(duplicate.bytes))
        #expect(duplicateError.kind == .duplicateKey(longKey))
        #expect(duplicateError.description.count < 200)
        #expect(duplicateError.description.hasSuffix(#"duplicate key "\#(String(repeating: "k", count: 64))…""#))
    }

    // MARK: Hostile input: fuzzing

    @Test func randomBytesNeverCrash() {
        var generator = SplitMix64(seed: 0x5EED_1234_ABCD_0001)
        let header: [UInt8] = [0x48, 0x4F, 0x50, 0x4C, 0x01]
        let limits = PayloadLimits(
            maximumPayloadBytes: 1 << 16, maximumDepth: 8,
            maximumCollectionCount: 512, maximumValueCount: 2048)
        var outcomes: [String: Int] = [:]
        for round in 0..<6000 {
            let length = Int.random(in: 0...300, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            switch round % 3 {
            case 0:
                break
            case 1:
                bytes = header + bytes
            default:
                // A plausible start, then small tag-like bytes to reach deep into the value decoder.
                bytes =
                    PayloadBuilder.minimalPrefix(userInfoCount: UInt64(round % 4))
                    + bytes.map { $0 % 16 }
            }
            outcomes[checkDecoding(bytes, limits: limits), default: 0] += 1
        }
        #expect(outcomes.values.reduce(0, +) == 6000)
        #expect(outcomes.count > 5, "the fuzzer reached only \(outcomes.keys.sorted())")
    }

    @Test func byteFlipsNeverCrash() {
        var generator = SplitMix64(seed: 42)
        for payload in [ActivityPayload.rich, .readerPosition] {
            let bytes = [UInt8](payload.encoded())
            for index in bytes.indices {
                for bit in 0..<8 {
                    var corrupted = bytes
                    corrupted[index] ^= 1 << bit
                    _ = checkDecoding(corrupted)
                }
                var replaced = bytes
                replaced[index] = UInt8.random(in: .min ... .max, using: &generator)
                _ = checkDecoding(replaced)
                var removed = bytes
                removed.remove(at: index)
                _ = checkDecoding(removed)
                var inserted = bytes
                inserted.insert(UInt8.random(in: .min ... .max, using: &generator), at: index)
                _ = checkDecoding(inserted)
            }
        }
    }
}

// MARK: - Helpers

/// Decodes `bytes`, returning the typed error, or nil when decoding succeeds.
private func decodingError(
    _ bytes: some Sequence<UInt8>, limits: PayloadLimits = .default
) -> PayloadDecodingError? {
    do throws(PayloadDecodingError) {
        _ = try ActivityPayload(decoding: Data(bytes), limits: limits)
        return nil
    } catch {
        return error
    }
}

/// Decodes `bytes`; when that succeeds, checks the result survives another round trip. Returns a
/// label for the outcome: the error kind's case name, or "decoded".
private func checkDecoding(_ bytes: [UInt8], limits: PayloadLimits = .default) -> String {
    do throws(PayloadDecodingError) {
        let payload = try ActivityPayload(decoding: Data(bytes), limits: limits)
        let again = try ActivityPayload(decoding: payload.encoded(), limits: limits)
        #expect(again == payload)
        return "decoded"
    } catch {
        #expect(!error.description.isEmpty)
        #expect(error.offset >= 0 && error.offset <= bytes.count)
        return String(describing: error.kind).prefix { $0 != "(" }.description
    }
}

/// A payload whose `userInfo` holds `["a": [[...[null]...]]]`, `depth` arrays deep.
private func nestedArrays(depth: Int, finished: Bool = true) -> Data {
    var builder = PayloadBuilder(userInfoCount: 1)
    builder.string("a")
    builder.bytes.reserveCapacity(builder.count + 2 * depth + 64)
    for _ in 0..<depth { builder.bytes.append(contentsOf: [0x0A, 0x01]) }
    builder.bytes.append(0x00)
    if finished { builder.finish() }
    return Data(builder.bytes)
}

/// Whether every string inside `a` and `b` holds the same Unicode scalars (`==` on strings is
/// canonical equivalence, which is weaker).
private func scalarsAreIdentical(_ a: UserInfoValue, _ b: UserInfoValue) -> Bool {
    switch (a, b) {
    case (.string(let x), .string(let y)): Array(x.unicodeScalars) == Array(y.unicodeScalars)
    case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy { scalarsAreIdentical($0.0, $0.1) }
    default: a == b
    }
}

extension PayloadDecodingError.Kind {
    fileprivate var isTruncated: Bool {
        if case .truncated = self { true } else { false }
    }
}

/// Builds payload bytes by hand, independently of the encoder, for hostile-input tests.
private struct PayloadBuilder {
    var bytes: [UInt8]
    var count: Int { bytes.count }

    /// The header of a payload with no optional fields, up to and including the `userInfo` count.
    init(userInfoCount: UInt64) {
        bytes = Self.minimalPrefix(userInfoCount: 0).dropLast()
        varint(userInfoCount)
    }

    /// Appends the fields after `userInfo` of a payload with no optional fields.
    mutating func finish() { bytes += Self.minimalSuffix }

    mutating func bytes(_ more: [UInt8]) { bytes += more }
    mutating func string(_ string: String) { bytes += Self.lengthPrefixed(string) }
    mutating func varint(_ value: UInt64) { bytes += Self.varint(value) }

    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var result: [UInt8] = []
        while value >= 0x80 {
            result.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        result.append(UInt8(value))
        return result
    }

    static func lengthPrefixed(_ string: String) -> [UInt8] {
        varint(UInt64(string.utf8.count)) + Array(string.utf8)
    }

    /// Magic, version, no flags, a zero UUID, activity type "t", then the `userInfo` count.
    static func minimalPrefix(userInfoCount: UInt64) -> [UInt8] {
        [0x48, 0x4F, 0x50, 0x4C, 0x01, 0x00] + Array(repeating: 0, count: 16) + lengthPrefixed("t")
            + varint(userInfoCount)
    }

    /// Team "com.example.team", bundle "com.example.app", no required keys, empty stream token.
    static let minimalSuffix: [UInt8] =
        lengthPrefixed("com.example.team") + lengthPrefixed("com.example.app") + [0x00, 0x00]
}

/// One value for the parameterized round-trip test.
struct PayloadSample: Sendable, CustomTestStringConvertible {
    let name: String
    let value: UserInfoValue
    var testDescription: String { name }

    static let all: [PayloadSample] = [
        PayloadSample(name: "null", value: .null),
        PayloadSample(name: "false", value: .bool(false)),
        PayloadSample(name: "true", value: .bool(true)),
        PayloadSample(name: "zero", value: .integer(0)),
        PayloadSample(name: "Int64.max", value: .integer(.max)),
        PayloadSample(name: "Int64.min", value: .integer(.min)),
        PayloadSample(name: "-0.0", value: .double(-0.0)),
        PayloadSample(name: "NaN", value: .double(.nan)),
        PayloadSample(name: "signalling NaN", value: .double(.signalingNaN)),
        PayloadSample(name: "infinity", value: .double(.infinity)),
        PayloadSample(name: "-infinity", value: .double(-.infinity)),
        PayloadSample(name: "pi", value: .double(.pi)),
        PayloadSample(name: "empty string", value: .string("")),
        PayloadSample(name: "emoji", value: .string("👍🏽 family: 👨‍👩‍👧, flag: 🇯🇵")),
        PayloadSample(name: "combining marks", value: .string("n\u{303}a\u{308}i\u{308}ve\u{301}")),
        PayloadSample(name: "huge string", value: .string(String(repeating: "Handoff ✓ ", count: 50_000))),
        PayloadSample(name: "empty data", value: .data(Data())),
        PayloadSample(name: "data", value: .data(Data([0, 1, 0xFF, 0x80]))),
        PayloadSample(name: "date", value: .date(Date(timeIntervalSinceReferenceDate: 760_000_000.000_000_123))),
        PayloadSample(name: "distant past", value: .date(.distantPast)),
        PayloadSample(name: "URL", value: .url(URL(fileURLWithPath: "/tmp/a b/ü.txt"))),
        PayloadSample(
            name: "UUID",
            value: .uuid(UUID(uuid: (0xDE, 0xAD, 0xBE, 0xEF, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)))),
        PayloadSample(name: "empty array", value: .array([])),
        PayloadSample(name: "array", value: [1, "two", 3.0, true, nil, [4, [5]]]),
        PayloadSample(name: "empty dictionary", value: .dictionary([:])),
        PayloadSample(name: "dictionary", value: ["x": 1, "y": ["z": [1, 2]], "": nil]),
        PayloadSample(name: "empty set", value: .set([])),
        PayloadSample(name: "set", value: .set([1, 1.0, true, "1", .set([1]), [1]])),
    ]
}

extension ActivityPayload {
    /// A payload with only what the tests vary.
    fileprivate static func minimal(
        activityIdentifier: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
        title: String? = nil,
        userInfo: UserInfo,
        webpageURL: URL? = nil,
        expirationDate: Date? = nil,
        requiredUserInfoKeys: Set<String> = [],
        targetContentIdentifier: String? = nil,
        streamToken: Data = Data()
    ) -> ActivityPayload {
        ActivityPayload(
            activityIdentifier: activityIdentifier, activityType: "t", title: title, userInfo: userInfo,
            webpageURL: webpageURL, teamIdentifier: "com.example.team", bundleIdentifier: "com.example.app",
            expirationDate: expirationDate, requiredUserInfoKeys: requiredUserInfoKeys,
            targetContentIdentifier: targetContentIdentifier, streamToken: streamToken)
    }

    /// A typical reader app: the position in a book, four keys.
    fileprivate static let readerPosition = ActivityPayload(
        activityIdentifier: UUID(
            uuid: (0x6B, 0xA7, 0xB8, 0x10, 0x9D, 0xAD, 0x11, 0xD1, 0x80, 0xB4, 0, 0xC0, 0x4F, 0xD4, 0x30, 0xC8)),
        activityType: "com.example.reader.position",
        title: "Moby-Dick",
        userInfo: [
            "bookID": .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))),
            "chapter": 42,
            "progress": 0.4375,
            "updatedAt": .date(Date(timeIntervalSinceReferenceDate: 770_000_000.5)),
        ],
        teamIdentifier: "ABCDE12345",
        bundleIdentifier: "com.example.reader",
        requiredUserInfoKeys: ["bookID", "chapter"])

    /// A typical browser: a webpage, a scroll offset, streams.
    fileprivate static let browsing = ActivityPayload(
        activityIdentifier: UUID(uuid: (9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9)),
        activityType: "NSUserActivityTypeBrowsingWeb",
        userInfo: ["scrollY": 1200],
        webpageURL: URL(string: "https://example.com/articles/handoff?ref=home#section-2"),
        teamIdentifier: "ABCDE12345",
        bundleIdentifier: "com.example.browser",
        supportsContinuationStreams: true,
        streamToken: Data(repeating: 0x42, count: 16))

    /// Every field present, every value kind, nesting.
    fileprivate static let rich = ActivityPayload(
        activityIdentifier: UUID(uuid: (1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 121, 98, 219)),
        activityType: "com.example.editor.document",
        title: "Résumé ✍️",
        userInfo: Dictionary(
            uniqueKeysWithValues: PayloadSample.all.filter { $0.name != "huge string" }
                .map { ($0.name, $0.value) }),
        webpageURL: URL(string: "https://example.com/doc?id=7#top"),
        teamIdentifier: "ABCDE12345",
        bundleIdentifier: "com.example.editor",
        expirationDate: Date(timeIntervalSinceReferenceDate: 780_000_000.123_456_789),
        requiredUserInfoKeys: ["null", "data", "set"],
        targetContentIdentifier: "doc-7",
        supportsContinuationStreams: true,
        streamToken: Data((0..<32).map { UInt8($0) }))
}
