import Foundation
import HandoffCore

/// The rules about one continuation on the continuing device, and about its ending on both.
extension RuleBook {
    /// How a continuation ended on the continuing device, when the event is an ending.
    static func ending(_ event: LifecycleEvent) -> String? {
        switch event.occurrence {
        case .continued: "continued"
        case .notHandled: "not handled"
        case .continuationFailed(_, _, _, _, let error): "failed with \(error.code.rawValue)"
        default: nil
        }
    }

    static func checkContinuationEndsOnce(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        for (position, history) in corpus.points.enumerated() {
            var chosen: [ContinuationID: HistoryPoint] = [:]
            var endings: [ContinuationID: [HistoryPoint]] = [:]
            var order: [ContinuationID] = []
            for point in history {
                if case .continueChosen(let id, _, _) = point.event.occurrence {
                    if chosen[id] == nil, endings[id] == nil { order.append(id) }
                    chosen[id] = point
                } else if ending(point.event) != nil, let id = point.continuation {
                    if chosen[id] == nil, endings[id] == nil { order.append(id) }
                    endings[id, default: []].append(point)
                }
            }
            for id in order {
                let ends = endings[id] ?? []
                guard let start = chosen[id] else {
                    violations.append(
                        Violation(
                            rule: continuationEndsOnce, slice: ends,
                            detail:
                                "\(ends[0].device) ended continuation \(id.short) (\(ending(ends[0].event) ?? "")) that the user never chose"
                        ))
                    continue
                }
                if ends.isEmpty {
                    // A history that stops mid-continuation (the device was killed or quit) says
                    // nothing of how it would have ended; one that goes on shows it never did.
                    guard let later = goesOn(history, own: corpus.points(of: id, in: position), from: start) else {
                        continue
                    }
                    violations.append(
                        Violation(
                            rule: continuationEndsOnce, slice: [start, later],
                            detail:
                                "\(start.device)'s continuation \(id.short) from \(start.event.peer?.name ?? "a peer") never ended, though the device went on"
                        ))
                } else if ends.count > 1 {
                    let how = ends.compactMap { ending($0.event) }.joined(separator: ", then ")
                    violations.append(
                        Violation(
                            rule: continuationEndsOnce, slice: [start] + ends,
                            detail: "\(start.device)'s continuation \(id.short) ended \(ends.count) times: \(how)"))
                }
            }
        }
        return violations
    }

    /// The event that shows `history` went on past a continuation that never ended: the next
    /// continuation chosen (one at a time), or an event later than the continuation's fetch
    /// timeout (plus a second) after its last event. Nil when the history stops first.
    static func goesOn(_ history: [HistoryPoint], own: [HistoryPoint], from start: HistoryPoint) -> HistoryPoint? {
        let id = start.continuation
        let last = own.last ?? start
        let timeout = own.lazy.compactMap { point -> TimeInterval? in
            if case .fetchStarted(_, _, let timeout) = point.event.occurrence { return timeout }
            return nil
        }.first
        return history.first { point in
            guard point.index > start.index, point.continuation != id else { return false }
            if point.event.kind == .continueChosen { return true }
            guard let timeout else { return false }
            return point.time.timeIntervalSince(last.time) > timeout + 1
        }
    }

    static func checkOriginKeepsActivityOnFailure(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        for history in corpus.points {
            for failure in history {
                guard case .continuationFailed(let id, let peer, _, _, let error) = failure.event.occurrence,
                    let originPosition = corpus.index(of: peer, seenFrom: failure.device)
                else { continue }
                let origin = corpus.points[originPosition]
                let events = corpus.points(of: id, in: originPosition)
                if let told = events.first(where: {
                    if case .wasContinued = $0.event.occurrence { true } else { false }
                }) {
                    violations.append(
                        Violation(
                            rule: originKeepsActivityOnFailure, slice: [failure, told],
                            detail:
                                "\(told.device) was told its activity was continued, but the continuation failed on \(failure.device) with \(error.code.rawValue)"
                        ))
                }
                guard let request = events.first(where: { $0.event.kind == .payloadRequested }),
                    let activity = request.event.activity
                else { continue }
                // The system's part is serving the request: from the request to the origin's answer
                // (payloadSent or payloadRefused), or the request's own millisecond when it never
                // answered. What the origin app does later (it may resign or invalidate its own
                // activity at any time) is the app's, not the system's, doing.
                let answer = events.first { point in
                    point.index > request.index
                        && (point.event.kind == .payloadSent || point.event.kind == .payloadRefused)
                }
                let lost = origin.first { point in
                    guard point.index > request.index, millisecond(point.time) <= millisecond(failure.time) else {
                        return false
                    }
                    if let answer {
                        guard point.index <= answer.index else { return false }
                    } else {
                        guard millisecond(point.time) == millisecond(request.time) else { return false }
                    }
                    switch point.event.occurrence {
                    case .resignedCurrent(let a), .invalidated(let a): return a.id == activity.id
                    default: return false
                    }
                }
                if let lost {
                    violations.append(
                        Violation(
                            rule: originKeepsActivityOnFailure, slice: [request, lost, failure],
                            detail:
                                "\(lost.device)'s \(activity.activityType) stopped being current during continuation \(id.short), which failed on \(failure.device) with \(error.code.rawValue)"
                        ))
                }
            }
        }
        return violations
    }

