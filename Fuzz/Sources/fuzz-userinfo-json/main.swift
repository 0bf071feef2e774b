// A headless command's userInfo (JSON, with $-tags) into UserInfo values. Accepted values must
// write back to JSON that reads to the same userInfo, and encode as a payload.
import Foundation
import HandoffCore

@testable import HandoffHeadless

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUserInfoJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    guard let json = try? JSONValue.parse(text) else { return 0 }
    let userInfo: UserInfo
    do {
        userInfo = try UserInfoJSON.userInfo(from: json)
    } catch {
        check(error.description.utf8.count <= 4096, "an error message of \(error.description.utf8.count) bytes")
        return 0
    }
    let written = UserInfoJSON.json(from: userInfo)
    guard let again = try? UserInfoJSON.userInfo(from: try JSONValue.parse(written.jsonText)) else {
        fatalError("written userInfo does not read back: \(written.jsonText.prefix(200))")
    }
    check(again == userInfo, "userInfo JSON round trip changed the value")
    // What the headless device accepts must also travel: the payload codec takes it.
    let payload = ActivityPayload(
        activityType: "com.example.fuzz", userInfo: userInfo, teamIdentifier: "T", bundleIdentifier: "b")
    guard let decoded = try? ActivityPayload(decoding: payload.encoded()) else {
        fatalError("an accepted userInfo does not survive the payload codec")
    }
    check(decoded.userInfo == userInfo, "payload round trip changed the userInfo")
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
