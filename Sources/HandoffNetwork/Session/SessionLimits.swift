import HandoffCore
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

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

/// Connections a server holds under two caps: at most `total`, and at most `perGroup` of one
/// group (a source address, or an authenticated peer). A newcomer over either cap is admitted
/// and the least recently active member (of that group, or overall) is closed instead, so a
/// neighbour holding many connections cannot keep another from connecting, and the count never
/// grows past the caps. Activity is what ``touch(_:)`` reports; a member never touched is ranked
/// by when it was admitted (for pending handshakes: the oldest goes first).
final class ConnectionRoster<Group: Hashable & Sendable>: Sendable {
    let total: Int
    let perGroup: Int

    private struct Member {
        var channel: any Channel
        var group: Group
        /// Larger is more recent: the admission, or the last touch.
        var rank: UInt64
    }

    private struct State {
        var members: [ObjectIdentifier: Member] = [:]
        var counts: [Group: Int] = [:]
        var clock: UInt64 = 0
        var evicted: UInt64 = 0

        mutating func remove(_ key: ObjectIdentifier) -> Member? {
            guard let member = members.removeValue(forKey: key) else { return nil }
            counts[member.group, default: 1] -= 1
            if counts[member.group] == 0 { counts[member.group] = nil }
            return member
        }
    }

    private let state = Mutex(State())

    init(total: Int, perGroup: Int) {
        self.total = max(1, total)
        self.perGroup = max(1, perGroup)
    }

    /// Registers a connection of `group`; closes whatever it displaces.
    func admit(_ channel: any Channel, group: Group) {
        let key = ObjectIdentifier(channel)
        let displaced: [any Channel] = state.withLock { state in
            guard state.members[key] == nil else { return [] }
            var displaced: [any Channel] = []
            func evictIdlest(where matches: (Member) -> Bool) {
                guard
                    let idlest = state.members.filter({ matches($0.value) }).min(by: { $0.value.rank < $1.value.rank }),
                    let member = state.remove(idlest.key)
                else { return }
                state.evicted += 1
                displaced.append(member.channel)
            }
            if state.counts[group, default: 0] >= perGroup { evictIdlest { $0.group == group } }
            if state.members.count >= total { evictIdlest { _ in true } }
            state.clock += 1
            state.members[key] = Member(channel: channel, group: group, rank: state.clock)
            state.counts[group, default: 0] += 1
            return displaced
        }
        for channel in displaced { channel.close(promise: nil) }
    }

    /// The connection was active: it goes to the back of the eviction order.
    func touch(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        state.withLock { state in
            guard state.members[key] != nil else { return }
            state.clock += 1
            state.members[key]?.rank = state.clock
        }
    }

    /// The connection went away (or no longer counts).
    func release(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        state.withLock { state in _ = state.remove(key) }
    }

    /// Members now, and how many were closed to make room since the start.
    var statistics: (members: Int, evicted: UInt64) { state.withLock { ($0.members.count, $0.evicted) } }

    /// Members of one group now.
    func count(of group: Group) -> Int { state.withLock { $0.counts[group, default: 0] } }
}

/// Accepted connections that have not finished their TLS handshake, by source address: a
/// stranger holding silent connections cannot keep a peer from connecting.
typealias HandshakeGate = ConnectionRoster<String>

extension ConnectionRoster where Group == String {
    convenience init(total: Int, perAddress: Int) {
        self.init(total: total, perGroup: perAddress)
    }

    /// Registers a connection that has started its handshake, by its source address.
    func admit(_ channel: any Channel) {
        admit(channel, group: channel.remoteAddress?.ipAddress ?? "?")
    }
}

/// Marks its connection active in a ``ConnectionRoster`` as frames pass (at most every 100 ms,
/// so a stream at full speed takes the roster's lock a few times a second, not per frame), and
/// releases it when the connection goes.
final class RosterActivity<Group: Hashable & Sendable>: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = SessionFrame
    typealias OutboundIn = SessionFrame

    private let roster: ConnectionRoster<Group>
    private var lastTouch = NIODeadline.uptimeNanoseconds(0)

    init(roster: ConnectionRoster<Group>) {
        self.roster = roster
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        touch(context)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        touch(context)
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        roster.release(context.channel)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        roster.release(context.channel)
    }

    private func touch(_ context: ChannelHandlerContext) {
        let now = context.eventLoop.now
        guard now - lastTouch >= .milliseconds(100) else { return }
        lastTouch = now
        roster.touch(context.channel)
    }
}

/// How many descriptors this process may hold (the soft `RLIMIT_NOFILE`), and what the device's
/// network may use of them: its connection caps are taken from what is left after a reserve
/// for everything else (beacon sockets, the listener, outgoing sessions, files, pipes), so the
/// caps are reached before the descriptor table is full and accepting never fails for want of one.
enum DescriptorLimit {
    /// Descriptors kept for everything but accepted connections.
    static let reserve = 48

    /// The soft limit now (a large number when unlimited or unknown).
    static var soft: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(Int32.max) else {
            return Int(Int32.max)
        }
        return Int(limit.rlim_cur)
    }

    /// `configured`, lowered to `share` of the descriptors left after the reserve (at least 4).
    static func cap(_ configured: Int, share: Double, soft: Int = DescriptorLimit.soft) -> Int {
        let available = max(0, soft - reserve)
        return max(4, min(configured, Int(Double(available) * share)))
    }
}

/// Backs off accepting when the process is out of descriptors (EMFILE, ENFILE) or memory.
///
/// NIO's own `AcceptBackoffHandler` waits only for the next `read` it is asked for, and after a
/// failed `accept` none is asked for while the listener stays registered for readability: the
/// event loop wakes again at once for the connection still in the backlog, thousands of times a
/// second. This handler turns reading off (`autoRead`), which unregisters the listener, and on
/// again after a delay that doubles while accepting keeps failing (10 ms up to 1 s); the
/// connections wait in the kernel's backlog meanwhile.
final class AcceptPause: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    static let firstDelay = TimeAmount.milliseconds(10)
    static let longestDelay = TimeAmount.seconds(1)

    private var delay = AcceptPause.firstDelay
    private var paused = false

    init() {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // An accept succeeded: the next failure starts from the shortest delay again.
        delay = Self.firstDelay
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode) else {
            context.fireErrorCaught(error)
            return
        }
        guard !paused else { return }
        paused = true
        let channel = context.channel
        channel.setOption(.autoRead, value: false).whenComplete { _ in }
        let wait = delay
        delay = min(delay * 2, Self.longestDelay)
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: wait) {
            loopBound.value.paused = false
            channel.setOption(.autoRead, value: true).whenComplete { _ in }
        }
    }
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
