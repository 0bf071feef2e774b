import Foundation

/// The pages visited, with a place in them: back and forward, as in every browser.
///
/// Visiting a page drops the pages ahead of the current one. At most ``capacity`` pages are
/// kept (the oldest go first).
package struct BrowsingHistory: Hashable, Sendable {
    /// The most pages kept.
    package static let capacity = 100

    /// The pages, oldest first.
    package private(set) var entries: [URL] = []
    /// The index of the current page in ``entries`` (nil before the first visit).
    package private(set) var index: Int?

    package init() {}

    /// The page shown now.
    package var current: URL? { index.map { entries[$0] } }
    package var canGoBack: Bool { (index ?? 0) > 0 }
    package var canGoForward: Bool { index.map { $0 < entries.count - 1 } ?? false }

    /// Records a visit to `url`: it becomes the current page, and the pages ahead are dropped.
    /// Visiting the current page again (a reload) changes nothing.
    package mutating func visit(_ url: URL) {
        if url == current { return }
        if let index { entries.removeSubrange((index + 1)...) }
        entries.append(url)
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
        index = entries.count - 1
    }

    /// Moves back one page and returns it; nil (and no change) at the first page.
    package mutating func goBack() -> URL? {
        guard canGoBack, let index else { return nil }
        self.index = index - 1
        return entries[index - 1]
    }

    /// Moves forward one page and returns it; nil (and no change) at the last page.
    package mutating func goForward() -> URL? {
        guard canGoForward, let index else { return nil }
        self.index = index + 1
        return entries[index + 1]
    }
}
