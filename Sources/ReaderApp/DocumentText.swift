import Foundation
import TerminalCells

/// Where a logical page lies in a document's bytes: from the start of its first line to the end
/// of its last (blank lines at its edges are not part of it, as ``PagedText`` drops them).
package struct PageSpan: Hashable, Sendable {
    /// The byte offset of the page's first line.
    package var start: Int
    /// The byte offset just after the page's last line (before its line break).
    package var end: Int
    /// The number of source lines on the page (at least 1).
    package var lineCount: Int
}

/// Finds a document's logical pages in its bytes as far as they are needed: a value-type state
/// machine fed the bytes from the start, which it can be given more of as they arrive.
///
/// The pages are exactly ``PagedText``'s (the same rules, checked by tests against it), found one
/// line at a time without cleaning or splitting the whole text first: the cleaning
/// (``PlainText/sanitized(_:keepingFormFeeds:)``) never carries over a line break (LF, CR, CR LF)
/// or a form feed, so each line is cleaned alone, and a line of printable ASCII needs no cleaning
/// at all. Pages are kept as byte ranges (``PageSpan``); a page's lines are made when asked for.
package struct PageScanner: Hashable, Sendable {
    /// A line of the page being filled.
    private struct PendingLine: Hashable, Sendable {
        var start: Int
        var end: Int
        var rows: Int
        var isBlank: Bool
    }

    /// The pages found so far, in order.
    package private(set) var pages: [PageSpan] = []
    /// How many bytes were read into lines so far (the next line starts here).
    package private(set) var scannedBytes = 0
    /// Whether every page was found (the bytes were final and all read, or bad text ended them).
    package private(set) var isComplete = false
    /// Where the first line that is not UTF-8 starts, if one was met (the pages end before it).
    package private(set) var invalidTextOffset: Int?
    /// The first line of the first page without the white space around it, once it was met (nil
    /// before, and for a blank document).
    package private(set) var title: String?
    private var current: [PendingLine] = []
    private var used = 0

    package init() {}

    /// Reads further lines of `bytes` (the document from its start; more than last time, or the
    /// same) until `pages` has `pageTarget` pages, `byteBudget` more bytes were read, or the bytes
    /// run out. `isFinal` says that `bytes` is the whole document: its last line then needs no
    /// line break and the last page ends with it.
    package mutating func scan(
        _ bytes: UnsafeRawBufferPointer, isFinal: Bool, untilPageCount pageTarget: Int = .max,
        byteBudget: Int = .max
    ) {
        guard !isComplete else { return }
        let count = bytes.count
        let stopAt = byteBudget >= count - scannedBytes ? count : scannedBytes + byteBudget
        var position = scannedBytes
        while pages.count < pageTarget, position <= count {
            if position >= stopAt, !(isFinal && position == count) { break }
            // Find the end of the line, noting whether it is plain printable ASCII.
            var end = position
            var isPlain = true
            var lastNonSpace = position - 1
            while end < count {
                let byte = bytes[end]
                if byte == 0x0A || byte == 0x0D || byte == 0x0C { break }
                if byte != 0x20 {
                    lastNonSpace = end
                    if byte < 0x20 || byte > 0x7E { isPlain = false }
                }
                end += 1
            }
            var next: Int
            var endsSection = false
            if end == count {
                guard isFinal else { break }
                next = count + 1
                endsSection = true
            } else {
                let terminator = bytes[end]
                if terminator == 0x0D {
                    if end + 1 == count && !isFinal { break }  // a CR LF may be split
                    next = end + 1 < count && bytes[end + 1] == 0x0A ? end + 2 : end + 1
                } else {
                    next = end + 1
                    endsSection = terminator == 0x0C
                }
            }
            let rows: Int
            let isBlank: Bool
            if isPlain {
                let width = lastNonSpace - position + 1
                rows = max(1, (width + PagedText.referenceWidth - 1) / PagedText.referenceWidth)
                isBlank = width == 0
            } else {
                guard let line = Self.cleanLine(UnsafeRawBufferPointer(rebasing: bytes[position..<end])) else {
                    invalidTextOffset = position
                    endSection()
                    finish()
                    return
                }
                rows = PagedText.referenceRows(of: line)
                isBlank = line.isEmpty
            }
            add(PendingLine(start: position, end: end, rows: rows, isBlank: isBlank), in: bytes)
            if endsSection { endSection() }
            position = next
            scannedBytes = min(next, count)
            if next > count {
                finish()
                return
            }
        }
    }

    /// Every page was found.
    private mutating func finish() {
        isComplete = true
        current = []
        used = 0
    }

    private mutating func add(_ line: PendingLine, in bytes: UnsafeRawBufferPointer) {
        if title == nil, !line.isBlank {
            let text = Self.cleanLine(UnsafeRawBufferPointer(rebasing: bytes[line.start..<line.end])) ?? ""
            title = Self.trimmed(text)
        }
        while !current.isEmpty, used + line.rows > PagedText.pageBudget { endPage() }
        current.append(line)
        used += line.rows
    }

    /// `PagedText`'s page end: after the last blank line in the budget's last quarter, else all.
    private mutating func endPage() {
        var breakAt: Int?
        var rows = 0
        for (index, line) in current.enumerated() {
            rows += line.rows
            if line.isBlank, rows * 4 >= PagedText.pageBudget * 3, index + 1 < current.count { breakAt = index + 1 }
        }
        let cut = breakAt ?? current.count
        emit(current[..<cut])
        current.removeFirst(cut)
        used = current.reduce(0) { $0 + $1.rows }
    }

    private mutating func endSection() {
        if !current.isEmpty { emit(current[...]) }
        current = []
        used = 0
    }

    private mutating func emit(_ lines: ArraySlice<PendingLine>) {
        guard let first = lines.firstIndex(where: { !$0.isBlank }), let last = lines.lastIndex(where: { !$0.isBlank })
        else { return }
        pages.append(PageSpan(start: lines[first].start, end: lines[last].end, lineCount: last - first + 1))
    }

    /// The source lines of `span` in `bytes`, cleaned as ``PagedText`` cleans them.
    package static func lines(of span: PageSpan, in bytes: UnsafeRawBufferPointer) -> [String] {
        var lines: [String] = []
        lines.reserveCapacity(span.lineCount)
        var position = span.start
        let end = min(span.end, bytes.count)
        while lines.count < span.lineCount, position <= end {
            var lineEnd = position
            while lineEnd < end, bytes[lineEnd] != 0x0A, bytes[lineEnd] != 0x0D { lineEnd += 1 }
            lines.append(cleanLine(UnsafeRawBufferPointer(rebasing: bytes[position..<lineEnd])) ?? "")
            position = lineEnd + 1
            if lineEnd < end, bytes[lineEnd] == 0x0D, position < end, bytes[position] == 0x0A { position += 1 }
        }
        return lines
    }

    /// One line (no line breaks in it) as the page shows it: cleaned, without trailing spaces;
    /// nil when it is not UTF-8.
    static func cleanLine(_ bytes: UnsafeRawBufferPointer) -> String? {
        if bytes.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) {
            var count = bytes.count
            while count > 0, bytes[count - 1] == 0x20 { count -= 1 }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<count]), as: UTF8.self)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        var line = PlainText.sanitized(text, keepingFormFeeds: true)
        while line.last == " " { line.removeLast() }
        return line
    }

    /// `line` without the white space at either end.
    private static func trimmed(_ line: String) -> String {
        let isSpace: (Character) -> Bool = { $0.unicodeScalars.allSatisfy(\.properties.isWhitespace) }
        guard let start = line.firstIndex(where: { !isSpace($0) }), let end = line.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(line[start...end])
    }
}

