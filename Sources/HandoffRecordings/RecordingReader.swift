import Foundation
import HandoffCore

/// A recording read one event at a time, in bounded memory: its header when it is opened, then
/// each event with the position of its line, so that reading can start again from any event
/// (`handoff timeline` streams recordings of millions of events, and its replay pages through
/// them by positions rather than holding them).
///
/// It reads what ``LifecycleRecording`` reads and refuses what it refuses, with the same
/// messages; an error is found when its line is reached, not before the first event.
package final class RecordingReader {
    /// What a recording's first line says.
    package struct Header: Sendable, Hashable {
        package var device: String
        package var deviceID: String
        package var deviceKind: String
        package var account: String

        /// Reads the header line's object.
        ///
        /// - Throws: ``RecordingError`` on line 1: not a recording, no version, a newer version,
        ///   or no device or account.
        package init(_ header: [String: JSONValue], file: String) throws(RecordingError) {
            guard header["recording"]?.stringValue == LifecycleRecorder.format else {
                throw RecordingError(
                    file: file, line: 1,
                    reason:
                        "not a lifecycle recording (the header must say \"recording\":\"\(LifecycleRecorder.format)\"; record one with handoff device --record FILE)"
                )
            }
            guard let version = header["version"]?.integerValue else {
                throw RecordingError(file: file, line: 1, reason: "the header has no version")
            }
            guard version <= Int64(LifecycleRecorder.version) else {
                throw RecordingError(
                    file: file, line: 1,
                    reason:
                        "recorded by a newer version (\(version)); this build reads version \(LifecycleRecorder.version)"
                )
            }
            guard let device = header["device"]?.stringValue, let account = header["account"]?.stringValue else {
                throw RecordingError(
                    file: file, line: 1, reason: "the header must name the \"device\" and its \"account\"")
            }
            // A device always has a name (a lane, a message, a detail name it).
            guard !device.isEmpty else {
                throw RecordingError(
                    file: file, line: 1, reason: "the header's \"device\" is empty: a device has a name")
            }
            self.device = device
            self.account = account
            deviceID = header["deviceID"]?.stringValue ?? device
            deviceKind = header["kind"]?.stringValue ?? "phone"
        }
    }

    /// Where a line starts: its byte offset in the file and its number (1-based).
    package struct Position: Sendable, Hashable {
        package var offset: UInt64
        package var line: Int
    }

    /// The longest line read: a longer one is not a recording's (a device writes lines of a few
    /// kilobytes; a userInfo over 16 KiB is not shared).
    package static let maximumLineBytes = 16 * 1024 * 1024
    /// How much is read from the file at once.
    static let chunkBytes = 1024 * 1024

    package let file: String
    package let header: Header
    private let handle: FileHandle
    /// The lines read and not yet taken.
    private var lines: Lines
    /// The last continuation and peer read (``RecentStrings``).
    private var recent = RecentStrings()

    /// The file offset of the next line and its number.
    package var position: Position { lines.position }

    /// Opens the recording at `path` and reads its header; with `position`, the next event read is
    /// the first at or after it (a position ``next()`` gave).
    ///
    /// - Throws: ``RecordingError`` naming the file (and line 1): unreadable, empty, not a
    ///   recording, a newer version.
    package init(path: String, from resume: Position? = nil) throws(RecordingError) {
        file = path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw RecordingError(file: path, line: nil, reason: "cannot be read")
        }
        self.handle = handle
        lines = Lines(descriptor: handle.fileDescriptor)
        var first: (bytes: [UInt8], complete: Bool)?
        do {
            if let line = try lines.next(file: path) {
                first = (Array(lines.bytes[line.range]), line.complete)
            }
        } catch {
            try? handle.close()
            throw error
        }
        guard let first, !first.bytes.isEmpty else {
            try? handle.close()
            throw RecordingError(file: path, line: nil, reason: "empty: a recording starts with a header line")
        }
        do {
            header = try Header(try Self.object(first.bytes, line: 1, complete: first.complete, file: path), file: path)
            if let resume, resume.offset > lines.position.offset {
                try handle.seek(toOffset: resume.offset)
                lines.restart(at: resume)
            }
        } catch let error as RecordingError {
            try? handle.close()
            throw error
        } catch {
            try? handle.close()
            throw RecordingError(file: path, line: nil, reason: "cannot be read (\(error.localizedDescription))")
        }
    }

    deinit { try? handle.close() }

    /// The next event and the position of its line; nil at the end of the recording.
    ///
    /// - Throws: ``RecordingError`` naming the file and the line: not UTF-8, not JSON, truncated,
    ///   an unknown kind, another device's event, a line longer than ``maximumLineBytes``.
    package func next() throws(RecordingError) -> (event: RecordedEvent, position: Position)? {
        while true {
            let at = lines.position
            guard let line = try lines.next(file: file) else { return nil }
            guard !line.range.isEmpty else { continue }
            let event = try lines.bytes.withUnsafeBufferPointer { buffer throws(RecordingError) in
                try Self.event(
                    UnsafeBufferPointer(rebasing: buffer[line.range]), line: at.line, complete: line.complete,
                    of: header, file: file, recent: &recent)
            }
            return (event, at)
        }
    }

    /// A file's lines, read with `read(2)` into one buffer that every read reuses (a new buffer
    /// a read had the kernel zero fresh pages for each megabyte of a recording of hundreds).
    struct Lines {
        let descriptor: Int32
        /// `bytes[start..<end]` are read and not yet taken as lines; the rest is room to read into.
        private(set) var bytes: [UInt8]
        private var start = 0
        private var end = 0
        /// The file offset of `bytes[start]` and the number of its line.
        private(set) var position = Position(offset: 0, line: 1)
        private var atEnd = false

        init(descriptor: Int32) {
            self.descriptor = descriptor
            bytes = [UInt8](repeating: 0, count: RecordingReader.chunkBytes)
        }

        /// Reads on from `position` (the file was moved to its offset).
        mutating func restart(at position: Position) {
            start = 0
            end = 0
            self.position = position
            atEnd = false
        }

        /// Where the next line's bytes are in ``bytes`` (without its newline, until the next
        /// call) and whether a newline ended it; nil at the end.
        mutating func next(file: String) throws(RecordingError) -> (range: Range<Int>, complete: Bool)? {
            var searched = start
            while true {
                let newline = bytes.withUnsafeBufferPointer { pointer -> Int? in
                    guard searched < end, let base = pointer.baseAddress else { return nil }
                    guard let found = memchr(base + searched, 0x0A, end - searched) else { return nil }
                    return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                }
                if let newline {
                    let range = start..<newline
                    position.offset += UInt64(newline + 1 - start)
                    position.line += 1
                    start = newline + 1
                    return (range, true)
                }
                if end - start > maximumLineBytes {
                    throw RecordingError(
                        file: file, line: position.line,
                        reason: "a line longer than \(maximumLineBytes / (1024 * 1024)) MiB (not a recording?)")
                }
                if atEnd {
                    guard start < end else { return nil }
                    let range = start..<end
                    position.offset += UInt64(range.count)
                    position.line += 1
                    start = end
                    return (range, false)
                }
                // Keep the unread part only, at the front, then read more after it.
                if start > 0 {
                    let (from, count) = (start, end - start)
                    bytes.withUnsafeMutableBufferPointer { bytes in
                        guard count > 0, let base = bytes.baseAddress else { return }
                        _ = memmove(base, base + from, count)
                    }
                    start = 0
                    end = count
                }
                searched = end
                if end == bytes.count {
                    bytes.append(contentsOf: repeatElement(0, count: chunkBytes))
                }
                let read = try fill(file: file)
                if read == 0 { atEnd = true }
                end += read
            }
        }

        /// Reads into the room after `end`: how many bytes were read (0 at the end of the file).
        private mutating func fill(file: String) throws(RecordingError) -> Int {
            let (descriptor, end) = (self.descriptor, self.end)
            while true {
                let count = bytes.withUnsafeMutableBufferPointer { bytes in
                    read(descriptor, bytes.baseAddress! + end, min(bytes.count - end, chunkBytes))
                }
                if count >= 0 { return count }
                let code = errno
                guard code == EINTR else {
                    throw RecordingError(
                        file: file, line: nil, reason: "cannot be read (\(String(cString: strerror(code))))")
                }
            }
        }
    }

    /// A line's JSON object.
    static func object(
        _ bytes: [UInt8], line: Int, complete: Bool, file: String
    ) throws(RecordingError) -> [String:
        JSONValue]
    {
        if bytes.contains(where: { $0 >= 0x80 }), String(validating: bytes, as: UTF8.self) == nil {
            throw RecordingError(file: file, line: line, reason: "not UTF-8 text (not a recording?)")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(utf8: bytes)
        } catch {
            throw RecordingError(
                file: file, line: line,
                reason: complete ? "not JSON (\(error))" : "truncated (the last line ends early: \(error))")
        }
        guard case .object(let object) = value else {
            throw RecordingError(
                file: file, line: line, reason: "a line must be a JSON object, not \(value.kindDescription)")
        }
        return object
    }

    /// The event of a line (its bytes without the newline; `complete`: a newline ended it).
    ///
    /// The line is read straight from its bytes when it is in the plain form devices write
    /// (``RecordedLineFields/spans(_:)``), else parsed whole (``object(_:line:complete:file:)``):
    /// either way it is refused for the same reasons, with the same messages. `recent` keeps the
    /// last continuation and peer read, which the next event that records the same bytes shares.
    ///
    /// - Throws: ``RecordingError`` on `line`: not UTF-8, not JSON, truncated, not an object, no
    ///   or a bad time, no kind, an unknown kind, another device's event.
    static func event(
        _ bytes: UnsafeBufferPointer<UInt8>, line number: Int, complete: Bool, of header: Header, file: String,
        recent: inout RecentStrings
    ) throws(RecordingError) -> RecordedEvent {
        // One pass: the validation is the copy into the string (it had been checked, then decoded).
        guard let json = String(validating: bytes, as: UTF8.self) else {
            throw RecordingError(file: file, line: number, reason: "not UTF-8 text (not a recording?)")
        }
        if let spans = RecordedLineFields.spans(bytes) {
            return try event(spans, of: bytes, json: json, line: number, of: header, file: file, recent: &recent)
        }
        let fields = RecordedLineFields(try object(Array(bytes), line: number, complete: complete, file: file))
        return try event(fields, json: json, line: number, of: header, file: file)
    }

    /// ``event(_:line:complete:of:file:recent:)`` of one line alone.
    static func event(
        _ bytes: UnsafeBufferPointer<UInt8>, line number: Int, complete: Bool, of header: Header, file: String
    ) throws(RecordingError) -> RecordedEvent {
        var recent = RecentStrings()
        return try event(bytes, line: number, complete: complete, of: header, file: file, recent: &recent)
    }

    /// Whether `text`'s UTF-8 is `bytes` (compared at once: element by element was a hundredth
    /// of `handoff timeline --print`'s instructions).
    static func hasBytes(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var text = text
        return text.withUTF8 { text in
            text.count == bytes.count
                && (text.isEmpty || memcmp(text.baseAddress!, bytes.baseAddress!, text.count) == 0)
        }
    }

    /// The continuation and the peer of the last event read: consecutive events of one
    /// continuation record the same, and share one string of it rather than each making its own.
    struct RecentStrings {
        var continuation: String?
        var peer: String?

        /// The string of `bytes` (valid UTF-8): `last` when it has the same bytes, else a new
        /// one, then kept as `last`.
        static func string(_ bytes: UnsafeBufferPointer<UInt8>, reusing last: inout String?) -> String {
            if var kept = last, kept.utf8.count == bytes.count,
                kept.withUTF8({ kept in bytes.isEmpty || memcmp(kept.baseAddress!, bytes.baseAddress!, bytes.count) == 0
                })
            {
                return kept
            }
            let text = String(decoding: bytes, as: UTF8.self)
            last = text
            return text
        }
    }

    /// The event of a line in the plain form, from where its fields are (``RecordedLineFields/
    /// Spans``): the same event, and the same errors, as ``event(_:json:line:of:file:)`` of its
    /// fields, with the time read from its bytes and its texts left in the line.
    ///
    /// - Throws: ``RecordingError`` on `line`: no or a bad time, no kind, an unknown kind, another
    ///   device's event.
    static func event(
        _ spans: RecordedLineFields.Spans, of bytes: UnsafeBufferPointer<UInt8>, json: String, line number: Int,
        of header: Header, file: String, recent: inout RecentStrings
    ) throws(RecordingError) -> RecordedEvent {
        func part(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }
        func text(_ range: Range<Int>) -> String { String(decoding: part(range), as: UTF8.self) }
        guard let timeRange = spans.time, let time = date(part(timeRange)) else {
            throw .badTime(file: file, line: number)
        }
        guard let kindRange = spans.kind else {
            throw .noKind(file: file, line: number)
        }
        let kindText = text(kindRange)
        guard let kind = LifecycleEvent.Kind(rawValue: kindText) else {
            throw .unknownKind(kindText, file: file, line: number)
        }
        // The header's device, told by its bytes first (a string compares by its characters).
        if let deviceRange = spans.device, !Self.hasBytes(header.device, part(deviceRange)) {
            let eventDevice = text(deviceRange)
            guard eventDevice == header.device else {
                throw .otherDevice(eventDevice, in: header, file: file, line: number)
            }
        }
        return RecordedEvent(
            time: time, timeText: .inLine(timeRange), device: header.device, kind: kind,
            continuation: spans.continuation.map { RecentStrings.string(part($0), reusing: &recent.continuation) },
            peer: spans.peer.map { RecentStrings.string(part($0), reusing: &recent.peer) },
            detail: spans.detail.map { .inLine($0) } ?? .string(""),
            explanation: spans.explanation.map { .inLine($0) } ?? .string(kind.explanation), json: json,
            pairing: spans.pairing, line: number)
    }

    /// The event of a line's fields.
    ///
    /// - Throws: ``RecordingError`` on `line`: no or a bad time, no kind, an unknown kind, another
    ///   device's event.
    static func event(
        _ fields: RecordedLineFields, json: String, line number: Int, of header: Header, file: String
    ) throws(RecordingError) -> RecordedEvent {
        guard let timeText = fields.time, let time = date(timeText) else {
            throw .badTime(file: file, line: number)
        }
        guard let kindText = fields.kind else {
            throw .noKind(file: file, line: number)
        }
        guard let kind = LifecycleEvent.Kind(rawValue: kindText) else {
            throw .unknownKind(kindText, file: file, line: number)
        }
        let eventDevice = fields.device ?? header.device
        guard eventDevice == header.device else {
            throw .otherDevice(eventDevice, in: header, file: file, line: number)
        }
        return RecordedEvent(
            time: time, timeText: .string(timeText), device: header.device, kind: kind,
            continuation: fields.continuation, peer: fields.peer, detail: .string(fields.detail ?? ""),
            explanation: .string(fields.explanation ?? kind.explanation), json: json, pairing: fields.pairing,
            line: number)
    }

    // MARK: Times

    /// An ISO 8601 time as recordings write it. The form devices write
    /// (`2026-11-24T09:30:00.250Z`, milliseconds in UTC) is read directly, as Foundation reads it
    /// (a recording of a million events spent most of its time there); any other form through
    /// Foundation.
    package static func date(_ text: String) -> Date? {
        if let milliseconds = millisecondsSince1970(text) { return date(milliseconds: milliseconds) }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// ``date(_:)`` of a time's UTF-8 (valid), without a string of it for the form devices write.
    static func date(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        if let milliseconds = millisecondsSince1970(bytes) { return date(milliseconds: milliseconds) }
        return date(String(decoding: bytes, as: UTF8.self))
    }

    /// The time `milliseconds` after 1970.
    static func date(milliseconds: Int64) -> Date {
        // As Foundation makes it: whole seconds since 2001, plus the fraction (the same `Date` to
        // the last bit, so that ties and the time column are Foundation's).
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = milliseconds - seconds * 1000
        return Date(timeIntervalSinceReferenceDate: Double(seconds - referenceDateSince1970) + Double(fraction) / 1000)
    }

    /// `YYYY-MM-DDTHH:MM:SS.sssZ`'s milliseconds since 1970, or nil for any other form or an
    /// impossible date.
    static func millisecondsSince1970(_ text: String) -> Int64? {
        guard text.utf8.count == 24 else { return nil }
        var text = text
        return text.withUTF8 { millisecondsSince1970($0) }
    }

    /// ``millisecondsSince1970(_:)`` of a time's UTF-8.
    static func millisecondsSince1970(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count == 24 else { return nil }
        func digits(_ from: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for index in from..<(from + count) {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A, bytes[16] == 0x3A,
            bytes[19] == 0x2E, bytes[23] == 0x5A,
            let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2), let hour = digits(11, 2),
            let minute = digits(14, 2), let second = digits(17, 2), let millisecond = digits(20, 3),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60,
            second < 60
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Seconds from 1970 to 2001, Foundation's reference date.
    static let referenceDateSince1970: Int64 = 978_307_200

    /// `HH:mm:ss.SSS` of `date` in UTC, as the timeline's time column shows it: the millisecond
    /// nearest to it, so that a time read from a recording shows as it was written. Foundation's
    /// ISO 8601 time cuts the binary fraction instead, and shows 06:43:08.392 read back as
    /// 06:43:08.391; it was the column's rule before, so that two events recorded in the same
    /// millisecond could show a millisecond apart.
    package static func clock(_ date: Date) -> String {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) < 1e11 else {
            return date.formatted(
                Date.ISO8601FormatStyle(includingFractionalSeconds: true).time(includingFractionalSeconds: true))
        }
        let milliseconds = Int64((interval * 1000).rounded())
        let whole = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let millisecond = Int(milliseconds - whole * 1000)
        let seconds = whole + referenceDateSince1970
        let ofDay = Int(((seconds % 86_400) + 86_400) % 86_400)
        // Written as its twelve bytes (`--print` writes a time for each of millions of events).
        return String(unsafeUninitializedCapacity: 12) { text in
            func put(_ value: Int, digits: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                    text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(ofDay / 3600, digits: 2, at: 0)
            text[2] = UInt8(ascii: ":")
            put(ofDay / 60 % 60, digits: 2, at: 3)
            text[5] = UInt8(ascii: ":")
            put(ofDay % 60, digits: 2, at: 6)
            text[8] = UInt8(ascii: ".")
            put(millisecond, digits: 3, at: 9)
            return 12
        }
    }
}

extension RecordingError {
    /// The errors of an event line, the same whichever way the line was read (its fields'
    /// places in the plain form, or its fields parsed).
    static func badTime(file: String, line: Int) -> RecordingError {
        RecordingError(
            file: file, line: line, reason: "\"time\" must be an ISO 8601 time such as 2026-11-24T09:30:00.250Z")
    }

    static func noKind(file: String, line: Int) -> RecordingError {
        RecordingError(file: file, line: line, reason: "no \"kind\"")
    }

    static func unknownKind(_ kind: String, file: String, line: Int) -> RecordingError {
        RecordingError(
            file: file, line: line, reason: "unknown event kind \"\(kind.prefix(60))\" (from a newer version?)")
    }

    static func otherDevice(
        _ device: String, in header: RecordingReader.Header, file: String, line: Int
    ) -> RecordingError {
        RecordingError(
            file: file, line: line, reason: "an event of \"\(device.prefix(60))\" in \(header.device)'s recording")
    }
}
