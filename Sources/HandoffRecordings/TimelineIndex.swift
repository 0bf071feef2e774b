import Foundation
import Synchronization

/// Where each batch of a streamed timeline starts (``TimelineStream/Checkpoint``), found in one
/// pass over the recordings, so that the terminal replay can show any page of a timeline of
/// millions of events by reading a window of it again rather than holding its events.
///
/// ``build()`` reads the whole timeline (on a thread of its own) and may run while pages are
/// read: a page reads from the last checkpoint before it, and the first one is there from the
/// start. Its memory is a checkpoint per batch: the lanes' positions and the few receipts then
/// pending, some hundred bytes each per thousands of rows.
package final class TimelineIndex: Sendable {
    /// How far the index is.
    package struct Progress: Sendable, Hashable {
        /// Rows found so far (all of them once complete).
        package var rows: Int
        package var isComplete: Bool
        /// Why reading stopped early: a line that cannot be read.
        package var error: RecordingError?

        package init(rows: Int, isComplete: Bool, error: RecordingError? = nil) {
            self.rows = rows
            self.isComplete = isComplete
            self.error = error
        }
    }

    private struct State {
        var checkpoints: [TimelineStream.Checkpoint] = []
        var progress = Progress(rows: 0, isComplete: false)
    }

    package let files: [String]
    package let lanes: [Timeline.Lane]
    package let window: Int
    private let state: Mutex<State>

    /// Opens the recordings (their headers) and takes the first checkpoint.
    ///
    /// - Throws: ``RecordingError`` as ``TimelineStream/init(files:window:)``.
    package init(files: [String], window: Int = TimelineStream.defaultWindow) throws(RecordingError) {
        let stream = try TimelineStream(files: files, window: window)
        self.files = files
        self.window = window
        lanes = stream.lanes
        var state = State()
        if let first = stream.checkpoint { state.checkpoints.append(first) }
        self.state = Mutex(state)
    }

    package var progress: Progress { state.withLock { $0.progress } }

    /// Reads the whole timeline, taking a checkpoint at each batch; returns when it is done (or
    /// a line cannot be read: ``Progress/error``).
    package func build() {
        do {
            var stream = try TimelineStream(files: files, window: window)
            var rows = 0
            while true {
                if let checkpoint = stream.checkpoint, checkpoint.rowsBefore > 0 {
                    state.withLock {
                        if ($0.checkpoints.last?.rowsBefore ?? -1) < checkpoint.rowsBefore {
                            $0.checkpoints.append(checkpoint)
                        }
                        $0.progress.rows = max($0.progress.rows, rows)
                    }
                }
                guard try stream.next() != nil else { break }
                rows += 1
            }
            state.withLock {
                $0.progress.rows = rows
                $0.progress.isComplete = true
            }
        } catch {
            state.withLock {
                $0.progress.error = error
                $0.progress.isComplete = true
            }
        }
    }

    /// The rows of `range` (those of it that exist), read again from the last checkpoint before it.
    ///
    /// - Throws: ``RecordingError`` for a line that cannot be read.
    package func rows(_ range: Range<Int>) throws(RecordingError) -> [TimelineStream.Row] {
        guard !range.isEmpty else { return [] }
        let checkpoint = state.withLock { state in
            state.checkpoints.last { $0.rowsBefore <= range.lowerBound } ?? state.checkpoints.first
        }
        var stream: TimelineStream
        if let checkpoint {
            stream = try TimelineStream(files: files, from: checkpoint, window: window)
        } else {
            stream = try TimelineStream(files: files, window: window)
        }
        var rows: [TimelineStream.Row] = []
        while let row = try stream.next(), row.index < range.upperBound {
            if row.index >= range.lowerBound { rows.append(row) }
        }
        return rows
    }
}
