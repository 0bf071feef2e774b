import Foundation
import HandoffCore
import TerminalCells

/// Where a document lives.
package enum DocumentLocation: String, Hashable, Sendable {
    /// The account's cloud folder: the same URL on every device of the account, so the document
    /// hands off.
    case cloud
    /// This device's own folder: readable here only.
    case local
}

/// A document in the list, from a bounded read of its start (a list never reads whole files).
package struct DocumentEntry: Hashable, Sendable {
    package var url: URL
    package var location: DocumentLocation
    /// The document's first line, or its file name when it is blank or unreadable.
    package var title: String
    /// The number of logical pages when the list read the whole file (it is no longer than
    /// ``DocumentLibrary/listingReadSize``), else nil.
    package var pageCount: Int?
    /// The file's size in bytes, or nil when the file could not be read.
    package var size: Int?
    /// False when the file could not be read, or its start is not UTF-8 text.
    package var isReadable: Bool

    package init(
        url: URL, location: DocumentLocation, title: String, pageCount: Int?, size: Int? = nil, isReadable: Bool = true
    ) {
        self.url = url
        self.location = location
        self.title = title
        self.pageCount = pageCount
        self.size = size
        self.isReadable = isReadable
    }

    /// The file name, e.g. `harrow-point.txt`.
    package var name: String { url.lastPathComponent }
}

