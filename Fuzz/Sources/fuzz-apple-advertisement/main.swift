// Apple's Handoff advertisement as `handoff wire apple` reads it: the first byte chooses the
// form (0: bytes, opened with the demo key; 1: a 32-byte key, then bytes; 2: hex text, read
// and opened with the demo key), the rest is the input. Errors must name an offset inside the
// input and stay short; an advertisement that opens must seal again to the same 14 bytes with
// the same key, and open the same way twice.
@testable import HandoffNetwork

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppleAdvertisement(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: start, count: count))
    guard let mode = input.first else { return 0 }
    var key = AppleHandoffAdvertisement.demoKey
    var bytes = Array(input.dropFirst())
    switch mode % 3 {
    case 1:
        guard bytes.count >= 32 else { return 0 }
        key = Array(bytes.prefix(32))
        bytes = Array(bytes.dropFirst(32))
    case 2:
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            bytes = try AppleHandoffAdvertisement.bytes(hex: text)
        } catch {
            check(
                error.offset >= 0 && error.offset <= text.unicodeScalars.count,
                "hex error offset \(error.offset) outside the text")
            check(error.description.utf8.count < 4096, "error message over 4 KB")
            return 0
        }
    default:
        break
    }
    let opened: AppleHandoffAdvertisement.Opened
    do {
        opened = try AppleHandoffAdvertisement.open(bytes, key: key)
    } catch {
        check(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside the input")
        check(error.description.utf8.count < 4096, "error message over 4 KB")
        return 0
    }
    check(opened.input.coversEveryByte, "the fields do not cover the input")
    check((try? AppleHandoffAdvertisement.open(bytes, key: key)) == opened, "the same input opened differently twice")
    guard let flags = opened.input.fields.first(where: { $0.name == "flags" }) else {
        check(false, "no flags field")
        return 0
    }
    let value = Array(bytes[flags.range.lowerBound..<flags.range.lowerBound + AppleHandoffAdvertisement.valueLength])
    check((try? opened.advertisement.sealedValue(key: key)) == value, "sealing again gives other bytes")
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
