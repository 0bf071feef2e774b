import Foundation

/// The faults armed on one device, as a value: on each occasion where a failure could happen,
/// the plan says which faults strike (a fault armed once is used up) and what it remembers of
/// them (the slow link's requests and continuations, a forget-needs-save in use).
///
/// It decides only: the runtime records `faultInjected` for each fault that struck and makes the
/// failure happen where it would (the transport hangs up, the payload is padded, …).
public struct FaultPlan: Sendable, Hashable {
    /// How a fault is armed.
    public enum Arming: Sendable, Hashable {
        /// For its next occasion.
        case once
        /// For every occasion, until disarmed.
        case sticky
        /// A forget-needs-save armed once that struck: it forgets every needsSave until the next
        /// payload request uses it up (its occasion is one continuation).
        case onceUntilNextPayloadRequest
    }

    /// What becomes of a payload request the origin receives.
    public enum PayloadRequestFate: Sendable, Hashable {
        /// It is served.
        case served
        /// It is never answered, not even by the serving deadline (no-answer).
        case leftUnanswered
        /// The connection closes under it (origin-leaves).
        case hungUp

        /// The fault that struck, if one did.
        public var fault: Fault? {
            switch self {
            case .served: nil
            case .leftUnanswered: .noAnswer
            case .hungUp: .originLeaves
            }
        }
    }

    /// How fast what this device writes on a continuation's streams leaves.
    public enum StreamPace: Sendable, Hashable {
        /// As fast as the link goes.
        case full
        /// Slowly: the continuation's payload was slowed.
        case slowedWithPayload
        /// Slowly: the slow-link fault strikes now.
        case slowedNow
    }

    /// The faults armed.
    public private(set) var armed: [Fault: Arming] = [:]
    /// How slow the slow-link fault makes what this device sends.
    public var slowLink = SlowLink.standard
    /// Payload answers the slow link holds back, with their continuations.
    public private(set) var slowRequests: [PayloadRequestID: ContinuationID] = [:]
    /// The continuations whose payload the slow link held back: their streams are slow too (up
    /// to 64 kept).
    public private(set) var slowContinuations: Set<ContinuationID> = [] {
        didSet { if slowContinuations.count > 64 { slowContinuations.removeFirst() } }
    }

    public init() {}

    /// The faults armed: true when a fault stays armed, false for the next time only.
    public var armedFaults: [Fault: Bool] { armed.mapValues { $0 == .sticky } }

    /// Arms `fault` for its next occasion, or for every one while `sticky`.
    public mutating func arm(_ fault: Fault, sticky: Bool = false) {
        armed[fault] = sticky ? .sticky : .once
    }

    /// Disarms `fault`, or every fault.
    public mutating func disarm(_ fault: Fault? = nil) {
        if let fault { armed[fault] = nil } else { armed = [:] }
    }

    /// Whether `fault` strikes now: it does while armed, and a fault armed once is used up.
    public mutating func strikes(_ fault: Fault) -> Bool {
        guard let arming = armed[fault] else { return false }
        if arming != .sticky { armed[fault] = nil }
        return true
    }

    // MARK: Occasions on the origin

    /// A payload request arrived: no-answer, else origin-leaves, may strike; a request served
    /// uses up a forget-needs-save armed once that struck.
    public mutating func payloadRequestArrives() -> PayloadRequestFate {
        if strikes(.noAnswer) { return .leftUnanswered }
        if strikes(.originLeaves) { return .hungUp }
        if armed[.forgetNeedsSave] == .onceUntilNextPayloadRequest { armed[.forgetNeedsSave] = nil }
        return .served
    }

    /// The app set needsSave: whether it is forgotten (forget-needs-save strikes). Armed once, it
    /// goes on forgetting until the next payload request, so a demo's few page changes are all
    /// lost, not only the first.
    public mutating func forgetsNeedsSave() -> Bool {
        switch armed[.forgetNeedsSave] {
        case nil:
            return false
        case .sticky?:
            return true
        case .once?, .onceUntilNextPayloadRequest?:
            armed[.forgetNeedsSave] = .onceUntilNextPayloadRequest
            return true
        }
    }

    /// The payload answering `request` is encoded: the faults that strike on it, in order
    /// (oversize pads it past the limit, newer-version raises its handoffVersion, slow-link holds
    /// the answer and the continuation's streams back, which the plan remembers).
    public mutating func faultsOnPayload(
        answering request: PayloadRequestID, of continuation: ContinuationID
    ) -> [Fault] {
        var struck: [Fault] = []
        for fault in [Fault.oversizePayload, .newerVersion, .slowLink] where strikes(fault) {
            struck.append(fault)
        }
        if struck.contains(.slowLink) {
            slowRequests[request] = continuation
            slowContinuations.insert(continuation)
        }
        return struck
    }

    /// How long the payload answering `request` (`bytes` long) is held back: the slow link's
    /// delay when it slowed the request, else none. The plan forgets the request.
    public mutating func delay(answering request: PayloadRequestID, bytes: Int) -> TimeInterval {
        slowRequests.removeValue(forKey: request) != nil ? slowLink.delay(forBytes: bytes) : 0
    }

    /// An error answers `request`: it is not held back, and the plan forgets it.
    public mutating func errorAnswers(_ request: PayloadRequestID) {
        slowRequests[request] = nil
    }

    // MARK: Occasions on either side

    /// Continuation streams open: how fast what this device writes on them leaves.
    public mutating func paceOfStreams(of continuation: ContinuationID) -> StreamPace {
        if slowContinuations.contains(continuation) { return .slowedWithPayload }
        return strikes(.slowLink) ? .slowedNow : .full
    }
}
