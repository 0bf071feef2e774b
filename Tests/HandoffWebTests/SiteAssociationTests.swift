import Foundation
import HandoffCore
import Testing

@testable import HandoffWeb

@Suite("Association files: parsing, wildcards, outcomes, caching")
struct SiteAssociationTests {
    static let appID = "SIMTEAM001.com.handoffsim.map"

    @Test func wildcardsMatchEverySubdomainButNotTheDomainItself() throws {
        let wildcard = try #require(AssociatedDomain(entry: "activitycontinuation:*.Example.com?mode=developer"))
        #expect(wildcard == AssociatedDomain(host: "example.com", isWildcard: true))
        #expect(wildcard.matches(host: "www.example.com"))
        #expect(wildcard.matches(host: "a.b.example.com"))
        #expect(!wildcard.matches(host: "example.com"))
        #expect(!wildcard.matches(host: "badexample.com"))
        #expect(wildcard.fileHost == "example.com")
        let exact = try #require(AssociatedDomain(entry: "activitycontinuation:maps.example.com:443"))
        #expect(exact.matches(host: "MAPS.example.com") && !exact.matches(host: "x.maps.example.com"))
        #expect(AssociatedDomain(entry: "applinks:example.com") == nil)
        #expect(AssociatedDomain(entry: "activitycontinuation:") == nil)
        let manifest = AppManifest(
            bundleIdentifier: "com.x", teamIdentifier: "T",
            associatedDomains: [
                "activitycontinuation:*.example.com", "activitycontinuation:maps.example.com", "applinks:other.com",
            ])
        #expect(manifest.activityContinuationEntry(matching: "maps.example.com") == exact)
        #expect(manifest.activityContinuationEntry(matching: "www.example.com") == wildcard)
    }

    @Test func cacheControlGivesTheLifetime() {
        #expect(SiteAssociationVerifier.maxAge(cacheControl: "max-age=300") == 300)
        #expect(SiteAssociationVerifier.maxAge(cacheControl: "public, Max-Age=\"60\"") == 60)
        #expect(SiteAssociationVerifier.maxAge(cacheControl: "no-store") == 0)
        #expect(SiteAssociationVerifier.maxAge(cacheControl: "max-age=-5") == nil)
        #expect(SiteAssociationVerifier.maxAge(cacheControl: "max-age=abc") == nil)
        #expect(SiteAssociationVerifier.maxAge(cacheControl: nil) == nil)
    }

    func judge(_ status: Int, _ type: String, _ body: String, headers: [String: String] = [:]) -> AssociationOutcome {
        var all = headers
        all["content-type"] = type
        let response = WebResponse(status: status, headers: all, body: Data(body.utf8), milliseconds: 1)
        switch SiteAssociationVerifier.judge(response, host: "maps.example.com") {
        case .judged(let result):
            return SiteAssociationVerifier.Fetched(host: "maps.example.com", result: result).outcome(for: Self.appID)
        case .signed:
            Issue.record("a signed file where none was served")
            return .notFound
        }
    }

