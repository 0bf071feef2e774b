// The activity payload decoder (docs/payload.md): hostile bytes from the network. Anything it
// accepts must encode again, and that encoding must decode to the same payload.
import Foundation
import HandoffCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPayload(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    guard let payload = try? ActivityPayload(decoding: data) else { return 0 }
    let encoded = payload.encoded()
    guard let again = try? ActivityPayload(decoding: encoded) else {
        fatalError("an accepted payload does not decode after encoding it again")
    }
    check(again == payload, "payload round trip changed the value")
    check(again.encoded() == encoded, "payload encoding is not stable")
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