/// The two folders the Reader reads from: the account's cloud folder and the device's local one.
package struct DocumentLibrary: Hashable, Sendable {
    /// The file name extensions of the documents listed (plain UTF-8 text).
    package static let fileExtensions: Set<String> = ["txt", "text"]
    /// The largest document received over continuation streams (room for the 5 MB transfer
    /// demo). Documents in the folders may be of any size: they are read as far as shown.
    package static let maximumFileSize = 16 << 20
    /// The bytes of a document read when it opens (its first pages); the rest is read and its
    /// pages counted off the run loop.
    package static let openingReadSize = 256 << 10
    /// The bytes of each file the list reads: its title, and its pages when that is all of it
    /// (a longer file is listed with its size).
    package static let listingReadSize = 64 << 10

    /// The account's cloud folder, or nil when the device runs without one.
    package var cloudFolder: URL?
    /// This device's local folder.
    package var localFolder: URL

    package init(cloudFolder: URL?, localFolder: URL) {
        self.cloudFolder = cloudFolder
        self.localFolder = localFolder
    }

    /// The documents of both folders, the cloud folder's first, each folder's by file name.
    package func documents() -> [DocumentEntry] {
        var entries: [DocumentEntry] = []
        if let cloudFolder { entries += Self.documents(in: cloudFolder, location: .cloud) }
        entries += Self.documents(in: localFolder, location: .local)
        return entries
    }

    /// Which of the two folders holds `url` directly, if any.
    package func location(of url: URL) -> DocumentLocation? {
        let folder = Self.canonicalPath(url.deletingLastPathComponent())
        if let cloudFolder, Self.canonicalPath(cloudFolder) == folder { return .cloud }
        if Self.canonicalPath(localFolder) == folder { return .local }
        return nil
    }

    /// Finds the document a continued activity names, on this device.
    ///
    /// The document URL is used when it points into this device's cloud (or local) folder and
    /// the file is there: the system rewrote an iCloud document's URL to this device's container.
    /// An iCloud document (`inCloud`: the activity is the document's automatic one) whose URL is
    /// not usable here (an older sender, or the name alone) is looked up by name in the cloud
    /// folder. A document from another device's local folder is never found: local documents
    /// are not in iCloud, so they reach another device only over continuation streams.
    ///
    /// This is the one place a missing document is detected; the Reader then asks the
    /// originating device for it over the activity's continuation streams, when it supports them.
    ///
    /// - Throws: ``ReadingRestoreError/documentNotFound(name:)``.
    package func locate(_ state: ReadingState, inCloud: Bool = true) throws(ReadingRestoreError) -> URL {
        if let url = state.documentURL, location(of: url) != nil, Self.isFile(url) { return url }
        if inCloud, let cloudFolder {
            let url = cloudFolder.appendingPathComponent(state.documentName, isDirectory: false)
            if Self.isFile(url) { return url }
        }
        throw .documentNotFound(name: state.documentName)
    }

    /// Opens the document at `url`: reads its first ``openingReadSize`` bytes and finds the
    /// pages in them; a longer document is not final (``DocumentText/isFinal``) and is read on
    /// with ``readWhole(_:)``.
    ///
    /// - Throws: ``ReadingRestoreError/unreadable(name:reason:)`` when the file cannot be read or
    ///   what was read is not UTF-8 text.
    package static func open(_ url: URL) throws(ReadingRestoreError) -> DocumentText {
        try readStart(of: url, count: openingReadSize)
    }

    /// Reads the whole document at `url` and finds all its pages.
    ///
    /// - Throws: ``ReadingRestoreError/unreadable(name:reason:)`` when the file cannot be read or
    ///   is not UTF-8 text.
    package static func read(_ url: URL) throws(ReadingRestoreError) -> DocumentText {
        try checked(DocumentText(bytes: try readWhole(url), isFinal: true), name: url.lastPathComponent)
    }

    /// The bytes of the file at `url`.
    ///
    /// - Throws: ``ReadingRestoreError/unreadable(name:reason:)`` when it cannot be read.
    package static func readWhole(_ url: URL) throws(ReadingRestoreError) -> Data {
        try checkAccess(to: url)
        do {
            return try Data(contentsOf: url)
        } catch {
            throw .unreadable(name: url.lastPathComponent, reason: "the file cannot be opened")
        }
    }

    /// At most `count` bytes of the file at `url` from byte `offset`, and whether they reach its
    /// end.
    ///
    /// - Throws: ``ReadingRestoreError/unreadable(name:reason:)`` when it cannot be read.
    package static func read(
        _ url: URL, from offset: Int, count: Int
    ) throws(ReadingRestoreError) -> (Data, atEnd: Bool) {
        try checkAccess(to: url)
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(max(offset, 0)))
            let data = try handle.read(upToCount: count) ?? Data()
            return (data, data.count < count)
        } catch {
            throw .unreadable(name: url.lastPathComponent, reason: "the file cannot be opened")
        }
    }

    /// The first `count` bytes of `url` (all of it when shorter) with the pages found in them.
    static func readStart(of url: URL, count: Int) throws(ReadingRestoreError) -> DocumentText {
        let name = url.lastPathComponent
        try checkAccess(to: url)
        let size: Int
        let prefix: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            size = Int(try handle.seekToEnd())
            try handle.seek(toOffset: 0)
            prefix = try handle.read(upToCount: count) ?? Data()
        } catch {
            throw .unreadable(name: name, reason: "the file cannot be opened")
        }
        let isFinal = prefix.count < count || prefix.count >= size
        return try checked(
            DocumentText(bytes: prefix, isFinal: isFinal, expectedSize: max(size, prefix.count)), name: name)
    }

    /// The sandbox's word on reading `url`: a security-scoped URL a continued activity brought
    /// is closed until the Reader starts accessing it (`SecurityScopedResources`).
    private static func checkAccess(to url: URL) throws(ReadingRestoreError) {
        do throws(FileAccessError) {
            try SecurityScopedResources.checkAccess(to: url)
        } catch {
            throw .unreadable(
                name: url.lastPathComponent,
                reason: "it came with the activity security-scoped, and access to it was not started")
        }
    }

    /// `text` with the pages of its bytes found, unless they are not UTF-8 text.
    private static func checked(_ text: DocumentText, name: String) throws(ReadingRestoreError) -> DocumentText {
        var text = text
        text.findAllPages()
        guard text.invalidTextOffset == nil else { throw .unreadable(name: name, reason: "it is not UTF-8 text") }
        return text
    }

    private static func documents(in folder: URL, location: DocumentLocation) -> [DocumentEntry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return
            names
            .filter { !$0.hasPrefix(".") && fileExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
            .compactMap { name in
                let url = folder.appendingPathComponent(name, isDirectory: false)
                guard isFile(url) else { return nil }
                guard let text = try? readStart(of: url, count: listingReadSize) else {
                    return DocumentEntry(url: url, location: location, title: name, pageCount: nil, isReadable: false)
                }
                return DocumentEntry(
                    url: url, location: location, title: text.title ?? name, pageCount: text.pageCount,
                    size: text.expectedSize)
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
