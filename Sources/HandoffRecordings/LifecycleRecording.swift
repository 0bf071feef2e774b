import Foundation
import HandoffCore
import HandoffHeadless

/// A device's typed lifecycle written as JSON lines (`handoff device --record FILE`), for
/// `handoff timeline` to replay.
///
/// The first line is a header naming the format, the device and its account; every other line
/// is one lifecycle event with exactly the fields of the headless `lifecycle` events
/// (docs/headless.md), so a recording and a headless transcript read alike.
///
/// ```json
/// {"recording":"handoff-lifecycle","version":1,"device":"Laptop","deviceID":"…","kind":"laptop","account":"demo"}
/// {"time":"2026-11-24T09:30:00.250Z","device":"Laptop","kind":"activityCreated",…}
/// ```
package final class LifecycleRecorder {
    /// The format's name in the header.
    package static let format = "handoff-lifecycle"
    /// The version this build writes and reads.
    package static let version = 1

    private let handle: FileHandle
    package let path: String

    /// Creates (or truncates) the file at `path` and writes the header.
    ///
    /// - Throws: ``RecordingError`` naming the file when it cannot be written.
    package init(path: String, device: PeerInfo, account: String) throws(RecordingError) {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw RecordingError(file: path, line: nil, reason: "cannot be written")
        }
        self.handle = handle
        write(
            .object([
                "recording": .string(Self.format), "version": .integer(Int64(Self.version)),
                "device": .string(device.name), "deviceID": .string(device.id.rawValue),
                "kind": .string(device.kind.rawValue),
                "account": .string(account),
            ]))
    }

    deinit { try? handle.close() }

    /// Appends one event (on the device's run loop, as it is recorded).
    package func record(_ event: LifecycleEvent) {
        var object = HeadlessController.fields(of: event)
        object["event"] = nil
        write(.object(object))
    }

    private func write(_ value: JSONValue) {
        handle.write(Data((value.jsonText + "\n").utf8))
    }
}

/// A recording could not be read: the file, the line (1-based) when one is at fault, and why.
package struct RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    package var file: String
    package var line: Int?
    package var reason: String

    package var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(reason)"
    }
}

/// One event of a recording, with the fields the timeline draws.
///
/// Its values are held by reference: an event is copied between the reader, the timeline's
/// window, its rows and their users (`handoff timeline` of a million events), and a copy is
/// then one reference counted rather than each of its strings. Its time's text, its detail and
/// its explanation are where they are in its line (``Text``), made into strings when asked for:
/// `--print` asks for the detail only, and a string a field was a heap object each of millions.
package struct RecordedEvent: Sendable {
    /// A text of the event: a range of its line's UTF-8 (the line in the plain form devices
    /// write, a string field without escapes), or its own string.
    enum Text: Sendable {
        case inLine(Range<Int>)
        case string(String)

        /// The text, read from `json` when it is a range of it.
        func text(in json: String) -> String {
            switch self {
            case .string(let text): return text
            case .inLine: return withUTF8(in: json) { String(decoding: $0, as: UTF8.self) }
            }
        }

        /// `body` of the text's UTF-8, read in place from `json` when it is a range of it.
        func withUTF8<Result>(in json: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
            switch self {
            case .string(var text): return text.withUTF8(body)
            case .inLine(let range):
                if let result = json.utf8.withContiguousStorageIfAvailable({
                    body(UnsafeBufferPointer(rebasing: $0[range]))
                }) {
                    return result
                }
                var json = json
                return json.withUTF8 { body(UnsafeBufferPointer(rebasing: $0[range])) }
            }
        }
    }

    /// What an event holds.
    struct Values: Sendable {
        var time: Date
        var device: String
        var kind: LifecycleEvent.Kind
        var continuation: String?
        var peer: String?
        var json: String
        var pairing: PairingFields
        var line: Int
        var storedTimeText: Text
        var storedDetail: Text
        var storedExplanation: Text

        var timeText: String {
            get { storedTimeText.text(in: json) }
            set { storedTimeText = .string(newValue) }
        }

        var detail: String {
            get { storedDetail.text(in: json) }
            set { storedDetail = .string(newValue) }
        }

        var explanation: String {
            get { storedExplanation.text(in: json) }
            set { storedExplanation = .string(newValue) }
        }
    }

    /// The values, never changed in place: a change makes a new box (events are read, not edited).
    final class Box: Sendable {
        let values: Values
        init(_ values: Values) { self.values = values }
    }

    /// The values (``TimelineStream``'s window refers to them without retaining them).
    private(set) var box: Box

    init(
        time: Date, timeText: Text, device: String, kind: LifecycleEvent.Kind, continuation: String?,
        peer: String?, detail: Text, explanation: Text, json: String, pairing: PairingFields, line: Int = 0
    ) {
        box = Box(
            Values(
                time: time, device: device, kind: kind, continuation: continuation, peer: peer, json: json,
                pairing: pairing, line: line, storedTimeText: timeText, storedDetail: detail,
                storedExplanation: explanation))
    }

    /// Changes a copy's values (events are read, not edited: the tests make variants this way).
    mutating func change(_ body: (inout Values) -> Void) {
        var values = box.values
        body(&values)
        box = Box(values)
    }

    package var time: Date { box.values.time }

    /// The recorded text of the time, as written.
    package var timeText: String { box.values.timeText }

    package var device: String { box.values.device }

    package var kind: LifecycleEvent.Kind { box.values.kind }

    package var continuation: String? { box.values.continuation }

    package var peer: String? { box.values.peer }

    package var detail: String { box.values.detail }

    package var explanation: String { box.values.explanation }

    /// `body` of ``detail``'s UTF-8, read in place from the line when it is there (without a
    /// string of it: `handoff timeline --print` prints millions).
    package func withDetailUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        box.values.storedDetail.withUTF8(in: box.values.json, body)
    }

    /// The line as recorded (its JSON object), which ``fields`` reads.
    package var json: String { box.values.json }

    /// The recorded values of the fields the layout pairs messages by.
    var pairing: PairingFields { box.values.pairing }

    /// The line of the recording it was read from (1-based).
    package var line: Int { box.values.line }

    /// What ``TimelineLayout`` reads of an event besides its kind, continuation and peer, as
    /// recorded (a string or an integer; anything else as null): kept apart from ``fields``,
    /// which parses the whole line each time it is asked.
    struct PairingFields: Sendable, Equatable {
        var serial: JSONValue?
        var typeHash: JSONValue?
        var size: JSONValue?
        var errorCode: JSONValue?
        var side: JSONValue?
        var fault: JSONValue?
    }

    /// Every field as recorded, for the inspector, the detail view and the trace: the line
    /// parsed again (it was checked when it was read), so that an event holds one string of it
    /// rather than a dictionary of values.
    package var fields: [String: JSONValue] { box.values.fields }

    package func string(_ key: String) -> String? { box.values.string(key) }

    package func integer(_ key: String) -> Int64? { box.values.integer(key) }
}

