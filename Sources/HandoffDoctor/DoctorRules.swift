import HandoffCore
import HandoffRules

/// The rules `handoff doctor` checks an app pair and an activity against, in the order the system
/// checks them (docs/doctor.md). Each is one of Apple's rules with its sentence and its source, as
/// the rule book's are; where the rule book already states a rule (web approval, a scene's cold
/// launch), the doctor uses that one, so one rule has one identifier.
///
/// Sources name the seed files (`../shared/seeds/`) and their sections, the notes
/// (`../shared/notes/apple-handoff-protocol.md`) or an Apple page.
package enum DoctorRules {
    /// Every rule the manifest form can report, in the order it checks them.
    package static var all: [Rule] {
        [
            webpageScheme, eligibleForHandoff, notExpired, sameTeam, typeClaimed, associatedDomain,
            RuleBook.webNeedsApprovalAndEmptyUserInfo, requiredKeysPresent, payloadWithinLimit, payloadGuidance,
            RuleBook.sceneColdLaunchCarriesType,
        ]
    }

    package static let webpageScheme = Rule(
        id: "webpage-http-https",
        sentence:
            "An activity's webpageURL uses the http or https scheme; setting any other scheme throws an exception.",
        source:
            "handoff-programming-guide.txt, Web Browser-to-Native App Handoff (\"the scheme of the webpageURL must be http or https. Any other scheme throws an exception\"); apple-handoff-protocol.md §5 Web"
    )

    package static let eligibleForHandoff = Rule(
        id: "eligible-for-handoff",
        sentence:
            "Only an activity whose isEligibleForHandoff is true (the default) is offered to the user's other devices.",
        source:
            "apple-handoff-protocol.md §5 Properties (isEligibleForHandoff defaults to true); https://developer.apple.com/documentation/foundation/nsuseractivity/iseligibleforhandoff"
    )

    package static let notExpired = Rule(
        id: "not-expired",
        sentence: "An activity past its expirationDate is no longer offered: there is nothing left to continue.",
        source:
            "apple-handoff-protocol.md §5 Properties (expirationDate); https://developer.apple.com/documentation/foundation/nsuseractivity/expirationdate"
    )

    package static let sameTeam = Rule(
        id: "same-team",
        sentence:
            "An activity continues only in an app signed with the same team identifier as the app that created it.",
        source:
            "handoff-programming-guide.txt, About Handoff (\"apps that share the developer's Team ID\"), Identifying User Activities (\"shared among any apps signed with the same team identifier\") and Specifying an Activity Type (\"the activity type (along with the app's Team ID) determines which app to launch\")"
    )

    package static let typeClaimed = Rule(
        id: "type-claimed",
        sentence:
            "The continuing app claims the activity type: in its NSUserActivityTypes, or as a document type's NSUbiquitousDocumentUserActivityType.",
        source:
            "handoff-programming-guide.txt, Specifying an Activity Type (\"its NSUserActivityTypes array, which lists all the activity types your app supports\") and Adopting Handoff in Document-Based Apps (\"do not need to be repeated in the NSUserActivityTypes array\")"
    )

    package static let associatedDomain = Rule(
        id: "associated-domain-claims-host",
        sentence:
            "A web page continues in an app only when an activitycontinuation: entry of the app's com.apple.developer.associated-domains entitlement names the page's host; *.domain names every subdomain of domain, not domain itself.",
        source:
            "handoff-programming-guide.txt, Web Browser-to-Native App Handoff (\"it only receives activity objects whose webpageURL domain is in its com.apple.developer.associated-domains entitlement\"); https://developer.apple.com/documentation/xcode/supporting-associated-domains (\"prefix a domain with *. to match all of its subdomains\")"
    )

    package static let requiredKeysPresent = Rule(
        id: "required-keys-present",
        sentence:
            "Every key of requiredUserInfoKeys is in the userInfo: only those keys leave the device, and they are the least the continuing app needs to restore the activity.",
        source:
            "apple-handoff-protocol.md §5 Properties (\"requiredUserInfoKeys (iOS 9+) = minimal keys kept for restoration\"); https://developer.apple.com/documentation/foundation/nsuseractivity/requireduserinfokeys"
    )

    package static let payloadWithinLimit = Rule(
        id: "payload-within-limit",
        sentence:
            "A payload over the limit is refused where it is sent: the continuation fails on the continuing device with 4611 (NSUserActivityHandoffUserInfoTooLargeError).",
        source:
            "apple-handoff-protocol.md §6 Error codes (4611: \"userInfo too large to receive\") and §5 Size (\"no documented hard limit\": the simulator's is DeviceConfiguration.payloadLimitBytes)"
    )

    package static let payloadGuidance = Rule(
        id: "payload-size-guidance",
        sentence: "Transfer as small a payload as possible in the userInfo dictionary, 3 KB or less.",
        source:
            "handoff-programming-guide.txt, Populating the Activity Object's User Info Dictionary and Best Practices (\"Transfer as small a payload as possible … 3KB or less\")"
    )
}
