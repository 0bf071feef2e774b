// An Xcode project file, `project.pbxproj` (`XcodeProject(data:…)`, which `handoff device --app`
// and `handoff manifest lint` read for a project): its objects, targets and configurations, then
// every target's settings in every configuration. A project or an XcodeProjectError, never a
// crash; the same bytes read the same way twice.
//
// Foundation on Linux leaks a CFError for every malformed property list (DECISIONS.md,
// 2026-11-25): `scripts/fuzz` runs this target with leak detection off.
import Foundation
import HandoffManifest

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXcodeProject(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    let root = URL(fileURLWithPath: "/fuzz")
    let read = { () throws(XcodeProjectError) -> XcodeProject in
        try XcodeProject(data: data, file: "Fuzz.xcodeproj/project.pbxproj", name: "Fuzz", sourceRoot: root)
    }
    do {
        let project = try read()
        let again = try read()
        check(again == project, "the same project read two ways")
        for target in project.targets {
            for configuration in target.configurations.keys {
                let settings = try project.buildSettings(for: target, configuration: configuration)
                check(settings.values["TARGET_NAME"] == target.name, "TARGET_NAME is not the target's name")
                _ = settings.path("INFOPLIST_FILE", in: root)
            }
        }
        _ = try? project.target(named: nil)
    } catch {
        check("\(error)".utf8.count <= 16_384, "an error message of \("\(error)".utf8.count) bytes")
    }
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
