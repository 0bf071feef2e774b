import Foundation
import HandoffCore
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
        for command in [
            TimelineReplay.Command.step, .back, .pageForward, .pageBack, .start, .end, .togglePlay, .tick, .moreDetail,
        ] {
            replay.apply(command)
            #expect(replay.played == 0 && !replay.isPlaying && replay.detailPage == 0)
        }
    }

    @Test func oneEventIsShownAndStaysShown() {
        var replay = TimelineReplay(eventCount: 1)
        #expect(replay.played == 1 && replay.isAtEnd)
        replay.apply(.back)
        replay.apply(.togglePlay)
        #expect(replay.played == 1 && !replay.isPlaying)
    }

    /// d turns the shown event's detail a page; another event starts at its first page, and
    /// turning does not stop the play.
    @Test func theDetailTurnsItsPagesAndAnotherEventStartsAtTheFirst() {
        var replay = TimelineReplay(eventCount: 3)
        #expect(replay.apply(.moreDetail) && replay.detailPage == 1)
        replay.apply(.moreDetail)
        #expect(replay.detailPage == 2 && replay.played == 1)
        replay.apply(.step)
        #expect(replay.detailPage == 0)
        replay.apply(.togglePlay)
        replay.apply(.moreDetail)
        #expect(replay.isPlaying && replay.detailPage == 1)
        replay.apply(.tick)
        #expect(replay.played == 3 && replay.detailPage == 0)
        replay.apply(.moreDetail)
        replay.apply(.back)
        #expect(replay.detailPage == 0)
    }

    /// The detail panel reads a recorded event as a shared one: every field kept, a value the
    /// typed event would refuse as its JSON text, the userInfo as a userInfo.
    @Test func aRecordedEventIsReadAsAnEntryWhateverItsFieldsHold() throws {
        let line =
            #"{"time":"2026-11-24T06:44:57Z","kind":"continuationFailed","errorCode":4610,"#
            + #""error":"NSUserActivityRemoteApplicationTimedOutError","reason":"no payload","#
            + #""odd":[1,{"a":null}],"userInfo":{"page":3,"chapter":"Loomings"},"size":177}"#
        let text =
            #"{"recording":"handoff-lifecycle","version":1,"device":"Phone","deviceID":"p","#
            + #""kind":"phone","account":"demo"}"# + "\n" + line + "\n"
        let recording = try LifecycleRecording(data: Data(text.utf8), file: "phone.jsonl")
        let entry = try #require(recording.events.first?.entry)
        #expect(entry.device == "Phone" && entry.kind == .continuationFailed)
        #expect(entry.string("time") == "2026-11-24T06:44:57Z", "as recorded")
        #expect(entry.integer("errorCode") == 4610 && entry.integer("size") == 177)
        #expect(entry.string("odd") == #"[1,{"a":null}]"#)
        #expect(entry.userInfo == ["chapter": .string("Loomings"), "page": .integer(3)])
        // A time as devices write it is kept as written (not .391 for .392, as a Date's binary
        // fraction formatted again would say).
        let exact = text.replacingOccurrences(of: "2026-11-24T06:44:57Z", with: "2026-11-24T06:43:08.392Z")
        let written = try #require(try LifecycleRecording(data: Data(exact.utf8), file: "phone.jsonl").events.first)
        #expect(written.entry?.string("time") == "2026-11-24T06:43:08.392Z")
        // Every time the reader takes has an entry, at the ends of what it takes too.
        for time in ["0000-01-01T00:00:00.000Z", "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"] {
            let edge = text.replacingOccurrences(of: "2026-11-24T06:44:57Z", with: time)
            let event = try #require(try LifecycleRecording(data: Data(edge.utf8), file: "phone.jsonl").events.first)
            #expect(event.entry != nil, "\(time)")
        }
    }
}
