import Foundation
import HandoffCore
import HandoffNetwork
import HandoffTestSupport
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A peer of the account that opens session after session (it holds the account's credentials,
/// so every handshake succeeds): the device caps established sessions per peer and in all, closes
/// the idlest to make room, never runs out of descriptors, never spins, and another device of the
/// account still continues.
@Suite("Session caps", .tags(.endToEnd), .ownThread, .serialized, .enabled(if: HandoffExecutable.url != nil))
struct SessionCapTests {
    let helpers = MultiProcessTests()

    /// Counts a client connection's completed handshake and its end.
    final class Tally: Sendable {
        private let state = Mutex((established: 0, open: 0))
        var established: Int { state.withLock { $0.established } }
        var open: Int { state.withLock { $0.open } }
        func handshook() {
            state.withLock {
                $0.established += 1
                $0.open += 1
            }
        }
        func closed() { state.withLock { $0.open -= 1 } }
    }

    final class TallyHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let tally: Tally
        let handshake: EventLoopPromise<Void>
        init(tally: Tally, handshake: EventLoopPromise<Void>) {
            self.tally = tally
            self.handshake = handshake
        }
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
                tally.handshook()
                handshake.succeed(())
            }
            context.fireUserInboundEventTriggered(event)
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            handshake.fail(error)
            context.close(promise: nil)
        }
        func channelInactive(context: ChannelHandlerContext) {
            handshake.fail(ChannelError.eof)
            context.fireChannelInactive()
        }
    }

    @Test func oneMoreSessionThanTheDescriptorsAllowIsCappedAndAnotherDeviceStillContinues() throws {
        let world = try HeadlessProcessWorld()
        // As in the report: few descriptors, and more sessions than they can hold.
        let laptop = try world.start("Laptop", kind: "laptop", fileLimit: 128)
        let phone = try world.start("Phone")
        try helpers.offer(from: laptop, to: phone)
        let port = try #require(HostileNeighbourTests.sessionPort(laptop))
        let laptopID = try #require(world.id(of: laptop))
        let baseline = HostileNeighbourTests.descriptors(laptop)

        // A device of the same account, issued by the account's own authority.
        let store = AccountStore(directory: world.directory)
        let account = try store.account(named: world.account)
        let mallory = try store.deviceIdentity(named: "Mallory", kind: .phone, in: world.account)
        let context = try NIOSSLContext(configuration: mallory.makeClientTLSConfiguration(trusting: account))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let tally = Tally()
        var channels: [any Channel] = []
        defer { for channel in channels { channel.close(promise: nil) } }
        let cpuBefore = HostileNeighbourTests.cpuSeconds(laptop)
        for _ in 0..<150 {
            let handshake = group.next().makePromise(of: Void.self)
            let channel = try ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: context, serverHostname: nil))
                        try channel.pipeline.syncOperations.addHandler(TallyHandler(tally: tally, handshake: handshake))
                    }
                }
                .connect(host: "127.0.0.1", port: port).wait()
            channel.closeFuture.whenComplete { _ in tally.closed() }
            channels.append(channel)
            // One after the other, each whole (or refused), as a peer of the account would.
            try? handshake.futureResult.wait()
        }
        // Every one was accepted and authenticated; those over the caps were closed to make room.
        #expect(tally.established == 150, "only \(tally.established) of 150 handshakes completed")
        let deadline = Date().addingTimeInterval(10)
        while tally.open > 16, Date() < deadline { usleep(20_000) }
        #expect(tally.open <= 16, "Mallory still holds \(tally.open) sessions (cap per peer: 16)")

        // Quiet now: the device does not spin (the report saw 9.6 CPU-seconds per 10 s).
        let cpuAtRest = HostileNeighbourTests.cpuSeconds(laptop)
        usleep(2_000_000)
        let spinning = HostileNeighbourTests.cpuSeconds(laptop) - cpuAtRest
        let descriptors = HostileNeighbourTests.descriptors(laptop)
        print(
            "sessions of one peer: 150 established, \(tally.open) still open; device CPU \(String(format: "%.2f", cpuAtRest - cpuBefore)) s"
                + " for the handshakes, \(String(format: "%.2f", spinning)) s in 2 s at rest; descriptors \(baseline) → \(descriptors)"
        )
        #expect(spinning < 0.5, "the device used \(spinning) CPU-seconds in 2 s with nothing to do")
        #expect(descriptors < 100, "the device holds \(descriptors) descriptors of 128")

        // Another device of the account continues (the report's next continuation failed with 4609).
        let mark = phone.received.count
        try phone.send(["cmd": "continue", "peer": laptopID])
        #expect(
            phone.waitFor(after: mark, timeout: 10) { $0["event"] as? String == "restored" } != nil,
            "the phone could not continue: \(phone.received.suffix(5))")

        // Mallory goes away: the device is back to where it was.
        for channel in channels { try? channel.close().wait() }
        channels = []
        let settled = Date().addingTimeInterval(10)
        while HostileNeighbourTests.descriptors(laptop) > baseline + 4, Date() < settled { usleep(50_000) }
        #expect(
            HostileNeighbourTests.descriptors(laptop) <= baseline + 4,
            "descriptors \(baseline) → \(HostileNeighbourTests.descriptors(laptop))")
    }
}
