import Dispatch
import Foundation
import Glibc
import HandoffTestSupport
import TerminalCells
import Testing

@testable import CursesTerminal

/// A keyboard made of a pipe: each byte written is a key.
private final class PipeKeyboard: TerminalEventSource {
    let readEnd: Int32
    private(set) var writeEnd: Int32
    var signal: Int32?

    init() throws {
        (readEnd, writeEnd) = try makeWakePipe()
    }

    deinit {
        close(readEnd)
        if writeEnd >= 0 { close(writeEnd) }
    }

    func type(_ text: String) {
        var bytes = Array(text.utf8)
        _ = write(writeEnd, &bytes, bytes.count)
    }

    func unplug() {
        close(writeEnd)
        writeEnd = -1
    }

    /// How many stops (Ctrl-Z and `fg`) the next looks at job control report, and a signal that
    /// arrives during the stop (`kill %1`: SIGTERM, then SIGCONT).
    var pendingStops = 0
    var signalDuringStop: Int32?

    var inputDescriptor: Int32? { readEnd }
    var signalDescriptor: Int32? { nil }
    var receivedSignal: Int32? { signal }
    func drainSignalNotifications() {}

    func handleJobControl() -> Bool {
        guard pendingStops > 0 else { return false }
        pendingStops -= 1
        if let signalDuringStop { signal = signalDuringStop }
        return true
    }

    func readEvents() -> [TerminalEvent] {
        var buffer = [UInt8](repeating: 0, count: 256)
        var events: [TerminalEvent] = []
        while true {
            let count = read(readEnd, &buffer, buffer.count)
            guard count > 0 else { break }
            events += buffer[..<count].map { .key(.character(Character(Unicode.Scalar($0)))) }
        }
        return events
    }
}

@Suite("Run loop", .ownThread)
struct TerminalRunLoopTests {
    private var soon: ContinuousClock.Instant { .now + .seconds(5) }

    @Test func keysArriveInOrderAndReportPendingOnes() throws {
        let keyboard = try PipeKeyboard()
        let loop = try TerminalRunLoop(source: keyboard)
        keyboard.type("ab")
        #expect(loop.nextEvent(until: soon) == .key(.character("a")))
        #expect(loop.hasPendingEvents)
        #expect(loop.nextEvent(until: soon) == .key(.character("b")))
        #expect(!loop.hasPendingEvents)
    }

    @Test func aDeadlineEndsTheSleep() throws {
        let loop = try TerminalRunLoop(source: PipeKeyboard())
        let start = ContinuousClock.now
        #expect(loop.nextEvent(until: start + .milliseconds(30)) == .deadline)
        #expect(ContinuousClock.now - start >= .milliseconds(30))
        #expect(loop.nextEvent(until: start - .seconds(1)) == .deadline)  // already past
    }

    @Test func wakeFromAnotherThread() throws {
        let loop = try TerminalRunLoop(source: PipeKeyboard())
        let waker = loop.waker
        // A thread of its own: the test blocks a thread of the shared pool in poll, and a
        // task could wait behind it (and other blocked tests) on a 2-core machine.
        Thread.detachNewThread {
            usleep(20_000)
            waker.wake()
        }
        #expect(loop.nextEvent(until: soon) == .wake)
    }

    @Test func wakeUpsCoalesce() throws {
        let loop = try TerminalRunLoop(source: PipeKeyboard())
        for _ in 0..<1000 { loop.waker.wake() }
        #expect(loop.nextEvent(until: soon) == .wake)
        #expect(loop.nextEvent(until: .now + .milliseconds(20)) == .deadline)
        loop.waker.wake()
        #expect(loop.nextEvent(until: soon) == .wake)
    }

    /// A wake-up from another thread at the worst moment of the loop's consume (between its two
    /// steps) is seen by the frame drawn after it, and the next wake-up still wakes the loop.
    /// When the flag was cleared before the pipe was drained, the racing wake-up's byte was
    /// drained with the flag left set: every later wake-up was skipped, and a device's screen
    /// stayed as it was (no peer listed) until a key or a deadline.
    @Test func aWakeUpRacingWithConsumeLeavesTheNextOneWorking() throws {
        let loop = try TerminalRunLoop(source: PipeKeyboard())
        let waker = loop.waker
        waker.wake()
        waker.consume(midway: { waker.wake() })
        waker.wake()
        #expect(loop.nextEvent(until: .now + .milliseconds(200)) == .wake, "the wake-up after the race was lost")
    }

    @Test func inboxDeliversEveryMessagePostedFromManyThreads() throws {
        let loop = try TerminalRunLoop(source: PipeKeyboard())
        let inbox = TerminalInbox<Int>(waker: loop.waker)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<100 { inbox.post(thread * 100 + index) }
        }
        #expect(loop.nextEvent(until: soon) == .wake)
        let messages = inbox.drain()
        #expect(messages.count == 800)
        #expect(Set(messages) == Set(0..<800))
        #expect(inbox.drain().isEmpty)
    }

    @Test func aSignalComesFirstAndStays() throws {
        let keyboard = try PipeKeyboard()
        let loop = try TerminalRunLoop(source: keyboard)
        keyboard.type("xy")
        #expect(loop.nextEvent(until: soon) == .key(.character("x")))
        keyboard.signal = SIGTERM
        #expect(loop.nextEvent(until: soon) == .signal(SIGTERM))
        #expect(loop.nextEvent(until: soon) == .signal(SIGTERM))
    }

    @Test func aStopAndContinueIsReportedBeforeKeysAlreadyRead() throws {
        let keyboard = try PipeKeyboard()
        let loop = try TerminalRunLoop(source: keyboard)
        keyboard.type("ab")
        #expect(loop.nextEvent(until: soon) == .key(.character("a")))
        keyboard.pendingStops = 1
        #expect(loop.nextEvent(until: soon) == .resumed)
        #expect(loop.nextEvent(until: soon) == .key(.character("b")))
    }

    @Test func aSignalDuringAStopEndsTheLoopInsteadOfResuming() throws {
        let keyboard = try PipeKeyboard()
        let loop = try TerminalRunLoop(source: keyboard)
        keyboard.pendingStops = 1
        keyboard.signalDuringStop = SIGTERM
        #expect(loop.nextEvent(until: soon) == .signal(SIGTERM))
    }

    @Test func aClosedKeyboardIsAHangUp() throws {
        let keyboard = try PipeKeyboard()
        let loop = try TerminalRunLoop(source: keyboard)
        keyboard.unplug()
        #expect(loop.nextEvent(until: soon) == .signal(SIGHUP))
    }

    @Test func timeoutsRoundUpToWholeMilliseconds() {
        #expect(TerminalRunLoop.milliseconds(roundingUp: .nanoseconds(1)) == 1)
        #expect(TerminalRunLoop.milliseconds(roundingUp: .microseconds(1500)) == 2)
        #expect(TerminalRunLoop.milliseconds(roundingUp: .seconds(2)) == 2000)
        #expect(TerminalRunLoop.milliseconds(roundingUp: .seconds(1) * 10_000_000) == Int32.max)
    }

    @Test func aLoopNeedsAStartedTerminal() {
        #expect(throws: CursesTerminalError.notStarted) { try TerminalRunLoop(terminal: CursesTerminal()) }
    }
}
