import Foundation
import HandoffCore

/// Apple's observable rules of Handoff as invariants over typed lifecycle histories of one or more
/// devices of a run, each with its sentence and its source. Pure: it reads the histories it is
/// given and nothing else (no clock, no files).
///
/// Sources name the seed files (`../shared/seeds/`) and their sections; "PG" is the Handoff
/// Programming Guide (`handoff-programming-guide.txt`).
package enum RuleBook {
    /// Every rule, in the order a check reports them.
    package static var rules: [Rule] { entries.map(\.rule) }

    /// The rule with this identifier.
    package static func rule(id: String) -> Rule? { rules.first { $0.id == id } }

    /// The violations of every rule in `histories` (one history per device of one run).
    package static func check(_ histories: [DeviceHistory]) -> [Violation] {
        check(histories, rules: rules)
    }

    /// The violations of the given rules only.
    package static func check(_ histories: [DeviceHistory], rules selected: [Rule]) -> [Violation] {
        let corpus = Corpus(histories)
        let wanted = Set(selected.map(\.id))
        return entries.filter { wanted.contains($0.rule.id) }.flatMap { $0.check(corpus) }
    }

    /// How many events a check of `histories` reads.
    package static func eventCount(_ histories: [DeviceHistory]) -> Int {
        histories.reduce(0) { $0 + $1.events.count }
    }

    struct Entry: Sendable {
        let rule: Rule
        let check: @Sendable (Corpus) -> [Violation]
    }

    static let entries: [Entry] = [
        Entry(rule: onlyCurrentOffered, check: checkOnlyCurrentOffered),
        Entry(rule: invalidatedNeverContinued, check: checkInvalidatedNeverContinued),
        Entry(rule: continuationEndsOnce, check: checkContinuationEndsOnce),
        Entry(rule: originKeepsActivityOnFailure, check: checkOriginKeepsActivityOnFailure),
        Entry(rule: wasContinuedAfterTaken, check: checkWasContinuedAfterTaken),
        Entry(rule: freshSaveExactlyWhenNeeded, check: checkFreshSaveExactlyWhenNeeded),
        Entry(rule: willContinueBeforeFetch, check: checkWillContinueBeforeFetch),
        Entry(rule: continueBeforeRestore, check: checkContinueBeforeRestore),
        Entry(rule: sceneColdLaunchCarriesType, check: checkSceneColdLaunchCarriesType),
        Entry(rule: webNeedsApprovalAndEmptyUserInfo, check: checkWebNeedsApprovalAndEmptyUserInfo),
        Entry(rule: sizeGuidanceWarned, check: checkSizeGuidanceWarned),
        Entry(rule: tooLargeFails4611, check: checkTooLargeFails4611),
        Entry(rule: sendBeforeReceive, check: checkSendBeforeReceive),
        Entry(rule: nothingCrossesAccounts, check: checkNothingCrossesAccounts),
        Entry(rule: lockedDeviceStopsOffering, check: checkLockedDeviceStopsOffering),
    ]

    // MARK: The rules

    static let onlyCurrentOffered = Rule(
        id: "only-current-offered",
        sentence:
            "A device offers only its current activity: it advertises, and serves a payload request for, an activity only while that activity is current.",
        source:
            "handoff-programming-guide.txt, User Activity Object (\"only the current activity is available for continuation\")"
    )

    static let invalidatedNeverContinued = Rule(
        id: "invalidated-never-continued",
        sentence:
            "An invalidated activity is never current, advertised, sent or continued again: invalidate() is final.",
        source:
            "handoff-programming-guide.txt, Creating the User Activity Object (invalidate \"makes the object disappear from all devices\"); apple-handoff-protocol.md §5 Lifecycle"
    )

    package static let continuationEndsOnce = Rule(
        id: "continuation-ends-once",
        sentence:
            "Every continuation the user chose ends exactly once on the continuing device: continued, not handled, or failed with one of 4608–4611 or 3072.",
        source:
            "handoff-programming-guide.txt, Continuing an Activity (continueUserActivity, didFailToContinueUserActivityWithType); apple-handoff-protocol.md §6 Error codes"
    )

    static let originKeepsActivityOnFailure = Rule(
        id: "origin-keeps-activity-on-failure",
        sentence:
            "When a continuation fails, the origin still has its activity: it is not told the activity was continued, and the activity stays current.",
        source:
            "wwdc2014-adopting-handoff-slides.txt, Advanced NSUserActivity (userActivityWasContinued is \"called when this activity was successfully continued on another device\"); handoff-programming-guide.txt, Continuing an Activity (graceful failure)"
    )

    static let wasContinuedAfterTaken = Rule(
        id: "was-continued-after-taken",
        sentence:
            "The origin's userActivityWasContinued comes only after the continuing app took the activity (the continuation counted continued there).",
        source:
            "wwdc2014-adopting-handoff-slides.txt, Advanced NSUserActivity / NSUserActivityDelegate (\"Called when this activity was successfully continued on another device\")"
    )

    static let freshSaveExactlyWhenNeeded = Rule(
        id: "fresh-save-exactly-when-needed",
        sentence:
            "An activity is saved (userActivityWillSave, updateUserActivityState) only when needsSave was set since its last save, and a payload leaves with a fresh save exactly when needsSave was set.",
        source:
            "handoff-programming-guide.txt, User Activity Delegate and Best Practices (needsSave \"to support lazy updating\"; userActivityWillSave \"before the activity is continued\"); apple-handoff-protocol.md §5 needsSave coalescing"
    )

    package static let willContinueBeforeFetch = Rule(
        id: "will-continue-before-fetch",
        sentence:
            "The continuing app is told willContinueUserActivityWithType (a scene: scene(_:willContinueUserActivityWithType:)) before the system fetches the payload, on every path, native and web.",
        source:
            "handoff-programming-guide.txt, Continuing an Activity Using the App Delegate (\"Handoff launches the appropriate app and sends the app's delegate an application:willContinueUserActivityWithType: message … Meanwhile, the NSUserActivity object is delivered\") and Web Browser-to-Native App Handoff"
    )

    static let continueBeforeRestore = Rule(
        id: "continue-before-restore",
        sentence:
            "restoreUserActivityState reaches only objects the app passed to the restoration handler of application(_:continue:restorationHandler:), after that call, in the app that got it.",
        source:
            "handoff-programming-guide.txt, Continuing an Activity Using the App Delegate (\"pass them to the restoration handler … The system then sends each object a restoreUserActivityState: message\") and Listing 2-6"
    )

    package static let sceneColdLaunchCarriesType = Rule(
        id: "scene-cold-launch-carries-type",
        sentence:
            "A scene connected for a continuation carries only the activity's type (handoffUserActivityType), and the activity reaches the scene after it connects, through scene(_:continue:).",
        source:
            "https://developer.apple.com/documentation/uikit/uiscene/connectionoptions/handoffuseractivitytype; apple-handoff-protocol.md §5 Cold launch with scenes"
    )

    package static let webNeedsApprovalAndEmptyUserInfo = Rule(
        id: "web-needs-approval",
        sentence:
            "A browsing-web activity reaches an app other than the browser only when the site's association file approves that app, and then with an empty userInfo.",
        source:
            "handoff-programming-guide.txt, Web Browser-to-Native App Handoff (\"Domain-approved apps are authorized to continue the activity\"; \"the userInfo dictionary is empty\")"
    )

    package static let sizeGuidanceWarned = Rule(
        id: "size-guidance-warned",
        sentence:
            "A payload over Apple's 3 KB guidance is flagged (payloadSizeWarning) where it is sent and where it arrives.",
        source:
            "handoff-programming-guide.txt, Populating the Activity Object's User Info Dictionary and Best Practices (\"as small a payload as possible … 3KB or less\")"
    )

    package static let tooLargeFails4611 = Rule(
        id: "too-large-fails-4611",
        sentence:
            "A payload the origin refuses as too large never reaches the continuing app: the continuation fails there with 4611 (NSUserActivityHandoffUserInfoTooLargeError).",
        source: "apple-handoff-protocol.md §6 Error codes (4611: \"userInfo too large to receive\")"
    )

    static let sendBeforeReceive = Rule(
        id: "send-before-receive",
        sentence:
            "What one device receives, another sent first: a beacon before its offer, a payload request before it is served, a payload before it arrives, a continuation before the origin is told (to the millisecond, on one machine's clock).",
        source:
            "handoff-programming-guide.txt, Handoff Interactions (create, update, continue) and Continuing an Activity (\"Handoff automatically advertises user activities\")"
    )

    static let nothingCrossesAccounts = Rule(
        id: "nothing-crosses-accounts",
        sentence: "Devices of different accounts never see each other's offers, payloads or continuations.",
        source:
            "handoff-programming-guide.txt, About Handoff (\"among multiple devices associated with the same user\") and Continuing an Activity (\"signed into the same iCloud account\")"
    )

    static let lockedDeviceStopsOffering = Rule(
        id: "locked-device-stops-offering",
        sentence:
            "A locked device stops offering its activity once Apple's delay after the lock has passed (8 s): what it advertised is withdrawn, and nothing is advertised again until it is unlocked.",
        source:
            "apple-handoff-protocol.md §1 Cadence and lifetime defaults (\"Removed after device lock: 8 s\") and §8 item 7 Timing to mirror (\"removal 8 s after lock\")"
    )
}
