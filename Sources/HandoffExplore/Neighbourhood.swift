import Foundation
import HandoffCore

/// Several ``Device``s connected in one process, with a manual clock and injectable delay, loss
/// and disconnection, so whole two- and three-device flows run deterministically.
///
/// Nothing is delivered until time advances: ``advance(by:)`` moves the clock in small steps,
/// delivering each message when its time comes and ticking every device.
package final class Neighbourhood {
    package let clock = ManualClock()
    /// One-way delay of every message.
    package var latency: TimeInterval = 0.005
    /// The probability that a beacon (advertisement or goodbye) is lost. Requests and answers go
    /// over a reliable connection and are not lost, unless a device is disconnected.
    package var beaconLossRate = 0.0
    /// Beacons are re-sent this often while a device advertises (lets late or lossy peers catch up).
    package var beaconRefreshInterval: TimeInterval = 1
    /// How long a connection attempt to a missing device takes to fail.
    package var connectTimeout: TimeInterval = 0.05
    package private(set) var devices: [DeviceID: Device] = [:]
    /// Devices cut off from the network: nothing reaches them or leaves them, and nobody is told.
    package private(set) var disconnected: Set<DeviceID> = []
    /// Counts of what happened, for assertions.
    package private(set) var beaconsSent = 0
    package private(set) var beaconsLost = 0

    var transports: [DeviceID: Transport] = [:]
    var pending: [Message] = []
    var sequence = 0
    var random: SplitMix64
    var nextRequest: UInt64 = 1
    /// Origin-side request id → (receiver, receiver's continuation id).
    var requests: [PayloadRequestID: (receiver: DeviceID, origin: DeviceID, continuation: ContinuationID)] = [:]
    var cancelled: Set<ContinuationID> = []

    struct Message {
        var deliverAt: Date
        var sequence: Int
        var from: DeviceID
        var to: DeviceID
        var beacon: Bool
        var action: (Device) -> Void
    }

    package init(seed: UInt64 = 1) {
        random = SplitMix64(seed: seed)
    }

    /// Adds a device to the neighbourhood.
    @discardableResult
    package func addDevice(
        _ name: String, kind: PeerInfo.Kind = .phone,
        configuration: DeviceConfiguration = DeviceConfiguration()
    ) -> Device {
        let id = DeviceID(name.lowercased())
        let clock = self.clock
        let device = Device(
            info: PeerInfo(id: id, name: name, kind: kind), configuration: configuration, clock: { clock.now })
        let transport = Transport(neighbourhood: self, device: id)
        transports[id] = transport
        devices[id] = device
        device.transport = transport
        // As on a device's queue: beacon changes made one after another go out once, on the next turn.
        device.deferBeacons = { [unowned self] flush in
            self.enqueue(from: id, to: id, after: 0, beacon: false) { flush($0) }
        }
        return device
    }

    /// Removes a device as if its process died: its connections fail, it sends nothing more.
    package func remove(_ device: Device) {
        let id = device.info.id
        devices[id] = nil
        transports[id] = nil
        pending.removeAll { $0.from == id || $0.to == id }
        // Answers it owed fail on the receivers' side as a lost connection.
        for (request, entry) in requests where entry.origin == id {
            requests[request] = nil
            let continuation = entry.continuation
            enqueue(from: id, to: entry.receiver, after: latency, beacon: false) { receiver in
                receiver.receivePayload(
                    continuation,
                    .failure(
                        HandoffError(
                            .connectionUnavailable,
                            "the connection to \(device.info.name) was lost during the fetch")))
            }
        }
    }

    /// Cuts a device off the network (messages to and from it vanish; peers notice only by silence).
    package func disconnect(_ device: Device) { disconnected.insert(device.info.id) }
    package func reconnect(_ device: Device) { disconnected.remove(device.info.id) }

    /// Moves time forward by `seconds`, delivering messages in order and ticking every device at
    /// each moment something is due (a message, a device deadline, a beacon refresh).
    package func advance(by seconds: TimeInterval) {
        let end = clock.now.addingTimeInterval(seconds)
        while true {
            var next = end
            if let message = pending.map(\.deliverAt).min() { next = min(next, message) }
            for device in devices.values {
                if let deadline = device.nextDeadline { next = min(next, deadline) }
            }
            for transport in transports.values where transport.advertising != nil {
                next = min(next, transport.lastBeacon.addingTimeInterval(beaconRefreshInterval))
            }
            // Always make progress, by at least a millisecond.
            next = max(next, min(end, clock.now.addingTimeInterval(0.001)))
            deliverDue(until: next)
            clock.set(max(clock.now, next))
            refreshBeacons()
            for id in devices.keys.sorted() { devices[id]?.tick() }
            deliverDue(until: clock.now)
            if clock.now >= end { break }
        }
    }

    /// Lets in-flight messages arrive (a short advance).
    package func settle() { advance(by: max(latency * 4, 0.05)) }

    func deliverDue(until time: Date) {
        while let index = nextDueIndex(until: time) {
            let message = pending.remove(at: index)
            if message.deliverAt > clock.now { clock.set(message.deliverAt) }
            // A cut-off device still does its own queued work (a deferred beacon flush): only
            // what crosses the network is lost. (Dropping it left the flush scheduled forever,
            // so the device never sent or recorded a beacon change again.)
            guard !disconnected.contains(message.to) || message.from == message.to, let device = devices[message.to]
            else { continue }
            message.action(device)
        }
    }

    func nextDueIndex(until time: Date) -> Int? {
        var best: Int?
        for (index, message) in pending.enumerated() where message.deliverAt <= time {
            if let b = best {
                let other = pending[b]
                if (message.deliverAt, message.sequence) < (other.deliverAt, other.sequence) { best = index }
            } else {
                best = index
            }
        }
        return best
    }

    func enqueue(
        from: DeviceID, to: DeviceID, after delay: TimeInterval, beacon: Bool, _ action: @escaping (Device) -> Void
    ) {
        sequence += 1
        pending.append(
            Message(
                deliverAt: clock.now.addingTimeInterval(delay), sequence: sequence, from: from, to: to,
                beacon: beacon, action: action))
    }

    func broadcast(from sender: DeviceID, _ action: @escaping (Device) -> Void) {
        guard !disconnected.contains(sender) else { return }
        for id in devices.keys.sorted() where id != sender {
            beaconsSent += 1
            if beaconLossRate > 0, random.nextDouble() < beaconLossRate {
                beaconsLost += 1
                continue
            }
            enqueue(from: sender, to: id, after: latency, beacon: true, action)
        }
    }

    func refreshBeacons() {
        for id in transports.keys.sorted() {
            guard let transport = transports[id], let ad = transport.advertising,
                clock.now.timeIntervalSince(transport.lastBeacon) >= beaconRefreshInterval
            else { continue }
            transport.lastBeacon = clock.now
            let info = transport.info
            broadcast(from: id) { $0.receiveAdvertisement(ad, from: info) }
        }
    }

    /// One device's view of the neighbourhood.
    final class Transport: DeviceTransport {
        unowned let neighbourhood: Neighbourhood
        let id: DeviceID
        var advertising: Advertisement?
        var info: PeerInfo
        var lastBeacon = Date.distantPast

        init(neighbourhood: Neighbourhood, device: DeviceID) {
            self.neighbourhood = neighbourhood
            self.id = device
            self.info = PeerInfo(id: device, name: device.rawValue, kind: .phone)
        }

        func advertise(_ advertisement: Advertisement, from device: PeerInfo) {
            advertising = advertisement
            info = device
            lastBeacon = neighbourhood.clock.now
            neighbourhood.broadcast(from: id) { $0.receiveAdvertisement(advertisement, from: device) }
        }

        func withdraw(from device: PeerInfo) {
            advertising = nil
            let sender = id
            neighbourhood.broadcast(from: id) { $0.receiveGoodbye(from: sender) }
        }

        func requestPayload(_ continuation: ContinuationID, from peer: DeviceID, activityTypeHash: ActivityTypeHash) {
            let n = neighbourhood
            let receiver = id
            n.cancelled.remove(continuation)
            guard n.devices[peer] != nil, !n.disconnected.contains(receiver) else {
                // Nobody answers the connection attempt.
                n.enqueue(from: peer, to: receiver, after: n.connectTimeout, beacon: false) { device in
                    device.receivePayload(
                        continuation,
                        .failure(
                            HandoffError(
                                .connectionUnavailable,
                                "could not connect to \(peer): the device is not reachable")))
                }
                return
            }
            let request = PayloadRequestID(rawValue: n.nextRequest)
            n.nextRequest += 1
            n.requests[request] = (receiver, peer, continuation)
            let requester = n.devices[receiver]?.info ?? PeerInfo(id: receiver, name: receiver.rawValue, kind: .phone)
            n.enqueue(from: receiver, to: peer, after: n.latency, beacon: false) { origin in
                origin.receivePayloadRequest(
                    request, from: requester, activityTypeHash: activityTypeHash, continuation: continuation)
            }
        }

        func cancelPayloadRequest(_ continuation: ContinuationID, from peer: DeviceID) {
            neighbourhood.cancelled.insert(continuation)
        }

        func sendPayload(
            _ request: PayloadRequestID, to peer: DeviceID, result: Result<Data, HandoffError>,
            after delay: TimeInterval
        ) {
            let n = neighbourhood
            guard let entry = n.requests[request], entry.receiver == peer else { return }
            n.enqueue(from: id, to: peer, after: n.latency + delay, beacon: false) { receiver in
                n.requests[request] = nil
                guard !n.cancelled.contains(entry.continuation) else { return }
                receiver.receivePayload(entry.continuation, result)
            }
        }

        func leaveUnanswered(_ request: PayloadRequestID, to peer: DeviceID) {
            // Nothing is ever delivered: the requester's fetch timeout ends its wait.
            neighbourhood.requests[request] = nil
        }

        func hangUp(_ request: PayloadRequestID, to peer: DeviceID) {
            let n = neighbourhood
            guard let entry = n.requests.removeValue(forKey: request), entry.receiver == peer else { return }
            let name = n.devices[id]?.info.name ?? id.rawValue
            n.enqueue(from: id, to: peer, after: n.latency, beacon: false) { receiver in
                guard !n.cancelled.contains(entry.continuation) else { return }
                receiver.receivePayload(
                    entry.continuation,
                    .failure(
                        HandoffError(
                            .connectionUnavailable,
                            "the connection to \(name) was lost during the fetch")))
            }
        }

        func notifyContinued(_ activityIdentifier: UUID, continuation: ContinuationID, to peer: DeviceID) {
            let sender = neighbourhood.devices[id]?.info ?? PeerInfo(id: id, name: id.rawValue, kind: .phone)
            neighbourhood.enqueue(from: id, to: peer, after: neighbourhood.latency, beacon: false) { origin in
                origin.receiveContinued(activityIdentifier, by: sender, continuation: continuation)
            }
        }

        func openContinuationStreams(
            to peer: DeviceID, token: Data,
            completion: @escaping (Result<ContinuationStreams, any Error>) -> Void
        ) {
            let n = neighbourhood
            let receiver = id
            guard n.devices[peer] != nil, !n.disconnected.contains(peer) else {
                n.enqueue(from: peer, to: receiver, after: n.connectTimeout, beacon: false) { _ in
                    completion(.failure(ContinuationStreamError.unavailable("\(peer) is not reachable")))
                }
                return
            }
            n.enqueue(from: receiver, to: peer, after: n.latency, beacon: false) { origin in
                let result = origin.acceptContinuationStreams(token: token, from: receiver)
                n.enqueue(from: peer, to: receiver, after: n.latency, beacon: false) { _ in
                    completion(result.mapError { $0 })
                }
            }
        }
    }
}
