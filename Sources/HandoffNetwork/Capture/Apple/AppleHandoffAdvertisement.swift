import Crypto
import Foundation
import HandoffCore

/// Apple's Handoff advertisement: BLE manufacturer data of Apple (company ID `0x004c`), the
/// Continuity TLV of type `0x0c`, 14 bytes: a clear flags byte (the GCM's associated data), a
/// little-endian 16-bit counter (the GCM IV, as sent), the first byte of the GCM tag, and 10
/// bytes of AES-256-GCM ciphertext. The plaintext: a byte of unknown meaning, the 7-byte
/// activity-type hash (``ActivityTypeHash``), the option bits and a time byte. What each public
/// source says, and where they disagree: docs/wire.md, "Apple's advertisement".
///
/// This is a model of Apple's bytes for comparison (`handoff wire apple`, the inspector's beacon
/// tab); the simulator's own beacons are a different, stronger format (docs/wire.md, "Beacons").
package struct AppleHandoffAdvertisement: Sendable, Hashable {
    /// The option bits of plaintext byte 8 (sharingd's `SharingBTLEAdvertisementPayload`).
    package struct Options: OptionSet, Sendable, Hashable {
        package var rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }

        package static let hasWebpageURL = Options(rawValue: 0x01)
        package static let fileProviderURL = Options(rawValue: 0x02)
        package static let cloudDocs = Options(rawValue: 0x04)
        package static let pasteboardAvailable = Options(rawValue: 0x08)
        package static let pasteboardVersionBit = Options(rawValue: 0x10)
        package static let autoPullActivitiesList = Options(rawValue: 0x20)
        package static let hasMoreActivities = Options(rawValue: 0x40)
        package static let itemIsNotActive = Options(rawValue: 0x80)

        static let names: [(Options, String)] = [
            (.hasWebpageURL, "webpageURL"), (.fileProviderURL, "file-provider URL"), (.cloudDocs, "iCloud Docs"),
            (.pasteboardAvailable, "pasteboard available"), (.pasteboardVersionBit, "pasteboard version bit"),
            (.autoPullActivitiesList, "auto-pull activities list"), (.hasMoreActivities, "more activities"),
            (.itemIsNotActive, "item not active"),
        ]

        package var text: String {
            let set = Self.names.filter { contains($0.0) }.map(\.1)
            let hex = String(format: "0x%02x", rawValue)
            return set.isEmpty ? hex + ": none" : hex + ": " + set.joined(separator: ", ")
        }
    }

    /// Apple's Bluetooth company identifier, little-endian on the air.
    package static let companyID: [UInt8] = [0x4C, 0x00]
    /// The Continuity TLV type of Handoff, and its value's length.
    package static let handoffType: UInt8 = 0x0C
    package static let valueLength = 14
    /// The clear flags byte's bit for "copy/cut performed" (Universal Clipboard).
    package static let clipboardFlag: UInt8 = 0x08
    /// The most bytes of a legacy BLE advertisement's data (Core Specification, Vol 3, Part C, 11).
    package static let maximumLength = 31
    /// Seconds in the time byte's epoch, and per tick of its offset (sharingd).
    package static let epochSeconds = 496
    package static let tickSeconds = 4

    /// The key the inspector and the docs use for Apple's side: bytes `00 01 … 1f`. It is no
    /// secret: it only shows what an Apple device would send with some key.
    package static let demoKey: [UInt8] = Array(0..<32)

    /// Byte 0, in clear and authenticated: `0x08` when copy/cut was performed, else `0x00`.
    package var flags: UInt8
    /// The counter: the GCM IV, little-endian on the air.
    package var counter: UInt16
    /// Plaintext byte 0: a boolean option of sharingd whose meaning is not known.
    package var status: UInt8
    /// Plaintext bytes 1–7: the activity-type hash.
    package var activityHash: [UInt8]
    package var options: Options
    /// Plaintext byte 9: bit 7 "is current", bits 0–6 the 4-second tick of the 496-second epoch
    /// in which the activity was saved (sharingd writes `0xff` past tick 124, which a time
    /// inside the epoch never reaches).
    package var timeOffset: UInt8

    package init(
        flags: UInt8 = 0, counter: UInt16, status: UInt8 = 0, activityHash: [UInt8], options: Options = [],
        timeOffset: UInt8
    ) {
        self.flags = flags
        self.counter = counter
        self.status = status
        self.activityHash = Array(activityHash.prefix(7)) + [UInt8](repeating: 0, count: max(0, 7 - activityHash.count))
        self.options = options
        self.timeOffset = timeOffset
    }

    /// The time byte for an activity saved at `when`: its tick in the 496-second epoch that holds
    /// it, with bit 7 when it is current. Which clock the epochs count from is not published;
    /// this counts from Apple's reference date (2001-01-01 UTC), as `NSDate` does.
    package static func timeOffset(savedAt when: Date, isCurrent: Bool) -> UInt8 {
        let seconds = when.timeIntervalSinceReferenceDate
        guard seconds.isFinite else { return 0xFF }
        let intoEpoch = seconds - (seconds / Double(epochSeconds)).rounded(.down) * Double(epochSeconds)
        let ticks = max(0, intoEpoch.rounded(.towardZero) / Double(tickSeconds)).rounded(.towardZero)
        guard ticks <= 124 else { return 0xFF }
        return isCurrent ? UInt8(ticks) | 0x80 : UInt8(ticks)
    }

    /// The 10 plaintext bytes.
    package var plaintext: [UInt8] {
        [status] + activityHash + [options.rawValue, timeOffset]
    }

    /// The GCM IV: the counter's two bytes as they are sent (little-endian).
    package var iv: [UInt8] { [UInt8(counter & 0xFF), UInt8(counter >> 8)] }

    /// The TLV's 14-byte value, sealed with `key` (32 bytes).
    package func sealedValue(key: [UInt8]) throws(AppleAdvertisementError) -> [UInt8] {
        let symmetric = try Self.symmetricKey(key)
        let sealed: (ciphertext: [UInt8], tag: [UInt8])
        do {
            sealed = try ShortNonceGCM.seal(plaintext, key: symmetric, iv: iv, authenticating: [flags])
        } catch {
            throw AppleAdvertisementError(offset: 0, message: error.description)
        }
        return [flags] + iv + [sealed.tag[0]] + sealed.ciphertext
    }

    /// Apple's manufacturer data as a scanner reports it: `4c 00`, then the Handoff TLV.
    package func manufacturerData(key: [UInt8]) throws(AppleAdvertisementError) -> [UInt8] {
        Self.companyID + [Self.handoffType, UInt8(Self.valueLength)] + (try sealedValue(key: key))
    }

    static func symmetricKey(_ key: [UInt8]) throws(AppleAdvertisementError) -> SymmetricKey {
        guard key.count == 32 else {
            throw AppleAdvertisementError(
                offset: 0, message: "the key is \(key.count) bytes; Apple's Handoff key is 32 (AES-256)")
        }
        return SymmetricKey(data: key)
    }
}

