// One session frame body (version, type, body) as `SessionFrameDecoder.decodeBody` reads it, and
// the length-prefixed stream through `SessionFrameDecoder.decode`. Accepted frames must encode
// to bytes that decode to the same frame.
import NIOCore

@testable import HandoffNetwork

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSessionFrame(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var body = ByteBuffer(bytes: UnsafeBufferPointer(start: start, count: count))
    guard let frame = try? SessionFrameDecoder.decodeBody(&body) else { return 0 }
    var encoded = ByteBuffer()
    do {
        try SessionFrameEncoder().encode(data: frame, out: &encoded)
    } catch {
        fatalError("an accepted frame does not encode: \(error)")
    }
    check(encoded.readInteger(as: UInt32.self).map(Int.init) == encoded.readableBytes, "wrong length prefix")
    guard let again = try? SessionFrameDecoder.decodeBody(&encoded) else {
        fatalError("an encoded frame does not decode")
    }
    check(again == frame, "session frame round trip changed it")
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
