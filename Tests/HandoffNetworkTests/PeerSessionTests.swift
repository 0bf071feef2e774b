import Foundation
import HandoffCore
import NIOCore
import Testing

@testable import HandoffBench
@testable import HandoffNetwork

/// A device's pooled session to a peer, between real devices on loopback.
@Suite("Pooled peer sessions", .serialized)
struct PeerSessionTests {
    /// The reader of a connection that was closed can finish after the session has connected
    /// again (the actor runs it whenever it gets there): its end must leave the newer connection
    /// open and its requests alive, or the next continuation fails with 4609 for nothing.
    @Test func anEarlierConnectionEndingLateLeavesTheNewerOneOpen() async throws {
        try await withStartedWorld(["Laptop", "Phone"], fetchTimeout: 60, connectTimeout: 30, lateEnd)
    }

    private func lateEnd(_ world: BenchWorld) async throws {
        let (laptop, phone) = (world.hosts[0], world.hosts[1])
        LoopbackApp.install(on: world.hosts)
        laptop.performAndWait { device in LoopbackApp.becomeCurrent(on: device, page: 1) }
        try await waitForOffer(from: laptop, on: phone)
        try await expectContinued(phone, from: laptop)

        let laptopID = laptop.identity.id
        let session = try #require(phone.performAndWait { _ in phone.directory.session(for: laptopID) })
        let first = try #require(await session.currentChannel, "the continuation left a pooled connection")
        await session.close()
        #expect(await session.isClosed)
        #expect(await session.currentChannel == nil)

        // The next continuation connects again, on the same pooled session.
        try await expectContinued(phone, from: laptop)
        let second = try #require(await session.currentChannel)
        #expect(second !== first)

        // The first connection's reader ends only now: the session stays open on the second.
        await session.ended(first)
        #expect(await !session.isClosed)
        #expect(await session.currentChannel === second)
        try await expectContinued(phone, from: laptop)
        #expect(await session.currentChannel === second, "the third continuation used the open connection")

        // Its own connection's end still closes it.
        await session.ended(second)
        #expect(await session.isClosed)
    }
}
