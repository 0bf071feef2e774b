import Foundation
import HandoffCore
import Testing

@testable import HandoffRecordings

/// A recorded line read straight from its bytes (``RecordedLineFields/scan(_:)``) is read as the
/// JSON parser reads it, and a line it does not take is the parser's: hostile lines get the
/// parser's error, naming the file, the line and what is wrong, never a crash.
@Suite("Recorded lines")
struct RecordedLineTests {
    static let header =
        #"{"recording":"handoff-lifecycle","version":1,"device":"Phone","deviceID":"p","kind":"phone","account":"demo"}"#

    /// Every event line of the recordings in the tests, and a generated repetition.
    static func lines() throws -> [String] {
        var lines: [String] = []
        for path in TimelineStreamTests.demo + TimelineStreamTests.continued + TimelineStreamTests.noAnswer {
            lines += try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map(
                String.init)
        }
        return lines
    }

    /// The fields of a line as the parser reads them, or nil when it refuses the line or the
    /// line is not an object.
    static func parsed(_ bytes: [UInt8]) -> RecordedLineFields? {
        guard String(validating: bytes, as: UTF8.self) != nil,
            let object = (try? JSONValue.parse(utf8: bytes))?.objectValue
        else { return nil }
        return RecordedLineFields(object)
    }

