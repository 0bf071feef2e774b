import Foundation

/// Where an interactive replay of a ``Timeline`` is (`handoff timeline FILE…` on a terminal):
/// how many events have been played, and whether it plays by itself. A value with a pure
/// transition function, so the terminal view only draws it.
///
/// The first event is shown from the start; stepping forward plays the next one, stepping back
/// takes the last one back. Playing steps forward once per ``playInterval`` and stops at the end.
package struct TimelineReplay: Sendable, Hashable {
    /// What the user asks.
    package enum Command: Sendable, Hashable {
        /// One event forward (and stop playing).
        case step
        /// One event back (and stop playing).
        case back
        /// A page of events forward or back.
        case pageForward, pageBack
        /// The first event; every event.
        case start, end
        /// Play forward, one event per ``TimelineReplay/playInterval``, or pause.
        case togglePlay
        /// The play interval passed: one event forward while playing.
        case tick
        /// The next page of the shown event's detail (after the last: the first again).
        case moreDetail
    }

    /// How many events a page moves.
    package static let pageSize = 10
    /// How long each event is shown while playing.
    package static let playInterval: TimeInterval = 0.4

    /// The number of events in the timeline (so far, while a long one is still being read:
    /// ``extend(to:)``).
    package private(set) var eventCount: Int
    /// How many events are shown: 1 to ``eventCount`` (0 only when there are none).
    package private(set) var played: Int
    package private(set) var isPlaying = false
    /// Pages the shown event's detail is turned by (another event starts at its first page).
    package private(set) var detailPage = 0

    package init(eventCount: Int) {
        self.eventCount = max(0, eventCount)
        played = min(1, self.eventCount)
    }

    /// More events were found (a long timeline is read while it is replayed): `eventCount`
    /// grows to `count`, and the first event shows if none did.
    package mutating func extend(to count: Int) {
        guard count > eventCount else { return }
        eventCount = count
        if played == 0 { played = 1 }
    }

    /// The event shown last, which the detail describes (nil when there are none).
    package var selected: Int? { played > 0 ? played - 1 : nil }

    package var isAtEnd: Bool { played == eventCount }

    /// Applies `command`; returns whether anything changed.
    @discardableResult
    package mutating func apply(_ command: Command) -> Bool {
        let before = self
        let first = min(1, eventCount)
        switch command {
        case .step:
            isPlaying = false
            played = min(eventCount, played + 1)
        case .back:
            isPlaying = false
            played = max(first, played - 1)
        case .pageForward:
            isPlaying = false
            played = min(eventCount, played + Self.pageSize)
        case .pageBack:
            isPlaying = false
            played = max(first, played - Self.pageSize)
        case .start:
            isPlaying = false
            played = first
        case .end:
            isPlaying = false
            played = eventCount
        case .togglePlay:
            if isPlaying {
                isPlaying = false
            } else if eventCount > 0 {
                // Playing from the end starts again from the first event.
                if isAtEnd { played = first }
                isPlaying = !isAtEnd
            }
        case .tick:
            guard isPlaying else { break }
            played = min(eventCount, played + 1)
        case .moreDetail:
            if played > 0 { detailPage += 1 }
        }
        if isAtEnd { isPlaying = false }
        if played != before.played { detailPage = 0 }
        return self != before
    }
}
