import Foundation

/// How a ``Device`` reaches its neighbourhood. The in-memory neighbourhood (tests) and the
/// network layer implement it; what arrives is handed back through the device's `receive…` methods.
///
/// Implementations are called on the device's run loop and must not call back into the device
/// synchronously: they deliver later, through the same run loop.
public protocol DeviceTransport: AnyObject {
    /// Advertise `advertisement` to same-account peers until told otherwise (periodically refreshed).
    func advertise(_ advertisement: Advertisement, from device: PeerInfo)
    /// Stop advertising (a goodbye beacon).
    func withdraw(from device: PeerInfo)
    /// Ask `peer` for the payload of the activity it advertises. The answer arrives through
    /// ``Device/receivePayload(_:_:)``, including a connection failure (4609).
    func requestPayload(_ continuation: ContinuationID, from peer: DeviceID, activityTypeHash: ActivityTypeHash)
    /// The receiver gave up on a request (timeout, cancel): drop any late answer.
    func cancelPayloadRequest(_ continuation: ContinuationID, from peer: DeviceID)
    /// Answer a payload request that arrived through ``Device/receivePayloadRequest(_:from:activityTypeHash:continuation:)`` (with the requester as proven by the connection).
    /// `delay` holds the answer back that many seconds first (the lab's slow link; 0 otherwise).
    func sendPayload(
        _ request: PayloadRequestID, to peer: DeviceID, result: Result<Data, HandoffError>, after delay: TimeInterval)
    /// Leave a payload request unanswered by closing its connection, as a device that goes away
    /// mid-fetch does (the lab's origin-leaves fault): the requester sees the connection lost (4609).
    func hangUp(_ request: PayloadRequestID, to peer: DeviceID)
    /// Never answer a payload request, not even with an error (the lab's no-answer fault): the
    /// connection stays open and the requester's own fetch timeout ends the wait (4610).
    func leaveUnanswered(_ request: PayloadRequestID, to peer: DeviceID)
    /// Tell the origin its activity was continued here, by this continuation.
    func notifyContinued(_ activityIdentifier: UUID, continuation: ContinuationID, to peer: DeviceID)
    /// Open continuation streams to `peer`, bound to the one-time `token` from the payload.
    func openContinuationStreams(
        to peer: DeviceID, token: Data,
        completion: @escaping (Result<ContinuationStreams, any Error>) -> Void)
}
