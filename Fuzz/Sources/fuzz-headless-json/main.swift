// The headless device's JSON parser (one stdin line = one command). Accepted text must print and
// parse back to the same value; errors must name an offset inside the text.
import HandoffCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeadlessJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    do {
        let value = try JSONValue.parse(text)
        let printed = value.jsonText
        guard let again = try? JSONValue.parse(printed) else {
            fatalError("printed JSON does not parse: \(printed.prefix(200))")
        }
        check(again == value, "JSON round trip changed the value")
    } catch {
        check(error.offset >= 0 && error.offset <= text.utf8.count, "error offset \(error.offset) outside the text")
        check(error.description.utf8.count <= 4096, "an error message of \(error.description.utf8.count) bytes")
    }
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
