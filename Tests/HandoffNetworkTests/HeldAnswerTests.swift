import Foundation
import HandoffCore
import Testing

@testable import HandoffNetwork

/// ``HeldAnswer``: an answer the device gives while the tap still serves is the tap's to write;
/// one given after goes the usual way, and nothing is written twice.
@Suite("Payload request tap: the answer held while serving")
struct HeldAnswerTests {
    @Test func anAnswerGivenWhileServingIsTheTapsOnce() throws {
        let held = HeldAnswer()
        #expect(held.keep(.hangUp))
        guard case .hangUp? = held.take() else {
            Issue.record("the answer kept was not handed to the tap")
            return
        }
        #expect(held.take() == nil)
        #expect(!held.keep(.silence), "after the tap is done, answers go the usual way")
    }

    @Test func anAnswerGivenAfterServingGoesTheUsualWay() {
        let held = HeldAnswer()
        #expect(held.take() == nil)
        #expect(!held.keep(.answer(.success(Data([1, 2, 3])), after: 0)))
        #expect(held.take() == nil)
    }

    @Test func onlyTheFirstAnswerIsKept() throws {
        let held = HeldAnswer()
        #expect(held.keep(.answer(.success(Data([7])), after: 0)))
        #expect(!held.keep(.hangUp), "a second answer is not kept over the first")
        guard case .answer(.success(let data), let delay)? = held.take() else {
            Issue.record("the first answer was not the one kept")
            return
        }
        #expect(data == Data([7]) && delay == 0)
    }
}
