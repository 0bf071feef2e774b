import ArgumentParser
import Foundation
import HandoffCore
import HandoffNetwork

/// `handoff wire`: looking at what the devices put on the network (docs/wire.md, "Looking at the wire").
struct WireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wire",
        abstract: "Look at captures of the devices' traffic.",
        discussion: """
            Record a demo with dumpcap on loopback (docs/wire.md, "Looking at the wire"), then \
            `handoff wire decode CAPTURE --account NAME` opens its beacons with the account's key; \
            with `--key-log FILE` (the devices' SSLKEYLOGFILE) tshark decrypts the sessions' TLS and \
            the command reads their frames. In Wireshark, tools/wireshark/handoff.lua names the fields. \
            `handoff wire apple` reads and builds Apple's own Handoff BLE advertisement, for comparison.
            """,
        subcommands: [Decode.self, Apple.self]
    )
}

extension WireCommand {
    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a capture (pcapng or pcap) packet by packet, with the account's beacons opened.",
            discussion: """
                Each beacon sent to the discovery port is opened with the account's beacon key and \
                annotated field by field, as the device inspector shows it (F10). Session packets are \
                listed with the TLS records they start with. With --key-log (the SSLKEYLOGFILE the \
                devices wrote), tshark decrypts the sessions' TLS (NIOSSL does not expose record \
                decryption, and the project writes no cryptography of its own) and every session \
                frame is read with the devices' own decoder and printed field by field, connection \
                by connection after the packets.
                """)

        @Argument(help: ArgumentHelp("The capture file (pcapng or classic pcap).", valueName: "capture"))
        var capture: String

        @Option(help: "The account whose beacon key opens the beacons (without it they are shown sealed).")
        var account: String?

        @Option(
            help: ArgumentHelp(
                "The TLS key log the devices wrote (SSLKEYLOGFILE): tshark decrypts the sessions with it.",
                valueName: "file"))
        var keyLog: String?

        @Option(
            help: ArgumentHelp(
                "With --key-log: the tshark to run (by default tshark on the PATH, or /usr/bin/tshark).",
                valueName: "path"))
        var tshark: String?

        @Option(help: "The discovery port the beacons were sent to.")
        var port = NetworkOptions.defaultDiscoveryPort

        @OptionGroup var options: AccountStoreOptions

        func validate() throws {
            guard (1...65_535).contains(port) else {
                throw ValidationError("--port must be between 1 and 65535, not \(port).")
            }
            guard tshark == nil || keyLog != nil else {
                throw ValidationError("--tshark goes with --key-log.")
            }
        }

        func run() throws {
            if let keyLog, !FileManager.default.isReadableFile(atPath: keyLog) {
                throw AccountCommandFailure(description: "--key-log: cannot read \(keyLog)")
            }
            let bytes: [UInt8]
            do {
                bytes = Array(try Data(contentsOf: URL(fileURLWithPath: capture)))
            } catch {
                throw AccountCommandFailure(description: "cannot read \(capture): \(error.localizedDescription)")
            }
            let packets: [CapturedPacket]
            do {
                packets = try PacketCapture.packets(in: bytes)
            } catch {
                throw AccountCommandFailure(description: "\(capture): \(error)")
            }
            let sealer = try account.map { name in
                BeaconSealer(accountKey: try options.store.account(named: name).beaconKey)
            }
            let transcript = WireTranscript(sealer: sealer, discoveryPort: port)
            let (lines, counts) = transcript.lines(for: packets)
            for line in lines { print(line) }
            guard let keyLog else {
                if counts.sessionSegments > 0 { print(WireTranscript.keyLogHint) }
                return
            }
            let sessions = WireSessions(
                capture: capture, keyLog: keyLog, captureBytes: bytes.count, listeners: counts.listeners,
                tsharkPath: tshark)
            print("")
            for line in sessions.lines() { print(line) }
        }
    }
}

