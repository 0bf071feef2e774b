import Foundation
import HandoffCore
import HandoffHeadless
import Testing

extension LifecycleEvent.Kind {
    /// One event of this kind with every value it can carry (the switch is exhaustive: a new kind
    /// needs a sample, and then a row in docs/headless.md).
    var sample: LifecycleEvent {
        let continuation = ContinuationID(rawValue: UUID(uuidString: "00000000-0000-4000-8000-00000000C0DE")!)
        let peer = PeerReference(id: "laptop", name: "Laptop")
        let activity = ActivityReference(
            id: UUID(uuidString: "00000000-0000-4000-8000-0000000000AC")!,
            activityType: "com.example.reader.reading", title: "Moby-Dick", bundleIdentifier: "com.example.reader")
        let identity = AdvertisementIdentity(
            device: "laptop", serial: 3, activityTypeHash: ActivityTypeHash(activityType: activity.activityType))
        let route = Route.app(bundleIdentifier: "com.example.reader", activityType: activity.activityType)
        let error = HandoffError(.connectionUnavailable, "the connection was lost")
        let info: UserInfoSnapshot = ["page": 3]
        let occurrence: LifecycleEvent.Occurrence =
            switch self {
            case .activityCreated: .activityCreated(activity)
            case .becameCurrent: .becameCurrent(activity)
            case .resignedCurrent: .resignedCurrent(activity)
            case .invalidated: .invalidated(activity)
            case .needsSaveSet: .needsSaveSet(activity)
            case .willSave: .willSave(activity, continuation: continuation)
            case .updateUserActivityState: .updateUserActivityState(activity, responders: 2, continuation: continuation)
            case .didUpdate: .didUpdate(activity, continuation: continuation)
            case .saved: .saved(activity, reason: .beforeSending, userInfo: info, continuation: continuation)
            case .advertised: .advertised(activity, identity, isEligible: true)
            case .withdrawn: .withdrawn(.noCurrentActivity)
            case .expired: .expired(activity)
            case .deviceLocked: .deviceLocked(advertisingStopsAfter: 8)
            case .deviceUnlocked: .deviceUnlocked
            case .offerReceived: .offerReceived(peer, identity, route: route)
            case .offerUpdated: .offerUpdated(peer, identity, route: route)
            case .offerWithdrawn: .offerWithdrawn(peer)
            case .offerExpired: .offerExpired(peer)
            case .continueChosen: .continueChosen(continuation, peer, route: route)
            case .choiceIgnored: .choiceIgnored(peer, .unavailable(.noAppClaimsType))
            case .willContinue:
                .willContinue(
                    continuation, peer, bundleIdentifier: "com.example.reader",
                    activityType: activity.activityType, appShowsProgress: true)
            case .sceneWillContinue:
                .sceneWillContinue(
                    continuation, peer, bundleIdentifier: "com.example.reader", scene: "Reader-1",
                    activityType: activity.activityType)
            case .applicationLaunched:
                .applicationLaunched(continuation, bundleIdentifier: "com.example.reader", launch: .cold)
            case .applicationTerminated: .applicationTerminated(bundleIdentifier: "com.example.reader")
            case .sceneWillConnect:
                .sceneWillConnect(
                    continuation, bundleIdentifier: "com.example.reader", scene: "Reader-1",
                    handoffUserActivityType: activity.activityType)
            case .sceneContinue:
                .sceneContinue(
                    continuation, bundleIdentifier: "com.example.reader", scene: "Reader-1",
                    activityType: activity.activityType)
            case .sceneDidFailToContinue:
                .sceneDidFailToContinue(
                    continuation, bundleIdentifier: "com.example.reader", scene: "Reader-1",
                    activityType: activity.activityType, error)
            case .sceneDidUpdate: .sceneDidUpdate(activity, scene: "Reader-1", continuation: continuation)
            case .saveSkipped:
                .saveSkipped(
                    activity, lastSaved: Date(timeIntervalSinceReferenceDate: 0),
                    changedAt: Date(timeIntervalSinceReferenceDate: 5), continuation: continuation)
            case .fetchStarted: .fetchStarted(continuation, peer, timeout: 5)
            case .payloadReceived:
                .payloadReceived(
                    continuation, peer, activityType: activity.activityType, bytes: 120,
                    milliseconds: 4.5, userInfo: info)
            case .latePayloadIgnored: .latePayloadIgnored(continuation, bytes: 120)
            case .payloadSizeWarning: .payloadSizeWarning(continuation, bytes: 4000, guidance: 3072)
            case .webRouted:
                .webRouted(
                    continuation, host: "maps.example.com", bundleIdentifier: "com.example.map",
                    .approved(
                        applicationIdentifier: "ABCDE12345.com.example.map",
                        domain: AssociatedDomain(host: "maps.example.com")))
            case .siteAssociationChecked:
                .siteAssociationChecked(
                    SiteAssociationCheck(
                        bundleIdentifier: "com.example.map", applicationIdentifier: "ABCDE12345.com.example.map",
                        domain: AssociatedDomain(host: "example.com", isWildcard: true),
                        outcome: .unreachable("connection refused"), checkedAt: Date(timeIntervalSinceReferenceDate: 0),
                        expiresAt: Date(timeIntervalSinceReferenceDate: 0), milliseconds: 2.5),
                    keptAnswer: .approved)
            case .continueCalled:
                .continueCalled(
                    continuation, bundleIdentifier: "com.example.reader", activityType: activity.activityType)
            case .restoreUserActivityState:
                .restoreUserActivityState(
                    continuation, bundleIdentifier: "com.example.reader", objects: 1, userInfo: info)
            case .continued:
                .continued(
                    continuation, peer, bundleIdentifier: "com.example.reader", .application(restoredObjects: 1),
                    milliseconds: 40)
            case .notHandled:
                .notHandled(
                    continuation, peer, bundleIdentifier: "com.example.reader", milliseconds: 40, reason: .returnedFalse
                )
            case .continuationFailed:
                .continuationFailed(
                    continuation, peer, bundleIdentifier: "com.example.reader",
                    activityType: activity.activityType, error)
            case .systemShowedError:
                .systemShowedError(bundleIdentifier: "com.example.reader", activityType: activity.activityType, error)
            case .payloadRequested: .payloadRequested(continuation, peer, activity)
            case .payloadSent: .payloadSent(continuation, peer, activity, bytes: 120, userInfo: info)
            case .payloadRefused: .payloadRefused(continuation, peer, error)
            case .wasContinued: .wasContinued(continuation, peer, activity)
            case .streamsOpened: .streamsOpened(continuation, peer, activity, side: .origin)
            case .streamsRefused:
                .streamsRefused(continuation, peer, activityType: activity.activityType, reason: "unknown token")
            case .documentOpened:
                .documentOpened(
                    bundleIdentifier: "com.example.reader", activityType: "com.example.reader.document", file: "a.txt")
            case .stepPaused: .stepPaused(continuation, .fetch(from: "Laptop"))
            case .faultInjected: .faultInjected(continuation, .noAnswer)
            case .documentClosed:
                .documentClosed(
                    bundleIdentifier: "com.example.reader", activityType: "com.example.reader.document", file: "a.txt")
            }
        return LifecycleEvent(time: Date(timeIntervalSinceReferenceDate: 0), device: "Phone", occurrence)
    }
}

