import Crypto
import Foundation
import HandoffCore
import Synchronization

/// Seals and opens beacons with a key derived (HKDF-SHA256, with a versioned info string) from the
/// account's 32-byte beacon key. AES-256-GCM, a fresh random 96-bit nonce per beacon, a 128-bit
/// tag; the only clear bytes are the version and the nonce. Layout: `docs/wire.md`, "Beacons".
package struct BeaconSealer: Sendable {
    /// The derived AEAD key, made once per account key (the account key itself is never used
    /// directly). It used to be kept as bytes and made into a `SymmetricKey` again for every
    /// beacon, an allocation and a copy each time.
    private let derivedKey: ImmutableCryptoValue<SymmetricKey>
    private var key: SymmetricKey { derivedKey.value }

    static let salt = Array("handoff-sim beacon salt".utf8)
    static let info = Array("handoff-sim/beacon/v1/aes-256-gcm".utf8)
    /// Authenticated with every beacon, after the version byte.
    static let context = Array("handoff-sim beacon v1".utf8)
    static let nonceLength = 12
    static let tagLength = 16
    /// Version + nonce + tag.
    static let overhead = 1 + nonceLength + tagLength
    /// Device, boot, counter, sentAt, port, kind, message type.
    static let fixedPlaintextLength = 16 + 8 + 8 + 8 + 2 + 1 + 1
    /// Type hash, team hash, options, serial, saved age, expiry.
    static let advertisementLength = 7 + 4 + 1 + 4 + 4 + 4
    /// The plaintext of every beacon this version sends (padded with zeros).
    static let plaintextLength = Beacon.maximumLength - overhead
    /// The shortest datagram that can hold a beacon (no advertisement, empty name, no padding).
    static let minimumLength = overhead + fixedPlaintextLength + 1

    package init(accountKey: SymmetricKey) {
        derivedKey = ImmutableCryptoValue(
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: accountKey, salt: Self.salt, info: Self.info,
                outputByteCount: 32))
    }

    /// Seals `beacon` into exactly ``Beacon/maximumLength`` bytes, with a fresh random nonce.
    /// `sender`, when given, is `BeaconSenderID(beacon.device.id)` worked out beforehand.
    package func seal(_ beacon: Beacon, sender: BeaconSenderID? = nil) -> [UInt8] {
        var fields: [ByteField]?
        let plaintext = Self.encode(beacon, sender: sender, annotating: &fields)
        StageMarks.mark(.beaconLaidOut)
        return seal(plaintext: plaintext)
    }

    /// Opens a datagram, reconstructing an advertisement's `savedAt` and `expiresAt` relative to
    /// the beacon's `sentAt` (the sender's clock).
    package func open(_ bytes: [UInt8]) throws(BeaconError) -> Beacon {
        var senders: BeaconSenders?
        return try open(bytes, receivedAt: nil, senders: &senders).beacon
    }

    /// Opens a datagram, reconstructing an advertisement's `savedAt` and `expiresAt` relative to
    /// `receivedAt` (the receiver's clock), so a skewed sender clock does not shift them.
    /// `sentAt` stays as sent (the ``ReplayGuard`` judges it).
    package func open(_ bytes: [UInt8], receivedAt: Date) throws(BeaconError) -> Beacon {
        var senders: BeaconSenders?
        return try open(bytes, receivedAt: receivedAt, senders: &senders).beacon
    }

    /// Opens a datagram as the receiving side does: the beacon and its sender's 16 bytes, the
    /// plaintext decoded from the opened bytes in place (no copy of them), and the sender's
    /// ``PeerInfo`` taken from `senders` when the same bytes made it before (nothing is checked
    /// less: the cache only remembers what the same bytes gave; see ``BeaconSenders``).
    func open(
        _ bytes: [UInt8], receivedAt: Date?, senders: inout BeaconSenders?
    ) throws(BeaconError) -> (beacon: Beacon, sender: BeaconSenderID) {
        let plaintext = try openPlaintextData(bytes)
        let decoded: Result<(beacon: Beacon, sender: BeaconSenderID), BeaconError> = plaintext.withUnsafeBytes {
            raw in
            Result { () throws(BeaconError) in try Self.decode(raw, receivedAt: receivedAt, senders: &senders) }
        }
        return try decoded.get()
    }

    // MARK: AEAD

    /// The version byte and the context, authenticated with every beacon of this version (made
    /// once, not per beacon).
    static let associatedData: [UInt8] = [Beacon.version] + context

    func seal(plaintext: [UInt8], version: UInt8 = Beacon.version) -> [UInt8] {
        do {
            let associatedData = version == Beacon.version ? Self.associatedData : [version] + Self.context
            let box = try AES.GCM.seal(
                plaintext, using: key, nonce: BeaconNonces.next(), authenticating: associatedData)
            guard let combined = box.combined else { fatalError("AES.GCM with a 12-byte nonce has a combined form") }
            // One allocation for the datagram: the version, then nonce, ciphertext and tag as they are.
            return [UInt8](unsafeUninitializedCapacity: 1 + combined.count) { buffer, count in
                buffer[0] = version
                count = 1 + combined.copyBytes(to: UnsafeMutableBufferPointer(rebasing: buffer[1...]))
            }
        } catch {
            fatalError("AES-GCM sealing with a valid 256-bit key failed: \(error)")
        }
    }

    func openPlaintext(_ bytes: [UInt8]) throws(BeaconError) -> [UInt8] {
        [UInt8](try openPlaintextData(bytes))
    }

    /// The checks of the clear header, then AES-GCM open (tag, version and context
    /// authenticated). The sealed box is made from the datagram's bytes directly (one copy, the
    /// one swift-crypto's box keeps), and the plaintext stays in the `Data` the library returns.
    func openPlaintextData(_ bytes: [UInt8]) throws(BeaconError) -> Data {
        guard let version = bytes.first else { throw .tooShort }
        guard bytes.count <= Beacon.maximumLength else { throw .tooLong }
        guard version == Beacon.version else { throw .unsupportedVersion(version) }
        guard bytes.count >= Self.minimumLength else { throw .tooShort }
        do {
            let box = try bytes.withUnsafeBytes { raw in
                try AES.GCM.SealedBox(combined: UnsafeRawBufferPointer(rebasing: raw[1...]))
            }
            // On Linux a failed open throws an opaque BoringSSL error, not .authenticationFailure.
            return try AES.GCM.open(box, using: key, authenticating: Self.associatedData)
        } catch {
            throw .authenticationFailed
        }
    }

    // MARK: Plaintext layout

    static func encode(_ beacon: Beacon) -> [UInt8] {
        var fields: [ByteField]?
        return encode(beacon, annotating: &fields)
    }

    /// The plaintext layout; with `fields` non-nil, also every field written (the inspector's
    /// byte view: the notes come from this encoder, not from a copy of the layout).
    static func encode(
        _ beacon: Beacon, sender: BeaconSenderID? = nil, annotating fields: inout [ByteField]?
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(plaintextLength)
        var start = 0
        func note(_ name: @autoclosure () -> String, _ value: @autoclosure () -> String) {
            guard fields != nil, start < out.count else { return }
            fields?.append(ByteField(range: start..<out.count, name: name(), value: value()))
            start = out.count
        }
        let sender = sender ?? BeaconSenderID(beacon.device.id)
        out.appendBigEndian(sender.high)
        out.appendBigEndian(sender.low)
        note("device", sender.uuid.uuidString.lowercased())
        out.appendBigEndian(beacon.bootIdentifier)
        note("bootIdentifier", "\(beacon.bootIdentifier) (\(Self.text(milliseconds: beacon.bootIdentifier)))")
        out.appendBigEndian(beacon.counter)
        note("counter", "\(beacon.counter)")
        let sentMilliseconds = milliseconds(beacon.sentAt)
        out.appendBigEndian(sentMilliseconds)
        note("sentAt", "\(sentMilliseconds) (\(Self.text(milliseconds: sentMilliseconds)))")
        out.appendBigEndian(beacon.sessionPort)
        note("sessionPort", "\(beacon.sessionPort)")
        out.append(kindCode(beacon.device.kind))
        note("kind", beacon.device.kind.rawValue)
        switch beacon.message {
        case .presence:
            out.append(0)
            note("message", "presence")
        case .advertisement(let advertisement):
            out.append(1)
            note("message", "advertisement")
            out.append(advertisement.activityTypeHash.bytes, fixedLength: 7)
            note("activityTypeHash", advertisement.activityTypeHash.bytes.map { String(format: "%02x", $0) }.joined())
            out.append(advertisement.teamHash.bytes, fixedLength: 4)
            note("teamHash", advertisement.teamHash.bytes.map { String(format: "%02x", $0) }.joined())
            out.append(advertisement.options.rawValue)
            note("options", Self.optionNames(advertisement.options))
            out.appendBigEndian(advertisement.activitySerial)
            note("activitySerial", "\(advertisement.activitySerial)")
            let saved = milliseconds(advertisement.savedAt)
            let age = sentMilliseconds > saved ? sentMilliseconds - saved : 0
            out.appendBigEndian(UInt32(clamping: age))
            note("savedAge", "\(UInt32(clamping: age)) ms")
            if let expiresAt = advertisement.expiresAt {
                // Whole seconds, rounded up: the origin has the last word on expiry when asked.
                // In whole milliseconds, so that a beacon decoded and encoded again says the same
                // (seconds as a double difference could round up one second too many).
                let expires = milliseconds(expiresAt)
                let seconds = expires > sentMilliseconds ? (expires - sentMilliseconds + 999) / 1000 : 0
                out.appendBigEndian(UInt32(min(seconds, UInt64(UInt32.max - 1))))
                note("expiresIn", "\(min(seconds, UInt64(UInt32.max - 1))) s")
            } else {
                out.appendBigEndian(UInt32.max)
                note("expiresIn", "none (ffffffff)")
            }
        case .goodbye:
            out.append(2)
            note("message", "goodbye")
        case .leaving:
            out.append(3)
            note("message", "leaving")
        }
        // The name's bytes are copied from the string straight into the plaintext.
        let name = Beacon.truncatedName(beacon.device.name)
        let nameLength = name.utf8.count
        out.append(UInt8(nameLength))
        note("name length", "\(nameLength) bytes")
        out.append(contentsOf: name.utf8)
        note("name", name.debugDescription)
        out.append(contentsOf: repeatElement(0, count: max(0, plaintextLength - out.count)))
        note("padding", "\(out.count - start) zero bytes")
        return out
    }

    static func optionNames(_ options: Advertisement.Options) -> String {
        let names = [
            (Advertisement.Options.hasWebpageURL, "webpageURL"), (.supportsContinuationStreams, "streams"),
            (.isEligibleForHandoff, "eligible"), (.isDocument, "document"),
            (.isBrowsingWeb, "browsing web: the hash is the page's host"),
        ]
        .filter { options.contains($0.0) }.map(\.1)
        let text = String(format: "0x%02x", options.rawValue)
        return names.isEmpty ? text : text + ": " + names.joined(separator: ", ")
    }

    static func text(milliseconds: UInt64) -> String {
        date(milliseconds: min(milliseconds, maximumMilliseconds)).formatted(
            Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    // MARK: Inspection

    /// A datagram opened again for the inspector: the datagram's clear fields (version, nonce,
    /// ciphertext, tag) and the decrypted plaintext's fields, both from the encoders
    /// (`docs/wire.md`, "Beacons").
    ///
    /// - Throws: ``BeaconError`` when the datagram is not a beacon of this account.
    package func inspect(_ datagram: [UInt8]) throws(BeaconError) -> BeaconBytes {
        let plaintext = try openPlaintext(datagram)
        let beacon = try Self.decode(plaintext, receivedAt: nil)
        var fields: [ByteField]? = []
        let encoded = Self.encode(beacon, annotating: &fields)
        let clear = [
            ByteField(range: 0..<1, name: "version", value: "\(datagram[0]) (in clear, authenticated)"),
            ByteField(range: 1..<1 + Self.nonceLength, name: "nonce", value: "96 random bits, in clear"),
            ByteField(
                range: 1 + Self.nonceLength..<datagram.count - Self.tagLength, name: "ciphertext",
                value: "\(datagram.count - Self.overhead) bytes: the plaintext below, AES-256-GCM"),
            ByteField(range: datagram.count - Self.tagLength..<datagram.count, name: "tag", value: "128-bit GCM tag"),
        ]
        return BeaconBytes(
            datagram: AnnotatedBytes(bytes: datagram, fields: clear),
            plaintext: encoded == plaintext
                ? AnnotatedBytes(bytes: plaintext, fields: fields ?? [])
                : AnnotatedBytes(bytes: plaintext, fields: []),
            sender: beacon.device, apple: AppleHandoffAdvertisement.inspectorBytes(for: beacon))
    }

    static func decode(_ plaintext: [UInt8], receivedAt: Date?) throws(BeaconError) -> Beacon {
        var senders: BeaconSenders?
        let decoded: Result<(beacon: Beacon, sender: BeaconSenderID), BeaconError> = plaintext.withUnsafeBytes {
            raw in
            Result { () throws(BeaconError) in try decode(raw, receivedAt: receivedAt, senders: &senders) }
        }
        return try decoded.get().beacon
    }

    /// Decodes a plaintext in place. With `senders`, a sender whose 16 bytes, kind and name bytes
    /// are those a sender decoded before had is given the same ``PeerInfo`` (the same strings:
    /// no new ID text, no name checked again, and equal IDs compare at once); anything else is
    /// decoded and checked in full, and remembered.
    static func decode(
        _ plaintext: UnsafeRawBufferPointer, receivedAt: Date?, senders: inout BeaconSenders?
    ) throws(BeaconError) -> (beacon: Beacon, sender: BeaconSenderID) {
        var reader = BeaconByteReader(plaintext)
        guard let uuidBytes = reader.slice(16), let boot = reader.uint64(), let counter = reader.uint64(),
            let sentMilliseconds = reader.uint64(), let port = reader.uint16(), let kindByte = reader.byte(),
            let type = reader.byte()
        else { throw .malformed("truncated header") }
        let sender = BeaconSenderID(uuidBytes)
        let known = senders?.peer(sender)
        let id = known?.id ?? DeviceID(uuidText(uuidBytes))
        guard let kind = kind(kindByte) else { throw .malformed("unknown device kind \(kindByte)") }
        guard sentMilliseconds <= maximumMilliseconds else { throw .malformed("sentAt out of range") }
        let sentAt = date(milliseconds: sentMilliseconds)
        let message: Beacon.Message
        switch type {
        case 0: message = .presence
        case 1:
            guard let typeHash = reader.bytes(7), let teamHash = reader.bytes(4), let options = reader.byte(),
                let serial = reader.uint32(), let age = reader.uint32(), let expiry = reader.uint32()
            else { throw .malformed("truncated advertisement") }
            let savedAt: Date
            let expiresAt: Date?
            if let receivedAt {
                savedAt = receivedAt.addingTimeInterval(-Double(age) / 1000)
                expiresAt = expiry == UInt32.max ? nil : receivedAt.addingTimeInterval(Double(expiry))
            } else {
                savedAt = date(milliseconds: sentMilliseconds - min(UInt64(age), sentMilliseconds))
                expiresAt = expiry == UInt32.max ? nil : date(milliseconds: sentMilliseconds + UInt64(expiry) * 1000)
            }
            message = .advertisement(
                Advertisement(
                    device: id, activityTypeHash: ActivityTypeHash(bytes: typeHash),
                    teamHash: TeamHash(bytes: teamHash),
                    options: Advertisement.Options(rawValue: options), activitySerial: serial, savedAt: savedAt,
                    expiresAt: expiresAt))
        case 2: message = .goodbye
        case 3: message = .leaving
        default: throw .malformed("unknown message type \(type)")
        }
        guard let nameLength = reader.byte() else { throw .malformed("missing name length") }
        guard let nameBytes = reader.slice(Int(nameLength)) else { throw .malformed("name longer than the beacon") }
        let device: PeerInfo
        var remember = false
        if let known, known.kind == kind, Self.name(known.name, is: nameBytes) {
            // The bytes a name was decoded from before (a remembered name is its bytes as they
            // came): the same name, checked then.
            device = known
        } else if nameBytes.allSatisfy({ (0x20...0x7E).contains($0) }) {
            // Printable ASCII (most names): valid UTF-8, no control or invisible character, so
            // nothing to check or escape.
            device = PeerInfo(id: id, name: String(decoding: nameBytes, as: UTF8.self), kind: kind)
            remember = true
        } else {
            let decoded = String(decoding: nameBytes, as: UTF8.self)
            guard decoded.utf8.elementsEqual(nameBytes) else { throw .malformed("name is not valid UTF-8") }
            if let problem = TerminalText.problem(withName: decoded) { throw .malformed("name \(problem)") }
            // An invisible character stays, shown as its code point, so a look-alike name can be told apart.
            let name = TerminalText.sanitized(decoded)
            device = PeerInfo(id: id, name: name, kind: kind)
            // Remembered only when the name is its bytes: a sanitized name is not what came.
            remember = name.utf8.elementsEqual(nameBytes)
        }
        guard reader.remainingAreZero else { throw .malformed("nonzero padding") }
        if remember { senders?.remember(device, as: sender) }
        return (
            Beacon(
                device: device, bootIdentifier: boot, counter: counter, sentAt: sentAt, sessionPort: port,
                message: message),
            sender
        )
    }

    // MARK: Helpers

    /// 16 bytes as a lower-case UUID string (8-4-4-4-12 hex digits), as
    /// `UUID(uuid:).uuidString.lowercased()` writes it, without Foundation's formatting and a
    /// second string for the case.
    static func uuidText<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            for (position, byte) in bytes.enumerated() {
                if position == 4 || position == 6 || position == 8 || position == 10 {
                    buffer[index] = UInt8(ascii: "-")
                    index += 1
                }
                buffer[index] = digits.utf8Start[Int(byte >> 4)]
                buffer[index + 1] = digits.utf8Start[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    /// Whether `name`'s UTF-8 is exactly `bytes` (one `memcmp`, not an iteration of the view).
    static func name(_ name: String, is bytes: UnsafeRawBufferPointer) -> Bool {
        guard name.utf8.count == bytes.count else { return false }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        return name.utf8.withContiguousStorageIfAvailable { stored in
            memcmp(stored.baseAddress!, base, bytes.count) == 0
        } ?? name.utf8.elementsEqual(bytes)
    }

    /// Year 9999 in milliseconds: anything later is not a date a sender can mean.
    static let maximumMilliseconds: UInt64 = 253_402_300_799_999

    static func milliseconds(_ date: Date) -> UInt64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite, value > 0 else { return 0 }
        return UInt64(min(value, Double(maximumMilliseconds)))
    }

    static func date(milliseconds: UInt64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    static func kindCode(_ kind: PeerInfo.Kind) -> UInt8 {
        switch kind {
        case .phone: 0
        case .tablet: 1
        case .laptop: 2
        }
    }

    static func kind(_ code: UInt8) -> PeerInfo.Kind? {
        switch code {
        case 0: .phone
        case 1: .tablet
        case 2: .laptop
        default: nil
        }
    }
}

extension [UInt8] {
    fileprivate mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    /// Appends exactly `count` bytes: the first `count` of `bytes`, zeros after them if it has
    /// fewer (a hash field of the layout, written in place: no array made for it).
    fileprivate mutating func append(_ bytes: [UInt8], fixedLength count: Int) {
        append(contentsOf: bytes.prefix(count))
        if bytes.count < count { append(contentsOf: repeatElement(0, count: count - bytes.count)) }
    }
}

/// Bounds-checked reads from a plaintext: every read returns nil rather than trapping. Integers
/// and single bytes are read in place (no array per field: a device hears every other device's
/// beacons, so opening one is on discovery's path N² times). Valid while the bytes it reads are.
struct BeaconByteReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func bytes(_ count: Int) -> [UInt8]? {
        slice(count).map { Array($0) }
    }

    /// The next `count` bytes in place (valid while the reader's bytes are), or nil past the end.
    mutating func slice(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func integer<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard bytes.count - offset >= size else { return nil }
        let value = T(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        offset += size
        return value
    }

    mutating func uint16() -> UInt16? { integer(UInt16.self) }
    mutating func uint32() -> UInt32? { integer(UInt32.self) }
    mutating func uint64() -> UInt64? { integer(UInt64.self) }

    /// Whether every byte after the last read is zero (the padding), eight at a time.
    var remainingAreZero: Bool {
        var index = offset
        while bytes.count - index >= 8 {
            if bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) != 0 { return false }
            index += 8
        }
        while index < bytes.count {
            if bytes[index] != 0 { return false }
            index += 1
        }
        return true
    }
}

/// The beacons' AES-GCM nonces: 12 random bytes each, from a pool of the kernel's bytes
/// (``RandomBytePool``, as identifiers are).
///
/// A nonce must never repeat under one key, and is no secret (it travels in clear, in every
/// beacon): bytes the kernel gave ahead of time are as good as bytes asked for now. swift-crypto's
/// `AES.GCM.Nonce()` asked for them eight at a time, two `getrandom` system calls on every beacon's
/// path. The program never forks without `exec`, so no two processes share the pool.
enum BeaconNonces {
    private static let pool = Mutex(RandomBytePool())

    /// A fresh nonce, made straight from the pool's bytes (no array in between: this is on every
    /// beacon's path).
    static func next() -> AES.GCM.Nonce {
        // 12 bytes always make a nonce (AES.GCM accepts 12 bytes or more).
        let nonce = pool.withLock { pool in pool.take(BeaconSealer.nonceLength) { try? AES.GCM.Nonce(data: $0) } }
        guard let nonce else { fatalError("a 12-byte AES-GCM nonce was refused") }
        return nonce
    }
}
