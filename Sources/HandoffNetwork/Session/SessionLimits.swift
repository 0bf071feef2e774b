import NIOCore
import Synchronization

/// The bytes of partly received frames a device holds, across all its session connections.
///
/// A frame's body is collected as its bytes arrive (never reserved up front from the announced
/// length); each byte collected is taken from this budget and given back when the frame is
/// delivered or the connection ends. A connection whose next bytes do not fit fails with a
/// ``SessionFrameError`` and is closed, so peers announcing large frames and trickling them
/// cannot make a device hold more than ``total`` bytes.
final class SessionReadBudget: Sendable {
    let total: Int
    private let used = Mutex(0)

    init(total: Int) {
        self.total = total
    }

    /// Takes `count` bytes if they fit.
    func reserve(_ count: Int) -> Bool {
        used.withLock { used in
            guard count <= total - used else { return false }
            used += count
            return true
        }
    }

    func release(_ count: Int) {
        guard count > 0 else { return }
        used.withLock { $0 -= count }
    }

    /// Bytes currently taken.
    var inUse: Int { used.withLock { $0 } }
}

/// Bounds the connections a server has accepted that have not finished their TLS handshake:
/// at most `total`, and at most `perAddress` from one source address. A newcomer over either
/// cap is admitted and the oldest pending connection (of that address, or overall) is closed
/// instead, so a stranger holding silent connections cannot keep a peer from connecting, and
/// the count never grows past the caps.
final class HandshakeGate: Sendable {
    let total: Int
    let perAddress: Int

    private struct Pending {
        var channel: any Channel
        var address: String
        var sequence: UInt64
    }

    private struct State {
        var pending: [ObjectIdentifier: Pending] = [:]
        var counts: [String: Int] = [:]
        var sequence: UInt64 = 0
        var evicted: UInt64 = 0
    }

    private let state = Mutex(State())

    init(total: Int, perAddress: Int) {
        self.total = max(1, total)
        self.perAddress = max(1, perAddress)
    }

    /// Registers a connection that has started its handshake; closes whatever it displaces.
    func admit(_ channel: any Channel) {
        let address = channel.remoteAddress?.ipAddress ?? "?"
        let key = ObjectIdentifier(channel)
        let displaced: [any Channel] = state.withLock { state in
            guard state.pending[key] == nil else { return [] }
            var displaced: [any Channel] = []
            func evictOldest(where matches: (Pending) -> Bool) {
                guard let oldest = state.pending.filter({ matches($0.value) }).min(by: { $0.value.sequence < $1.value.sequence }) else { return }
                state.pending[oldest.key] = nil
                state.counts[oldest.value.address, default: 1] -= 1
                if state.counts[oldest.value.address] == 0 { state.counts[oldest.value.address] = nil }
                state.evicted += 1
                displaced.append(oldest.value.channel)
            }
            if state.counts[address, default: 0] >= perAddress { evictOldest { $0.address == address } }
            if state.pending.count >= total { evictOldest { _ in true } }
            state.sequence += 1
            state.pending[key] = Pending(channel: channel, address: address, sequence: state.sequence)
            state.counts[address, default: 0] += 1
            return displaced
        }
        for channel in displaced { channel.close(promise: nil) }
    }

    /// The connection finished its handshake, or went away.
    func release(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        state.withLock { state in
            guard let pending = state.pending.removeValue(forKey: key) else { return }
            state.counts[pending.address, default: 1] -= 1
            if state.counts[pending.address] == 0 { state.counts[pending.address] = nil }
        }
    }

    /// Connections pending now, and how many were closed to make room since the start.
    var statistics: (pending: Int, evicted: UInt64) { state.withLock { ($0.pending.count, $0.evicted) } }
}

/// Closes a connection on which nothing was read or written for `timeout`. Sessions stay open
/// between continuations (one handshake for many requests); this bounds how long an idle one
/// holds a descriptor and its buffers. Removed from stream connections once a stream starts
/// (an app may pause its stream for as long as it likes).
final class IdleCloser: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = SessionFrame
    typealias OutboundIn = SessionFrame

    static let name = "handoff.idle"

    private let timeout: TimeAmount
    private var lastActivity = NIODeadline.uptimeNanoseconds(0)
    private var check: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        lastActivity = context.eventLoop.now
        if context.channel.isActive { schedule(context, in: timeout) }
    }

    func channelActive(context: ChannelHandlerContext) {
        lastActivity = context.eventLoop.now
        if check == nil { schedule(context, in: timeout) }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActivity = context.eventLoop.now
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        lastActivity = context.eventLoop.now
        context.write(data, promise: promise)
    }

    private func schedule(_ context: ChannelHandlerContext, in delay: TimeAmount) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = loopBound.value
            handler.fire(context)
        }
    }

    private func fire(_ context: ChannelHandlerContext) {
        check = nil
        let due = lastActivity + timeout
        let now = context.eventLoop.now
        if due <= now {
            context.close(promise: nil)
        } else {
            schedule(context, in: due - now)
        }
    }
}