extension WireCommand {
    struct Apple: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode Apple's Handoff BLE advertisement with a key, or build one (--encode).",
            discussion: """
                Apple's Handoff advertisement is BLE manufacturer data of Apple (4c 00) holding the \
                Continuity TLV 0x0c: a clear flags byte, a 16-bit counter that is the AES-256-GCM IV, \
                one byte of the GCM tag and 10 encrypted bytes (a status byte, the 7-byte \
                activity-type hash, option bits and a time byte). ADVERTISEMENT is hex: the AD \
                structure (1e ff 4c 00 …), the manufacturer data (4c 00 0c 0e …) or the TLV \
                (0c 0e …). A wrong key or any changed byte makes the tag not match. `--key demo` is \
                the key the inspector uses (00 01 … 1f). Sources and layout: docs/wire.md, \
                "Apple's advertisement".
                """)

        @Argument(help: ArgumentHelp("The advertisement in hex (not with --encode).", valueName: "advertisement"))
        var advertisement: String?

        @Option(help: "The 32-byte AES key in hex (64 digits), or `demo`.")
        var key: String

        @Flag(help: "Build an advertisement instead, and print it in hex as manufacturer data.")
        var encode = false

        @Option(help: "With --encode: the activity type whose hash it carries.")
        var activityType: String?

        @Option(help: "With --encode: the page's URL (for NSUserActivityTypeBrowsingWeb the hash is its host's).")
        var webpageURL: String?

        @Option(help: "With --encode: the 16-bit counter (the GCM IV).")
        var counter: Int = 1

        @Flag(help: "With --encode: set the clear copy/cut flag (Universal Clipboard, 0x08).")
        var clipboard = false

        @Option(help: "With --encode: the time byte (0-255); without it, a current activity saved now.")
        var timeOffset: Int?

        func validate() throws {
            if encode {
                guard advertisement == nil else {
                    throw ValidationError("--encode builds an advertisement: give no ADVERTISEMENT.")
                }
                guard let type = activityType, !type.isEmpty else {
                    throw ValidationError("--encode needs --activity-type.")
                }
                if let timeOffset, !(0...0xFF).contains(timeOffset) {
                    throw ValidationError("--time-offset must be between 0 and 255, not \(timeOffset).")
                }
                guard (0...0xFFFF).contains(counter) else {
                    throw ValidationError("--counter must be between 0 and 65535, not \(counter).")
                }
                if let webpageURL {
                    guard let url = URL(string: webpageURL), url.host != nil else {
                        throw ValidationError("--webpage-url is not a URL with a host: \(webpageURL)")
                    }
                }
            } else {
                guard advertisement != nil else {
                    throw ValidationError("Give the advertisement in hex, or --encode to build one.")
                }
                guard activityType == nil, webpageURL == nil, !clipboard, timeOffset == nil else {
                    throw ValidationError(
                        "--activity-type, --webpage-url, --clipboard and --time-offset go with --encode.")
                }
            }
        }

        func run() throws {
            let keyBytes = try Self.key(key)
            if encode {
                print(try build(key: keyBytes).map { String(format: "%02x", $0) }.joined())
                return
            }
            let bytes: [UInt8]
            let opened: AppleHandoffAdvertisement.Opened
            do {
                bytes = try AppleHandoffAdvertisement.bytes(hex: advertisement ?? "")
            } catch {
                throw AccountCommandFailure(
                    description: "the advertisement's hex at character \(error.offset): \(error.message)")
            }
            do {
                opened = try AppleHandoffAdvertisement.open(bytes, key: keyBytes)
            } catch {
                throw AccountCommandFailure(description: error.description)
            }
            print("Apple Handoff advertisement, \(bytes.count) bytes: the tag matches")
            for line in Self.lines(opened.input) { print(line) }
            print("Plaintext, 10 bytes (AES-256-GCM, the counter's 2 bytes as IV, the flags byte as AAD):")
            for line in Self.lines(opened.plaintext) { print(line) }
        }

        func build(key: [UInt8]) throws -> [UInt8] {
            let type = activityType ?? ""
            let host = webpageURL.flatMap { URL(string: $0)?.host }
            var options: AppleHandoffAdvertisement.Options = []
            if webpageURL != nil { options.insert(.hasWebpageURL) }
            let advertisement = AppleHandoffAdvertisement(
                flags: clipboard ? AppleHandoffAdvertisement.clipboardFlag : 0, counter: UInt16(counter),
                activityHash: ActivityTypeHash.advertised(activityType: type, webpageHost: host).bytes,
                options: options,
                timeOffset: timeOffset.map { UInt8($0) }
                    ?? AppleHandoffAdvertisement.timeOffset(savedAt: Date(), isCurrent: true))
            do {
                return try advertisement.manufacturerData(key: key)
            } catch {
                throw AccountCommandFailure(description: error.description)
            }
        }

        static func key(_ text: String) throws -> [UInt8] {
            if text == "demo" { return AppleHandoffAdvertisement.demoKey }
            let bytes: [UInt8]
            do {
                bytes = try AppleHandoffAdvertisement.bytes(hex: text)
            } catch {
                throw AccountCommandFailure(description: "--key: \(error.message) (character \(error.offset))")
            }
            guard bytes.count == 32 else {
                throw AccountCommandFailure(
                    description: "--key is \(bytes.count) bytes; Apple's Handoff key is 32 (64 hex digits)")
            }
            return bytes
        }

        /// "0004  00  flags  0x00: no copy/cut …": each field's offset, bytes and meaning.
        static func lines(_ annotated: AnnotatedBytes) -> [String] {
            annotated.fields.map { field in
                let hex = annotated.bytes[field.range].map { String(format: "%02x", $0) }.joined(separator: " ")
                let offset = String(format: "%04x", field.range.lowerBound)
                let padded = hex.padding(toLength: max(hex.count, 29), withPad: " ", startingAt: 0)
                return "  \(offset)  \(padded)  \(field.name): \(field.value)"
            }
        }
    }
}
