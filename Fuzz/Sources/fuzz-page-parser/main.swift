import Foundation

// The Browser's page format (`PageParser.parse`): files under demos/sites, with variables filled
// from the URL's query. Every page parses to something (bounded lines and values), and the same
// bytes give the same page.
@testable import BrowserApp

let url = URL(string: "https://maps.handoffsim.example/?lat=38.7&lon=-9.1&zoom=5&q=%7B%7Btitle%7D%7D")!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPageParser(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    let variables = PageParser.variables(for: url)
    guard let page = try? PageParser.parse(data, url: url, variables: variables) else { return 0 }
    check(page.blocks.count <= PageParser.maximumLines + 1, "\(page.blocks.count) blocks from one page")
    check((try? PageParser.parse(data, url: url, variables: variables)) == page, "unstable parse")
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