/// An advertisement that could not be read or opened: what was wrong and at which byte of the
/// input (or, for hex text, at which character).
package struct AppleAdvertisementError: Error, Sendable, Hashable, CustomStringConvertible {
    package var offset: Int
    package var message: String
    /// True when the bytes are well formed but the tag does not match (a wrong key, or a change).
    package var isTagMismatch = false

    package var description: String { "bad advertisement at offset \(offset): \(message)" }
}

// MARK: - Reading

extension AppleHandoffAdvertisement {
    /// An advertisement read and opened: the fields and where they were in the input.
    package struct Opened: Sendable, Hashable {
        package var advertisement: AppleHandoffAdvertisement
        /// The input, with a field for each of its bytes.
        package var input: AnnotatedBytes
        /// The decrypted plaintext, with its fields.
        package var plaintext: AnnotatedBytes
    }

    /// Reads `hex` (pairs of hex digits; spaces, colons, dashes and a leading `0x` are allowed).
    package static func bytes(hex: String) throws(AppleAdvertisementError) -> [UInt8] {
        var bytes: [UInt8] = []
        var high: UInt8?
        var characters = Array(hex.unicodeScalars)
        var start = 0
        if characters.count >= 2, characters[0] == "0", characters[1] == "x" || characters[1] == "X" {
            start = 2
        }
        characters = Array(characters[start...])
        for (index, character) in characters.enumerated() {
            if character == " " || character == ":" || character == "-" || character == "\t" || character == "\n" {
                guard high == nil else {
                    throw AppleAdvertisementError(
                        offset: start + index, message: "a separator splits a byte's two hex digits")
                }
                continue
            }
            guard let digit = UInt8(String(character), radix: 16) else {
                throw AppleAdvertisementError(
                    offset: start + index,
                    message: "\(String(character).debugDescription) is not a hex digit")
            }
            if let first = high {
                bytes.append(first << 4 | digit)
                high = nil
            } else {
                high = digit
            }
        }
        guard high == nil else {
            throw AppleAdvertisementError(
                offset: start + characters.count, message: "an odd number of hex digits: the last byte is half")
        }
        return bytes
    }

