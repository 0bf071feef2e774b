import DeviceAppKit
import Foundation
import HandoffCore
import HandoffManifest
import Testing

@testable import BrowserApp

@Suite("Resources")
struct ResourceTests {
    /// The repository's root (this file is Tests/BrowserAppTests/ResourceTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theDemosFolderLinksToTheResources() throws {
        let resources = try browserResources()
        let plist = Self.root.appendingPathComponent("demos/apps/Browser/Info.plist")
        let sites = Self.root.appendingPathComponent("demos/sites")
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: plist.path)
                == "../../../Sources/BrowserApp/Resources/Info.plist")
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: sites.path)
                == "../Sources/BrowserApp/Resources/sites")
        #expect(try Data(contentsOf: plist) == Data(contentsOf: resources.infoPlist))
        #expect(SiteLibrary.hosts(in: sites) == SiteLibrary.hosts(in: resources.sites))
        // `handoff manifest lint` reads the app's settings from the file next to its Info.plist.
        let settings = try BuildSettingsFile(
            contentsOf: Self.root.appendingPathComponent("demos/apps/Browser/BuildSettings.xcconfig"))
        #expect(settings.settings == BrowserApp.buildSettings)
        #expect(try AppManifest(infoPlistAt: plist, buildSettings: settings.settings) == BrowserApp().manifest)
    }

    @Test func theManifestMatchesTheHeadlessDevicesBrowser() throws {
        let manifest = try BrowserApp().manifest
        #expect(manifest.applicationIdentifier == "SIMTEAM001.com.handoffsim.browser")
        #expect(manifest.activityTypes == [UserActivity.browsingWebType])
        #expect(manifest.displayName == "Browser")
    }

    @Test func errorsNameWhatIsMissing() {
        let error = BrowserError.resourcesNotFound(searched: ["/a", "/b"])
        #expect(
            error.description == "the Browser's resources (Info.plist, sites) were not found; searched:\n  /a\n  /b")
        #expect(BrowserError.notABrowser(file: "X.plist").description.contains("NSUserActivityTypeBrowsingWeb"))
    }

    @Test func everyShippedPageParsesAndEveryLinkIsUsable() throws {
        let sites = try shippedSites()
        var pending = sites.hosts.map { url("https://\($0)/") }
        var seen: Set<URL> = []
        while let next = pending.popLast() {
            guard seen.insert(next).inserted, seen.count < 200 else { continue }
            let page = sites.page(for: next)
            #expect(page.kind == .site, "\(next.absoluteString) is a page of its site")
            if next.path != "/site-format" {  // that page shows a placeholder on purpose
                #expect(!page.plainText.contains("{{"), "\(next.absoluteString) has no placeholder left")
            }
            for link in page.links {
                let target = try #require(link.url, "\(next.absoluteString): \(link.target)")
                if let host = target.host, sites.hosts.contains(host.lowercased()) { pending.append(target) }
            }
        }
        #expect(seen.count >= 12)
    }

    @Test func theKeyHintsFollowTheMode() throws {
        let browser = try BrowserApp()
        #expect(browser.keyHints.first == KeyHint("g", "type an address"))
        browser.addressBar = AddressBar(editing: "x")
        #expect(browser.keyHints.first?.keys == "Enter")
    }
}
