import HandoffCore
import NIOCore

/// Carries continuation-stream bytes between a session connection and the apps' queues, on the
/// connection's event loop, in both directions, with backpressure.
///
/// Socket to app: each data frame's bytes go straight into the app's queue as the frame is read;
/// when the app is more than ``ChunkQueue/highWatermark`` bytes behind, the handler stops asking
/// the socket for more until the app has caught up. App to socket: whatever the app has written is
/// taken at once when the channel can take more, packed into frames of
/// ``StreamBridge/frameLength`` bytes (whole TLS records) and each frame written and flushed as
/// it is made; when the app's queue is empty the handler is called back by its next write. No
/// task runs between the channel and the apps (a hop through one per batch cost about a fifth of
/// a stream's CPU, see docs/bench.md).
///
/// A clean end or a failure on either side ends the other side: if the connection drops, the
/// app's reads throw and its writes return at once, so nothing hangs. ``done`` succeeds once both
/// directions have ended (or the connection has closed).
///
/// On the continuing side the handler is added before the stream is requested
/// (``awaitAcceptance(on:)``) so that it sees the origin's acceptance and every stream frame after
/// it, in order, even those that arrive before the apps' ends exist; on the origin it is added
/// with the apps' ends and writes the acceptance itself, ahead of any stream frame.
final class StreamChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = SessionFrame
    typealias InboundOut = SessionFrame
    typealias OutboundIn = SessionFrame
    typealias OutboundOut = SessionFrame

    /// The apps' ends of the stream, as the network sees them.
    struct Ends {
        /// What arrives on the socket is queued here for the local app.
        let toApp: ChunkQueue
        /// What the local app writes is taken from here.
        let fromApp: ChunkQueue
    }

    /// What a stream frame said, kept while the apps' ends are not attached yet.
    private enum Arrival {
        case bytes([UInt8])
        case end
        case failed(reason: String)
        /// A frame that has no place in a stream: the peer loses the connection.
        case unexpected
    }

    private enum Phase {
        /// The continuing side, before the origin answered: every frame passes on.
        case awaitingAcceptance
        /// Accepted, the apps' ends not attached yet: stream frames are kept, in order.
        case holding([Arrival])
        case attached(Ends)
    }

    private var phase: Phase
    private var context: ChannelHandlerContext?
    private let done: EventLoopPromise<Void>
    private var inboundEnded = false
    private var outboundEnded = false
    /// The app is too far behind: reads are held until it catches up.
    private var readingPaused = false
    private var readPending = false
    /// The channel's writability changed while the stream was carried, and the handlers behind
    /// this one have not been told yet.
    private var writabilityHeld = false
    /// Bytes were queued for the app since its reader was last woken.
    private var appToWake = false
    private var draining = false
    private var drainAgain = false
    private var pool = FrameBufferPool()
    /// Why the connection ended, once it has.
    private var closedReason: String?
    /// The last frame this side sent (the end, or a failure) has been written to the socket.
    private var lastFrameWritten = false
    private var over = false

    /// Succeeds once both directions have ended, or the connection closed.
    var finished: EventLoopFuture<Void> { done.futureResult }

    private init(phase: Phase, eventLoop: any EventLoop) {
        self.phase = phase
        done = eventLoop.makePromise()
    }

    /// Adds a handler to `channel`'s pipeline (on its event loop) after the session's own
    /// handlers and before the async channel's, so stream frames never reach the latter.
    static func add(_ handler: StreamChannelHandler, to channel: any Channel) throws {
        channel.eventLoop.preconditionInEventLoop()
        let operations = channel.pipeline.syncOperations
        let anchor: any ChannelHandler
        if let roster = try? operations.handler(type: RosterActivity<DeviceID>.self) {
            anchor = roster
        } else if let tap = try? operations.handler(type: PayloadRequestTap.self) {
            anchor = tap
        } else if let idle = try? operations.handler(type: IdleCloser.self) {
            anchor = idle
        } else {
            anchor = try operations.handler(type: SessionFrameWriter.self)
        }
        try operations.addHandler(handler, position: .after(anchor))
        try operations.handler(type: SessionFrameReader.self).slicesWholeDataFrames = true
    }

    /// The origin: adds a handler with the apps' ends to an accepted session, writes `.streamAccepted`
    /// and starts carrying the stream; the future succeeds when the stream is over.
    static func accept(on channel: any Channel, ends: Ends) -> EventLoopFuture<Void> {
        channel.eventLoop.submit {
            let handler = StreamChannelHandler(phase: .holding([]), eventLoop: channel.eventLoop)
            try add(handler, to: channel)
            handler.attach(ends, announcing: .streamAccepted)
            return handler.finished
        }.flatMap { $0 }
    }

    /// The continuing side: adds a handler waiting for the origin's answer, before the stream is
    /// requested.
    static func awaitAcceptance(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.submit {
            try add(StreamChannelHandler(phase: .awaitingAcceptance, eventLoop: channel.eventLoop), to: channel)
        }
    }

    /// The continuing side: attaches the apps' ends to the handler of
    /// ``awaitAcceptance(on:)`` once the origin has accepted; what arrived since goes to the app
    /// first. The future succeeds when the stream is over.
    static func attach(_ ends: Ends, on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.submit {
            let handler = try channel.pipeline.syncOperations.handler(type: StreamChannelHandler.self)
            handler.attach(ends, announcing: nil)
            return handler.finished
        }.flatMap { $0 }
    }

    /// Waits until the stream carried by `future` is over; the connection is closed if the
    /// waiting task is cancelled. If the stream could not start, the apps' ends are told.
    static func carry(_ future: EventLoopFuture<Void>, ends: Ends, closing channel: any Channel) async {
        await withTaskCancellationHandler {
            do {
                try await future.get()
            } catch {
                ends.toApp.finish(
                    error: ContinuationStreamError.unavailable(
                        "the stream could not start: \(NetworkErrorWords.describe(error))"))
                ends.fromApp.cancel()
            }
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if !context.channel.isActive { closed(because: "the connection closed before the stream ended") }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closed(because: "the connection closed before the stream ended")
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed(because: "the connection closed before the stream ended")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        closed(because: "the connection failed: \(NetworkErrorWords.describe(error))")
        context.fireErrorCaught(error)
    }

    // MARK: Socket to app

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch phase {
        case .awaitingAcceptance:
            if case .streamAccepted = frame { phase = .holding([]) }
            context.fireChannelRead(data)
        case .holding(var arrivals):
            guard !inboundEnded else { return }
            let arrival = Self.arrival(frame)
            phase = .holding([])  // keeps `arrivals` uniquely referenced while it grows
            arrivals.append(arrival)
            phase = .holding(arrivals)
            if case .bytes = arrival {} else { inboundEnded = true }
        case .attached(let ends):
            guard !inboundEnded else { return }
            deliver(Self.arrival(frame), to: ends)
        }
    }

    private static func arrival(_ frame: SessionFrame) -> Arrival {
        switch frame {
        case .streamData(let buffer): .bytes(Array(buffer.readableBytesView))
        case .streamEnd: .end
        case .streamFailed(let reason): .failed(reason: reason)
        default: .unexpected
        }
    }

    private func deliver(_ arrival: Arrival, to ends: Ends) {
        switch arrival {
        case .bytes(let bytes):
            // The app is woken once the socket's read is done (`channelReadComplete`), for every
            // frame of it at once; or now, if it is too far behind.
            guard ends.toApp.enqueueWithoutWaking(bytes) else {
                appToWake = true
                return
            }
            ends.toApp.wakeReaders()
            appToWake = false
            guard !readingPaused, let context else { return }
            readingPaused = true
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            ends.toApp.whenCaughtUp { eventLoop.execute { handler.value.resumeReading() } }
        case .end:
            inboundEnded = true
            ends.toApp.finish(error: nil)
            endIfBothEnded()
        case .failed(let reason):
            inboundEnded = true
            ends.toApp.finish(error: ContinuationStreamError.unavailable("the peer failed the stream: \(reason)"))
            endIfBothEnded()
        case .unexpected:
            // A peer that breaks the stream's protocol loses the connection.
            inboundEnded = true
            ends.toApp.finish(error: ContinuationStreamError.unavailable("unexpected frame in a stream"))
            context?.close(promise: nil)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        wakeApp()
        context.fireChannelReadComplete()
    }

    private func wakeApp() {
        guard appToWake, case .attached(let ends) = phase else { return }
        appToWake = false
        ends.toApp.wakeReaders()
    }

    private func resumeReading() {
        readingPaused = false
        guard readPending, let context else { return }
        readPending = false
        context.read()
    }

    func read(context: ChannelHandlerContext) {
        if readingPaused {
            readPending = true
        } else {
            context.read()
        }
    }

    // MARK: App to socket

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        drain()
        // While the stream owns the connection its writability flips with every frame or two;
        // the session's async writer behind this handler writes nothing meanwhile, so it is told
        // once, when the stream is over (each change costs it a pass through its state machine:
        // a tenth of the sending loop's time, see docs/bench.md).
        guard case .attached = phase, !over else {
            context.fireChannelWritabilityChanged()
            return
        }
        writabilityHeld = true
    }

    private func attach(_ ends: Ends, announcing announcement: SessionFrame?) {
        let arrivals: [Arrival]
        switch phase {
        case .holding(let held): arrivals = held
        case .awaitingAcceptance, .attached: arrivals = []
        }
        phase = .attached(ends)
        if let announcement, let context { context.writeAndFlush(wrapOutboundOut(announcement), promise: nil) }
        let endedBefore = inboundEnded
        inboundEnded = false
        for arrival in arrivals { deliver(arrival, to: ends) }
        wakeApp()
        if endedBefore, !inboundEnded {
            // The connection closed (or failed) while the ends were not attached yet.
            inboundEnded = true
            ends.toApp.finish(error: ContinuationStreamError.unavailable(closedReason ?? "the stream ended"))
        }
        if outboundEnded { ends.fromApp.cancel() }
        drain()
        endIfBothEnded()
    }

    /// Writes what the app has written, frame by frame, while the channel takes more.
    private func drain() {
        guard case .attached(let ends) = phase, !outboundEnded, let context else { return }
        guard !draining else {
            // A write below changed the channel's writability: go on after it, in order.
            drainAgain = true
            return
        }
        draining = true
        defer { draining = false }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        repeat {
            drainAgain = false
            while context.channel.isWritable, !outboundEnded {
                switch ends.fromApp.takeAll(orWhenReadable: { eventLoop.execute { handler.value.drain() } }) {
                case .chunks(let chunks):
                    for frame in StreamBridge.frames(packing: chunks, pool: &pool) {
                        // Each frame flushed as it is written, as the bare TLS stream does: TLS
                        // encrypts on flush, and only then does the channel count the bytes.
                        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
                    }
                case .empty:
                    return
                case .finished:
                    writeLast(.streamEnd, context)
                case .failed(let error):
                    writeLast(.streamFailed(reason: NetworkErrorWords.describe(error)), context)
                }
            }
        } while drainAgain && !outboundEnded
    }

    /// Ends this side's direction with `frame`; the stream is over for this side only once it is
    /// on the socket (closing the connection earlier could drop it).
    private func writeLast(_ frame: SessionFrame, _ context: ChannelHandlerContext) {
        outboundEnded = true
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { _ in
            handler.value.lastFrameWritten = true
            handler.value.endIfBothEnded()
        }
        context.writeAndFlush(wrapOutboundOut(frame), promise: written)
    }

    // MARK: Ends

    /// The connection is gone: both directions end, with `reason` for the app's reads.
    private func closed(because reason: String) {
        guard closedReason == nil else { return }
        closedReason = reason
        switch phase {
        case .awaitingAcceptance:
            inboundEnded = true
            outboundEnded = true
        case .holding:
            // Told to the app when its ends are attached.
            inboundEnded = true
            outboundEnded = true
        case .attached(let ends):
            if !inboundEnded {
                inboundEnded = true
                ends.toApp.finish(error: ContinuationStreamError.unavailable(reason))
            }
            if !outboundEnded {
                outboundEnded = true
                ends.fromApp.cancel()
            }
        }
        finish()
    }

    private func endIfBothEnded() {
        guard inboundEnded, lastFrameWritten, case .attached = phase else { return }
        finish()
    }

    private func finish() {
        guard !over else { return }
        over = true
        if writabilityHeld, let context {
            writabilityHeld = false
            context.fireChannelWritabilityChanged()
        }
        done.succeed(())
    }
}
