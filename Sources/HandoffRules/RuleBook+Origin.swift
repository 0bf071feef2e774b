import Foundation
import HandoffCore

/// The rules about the origin's activity: what is current, what is offered, what is saved.
extension RuleBook {
    static func checkOnlyCurrentOffered(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        for history in corpus.points {
            // The current activity and the event that made it so; the event that ended it.
            var current: HistoryPoint?
            var ended: HistoryPoint?
            for point in history {
                switch point.event.occurrence {
                case .becameCurrent:
                    current = point
                    ended = nil
                case .resignedCurrent(let a), .invalidated(let a), .expired(let a):
                    if current?.event.activity?.id == a.id {
                        current = nil
                        ended = point
                    }
                case .applicationTerminated(let bundle):
                    if current?.event.activity?.bundleIdentifier == bundle {
                        current = nil
                        ended = point
                    }
                case .advertised(let a, _, _), .payloadRequested(_, _, .some(let a)):
                    guard current?.event.activity?.id != a.id else { break }
                    let what =
                        if case .advertised = point.event.occurrence { "advertised" } else {
                            "served a payload request for"
                        }
                    let now =
                        current.map { "\($0.event.activity?.activityType ?? "another activity") is current" }
                        ?? "no activity is current"
                    violations.append(
                        Violation(
                            rule: onlyCurrentOffered, slice: [ended ?? current, point].compactMap { $0 },
                            detail: "\(point.device) \(what) \(a.activityType) (\(a.bundleIdentifier)) while \(now)"))
                default: break
                }
            }
        }
        return violations
    }

    static func checkInvalidatedNeverContinued(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        for history in corpus.points {
            var invalidated: [UUID: HistoryPoint] = [:]
            for point in history {
                if case .invalidated(let a) = point.event.occurrence {
                    if invalidated[a.id] == nil { invalidated[a.id] = point }
                    continue
                }
                let what: String? =
                    switch point.event.occurrence {
                    case .becameCurrent: "made current"
                    case .advertised: "advertised"
                    case .payloadRequested: "served a payload request for"
                    case .payloadSent: "sent"
                    case .wasContinued: "was told it continued"
                    case .streamsOpened: "opened streams for"
                    default: nil
                    }
                guard let what, let a = point.event.activity, let end = invalidated[a.id] else { continue }
                violations.append(
                    Violation(
                        rule: invalidatedNeverContinued, slice: [end, point],
                        detail:
                            "\(point.device) \(what) \(a.activityType) (\(a.bundleIdentifier)) after it was invalidated"
                    ))
            }
        }
        return violations
    }

    static func checkFreshSaveExactlyWhenNeeded(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        for history in corpus.points {
            // Per activity: the needsSave set since its last save, if any.
            var dirty: [UUID: HistoryPoint] = [:]
            // Per continuation: needsSave as it stood when the payload was requested, and the save.
            var neededAtRequest: [ContinuationID: HistoryPoint?] = [:]
            var requests: [ContinuationID: HistoryPoint] = [:]
            var freshSaves: [ContinuationID: HistoryPoint] = [:]
            for point in history {
                switch point.event.occurrence {
                case .needsSaveSet(let a):
                    if dirty[a.id] == nil { dirty[a.id] = point }
                case .saved(let a, let reason, _, let continuation):
                    if dirty[a.id] == nil {
                        let why = reason == .coalesced ? "a coalesced save" : "a save before the payload left"
                        violations.append(
                            Violation(
                                rule: freshSaveExactlyWhenNeeded, slice: [point],
                                detail:
                                    "\(point.device) ran \(why) of \(a.activityType) though needsSave was not set since its last save"
                            ))
                    }
                    dirty[a.id] = nil
                    if let continuation, reason == .beforeSending { freshSaves[continuation] = point }
                case .payloadRequested(let continuation, _, .some(let a)):
                    requests[continuation] = point
                    neededAtRequest[continuation] = .some(dirty[a.id])
                case .payloadSent(let continuation, let peer, let a, _, _):
                    let needed = neededAtRequest[continuation] ?? nil
                    let fresh = freshSaves[continuation]
                    if let needed, fresh == nil {
                        violations.append(
                            Violation(
                                rule: freshSaveExactlyWhenNeeded,
                                slice: [needed, requests[continuation], point].compactMap { $0 },
                                detail:
                                    "\(point.device) sent \(a.activityType) to \(peer.name) without a fresh save, though needsSave was set"
                            ))
                    }
                default: break
                }
            }
        }
        return violations
    }

    static func checkSizeGuidanceWarned(_ corpus: Corpus) -> [Violation] {
        let guidance = 3 * 1024
        var violations: [Violation] = []
        for history in corpus.points {
            let warned = Set(
                history.compactMap { point -> ContinuationID? in
                    if case .payloadSizeWarning(let id, _, _) = point.event.occurrence { return id }
                    return nil
                })
            for point in history {
                let size: (ContinuationID, Int, String)? =
                    switch point.event.occurrence {
                    case .payloadSent(let id, let peer, _, let bytes, _): (id, bytes, "sent to \(peer.name)")
                    case .payloadReceived(let id, let peer, _, let bytes, _, _):
                        (id, bytes, "received from \(peer.name)")
                    default: nil
                    }
                guard let (id, bytes, how) = size, bytes > guidance, !warned.contains(id) else { continue }
                violations.append(
                    Violation(
                        rule: sizeGuidanceWarned, slice: [point],
                        detail:
                            "\(point.device) \(how) a payload of \(bytes) bytes, over the \(guidance)-byte guidance, with no payloadSizeWarning"
                    ))
            }
        }
        return violations
    }
}
