import Foundation

/// Where the `handoff` executable built with the tests is.
public enum HandoffExecutable {
    /// The `handoff` next to the running test binary (`swift test` runs it from the build
    /// directory), else nil.
    public static let url: URL? = {
        let fileManager = FileManager.default
        let binaries = [CommandLine.arguments.first.map { URL(fileURLWithPath: $0) }, Bundle.main.executableURL]
        for binary in binaries.compactMap({ $0?.resolvingSymlinksInPath() }) {
            var directory = binary.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent("handoff")
                var isDirectory: ObjCBool = false
                if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    fileManager.isExecutableFile(atPath: candidate.path)
                {
                    return candidate
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }()
}
