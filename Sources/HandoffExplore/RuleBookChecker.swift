import HandoffCore
import HandoffRules

extension ExploreFinding {
    /// A violation of the rule book, as the explorer compares (by rule) and prints it.
    package init(_ violation: Violation) {
        self.init(rule: violation.rule.id, report: violation.description)
    }
}

/// The rule book as the explorer's checker: the world's lifecycles as device histories of one
/// account.
package enum RuleBookChecker {
    package static func histories(_ lifecycles: [ExploreLifecycle]) -> [DeviceHistory] {
        lifecycles.map {
            DeviceHistory(
                device: $0.device, account: ExploreWorld.account, deviceID: DeviceID($0.device.lowercased()),
                events: $0.events)
        }
    }

    /// Every rule of the book.
    package static let all: ExploreChecker = { lifecycles in
        RuleBook.check(histories(lifecycles)).map(ExploreFinding.init)
    }

    /// Only the given rules (a mutation run looks for the rule its mutant bends).
    package static func only(_ rules: [Rule]) -> ExploreChecker {
        { lifecycles in RuleBook.check(histories(lifecycles), rules: rules).map(ExploreFinding.init) }
    }
}

extension Mutant {
    /// The identifier of the rule book's rule this mutant bends.
    package var ruleID: String {
        switch self {
        case .saveWithoutNeedsSave: "fresh-save-exactly-when-needed"
        case .wasContinuedOnFailure: "was-continued-after-taken"
        case .offerResigned: "only-current-offered"
        case .continueInvalidated: "invalidated-never-continued"
        case .skipWillContinue: "will-continue-before-fetch"
        case .restoreBeforeContinue: "continue-before-restore"
        case .tooLargeAsGenericFailure: "too-large-fails-4611"
        case .skipSizeWarning: "size-guidance-warned"
        case .advertiseWhileLocked: "locked-device-stops-offering"
        }
    }
}

extension RuleBookChecker {
    /// The checker of an exploration: every rule; in a mutation run, the rules its mutants bend
    /// (what the run must show is found).
    package static func checker(for mutants: Set<Mutant>) -> ExploreChecker {
        guard !mutants.isEmpty else { return all }
        let wanted = Set(mutants.map(\.ruleID))
        return only(RuleBook.rules.filter { wanted.contains($0.id) })
    }
}
