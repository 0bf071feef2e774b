import Foundation

/// The documents that ship with the Reader (`demos/documents`, a resource of this module), put
/// into the folder the Reader lists on first use.
package enum SampleDocuments {
    /// Copies each sample document of `source` that `folder` does not have yet into `folder`,
    /// creating the folder if needed. An existing file of the same name is never replaced, even
    /// when another device of the account copies the same sample at the same moment (the file is
    /// created exclusively).
    ///
    /// - Returns: The URLs of the documents copied now, by name.
    /// - Throws: When `folder` cannot be created or a sample cannot be read or written.
    @discardableResult
    package static func install(from source: URL, into folder: URL) throws -> [URL] {
        let manager = FileManager.default
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        let names = try manager.contentsOfDirectory(atPath: source.path)
            .filter {
                !$0.hasPrefix(".")
                    && DocumentLibrary.fileExtensions.contains(($0 as NSString).pathExtension.lowercased())
            }
            .sorted()
        var copied: [URL] = []
        for name in names {
            let target = folder.appendingPathComponent(name, isDirectory: false)
            guard !manager.fileExists(atPath: target.path) else { continue }
            let data = try Data(contentsOf: source.appendingPathComponent(name, isDirectory: false))
            do {
                try data.write(to: target, options: .withoutOverwriting)
                copied.append(target)
            } catch  where manager.fileExists(atPath: target.path) {
                continue  // someone else created it first: theirs stays
            }
        }
        return copied
    }
}
