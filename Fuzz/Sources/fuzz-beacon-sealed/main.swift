// Whole datagrams on the discovery port, opened with a fixed account key. Random bytes must fail
// authentication; the corpus holds genuine beacons sealed with this key so mutations of them
// exercise every check. Accepted beacons must seal and open again to the same beacon.
import Crypto
import Foundation

@testable import HandoffNetwork

let sealer = BeaconSealer(accountKey: SymmetricKey(data: Array(repeating: UInt8(0x42), count: 32)))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBeaconSealed(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    guard let beacon = try? sealer.open(bytes) else { return 0 }
    let sealed = sealer.seal(beacon)
    check(sealed.count == Beacon.maximumLength, "a sealed beacon of \(sealed.count) bytes")
    guard let again = try? sealer.open(sealed) else { fatalError("a resealed beacon does not open") }
    check(BeaconSealer.encode(again) == BeaconSealer.encode(beacon), "beacon seal round trip changed it")
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
