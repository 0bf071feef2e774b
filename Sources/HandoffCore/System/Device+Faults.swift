import Foundation

extension Device {
    // MARK: Faults

    /// The `userInfo` key of the app's handoff version, as Apple's WWDC 2014 session names it.
    static let handoffVersionKey = "handoffVersion"

    /// The version after `version`: a number one up, a "2.0" string one major up; an activity
    /// without a version is version 1, so the newer one is 2.
    static func nextVersion(after version: UserInfoValue?) -> UserInfoValue {
        switch version {
        case .integer(let number)?: return .integer(number == .max ? number : number + 1)
        case .double(let number)?: return .double(number.rounded(.down) + 1)
        case .string(let text)?:
            let major = text.split(separator: ".", maxSplits: 1).first.flatMap { Int($0) }
            return .string(major.map { "\($0 + 1).0" } ?? "2.0")
        default: return .integer(2)
        }
    }

    /// The faults armed on this device: true when it stays armed, false for the next time only.
    public var armedFaults: [Fault: Bool] { faults.armedFaults }

    /// How slow the slow-link fault makes what this device sends.
    public var slowLink: SlowLink {
        get { faults.slowLink }
        set { faults.slowLink = newValue }
    }

    /// Arms `fault` for its next occasion, or for every one while `sticky`.
    public func arm(_ fault: Fault, sticky: Bool = false) {
        faults.arm(fault, sticky: sticky)
    }

    /// Disarms `fault`, or every fault.
    public func disarm(_ fault: Fault? = nil) {
        faults.disarm(fault)
    }

    /// Whether `fault` strikes now, as the plan says (recorded when it does).
    func strikes(_ fault: Fault, _ continuation: ContinuationID? = nil) -> Bool {
        guard faults.strikes(fault) else { return false }
        record(.faultInjected(continuation, fault))
        return true
    }
}
