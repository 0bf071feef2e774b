// An app's Info.plist and entitlements, XML or binary (`ManifestLint.lint`, which the apps and
// `handoff manifest lint` use). The first byte picks which file the rest is: Info.plist alone, or
// a fixed Info.plist with the rest as entitlements. A lint report or a ManifestReadError, never a
// crash; the report is stable when linted twice.
//
// Foundation on Linux leaks a CFError for every malformed property list (DECISIONS.md,
// 2026-11-25): `scripts/fuzz` runs this target with leak detection off.
import Foundation
import HandoffManifest

let info = Data(
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <plist version="1.0"><dict>
    <key>CFBundleIdentifier</key><string>com.example.fuzz</string>
    <key>NSUserActivityTypes</key><array><string>com.example.fuzz.reading</string></array>
    </dict></plist>
    """.utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifestPlist(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard count > 0, let start else { return 0 }
    let rest = Data(UnsafeBufferPointer(start: start + 1, count: count - 1))
    let asEntitlements = start[0] & 1 == 1
    let lint = { () throws(ManifestReadError) -> ManifestLintReport in
        asEntitlements
            ? try ManifestLint.lint(infoPlist: info, entitlements: rest)
            : try ManifestLint.lint(infoPlist: rest)
    }
    do {
        let report = try lint()
        let again = try lint()
        check(again == report, "linting the same files twice gave different reports")
    } catch {
        check("\(error)".utf8.count <= 16_384, "an error message of \("\(error)".utf8.count) bytes")
    }
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