    /// Where the Handoff TLV's value is in `bytes`, and the fields of everything before and around
    /// it. `bytes` is a whole AD structure (`len ff 4c 00 …`), manufacturer data (`4c 00 …`) or
    /// Continuity TLVs (`0c 0e …`).
    static func locate(_ bytes: [UInt8]) throws(AppleAdvertisementError) -> (value: Int, fields: [ByteField]) {
        guard !bytes.isEmpty else { throw AppleAdvertisementError(offset: 0, message: "no bytes") }
        guard bytes.count <= maximumLength else {
            throw AppleAdvertisementError(
                offset: maximumLength,
                message: "\(bytes.count) bytes: longer than the \(maximumLength) a BLE advertisement's data holds")
        }
        var fields: [ByteField] = []
        var offset = 0
        var end = bytes.count
        if bytes[0] == 0x4C {
            guard bytes.count >= 2 else { throw truncated("Apple's company ID", at: 0, in: bytes) }
            guard bytes[1] == 0x00 else {
                throw AppleAdvertisementError(
                    offset: 1, message: String(format: "company ID 0x%02x4c is not Apple's 0x004c", bytes[1]))
            }
            fields.append(ByteField(range: 0..<2, name: "company ID", value: "0x004c: Apple (little-endian)"))
            offset = 2
        } else if bytes.count >= 2, bytes[1] == 0xFF {
            let length = Int(bytes[0])
            guard length >= 1, length <= bytes.count - 1 else {
                throw AppleAdvertisementError(
                    offset: 0, message: "the AD structure says \(length) bytes follow; \(bytes.count - 1) do")
            }
            end = 1 + length
            guard end >= 4 else { throw truncated("Apple's company ID", at: 2, in: Array(bytes[..<end])) }
            guard bytes[2] == 0x4C, bytes[3] == 0x00 else {
                throw AppleAdvertisementError(
                    offset: 2,
                    message: String(format: "company ID 0x%02x%02x is not Apple's 0x004c", bytes[3], bytes[2]))
            }
            fields.append(ByteField(range: 0..<1, name: "AD length", value: "\(length) bytes follow"))
            fields.append(ByteField(range: 1..<2, name: "AD type", value: "0xff: manufacturer specific data"))
            fields.append(ByteField(range: 2..<4, name: "company ID", value: "0x004c: Apple (little-endian)"))
            offset = 4
        } else if bytes[0] != handoffType {
            throw AppleAdvertisementError(
                offset: 0,
                message: String(
                    format:
                        "starts with 0x%02x: not Apple manufacturer data (4c 00 …), an AD structure (… ff 4c 00 …) or a Handoff TLV (0c 0e …)",
                    bytes[0]))
        }
        var found: Int?
        while offset < end {
            guard end - offset >= 2 else {
                throw truncated("a Continuity TLV's type and length", at: offset, in: bytes)
            }
            let type = bytes[offset]
            let length = Int(bytes[offset + 1])
            guard length <= end - offset - 2 else {
                throw AppleAdvertisementError(
                    offset: offset + 1,
                    message:
                        "the TLV of type \(String(format: "0x%02x", type)) says \(length) bytes; \(end - offset - 2) are left"
                )
            }
            if type == handoffType {
                guard length == valueLength else {
                    throw AppleAdvertisementError(
                        offset: offset + 1, message: "the Handoff TLV is \(length) bytes; Apple's is \(valueLength)")
                }
                guard found == nil else {
                    throw AppleAdvertisementError(offset: offset, message: "a second Handoff TLV")
                }
                fields.append(ByteField(range: offset..<offset + 1, name: "type", value: "0x0c: Handoff"))
                fields.append(ByteField(range: offset + 1..<offset + 2, name: "length", value: "14 bytes"))
                found = offset + 2
            } else {
                let name = continuityTypeNames[type].map { " (\($0))" } ?? ""
                fields.append(
                    ByteField(
                        range: offset..<offset + 2 + length, name: String(format: "TLV 0x%02x", type),
                        value: "\(length) bytes of another Continuity message\(name), not read"))
            }
            offset += 2 + length
        }
        guard let found else {
            throw AppleAdvertisementError(offset: end, message: "no Handoff TLV (type 0x0c) in the advertisement")
        }
        if end < bytes.count {
            fields.append(
                ByteField(
                    range: end..<bytes.count, name: "other AD structures", value: "\(bytes.count - end) bytes, not read"
                ))
        }
        return (found, fields)
    }

