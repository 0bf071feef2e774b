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

extension RuleBook {
    /// How late a withdrawal may come after the lock's delay: the device's timer fires on a busy
    /// machine a little after its deadline, and recordings write milliseconds.
    static let lockWithdrawalSlack: TimeInterval = 1

    static func checkLockedDeviceStopsOffering(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        for history in corpus.points {
            // While locked: the lock, when offering must have stopped, and whether the withdrawal
            // came (or nothing was offered when the delay passed).
            var lock: (point: HistoryPoint, deadline: Date)?
            var offered: HistoryPoint?
            var withdrawnSinceLock = false
            var reported = false
            func checkDeadline(before point: HistoryPoint) {
                guard let current = lock, !withdrawnSinceLock, !reported, let advertised = offered,
                    point.time > current.deadline.addingTimeInterval(lockWithdrawalSlack)
                else { return }
                reported = true
                violations.append(
                    Violation(
                        rule: lockedDeviceStopsOffering, slice: [current.point, advertised, point],
                        detail:
                            "\(point.device) still offered \(advertised.event.activity?.activityType ?? "its activity") "
                            + "\(Self.seconds(point.time.timeIntervalSince(current.point.time))) after it was locked "
                            + "(offering stops \(Self.seconds(current.deadline.timeIntervalSince(current.point.time))) after the lock)"
                    ))
            }
            for point in history {
                checkDeadline(before: point)
                switch point.event.occurrence {
                case .deviceLocked(let delay):
                    if lock == nil {
                        lock = (point, point.time.addingTimeInterval(delay))
                        withdrawnSinceLock = offered == nil
                        reported = false
                    }
                case .deviceUnlocked:
                    lock = nil
                case .advertised:
                    if let current = lock, point.time > current.deadline.addingTimeInterval(0.001) {
                        violations.append(
                            Violation(
                                rule: lockedDeviceStopsOffering, slice: [current.point, point],
                                detail:
                                    "\(point.device) advertised \(point.event.activity?.activityType ?? "an activity") "
                                    + "\(Self.seconds(point.time.timeIntervalSince(current.point.time))) after it was locked, "
                                    + "past the \(Self.seconds(current.deadline.timeIntervalSince(current.point.time))) delay"
                            ))
                    }
                    offered = point
                    if lock != nil { withdrawnSinceLock = false }
                case .withdrawn:
                    offered = nil
                    withdrawnSinceLock = true
                default: break
                }
            }
        }
        return violations
    }

    /// `interval` as "8.0 s".
    static func seconds(_ interval: TimeInterval) -> String {
        String(format: "%.1f s", interval)
    }
}
