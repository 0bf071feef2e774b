import Foundation
import HandoffCore
import Synchronization
import Testing

@testable import HandoffNetwork

/// ``ServedRequests``: an answer the device gives while the request is served is returned to
/// the server (the tap writes it, no deadline is armed); one given after goes to the callback,
/// with its deadline; nothing is answered twice.
@Suite("Payload requests served: where each answer goes")
struct ServedRequestsTests {
    let request = PayloadRequestID(rawValue: 7)

    /// Answers the callback was given, in order.
    final class Calls: Sendable {
        let answers = Mutex<[ServeAnswer]>([])
        var callback: @Sendable (ServeAnswer) -> Void { { answer in self.answers.withLock { $0.append(answer) } } }
        var count: Int { answers.withLock { $0.count } }
    }

    @Test func anAnswerGivenWhileServingIsTheServersOnce() throws {
        var requests = ServedRequests<Int>()
        let calls = Calls()
        var armed = 0
        requests.begin(request, answer: calls.callback)
        let kept = requests.answer(request, with: .hangUp)
        #expect(kept == nil, "kept for the server")
        let given = requests.finish(request) {
            armed += 1
            return armed
        }
        guard case .hangUp? = given else {
            Issue.record("the answer kept was not handed to the server")
            return
        }
        #expect(armed == 0, "no deadline for a request answered while served")
        let again = requests.finish(request) {
            armed += 1
            return armed
        }
        #expect(again == nil)
        let late = requests.answer(request, with: .silence)
        #expect(late == nil, "a request answered is not answered again")
        #expect(calls.count == 0 && armed == 0)
    }

    @Test func anAnswerGivenAfterServingGoesTheUsualWay() throws {
        var requests = ServedRequests<Int>()
        let calls = Calls()
        requests.begin(request, answer: calls.callback)
        let given = requests.finish(request) { 42 }
        #expect(given == nil)
        let routed = requests.answer(request, with: .answer(.success(Data([1, 2, 3])), after: 0))
        let waiting = try #require(routed)
        #expect(waiting.deadline == 42, "the deadline armed when serving finished, to cancel")
        waiting.callback(.hangUp)
        #expect(calls.count == 1)
        let second = requests.answer(request, with: .hangUp)
        #expect(second == nil, "only the first answer goes")
        let after = requests.finish(request) { 43 }
        #expect(after == nil)
    }

    @Test func onlyTheFirstAnswerIsKept() throws {
        var requests = ServedRequests<Int>()
        requests.begin(request, answer: Calls().callback)
        let first = requests.answer(request, with: .answer(.success(Data([7])), after: 0))
        #expect(first == nil)
        let second = requests.answer(request, with: .hangUp)
        #expect(second == nil, "a second answer is not kept over the first")
        let kept = requests.finish(request) { 0 }
        guard case .answer(.success(let data), let delay)? = kept else {
            Issue.record("the first answer was not the one kept")
            return
        }
        #expect(data == Data([7]) && delay == 0)
    }
}
