import Foundation
import HandoffTestSupport
import TerminalCells
import Testing

@testable import BrowserApp

@Suite("History")
struct HistoryTests {
    @Test func backAndForward() {
        var history = BrowsingHistory()
        #expect(history.current == nil)
        #expect(history.goBack() == nil)
        let a = url("https://a.example/")
        let b = url("https://b.example/")
        let c = url("https://c.example/")
        history.visit(a)
        history.visit(b)
        history.visit(b)
        history.visit(c)
        #expect(history.entries == [a, b, c])
        #expect(!history.canGoForward)
        #expect(history.goBack() == b)
        #expect(history.goBack() == a)
        #expect(history.goBack() == nil)
        #expect(history.current == a)
        #expect(history.goForward() == b)
        let d = url("https://d.example/")
        history.visit(d)
        #expect(history.entries == [a, b, d], "visiting drops the pages ahead")
        #expect(history.goForward() == nil)
    }

    @Test func theOldestPagesGo() {
        var history = BrowsingHistory()
        for index in 0..<(BrowsingHistory.capacity + 5) { history.visit(url("https://site.example/\(index)")) }
        #expect(history.entries.count == BrowsingHistory.capacity)
        #expect(history.entries.first == url("https://site.example/5"))
        #expect(history.index == BrowsingHistory.capacity - 1)
    }
}

@Suite("Keys")
struct KeyTests {
    @Test func theHomePageFirstAndLinksAreFollowed() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood)
        let browser = phone.browser
        _ = phone.render(width: 80, height: 30)
        #expect(browser.page?.url == BrowserApp.homeURL)
        #expect(browser.selectedLink == 0, "the first link on screen is chosen")
        phone.press(.down)
        #expect(browser.selectedLink == 1)
        phone.press(.up, .up)
        #expect(browser.selectedLink == 0)
        phone.press(.enter)
        #expect(browser.page?.url.absoluteString == "https://handoffsim.example/web-fallback")
        #expect(browser.page?.title == "From an app to the web")
        phone.press(.left)
        #expect(browser.page?.url == BrowserApp.homeURL)
        phone.press(.character("f"))
        #expect(browser.page?.url.absoluteString == "https://handoffsim.example/web-fallback")
        phone.press(.right)
        #expect(browser.message == BrowserMessage(.info, "This is the last page: there is nothing to go forward to."))
        phone.press(.character("b"), .backspace)
        #expect(browser.message == BrowserMessage(.info, "This is the first page: there is nothing to go back to."))
    }

    @Test func downScrollsWhenNoLinkIsOnScreen() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood)
        phone.go(to: "reader.handoffsim.example/handoff-guide?page=2")
        _ = phone.render(width: 40, height: 12)
        #expect(phone.browser.selectedLink == nil, "the links are below the screen")
        phone.press(.down)
        #expect(phone.browser.scrollOffset == 1)
        phone.press(.end)
        #expect(phone.browser.selectedLink != nil, "at the end, the links are on screen")
        phone.press(.home)
        #expect(phone.browser.scrollOffset == 0)
        #expect(phone.browser.selectedLink == nil)
        phone.press(.character(" "))
        #expect(phone.browser.scrollOffset == 8, "Space scrolls a screen less a row (9 rows of page)")
        phone.press(.pageUp)
        #expect(phone.browser.scrollOffset == 0)
        phone.press(.up)
        #expect(phone.browser.scrollOffset == 0)
    }

    @Test func typingAnAddress() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood)
        let browser = phone.browser
        phone.press(.character("g"))
        let bar = try #require(browser.addressBar)
        #expect(bar.string == "https://handoffsim.example/")
        #expect(bar.isAllSelected)
        phone.type("maps.handoffsim.example/?lat=1&lon=2&z=3")
        #expect(
            browser.addressBar?.string == "maps.handoffsim.example/?lat=1&lon=2&z=3", "typing replaced the selection")
        phone.press(.backspace, .character("4"), .home, .delete, .character("M"))
        #expect(browser.addressBar?.string == "Maps.handoffsim.example/?lat=1&lon=2&z=4")
        phone.press(.enter)
        #expect(browser.addressBar == nil)
        #expect(browser.page?.url.absoluteString == "https://Maps.handoffsim.example/?lat=1&lon=2&z=4")
        #expect(browser.page?.blocks.first == .paragraph("Map of 1°N 2°E at zoom 4"))
        #expect(browser.history.entries.count == 2)
    }

    @Test func escapeStopsEditingAndTheDeviceKeepsItsKeys() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood)
        let browser = phone.browser
        phone.press(.character("e"))
        phone.type("somewhere")
        phone.press(.escape)
        #expect(browser.addressBar == nil)
        #expect(browser.page?.url == BrowserApp.homeURL)
        #expect(!browser.handle(.escape), "Esc on the page is the device's (home)")
        #expect(!browser.handle(.character("h")))
        #expect(!browser.handle(.function(5)))
    }

    @Test func textThatIsNotAnAddressKeepsTheBarOpenAndSaysWhy() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood)
        phone.press(.character("g"))
        phone.type("how does handoff work")
        phone.press(.enter)
        #expect(phone.browser.addressBar?.string == "how does handoff work")
        #expect(phone.browser.message?.kind == .error)
        #expect(
            phone.browser.message?.text.contains("is not a web address, and the simulator has no search engine") == true
        )
        phone.press(.control("u"), .enter)
        #expect(phone.browser.message?.text.hasPrefix("Type an address") == true)
    }

    @Test func addressesFromTypedText() {
        #expect(AddressBar.url(from: "  handoffsim.example ")?.absoluteString == "https://handoffsim.example")
        #expect(
            AddressBar.url(from: "http://maps.handoffsim.example/?z=1")?.absoluteString
                == "http://maps.handoffsim.example/?z=1")
        #expect(AddressBar.url(from: "mailto:a@b.example")?.scheme == "mailto")
        #expect(AddressBar.url(from: "reader.handoffsim.example/café")?.host == "reader.handoffsim.example")
        #expect(AddressBar.url(from: "two words") == nil)
        #expect(AddressBar.url(from: "") == nil)
        #expect(AddressBar.url(from: "https://") == nil)
    }

    @Test func aRefusedSchemeTypedShowsWhy() throws {
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood)
        phone.go(to: "javascript:alert(1)")
        #expect(phone.browser.page?.kind == .refused)
        #expect(phone.browser.page?.plainText.contains("“javascript:” addresses are not web pages") == true)
    }

    @Test func reloadReadsTheFileAgain() throws {
        let folder = TemporaryFolder()
        try folder.write("# Home", to: "sites/site.example/index.page")
        let resources = try browserResources()
        let browser = try BrowserApp(
            resources: BrowserResources(
                infoPlist: resources.infoPlist,
                sites: folder.url.appendingPathComponent("sites"), readerDocuments: nil))
        let hood = Neighbourhood()
        let phone = try BrowserDevice("Phone", in: hood, browser: browser)
        phone.go(to: "site.example")
        #expect(browser.page?.title == "Home")
        try folder.write("# Home, edited", to: "sites/site.example/index.page")
        phone.press(.character("r"))
        #expect(browser.page?.title == "Home, edited")
        #expect(browser.history.entries.count == 2, "a reload is not a visit")
    }
}