    @Test func everyResponseHasItsOutcome() {
        let approving = #"{"activitycontinuation": {"apps": ["SIMTEAM001.com.handoffsim.map"]}}"#
        #expect(judge(200, "application/json; charset=utf-8", approving) == .approved)
        #expect(
            judge(200, "application/json", #"{"activitycontinuation": {"apps": ["OTHERTEAM1.com.x"]}}"#)
                == .notListed(approving: ["OTHERTEAM1.com.x"]))
        #expect(judge(404, "text/plain", "no") == .notFound)
        #expect(judge(500, "text/plain", "oops") == .httpStatus(500))
        #expect(judge(200, "text/html", approving) == .wrongContentType("text/html"))
        #expect(
            judge(301, "text/plain", "", headers: ["location": "https://x.example/"])
                == .redirected(status: 301, location: "https://x.example/"))
        if case .notJSON = judge(200, "application/json", "<html>") {} else { Issue.record("expected notJSON") }
        if case .malformed = judge(200, "application/json", #"{"activitycontinuation": "x"}"#) {
        } else {
            Issue.record("expected malformed")
        }
        let big = String(repeating: " ", count: SiteAssociationFile.maximumBytes + 1)
        #expect(judge(200, "application/json", big) == .tooLarge(bytes: SiteAssociationFile.maximumBytes + 1))
    }

    @Test func hostileFilesNeverCrash() {
        var generator = SplitMix64(seed: 0x5A11)
        for _ in 0..<300 {
            let bytes = (0..<Int.random(in: 0...200, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? SiteAssociationFile(host: "a.example", data: Data(bytes))
        }
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: SiteAssociationError.self) { try SiteAssociationFile(host: "a.example", data: Data(deep.utf8)) }
    }

    // MARK: The device keeps what it learnt

    static let t0 = Date(timeIntervalSinceReferenceDate: 1_000_000)
    static let map = AppManifest(
        bundleIdentifier: "com.handoffsim.map", teamIdentifier: "SIMTEAM001",
        associatedDomains: [
            "activitycontinuation:maps.handoffsim.example", "activitycontinuation:*.handoffsim.example",
        ])

    func check(
        _ outcome: AssociationOutcome, domain: AssociatedDomain = AssociatedDomain(host: "maps.handoffsim.example"),
        at time: Date = t0, lifetime: TimeInterval = 300
    ) -> SiteAssociationCheck {
        SiteAssociationCheck(
            bundleIdentifier: "com.handoffsim.map", applicationIdentifier: Self.appID, domain: domain, outcome: outcome,
            checkedAt: time, expiresAt: time + lifetime)
    }

    @Test func installingAnAppAsksForEveryDomainOnceAndAnExpiredAnswerIsAskedAgainAtLaunch() {
        var system = DeviceSystem(device: PeerInfo(id: "phone", name: "Phone", kind: .phone))
        let effects = system.handle(.appInstalled(Self.map), at: Self.t0)
        let asked = effects.compactMap { effect -> [AssociatedDomain]? in
            if case .checkSiteAssociations(_, _, let domains) = effect { return domains } else { return nil }
        }
        #expect(
            asked == [
                [
                    AssociatedDomain(host: "maps.handoffsim.example"),
                    AssociatedDomain(host: "handoffsim.example", isWildcard: true),
                ]
            ])
        // In flight: launching does not ask again.
        #expect(
            !system.handle(.appBecameFrontmost(bundleIdentifier: "com.handoffsim.map"), at: Self.t0).contains {
                if case .checkSiteAssociations = $0 { true } else { false }
            })
        _ = system.handle(.siteAssociationChecked(check(.approved)), at: Self.t0)
        _ = system.handle(
            .siteAssociationChecked(
                check(.notFound, domain: AssociatedDomain(host: "handoffsim.example", isWildcard: true), lifetime: 0)),
            at: Self.t0)
        #expect(system.webRoute(host: "maps.handoffsim.example", at: Self.t0).bundleIdentifier == "com.handoffsim.map")
        if case .notApproved(let refusals) = system.webRoute(host: "www.handoffsim.example", at: Self.t0).routing {
            #expect(refusals.map(\.outcome) == [.notFound])
        } else {
            Issue.record("a subdomain the wildcard's file does not approve goes to the browser")
        }
    }

    @Test func aFailedFetchKeepsTheEarlierAnswerUntilItExpires() {
        var system = DeviceSystem(device: PeerInfo(id: "phone", name: "Phone", kind: .phone))
        _ = system.handle(.appInstalled(Self.map), at: Self.t0)
        _ = system.handle(.siteAssociationChecked(check(.approved)), at: Self.t0)
        // Checked again before the approval expires (a reinstall): the server is down, the answer kept.
        let effects = system.handle(
            .siteAssociationChecked(check(.unreachable("refused"), at: Self.t0 + 100, lifetime: 0)), at: Self.t0 + 100)
        #expect(
            effects.contains { effect in
                if case .record(let event) = effect, case .siteAssociationChecked(_, let kept) = event.occurrence {
                    kept == .approved
                } else {
                    false
                }
            })
        let approved = WebRouting.approved(
            applicationIdentifier: Self.appID, domain: AssociatedDomain(host: "maps.handoffsim.example"))
        #expect(system.webRoute(host: "maps.handoffsim.example", at: Self.t0 + 200).routing == approved)
        // Once the approval has expired (max-age 300 s), a failed fetch no longer carries it: the
        // browser gets the page, with the failure as the reason.
        let route = system.webRoute(host: "maps.handoffsim.example", at: Self.t0 + 300)
        #expect(route.bundleIdentifier == nil)
        if case .notApproved(let refusals) = route.routing {
            #expect(refusals.first { $0.domain.host == "maps.handoffsim.example" }?.outcome == .unreachable("refused"))
        } else {
            Issue.record("an expired approval with a failed fetch goes to the browser, not \(route.routing)")
        }
        // An expired approval not yet checked again is still held (the device fetches at launch).
        var unchecked = DeviceSystem(device: PeerInfo(id: "phone", name: "Phone", kind: .phone))
        _ = unchecked.handle(.appInstalled(Self.map), at: Self.t0)
        _ = unchecked.handle(.siteAssociationChecked(check(.approved)), at: Self.t0)
        #expect(unchecked.webRoute(host: "maps.handoffsim.example", at: Self.t0 + 1000).routing == approved)
        // A valid answer that no longer lists the app takes the approval back.
        _ = system.handle(
            .siteAssociationChecked(check(.notListed(approving: []), at: Self.t0 + 500)), at: Self.t0 + 500)
        #expect(system.webRoute(host: "maps.handoffsim.example", at: Self.t0 + 500).bundleIdentifier == nil)
    }

    // MARK: Signed files and malformed entries

    static let approving = Data(#"{"activitycontinuation": {"apps": ["SIMTEAM001.com.handoffsim.map"]}}"#.utf8)

    func signedResponse(_ body: Data, type: String = "application/pkcs7-mime") -> WebResponse {
        WebResponse(status: 200, headers: ["content-type": type], body: body, milliseconds: 1)
    }

    /// A web folder holding a new local authority; the signer an identity it issued.
    func authority() throws -> (folder: WebFolder, signer: AssociationSigner, root: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-signed-\(UUID().uuidString)")
        let folder = WebFolder(url: root)
        let authority = try LocalCertificateAuthority.loadOrCreate(in: folder)
        return (folder, try authority.issueServerIdentity(hosts: ["maps.example.com"]).signer, root)
    }

    /// PG Listing 2-8: a file signed with an identity from a trusted authority is read as iOS 8
    /// read it, and its content judged as an unsigned file is.
    @Test func aSignedFileIsReadOnceItsSignatureVerifies() async throws {
        let (folder, signer, root) = try authority()
        defer { try? FileManager.default.removeItem(at: root) }
        let message = try signer.sign(Self.approving)
        guard
            case .signed(let signed) = SiteAssociationVerifier.judge(signedResponse(message), host: "maps.example.com")
        else {
            Issue.record("a signed file was not recognised")
            return
        }
        #expect(signed.content == Self.approving)
        let result = await SiteAssociationVerifier.open(signed, host: "maps.example.com", folder: folder)
        #expect(
            SiteAssociationVerifier.Fetched(host: "maps.example.com", result: result).outcome(for: Self.appID)
                == .approved)
    }

    @Test func aFileSignedByAnAuthorityTheDeviceDoesNotTrustIsRefusedAndSaysWhatIsExpected() async throws {
        let (folder, _, root) = try authority()
        let (_, stranger, otherRoot) = try authority()
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: otherRoot)
        }
        let message = try stranger.sign(Self.approving)
        guard
            case .signed(let signed) = SiteAssociationVerifier.judge(signedResponse(message), host: "maps.example.com")
        else {
            Issue.record("a signed file was not recognised")
            return
        }
        let result = await SiteAssociationVerifier.open(signed, host: "maps.example.com", folder: folder)
        guard case .failure(.signatureInvalid(let reason)) = result else {
            Issue.record("an untrusted signer was accepted: \(result)")
            return
        }
        #expect(reason.hasSuffix(SignedAssociationFile.currentRule))
    }

    @Test func signedBytesThatAreNotAPKCS7MessageOrServedAsJSONSayTheyAreSigned() throws {
        let (_, signer, root) = try authority()
        defer { try? FileManager.default.removeItem(at: root) }
        // Garbage served as a signed file: refused, saying what current systems expect.
        guard
            case .judged(.failure(.signatureInvalid(let reason))) = SiteAssociationVerifier.judge(
                signedResponse(Data("not der".utf8)), host: "maps.example.com")
        else {
            Issue.record("garbage served as application/pkcs7-mime was not refused as a signed file")
            return
        }
        #expect(reason.hasPrefix("not a PKCS #7 message"))
        #expect(reason.hasSuffix(SignedAssociationFile.currentRule))
        // A signed file served as JSON: not JSON, and the message says it is signed, not "it starts “0*H0”".
        let message = try signer.sign(Self.approving)
        let outcome = SiteAssociationVerifier.judge(
            signedResponse(message, type: "application/json"), host: "maps.example.com")
        guard case .judged(.failure(.notJSON(let why))) = outcome else {
            Issue.record("a signed file served as JSON: \(outcome)")
            return
        }
        #expect(why.contains("signed (PKCS #7, as iOS 8 required)"))
        #expect(!why.contains("it starts"))
        // Truncated or detached messages are refused with a reason, never a crash.
        for cut in [1, 10, message.count / 2, message.count - 1] {
            let judgement = SiteAssociationVerifier.judge(signedResponse(message.prefix(cut)), host: "maps.example.com")
            guard case .judged(.failure(.signatureInvalid)) = judgement else {
                Issue.record("a message cut at \(cut) bytes: \(judgement)")
                continue
            }
        }
    }

    /// One malformed app ID approves nothing and voids no other entry.
    @Test func aMalformedAppIDDoesNotVoidTheOtherEntries() throws {
        let body = #"{"activitycontinuation": {"apps": ["not an id", 42, "SIMTEAM001.com.handoffsim.map"]}}"#
        #expect(judge(200, "application/json", body) == .approved)
        let file = try SiteAssociationFile(host: "maps.example.com", data: Data(body.utf8))
        #expect(file.approvedApplicationIdentifiers == ["SIMTEAM001.com.handoffsim.map"])
        #expect(
            file.ignoredEntries == [
                #"apps[0] holds "not an id", not an app ID (TEAMID.bundle.id)"#,
                "apps[1] holds 42, not an app ID (TEAMID.bundle.id)",
            ])
        // Only malformed entries: the file approves no app, and is still a file.
        #expect(
            judge(200, "application/json", #"{"activitycontinuation": {"apps": [true]}}"#) == .notListed(approving: []))
    }
}