/// docs/headless.md lists every lifecycle event kind with its fields; this fails when the list
/// and the code disagree.
@Suite("The lifecycle events, as documented")
struct LifecycleDocumentationTests {
    static let common: Set<String> = ["event", "time", "device", "kind", "detail", "explanation"]

    /// The table rows of docs/headless.md's "Lifecycle event kinds": kind → its fields.
    func documented() throws -> [String: Set<String>] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../docs/headless.md"
        ).standardized
        let text = try String(contentsOf: url, encoding: .utf8)
        guard let start = text.range(of: "### Lifecycle event kinds") else { return [:] }
        var rows: [String: Set<String>] = [:]
        for line in text[start.upperBound...].split(separator: "\n") {
            if line.hasPrefix("#") { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4, cells[1].hasPrefix("`"), cells[2] != "Fields" else { continue }
            let kind = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let fields = cells[2].split(separator: ",").map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: "` "))
            }.filter { !$0.isEmpty && $0 != "—" }
            rows[kind] = Set(fields)
        }
        return rows
    }

    @Test func everyKindIsDocumentedWithItsFields() throws {
        let rows = try documented()
        #expect(!rows.isEmpty, "docs/headless.md has a \"Lifecycle event kinds\" table")
        for kind in LifecycleEvent.Kind.allCases {
            let keys = Set(HeadlessController.fields(of: kind.sample).keys).subtracting(Self.common)
            let row = "| `\(kind.rawValue)` | " + keys.sorted().map { "`\($0)`" }.joined(separator: ", ") + " | … |"
            #expect(rows[kind.rawValue] == keys, "docs/headless.md should have: \(row)")
        }
        let unknown = Set(rows.keys).subtracting(LifecycleEvent.Kind.allCases.map(\.rawValue))
        #expect(unknown.isEmpty, "documented kinds the code does not have: \(unknown.sorted())")
    }

    /// The samples in docs/headless.md use kinds and fields the code has (no `continueDeclined`,
    /// no `"accepted"`), and a continuation's kinds in the order the code records them.
    @Test func theSamplesUseRealKindsAndFieldsInOrder() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../docs/headless.md"
        ).standardized
        let text = try String(contentsOf: url, encoding: .utf8)
        let kinds = Dictionary(uniqueKeysWithValues: LifecycleEvent.Kind.allCases.map { ($0.rawValue, $0) })
        let order = [
            "continueChosen", "willContinue", "fetchStarted", "payloadReceived", "continueCalled",
            "restoreUserActivityState", "continued",
        ]
        #expect(!text.contains("continueDeclined"))
        for (number, block) in text.components(separatedBy: "```").enumerated() where number % 2 == 1 {
            var seen: [String] = []
            for line in block.split(separator: "\n") where line.contains(#""event":"lifecycle""#) {
                guard let match = line.firstMatch(of: /"kind":"(\w+)"/) else { continue }
                let name = String(match.1)
                guard let kind = kinds[name] else {
                    Issue.record("docs/headless.md: a sample's kind \(name) is not a lifecycle kind: \(line)")
                    continue
                }
                seen.append(name)
                guard !line.contains("userInfo") else { continue }
                let fields = Set(HeadlessController.fields(of: kind.sample).keys).union(Self.common)
                for key in line.matches(of: /"(\w+)":/).map({ String($0.1) }) where !fields.contains(key) {
                    Issue.record("docs/headless.md: \(name) has no field \(key): \(line)")
                }
            }
            let ranks = seen.compactMap { order.firstIndex(of: $0) }
            #expect(ranks == ranks.sorted(), "docs/headless.md: a sample's kinds out of order: \(seen)")
        }
    }

    @Test func everyKindHasItsSummaryExplanationAndNoRepeatedWords() {
        for kind in LifecycleEvent.Kind.allCases {
            let event = kind.sample
            #expect(event.kind == kind)
            #expect(!event.summary.isEmpty)
            #expect(!event.explanation.isEmpty)
            let words = event.logLine.split(separator: " ")
            for (a, b) in zip(words, words.dropFirst()) {
                #expect(a.lowercased() != b.lowercased(), "\(kind): \"\(a) \(b)\" in \(event.logLine)")
            }
        }
    }
}
