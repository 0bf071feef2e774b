import Foundation
import Testing

@testable import HandoffCore

@Suite("Stream grants")
struct StreamGrantTests {
    private func grant(expiring expires: Date) -> Device.StreamGrant {
        Device.StreamGrant(activity: UUID(), continuation: ContinuationID(), expires: expires)
    }

    @Test func aTokenIsItsSixteenBytesBothWays() throws {
        let bytes = Data((0..<16).map { UInt8($0 * 17) })
        let token = try #require(Device.StreamToken(bytes))
        #expect(token.bytes == bytes)
        #expect(token.high == 0x0011_2233_4455_6677)
        #expect(token.low == 0x8899_AABB_CCDD_EEFF)
        #expect(Device.StreamToken(token.bytes) == token)
        // A slice that does not start at index 0 reads the same bytes.
        let sliced = (Data([0xAA]) + bytes).dropFirst()
        #expect(Device.StreamToken(sliced) == token)
    }

    @Test(arguments: [0, 1, 15, 17, 32])
    func bytesOfAnotherLengthAreNoToken(_ count: Int) {
        #expect(Device.StreamToken(Data(repeating: 7, count: count)) == nil)
    }

    @Test func freshTokensDiffer() {
        let tokens = Set((0..<64).map { _ in Device.StreamToken.random() })
        #expect(tokens.count == 64)
    }

    @Test func expiredGrantsAreSweptOnceTheTableHasGrown() {
        var table = Device.StreamGrants()
        let start = Date(timeIntervalSince1970: 1_000_000)
        let expired = (0..<64).map { _ in Device.StreamToken.random() }
        for token in expired { table.grant(grant(expiring: start.addingTimeInterval(10)), for: token, at: start) }
        #expect(table.grants.count == 64)
        let later = start.addingTimeInterval(20)
        let fresh = Device.StreamToken.random()
        table.grant(grant(expiring: later.addingTimeInterval(120)), for: fresh, at: later)
        #expect(table.grants.count == 1)
        #expect(table[fresh] != nil)
        #expect(expired.allSatisfy { table[$0] == nil })
    }

    @Test func grantsStillUsableAreKeptAndTheSweepWaitsForTheTableToDouble() {
        var table = Device.StreamGrants()
        let now = Date(timeIntervalSince1970: 1_000_000)
        let tokens = (0..<200).map { _ in Device.StreamToken.random() }
        for (index, token) in tokens.enumerated() {
            table.grant(
                grant(expiring: now.addingTimeInterval(1_000)), for: token, at: now.addingTimeInterval(Double(index)))
        }
        #expect(table.grants.count == 200)
        #expect(tokens.allSatisfy { table[$0] != nil })
        #expect(table.take(tokens[0]) != nil)
        #expect(table.take(tokens[0]) == nil)
    }

    @Test func revokingAnActivityForgetsOnlyItsGrants() {
        var table = Device.StreamGrants()
        let now = Date(timeIntervalSince1970: 1_000_000)
        let activity = UUID()
        let (mine, other) = (Device.StreamToken.random(), Device.StreamToken.random())
        table.grant(
            Device.StreamGrant(activity: activity, continuation: ContinuationID(), expires: now.addingTimeInterval(60)),
            for: mine, at: now)
        table.grant(grant(expiring: now.addingTimeInterval(60)), for: other, at: now)
        table.revoke(activity: activity)
        #expect(table[mine] == nil)
        #expect(table[other] != nil)
    }
}
