/// A place in a document, independent of the screen: the text at the top of the reading view.
///
/// The place is kept in the document's own terms: a logical page (``PagedText``), a source line
/// of that page, and how many characters into that line the top row starts. A screen of any
/// width wraps the page itself and shows the row that contains this character at the top, so a
/// position restored on a narrower or wider device starts with the same words. (A scroll offset
/// in screen rows would not survive a change of width; an offset in rows at some reference width
/// would need the same mapping back to the text, with a less natural value.)
package struct ReadingPosition: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The logical page, from 1.
    package var page: Int
    /// The source line of the page at the top of the view, from 0.
    package var line: Int
    /// Characters (grapheme clusters) into that line where the top row starts, from 0; not 0
    /// only when a long line wraps and the view starts inside it.
    package var character: Int

    package init(page: Int, line: Int = 0, character: Int = 0) {
        self.page = page
        self.line = line
        self.character = character
    }

    /// The top of the first page.
    package static let start = ReadingPosition(page: 1)

    package static func < (lhs: ReadingPosition, rhs: ReadingPosition) -> Bool {
        (lhs.page, lhs.line, lhs.character) < (rhs.page, rhs.line, rhs.character)
    }

    package var description: String { "page \(page), line \(line), character \(character)" }
}
