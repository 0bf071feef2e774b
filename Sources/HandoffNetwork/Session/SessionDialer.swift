import HandoffCore
import NIOCore
import NIOPosix

/// How a device opens sessions to its peers: its credentials, event loops, the limits of a
/// connection it opens, and its greeting. A value, given to the parts that connect (the
/// transport, lifecycle sharing) instead of the host.
struct SessionDialer: Sendable {
    let security: SessionSecurity
    let eventLoops: EventLoops
    var group: any EventLoopGroup { eventLoops.group }
    let options: NetworkOptions
    /// Incomplete frames across every session of this device.
    let budget: SessionReadBudget
    /// What this device says of itself on a session it opens.
    let hello: SessionFrame

    /// Limits for a connection this device opens (`idle`: closed after the idle timeout).
    func limits(idle: Bool) -> SessionLimits {
        SessionLimits(options: options, budget: budget, idle: idle)
    }

    /// Connects the pooled `session` unless it is open (closed after the idle timeout).
    func connect(_ session: PeerSession) async throws {
        try await session.connectIfNeeded(security: security, group: group, limits: limits(idle: true), hello: hello)
    }
}

/// The event loops a host's sockets run on: given (the bench gives each of its devices loops of
/// their own), or the process's shared ones, reached when first used: their threads are made
/// then, so a terminal device, which joins the network after drawing its first frame, makes them
/// after that frame.
enum EventLoops: Sendable {
    case given(any EventLoopGroup)
    case shared

    var group: any EventLoopGroup {
        switch self {
        case .given(let group): group
        case .shared: MultiThreadedEventLoopGroup.singleton
        }
    }
}
