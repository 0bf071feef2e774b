// The Reader's document protocol over continuation streams (`DocumentRequestDecoder` on the
// origin, `DocumentResponseDecoder` on the continuing device), fed in chunks whose size comes
// from the input. The first byte picks the decoder and the chunk size.
@testable import ReaderApp

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReaderDocument(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    guard let first = bytes.first else { return 0 }
    let step = Int(first >> 1) + 1
    let stream = bytes.dropFirst()
    if first & 1 == 0 {
        var decoder = DocumentRequestDecoder()
        var index = stream.startIndex
        while index < stream.endIndex {
            let end = min(index + step, stream.endIndex)
            guard (try? decoder.consume(stream[index..<end])) != nil else { return 0 }
            index = end
        }
        if let request = decoder.request {
            var again = DocumentRequestDecoder()
            check((try? again.consume(request.encoded())) == request, "a request does not round-trip")
        }
    } else {
        var decoder = DocumentResponseDecoder(limit: 1 << 20)
        var index = stream.startIndex
        while index < stream.endIndex {
            let end = min(index + step, stream.endIndex)
            guard (try? decoder.consume(stream[index..<end])) != nil else { return 0 }
            index = end
        }
        if let header = decoder.header {
            check(decoder.bytes.count <= header.size, "more bytes than the header announced")
            check(header.size <= 1 << 20, "a header over the limit was accepted")
        }
        _ = try? decoder.finish()
    }
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
