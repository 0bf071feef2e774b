import Foundation

/// Where an app module's resources are at run time: SwiftPM's resource bundle next to the running
/// binary (as a symbolic link or not) or in the main bundle, else the module's source folder (a
/// development checkout). Unlike SwiftPM's generated `Bundle.module`, a missing bundle is an
/// error the caller can report, not a crash.
package enum ResourceFolders {
    /// The folders where a module's `Resources` may be, in the order to try.
    ///
    /// - Parameters:
    ///   - bundleName: SwiftPM's name for the module's bundle (`PACKAGE_TARGET`).
    ///   - sourceFolder: the module's `Resources` folder in the source tree it was built from.
    package static func candidates(bundleName: String, sourceFolder: URL) -> [URL] {
        var places: [URL] = [Bundle.main.bundleURL]
        if let resources = Bundle.main.resourceURL { places.append(resources) }
        if let executable = Bundle.main.executableURL {
            places.append(executable.deletingLastPathComponent())
            places.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        var folders: [URL] = []
        for place in places {
            folders.append(place.appendingPathComponent("\(bundleName).resources/Resources", isDirectory: true))
            folders.append(
                place.appendingPathComponent("\(bundleName).bundle/Contents/Resources/Resources", isDirectory: true))
            folders.append(place.appendingPathComponent("\(bundleName).bundle/Resources", isDirectory: true))
        }
        folders.append(sourceFolder)
        return folders
    }

    /// The first candidate folder that holds `file`, or every folder searched (for the error).
    package static func locate(_ file: String, bundleName: String, sourceFolder: URL) -> Result<URL, NotFound> {
        var searched: [String] = []
        for folder in candidates(bundleName: bundleName, sourceFolder: sourceFolder) {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path) {
                return .success(folder)
            }
            if !searched.contains(folder.path) { searched.append(folder.path) }
        }
        return .failure(NotFound(searched: searched))
    }

    /// No candidate folder held the file.
    package struct NotFound: Error, Hashable, Sendable {
        package var searched: [String]
    }
}
