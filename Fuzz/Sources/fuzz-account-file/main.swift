// `account.json` (AccountFileFormat.decodeAccount): a file on disk that may be damaged or edited
// by hand. Accepted files must encode again to a file that decodes to the same account.
import Foundation

@testable import HandoffNetwork

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAccountFile(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    do {
        let stored = try AccountFileFormat.decodeAccount(data, name: "fuzz", path: "fuzz/account.json")
        let encoded = try AccountFileFormat.encode(stored)
        let again = try AccountFileFormat.decodeAccount(encoded, name: "fuzz", path: "fuzz/account.json")
        let reencoded = try AccountFileFormat.encode(again)
        check(reencoded == encoded, "account file round trip changed it")
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
