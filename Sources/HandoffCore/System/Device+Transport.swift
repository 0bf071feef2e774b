import Foundation

extension Device {
    // MARK: From the transport

    public func receiveAdvertisement(_ advertisement: Advertisement, from peer: PeerInfo) {
        post(.advertisementReceived(advertisement, from: peer))
    }

    public func receiveGoodbye(from peer: DeviceID) { post(.goodbyeReceived(peer)) }

    /// A beacon from `peer` that advertises nothing (presence, or a goodbye): its offer, if this
    /// device has one, is withdrawn. The device looks at its own offers, so a peer that offers
    /// nothing costs no event.
    public func receivePresence(from peer: DeviceID) {
        if system.offers[peer] != nil { post(.goodbyeReceived(peer)) }
    }

    /// The network opened and accepted this beacon datagram from `peer`: kept (the last per
    /// peer) for the inspector.
    public func beaconOpened(_ datagram: [UInt8], from peer: PeerInfo) {
        traffic.keep(DeviceTraffic.Beacon(peer: peer, datagram: datagram, time: clock()))
    }

    public func receivePayloadRequest(
        _ request: PayloadRequestID, from peer: PeerInfo, activityTypeHash: ActivityTypeHash,
        continuation: ContinuationID
    ) {
        StageMarks.mark(.requestOnQueue)
        let fate = faults.payloadRequestArrives()
        if let fault = fate.fault { record(.faultInjected(continuation, fault)) }
        switch fate {
        case .leftUnanswered:
            // The lab's no-answer fault: the request is never answered, not even by the serving
            // deadline; the requester's fetch timeout ends it.
            transport?.leaveUnanswered(request, to: peer.id)
            return
        case .hungUp:
            // The lab's origin-leaves fault: the connection closes under the request.
            transport?.hangUp(request, to: peer.id)
            return
        case .served:
            break
        }
        post(.payloadRequested(request, from: peer, activityTypeHash: activityTypeHash, continuation: continuation))
    }

    /// The answer to a payload request: the encoded payload, or the error the origin or the
    /// connection reported. Decoding happens here, hostile-input safe.
    public func receivePayload(_ continuation: ContinuationID, _ result: Result<Data, HandoffError>) {
        switch result {
        case .failure(let error):
            post(.payloadFailed(continuation, error))
        case .success(let data):
            let limit = system.configuration.payloadLimitBytes
            if data.count <= limit {
                traffic.received = DeviceTraffic.Payload(
                    continuation: continuation,
                    peer: system.pendingContinuation.map { PeerReference(id: $0.peer.id, name: $0.peer.name) },
                    bytes: data, time: clock())
            }
            guard data.count <= limit else {
                post(
                    .payloadFailed(
                        continuation,
                        HandoffError(
                            .userInfoTooLarge,
                            "the payload is \(data.count) bytes, over this device's \(limit)-byte limit")))
                return
            }
            do {
                let payload = try ActivityPayload(decoding: data, limits: PayloadLimits(maximumPayloadBytes: limit))
                StageMarks.mark(.payloadDecoded)
                post(
                    .payloadReceived(
                        continuation, resolvingUbiquitousURLs(payload, for: continuation), size: data.count))
            } catch {
                post(
                    .payloadFailed(
                        continuation, HandoffError(.handoffFailed, "the payload could not be decoded: \(error)")))
            }
        }
    }

    public func receiveContinued(_ activityIdentifier: UUID, by peer: PeerInfo, continuation: ContinuationID) {
        post(.continuationConfirmed(activityIdentifier: activityIdentifier, by: peer, continuation: continuation))
    }

    /// A peer opens continuation streams with a token from a payload this device sent. On success
    /// the origin's activity delegate receives its end and the peer's end is returned.
    public func acceptContinuationStreams(
        token: Data, from peer: DeviceID
    ) -> Result<ContinuationStreams, ContinuationStreamError> {
        let reference = PeerReference(id: peer, name: system.name(of: peer))
        let key = StreamToken(token)
        if let key, let grant = streamTokens[key], strikes(.refuseStreams, grant.continuation) {
            _ = streamTokens.take(key)
            record(
                .streamsRefused(
                    grant.continuation, reference, activityType: nil,
                    reason: "refused on purpose (the refuse-streams fault)"))
            return .failure(.refused("refused on purpose (the refuse-streams fault)"))
        }
        guard let grant = key.flatMap({ streamTokens.take($0) }), grant.expires > clock() else {
            record(.streamsRefused(nil, reference, activityType: nil, reason: "unknown, used or expired stream token"))
            return .failure(.refused("unknown, used or expired stream token"))
        }
        guard let activity = activities[grant.activity], activity.supportsContinuationStreams,
            let activityReference = activity.reference
        else {
            record(
                .streamsRefused(
                    grant.continuation, reference, activityType: nil,
                    reason: "the activity is gone or no longer supports streams"))
            return .failure(.refused("the activity is gone or no longer supports streams"))
        }
        var (mine, theirs) = ContinuationStreams.makePipe()
        if slowsStreams(of: grant.continuation) {
            // The lab's slow link: what the origin's app writes leaves slowly.
            mine = ContinuationStreams(input: mine.input, output: mine.output.throttled(by: slowLink))
        }
        record(.streamsOpened(grant.continuation, reference, activityReference, side: .origin))
        activity.delegate?.userActivity(activity, didReceive: mine)
        return .success(theirs)
    }

