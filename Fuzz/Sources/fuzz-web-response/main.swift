// What the local web's association-file fetch decides from an HTTP response
// (`SiteAssociationVerifier.judge`: status, redirect location, media type, size, the file's JSON,
// and `maxAge` of Cache-Control). The input is a status (2 bytes), header lines up to an empty
// line, then the body. The same response is judged the same way twice.
import Foundation

@testable import HandoffWeb

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebResponse(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    guard bytes.count >= 2 else { return 0 }
    let status = [200, 200, 200, 301, 302, 404, 500, Int(bytes[1])][Int(bytes[0] & 7)]
    let rest = bytes.dropFirst(2)
    var headers: [String: String] = [:]
    var bodyStart = rest.endIndex
    var lineStart = rest.startIndex
    while lineStart < rest.endIndex {
        let end = rest[lineStart...].firstIndex(of: 0x0A) ?? rest.endIndex
        let line = String(decoding: rest[lineStart..<end], as: UTF8.self)
        if line.isEmpty {
            bodyStart = min(end + 1, rest.endIndex)
            break
        }
        if let colon = line.firstIndex(of: ":") {
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        lineStart = min(end + 1, rest.endIndex)
    }
    let body = Data(rest[bodyStart...])
    let response = WebResponse(status: status, headers: headers, body: body, milliseconds: 1)
    let first = "\(SiteAssociationVerifier.judge(response, host: "fuzz.example"))"
    let second = "\(SiteAssociationVerifier.judge(response, host: "fuzz.example"))"
    check(first == second, "the same response judged two ways")
    if let age = SiteAssociationVerifier.maxAge(cacheControl: headers["cache-control"]) {
        check(age >= 0 && age <= 365 * 86_400, "max-age \(age) out of bounds")
    }
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
