import Foundation
import HandoffCore
import HandoffRules

/// One continuation a device chose, compared with a continuation that succeeds on its path.
package struct ContinuationFinding: Sendable {
    /// The path a continuation takes on the continuing device: what a successful one records.
    package enum Path: String, Sendable, Hashable {
        /// A native activity into an app delegate.
        case native
        /// A native activity into a scene-based app.
        case scenes
        /// A native activity's web page opened in the browser (no app here can take the type).
        case browser
        /// A browser's page (`NSUserActivityTypeBrowsingWeb`) into the app its site approves.
        case web
    }

    package enum Outcome: String, Sendable, Hashable {
        case succeeded, failed
        /// The recording stops before the continuation ended: nothing is known of how it would.
        case unfinished
    }

    /// The continuing device.
    package var device: String
    package var continuation: ContinuationID?
    /// The origin device's name.
    package var origin: String
    package var path: Path
    /// How the app was started: cold, warm, or nil when it was in front already.
    package var launch: LaunchKind?
    package var outcome: Outcome
    /// The event kinds a continuation that succeeds records on this path, in order.
    package var expected: [LifecycleEvent.Kind]
    /// The first event that differs from `expected` (nil when none does, or when the recording
    /// stops where the next expected event would be).
    package var divergence: HistoryPoint?
    /// What a continuation that succeeds records at that place (nil past its end).
    package var expectedThere: LifecycleEvent.Kind?
    /// The rule the difference breaks, and what happened.
    package var rule: Rule?
    package var details: [String]
    /// Events of other devices (or this one) that explain it: the origin's refusal, a fault of the lab.
    package var related: [HistoryPoint]
}

