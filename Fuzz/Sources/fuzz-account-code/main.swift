// `handoff account import CODE`: a pasted code (base64url JSON + checksum). Accepted codes must
// export again to a code that imports to the same account.
import Foundation

@testable import HandoffNetwork

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAccountCode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    do {
        let stored = try AccountCode.decode(text, as: nil)
        let code = try AccountCode.encode(stored)
        let again = try AccountCode.decode(code, as: nil)
        let recoded = try AccountCode.encode(again)
        check(recoded == code, "account code round trip changed it")
    } catch let error as AccountError {
        check("\(error)".utf8.count <= 4096, "an error message of \("\(error)".utf8.count) bytes")
    } catch {
        fatalError("an error that is not an AccountError: \(error)")
    }
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
