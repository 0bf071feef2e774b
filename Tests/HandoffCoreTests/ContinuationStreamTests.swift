import Foundation
import HandoffTestSupport
import Testing

@testable import HandoffCore

@Suite("Continuation streams")
struct ContinuationStreamTests {
    /// Continues a streams-capable reading activity; returns both ends once they are open.
    func openStreams(_ world: TwoDevices, originDelegate: RecordingActivityDelegate) throws -> ContinuationStreams? {
        let (activity, _) = try world.startReading()
        activity.supportsContinuationStreams = true
        activity.delegate = originDelegate
        world.hood.settle()
        #expect(
            world.phone.system.offers[world.laptop.info.id]?.advertisement.options.contains(
                .supportsContinuationStreams) == true)
        var opened: ContinuationStreams?
        world.phoneReaderDelegate.onContinue = { received in
            received.getContinuationStreams { streams, error in
                #expect(error == nil)
                opened = streams
            }
        }
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.settle()
        return opened
    }

    @Test func bytesRoundTripBothWays() async throws {
        let world = TwoDevices()
        let originDelegate = RecordingActivityDelegate()
        let phoneEnd = try #require(try openStreams(world, originDelegate: originDelegate))
        let laptopEnd = try #require(originDelegate.receivedStreams.first)
        #expect(world.laptop.lifecycle.contains { $0.kind == .streamsOpened })
        let request = Array("send me the document".utf8)
        let document = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }

        async let served: Void = {
            let asked = try await laptopEnd.input.readAll()
            #expect(asked == request)
            for chunk in stride(from: 0, to: document.count, by: 16_384) {
                try await laptopEnd.output.write(Array(document[chunk..<min(chunk + 16_384, document.count)]))
            }
            await laptopEnd.output.close()
        }()
        try await phoneEnd.output.write(request)
        await phoneEnd.output.close()
        let received = try await phoneEnd.input.readAll()
        try await served
        #expect(received == document)
    }

    @Test func anErrorClosesTheOtherSidesIteration() async throws {
        let world = TwoDevices()
        let originDelegate = RecordingActivityDelegate()
        let phoneEnd = try #require(try openStreams(world, originDelegate: originDelegate))
        let laptopEnd = try #require(originDelegate.receivedStreams.first)
        async let failing: Void = laptopEnd.output.close(with: ContinuationStreamError.closed)
        await #expect(throws: ContinuationStreamError.self) { _ = try await phoneEnd.input.readAll() }
        await failing
    }

    @Test func aTokenIsUsableOnceAndUnknownTokensAreRefused() throws {
        let world = TwoDevices()
        let originDelegate = RecordingActivityDelegate()
        _ = try #require(try openStreams(world, originDelegate: originDelegate))
        let received = try #require(world.phoneReaderDelegate.continued.first)
        var second: (any Error)?
        received.getContinuationStreams { _, error in second = error }
        world.hood.settle()
        guard case .refused? = second as? ContinuationStreamError else {
            Issue.record("a used token was accepted: \(String(describing: second))")
            return
        }
        guard
            case .failure = world.laptop.acceptContinuationStreams(
                token: Data(repeating: 7, count: 16), from: world.phone.info.id)
        else {
            Issue.record("an unknown token was accepted")
            return
        }
        #expect(world.laptop.lifecycle.filter { $0.kind == .streamsRefused }.count == 2)
        #expect(originDelegate.receivedStreams.count == 1)
    }

    @Test func aTokenCutShortOrLengthenedIsRefusedAndTheRealOneStillOpens() throws {
        let world = TwoDevices()
        let (activity, _) = try world.startReading()
        activity.supportsContinuationStreams = true
        world.hood.settle()
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.settle()
        let received = try #require(world.phoneReaderDelegate.continued.first)
        let token = try #require(received.origin?.streamToken)
        #expect(token.count == 16)
        for altered in [token.dropLast(), token + Data([0]), Data()] {
            guard case .failure = world.laptop.acceptContinuationStreams(token: altered, from: world.phone.info.id)
            else {
                Issue.record("a token of \(altered.count) bytes was accepted")
                return
            }
        }
        guard case .success = world.laptop.acceptContinuationStreams(token: token, from: world.phone.info.id) else {
            Issue.record("the token was refused after altered copies of it")
            return
        }
    }

    @Test func aTokenExpires() throws {
        let world = TwoDevices()
        let (activity, _) = try world.startReading()
        activity.supportsContinuationStreams = true
        world.laptop.streamTokenLifetime = 30
        world.hood.settle()
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.settle()
        let received = try #require(world.phoneReaderDelegate.continued.first)
        world.hood.advance(by: 31)
        var failure: (any Error)?
        received.getContinuationStreams { _, error in failure = error }
        world.hood.settle()
        guard case .refused? = failure as? ContinuationStreamError else {
            Issue.record("an expired token was accepted: \(String(describing: failure))")
            return
        }
    }

    @Test func anActivityWithoutStreamsRefusesToOpenThem() throws {
        let world = TwoDevices()
        try world.startReading()
        var failure: (any Error)?
        world.phoneReaderDelegate.onContinue = { received in
            received.getContinuationStreams { _, error in failure = error }
        }
        world.phone.chooseOffer(from: world.laptop.info.id)
        world.hood.settle()
        #expect(failure as? ContinuationStreamError == .notSupported)
    }
}