    // MARK: From the web

    /// One domain's association file was fetched (or the fetch failed): the device keeps the
    /// answer for routing web pages, and records it.
    public func siteAssociationChecked(_ check: SiteAssociationCheck) {
        post(.siteAssociationChecked(check))
    }

    // MARK: Continuation streams

    func openContinuationStreams(
        for activity: UserActivity, from origin: ReceivedFrom,
        completion: @escaping (ContinuationStreams?, (any Error)?) -> Void
    ) {
        guard let transport else {
            completion(nil, ContinuationStreamError.unavailable("the device has no network"))
            return
        }
        step(.streams(from: origin.peer.name), continuation: origin.continuation) { [weak self] in
            self?.openStreams(with: transport, for: activity, from: origin, completion: completion)
        }
    }

    private func openStreams(
        with transport: any DeviceTransport, for activity: UserActivity, from origin: ReceivedFrom,
        completion: @escaping (ContinuationStreams?, (any Error)?) -> Void
    ) {
        transport.openContinuationStreams(to: origin.peer.id, token: origin.streamToken) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(var streams):
                if self.slowsStreams(of: origin.continuation) {
                    // The lab's slow link: what the continuing app writes leaves slowly.
                    streams = ContinuationStreams(
                        input: streams.input, output: streams.output.throttled(by: self.slowLink))
                }
                if let reference = activity.reference {
                    self.record(.streamsOpened(origin.continuation, origin.peer, reference, side: .continuing))
                }
                completion(streams, nil)
            case .failure(let error):
                self.record(
                    .streamsRefused(
                        origin.continuation, origin.peer, activityType: activity.activityType, reason: "\(error)"))
                completion(nil, error)
            }
        }
    }

    /// Whether what this device writes on `continuation`'s streams leaves slowly, as the plan
    /// says (a slow-link fault striking now is recorded).
    private func slowsStreams(of continuation: ContinuationID) -> Bool {
        switch faults.paceOfStreams(of: continuation) {
        case .full: return false
        case .slowedWithPayload: return true
        case .slowedNow:
            record(.faultInjected(continuation, .slowLink))
            return true
        }
    }

    // MARK: Beacons

    /// Sends a beacon change deferred to the end of this turn of the device's run loop now, if
    /// one is waiting: the run loop calls it as soon as the turn's work is done, so the beacon
    /// leaves before the loop's own bookkeeping (the flush it had deferred then finds nothing).
    public func flushDeferredBeacon() {
        if isBeaconFlushScheduled { flushBeacon() }
    }

    /// Sends (and records) the last beacon change, if one is waiting.
    public func flushBeacon() {
        StageMarks.mark(.beaconFlushed)
        isBeaconFlushScheduled = false
        guard let beacon = pendingBeacon else { return }
        pendingBeacon = nil
        switch beacon {
        case .advertise(let ad, let activity):
            if strikes(.dropBeacons) { return }
            transport?.advertise(ad, from: info)
            record(.advertised(activity, ad.identity, isEligible: ad.options.contains(.isEligibleForHandoff)))
        case .withdraw(let reason):
            transport?.withdraw(from: info)
            record(.withdrawn(reason))
        default:
            break
        }
    }

    /// `payload` with the iCloud references its userInfo carries turned into file URLs in this
    /// device's container (what the app will be given, and what the lifecycle shows); the URLs
    /// are granted security-scoped to the app when the activity is delivered. Without a
    /// container they stay references: there is no file here to point at.
    func resolvingUbiquitousURLs(_ payload: ActivityPayload, for continuation: ContinuationID) -> ActivityPayload {
        scopedURLs = nil
        guard let container = ubiquityContainerURL else { return payload }
        var payload = payload
        let (userInfo, resolved) = UbiquityContainer.resolving(payload.userInfo, container: container)
        payload.userInfo = userInfo
        if !resolved.isEmpty { scopedURLs = (continuation, resolved) }
        return payload
    }
}