    static func checkWasContinuedAfterTaken(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        for history in corpus.points {
            for told in history {
                guard case .wasContinued(let id, let peer, let a) = told.event.occurrence,
                    let continuing = corpus.index(of: peer, seenFrom: told.device)
                else { continue }
                let events = corpus.points(of: id, in: continuing)
                guard
                    let taken = events.first(where: {
                        if case .continued = $0.event.occurrence { true } else { false }
                    })
                else {
                    let how =
                        events.compactMap { ending($0.event) }.first.map { "it was \($0) there" } ?? "it never ended"
                    violations.append(
                        Violation(
                            rule: wasContinuedAfterTaken,
                            slice: events.filter { ending($0.event) != nil } + [told],
                            detail:
                                "\(told.device)'s \(a.activityType) was told it continued on \(peer.name), but \(how)"))
                    continue
                }
                if millisecond(taken.time) > millisecond(told.time) {
                    violations.append(
                        Violation(
                            rule: wasContinuedAfterTaken, slice: [told, taken],
                            detail:
                                "\(told.device) was told \(a.activityType) continued before \(taken.device)'s app took it"
                        ))
                }
            }
        }
        return violations
    }

    static func checkWillContinueBeforeFetch(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        for (position, history) in corpus.points.enumerated() {
            var told: Set<ContinuationID> = []
            var chosen: [ContinuationID: HistoryPoint] = [:]
            for point in history {
                switch point.event.occurrence {
                case .continueChosen(let id, _, _): chosen[id] = point
                case .willContinue(let id, _, _, _, _), .sceneWillContinue(let id, _, _, _, _): told.insert(id)
                case .fetchStarted(let id, let peer, _) where !told.contains(id):
                    let later = corpus.points(of: id, in: position).first {
                        $0.index > point.index
                            && ($0.event.kind == .willContinue || $0.event.kind == .sceneWillContinue)
                    }
                    let route =
                        if case .continueChosen(_, _, let route)? = chosen[id]?.event.occurrence {
                            " (\(route))"
                        } else { "" }
                    violations.append(
                        Violation(
                            rule: willContinueBeforeFetch, slice: [chosen[id], point, later].compactMap { $0 },
                            detail: "\(point.device) fetched the payload from \(peer.name)\(route) "
                                + (later == nil
                                    ? "and never told the app willContinue" : "before telling the app willContinue")
                        ))
                default: break
                }
            }
        }
        return violations
    }

    static func checkContinueBeforeRestore(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        for history in corpus.points {
            var called: [ContinuationID: HistoryPoint] = [:]
            for point in history {
                switch point.event.occurrence {
                case .continueCalled(let id, _, _):
                    called[id] = point
                case .restoreUserActivityState(let id, let bundle, let objects, _):
                    guard let call = called[id] else {
                        violations.append(
                            Violation(
                                rule: continueBeforeRestore, slice: [point],
                                detail:
                                    "\(point.device) restored \(objects) object\(objects == 1 ? "" : "s") of \(bundle) before application(_:continue:restorationHandler:) was called"
                            ))
                        continue
                    }
                    if let app = call.event.bundleIdentifier, app != bundle {
                        violations.append(
                            Violation(
                                rule: continueBeforeRestore, slice: [call, point],
                                detail: "\(point.device) gave the activity to \(app) but restored objects of \(bundle)")
                        )
                    }
                default: break
                }
            }
        }
        return violations
    }

    static func checkSceneColdLaunchCarriesType(_ corpus: Corpus) -> [Violation] {
        var violations: [Violation] = []
        for (position, history) in corpus.points.enumerated() {
            for point in history {
                guard case .sceneWillConnect(.some(let id), _, let scene, let type) = point.event.occurrence else {
                    continue
                }
                let events = corpus.points(of: id, in: position)
                let expected = events.lazy.compactMap { event -> String? in
                    switch event.event.occurrence {
                    case .willContinue, .sceneWillContinue, .sceneContinue, .continueCalled, .payloadReceived:
                        event.event.activityType
                    case .continueChosen(_, _, .app(_, let type)): type
                    default: nil
                    }
                }.first
                if type == nil || (expected != nil && type != expected) {
                    violations.append(
                        Violation(
                            rule: sceneColdLaunchCarriesType, slice: [point],
                            detail:
                                "\(point.device) connected \(scene) for continuation \(id.short) with handoffUserActivityType \(type ?? "nil"), not \(expected ?? "the activity's type")"
                        ))
                }
                if let early = events.first(where: {
                    $0.index < point.index && ($0.event.kind == .sceneContinue || $0.event.kind == .sceneWillContinue)
                }) {
                    violations.append(
                        Violation(
                            rule: sceneColdLaunchCarriesType, slice: [early, point],
                            detail: "\(point.device) gave the activity to a scene before \(scene) connected"))
                }
            }
        }
        return violations
    }
}
