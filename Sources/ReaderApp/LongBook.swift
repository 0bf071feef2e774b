import Foundation

/// A generated document large enough that its transfer over continuation streams can be watched
/// (`handoff device --sample-document 8MB`, used by `handoff demo streams`): plain text, chapters
/// of numbered paragraphs, the same bytes for the same size.
package enum LongBook {
    /// The file name in the device's folder.
    package static let fileName = "a-long-book.txt"
    package static let title = "A Long Book"

    /// The text, `bytes` long at least (it ends at a whole paragraph).
    package static func text(bytes: Int) -> String {
        var text =
            "\(title)\n\nA document this size arrives over continuation streams in pieces; the Reader shows how far it got.\n\n"
        var chapter = 0
        var paragraph = 0
        let sentences = [
            "The laptop keeps the book; the phone has only the activity that says where the reader was.",
            "Handoff's payload carries a few kilobytes, so the rest travels on a stream both apps open for it.",
            "Every page of this book is plain text, so the Reader can lay it out at any width.",
            "Nothing here is stored in the activity itself: only the name of the file and the place in it.",
        ]
        while text.utf8.count < bytes {
            if paragraph % 40 == 0 {
                chapter += 1
                text += "Chapter \(chapter)\n\n"
            }
            paragraph += 1
            let first = sentences[paragraph % sentences.count]
            let second = sentences[(paragraph / 3) % sentences.count]
            text += "\(paragraph). \(first) \(second)\n\n"
        }
        return text
    }

    /// Writes the book of `bytes` into `folder` unless a book of that size is already there (a
    /// device started again does not make the book again: the text overshoots `bytes` by less
    /// than one paragraph).
    /// - Returns: The file's URL.
    @discardableResult
    package static func write(bytes: Int, into folder: URL) throws -> URL {
        let manager = FileManager.default
        try manager.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let url = folder.appendingPathComponent(fileName, isDirectory: false)
        if let existing = (try? manager.attributesOfItem(atPath: url.path))?[.size] as? Int,
            existing >= bytes, existing < bytes + maximumParagraphBytes
        {
            return url
        }
        try Data(text(bytes: bytes).utf8).write(to: url, options: .atomic)
        return url
    }

    /// More than any one paragraph (with a chapter heading) takes.
    static let maximumParagraphBytes = 512
}
