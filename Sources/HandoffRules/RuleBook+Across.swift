import Foundation
import HandoffCore

/// The rules that read two devices at once (web approval, size limits, causality, accounts).
extension RuleBook {
    static func checkWebNeedsApprovalAndEmptyUserInfo(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        for (position, history) in corpus.points.enumerated() {
            for chosen in history {
                guard case .continueChosen(let id, let peer, .web(let browser)) = chosen.event.occurrence else {
                    continue
                }
                let events = corpus.points(of: id, in: position)
                guard
                    let delivery = events.first(where: {
                        $0.event.kind == .continueCalled || $0.event.kind == .sceneContinue
                    }), let app = delivery.event.bundleIdentifier, app != browser
                else { continue }
                let routed = events.first {
                    if case .webRouted(_, _, let bundle, .approved) = $0.event.occurrence, bundle == app {
                        true
                    } else {
                        false
                    }
                }
                guard let routed, case .webRouted(_, let host, _, .approved(_, let domain)) = routed.event.occurrence
                else {
                    violations.append(
                        Violation(
                            rule: webNeedsApprovalAndEmptyUserInfo, slice: [chosen, delivery],
                            detail:
                                "\(delivery.device) gave \(peer.name)'s web page to \(app) without an approving association file"
                        ))
                    continue
                }
                let check = history.last { point in
                    guard point.index < routed.index,
                        case .siteAssociationChecked(let check, _) = point.event.occurrence
                    else { return false }
                    return check.bundleIdentifier == app && check.domain == domain
                }
                let approves: Bool =
                    if case .siteAssociationChecked(let check, let kept)? = check?.event.occurrence {
                        check.outcome == .approved || (!check.outcome.isAnswer && kept == .approved)
                    } else { false }
                if !approves {
                    violations.append(
                        Violation(
                            rule: webNeedsApprovalAndEmptyUserInfo, slice: [check, routed].compactMap { $0 },
                            detail:
                                "\(routed.device) routed \(host) to \(app), but "
                                + (check.map { _ in "its latest association check for \(domain) did not approve it" }
                                    ?? "it never checked \(domain)'s association file")))
                }
                for restore in events {
                    guard case .restoreUserActivityState(_, _, _, let info) = restore.event.occurrence, !info.isEmpty
                    else { continue }
                    violations.append(
                        Violation(
                            rule: webNeedsApprovalAndEmptyUserInfo, slice: [routed, restore],
                            detail:
                                "\(restore.device) gave \(app) the web page from \(peer.name) with \(info.count) userInfo key\(info.count == 1 ? "" : "s") (\(info.keys.sorted().joined(separator: ", ")))"
                        ))
                }
            }
        }
        return violations
    }

    static func checkTooLargeFails4611(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        for (position, history) in corpus.points.enumerated() {
            for point in history {
                switch point.event.occurrence {
                case .payloadRefused(let id, let peer, let error) where error.code == .userInfoTooLarge:
                    guard let continuing = corpus.index(of: peer, seenFrom: point.device) else { continue }
                    let events = corpus.points(of: id, in: continuing)
                    let reached = events.first {
                        [.payloadReceived, .continueCalled, .sceneContinue, .continued].contains($0.event.kind)
                    }
                    let failed = events.first {
                        if case .continuationFailed(_, _, _, _, let error) = $0.event.occurrence {
                            error.code == .userInfoTooLarge
                        } else {
                            false
                        }
                    }
                    if let reached {
                        violations.append(
                            Violation(
                                rule: tooLargeFails4611, slice: [point, reached],
                                detail:
                                    "\(point.device) refused the payload as too large, yet it reached \(reached.device) (\(reached.event.kind.rawValue))"
                            ))
                    } else if failed == nil, let end = events.first(where: { ending($0.event) != nil }),
                        // Ended before the refusal left (the user cancelled, or the fetch timed
                        // out): the refusal found nothing left to fail.
                        millisecond(end.time) > millisecond(point.time)
                    {
                        violations.append(
                            Violation(
                                rule: tooLargeFails4611, slice: [point, end],
                                detail:
                                    "\(point.device) refused the payload as too large, but \(end.device)'s continuation \(ending(end.event) ?? "ended otherwise"), not with 4611"
                            ))
                    }
                case .continuationFailed(let id, _, _, _, let error) where error.code == .userInfoTooLarge:
                    if let delivered = corpus.points(of: id, in: position).first(where: {
                        [.continueCalled, .sceneContinue, .continued].contains($0.event.kind)
                    }) {
                        violations.append(
                            Violation(
                                rule: tooLargeFails4611, slice: [delivered, point],
                                detail: "\(point.device) failed with 4611 after the app already had the activity"))
                    }
                default: break
                }
            }
        }
        return violations
    }

