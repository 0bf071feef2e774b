// A capture file (pcapng or classic pcap) as `handoff wire decode` reads it: `PacketCapture`,
// then every packet's layers and the transcript with a fixed beacon key. Errors must name an
// offset inside the file and stay short; what is read must be read the same way twice and hold
// no more bytes than the file.
import Crypto

@testable import HandoffNetwork

let sealer = BeaconSealer(accountKey: SymmetricKey(data: [UInt8](repeating: UInt8(0x42), count: 32)))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPcapNG(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let packets: [CapturedPacket]
    do {
        packets = try PacketCapture.packets(in: bytes)
    } catch {
        check(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside the file")
        check(error.description.utf8.count < 4096, "error message over 4 KB")
        return 0
    }
    check((try? PacketCapture.packets(in: bytes)) == packets, "the same file read differently twice")
    check(packets.reduce(0) { $0 + $1.data.count } <= bytes.count, "packets hold more bytes than the file")
    let (lines, counts) = WireTranscript(sealer: sealer).lines(for: packets)
    check(counts.packets == packets.count, "the transcript lost packets")
    check(lines.count >= packets.count, "fewer lines than packets")
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