/// `handoff doctor RECORDING…`: every continuation chosen in the recordings, compared with the
/// ordered event kinds of a continuation that succeeds on its path (native, scenes, browser,
/// web); for each that failed, the first event that differs, the rule and what it means. Pure:
/// typed histories in, findings out.
package enum RecordingDoctor {
    /// The kinds that mark a continuation's progress on the continuing device; the others
    /// (restorations, size warnings, pauses of step mode, faults) may come between them.
    package static let milestones: Set<LifecycleEvent.Kind> = [
        .continueChosen, .webRouted, .applicationLaunched, .sceneWillConnect, .willContinue, .sceneWillContinue,
        .fetchStarted, .payloadReceived, .continueCalled, .sceneContinue, .continued, .notHandled, .continuationFailed,
    ]

    /// What a continuation that succeeds records, in order, on `path` with `launch`.
    /// A web page's app may use scenes too (`usesScenes`); `.scenes` always does.
    package static func expected(path: Path, launch: LaunchKind?, usesScenes: Bool = false) -> [LifecycleEvent.Kind] {
        let usesScenes = usesScenes || path == .scenes
        var kinds: [LifecycleEvent.Kind] = [.continueChosen]
        if path == .web { kinds.append(.webRouted) }
        if launch != nil { kinds.append(.applicationLaunched) }
        if usesScenes && launch == .cold { kinds.append(.sceneWillConnect) }
        kinds += [usesScenes ? .sceneWillContinue : .willContinue, .fetchStarted, .payloadReceived]
        kinds += [usesScenes ? .sceneContinue : .continueCalled, .continued]
        return kinds
    }

    package typealias Path = ContinuationFinding.Path

    /// Every continuation chosen on any device of `histories`, in the order chosen per device.
    package static func diagnose(_ histories: [DeviceHistory]) -> [ContinuationFinding] {
        var findings: [ContinuationFinding] = []
        for history in histories {
            let points = history.events.enumerated().map {
                HistoryPoint(device: history.device, index: $0.offset, event: $0.element)
            }
            for point in points {
                switch point.event.occurrence {
                case .continueChosen(let id, let peer, let route):
                    let own = points.filter { $0.event.continuation == id }
                    findings.append(finding(id, from: peer, route: route, own: own, histories: histories))
                case .choiceIgnored(let peer, .unavailable(let why)):
                    findings.append(ignored(point, from: peer, why))
                default:
                    continue
                }
            }
        }
        return findings
    }

    static func finding(
        _ id: ContinuationID, from peer: PeerReference, route: Route, own: [HistoryPoint], histories: [DeviceHistory]
    ) -> ContinuationFinding {
        let usesScenes = own.contains { point in
            switch point.event.kind {
            case .sceneWillConnect, .sceneWillContinue, .sceneContinue, .sceneDidFailToContinue: true
            default: false
            }
        }
        let path: Path =
            switch route {
            case .web: .web
            case .browser: .browser
            case .app, .unavailable: usesScenes ? .scenes : .native
            }
        var launch: LaunchKind?
        for point in own {
            if case .applicationLaunched(_, _, let kind) = point.event.occurrence { launch = kind }
        }
        let expectedKinds = expected(path: path, launch: launch, usesScenes: usesScenes)
        let milestones = own.filter { Self.milestones.contains($0.event.kind) }
        let related = histories.flatMap { history in
            history.events.enumerated().compactMap { index, event -> HistoryPoint? in
                guard event.continuation == id else { return nil }
                switch event.kind {
                case .payloadRefused, .faultInjected, .systemShowedError:
                    return HistoryPoint(device: history.device, index: index, event: event)
                default:
                    return nil
                }
            }
        }
        var result = ContinuationFinding(
            device: own.first?.device ?? "", continuation: id, origin: peer.name, path: path, launch: launch,
            outcome: .succeeded, expected: expectedKinds, divergence: nil, expectedThere: nil, rule: nil, details: [],
            related: related)
        let ended = milestones.contains { [.continued, .notHandled, .continuationFailed].contains($0.event.kind) }
        // A page the site did not approve reaches the browser: the continuation ends, in the wrong app.
        if let refused = milestones.first(where: { point in
            if case .webRouted(_, _, _, .notApproved) = point.event.occurrence { true } else { false }
        }), case .webRouted(_, let host, let bundle, .notApproved(let refusals)) = refused.event.occurrence {
            result.outcome = .failed
            result.divergence = refused
            result.expectedThere = .webRouted
            result.rule = RuleBook.webNeedsApprovalAndEmptyUserInfo
            result.details =
                ["the page on \(host) went to \(bundle) (the browser): no site approves an app that names the host"]
                + refusals.map { "\($0)" }
            return result
        }
        for (index, point) in milestones.enumerated() {
            let wanted = index < expectedKinds.count ? expectedKinds[index] : nil
            guard point.event.kind != wanted else { continue }
            result.divergence = point
            result.expectedThere = wanted
            let (rule, details) = explain(point, expected: wanted, path: path, launch: launch)
            result.rule = rule
            result.details = details
            result.outcome = ended ? .failed : .unfinished
            if point.event.kind == .continued { result.outcome = .succeeded }
            return result
        }
        if milestones.count < expectedKinds.count {
            result.outcome = .unfinished
            result.expectedThere = expectedKinds[milestones.count]
            result.details = [
                "the recording stops before the continuation ended: a continuation that succeeds has \(expectedKinds[milestones.count].rawValue) next"
            ]
        }
        return result
    }

    /// The rule an event that differs breaks, and what it says.
    static func explain(
        _ point: HistoryPoint, expected: LifecycleEvent.Kind?, path: Path, launch: LaunchKind?
    ) -> (Rule, [String]) {
        let there =
            expected.map { "a continuation that succeeds has \($0.rawValue) here" }
            ?? "a continuation that succeeds has ended before it"
        switch point.event.occurrence {
        case .continuationFailed(_, _, _, _, let error):
            let rule = error.code == .userInfoTooLarge ? RuleBook.tooLargeFails4611 : RuleBook.continuationEndsOnce
            return (
                rule,
                [
                    "failed with \(error.code.rawValue) (\(error.code.constantName)): \(error.code.meaning): \(error.reason)",
                    there,
                ]
            )
        case .notHandled(_, _, let bundle, _, let reason):
            if case .sceneContinueNotImplemented(let scene) = reason, path == .scenes, launch == .cold {
                return (
                    RuleBook.sceneColdLaunchCarriesType,
                    [
                        "\(bundle) was launched cold: its scene connected with only handoffUserActivityType, and \(scene)'s delegate does not implement scene(_:continue:), so the activity reached no code (an app that looks for it in connectionOptions.userActivities never finds it)",
                        there,
                    ]
                )
            }
            return (RuleBook.continuationEndsOnce, ["\(bundle) did not handle the activity: \(reason)", there])
        case .fetchStarted where expected == .willContinue || expected == .sceneWillContinue:
            return (
                RuleBook.willContinueBeforeFetch,
                ["the payload was fetched before the app was told willContinueUserActivityWithType", there]
            )
        default:
            return (RuleBook.continuationEndsOnce, ["\(point.event.kind.rawValue) came out of order", there])
        }
    }

    /// A choice that started nothing because no app here could take the offer.
    static func ignored(_ point: HistoryPoint, from peer: PeerReference, _ why: Unavailability) -> ContinuationFinding {
        let rule: Rule =
            switch why {
            case .noAppClaimsType: DoctorRules.typeClaimed
            case .teamDiffers: DoctorRules.sameTeam
            case .expired: DoctorRules.notExpired
            case .notEligible: DoctorRules.eligibleForHandoff
            }
        return ContinuationFinding(
            device: point.device, continuation: nil, origin: peer.name, path: .native, launch: nil, outcome: .failed,
            expected: expected(path: .native, launch: nil), divergence: point, expectedThere: .continueChosen,
            rule: rule, details: ["the user chose \(peer.name)'s offer and nothing started: \(why)"], related: [])
    }
}