    /// One receipt and where its send is found: the sender, the continuation (nil for a beacon)
    /// and which of the sender's events is the send.
    struct Receipt {
        let sender: PeerReference
        let continuation: ContinuationID?
        let what: String
        let isSend: (LifecycleEvent) -> Bool
    }

    static func receipt(_ event: LifecycleEvent) -> Receipt? {
        switch event.occurrence {
        case .offerReceived(let peer, let identity, _):
            return Receipt(sender: peer, continuation: nil, what: "an offer of serial \(identity.serial)") {
                if case .advertised(_, let sent, _) = $0.occurrence {
                    sent.serial == identity.serial && sent.activityTypeHash == identity.activityTypeHash
                } else {
                    false
                }
            }
        case .payloadRequested(let id, let peer, _):
            return Receipt(sender: peer, continuation: id, what: "a payload request") { $0.kind == .fetchStarted }
        case .payloadReceived(let id, let peer, _, _, _, _):
            return Receipt(sender: peer, continuation: id, what: "a payload") { $0.kind == .payloadSent }
        case .wasContinued(let id, let peer, _):
            return Receipt(sender: peer, continuation: id, what: "word that the activity continued") {
                $0.kind == .continued
            }
        default:
            return nil
        }
    }

    static func checkSendBeforeReceive(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        // Each history's beacons by serial and type hash, built when first needed.
        var beacons: [Int: [String: [HistoryPoint]]] = [:]
        func advertised(in position: Int) -> [String: [HistoryPoint]] {
            if let known = beacons[position] { return known }
            var index: [String: [HistoryPoint]] = [:]
            for point in corpus.points[position] {
                if case .advertised(_, let identity, _) = point.event.occurrence {
                    index["\(identity.serial) \(identity.activityTypeHash)", default: []].append(point)
                }
            }
            beacons[position] = index
            return index
        }
        for history in corpus.points {
            for point in history {
                guard let receipt = receipt(point.event),
                    let sender = corpus.index(of: receipt.sender, seenFrom: point.device)
                else { continue }
                let candidates: [HistoryPoint]
                if let id = receipt.continuation {
                    candidates = corpus.points(of: id, in: sender)
                } else if case .offerReceived(_, let identity, _) = point.event.occurrence {
                    candidates = advertised(in: sender)["\(identity.serial) \(identity.activityTypeHash)"] ?? []
                } else {
                    candidates = []
                }
                let sends = candidates.filter { receipt.isSend($0.event) }
                guard let first = sends.first else {
                    violations.append(
                        Violation(
                            rule: sendBeforeReceive, slice: [point],
                            detail: "\(point.device) received \(receipt.what) that \(receipt.sender.name) never sent"))
                    continue
                }
                if !sends.contains(where: { millisecond($0.time) <= millisecond(point.time) }) {
                    let gap = Int((first.time.timeIntervalSince(point.time) * 1000).rounded())
                    violations.append(
                        Violation(
                            rule: sendBeforeReceive, slice: [point, first],
                            detail:
                                "\(point.device) received \(receipt.what) \(gap) ms before \(first.device) sent it"))
                }
            }
        }
        return violations
    }

    static func checkNothingCrossesAccounts(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        for (position, history) in corpus.points.enumerated() {
            guard let account = corpus.histories[position].account else { continue }
            var reported: Set<String> = []
            for point in history {
                guard let peer = point.event.peer,
                    let other = corpus.index(of: peer, seenFrom: point.device),
                    let otherAccount = corpus.histories[other].account, otherAccount != account,
                    reported.insert(peer.name).inserted
                else { continue }
                violations.append(
                    Violation(
                        rule: nothingCrossesAccounts, slice: [point],
                        detail:
                            "\(point.device) (account \(account)) dealt with \(peer.name) (account \(otherAccount)): \(point.event.kind.rawValue)"
                    ))
            }
        }
        return violations
    }
}
