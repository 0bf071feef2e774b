import Foundation
// A site's `apple-app-site-association` (JSON) as every device loads it for the demo sites.
// Parsing the same bytes twice gives the same approvals; errors name the host.
import HandoffCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSiteAssociation(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    do {
        let association = try SiteAssociationFile(host: "fuzz.example", data: data)
        let again = try SiteAssociationFile(host: "fuzz.example", data: data)
        check(again.approvedApplicationIdentifiers == association.approvedApplicationIdentifiers, "unstable parse")
    } catch {
        check(error.host == "fuzz.example", "the error does not name the host")
        check("\(error)".utf8.count <= 4096, "an error message of \("\(error)".utf8.count) bytes")
    }
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