/// A document's text as far as it is known, with its pages found as far as they are needed:
/// what the Reader shows, so that opening a document of any size, or one still arriving, costs
/// the pages on screen rather than the whole text.
///
/// It holds the bytes read (or received) so far and a ``PageScanner``; ``findPages(through:)``
/// reads just far enough for a page, ``findAllPages()`` to the end (the Reader does that off the
/// run loop, and takes the result back with ``adopt(_:)``). Until every page is found, the number
/// of pages is estimated from the bytes per page so far (``estimatedPageCount``).
package struct DocumentText: Sendable {
    /// The document's bytes known so far, from its start.
    package private(set) var bytes: Data
    /// Whether ``bytes`` is the whole document.
    package private(set) var isFinal: Bool
    /// The document's size when known (a file's size, a transfer's header), else nil.
    package private(set) var expectedSize: Int?
    package private(set) var scanner = PageScanner()

    /// A text of `bytes`, the whole document when `isFinal`, of `expectedSize` bytes in all
    /// when known. Finds the first page.
    package init(bytes: Data, isFinal: Bool, expectedSize: Int? = nil) {
        self.bytes = bytes
        self.isFinal = isFinal
        self.expectedSize = isFinal ? bytes.count : expectedSize
        findPages(through: 1)
    }

    /// A complete text of `string` (its UTF-8), every page found.
    package init(_ string: String) {
        self.init(bytes: Data(string.utf8), isFinal: true)
        findAllPages()
    }

    /// Whether every page is known.
    package var isComplete: Bool { scanner.isComplete }
    /// The first line of the first page without the white space around it (nil for a blank
    /// document, or while its first line did not arrive).
    package var title: String? { scanner.title }
    /// The pages found so far (at least 1 once complete: an empty document has one empty page).
    package var knownPageCount: Int { isComplete ? max(1, scanner.pages.count) : scanner.pages.count }
    /// The number of pages, once every page is known.
    package var pageCount: Int? { isComplete ? knownPageCount : nil }
    /// Where the first bytes that are not UTF-8 text start, if there are any among those read.
    package var invalidTextOffset: Int? { scanner.invalidTextOffset }

    /// The number of pages: exact once known, else estimated from the bytes per page so far
    /// (at least the pages known, and one more when more is to come).
    package var estimatedPageCount: Int {
        if let pageCount { return pageCount }
        let known = scanner.pages.count
        guard known > 0, let size = expectedSize, scanner.scannedBytes > 0 else { return known + 1 }
        let estimate = (Double(known) * Double(size) / Double(scanner.scannedBytes)).rounded()
        return max(known + 1, Int(min(estimate, Double(Int32.max))))
    }

    /// How far the count of pages got, from 0 to 1 (1 once complete).
    package var countedFraction: Double {
        if isComplete { return 1 }
        guard let size = expectedSize, size > 0 else { return 0 }
        return min(1, Double(scanner.scannedBytes) / Double(size))
    }

    /// Reads on until page `page` is known (or every page is).
    package mutating func findPages(through page: Int) {
        guard !scanner.isComplete, scanner.pages.count < page else { return }
        let isFinal = isFinal
        bytes.withUnsafeBytes { scanner.scan($0, isFinal: isFinal, untilPageCount: page) }
    }

    /// Reads on to the end of the bytes known.
    package mutating func findAllPages() {
        let isFinal = isFinal
        bytes.withUnsafeBytes { scanner.scan($0, isFinal: isFinal) }
    }

    /// Reads on by at most `budget` bytes (for work done a piece at a time).
    package mutating func findPages(budget: Int) {
        let isFinal = isFinal
        bytes.withUnsafeBytes { scanner.scan($0, isFinal: isFinal, byteBudget: budget) }
    }

    /// More of the document arrived (`final`: it is all there now). A final text takes no more.
    package mutating func append(_ more: some Sequence<UInt8>, isFinal final: Bool = false) {
        guard !isFinal else { return }
        bytes.append(contentsOf: more)
        isFinal = final
        if final { expectedSize = bytes.count }
    }

    /// Takes `other`, the same document read further (from the background), when it knows
    /// more pages than this one.
    package mutating func adopt(_ other: DocumentText) {
        guard other.bytes.count >= bytes.count, other.isComplete || other.scanner.scannedBytes > scanner.scannedBytes
        else { return }
        self = other
    }

    /// The source lines of page `number` (from 1); empty when it is not known (yet).
    package func lines(ofPage number: Int) -> [String] {
        guard scanner.pages.indices.contains(number - 1) else { return [] }
        let span = scanner.pages[number - 1]
        return bytes.withUnsafeBytes { PageScanner.lines(of: span, in: $0) }
    }

    /// Every page's lines (all pages must be known): for tests and comparisons with ``PagedText``.
    package var pages: [[String]] {
        isComplete && scanner.pages.isEmpty ? [[]] : (1...max(1, scanner.pages.count)).map { lines(ofPage: $0) }
    }
}