extension RecordedEvent.Values {
    /// ``RecordedEvent/fields``.
    var fields: [String: JSONValue] {
        (try? JSONValue.parse(utf8: Array(json.utf8)))?.objectValue ?? [:]
    }

    /// ``RecordedEvent/string(_:)``.
    func string(_ key: String) -> String? {
        if let value = pairingValue(key) { return value?.stringValue }
        switch key {
        case "continuation": return continuation
        case "peer": return peer
        case "time": return timeText
        case "kind": return kind.rawValue
        default: return fields[key]?.stringValue
        }
    }

    /// ``RecordedEvent/integer(_:)``.
    func integer(_ key: String) -> Int64? {
        if let value = pairingValue(key) { return value?.integerValue }
        switch key {
        case "time", "kind": return nil
        default: return fields[key]?.integerValue
        }
    }

    /// The pairing field `key` names, as recorded (`.some(nil)`: not recorded), or nil when `key`
    /// is not one of ``RecordedEvent/PairingFields``.
    private func pairingValue(_ key: String) -> JSONValue?? {
        switch key {
        case "serial": .some(pairing.serial)
        case "typeHash": .some(pairing.typeHash)
        case "size": .some(pairing.size)
        case "errorCode": .some(pairing.errorCode)
        case "side": .some(pairing.side)
        case "fault": .some(pairing.fault)
        default: .none
        }
    }
}

