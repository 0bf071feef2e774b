import DeviceAppKit
import Foundation
import HandoffCore
import HandoffManifest
import TerminalCells

/// The Browser: shows the simulator's web sites, and continues web pages (Handoff's web fallback).
///
/// Its Info.plist claims `NSUserActivityTypeBrowsingWeb`, so a device routes to it the web pages
/// of other devices' Browsers, and any activity with a `webpageURL` that no app here can continue
/// natively (native → web: a Map or Reader activity on a device without the Map or the Reader).
/// Continuing opens the activity's `webpageURL`; ``open(_:)`` opens http and https addresses
/// for other apps (`AppEnvironment.openURL`).
///
/// Pages come over HTTP(S) from the local web (``pageLoader``: `handoff web serve` serves
/// `demos/sites/HOST/` on loopback, in the page format of ``PageParser``), with clear pages when
/// a site is unreachable, does not answer or redirects in a loop; without a loader they are read
/// from the sites it ships (``SiteLibrary``), where any other address shows a "no network in the
/// simulator" page. Addresses that are not http or https are refused with a page that says so. The
/// page shown is its own user activity: a browsing-web activity whose `webpageURL` is the page's
/// address, current while the Browser is in front, saved again on every navigation. Another
/// device continues it in its Browser, or in a native app when the site approves that app
/// (its association file, fetched by the device when the app is installed or launched; until
/// then, or when the fetch fails, its routing says why not).
///
/// Create it with ``init()`` (it loads its manifest and sites from its resources), then let the
/// device install it (`manifest`, `delegate`) and call ``launch(application:environment:)``. Like
/// every app, it is used on its device's run loop only.
package final class BrowserApp: TerminalApp, ApplicationDelegate {
    /// The build settings the Browser's Info.plist is expanded with.
    package static let buildSettings = [
        "PRODUCT_BUNDLE_IDENTIFIER": "com.handoffsim.browser", "DEVELOPMENT_TEAM": "SIMTEAM001",
    ]
    /// The page shown first.
    package static let homeURL = URL(string: "https://handoffsim.example/")!

    package let manifest: AppManifest
    package let glyph: Character = "⊕"
    /// The sites served.
    package let sites: SiteLibrary
    /// Where pages come from over the network; nil reads ``sites`` from disk.
    package var pageLoader: PageLoader?
    /// The address being loaded over the network, until its answer arrives.
    package private(set) var loading: URL?
    /// Counts loads, so that only the answer of the latest is shown.
    private var loadSerial = 0

    /// The page shown (nil before launch).
    package private(set) var page: WebPage?
    /// Back and forward.
    package private(set) var history = BrowsingHistory()
    /// The chosen link (an index in `page.links`), when one is on screen.
    package internal(set) var selectedLink: Int?
    /// The first row of the page on screen.
    package internal(set) var scrollOffset = 0
    /// The address being typed, while the address bar is being edited.
    package internal(set) var addressBar: AddressBar?
    /// What the Browser tells the user, until the next key.
    package internal(set) var message: BrowserMessage?
    /// True between `willContinue` and the end of the continuation (it shows it is loading).
    package private(set) var isContinuing = false
    /// The browsing-web activity of the page shown (created when a web page is first shown).
    package private(set) var userActivity: UserActivity?

    private(set) var application: Application?
    private(set) var environment: AppEnvironment?
    /// The size of the app's area, as told by the device (``viewportChanged(to:)``).
    private(set) var areaSize = Size(width: 76, height: 23)
    /// The size of the page's area, in the app's area with what the status line holds now; keys
    /// scroll and choose links by it.
    var viewport: Size { frame(in: Rect(origin: .zero, size: areaSize)).page.size }

    /// Loads the Browser's manifest and sites from its resources (see ``BrowserResources/locate()``).
    ///
    /// - Throws: ``BrowserError`` naming what is missing or wrong.
    package convenience init() throws(BrowserError) {
        try self.init(resources: BrowserResources.locate())
    }

    /// Loads the Browser's manifest from `resources.infoPlist`, expanding `buildSettings`, and
    /// serves `resources.sites`.
    ///
    /// - Throws: ``BrowserError/manifest(_:)`` when the Info.plist cannot be read or has errors,
    ///   ``BrowserError/notABrowser(file:)`` when it does not claim the browsing-web type.
    package convenience init(
        resources: BrowserResources, buildSettings: [String: String] = BrowserApp.buildSettings
    ) throws(BrowserError) {
        let manifest: AppManifest
        do {
            manifest = try AppManifest(infoPlistAt: resources.infoPlist, buildSettings: buildSettings)
        } catch {
            throw .manifest(error)
        }
        try self.init(
            manifest: manifest, sites: SiteLibrary(folder: resources.sites, readerDocuments: resources.readerDocuments),
            manifestFile: resources.infoPlist.path)
    }

    /// A Browser with a manifest read elsewhere.
    ///
    /// - Throws: ``BrowserError/notABrowser(file:)`` when the manifest does not claim the
    ///   browsing-web activity type.
    package init(manifest: AppManifest, sites: SiteLibrary, manifestFile: String = "Info.plist") throws(BrowserError) {
        guard manifest.isBrowser else { throw .notABrowser(file: manifestFile) }
        self.manifest = manifest
        self.sites = sites
    }

    // MARK: TerminalApp

    package var title: String { page?.title ?? "Browser" }

    package var keyHints: [KeyHint] {
        if addressBar != nil {
            return [
                KeyHint("Enter", "go to the address"), KeyHint("Esc", "stop editing"), KeyHint("← →", "move"),
                KeyHint("Ctrl-U", "clear"),
            ]
        }
        return [
            KeyHint("g", "type an address"),
            KeyHint("↑ ↓", "choose a link, scroll"),
            KeyHint("Enter", "follow the link"),
            KeyHint("← b", "back"),
            KeyHint("→ f", "forward"),
            KeyHint("Space/PgDn PgUp", "scroll a page"),
            KeyHint("r", "reload"),
        ]
    }

    /// Shows the home page (it becomes the current activity when the Browser comes to the front).
    package func launch(application: Application, environment: AppEnvironment) {
        self.application = application
        self.environment = environment
        if page == nil { navigate(to: Self.homeURL) }
    }

    package func setFrontmost(_ frontmost: Bool) {
        guard frontmost else { return }
        pageChanged()
    }

    /// A new continuation was chosen: an error shown for the last one ("Could not continue …")
    /// goes, so it never stands under the new continuation's progress box.
    package func continuationChosen() {
        guard message?.kind == .error else { return }
        message = nil
        environment?.setNeedsDisplay()
    }

    /// The page keeps its first row on screen unless the end of the page would leave rows empty.
    package func viewportChanged(to size: Size) {
        areaSize = size
        scrollOffset = min(scrollOffset, layout().lastTop(height: viewport.height))
    }

    /// Opens `url` when it is an http or https address (the device brings the Browser to the
    /// front); returns false for any other scheme, which is not the Browser's.
    package func open(_ url: URL) -> Bool {
        guard Self.isWebAddress(url) else { return false }
        addressBar = nil
        message = nil
        navigate(to: url)
        return true
    }

    // MARK: Navigation

    /// Shows the page at `url` and records the visit (unless `recordsVisit` is false: back,
    /// forward). The page's activity follows.
    package func navigate(to url: URL, recordsVisit: Bool = true) {
        guard let pageLoader, Self.isWebAddress(url) else {
            show(sites.page(for: url), recordsVisit: recordsVisit)
            return
        }
        loadSerial += 1
        let serial = loadSerial
        loading = url
        message = BrowserMessage(.info, "Loading \(url.host ?? url.absoluteString)…")
        environment?.setNeedsDisplay()
        let browser = Confined(weak: self)
        let perform = environment?.perform
        pageLoader.load(url) { result in
            // The page is parsed here, on the thread the answer came on: the device's queue (the
            // run loop every app and the screen share) only shows it.
            let page = Self.page(for: result)
            let deliver: @Sendable () -> Void = {
                browser.value.object?.finishLoading(serial, page: page, recordsVisit: recordsVisit)
            }
            if let perform { perform(deliver) } else { deliver() }
        }
    }

    /// The page a load gave: the response parsed, or the page saying why there was none.
    static func page(for result: PageLoadResult) -> WebPage {
        switch result {
        case .response(let final, let status, let contentType, let body):
            WebPage.fromResponse(url: final, status: status, contentType: contentType, body: body)
        case .failed(let address, let failure):
            ErrorPages.loadFailed(address, failure)
        }
    }

    /// The page of a load: shown when it is the latest one asked for.
    func finishLoading(_ serial: Int, page: WebPage, recordsVisit: Bool) {
        guard serial == loadSerial else { return }
        loading = nil
        if message?.text.hasPrefix("Loading ") == true { message = nil }
        show(page, recordsVisit: recordsVisit)
    }

    /// Shows `page` and records the visit; the page's activity follows.
    private func show(_ page: WebPage, recordsVisit: Bool) {
        let url = page.url
        self.page = page
        if recordsVisit { history.visit(url) }
        scrollOffset = 0
        selectedLink = nil
        selectFirstVisibleLink()
        environment?.log("Browser: \(url.absoluteString) → \(page.kind.rawValue) “\(page.title)”")
        pageChanged()
        environment?.setNeedsDisplay()
    }

    /// Goes back a page; says so when there is none.
    package func goBack() {
        guard let url = history.goBack() else {
            message = BrowserMessage(.info, "This is the first page: there is nothing to go back to.")
            return
        }
        message = nil
        navigate(to: url, recordsVisit: false)
    }

    /// Goes forward a page; says so when there is none.
    package func goForward() {
        guard let url = history.goForward() else {
            message = BrowserMessage(.info, "This is the last page: there is nothing to go forward to.")
            return
        }
        message = nil
        navigate(to: url, recordsVisit: false)
    }

    /// Reads the page again (a site file changed on disk shows at once).
    package func reload() {
        guard let url = page?.url else { return }
        let top = scrollOffset
        navigate(to: url, recordsVisit: false)
        scrollOffset = min(top, layout().lastTop(height: viewport.height))
    }

    /// Whether `url` is http or https (Handoff's web pages, and what the Browser opens for others).
    package static func isWebAddress(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return (scheme == "http" || scheme == "https") && !(url.host ?? "").isEmpty
    }

    /// The page's activity follows the page: a web page sets its address and title and needs
    /// saving, and becomes current when the Browser is in front; a refused address is not a web
    /// page, so nothing is advertised for it.
    func pageChanged() {
        guard let application, let page else { return }
        guard Self.isWebAddress(page.url) else {
            userActivity?.resignCurrent()
            return
        }
        if userActivity == nil {
            // The page's activity is made once the user has the Browser in front.
            guard application.isFrontmost else { return }
            do {
                userActivity = try UserActivity(activityType: UserActivity.browsingWebType, application: application)
            } catch {
                environment?.log("Browser: could not create the page's activity: \(error)")
                return
            }
        }
        guard let activity = userActivity else { return }
        activity.title = page.title
        do {
            try activity.setWebpageURL(page.url)
        } catch {
            environment?.log("Browser: could not set the activity's page \(page.url.absoluteString): \(error)")
        }
        activity.needsSave = true
        if application.isFrontmost { activity.becomeCurrent() }
    }

    // MARK: Continuation

    package func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool
    {
        isContinuing = true
        message = nil
        environment?.setNeedsDisplay()
        return true
    }

    /// Opens the continued activity's `webpageURL` (a page of another device's Browser, or the web
    /// version of an app this device does not have). An activity without a web page, or with one
    /// that is not http or https, is refused (false) and the Browser says why.
    package func application(
        _ application: Application, continue userActivity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool {
        isContinuing = false
        addressBar = nil
        defer { environment?.setNeedsDisplay() }
        guard let url = userActivity.webpageURL else {
            message = BrowserMessage(
                .error, "The activity from another device has no web page to open. Nothing changed here.")
            environment?.log("Browser: \(userActivity.activityType) has no webpageURL")
            return false
        }
        guard Self.isWebAddress(url) else {
            message = BrowserMessage(
                .error,
                "The activity's page \(url.absoluteString) is not an http or https address. Nothing changed here.")
            return false
        }
        navigate(to: url)
        let name = userActivity.title.map { "“\($0)”" } ?? "the page"
        message = BrowserMessage(.info, "Continued \(name) from another device.")
        return true
    }

    package func application(
        _ application: Application, didFailToContinueUserActivityWithType activityType: String,
        error: HandoffError
    ) {
        isContinuing = false
        message = .continuationFailed(error)
        environment?.log("Browser: continuation of \(activityType) failed: \(error)")
        environment?.setNeedsDisplay()
    }

    // MARK: Layout

    /// The page laid out for the viewport's width, or for `width`.
    func layout(width: Int? = nil) -> PageLayout {
        PageLayout(page ?? WebPage(url: Self.homeURL, title: "", blocks: []), width: width ?? viewport.width)
    }

    /// Chooses the first link on screen, if any (keeps a chosen link that is on screen).
    func selectFirstVisibleLink() {
        let layout = layout()
        let visible = scrollOffset..<(scrollOffset + max(1, viewport.height))
        if let selectedLink, let rows = layout.rows(ofLink: selectedLink), rows.overlaps(visible) { return }
        selectedLink =
            layout.rows[min(visible.lowerBound, layout.rows.count)..<min(visible.upperBound, layout.rows.count)]
            .first { $0.link != nil }?.link
    }
}

/// A line the Browser shows the user.
package typealias BrowserMessage = AppMessage