    static let continuityTypeNames: [UInt8: String] = [
        0x05: "AirDrop", 0x07: "Proximity Pairing", 0x08: "Hey Siri", 0x09: "AirPlay Target", 0x0A: "AirPlay Source",
        0x0B: "Magic Switch", 0x0D: "Tethering Target", 0x0E: "Tethering Source", 0x0F: "Nearby Action",
        0x10: "Nearby Info", 0x12: "Find My",
    ]

    static func truncated(_ what: String, at offset: Int, in bytes: [UInt8]) -> AppleAdvertisementError {
        AppleAdvertisementError(
            offset: offset, message: "truncated: \(what) needs more than the \(max(0, bytes.count - offset)) bytes left"
        )
    }

    /// Reads and opens `bytes` with `key` (32 bytes).
    ///
    /// - Throws: ``AppleAdvertisementError`` naming the offset: malformed, truncated or oversized
    ///   input, or a tag that does not match (``AppleAdvertisementError/isTagMismatch``).
    package static func open(_ bytes: [UInt8], key: [UInt8]) throws(AppleAdvertisementError) -> Opened {
        let symmetric = try symmetricKey(key)
        let (start, before) = try locate(bytes)
        let value = Array(bytes[start..<start + valueLength])
        let flags = value[0]
        let iv = [value[1], value[2]]
        let counter = UInt16(value[1]) | UInt16(value[2]) << 8
        let sentTag = value[3]
        let ciphertext = Array(value[4...])
        let plaintext: [UInt8]
        do {
            let tag = try ShortNonceGCM.tag(of: ciphertext, key: symmetric, iv: iv, authenticating: [flags])
            guard tag[0] == sentTag else {
                throw AppleAdvertisementError(
                    offset: start + 3,
                    message: String(
                        format:
                            "the tag does not match: the advertisement says 0x%02x, the key gives 0x%02x (a wrong key, or a changed byte)",
                        sentTag, tag[0]),
                    isTagMismatch: true)
            }
            plaintext = try ShortNonceGCM.decrypt(ciphertext, key: symmetric, iv: iv)
        } catch let error as AppleAdvertisementError {
            throw error
        } catch {
            throw AppleAdvertisementError(offset: start, message: "\(error)")
        }
        let advertisement = AppleHandoffAdvertisement(
            flags: flags, counter: counter, status: plaintext[0], activityHash: Array(plaintext[1..<8]),
            options: Options(rawValue: plaintext[8]), timeOffset: plaintext[9])
        var fields = before
        fields.append(contentsOf: advertisement.valueFields(at: start, tag: sentTag))
        fields.sort { $0.range.lowerBound < $1.range.lowerBound }
        return Opened(
            advertisement: advertisement, input: AnnotatedBytes(bytes: bytes, fields: fields),
            plaintext: AnnotatedBytes(bytes: plaintext, fields: advertisement.plaintextFields()))
    }
}

