import Foundation
import HandoffCore
import TerminalCells
import Testing

@testable import DeviceUI

/// Nearby's "why not" for web offers: each app's domain and what its site's association file said.
@Suite("Nearby: web offers and association outcomes")
struct WebRouteSnapshotTests {
    static let webOffer = DeviceSnapshot.OfferInfo(
        peer: Fixture.laptop, firstSeen: Fixture.now, lastSeen: Fixture.now, savedAt: Fixture.now,
        options: [.isEligibleForHandoff, .hasWebpageURL], route: .web(browserBundleIdentifier: "com.example.browser"))

    static func association(
        _ app: String, _ domain: String, _ outcome: AssociationOutcome?, approved: Bool = false
    )
        -> DeviceSnapshot.SiteAssociationInfo
    {
        .init(
            appName: app, bundleIdentifier: "com.example.\(app.lowercased())", domain: domain, outcome: outcome,
            isApproved: approved)
    }

    @Test(arguments: [
        (AssociationOutcome?.some(.approved), true, "approved"),
        (.some(.notListed(approving: ["OTHER.com.example.x"])), false, "not listed"),
        (.some(.notFound), false, "404"),
        (.some(.notJSON("unexpected character")), false, "not JSON"),
        (.some(.wrongContentType("text/html")), false, "wrong content type"),
        (.some(.redirected(status: 301, location: "https://www.example/")), false, "redirected"),
        (.some(.unreachable("connection refused")), false, "unreachable"),
        (.some(.unreachable("connection refused")), true, "approved (kept; last fetch: unreachable)"),
        (nil, false, "not checked yet"),
    ])
    func eachOutcomeHasItsWords(outcome: AssociationOutcome?, approved: Bool, summary: String) {
        let info = Self.association("Map", "maps.handoffsim.example", outcome, approved: approved)
        #expect(info.summary == summary)
        #expect(info.line == "\(approved ? "✓" : "✗") Map · maps.handoffsim.example: \(summary)")
    }

    @Test func theSidebarShowsEachDomainsOutcomeAt80x24() {
        var state = Fixture.state()
        state.network = .offline
        var device = Fixture.device(offers: [Self.webOffer])
        device.siteAssociations = [
            Self.association("Map", "maps.handoffsim.example", .unreachable("connection refused")),
            Self.association("Reader", "reader.handoffsim.example", .approved, approved: true),
        ]
        let grid = Fixture.render(state, device)
        let text = grid.text()
        #expect(text.contains("✗ Map: unreachable"))
        #expect(text.contains("✓ Reader: approved"))
        // The domain whole, broken after a dot (it was cut: "maps.handoffsim.e…").
        #expect(text.contains("  maps.handoffsim.  "))
        #expect(text.contains("  example  "))
        #expect(!text.contains("handoffsim.e…"))
        assertSnapshot(grid, named: "phone-web-offer-associations-80x24")
    }

    @Test func withoutDomainsTheSidebarSaysPagesOpenInTheBrowser() {
        var state = Fixture.state()
        state.network = .offline
        let text = Fixture.render(state, Fixture.device(offers: [Self.webOffer])).text()
        #expect(text.contains("no app here names a"))
    }

    /// A page that went to the Browser because the app's site did not approve it: the
    /// explanation names the host, each app and domain, and the outcome.
    @Test func aPageTheSiteDoesNotApproveExplainsWhyAt80x24() {
        var state = Fixture.state()
        state.network = .offline
        let device = Fixture.device(offers: [Self.webOffer])
        let refusal = WebRoutingRefusal(
            bundleIdentifier: "com.example.map", applicationIdentifier: "SIMTEAM001.com.example.map",
            domain: AssociatedDomain(host: "maps.handoffsim.example"),
            outcome: .unreachable("connection refused"))
        let event = LifecycleEvent(
            time: Fixture.now, device: "Phone",
            .webRouted(
                Fixture.continuation, host: "maps.handoffsim.example", bundleIdentifier: "com.example.browser",
                .notApproved([refusal])))
        _ = state.update(.lifecycleEventRecorded(event), device: device)
        guard case .explanation(let explanation) = state.overlay else {
            Issue.record("no explanation: \(String(describing: state.overlay))")
            return
        }
        #expect(explanation.title == "Opened in the Browser")
        #expect(explanation.text.contains("Map (maps.handoffsim.example): unreachable: connection refused"))
        assertSnapshot(Fixture.render(state, device), named: "phone-web-refused-explanation-80x24")
        // An approved page explains nothing.
        var approved = Fixture.state()
        let routed = LifecycleEvent(
            time: Fixture.now, device: "Phone",
            .webRouted(
                Fixture.continuation, host: "maps.handoffsim.example", bundleIdentifier: "com.example.map",
                .approved(
                    applicationIdentifier: "SIMTEAM001.com.example.map",
                    domain: AssociatedDomain(host: "maps.handoffsim.example"))))
        _ = approved.update(.lifecycleEventRecorded(routed), device: device)
        #expect(approved.overlay == nil)
    }

    /// The snapshot is built from the device system: every app's domain, approved or not.
    @Test func theSnapshotListsEveryDomainOfEveryApp() {
        var system = DeviceSystem(device: PeerInfo(id: "phone", name: "Phone", kind: .phone))
        let map = AppManifest(
            bundleIdentifier: "com.handoffsim.map", teamIdentifier: "SIMTEAM001", displayName: "Map",
            associatedDomains: ["activitycontinuation:maps.handoffsim.example", "applinks:maps.handoffsim.example"])
        _ = system.handle(.appInstalled(map), at: Fixture.now)
        let domain = AssociatedDomain(host: "maps.handoffsim.example")
        #expect(
            DeviceSnapshot.siteAssociations(of: system, at: Fixture.now).map(\.line) == [
                "✗ Map · maps.handoffsim.example: not checked yet"
            ])
        _ = system.handle(
            .siteAssociationChecked(
                SiteAssociationCheck(
                    bundleIdentifier: "com.handoffsim.map", applicationIdentifier: "SIMTEAM001.com.handoffsim.map",
                    domain: domain,
                    outcome: .approved, checkedAt: Fixture.now, expiresAt: Fixture.now + 60)), at: Fixture.now)
        #expect(
            DeviceSnapshot.siteAssociations(of: system, at: Fixture.now).map(\.line) == [
                "✓ Map · maps.handoffsim.example: approved"
            ])
    }
}