    static func scanned(_ bytes: [UInt8]) -> RecordedLineFields? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        return bytes.withUnsafeBufferPointer { RecordedLineFields.scan($0) }
    }

    /// The header of `device`'s recording.
    static func header(_ device: String) throws(RecordingError) -> RecordingReader.Header {
        let object: [String: JSONValue] = [
            "recording": "handoff-lifecycle", "version": 1, "device": .string(device), "account": "demo",
        ]
        return try RecordingReader.Header(object, file: "r.jsonl")
    }

    /// The device a line names (the header's, for a line that names none or cannot be read).
    static func device(_ line: String) -> String {
        (try? JSONValue.parse(line))?["device"]?.stringValue ?? "Phone"
    }

    /// The event of a line read as the reader reads it, or its error.
    static func read(_ bytes: [UInt8], device: String = "Phone") -> Result<RecordedEvent, RecordingError> {
        Result { () throws(RecordingError) in
            let header = try Self.header(device)
            return try bytes.withUnsafeBufferPointer { bytes throws(RecordingError) in
                try RecordingReader.event(bytes, line: 7, complete: true, of: header, file: "r.jsonl")
            }
        }
    }

    /// The event of a line read as before the scanner: the parser's object, then its fields.
    static func readParsed(_ bytes: [UInt8], device: String = "Phone") -> Result<RecordedEvent, RecordingError> {
        Result { () throws(RecordingError) in
            let header = try Self.header(device)
            if String(validating: bytes, as: UTF8.self) == nil {
                throw RecordingError(file: "r.jsonl", line: 7, reason: "not UTF-8 text (not a recording?)")
            }
            let object = try RecordingReader.object(bytes, line: 7, complete: true, file: "r.jsonl")
            return try RecordingReader.event(
                RecordedLineFields(object), json: String(decoding: bytes, as: UTF8.self), line: 7, of: header,
                file: "r.jsonl")
        }
    }

    /// What a test compares of an event.
    static func summary(_ result: Result<RecordedEvent, RecordingError>) -> String {
        switch result {
        case .failure(let error): "error \(error)"
        case .success(let event):
            "\(event.time.timeIntervalSinceReferenceDate) \(event.timeText) \(event.kind) \(event.device) "
                + "\(event.continuation ?? "-") \(event.peer ?? "-") \(event.detail) \(event.explanation) "
                + ["serial", "typeHash", "size", "errorCode", "side", "fault"].map {
                    "\(event.string($0) ?? "-")/\(event.integer($0).map(String.init) ?? "-")"
                }.joined(separator: " ") + " \(event.fields.count)"
        }
    }

    @Test func theRecordingsLinesAreInThePlainFormAndReadAsTheParserReadsThem() throws {
        for line in try Self.lines() {
            let bytes = Array(line.utf8)
            let scanned = try #require(Self.scanned(bytes), "\(line.prefix(80))")
            #expect(scanned == Self.parsed(bytes), "\(line.prefix(80))")
            let device = Self.device(line)
            #expect(
                Self.summary(Self.read(bytes, device: device)) == Self.summary(Self.readParsed(bytes, device: device)))
        }
    }

    /// Lines changed at random (bytes replaced, inserted, removed, cut): whatever the scanner
    /// takes, the parser takes and reads the same; the reader's event or error is the parser's.
    @Test func changedLinesReadAsTheParserReadsThem() throws {
        let lines = try Self.lines()
        let interesting = Array(#"{}[]",:"\\ tfn0123456789-+.eEu"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF, 0x0D]
        var random = SplitMix64(seed: 2911)
        var taken = 0
        for round in 0..<6000 {
            var bytes = Array(lines[round % lines.count].utf8)
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let at = Int(random.next() % UInt64(bytes.count + 1))
                let byte = interesting[Int(random.next() % UInt64(interesting.count))]
                switch random.next() % 4 {
                case 0 where at < bytes.count: bytes[at] = byte
                case 1: bytes.insert(byte, at: at)
                case 2 where at < bytes.count: bytes.remove(at: at)
                default: bytes = Array(bytes.prefix(at))
                }
            }
            let scanned = Self.scanned(bytes)
            if let scanned {
                taken += 1
                #expect(scanned == Self.parsed(bytes), "\(String(decoding: bytes, as: UTF8.self))")
            }
            #expect(
                Self.summary(Self.read(bytes)) == Self.summary(Self.readParsed(bytes)),
                "\(String(decoding: bytes, as: UTF8.self))")
        }
        // Most changes break the line; some leave it in the plain form.
        #expect(taken > 100)
    }

    /// The scanner passes over a string eight bytes at a time: a byte that ends the string or
    /// is refused in it (a quote, a backslash, a control character, a non-ASCII byte in a key)
    /// is found wherever it is in the eight, and near the line's end, as the parser finds it.
    @Test func aStringsEveryByteIsLookedAtWhereverItIs() throws {
        let special: [[UInt8]] = [[0x22], [0x5C], [0x5C, 0x22], [0x00], [0x1F], [0x7F], [0x20], [0xC3, 0xA9], [0x7E]]
        for length in 0..<20 {
            for at in 0...length {
                for bytes in special {
                    var text = Array(repeating: UInt8(ascii: "a"), count: length)
                    text.insert(contentsOf: bytes, at: at)
                    for line in [
                        Array(#"{"kind":"saved","detail":""#.utf8) + text + Array(#"","time":"x"}"#.utf8),
                        Array(#"{"kind":"saved",""#.utf8) + text + Array(#"":1}"#.utf8),
                        Array(#"{"detail":""#.utf8) + text + Array(#""}"#.utf8),
                    ] {
                        #expect(Self.scanned(line) == nil || Self.scanned(line) == Self.parsed(line), "\(line)")
                        #expect(
                            Self.summary(Self.read(line)) == Self.summary(Self.readParsed(line)),
                            "\(String(decoding: line, as: UTF8.self))")
                    }
                }
            }
        }
    }

    /// A duplicate key is found wherever the two are among many keys, however many keys share
    /// its length and its first and last bytes (what the scanner compares keys by first), and
    /// such keys that differ are read as the parser reads them.
    @Test func aDuplicateKeyIsFoundAmongKeysAlike() throws {
        // Keys alike by length and ends, and others: 40 in all.
        let keys =
            (0..<20).map { "k\(Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8($0))))z" } + (0..<20).map { "x\($0)" }
        var generator = SplitMix64(seed: 31)
        for _ in 0..<300 {
            let chosen = Array(keys.shuffled(using: &generator).prefix(Int.random(in: 1...40, using: &generator)))
            var members = chosen
            let duplicated = Bool.random(using: &generator)
            if duplicated {
                members.insert(
                    chosen.randomElement(using: &generator)!, at: Int.random(in: 0...members.count, using: &generator))
            }
            let line = Array(
                ("{\"kind\":\"saved\"," + members.map { "\"\($0)\":1" }.joined(separator: ",") + "}").utf8)
            let scanned = Self.scanned(line)
            #expect((scanned == nil) == duplicated, "\(members)")
            #expect(scanned == nil || scanned == Self.parsed(line))
            #expect(Self.summary(Self.read(line)) == Self.summary(Self.readParsed(line)))
        }
    }

    /// Hostile lines: each refused with the parser's reason, on its line, in a recording read
    /// one event at a time and whole alike.
    @Test func hostileLinesAreRefusedNamingTheLineAndWhatIsWrong() throws {
        let event =
            #"{"time":"2026-11-24T09:30:00.250Z","device":"Phone","kind":"offerReceived","serial":3,"typeHash":"ab","detail":"x"}"#
        let cases: [(line: String, reason: String)] = [
            (
                event.replacingOccurrences(of: #""detail":"x""#, with: #""detail":"x","kind":"advertised""#),
                #"not JSON (duplicate key "kind" (at byte 115))"#
            ),
            (
                event.replacingOccurrences(of: #""serial":3"#, with: #""serial":99999999999999999999"#),
                "not JSON (integer 99999999999999999999 does not fit in 64 bits (at byte 84))"
            ),
            (
                event.replacingOccurrences(of: #""serial":3"#, with: #""serial":1e999"#),
                "not JSON (number 1e999 is out of the range of a double (at byte 84))"
            ),
            (
                event.replacingOccurrences(
                    of: #""serial":3"#,
                    with: #""serial":"#
                        + String(repeating: "[", count: 600) + String(repeating: "]", count: 600)),
                "not JSON (nesting deeper than 512 levels (at byte 596))"
            ),
            (
                event.replacingOccurrences(of: #""detail":"x""#, with: "\"detail\":\"a\u{01}b\""),
                "not JSON (control character 0x01 in a string (escape it) (at byte 113))"
            ),
            (
                event.replacingOccurrences(of: #""serial":3"#, with: #""serial":03"#),
                "not JSON (invalid number: leading zero (at byte 85))"
            ),
            (event + "}", "not JSON (unexpected '}' after the JSON value (at byte 115))"),
            (String(event.dropLast()), "not JSON (unexpected end of input, expected ',' or '}' (at byte 114))"),
            ("[" + event + "]", "a line must be a JSON object, not an array"),
            (
                event.replacingOccurrences(of: #""kind":"offerReceived""#, with: #""kind":7"#),
                #"no "kind""#
            ),
            (
                event.replacingOccurrences(of: #""time":"2026-11-24T09:30:00.250Z""#, with: #""time":{"at":1}"#),
                #""time" must be an ISO 8601 time such as 2026-11-24T09:30:00.250Z"#
            ),
        ]
        for (line, reason) in cases {
            let path = try write(Self.header + "\n" + event + "\n" + line + "\n")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let expected = RecordingError(file: path, line: 3, reason: reason)
            #expect(TimelineStreamTests.streamError(path) == expected, "\(line.prefix(100))")
            #expect(TimelineStreamTests.wholeError(path) == expected, "\(line.prefix(100))")
        }
    }

    /// Lines valid but not in the plain form (escapes, a byte-order mark, a number with an
    /// exponent) are read by the parser, with the same values; white space between the tokens
    /// is read as the parser reads it.
    @Test func validLinesInAnotherFormReadAsTheParserReadsThem() throws {
        let plain =
            #"{"time":"2026-11-24T09:30:00.250Z","device":"Phone","kind":"offerReceived","serial":3,"typeHash":"ab","detail":"x"}"#
        let forms = [
            plain.replacingOccurrences(of: #""detail":"x""#, with: #""detail":"say \"hi\" \u00e9""#),
            plain.replacingOccurrences(of: #""kind""#, with: #""ki\u006ed""#),
            "\u{FEFF}" + plain,
            " { "
                + plain.dropFirst().replacingOccurrences(of: ",\"", with: " , \"").replacingOccurrences(
                    of: "\":", with: "\" : ")
                + " \r",
            plain.replacingOccurrences(of: #""serial":3"#, with: #""serial":3e0,"ratio":1.5E+2"#),
            plain.replacingOccurrences(of: #""detail":"x""#, with: #""detail":"x","é":1,"e\u0301":2"#),
        ]
        for line in forms.dropLast() {
            let bytes = Array(line.utf8)
            let spaced = line.hasPrefix(" ")
            #expect(spaced ? Self.scanned(bytes) == Self.parsed(bytes) : Self.scanned(bytes) == nil, "\(line)")
            let event = try Self.read(bytes).get()
            #expect(Self.summary(.success(event)) == Self.summary(Self.readParsed(bytes)), "\(line)")
            #expect(event.kind == .offerReceived)
        }
        #expect(try Self.read(Array(forms[0].utf8)).get().detail == "say \"hi\" é")
        // Two keys Swift compares as one (é and e with its accent): the parser's duplicate.
        let twoAccents = Array(forms[5].utf8)
        #expect(Self.scanned(twoAccents) == nil)
        #expect(Self.summary(Self.read(twoAccents)).contains("duplicate key"))
        #expect(Self.summary(Self.read(twoAccents)) == Self.summary(Self.readParsed(twoAccents)))
    }

    /// Every field of an event is as recorded, and what the layout reads of it is the field's.
    @Test func fieldsAndThePairingsValuesAreTheRecordedOnes() throws {
        for line in try Self.lines() {
            let bytes = Array(line.utf8)
            let event = try Self.read(bytes, device: Self.device(line)).get()
            let object = try #require(try JSONValue.parse(line).objectValue)
            #expect(event.fields == object)
            for key in Set(object.keys).union(["serial", "typeHash", "size", "errorCode", "side", "fault", "peer"]) {
                #expect(event.string(key) == object[key]?.stringValue, "\(key)")
                #expect(event.integer(key) == object[key]?.integerValue, "\(key)")
            }
        }
    }

    /// An event is a value: its fields are held by one reference, and a changed copy leaves the
    /// event it was copied from as it was.
    @Test func aChangedCopyOfAnEventLeavesTheEventAsItWas() throws {
        let line = try #require(try Self.lines().first { $0.contains("\"serial\"") })
        let event = try Self.read(Array(line.utf8), device: Self.device(line)).get()
        let before = Self.summary(.success(event))
        var copy = event
        copy.change {
            $0.detail = "changed"
            $0.line = 99
            $0.continuation = "c"
            $0.pairing.serial = .integer(42)
        }
        #expect(Self.summary(.success(event)) == before)
        #expect(event.detail != "changed" && event.line == 7 && event.integer("serial") != 42)
        #expect(copy.detail == "changed" && copy.line == 99 && copy.continuation == "c")
        #expect(copy.integer("serial") == 42 && copy.json == event.json && copy.time == event.time)
    }

    /// A device named with other bytes of the same characters as the header's (an accent
    /// composed or not) is the header's device, as the parser's string compares it; another
    /// name is refused, with the same message either way.
    @Test func aDeviceIsComparedByItsCharactersNotItsBytes() throws {
        let line =
            #"{"time":"2026-11-24T09:30:00.250Z","device":"Cafe\u0301","kind":"advertised","detail":"d"}"#
        let plain = line.replacingOccurrences(of: #"Cafe\u0301"#, with: "Cafe\u{301}")
        for text in [line, plain] {
            let bytes = Array(text.utf8)
            #expect(
                Self.summary(Self.read(bytes, device: "Café")) == Self.summary(Self.readParsed(bytes, device: "Café")))
            #expect((try? Self.read(bytes, device: "Café").get())?.device == "Café")
            #expect(
                Self.summary(Self.read(bytes, device: "Cafe")) == Self.summary(Self.readParsed(bytes, device: "Cafe")))
            #expect(Self.summary(Self.read(bytes, device: "Cafe")).contains("in Cafe's recording"))
        }
    }

    /// Consecutive events of one continuation share its string; each event still has its own
    /// continuation and peer, whatever the events before it recorded.
    @Test func eachEventHasItsOwnContinuationAndPeerInARecordingReadInTurn() throws {
        func line(_ continuation: String?, _ peer: String?) -> String {
            var fields = [#""time":"2026-11-24T09:30:00.250Z""#, #""kind":"payloadRequested""#, #""detail":"d""#]
            if let continuation { fields.append("\"continuation\":\"\(continuation)\"") }
            if let peer { fields.append("\"peer\":\"\(peer)\"") }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let recorded: [(String?, String?)] = [
            ("aaaa-1111-aaaa-1111-aaaa", "Laptop"), ("aaaa-1111-aaaa-1111-aaaa", "Laptop"),
            ("aaaa-1111-aaaa-1111-aaab", "Laptop"), (nil, nil), ("aaaa-1111-aaaa-1111-aaaa", "Tablet"),
            ("", ""), ("aaaa-1111-aaaa-1111-aaaa", "Laptop"),
        ]
        let path = try write(Self.header + "\n" + recorded.map { line($0.0, $0.1) }.joined(separator: "\n") + "\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try RecordingReader(path: path)
        var read: [(String?, String?)] = []
        while let (event, _) = try reader.next() { read.append((event.continuation, event.peer)) }
        #expect(read.map(\.0) == recorded.map(\.0))
        #expect(read.map(\.1) == recorded.map(\.1))
        let whole = try LifecycleRecording(contentsOf: path)
        #expect(whole.events.map(\.continuation) == recorded.map(\.0))
        #expect(whole.events.map(\.peer) == recorded.map(\.1))
    }

    func write(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("print-line-\(UUID().uuidString).jsonl")
        try Data(text.utf8).write(to: url)
        return url.path
    }
}