/// A recording read back: its device, its account and its events in order.
package struct LifecycleRecording: Sendable {
    package var file: String
    package var device: String
    package var deviceID: String
    package var deviceKind: String
    package var account: String
    package var events: [RecordedEvent]
    /// Bytes of events before the part that was read, left out (0: the whole recording).
    package var skippedBytes = 0

    /// The most bytes of events read of one recording: a longer one is read from its header and
    /// its last this many bytes (some 60,000 events), so a recording left running for days
    /// prints in seconds and a few hundred megabytes of memory at most, not gigabytes (a long
    /// session's recording is a few megabytes).
    package static let maximumBytes = 16 * 1024 * 1024

    /// Reads the recording at `path`.
    ///
    /// - Throws: ``RecordingError`` naming the file and line: not a recording, truncated, not
    ///   JSON, a newer version, an unknown event kind, or another device's events.
    package init(contentsOf path: String) throws(RecordingError) {
        var data: Data
        var skipped = 0
        do {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw RecordingError(file: path, line: nil, reason: "cannot be read")
            }
            defer { try? handle.close() }
            let size = Int(try handle.seekToEnd())
            try handle.seek(toOffset: 0)
            if size <= Self.maximumBytes {
                data = try handle.readToEnd() ?? Data()
            } else {
                // The header line, then the last `maximumBytes` from the first whole line on.
                let start = try handle.read(upToCount: 64 * 1024) ?? Data()
                guard let headerEnd = start.firstIndex(of: 0x0A) else {
                    throw RecordingError(
                        file: path, line: 1, reason: "the header line is longer than 64 KiB (not a recording?)")
                }
                try handle.seek(toOffset: UInt64(size - Self.maximumBytes))
                var tail = try handle.readToEnd() ?? Data()
                let cut = (tail.firstIndex(of: 0x0A) ?? tail.endIndex) - tail.startIndex
                tail = Data(tail.dropFirst(min(cut + 1, tail.count)))
                skipped = size - tail.count - (headerEnd - start.startIndex + 1)
                data = Data(start[...headerEnd]) + tail
            }
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(file: path, line: nil, reason: "cannot be read (\(error.localizedDescription))")
        }
        do {
            try self.init(data: data, file: path)
        } catch  where skipped > 0 {
            // Line numbers count from the part read: say so rather than name a wrong line.
            throw RecordingError(
                file: path, line: nil, reason: "in its last \(Self.maximumBytes / (1024 * 1024)) MiB: \(error.reason)")
        }
        skippedBytes = skipped
    }

    /// Reads a recording's bytes, naming `file` in errors.
    package init(data: Data, file: String) throws(RecordingError) {
        self.file = file
        guard let text = String(data: data, encoding: .utf8) else {
            // Name the first line that is not UTF-8 (a recording is text: a binary file fails on line 1).
            let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
            let bad = lines.firstIndex { String(data: Data($0), encoding: .utf8) == nil }
            throw RecordingError(file: file, line: bad.map { $0 + 1 }, reason: "not UTF-8 text (not a recording?)")
        }
        var lines = Self.lines(of: text)
        let endsWithNewline = lines.last == ""
        if endsWithNewline { lines.removeLast() }
        guard let first = lines.first, !first.isEmpty else {
            throw RecordingError(file: file, line: nil, reason: "empty: a recording starts with a header line")
        }
        func parse(_ line: String, _ number: Int) throws(RecordingError) -> [String: JSONValue] {
            let value: JSONValue
            do {
                value = try JSONValue.parse(line)
            } catch {
                let truncated = number == lines.count && !endsWithNewline
                throw RecordingError(
                    file: file, line: number,
                    reason: truncated ? "truncated (the last line ends early: \(error))" : "not JSON (\(error))")
            }
            guard case .object(let object) = value else {
                throw RecordingError(
                    file: file, line: number, reason: "a line must be a JSON object, not \(value.kindDescription)")
            }
            return object
        }
        let header = try RecordingReader.Header(try parse(first, 1), file: file)
        device = header.device
        account = header.account
        deviceID = header.deviceID
        deviceKind = header.deviceKind
        var events: [RecordedEvent] = []
        var recent = RecordingReader.RecentStrings()
        for (index, line) in lines.enumerated().dropFirst() where !line.isEmpty {
            let number = index + 1
            var line = line
            let complete = number < lines.count || endsWithNewline
            let event = line.withUTF8 { bytes in
                Result { () throws(RecordingError) in
                    try RecordingReader.event(
                        bytes, line: number, complete: complete, of: header, file: file, recent: &recent)
                }
            }
            events.append(try event.get())
        }
        self.events = events
    }

    static func date(_ text: String) -> Date? {
        RecordingReader.date(text)
    }

    /// `text` split at its line feeds as its characters split it (a line feed after a carriage
    /// return is one character with it, and splits nothing), without walking it character by
    /// character (`handoff timeline --svg` reads 16 MiB of a long recording).
    static func lines(of text: String) -> [String] {
        var text = text
        return text.withUTF8 { bytes in
            var lines: [String] = []
            var start = 0
            for index in bytes.indices where bytes[index] == 0x0A && (index == 0 || bytes[index - 1] != 0x0D) {
                lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                start = index + 1
            }
            lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
            return lines
        }
    }

    /// Reads several recordings of one continuation (one per device).
    ///
    /// - Throws: ``RecordingError`` for the first unreadable file, for two recordings of one
    ///   device, or for recordings of different accounts (devices share their lifecycle only
    ///   within one account).
    package static func load(_ paths: [String]) throws(RecordingError) -> [LifecycleRecording] {
        var recordings: [LifecycleRecording] = []
        for path in paths {
            let recording = try LifecycleRecording(contentsOf: path)
            if let first = recordings.first, first.account != recording.account {
                throw RecordingError(
                    file: path, line: 1,
                    reason:
                        "\(recording.device) is in account \(recording.account), but \(first.file) is in account \(first.account): a timeline shows one account's devices"
                )
            }
            if let same = recordings.first(where: { $0.deviceID == recording.deviceID }) {
                throw RecordingError(
                    file: path, line: 1, reason: "\(recording.device) was already given (\(same.file))")
            }
            recordings.append(recording)
        }
        return recordings
    }
}