extension ContinuationFinding {
    /// The finding, one line a fact: the continuation, its path, its outcome, the first event that
    /// differs with the rule and what it means, the related events and the expectation.
    package var report: [String] {
        let name = continuation.map { "continuation \($0.short)" } ?? "a choice"
        let how = [path.rawValue, launch.map { "\($0.rawValue) launch" }].compactMap { $0 }.joined(separator: ", ")
        var lines = ["\(device): \(name) from \(origin) (\(how)): \(outcome.rawValue)"]
        if let divergence {
            lines.append("  first difference: \(Self.line(divergence))")
        }
        if let rule {
            lines.append("  \(rule.id): \(rule.sentence)")
            lines.append("    source: \(rule.source)")
        }
        lines += details.map { "  \($0)" }
        lines += related.map { "  related: \(Self.line($0))" }
        if outcome != .succeeded {
            lines.append("  a continuation that succeeds: \(expected.map(\.rawValue).joined(separator: " → "))")
        }
        return lines
    }

    static func line(_ point: HistoryPoint) -> String {
        "\(point.device) #\(point.index + 1) \(LifecycleEvent.timestamp(point.event.time)) \(point.event.logLine)"
    }

    /// The finding as JSON, for scripts.
    package var json: JSONValue {
        var object: [String: JSONValue] = [
            "device": .string(device), "origin": .string(origin), "path": .string(path.rawValue),
            "outcome": .string(outcome.rawValue), "expected": .array(expected.map { .string($0.rawValue) }),
            "details": .array(details.map { .string($0) }),
        ]
        object["continuation"] = continuation.map { .string($0.description) } ?? .null
        object["launch"] = launch.map { .string($0.rawValue) } ?? .null
        object["expectedThere"] = expectedThere.map { .string($0.rawValue) } ?? .null
        object["divergence"] = divergence.map { Self.pointJSON($0) } ?? .null
        if let rule {
            object["rule"] = .string(rule.id)
            object["sentence"] = .string(rule.sentence)
            object["source"] = .string(rule.source)
        }
        object["related"] = .array(related.map(Self.pointJSON))
        return .object(object)
    }

    static func pointJSON(_ point: HistoryPoint) -> JSONValue {
        [
            "device": .string(point.device), "index": .integer(Int64(point.index + 1)),
            "time": .string(LifecycleEvent.timestamp(point.event.time)), "kind": .string(point.event.kind.rawValue),
            "line": .string(point.event.logLine),
        ]
    }
}
