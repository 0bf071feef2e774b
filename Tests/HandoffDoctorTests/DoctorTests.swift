import Foundation
import HandoffCore
import HandoffDoctor
import HandoffRules
import Testing

/// The doctor's diagnosis of two apps and an activity, from values: every reason, in the order
/// the system checks, the verdict and where the activity goes instead.
@Suite("Doctor: two apps and an activity")
struct DoctorTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let team = "ABCDE12345"
    static let notes = AppManifest(
        bundleIdentifier: "com.example.notes", teamIdentifier: team, activityTypes: ["com.example.notes.editing"],
        documentTypes: [
            .init(
                name: "Note", contentTypes: ["public.plain-text"], ubiquitousActivityType: "com.example.notes.document")
        ],
        associatedDomains: [
            "activitycontinuation:notes.example.com", "activitycontinuation:*.example.org",
            "activitycontinuation:www.example.org", "applinks:notes.example.com",
        ])
    static let notesMobile = AppManifest(
        bundleIdentifier: "com.example.notes.mobile", teamIdentifier: team,
        activityTypes: ["com.example.notes.editing"],
        sceneManifest: .init(configurations: [
            .init(role: "UIWindowSceneSessionRoleApplication", delegateClass: "NotesMobile.SceneDelegate")
        ]))
    static let otherTeam = AppManifest(
        bundleIdentifier: "org.other.notes", teamIdentifier: "ZYXWV98765",
        activityTypes: ["org.other.notes.viewing"])
    static let limits = DeviceConfiguration()

    static func diagnose(
        origin: AppManifest? = notes, receiver: AppManifest = notes, _ activity: DoctorActivity,
        answers: [String: DoctorSiteAnswer] = [:]
    ) -> Diagnosis {
        Doctor.diagnose(
            DoctorCase(origin: origin, receiver: receiver, activity: activity, siteAnswers: answers, now: now))
    }

    static let editing = DoctorActivity(activityType: "com.example.notes.editing")

    // MARK: Native activities

    @Test func aClaimedTypeOfTheSameTeamContinuesWithNoReason() {
        let diagnosis = Self.diagnose(Self.editing)
        #expect(diagnosis.continues)
        #expect(diagnosis.reasons.isEmpty)
        #expect(diagnosis.destination == .app(bundleIdentifier: "com.example.notes"))
        #expect(diagnosis.verdict == "Verdict: continues in com.example.notes (0 errors, 0 warnings)")
    }

    @Test func aDocumentTypesUbiquitousActivityTypeIsClaimed() {
        let diagnosis = Self.diagnose(DoctorActivity(activityType: "com.example.notes.document"))
        #expect(diagnosis.continues)
    }

    @Test func everyReasonIsGivenInTheOrderTheSystemChecks() {
        let activity = DoctorActivity(
            activityType: "com.example.notes.editing", webpageURL: "ftp://notes.example.com/1",
            payloadBytes: Self.limits.payloadLimitBytes + 1, requiredUserInfoKeys: ["noteID", "cursor"],
            userInfoKeys: ["cursor"], expirationDate: Self.now.addingTimeInterval(-60), isEligibleForHandoff: false)
        let diagnosis = Self.diagnose(receiver: Self.otherTeam, activity)
        #expect(!diagnosis.continues)
        #expect(
            diagnosis.reasons.map(\.rule.id) == [
                "webpage-http-https", "eligible-for-handoff", "not-expired", "same-team", "type-claimed",
                "required-keys-present", "payload-within-limit", "payload-size-guidance",
            ])
        #expect(
            diagnosis.reasons.map(\.severity) == [.error, .error, .error, .error, .error, .error, .error, .warning])
        // Nothing is offered: an ineligible or expired activity is not advertised at all.
        #expect(diagnosis.destination == .nothing)
        #expect(diagnosis.reasons[0].details[0].contains("uses the scheme ftp, not http or https"))
        #expect(diagnosis.reasons[2].details[0].contains("60 s before"))
        #expect(
            diagnosis.reasons[5].details[0].hasPrefix(
                "requiredUserInfoKeys names noteID, which the userInfo does not hold"))
        #expect(diagnosis.reasons[5].details[1] == "userInfo keys: cursor")
    }

    @Test func bothTeamsAreNamed() throws {
        let receiver = AppManifest(
            bundleIdentifier: "org.other.notes", teamIdentifier: "ZYXWV98765",
            activityTypes: ["com.example.notes.editing"])
        let diagnosis = Self.diagnose(receiver: receiver, Self.editing)
        let reason = try #require(diagnosis.reasons.first)
        #expect(diagnosis.reasons.count == 1)
        #expect(reason.rule == DoctorRules.sameTeam)
        #expect(
            reason.details == [
                "the origin com.example.notes is of team ABCDE12345; the receiver org.other.notes is of team ZYXWV98765"
            ])
        #expect(reason.rule.source.hasPrefix("handoff-programming-guide.txt, About Handoff"))
    }

    @Test func anUnclaimedTypeListsTheTypesTheReceiverClaims() throws {
        let diagnosis = Self.diagnose(DoctorActivity(activityType: "com.example.notes.sharing"))
        let reason = try #require(diagnosis.reasons.first)
        #expect(reason.rule.id == "type-claimed")
        #expect(
            reason.details == [
                "com.example.notes does not claim com.example.notes.sharing",
                "NSUserActivityTypes: com.example.notes.editing",
                "document types' NSUbiquitousDocumentUserActivityType: com.example.notes.document (document type Note)",
            ])
        #expect(diagnosis.destination == .nothing)
    }

    @Test func aNativeActivityWithAPageOpensInTheBrowserWhenNoAppTakesIt() {
        let diagnosis = Self.diagnose(
            receiver: Self.otherTeam,
            DoctorActivity(activityType: "com.example.notes.editing", webpageURL: "https://notes.example.com/n/1"))
        #expect(!diagnosis.continues)
        #expect(diagnosis.destination == .browser(url: "https://notes.example.com/n/1"))
        #expect(diagnosis.verdict.hasSuffix("the other device's browser opens https://notes.example.com/n/1 instead"))
    }

    @Test func theGuidanceIsAWarningAndNeverTheVerdict() throws {
        let bytes = Self.limits.payloadWarningBytes + 1
        let diagnosis = Self.diagnose(DoctorActivity(activityType: "com.example.notes.editing", payloadBytes: bytes))
        #expect(diagnosis.continues)
        let reason = try #require(diagnosis.reasons.first)
        #expect(reason.severity == .warning)
        #expect(reason.rule.id == "payload-size-guidance")
        #expect(reason.details[0].contains("over Apple's guidance of \(Self.limits.payloadWarningBytes) bytes"))
        #expect(
            Self.diagnose(
                DoctorActivity(activityType: "com.example.notes.editing", payloadBytes: Self.limits.payloadWarningBytes)
            ).reasons.isEmpty)
    }

    @Test func overTheLimitFailsWith4611() {
        let limit = Self.limits.payloadLimitBytes
        let diagnosis = Self.diagnose(
            DoctorActivity(activityType: "com.example.notes.editing", payloadBytes: limit + 1))
        #expect(!diagnosis.continues)
        #expect(diagnosis.destination == .fails(.userInfoTooLarge))
        #expect(diagnosis.errors.map(\.rule.id) == ["payload-within-limit"])
        #expect(diagnosis.errors[0].details[0].contains("over the \(limit)-byte limit"))
        #expect(diagnosis.verdict.contains("fails with 4611 (NSUserActivityHandoffUserInfoTooLargeError)"))
        #expect(
            Self.diagnose(DoctorActivity(activityType: "com.example.notes.editing", payloadBytes: limit)).errors.isEmpty
        )
    }

    @Test func requiredKeysPresentOrUnknownAreNoReason() {
        let present = DoctorActivity(
            activityType: "com.example.notes.editing", requiredUserInfoKeys: ["noteID"], userInfoKeys: ["noteID", "x"])
        #expect(Self.diagnose(present).reasons.isEmpty)
        let unknown = DoctorActivity(activityType: "com.example.notes.editing", requiredUserInfoKeys: ["noteID"])
        #expect(Self.diagnose(unknown).reasons.isEmpty)
    }

    @Test func anExpirationDateStillAheadIsNoReason() {
        let activity = DoctorActivity(
            activityType: "com.example.notes.editing", expirationDate: Self.now.addingTimeInterval(1))
        #expect(Self.diagnose(activity).continues)
    }

    @Test func aSceneReceiverWarnsOfTheColdLaunchWithoutChangingTheVerdict() throws {
        let diagnosis = Self.diagnose(receiver: Self.notesMobile, Self.editing)
        #expect(diagnosis.continues)
        let reason = try #require(diagnosis.reasons.first)
        #expect(reason.rule == RuleBook.sceneColdLaunchCarriesType)
        #expect(reason.severity == .warning)
        #expect(reason.details[0].contains("connectionOptions.handoffUserActivityType (com.example.notes.editing)"))
    }

    // MARK: Web pages

    static func page(_ url: String) -> DoctorActivity { .webpage(url) }

    @Test func anApprovedPageContinuesWithoutAnOrigin() {
        let diagnosis = Self.diagnose(
            origin: nil, Self.page("https://notes.example.com/n/1"),
            answers: ["notes.example.com": .checked(.approved, source: "read from approving.json")])
        #expect(diagnosis.continues)
        #expect(diagnosis.web?.entry == AssociatedDomain(host: "notes.example.com"))
        #expect(diagnosis.destination == .app(bundleIdentifier: "com.example.notes"))
        #expect(diagnosis.report.contains("  for ABCDE12345.com.example.notes: approved; read from approving.json"))
        // A browser's page needs no team or type: approval replaces both.
        #expect(
            Self.diagnose(
                origin: Self.otherTeam, Self.page("https://notes.example.com/"),
                answers: ["notes.example.com": .checked(.approved, source: "x")]
            ).continues)
    }

    @Test(arguments: [
        (
            AssociationOutcome.notListed(approving: ["ABCDE12345.com.example.other"]),
            "not listed (the file approves ABCDE12345.com.example.other)"
        ),
        (.notFound, "404: the site has no association file"),
        (.notJSON("not JSON (it starts “<html>”)"), "not JSON: not JSON (it starts “<html>”)"),
    ])
    func aPageTheSiteDoesNotApproveOpensInTheBrowser(outcome: AssociationOutcome, said: String) throws {
        let diagnosis = Self.diagnose(
            origin: nil, Self.page("https://notes.example.com/n/1"),
            answers: ["notes.example.com": .checked(outcome, source: "read from site.json")])
        #expect(!diagnosis.continues)
        let reason = try #require(diagnosis.errors.first)
        #expect(reason.rule == RuleBook.webNeedsApprovalAndEmptyUserInfo)
        #expect(
            reason.details[0]
                == "notes.example.com's apple-app-site-association for ABCDE12345.com.example.notes: \(said); read from site.json"
        )
        #expect(diagnosis.destination == .browser(url: "https://notes.example.com/n/1"))
    }

    @Test func aFileNobodyCheckedIsNoApproval() throws {
        let diagnosis = Self.diagnose(
            origin: nil, Self.page("https://notes.example.com/"),
            answers: ["notes.example.com": .notChecked("no local web is running")])
        #expect(!diagnosis.continues)
        let reason = try #require(diagnosis.errors.first)
        #expect(reason.details[0].contains("was not checked (no local web is running)"))
        #expect(
            reason.details[1]
                == "give it with --site-file notes.example.com=FILE, or serve it over the local web (handoff web serve)"
        )
    }

    @Test func aWildcardMatchesSubdomainsAndIsVerifiedByTheDomainsFile() throws {
        let diagnosis = Self.diagnose(
            origin: nil, Self.page("https://a.b.example.org/x"),
            answers: ["example.org": .checked(.approved, source: "x")])
        #expect(diagnosis.continues)
        #expect(diagnosis.web?.entry == AssociatedDomain(host: "example.org", isWildcard: true))
        // Apple matches it; the simulator's devices do not, and the doctor says so in a note.
        let note = try #require(diagnosis.reasons.first)
        #expect(note.severity == .note)
        #expect(note.details[0].contains("matched the wildcard entry *.example.org"))
    }

    @Test func anExactEntryBeatsAWildcard() {
        let diagnosis = Self.diagnose(
            origin: nil, Self.page("https://WWW.example.org/"),
            answers: ["www.example.org": .checked(.approved, source: "x")])
        #expect(diagnosis.web?.entry == AssociatedDomain(host: "www.example.org"))
        #expect(diagnosis.continues)
        #expect(diagnosis.reasons.isEmpty)
    }

    @Test func aWildcardDoesNotNameTheDomainItself() throws {
        let diagnosis = Self.diagnose(origin: nil, Self.page("https://example.org/"))
        let reason = try #require(diagnosis.errors.first)
        #expect(reason.rule.id == "associated-domain-claims-host")
        #expect(
            reason.details == [
                "no activitycontinuation: entry of com.example.notes's com.apple.developer.associated-domains names example.org",
                "its activitycontinuation: entries: notes.example.com, *.example.org, www.example.org",
                "*.example.org names the subdomains of example.org, not example.org itself: add activitycontinuation:example.org",
            ])
        #expect(diagnosis.destination == .browser(url: "https://example.org/"))
    }

    @Test func aPageWithAnotherSchemeIsRefusedFirst() throws {
        let diagnosis = Self.diagnose(origin: nil, Self.page("notes://n/1"))
        #expect(diagnosis.errors.map(\.rule.id) == ["webpage-http-https"])
        #expect(diagnosis.destination == .nothing)
    }

    // MARK: JSON

    @Test func theJSONObjectHasStableKeys() throws {
        let diagnosis = Self.diagnose(
            origin: nil, Self.page("https://notes.example.com/n/1"),
            answers: ["notes.example.com": .checked(.notFound, source: "fetched over the local web")])
        let object = try #require(diagnosis.json.objectValue)
        #expect(
            Set(object.keys) == [
                "verdict", "continues", "origin", "receiver", "activity", "destination", "reasons", "errors",
                "warnings",
                "web",
            ])
        #expect(object["verdict"] == "doesNotContinue")
        #expect(object["continues"] == false)
        #expect(object["origin"] == .null)
        #expect(object["destination"] == ["kind": "browser", "url": "https://notes.example.com/n/1"])
        let reason = try #require(object["reasons"]?.arrayValue?.first?.objectValue)
        #expect(Set(reason.keys) == ["rule", "sentence", "source", "severity", "details"])
        #expect(reason["rule"] == "web-needs-approval")
        #expect(reason["severity"] == "error")
        let web = try #require(object["web"]?.objectValue)
        #expect(web["entry"] == "activitycontinuation:notes.example.com")
        #expect(web["associationFile"]?["outcome"] == "notFound")
        #expect(web["associationFile"]?["checked"] == true)
        // One line, keys sorted: the same diagnosis prints the same text.
        #expect(
            diagnosis.json.jsonText
                == Self.diagnose(
                    origin: nil, Self.page("https://notes.example.com/n/1"),
                    answers: ["notes.example.com": .checked(.notFound, source: "fetched over the local web")]
                ).json.jsonText)
    }

    @Test func everyRuleHasASentenceAndASource() {
        for rule in DoctorRules.all {
            #expect(!rule.sentence.isEmpty && rule.sentence.hasSuffix("."), "\(rule.id)")
            #expect(!rule.source.isEmpty, "\(rule.id)")
        }
        #expect(Set(DoctorRules.all.map(\.id)).count == DoctorRules.all.count)
    }
}
