import HandoffRecordings
import Testing

/// The interactive replay of `handoff timeline`: forward, back, step and play, within bounds.
@Suite("Timeline replay")
struct TimelineReplayTests {
    @Test func itStartsAtTheFirstEventAndStepsWithinTheBounds() {
        var replay = TimelineReplay(eventCount: 3)
        #expect(replay.played == 1 && replay.selected == 0)
        let changed1 = replay.apply(.back)
        #expect(!changed1)
        #expect(replay.played == 1)
        let changed2 = replay.apply(.step)
        #expect(changed2 && replay.played == 2)
        let changed3 = replay.apply(.step)
        #expect(changed3 && replay.played == 3 && replay.isAtEnd)
        let changed4 = replay.apply(.step)
        #expect(!changed4)
        #expect(replay.played == 3 && replay.selected == 2)
        let changed5 = replay.apply(.back)
        #expect(changed5 && replay.played == 2)
    }

    @Test func pagesStartAndEndStayInside() {
        var replay = TimelineReplay(eventCount: 25)
        replay.apply(.pageForward)
        #expect(replay.played == 1 + TimelineReplay.pageSize)
        replay.apply(.pageForward)
        replay.apply(.pageForward)
        #expect(replay.played == 25)
        replay.apply(.pageBack)
        #expect(replay.played == 25 - TimelineReplay.pageSize)
        replay.apply(.start)
        #expect(replay.played == 1)
        replay.apply(.pageBack)
        #expect(replay.played == 1)
        replay.apply(.end)
        #expect(replay.played == 25)
    }

    @Test func playingStepsOnEachTickAndStopsAtTheEnd() {
        var replay = TimelineReplay(eventCount: 3)
        let changed6 = replay.apply(.tick)
        #expect(!changed6, "a tick does nothing while paused")
        replay.apply(.togglePlay)
        #expect(replay.isPlaying)
        replay.apply(.tick)
        #expect(replay.played == 2 && replay.isPlaying)
        replay.apply(.tick)
        #expect(replay.played == 3 && !replay.isPlaying && replay.isAtEnd)
        let changed7 = replay.apply(.tick)
        #expect(!changed7)
        // Playing again from the end starts over.
        replay.apply(.togglePlay)
        #expect(replay.played == 1 && replay.isPlaying)
        // A step or a back pauses.
        replay.apply(.step)
        #expect(replay.played == 2 && !replay.isPlaying)
        replay.apply(.togglePlay)
        replay.apply(.togglePlay)
        #expect(!replay.isPlaying && replay.played == 2)
    }

    @Test func anEmptyTimelineHasNothingToShow() {
        var replay = TimelineReplay(eventCount: 0)
        #expect(replay.played == 0 && replay.selected == nil && replay.isAtEnd)
        for command in [TimelineReplay.Command.step, .back, .pageForward, .pageBack, .start, .end, .togglePlay, .tick] {
            replay.apply(command)
            #expect(replay.played == 0 && !replay.isPlaying)
        }
    }

    @Test func oneEventIsShownAndStaysShown() {
        var replay = TimelineReplay(eventCount: 1)
        #expect(replay.played == 1 && replay.isAtEnd)
        replay.apply(.back)
        replay.apply(.togglePlay)
        #expect(replay.played == 1 && !replay.isPlaying)
    }
}
