import Foundation

/// The simulator bent on purpose: each case switches off one of Apple's rules in the device
/// system, so that `handoff check --explore --mutant NAME` can show that the rule book and the
/// explorer catch the bend (issue 26's mutation run, docs/explore.md "Mutants").
///
/// Off by default: a device bends a rule only when its ``DeviceConfiguration/mutants`` names it,
/// and only the explorer (HandoffExplore) and the tests set that. Nothing but ``DeviceSystem``
/// and the ``Device`` that runs it reads it.
package enum Mutant: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    /// The origin saves before every payload, needsSave or not (PG: the delegate gets
    /// `userActivityWillSave` only when needsSave is set).
    case saveWithoutNeedsSave = "save-without-needs-save"
    /// The receiver tells the origin its activity was continued although the app did not take it
    /// (`continue` returned false, or the continuation failed with the payload in hand).
    case wasContinuedOnFailure = "was-continued-on-failure"
    /// A resigned activity stays offered: its beacon is not withdrawn, and a payload request for it
    /// is still served.
    case offerResigned = "offer-resigned"
    /// An invalidated activity stays offered and is still served, so it can be continued.
    case continueInvalidated = "continue-invalidated"
    /// The receiver fetches without asking the app `willContinueUserActivityWithType` first.
    case skipWillContinue = "skip-will-continue"
    /// `continue(_:restorationHandler:)` is recorded as called only once it returned, so the
    /// restoration it asked for comes first.
    case restoreBeforeContinue = "restore-before-continue"
    /// A payload the origin refused as too large fails on the continuing device with 4608
    /// (handoff failed) instead of 4611.
    case tooLargeAsGenericFailure = "too-large-as-generic-failure"
    /// A payload past Apple's 3 KB guidance leaves and arrives without a size warning.
    case skipSizeWarning = "skip-size-warning"
    /// A locked device goes on advertising its activity after Apple's delay (8 s after the lock).
    case advertiseWhileLocked = "advertise-while-locked"

    /// The rule it bends, in a few words.
    package var bends: String {
        switch self {
        case .saveWithoutNeedsSave: "a payload carries a fresh save exactly when needsSave was set"
        case .wasContinuedOnFailure: "wasContinued only after the receiving app took the activity"
        case .offerResigned: "only the current activity of a device is offered"
        case .continueInvalidated: "an invalidated activity is never continued"
        case .skipWillContinue: "willContinue comes before the fetch"
        case .restoreBeforeContinue: "continue comes before restoreUserActivityState"
        case .tooLargeAsGenericFailure: "a payload refused as too large fails with 4611"
        case .skipSizeWarning: "a payload over the 3 KB guidance is flagged"
        case .advertiseWhileLocked: "a locked device stops offering after Apple's delay"
        }
    }

    package var description: String { rawValue }

    /// Every name, for error messages.
    package static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
