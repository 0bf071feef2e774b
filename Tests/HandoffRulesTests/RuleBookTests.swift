import Foundation
import HandoffCore
import HandoffRules
import Testing

/// Each rule against a hand-made history that keeps it and one that breaks it: the checker can
/// fail, and fails for the reason it names.
@Suite struct RuleBookTests {
    typealias S = Stories

    /// The rules `histories` break, by identifier.
    func broken(_ histories: [DeviceHistory]) -> Set<String> {
        Set(RuleBook.check(histories).map(\.rule.id))
    }

    func violations(_ id: String, _ histories: [DeviceHistory]) -> [Violation] {
        RuleBook.check(histories).filter { $0.rule.id == id }
    }

    @Test func everyRuleHasASentenceAndASourceAndADistinctIdentifier() {
        #expect(RuleBook.rules.count >= 14)
        #expect(Set(RuleBook.rules.map(\.id)).count == RuleBook.rules.count)
        for rule in RuleBook.rules {
            #expect(!rule.sentence.isEmpty && rule.sentence.hasSuffix("."), "\(rule.id)")
            #expect(rule.source.contains(".txt") || rule.source.contains(".md") || rule.source.contains("https://"))
            #expect(RuleBook.rule(id: rule.id) == rule)
        }
    }

    @Test func docsRulesListsEveryRuleWithItsSentenceAndSource() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../docs/rules.md"
        ).standardized
        let text = try String(contentsOf: url, encoding: .utf8)
        for rule in RuleBook.rules {
            #expect(
                text.contains("| `\(rule.id)` | \(rule.sentence) | \(rule.source) |"),
                "docs/rules.md should have: | `\(rule.id)` | \(rule.sentence) | \(rule.source) |")
        }
    }

    @Test(arguments: ["native", "timedOut", "scene", "web"])
    func storiesAsAppleTellsThemKeepEveryRule(_ story: String) {
        let histories =
            switch story {
            case "native": S.native()
            case "timedOut": S.timedOut()
            case "scene": S.scene()
            default: S.web()
            }
        let found = RuleBook.check(histories)
        #expect(found.isEmpty, "\(found.map(\.description).joined(separator: "\n"))")
    }

    @Test func advertisingAResignedActivityBreaksOnlyCurrentOffered() throws {
        let histories = S.native().editing(S.laptop) { $0.insert(S.at(25, S.laptop, .resignedCurrent(S.activity))) }
        let found = violations("only-current-offered", histories)
        #expect(found.count == 2)  // the beacon and the payload request
        let first = try #require(found.first)
        #expect(first.slice.map(\.event.kind) == [.resignedCurrent, .advertised])
        #expect(first.detail.contains("Laptop advertised com.example.reader.reading"))
        #expect(first.detail.contains("no activity is current"))
    }

    @Test func servingAnInvalidatedActivityBreaksInvalidatedNeverContinued() throws {
        let histories = S.native().editing(S.laptop) { $0.insert(S.at(95, S.laptop, .invalidated(S.activity))) }
        let found = violations("invalidated-never-continued", histories)
        let kinds = found.map { $0.slice.map(\.event.kind) }
        #expect(kinds.contains([.invalidated, .payloadRequested]))
        #expect(kinds.contains([.invalidated, .payloadSent]))
        #expect(kinds.contains([.invalidated, .wasContinued]))
        #expect(found.allSatisfy { $0.detail.hasPrefix("Laptop ") && $0.detail.contains("after it was invalidated") })
    }

    @Test func aContinuationThatNeverEndsOrEndsTwiceBreaksEndsOnce() throws {
        let stopped = S.native().editing(S.phone) { $0.remove(.continued) }.editing(S.laptop) {
            $0.remove(.wasContinued)
        }
        // A history that stops mid-continuation (the device killed) is not judged…
        #expect(violations("continuation-ends-once", stopped).isEmpty)
        // …one that goes on past the fetch timeout is.
        let unended = stopped.editing(S.phone) { $0.insert(S.at(7_000, S.phone, .offerWithdrawn(S.laptop))) }
        let never = try #require(violations("continuation-ends-once", unended).first)
        #expect(never.slice.map(\.event.kind) == [.continueChosen, .offerWithdrawn])
        #expect(never.detail.contains("never ended, though the device went on"))

        let twice = S.native().editing(S.phone) {
            $0.insert(
                S.at(
                    200, S.phone,
                    .continuationFailed(
                        S.continuation, S.laptop, bundleIdentifier: S.reader, activityType: S.readingType,
                        HandoffError(.userCancelled, "cancelled"))))
        }
        let again = try #require(violations("continuation-ends-once", twice).first)
        #expect(again.slice.map(\.event.kind) == [.continueChosen, .continued, .continuationFailed])
        #expect(again.detail.contains("ended 2 times: continued, then failed with 3072"))

        let unchosen = S.native().editing(S.phone) { $0.remove(.continueChosen) }
        #expect(violations("continuation-ends-once", unchosen).first?.detail.contains("never chose") == true)
    }

    @Test func anOriginToldOrDroppingItsActivityOnFailureBreaksKeepsActivity() throws {
        let told = S.timedOut().editing(S.laptop) {
            $0.insert(S.at(5_100, S.laptop, .wasContinued(S.continuation, S.phone, S.activity)))
        }
        let toldFound = violations("origin-keeps-activity-on-failure", told)
        #expect(toldFound.map { $0.slice.map(\.event.kind) } == [[.continuationFailed, .wasContinued]])

        // Dropped while the system serves the request (the origin never answered: in the
        // request's millisecond).
        let dropped = S.timedOut().editing(S.laptop) { $0.insert(S.at(100, S.laptop, .resignedCurrent(S.activity))) }
        let droppedFound = try #require(violations("origin-keeps-activity-on-failure", dropped).first)
        #expect(droppedFound.slice.map(\.event.kind) == [.payloadRequested, .resignedCurrent, .continuationFailed])
        #expect(droppedFound.detail.contains("failed on Phone with 4610"))
        // The origin app resigning its own activity later is the app's doing, not the system's.
        let appResigned = S.timedOut().editing(S.laptop) {
            $0.insert(S.at(2_000, S.laptop, .resignedCurrent(S.activity)))
        }
        #expect(violations("origin-keeps-activity-on-failure", appResigned).isEmpty)
    }

    @Test func wasContinuedWithoutTheAppTakingItBreaksWasContinuedAfterTaken() throws {
        let notHandled = S.native().editing(S.phone) {
            $0.remove(.continued)
            $0.insert(
                S.at(
                    113, S.phone,
                    .notHandled(
                        S.continuation, S.laptop, bundleIdentifier: S.reader, milliseconds: 53,
                        reason: .returnedFalse)))
        }
        let found = try #require(violations("was-continued-after-taken", notHandled).first)
        #expect(found.slice.map(\.event.kind) == [.notHandled, .wasContinued])
        #expect(found.detail.contains("it was not handled there"))

        let early = S.native().editing(S.laptop) {
            $0.remove(.wasContinued)
            $0.insert(S.at(105, S.laptop, .wasContinued(S.continuation, S.phone, S.activity)))
        }
        #expect(
            violations("was-continued-after-taken", early).first?.slice.map(\.event.kind) == [
                .wasContinued, .continued,
            ])
    }

    @Test func aPayloadWithoutTheSaveNeedsSaveAsksForBreaksFreshSave() throws {
        let unsaved = S.native().editing(S.laptop) {
            for kind: LifecycleEvent.Kind in [.willSave, .updateUserActivityState, .didUpdate, .saved] {
                $0.remove(kind)
            }
            $0.insert(
                S.at(
                    101, S.laptop,
                    .saveSkipped(S.activity, lastSaved: nil, changedAt: nil, continuation: S.continuation)))
        }
        let missing = try #require(violations("fresh-save-exactly-when-needed", unsaved).first)
        #expect(missing.slice.map(\.event.kind) == [.needsSaveSet, .payloadRequested, .payloadSent])
        #expect(missing.detail.contains("without a fresh save"))

        let needless = S.native().editing(S.laptop) { $0.remove(.needsSaveSet) }
        let extra = try #require(violations("fresh-save-exactly-when-needed", needless).first)
        #expect(extra.slice.map(\.event.kind) == [.saved])
        #expect(extra.detail.contains("though needsSave was not set"))
    }

    @Test func fetchingBeforeWillContinueBreaksWillContinueBeforeFetch() throws {
        let late = S.web().editing(S.phone) { events in
            guard let index = events.firstIndex(where: { $0.kind == .willContinue }) else { return }
            var moved = events.remove(at: index)
            moved.time = S.start.addingTimeInterval(0.111)
            events.insert(moved)
        }
        let found = try #require(violations("will-continue-before-fetch", late).first)
        #expect(found.slice.map(\.event.kind) == [.continueChosen, .fetchStarted, .willContinue])
        #expect(found.detail.contains("Phone fetched the payload from Laptop (web page"))
        #expect(found.detail.contains("before telling the app willContinue"))
    }

    @Test func restoringBeforeContinueBreaksContinueBeforeRestore() throws {
        let early = S.native().editing(S.phone) { events in
            guard let from = events.firstIndex(where: { $0.kind == .restoreUserActivityState }),
                let to = events.firstIndex(where: { $0.kind == .continueCalled }), to < from
            else { return }
            var moved = events.remove(at: from)
            moved.time = S.start.addingTimeInterval(0.110)
            events.insert(moved, at: to)
        }
        let found = try #require(violations("continue-before-restore", early).first)
        #expect(found.slice.map(\.event.kind) == [.restoreUserActivityState])
        #expect(found.detail.contains("before application(_:continue:restorationHandler:) was called"))
    }

    @Test func aSceneConnectedWithoutTheTypeBreaksSceneColdLaunch() throws {
        let untyped = S.scene().editing(S.phone) { events in
            guard let index = events.firstIndex(where: { $0.kind == .sceneWillConnect }) else { return }
            events[index].occurrence = .sceneWillConnect(
                S.continuation, bundleIdentifier: S.reader, scene: "Scene 1", handoffUserActivityType: nil)
        }
        let found = try #require(violations("scene-cold-launch-carries-type", untyped).first)
        #expect(found.detail.contains("handoffUserActivityType nil, not com.example.reader.reading"))

        let late = S.scene().editing(S.phone) { events in
            guard let index = events.firstIndex(where: { $0.kind == .sceneWillConnect }) else { return }
            var moved = events.remove(at: index)
            moved.time = S.start.addingTimeInterval(0.112)
            events.insert(moved)
        }
        #expect(
            violations("scene-cold-launch-carries-type", late).first?.slice.map(\.event.kind) == [
                .sceneWillContinue, .sceneWillConnect,
            ])
    }

    @Test func aWebPageInAnUnapprovedAppOrWithUserInfoBreaksWebNeedsApproval() throws {
        let unchecked = S.web().editing(S.phone) { $0.remove(.siteAssociationChecked) }
        let never = try #require(violations("web-needs-approval", unchecked).first)
        #expect(never.detail.contains("it never checked maps.example.com's association file"))

        let refused = S.web().editing(S.phone) { events in
            events.removeAll { $0.kind == .siteAssociationChecked }
            events.insert(S.approval(at: 5, .notFound), at: 0)
        }
        #expect(violations("web-needs-approval", refused).first?.detail.contains("did not approve it") == true)

        let withKeys = S.web(restoredUserInfo: ["page": .integer(2)])
        let keys = try #require(violations("web-needs-approval", withKeys).first)
        #expect(keys.detail.contains("with 1 userInfo key (page)"))
    }

    @Test func aLargePayloadWithoutAWarningBreaksSizeGuidance() throws {
        let large = [
            S.history(S.laptop, S.nativeOrigin(bytes: 4_000)), S.history(S.phone, S.nativeContinuing(bytes: 4_000)),
        ]
        let found = violations("size-guidance-warned", large)
        #expect(found.map(\.slice.first?.event.kind) == [.payloadSent, .payloadReceived])
        #expect(found.first?.detail.contains("4000 bytes, over the 3072-byte guidance") == true)

        let warned = large.editing(S.laptop) {
            $0.insert(S.at(103, S.laptop, .payloadSizeWarning(S.continuation, bytes: 4_000, guidance: 3_072)))
        }.editing(S.phone) {
            $0.insert(S.at(110, S.phone, .payloadSizeWarning(S.continuation, bytes: 4_000, guidance: 3_072)))
        }
        #expect(violations("size-guidance-warned", warned).isEmpty)
    }

    /// The origin refuses with 4611 at 103 ms; the phone fails with `code`.
    func refusedAsTooLarge(failingWith code: HandoffError.Code) -> [DeviceHistory] {
        S.timedOut().editing(S.laptop) {
            $0.insert(
                S.at(
                    103, S.laptop, .payloadRefused(S.continuation, S.phone, HandoffError(.userInfoTooLarge, "too big")))
            )
        }.editing(S.phone) { events in
            events.remove(.continuationFailed)
            events.insert(
                S.at(
                    104, S.phone,
                    .continuationFailed(
                        S.continuation, S.laptop, bundleIdentifier: S.reader, activityType: S.readingType,
                        HandoffError(code, "refused"))))
        }
    }

    @Test func aRefusedPayloadEndingOtherwiseBreaksTooLarge() throws {
        #expect(violations("too-large-fails-4611", refusedAsTooLarge(failingWith: .userInfoTooLarge)).isEmpty)
        let other = try #require(
            violations("too-large-fails-4611", refusedAsTooLarge(failingWith: .handoffFailed)).first)
        #expect(other.detail.contains("failed with 4608, not with 4611"))
    }

    @Test func aContinuationCancelledBeforeTheRefusalKeepsTooLarge() {
        // The user cancelled (3072) before the origin refused: nothing was left to fail with 4611.
        let cancelled = refusedAsTooLarge(failingWith: .userCancelled).editing(S.phone) { events in
            guard let index = events.firstIndex(where: { $0.kind == .continuationFailed }) else { return }
            events[index].time = S.start.addingTimeInterval(0.102)
        }
        #expect(violations("too-large-fails-4611", cancelled).isEmpty)
    }

    @Test func receivingBeforeTheSendBreaksSendBeforeReceive() throws {
        let early = S.native().editing(S.laptop) { events in
            guard let index = events.firstIndex(where: { $0.kind == .payloadSent }) else { return }
            events[index].time = S.start.addingTimeInterval(0.111)
        }
        let found = try #require(violations("send-before-receive", early).first)
        #expect(found.slice.map(\.event.kind) == [.payloadReceived, .payloadSent])
        #expect(found.detail.contains("Phone received a payload 1 ms before Laptop sent it"))

        // The same millisecond is not a violation: the clock of one machine, written to the ms.
        let same = S.native().editing(S.laptop) { events in
            guard let index = events.firstIndex(where: { $0.kind == .payloadSent }) else { return }
            events[index].time = S.start.addingTimeInterval(0.1104)
        }
        #expect(violations("send-before-receive", same).isEmpty)

        let unsent = S.native().editing(S.laptop) { $0.remove(.advertised) }
        #expect(
            violations("send-before-receive", unsent).first?.detail
                == "Phone received an offer of serial 1 that Laptop never sent")
    }

    @Test func devicesOfTwoAccountsDealingBreaksNothingCrossesAccounts() throws {
        let histories = [
            S.history(S.laptop, account: "work", S.nativeOrigin()),
            S.history(S.phone, account: "home", S.nativeContinuing()),
        ]
        let found = violations("nothing-crosses-accounts", histories)
        #expect(found.count == 2)
        #expect(found.first?.detail.contains("(account work) dealt with Phone (account home)") == true)
    }

    @Test func violationsNameTheRuleItsSourceAndTheSliceInOrder() throws {
        let histories = S.native().editing(S.laptop) { $0.insert(S.at(25, S.laptop, .resignedCurrent(S.activity))) }
        let text = try #require(violations("only-current-offered", histories).first).description
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("only-current-offered: A device offers only its current activity"))
        #expect(lines[1].hasPrefix("  source: handoff-programming-guide.txt, User Activity Object"))
        #expect(lines[3].hasPrefix("  Laptop #4 ") && lines[3].contains("resignedCurrent com.example.reader.reading"))
        #expect(lines[4].contains("advertised com.example.reader.reading · serial 1"))
    }

    /// A laptop that advertises, is locked, and goes on: `events` after the lock.
    func locked(then events: [LifecycleEvent]) -> [DeviceHistory] {
        let origin = [
            S.at(0, S.laptop, .activityCreated(S.activity)),
            S.at(10, S.laptop, .becameCurrent(S.activity)),
            S.at(30, S.laptop, .advertised(S.activity, S.identity, isEligible: true)),
            S.at(1_000, S.laptop, .deviceLocked(advertisingStopsAfter: 8)),
        ]
        return [S.history(S.laptop, origin + events)]
    }

    @Test func aLockedDeviceThatWithdrawsAfterTheDelayKeepsTheRule() {
        let kept = locked(then: [
            S.at(9_000, S.laptop, .withdrawn(.deviceLocked)),
            S.at(20_000, S.laptop, .deviceUnlocked),
            S.at(20_001, S.laptop, .advertised(S.activity, S.identity, isEligible: true)),
        ])
        #expect(violations("locked-device-stops-offering", kept).isEmpty)
        // Unlocked before the delay: nothing to withdraw, and advertising on is allowed.
        let early = locked(then: [
            S.at(3_000, S.laptop, .deviceUnlocked),
            S.at(15_000, S.laptop, .advertised(S.activity, S.identity, isEligible: true)),
        ])
        #expect(violations("locked-device-stops-offering", early).isEmpty)
        // Nothing offered when locked: nothing to withdraw.
        let quiet = [
            S.history(
                S.laptop,
                [
                    S.at(0, S.laptop, .deviceLocked(advertisingStopsAfter: 8)),
                    S.at(30_000, S.laptop, .deviceUnlocked),
                ])
        ]
        #expect(violations("locked-device-stops-offering", quiet).isEmpty)
    }

    @Test func aLockedDeviceStillOfferingOrAdvertisingAfterTheDelayBreaksTheRule() throws {
        // Never withdrawn: the next event, 12 s after the lock, shows it still offered.
        let stillOffered = locked(then: [S.at(13_000, S.laptop, .deviceUnlocked)])
        let found = violations("locked-device-stops-offering", stillOffered)
        #expect(found.count == 1)
        let first = try #require(found.first)
        #expect(first.slice.map(\.event.kind) == [.advertised, .deviceLocked, .deviceUnlocked])
        #expect(
            first.detail
                == "Laptop still offered com.example.reader.reading 12.0 s after it was locked (offering stops 8.0 s after the lock)"
        )
        // Advertising again while locked, past the delay.
        let readvertised = locked(then: [
            S.at(9_000, S.laptop, .withdrawn(.deviceLocked)),
            S.at(10_000, S.laptop, .advertised(S.activity, S.identity, isEligible: true)),
        ])
        let again = violations("locked-device-stops-offering", readvertised)
        #expect(again.map { $0.slice.map(\.event.kind) } == [[.deviceLocked, .advertised]])
        #expect(
            again.first?.detail
                == "Laptop advertised com.example.reader.reading 9.0 s after it was locked, past the 8.0 s delay")
    }
}
