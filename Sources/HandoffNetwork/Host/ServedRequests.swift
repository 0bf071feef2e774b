import HandoffCore

/// The payload requests a device is serving, waiting for its answer, and where each answer
/// goes: one table, so that "was it answered while it was being served?" has one answer.
///
/// A request is being served from ``begin(_:answer:)`` until ``finish(_:armDeadline:)``: an
/// answer the device gives meanwhile (its work ran inline, or was queued and already ran) is
/// kept, and `finish` returns it, so the caller writes it at once and no deadline is armed.
/// Otherwise `finish` arms the serving deadline and the answer, when it comes, goes to the
/// callback. Each answer goes one way only, and only the first answer of a request counts.
struct ServedRequests<Deadline> {
    typealias Callback = @Sendable (ServeAnswer) -> Void

    private enum Entry {
        /// Being served: an answer given now is kept for ``finish(_:armDeadline:)``.
        case serving(Callback)
        /// Answered while being served.
        case answered(ServeAnswer)
        /// Served; its answer goes to the callback (and its deadline is cancelled).
        case waiting(Callback, deadline: Deadline)
    }

    private var entries: [PayloadRequestID: Entry] = [:]

    /// `request` is being served; its later answer goes to `answer`.
    mutating func begin(_ request: PayloadRequestID, answer: @escaping Callback) {
        entries[request] = .serving(answer)
    }

    /// The device answered `request`. Returns where the answer goes now: the callback and the
    /// deadline to cancel, or nil (kept for `finish`, or the request is no longer waiting).
    mutating func answer(
        _ request: PayloadRequestID, with answer: ServeAnswer
    ) -> (callback: Callback, deadline: Deadline)? {
        switch entries[request] {
        case .serving?:
            entries[request] = .answered(answer)
            return nil
        case .waiting(let callback, let deadline)?:
            entries[request] = nil
            return (callback, deadline)
        case .answered?, nil:
            return nil
        }
    }

    /// Serving `request` is done: the answer given meanwhile, if any (the request is then
    /// forgotten); else the deadline `armDeadline` makes is kept with it, and nil is returned.
    mutating func finish(_ request: PayloadRequestID, armDeadline: () -> Deadline) -> ServeAnswer? {
        switch entries[request] {
        case .answered(let answer)?:
            entries[request] = nil
            return answer
        case .serving(let callback)?:
            entries[request] = .waiting(callback, deadline: armDeadline())
            return nil
        case .waiting?, nil:
            return nil
        }
    }
}
