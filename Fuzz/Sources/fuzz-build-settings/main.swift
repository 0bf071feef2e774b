// `BuildSettings.xcconfig` (`BuildSettingsFile(parsing:file:)`): settings the manifest expands.
// Accepted settings written back as `NAME = value` lines parse to the same settings.
import HandoffManifest

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBuildSettings(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    do {
        let file = try BuildSettingsFile(parsing: text, file: "fuzz.xcconfig")
        for (name, value) in file.settings {
            check(!name.isEmpty && !name.contains("\n") && !value.contains("\n"), "a setting with a line break")
        }
    } catch {
        check("\(error)".utf8.count <= 4096, "an error message of \("\(error)".utf8.count) bytes")
    }
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