extension RecordedEvent {
    /// The typed event the line was written from (``LifecycleEvent/fields``, read back).
    ///
    /// - Throws: ``LifecycleFieldError`` naming the field that is missing, of the wrong type or
    ///   out of range (a `userInfo` that is not the headless JSON's form names its path).
    package func lifecycleEvent() throws(LifecycleFieldError) -> LifecycleEvent {
        var entries: [LifecycleEntry.Field] = []
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            let field: LifecycleField
            switch value {
            case .string(let text): field = .string(text)
            case .integer(let number):
                guard let number = Int(exactly: number) else {
                    throw LifecycleFieldError(field: key, reason: "is out of range (\(number))")
                }
                field = .integer(number)
            case .double(let number): field = .double(number)
            case .bool(let flag): field = .bool(flag)
            case .object where key == "userInfo":
                do {
                    field = .userInfo(try UserInfoJSON.userInfo(from: value))
                } catch {
                    throw LifecycleFieldError(field: key, reason: "is not a userInfo: \(error)")
                }
            default:
                throw LifecycleFieldError(
                    field: key, reason: "must be a string, a number or a Boolean, not \(value.kindDescription)")
            }
            entries.append(LifecycleEntry.Field(key, field))
        }
        return try LifecycleEvent(fields: entries)
    }

    /// The event as the timeline's detail panel reads it (DeviceUI's `TimelineEventDetail`), the
    /// same as a peer's shared event: every field kept, whatever it holds (a value the typed
    /// event would refuse, such as an array or a userInfo not in the headless JSON's form, as its
    /// JSON text), the time as recorded (as devices write it when Foundation cannot read it back),
    /// the device and the kind as the reader took them, so that every event the replay draws has a
    /// detail (nil would take a device without a name, which the reader refuses).
    package var entry: LifecycleEntry? {
        var entries: [LifecycleEntry.Field] = []
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            let field: LifecycleField
            switch (key, value) {
            case ("time", _): field = .string(timeText)
            case ("device", _): field = .string(device)
            case ("kind", _): field = .string(kind.rawValue)
            default:
                switch value {
                case .string(let text): field = .string(text)
                case .integer(let number): field = Int(exactly: number).map { .integer($0) } ?? .string(value.jsonText)
                case .double(let number): field = .double(number)
                case .bool(let flag): field = .bool(flag)
                case .object where key == "userInfo":
                    field = (try? UserInfoJSON.userInfo(from: value)).map { .userInfo($0) } ?? .string(value.jsonText)
                default: field = .string(value.jsonText)
                }
            }
            entries.append(LifecycleEntry.Field(key, field))
        }
        if fields["device"] == nil { entries.append(LifecycleEntry.Field("device", .string(device))) }
        if let entry = LifecycleEntry(fields: entries) { return entry }
        // A time the reader took that Foundation does not: written as devices write it.
        let time = LifecycleEvent.timestamp(time)
        return LifecycleEntry(
            fields: entries.map { $0.key == "time" ? LifecycleEntry.Field("time", .string(time)) : $0 })
    }
}

extension LifecycleRecording {
    /// The recording's events, typed, in order.
    ///
    /// - Throws: ``RecordingError`` naming the file and the line of the first event that does
    ///   not read back, and the field at fault.
    package func lifecycleEvents() throws(RecordingError) -> [LifecycleEvent] {
        var typed: [LifecycleEvent] = []
        typed.reserveCapacity(events.count)
        for event in events {
            do {
                typed.append(try event.lifecycleEvent())
            } catch {
                throw RecordingError(file: file, line: event.line, reason: "\(event.kind.rawValue) event: \(error)")
            }
        }
        return typed
    }
}
