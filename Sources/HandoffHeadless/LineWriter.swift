import Foundation
import HandoffCore
import Synchronization

/// A thread-safe sink for output lines: standard output in the real program, an array in tests.
///
/// Every ``write(_:)`` delivers exactly one complete line (without its newline) to the closure,
/// and lines written from different threads never interleave: the closure is called under a lock.
package final class LineWriter: Sendable {
    private let sink: @Sendable (String) -> Void
    private let lock = Mutex(())

    package init(_ write: @escaping @Sendable (String) -> Void) {
        sink = write
    }

    /// Writes `object` as one line of JSON (keys sorted).
    package func write(_ object: JSONValue) {
        let line = object.jsonText
        lock.withLock { _ in sink(line) }
    }
}