// MARK: - Fields

extension AppleHandoffAdvertisement {
    /// The fields of the TLV's value, which starts at `start`.
    package func valueFields(at start: Int, tag: UInt8) -> [ByteField] {
        [
            ByteField(range: start..<start + 1, name: "flags", value: flagsText + " (clear; AAD)"),
            ByteField(
                range: start + 1..<start + 3, name: "counter",
                value: "\(counter), little-endian: the GCM IV"),
            ByteField(
                range: start + 3..<start + 4, name: "tag",
                value: String(format: "0x%02x: GCM tag's first byte", tag)),
            ByteField(
                range: start + 4..<start + 14, name: "ciphertext",
                value: "the plaintext below"),
        ]
    }

    var flagsText: String {
        let text = String(format: "0x%02x", flags)
        if flags == 0 { return text + ": no copy/cut" }
        if flags == Self.clipboardFlag { return text + ": copy/cut performed" }
        return text + ": unknown bits"
    }

    /// The plaintext's fields.
    package func plaintextFields() -> [ByteField] {
        [
            ByteField(range: 0..<1, name: "status", value: String(format: "0x%02x (meaning not known)", status)),
            ByteField(range: 1..<8, name: "activity type hash", value: Self.hashText(activityHash)),
            ByteField(range: 8..<9, name: "options", value: options.text),
            ByteField(range: 9..<10, name: "time", value: timeText),
        ]
    }

    var timeText: String {
        let current = timeOffset & 0x80 != 0 ? "current" : "not current"
        let tick = timeOffset & 0x7F
        let hex = String(format: "0x%02x: ", timeOffset)
        if tick > 124 { return hex + current + ", past 4-s tick 124" }
        return hex + current + ", 4-s tick \(tick) of 124"
    }

    /// The hash in hex, with the activity type when it is one known here.
    package static func hashText(_ hash: [UInt8]) -> String {
        let hex = hash.map { String(format: "%02x", $0) }.joined()
        guard let name = knownHashes[hash] else { return hex }
        return hex + " = " + name
    }

    /// Activity types whose hashes Apple's devices were seen to send (Handoff-BLE-Viewer; the
    /// rule reproduces them, docs/wire.md), and the fixed bytes of two special advertisements.
    package static let knownActivityTypes = [
        "com.apple.notes.activity.edit-note", "com.apple.mail.mailbox", "com.apple.mail.message",
        "com.apple.mail.compose", "com.apple.calendar.continuity.date_selection",
        "com.apple.calendar.continuity.event_selection", "com.apple.Messages", "com.apple.continuitypasteboard",
    ]

    static let knownHashes: [[UInt8]: String] = {
        var table: [[UInt8]: String] = [:]
        for type in knownActivityTypes { table[ActivityTypeHash(activityType: type).bytes] = type }
        table[[0, 0, 0] + Array("PING".utf8)] = "\\0\\0\\0PING (sharingd's fixed bytes)"
        table[[0, 0, 0] + Array("PONG".utf8)] = "\\0\\0\\0PONG (sharingd's fixed bytes)"
        return table
    }()
}
