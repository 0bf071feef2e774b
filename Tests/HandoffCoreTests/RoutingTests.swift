import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

@Suite("Routing offers to apps")
struct RoutingTests {
    let hood = Neighbourhood()
    let origin: Device
    let receiver: Device

    init() {
        origin = hood.addDevice("Laptop", kind: .laptop)
        receiver = hood.addDevice("Phone")
    }

    func offer(
        _ type: String, from manifest: AppManifest = TestManifests.suite,
        configure: (UserActivity) throws -> Void = { _ in }
    ) throws -> Route {
        let app = origin.application(manifest.bundleIdentifier) ?? origin.install(manifest)
        origin.bringToFront(app)
        let activity = try UserActivity(activityType: type, application: app)
        try configure(activity)
        activity.becomeCurrent()
        hood.settle()
        return try #require(receiver.system.offers[origin.info.id]).route
    }

    @Test func sameTeamAndClaimedTypeSelectsTheApp() throws {
        receiver.install(TestManifests.reader)
        #expect(
            try offer("com.example.reader.reading")
                == .app(bundleIdentifier: "com.example.reader", activityType: "com.example.reader.reading"))
    }

    @Test func anAppOfAnotherTeamIsNeverChosen() throws {
        receiver.install(TestManifests.thirdPartyReader)
        let route = try offer("com.example.reader.reading")
        #expect(route == .unavailable(.teamDiffers(bundleIdentifiers: ["org.thirdparty.reader"])))
        #expect(route.description.contains("team differs"))
        receiver.install(TestManifests.reader)
        hood.advance(by: 1.5)
        #expect(
            receiver.system.offers[origin.info.id]?.route
                == .app(bundleIdentifier: "com.example.reader", activityType: "com.example.reader.reading"),
            "installing the right app makes it continuable; the third party still is not chosen")
    }

    @Test func noAppClaimsTheType() throws {
        receiver.install(TestManifests.map)
        #expect(try offer("com.example.notes.editing") == .unavailable(.noAppClaimsType))
    }

    @Test func notEligible() throws {
        receiver.install(TestManifests.reader)
        #expect(
            try offer("com.example.reader.reading") { $0.isEligibleForHandoff = false } == .unavailable(.notEligible))
        receiver.chooseOffer(from: origin.info.id)
        hood.settle()
        #expect(origin.lifecycle.filter { $0.kind == .payloadRequested }.isEmpty)
    }

    @Test func expired() throws {
        receiver.install(TestManifests.reader)
        let expiry = hood.clock.now.addingTimeInterval(10)
        #expect(try offer("com.example.reader.reading") { $0.expirationDate = expiry }.isContinuable)
        hood.advance(by: 10.5)
        #expect(origin.system.advertisement == nil, "the origin withdraws an expired activity")
        #expect(receiver.system.offers[origin.info.id] == nil)
        #expect(
            receiver.system.route(
                for: Advertisement(
                    device: origin.info.id,
                    activityTypeHash: ActivityTypeHash(activityType: "com.example.reader.reading"),
                    teamHash: TeamHash(teamIdentifier: TestManifests.team), options: [.isEligibleForHandoff],
                    activitySerial: 1,
                    savedAt: hood.clock.now, expiresAt: expiry), at: hood.clock.now) == .unavailable(.expired))
    }

    @Test func asymmetricRoutingOneAppsThreeTypesToThreeApps() throws {
        let reader = RecordingAppDelegate()
        let map = RecordingAppDelegate()
        let notes = RecordingAppDelegate()
        receiver.install(TestManifests.reader, delegate: reader)
        receiver.install(TestManifests.map, delegate: map)
        receiver.install(TestManifests.notes, delegate: notes)
        for (type, app, delegate) in [
            ("com.example.reader.reading", "com.example.reader", reader),
            ("com.example.map.region", "com.example.map", map),
            ("com.example.notes.editing", "com.example.notes", notes),
        ] {
            #expect(
                try offer(type) { $0.userInfo = ["kind": .string(type)] }
                    == .app(bundleIdentifier: app, activityType: type))
            receiver.chooseOffer(from: origin.info.id)
            hood.settle()
            #expect(delegate.continued.last?.userInfo == ["kind": .string(type)])
            #expect(delegate.continued.last?.activityType == type)
        }
    }

    @Test func aDocumentActivityGoesToTheAppDeclaringItsUbiquitousType() throws {
        let delegate = RecordingAppDelegate()
        let phoneReader = receiver.install(TestManifests.reader, delegate: delegate)
        receiver.bringToFront(phoneReader)
        var reopened: Document?
        let readingView = Responder()
        readingView.isOnScreen = true
        delegate.onContinue = { activity in
            if case .url(let url)? = activity.userInfo[UserActivity.documentURLKey] {
                reopened = try? phoneReader.openDocument(at: url)
                // UIKit: the document's activity becomes current on a responder on screen.
                readingView.userActivity = reopened?.userActivity
            }
        }
        // One account's documents, at the same path on both (the container paths differ in
        // UbiquityContainerTests).
        origin.ubiquityContainerURL = URL(fileURLWithPath: "/cloud/demo")
        receiver.ubiquityContainerURL = URL(fileURLWithPath: "/cloud/demo")
        let laptopReader = origin.install(TestManifests.reader)
        origin.bringToFront(laptopReader)
        let url = URL(fileURLWithPath: "/cloud/demo/Walden.txt")
        _ = try laptopReader.openDocument(at: url)
        hood.settle()
        let route = try #require(receiver.system.offers[origin.info.id]).route
        #expect(route == .app(bundleIdentifier: "com.example.reader", activityType: "com.example.reader.document"))
        receiver.chooseOffer(from: origin.info.id)
        hood.settle()
        #expect(reopened?.fileURL == url)
        #expect(phoneReader.openDocuments.map(\.fileURL) == [url])
        #expect(reopened?.userActivity?.isCurrent == true, "the reopened document's activity is now current here")
    }

    @Test func nativeToWebFallsBackToTheBrowser() throws {
        let browser = RecordingAppDelegate()
        receiver.install(TestManifests.browser, delegate: browser)
        let page = URL(string: "https://maps.example.com/?ll=48.85,2.35&z=12")!
        let route = try offer("com.example.map.region") { activity in
            activity.userInfo = ["lat": 48.85, "lon": 2.35]
            try activity.setWebpageURL(page)
        }
        #expect(route == .browser(bundleIdentifier: "com.example.browser", because: .noAppClaimsType))
        receiver.chooseOffer(from: origin.info.id)
        hood.settle()
        let received = try #require(browser.continued.first)
        #expect(received.activityType == UserActivity.browsingWebType)
        #expect(received.webpageURL == page)
        #expect(received.userInfo.isEmpty, "the browser gets the page, not the app's private state")
        #expect(browser.log.entries.first == "com.example.browser.willContinue(NSUserActivityTypeBrowsingWeb)")
    }

    @Test func withoutAWebpageOrBrowserThereIsNoFallback() throws {
        receiver.install(TestManifests.browser)
        #expect(try offer("com.example.map.region") == .unavailable(.noAppClaimsType))
    }

    func browse(_ url: String) throws -> Route {
        let browserApp = origin.application("com.example.browser") ?? origin.install(TestManifests.browser)
        origin.bringToFront(browserApp)
        return try offer(UserActivity.browsingWebType, from: TestManifests.browser) {
            try $0.setWebpageURL(URL(string: url)!)
        }
    }

    @Test func webToNativeWhenTheSiteApproves() throws {
        let map = RecordingAppDelegate()
        let browser = RecordingAppDelegate()
        receiver.install(TestManifests.map, delegate: map)
        receiver.install(TestManifests.browser, delegate: browser)
        receiver.siteAssociationChecked(
            SiteAssociationCheck(
                bundleIdentifier: "com.example.map", applicationIdentifier: "\(TestManifests.team).com.example.map",
                domain: AssociatedDomain(host: "maps.example.com"), outcome: .approved, checkedAt: Date(),
                expiresAt: .distantFuture))
        #expect(
            try browse("https://maps.example.com/place/paris") == .web(browserBundleIdentifier: "com.example.browser"))
        receiver.chooseOffer(from: origin.info.id)
        hood.settle()
        #expect(map.continued.first?.webpageURL?.absoluteString == "https://maps.example.com/place/paris")
        #expect(map.continued.first?.activityType == UserActivity.browsingWebType)
        #expect(browser.continued.isEmpty)
        #expect(receiver.lifecycle.contains { $0.kind == .webRouted && $0.summary.contains("web → native") })
        // As for a native activity: launched and asked willContinue before the fetch.
        let kinds = receiver.lifecycle.map(\.kind)
        let asked = try #require(kinds.firstIndex(of: .willContinue))
        #expect(kinds[..<asked].contains(.applicationLaunched))
        #expect(kinds[..<asked].contains(.webRouted))
        #expect(!kinds[..<asked].contains(.fetchStarted))
        #expect(map.log.entries.first == "com.example.map.willContinue(NSUserActivityTypeBrowsingWeb)")
    }

    /// Issue 26 §2.2: the app the page's host chose hears of a failed fetch (didFailToContinue),
    /// not the system alone.
    @Test func aFailedWebFetchReachesTheMap() throws {
        let map = RecordingAppDelegate()
        receiver.install(TestManifests.map, delegate: map)
        receiver.install(TestManifests.browser)
        receiver.siteAssociationChecked(
            SiteAssociationCheck(
                bundleIdentifier: "com.example.map", applicationIdentifier: "\(TestManifests.team).com.example.map",
                domain: AssociatedDomain(host: "maps.example.com"), outcome: .approved, checkedAt: Date(),
                expiresAt: .distantFuture))
        _ = try browse("https://maps.example.com/place/paris")
        origin.arm(.noAnswer)
        receiver.chooseOffer(from: origin.info.id)
        hood.settle()
        hood.advance(by: 5.5)
        #expect(map.failures.map(\.error.code) == [.remoteApplicationTimedOut])
        #expect(map.failures.first?.type == UserActivity.browsingWebType)
        #expect(receiver.systemAlerts.isEmpty, "the Map implements didFail: the system shows nothing")
        let failed = try #require(receiver.lifecycle.last { $0.kind == .continuationFailed })
        #expect(failed.bundleIdentifier == "com.example.map")
    }

    @Test func webStaysInTheBrowserWhenTheSiteDoesNotApprove() throws {
        let map = RecordingAppDelegate()
        let browser = RecordingAppDelegate()
        receiver.install(TestManifests.map, delegate: map)
        receiver.install(TestManifests.browser, delegate: browser)
        receiver.siteAssociationChecked(
            SiteAssociationCheck(
                bundleIdentifier: "com.example.map", applicationIdentifier: "\(TestManifests.team).com.example.map",
                domain: AssociatedDomain(host: "maps.example.com"),
                outcome: .notListed(approving: ["OTHERTEAM1.com.example.map"]),
                checkedAt: Date(), expiresAt: .distantFuture))
        _ = try browse("https://maps.example.com/place/paris")
        receiver.chooseOffer(from: origin.info.id)
        hood.settle()
        #expect(map.continued.isEmpty)
        #expect(browser.continued.first?.webpageURL?.absoluteString == "https://maps.example.com/place/paris")
        let routed = try #require(receiver.lifecycle.first { $0.kind == .webRouted })
        #expect(routed.summary.contains("not listed (the file approves OTHERTEAM1.com.example.map)"))
    }

    @Test func theNoSiteAssociationFaultSendsAnApprovedPageToTheBrowserOnce() throws {
        let map = RecordingAppDelegate()
        let browser = RecordingAppDelegate()
        receiver.install(TestManifests.map, delegate: map)
        receiver.install(TestManifests.browser, delegate: browser)
        receiver.siteAssociationChecked(
            SiteAssociationCheck(
                bundleIdentifier: "com.example.map", applicationIdentifier: "\(TestManifests.team).com.example.map",
                domain: AssociatedDomain(host: "maps.example.com"), outcome: .approved, checkedAt: Date(),
                expiresAt: .distantFuture))
        _ = try browse("https://maps.example.com/place/paris")
        receiver.arm(.noSiteAssociation)
        receiver.chooseOffer(from: origin.info.id)
        hood.settle()
        #expect(map.continued.isEmpty)
        #expect(browser.continued.first?.webpageURL?.absoluteString == "https://maps.example.com/place/paris")
        let routed = try #require(receiver.lifecycle.last { $0.kind == .webRouted })
        #expect(routed.summary.contains("404"))
        #expect(receiver.lifecycle.contains { $0.kind == .faultInjected })
        #expect(receiver.armedFaults.isEmpty, "used up")
        // The next continuation is approved again: the cache was never touched.
        receiver.chooseOffer(from: origin.info.id)
        hood.settle()
        #expect(map.continued.first?.webpageURL?.absoluteString == "https://maps.example.com/place/paris")
    }

    @Test func aWebActivityWithoutBrowserOrDomainAppsIsNotContinuable() throws {
        receiver.install(TestManifests.reader)
        #expect(try browse("https://example.org/") == .unavailable(.noAppClaimsType))
    }
}
