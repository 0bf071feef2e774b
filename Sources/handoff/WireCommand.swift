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
            `handoff wire decode CAPTURE --account NAME` opens its beacons with the account's key. \
            Session frames are inside TLS 1.3: tshark decrypts them with the key log the devices \
            write when SSLKEYLOGFILE is set, and tools/wireshark/handoff.lua names their fields.
            """,
        subcommands: [Decode.self]
    )
}

extension WireCommand {
    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a capture (pcapng or pcap) packet by packet, with the account's beacons opened.",
            discussion: """
                Each beacon sent to the discovery port is opened with the account's beacon key and \
                annotated field by field, as the device inspector shows it (F10). Session packets are \
                listed with the TLS records they start with; their frames need tshark and the key log \
                (this command does not decrypt TLS: NIOSSL does not expose record decryption, and the \
                project writes no cryptography of its own).
                """)

        @Argument(help: ArgumentHelp("The capture file (pcapng or classic pcap).", valueName: "capture"))
        var capture: String

        @Option(help: "The account whose beacon key opens the beacons (without it they are shown sealed).")
        var account: String?

        @Option(help: "The discovery port the beacons were sent to.")
        var port = NetworkOptions.defaultDiscoveryPort

        @OptionGroup var options: AccountStoreOptions

        func validate() throws {
            guard (1...65_535).contains(port) else {
                throw ValidationError("--port must be between 1 and 65535, not \(port).")
            }
        }

        func run() throws {
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
            for line in transcript.lines(for: packets).lines { print(line) }
        }
    }
}
