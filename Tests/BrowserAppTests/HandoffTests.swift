import DeviceAppKit
import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

@testable import BrowserApp

/// The demo apps' manifests as the headless device and the real apps declare them.
enum DemoManifests {
    static let team = "SIMTEAM001"
    static let map = AppManifest(
        bundleIdentifier: "com.handoffsim.map", teamIdentifier: team, displayName: "Map",
        activityTypes: ["com.handoffsim.map.region"],
        associatedDomains: ["activitycontinuation:maps.handoffsim.example"])
}

@Suite("The Browser's activity and continuation")
struct HandoffTests {
    @Test func theManifestClaimsWebPages() throws {
        let browser = try BrowserApp()
        #expect(browser.manifest.bundleIdentifier == "com.handoffsim.browser")
        #expect(browser.manifest.teamIdentifier == "SIMTEAM001")
        #expect(browser.manifest.isBrowser)
        #expect(browser.glyph == "⊕")
    }

    @Test func aManifestThatIsNotABrowserIsRefused() throws {
        let manifest = AppManifest(
            bundleIdentifier: "com.example.x", teamIdentifier: "SIMTEAM001", displayName: "X",
            activityTypes: ["com.example.x.thing"])
        #expect(throws: BrowserError.notABrowser(file: "X.plist")) {
            try BrowserApp(
                manifest: manifest, sites: SiteLibrary(folder: nil, readerDocuments: nil), manifestFile: "X.plist")
        }
        let missing = BrowserResources(folder: URL(fileURLWithPath: "/nonexistent"), readerDocuments: nil)
        #expect {
            try BrowserApp(resources: missing)
        } throws: { error in
            guard let error = error as? BrowserError, case .manifest = error else { return false }
            return error.description.contains("Info.plist")
        }
    }

    @Test func thePageIsTheCurrentActivity() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood)
        let activity = try #require(phone.browser.userActivity)
        #expect(activity.activityType == UserActivity.browsingWebType)
        #expect(activity.webpageURL == BrowserApp.homeURL)
        #expect(activity.title == "Handoff on the web")
        #expect(phone.device.currentActivity === activity)
        phone.go(to: "maps.handoffsim.example/?lat=48.8566&lon=2.3522&z=4")
        #expect(phone.browser.userActivity === activity, "one activity follows the pages")
        #expect(activity.webpageURL?.absoluteString == "https://maps.handoffsim.example/?lat=48.8566&lon=2.3522&z=4")
        #expect(activity.title == "The Map, on the web")
        #expect(activity.needsSave)
        let payload = try ActivityPayload(decoding: activity.makePayload().encoded())
        #expect(payload.activityType == UserActivity.browsingWebType)
        #expect(payload.webpageURL == activity.webpageURL)
        #expect(payload.teamIdentifier == "SIMTEAM001")
        #expect(payload.bundleIdentifier == "com.handoffsim.browser")
    }

    @Test func inTheBackgroundNothingBecomesCurrentUntilItComesToTheFront() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood, frontmost: false)
        #expect(phone.device.currentActivity == nil)
        phone.bringToFront()
        #expect(phone.device.currentActivity?.webpageURL == BrowserApp.homeURL)
    }

    @Test func aRefusedAddressIsNotAdvertised() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood)
        phone.go(to: "mailto:someone@example.org")
        #expect(phone.device.currentActivity == nil)
        phone.press(.left)
        #expect(phone.device.currentActivity?.webpageURL == BrowserApp.homeURL)
    }

    @Test func openAcceptsWebAddressesOnly() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood)
        #expect(phone.browser.open(url("https://reader.handoffsim.example/night-markets?page=2")))
        #expect(phone.browser.page?.title == "Night Markets of the Old Port" || phone.browser.page?.kind == .site)
        #expect(
            phone.browser.history.current?.absoluteString == "https://reader.handoffsim.example/night-markets?page=2")
        #expect(phone.browser.open(url("HTTP://www.example.org/")))
        #expect(phone.browser.page?.kind == .noNetwork)
        #expect(!phone.browser.open(url("mailto:a@b.example")))
        #expect(!phone.browser.open(url("file:///etc/hosts")))
        #expect(phone.browser.page?.kind == .noNetwork, "a refused URL changes nothing")
    }

    /// A device with the Map (a stand-in that writes the Map's web page) and a device with the
    /// Browser alone: continuing the map opens its page in the Browser (native → web).
    @Test func aMapContinuedWithoutTheMapOpensItsPage() throws {
        let hood = Neighbourhood()
        let laptop = hood.addDevice("Laptop", kind: .laptop)
        let map = laptop.install(DemoManifests.map)
        laptop.bringToFront(map)
        let region = try UserActivity(activityType: "com.handoffsim.map.region", application: map)
        region.title = "Paris"
        region.addUserInfoEntries(from: ["latitude": .double(48.8566), "longitude": .double(2.3522)])
        try region.setWebpageURL(url("https://maps.handoffsim.example/?lat=48.8566&lon=2.3522&z=4"))
        region.becomeCurrent()
        let phone = try BrowserDevice("Phone", in: hood)
        hood.advance(by: 1.5)  // the next beacon reaches the new device
        let offer = try #require(phone.device.system.offers[laptop.info.id])
        #expect(offer.route == .browser(bundleIdentifier: "com.handoffsim.browser", because: .noAppClaimsType))
        phone.device.chooseOffer(from: laptop.info.id)
        hood.settle()
        let browser = phone.browser
        #expect(!browser.isContinuing)
        #expect(browser.page?.url.absoluteString == "https://maps.handoffsim.example/?lat=48.8566&lon=2.3522&z=4")
        #expect(browser.page?.blocks.first == .paragraph("Map of 48.86°N 2.35°E at zoom 4"))
        #expect(browser.message == BrowserMessage(.info, "Continued “Paris” from another device."))
        #expect(browser.history.entries.last == browser.page?.url)
        #expect(phone.device.lifecycle.contains { $0.kind == .continued })
        #expect(phone.device.currentActivity?.webpageURL == browser.page?.url, "the Browser now offers the page itself")
    }

    @Test func aReaderDocumentContinuedWithoutTheReaderOpensItsPage() throws {
        let hood = Neighbourhood()
        let laptop = hood.addDevice("Laptop", kind: .laptop)
        let reader = laptop.install(
            AppManifest(
                bundleIdentifier: "com.handoffsim.reader", teamIdentifier: "SIMTEAM001",
                displayName: "Reader", activityTypes: ["com.handoffsim.reader.reading"]))
        laptop.bringToFront(reader)
        let reading = try UserActivity(activityType: "com.handoffsim.reader.reading", application: reader)
        try reading.setWebpageURL(url("https://reader.handoffsim.example/harrow-point?page=2"))
        reading.becomeCurrent()
        let phone = try BrowserDevice("Phone", in: hood)
        hood.advance(by: 1.5)
        phone.device.chooseOffer(from: laptop.info.id)
        hood.settle()
        let page = try #require(phone.browser.page)
        #expect(page.title == "The Clock at Harrow Point")
        #expect(page.blocks.first == .quote("Page 2 of 6 · the web version of the Reader"))
    }

    @Test func aPageContinuesInTheOtherDevicesBrowser() throws {
        let hood = Neighbourhood()
        let laptop = try BrowserDevice("Laptop", kind: .laptop, in: hood)
        let phone = try BrowserDevice("Phone", in: hood)
        laptop.go(to: "handoffsim.example/associated-domains")
        hood.advance(by: 1.5)
        #expect(
            phone.device.system.offers[laptop.device.info.id]?.route
                == .web(browserBundleIdentifier: "com.handoffsim.browser"))
        phone.device.chooseOffer(from: laptop.device.info.id)
        hood.settle()
        #expect(phone.browser.page?.url.absoluteString == "https://handoffsim.example/associated-domains")
        #expect(phone.browser.page?.title == "From the web to an app")
        let routed = try #require(phone.device.lifecycle.first { $0.kind == .webRouted })
        #expect(routed.summary == "opened in the browser: no app names handoffsim.example in its associated domains")
    }

    /// Web → native needs the site's approval: without it the page stays in the Browser and the
    /// lifecycle log says why; with the shipped association file, the Map continues it.
    @Test(arguments: [false, true])
    func webToNativeNeedsTheSitesApproval(approved: Bool) throws {
        let hood = Neighbourhood()
        let laptop = try BrowserDevice("Laptop", kind: .laptop, in: hood)
        let phone = try BrowserDevice("Phone", in: hood, frontmost: false)
        let map = RecordingAppDelegate()
        phone.device.install(DemoManifests.map, delegate: map)
        if approved {
            let file = try browserResources().sites.appendingPathComponent(
                "maps.handoffsim.example/\(SiteAssociationFile.fileName)")
            let association = try SiteAssociationFile(host: "maps.handoffsim.example", data: Data(contentsOf: file))
            let appID = DemoManifests.map.applicationIdentifier
            phone.device.siteAssociationChecked(
                SiteAssociationCheck(
                    bundleIdentifier: DemoManifests.map.bundleIdentifier, applicationIdentifier: appID,
                    domain: AssociatedDomain(host: "maps.handoffsim.example"),
                    outcome: association.approvedApplicationIdentifiers.contains(appID)
                        ? .approved : .notListed(approving: []),
                    checkedAt: Date(), expiresAt: .distantFuture))
        }
        laptop.go(to: "maps.handoffsim.example/?lat=51.5&lon=-0.12&z=5")
        hood.advance(by: 1.5)
        phone.device.chooseOffer(from: laptop.device.info.id)
        hood.settle()
        let routed = try #require(phone.device.lifecycle.first { $0.kind == .webRouted })
        if approved {
            #expect(
                routed.summary
                    == "maps.handoffsim.example → SIMTEAM001.com.handoffsim.map: maps.handoffsim.example's association file approves it (web → native)"
            )
            #expect(
                map.continued.first?.webpageURL?.absoluteString
                    == "https://maps.handoffsim.example/?lat=51.5&lon=-0.12&z=5")
            #expect(phone.browser.page?.url == BrowserApp.homeURL, "the Browser was not involved")
        } else {
            #expect(
                routed.summary == "opened in the browser: com.handoffsim.map (maps.handoffsim.example): "
                    + "the association file was not fetched yet")
            #expect(map.continued.isEmpty)
            #expect(phone.browser.page?.blocks.first == .paragraph("Map of 51.5°N 0.12°W at zoom 5"))
        }
    }

    @Test func anActivityWithoutAWebPageIsRefused() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood)
        let activity = try UserActivity(activityType: UserActivity.browsingWebType, application: phone.application)
        let handled = phone.browser.application(phone.application, continue: activity, restorationHandler: { _ in })
        #expect(!handled)
        #expect(phone.browser.message?.kind == .error)
        #expect(phone.browser.page?.url == BrowserApp.homeURL, "nothing changed")
    }

    @Test func aFailedContinuationSaysSoAndKeepsThePage() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood)
        #expect(
            phone.browser.application(phone.application, willContinueUserActivityWithType: UserActivity.browsingWebType)
        )
        #expect(phone.browser.isContinuing)
        phone.browser.application(
            phone.application, didFailToContinueUserActivityWithType: UserActivity.browsingWebType,
            error: HandoffError(.remoteApplicationTimedOut, "no payload"))
        #expect(!phone.browser.isContinuing)
        #expect(phone.browser.message?.text.hasPrefix("Could not continue:") == true)
        #expect(phone.browser.message?.text.contains("(4610)") == true)
        #expect(phone.browser.page?.url == BrowserApp.homeURL)
        // The next continuation's progress box never stands over the last one's failure: the
        // message goes when the user chooses an offer, before willContinue (which a launch or
        // step mode holds back).
        phone.browser.continuationChosen()
        #expect(phone.browser.message == nil)
    }
}

@Suite("The Browser before it is opened")
struct BrowserLaunchTests {
    @Test func launchingRecordsNothingUntilTheUserOpensTheBrowser() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood, frontmost: false)
        hood.advance(by: 5)
        #expect(phone.device.lifecycle.isEmpty, "\(phone.device.lifecycle.map(\.logLine))")
        phone.bringToFront()
        hood.settle()
        #expect(phone.device.lifecycle.first?.kind == .activityCreated)
    }
}
