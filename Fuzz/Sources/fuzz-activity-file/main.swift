// An activity file (`--activity FILE`, and `handoff doctor`): a property list (XML, binary or
// OpenStep) or JSON, into `ActivityFile`. An activity or an `ActivityFileError` naming the file,
// never a crash; the same bytes decode the same twice; every accepted userInfo survives the
// payload codec (the decoder checks the payload's limits on entry); messages stay a line.
//
// Foundation on Linux leaks a CFError for every malformed property list (DECISIONS.md,
// 2026-11-25): `scripts/fuzz` runs this target with leak detection off.
import Foundation
import HandoffCore
import HandoffManifest

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzActivityFile(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(UnsafeBufferPointer(start: $0, count: count)) } ?? Data()
    let file: ActivityFile
    do {
        file = try ActivityFile(data: data, name: "fuzz.plist")
    } catch {
        let message = error.description
        check(message.hasPrefix("fuzz.plist: "), "an error that does not name the file: \(message.prefix(200))")
        check(message.utf8.count <= 4096, "an error message of \(message.utf8.count) bytes")
        check(!message.contains("\n"), "an error message of several lines")
        return 0
    }
    guard let again = try? ActivityFile(data: data, name: "fuzz.plist") else {
        fatalError("the same bytes decoded once and failed the second time")
    }
    check(again == file, "the same bytes decoded to different activities")
    check(!file.activityType.isEmpty, "an empty activity type was accepted")
    for warning in file.warnings {
        check(warning.description.utf8.count <= 4096, "a warning of \(warning.description.utf8.count) bytes")
    }
    let payload = ActivityPayload(
        activityType: file.activityType, userInfo: file.userInfo, teamIdentifier: "T", bundleIdentifier: "b")
    guard let decoded = try? ActivityPayload(decoding: payload.encoded()) else {
        fatalError("an accepted userInfo does not survive the payload codec")
    }
    check(decoded.userInfo == file.userInfo, "payload round trip changed the userInfo")
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
