// A beacon's plaintext layout (docs/wire.md), after AES-GCM: authentic but possibly malformed.
// Accepted beacons must encode to the same plaintext form and decode to the same beacon.
import Foundation

@testable import HandoffNetwork

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBeaconPlaintext(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    guard let beacon = try? BeaconSealer.decode(bytes, receivedAt: nil) else { return 0 }
    let encoded = BeaconSealer.encode(beacon)
    guard let again = try? BeaconSealer.decode(encoded, receivedAt: nil) else {
        fatalError("an accepted beacon does not decode after encoding it again")
    }
    check(
        again.device.id == beacon.device.id && again.counter == beacon.counter
            && again.bootIdentifier == beacon.bootIdentifier && again.sessionPort == beacon.sessionPort,
        "beacon round trip changed it")
    check(BeaconSealer.encode(again) == encoded, "beacon encoding is not stable")
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
