import Foundation
import TerminalCells

/// Where a document lives.
public enum DocumentLocation: String, Hashable, Sendable {
    /// The account's cloud folder: the same URL on every device of the account, so the document
    /// hands off.
    case cloud
    /// This device's own folder: readable here only.
    case local
}

/// A document in the list.
public struct DocumentEntry: Hashable, Sendable {
    public var url: URL
    public var location: DocumentLocation
    /// The document's first line, or its file name when it is blank or unreadable.
    public var title: String
    /// The number of logical pages, or nil when the file could not be read.
    public var pageCount: Int?

    public init(url: URL, location: DocumentLocation, title: String, pageCount: Int?) {
        self.url = url
        self.location = location
        self.title = title
        self.pageCount = pageCount
    }

    /// The file name, e.g. `harrow-point.txt`.
    public var name: String { url.lastPathComponent }
}

/// The two folders the Reader reads from: the account's cloud folder and the device's local one.
public struct DocumentLibrary: Hashable, Sendable {
    /// The file name extensions of the documents listed (plain UTF-8 text).
    public static let fileExtensions: Set<String> = ["txt", "text"]
    /// Larger files are not read (a reader of short documents has no use for them). It also
    /// bounds a document received over continuation streams (room for the 5 MB transfer demo).
    public static let maximumFileSize = 16 << 20

    /// The account's cloud folder, or nil when the device runs without one.
    public var cloudFolder: URL?
    /// This device's local folder.
    public var localFolder: URL

    public init(cloudFolder: URL?, localFolder: URL) {
        self.cloudFolder = cloudFolder
        self.localFolder = localFolder
    }

    /// The documents of both folders, the cloud folder's first, each folder's by file name.
    public func documents() -> [DocumentEntry] {
        var entries: [DocumentEntry] = []
        if let cloudFolder { entries += Self.documents(in: cloudFolder, location: .cloud) }
        entries += Self.documents(in: localFolder, location: .local)
        return entries
    }

    /// Which of the two folders holds `url` directly, if any.
    public func location(of url: URL) -> DocumentLocation? {
        let folder = Self.canonicalPath(url.deletingLastPathComponent())
        if let cloudFolder, Self.canonicalPath(cloudFolder) == folder { return .cloud }
        if Self.canonicalPath(localFolder) == folder { return .local }
        return nil
    }

    /// Finds the document a continued activity names, on this device.
    ///
    /// The document URL is used when it points into this device's cloud (or local) folder and
    /// the file is there; otherwise the document is looked up by name in the cloud folder (whose
    /// path may differ between machines of one account). A document from another device's local
    /// folder is never found: local documents do not hand off.
    ///
    /// This is the one place a missing document is detected; the Reader then asks the
    /// originating device for it over the activity's continuation streams, when it supports them.
    ///
    /// - Throws: ``ReadingRestoreError/documentNotFound(name:)``.
    public func locate(_ state: ReadingState) throws(ReadingRestoreError) -> URL {
        if let url = state.documentURL, location(of: url) != nil, Self.isFile(url) { return url }
        if let cloudFolder {
            let url = cloudFolder.appendingPathComponent(state.documentName, isDirectory: false)
            if Self.isFile(url) { return url }
        }
        throw .documentNotFound(name: state.documentName)
    }

    /// Reads and pages the document at `url`.
    ///
    /// - Throws: ``ReadingRestoreError/unreadable(name:reason:)`` when the file cannot be read,
    ///   is too large or is not UTF-8 text.
    public static func read(_ url: URL) throws(ReadingRestoreError) -> PagedText {
        let name = url.lastPathComponent
        let size: Int
        do {
            size = try url.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0
        } catch {
            throw .unreadable(name: name, reason: "the file cannot be opened")
        }
        guard size <= maximumFileSize else {
            throw .unreadable(name: name, reason: "it is larger than \(maximumFileSize >> 20) MiB")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(name: name, reason: "the file cannot be opened")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .unreadable(name: name, reason: "it is not UTF-8 text")
        }
        return PagedText(text)
    }

    private static func documents(in folder: URL, location: DocumentLocation) -> [DocumentEntry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names
            .filter { !$0.hasPrefix(".") && fileExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
            .compactMap { name in
                let url = folder.appendingPathComponent(name, isDirectory: false)
                guard isFile(url) else { return nil }
                let text = try? read(url)
                return DocumentEntry(url: url, location: location, title: text?.title ?? name, pageCount: text?.pageCount)
            }
    }

    private static func isFile(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    private static func canonicalPath(_ url: URL) -> String {
        var path = url.standardizedFileURL.resolvingSymlinksInPath().path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
