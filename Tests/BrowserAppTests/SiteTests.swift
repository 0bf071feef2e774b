import Foundation
import HandoffCore
import Testing

@testable import BrowserApp

@Suite("Sites")
struct SiteTests {
    @Test func theShippedHosts() throws {
        let sites = try shippedSites()
        #expect(sites.hosts == ["handoffsim.example", "maps.handoffsim.example", "reader.handoffsim.example"])
        #expect(sites.readerDocuments != nil, "the Reader's sample documents are found")
    }

    @Test func pathsMapToFiles() throws {
        let folder = TemporaryFolder()
        try folder.write("# Home", to: "site.example/index.page")
        try folder.write("# About", to: "site.example/about.page")
        try folder.write("# Guide", to: "site.example/guide/index.page")
        try folder.write("# Step", to: "site.example/guide/step.page")
        let sites = SiteLibrary(folder: folder.url, readerDocuments: nil)
        #expect(sites.page(for: url("https://site.example")).title == "Home")
        #expect(sites.page(for: url("https://site.example/")).title == "Home")
        #expect(sites.page(for: url("http://SITE.example/?x=1#top")).title == "Home")
        #expect(sites.page(for: url("https://site.example/about")).title == "About")
        #expect(sites.page(for: url("https://site.example/guide")).title == "Guide")
        #expect(sites.page(for: url("https://site.example/guide/")).title == "Guide")
        #expect(sites.page(for: url("https://site.example/guide/step?n=2")).title == "Step")
        let missing = sites.page(for: url("https://site.example/nowhere"))
        #expect(missing.kind == .notFound)
        #expect(missing.plainText.contains("site.example/nowhere.page or site.example/nowhere/index.page"))
        #expect(missing.plainText.contains("https://site.example/nowhere"))
    }

    @Test func anUnknownHostHasNoNetworkButShowsTheWholeAddress() throws {
        let sites = try shippedSites()
        let address = "https://www.example.org/a/long/path?with=query&and=more#fragment"
        let page = sites.page(for: url(address))
        #expect(page.kind == .noNetwork)
        #expect(page.title == "No network in the simulator")
        #expect(page.plainText.contains(address))
        #expect(page.links.map(\.label) == sites.hosts)
    }

    @Test(arguments: [
        "mailto:someone@example.org", "javascript:alert(1)", "file:///etc/passwd", "ftp://files.example/x",
    ])
    func otherSchemesAreRefused(address: String) throws {
        let page = try shippedSites().page(for: url(address))
        #expect(page.kind == .refused)
        #expect(page.title == "Cannot open this address")
        #expect(page.plainText.contains("http and https addresses only"))
        #expect(page.plainText.contains(address))
    }

    @Test func pathsCannotLeaveTheSite() throws {
        let folder = TemporaryFolder()
        try folder.write("# Home", to: "site.example/index.page")
        try folder.write("# Secret", to: "secret.page")
        try folder.write("# Hidden", to: "site.example/.hidden.page")
        try FileManager.default.createSymbolicLink(
            atPath: folder.url.appendingPathComponent("site.example/link.page").path,
            withDestinationPath: "../secret.page")
        let sites = SiteLibrary(folder: folder.url, readerDocuments: nil)
        for address in [
            "https://site.example/../secret", "https://site.example/%2e%2e/secret", "https://site.example/.hidden",
            "https://site.example/link",
        ] {
            let page = sites.page(for: url(address))
            #expect(page.kind == .refused, "\(address)")
            #expect(page.title == "Address refused", "\(address)")
            #expect(!page.plainText.contains("Secret"))
        }
    }

    @Test func unusableFilesGetAPageSayingWhy() throws {
        let folder = TemporaryFolder()
        try folder.write(Data([0xFF, 0xFE, 0x00, 0xC3]), to: "site.example/binary.page")
        try folder.write(Data(repeating: 0x41, count: PageParser.maximumBytes + 10), to: "site.example/huge.page")
        let sites = SiteLibrary(folder: folder.url, readerDocuments: nil)
        let binary = sites.page(for: url("https://site.example/binary"))
        #expect(binary.kind == .error)
        #expect(binary.plainText.contains("site.example/binary.page cannot be shown: the page file is not UTF-8 text"))
        let huge = sites.page(for: url("https://site.example/huge"))
        #expect(huge.kind == .error)
        #expect(huge.plainText.contains("over the \(PageParser.maximumBytes)-byte limit"))
    }

    @Test func noSitesFolderMeansNoNetworkAnywhere() {
        let sites = SiteLibrary(folder: URL(fileURLWithPath: "/nonexistent/sites"), readerDocuments: nil)
        #expect(sites.hosts.isEmpty)
        let page = sites.page(for: url("https://handoffsim.example/"))
        #expect(page.kind == .noNetwork)
        #expect(page.plainText.contains("No sites are installed."))
    }

    // MARK: The Map's site

    @Test func theMapPageShowsTheViewOfItsQuery() throws {
        let page = try shippedSites().page(for: url("https://maps.handoffsim.example/?lat=48.8566&lon=2.3522&z=4"))
        #expect(page.kind == .site)
        #expect(page.title == "The Map, on the web")
        #expect(page.blocks.first == .paragraph("Map of 48.86°N 2.35°E at zoom 4"))
        #expect(page.plainText.contains("web version of the Map app"))
        #expect(page.plainText.contains("• Latitude: 48.8566"))
        let zoomIn = try #require(page.links.first { $0.label == "Zoom in" })
        #expect(zoomIn.url?.absoluteString == "https://maps.handoffsim.example/?lat=48.8566&lon=2.3522&z=5")
    }

    @Test func mapQueries() {
        #expect(
            MapQuery(url: url("https://maps.handoffsim.example/?lat=-33.8688&lon=151.2093&z=5.5")).summary
                == "Map of 33.87°S 151.21°E at zoom 5.5")
        #expect(
            MapQuery(url: url("https://maps.handoffsim.example/?lat=0&lon=-0.0001&z=0")).summary
                == "Map of 0° 0° at zoom 0")
        #expect(
            MapQuery(url: url("https://maps.handoffsim.example/?lat=10&lon=-74.5&z=2")).summary
                == "Map of 10°N 74.5°W at zoom 2")
        let bad = MapQuery(url: url("https://maps.handoffsim.example/?lat=91&lon=abc"))
        #expect(bad.summary == nil)
        #expect(
            bad.problem == "This address does not name a map view: lat “91” is not a number from -90 to 90; "
                + "lon “abc” is not a number from -180 to 180; z (zoom) is missing.")
        #expect(MapQuery(url: url("https://maps.handoffsim.example/")).problem?.contains("names no place") == true)
        #expect(MapQuery(url: url("https://maps.handoffsim.example/?lat=nan&lon=inf&z=1")).summary == nil)
    }

    @Test func everyZoomTheMapCanWriteIsAccepted() throws {
        // The Map's zooms (`MapCamera.minimumZoom...maximumZoom` in the Map app, which cannot be
        // imported here: its tests pin the same range) are exactly the page's.
        #expect(MapQuery.zooms == -1.0...10.0)
        // The Map writes the zoom with at most two decimals: every such value in the range.
        for hundredths in -100...1000 {
            let z = MapQuery.format(Double(hundredths) / 100)
            let query = MapQuery(url: url("https://maps.handoffsim.example/?lat=0&lon=0&z=\(z)"))
            #expect(query.problem == nil, "z=\(z): \(query.problem ?? "")")
            #expect(query.zoom == Double(hundredths) / 100)
        }
        // The whole world on a 80x23 map: the address of the issue that found the mismatch.
        let world = MapQuery(url: url("https://maps.handoffsim.example/?lat=0&lon=0&z=-0.61"))
        #expect(world.summary == "Map of 0° 0° at zoom -0.61")
        #expect(world.variables["map.zoomOut"] == "https://maps.handoffsim.example/?lat=0&lon=0&z=-1")
        #expect(world.variables["map.zoomIn"] == "https://maps.handoffsim.example/?lat=0&lon=0&z=0.39")
        let closest = MapQuery(url: url("https://maps.handoffsim.example/?lat=0&lon=0&z=10"))
        #expect(
            closest.variables["map.zoomIn"] == "https://maps.handoffsim.example/?lat=0&lon=0&z=10",
            "clamped to the Map's closest")
        // Outside the Map's range is an error naming the range.
        for z in ["-1.01", "10.01", "24"] {
            #expect(
                MapQuery(url: url("https://maps.handoffsim.example/?lat=0&lon=0&z=\(z)")).problem
                    == "This address does not name a map view: z “\(z)” is not a number from -1 to 10.")
        }
    }

    @Test func aMapPageWithABadQuerySaysWhatIsWrong() throws {
        let page = try shippedSites().page(for: url("https://maps.handoffsim.example/?lat=north&lon=2&z=4"))
        #expect(page.kind == .site)
        guard case .paragraph(let text) = page.blocks.first else {
            Issue.record("expected a paragraph")
            return
        }
        #expect(text.contains("lat “north” is not a number"))
    }

    // MARK: The Reader's site

    @Test func theReaderPageShowsTheDocumentsPage() throws {
        let sites = try shippedSites()
        let page = sites.page(for: url("https://reader.handoffsim.example/handoff-guide?page=3"))
        #expect(page.kind == .site)
        #expect(page.title == "A Short Guide to Handoff")
        #expect(page.blocks.first == .quote("Page 3 of 6 · the web version of the Reader"))
        #expect(page.links.map(\.label) == ["← Page 2", "Page 4 →", "All documents"])
        #expect(page.links[1].url?.absoluteString == "https://reader.handoffsim.example/handoff-guide?page=4")
        // The same pages as the Reader: the third form-feed section of the file.
        let file = try #require(sites.readerDocuments).appendingPathComponent("handoff-guide.txt")
        let sections = try String(contentsOf: file, encoding: .utf8).split(separator: "\u{0C}")
        let firstLine = try #require(
            sections[2].split(separator: "\n").first { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
        #expect(page.blocks[1] == .paragraph(firstLine.trimmingCharacters(in: .whitespaces)))
    }

    @Test func readerPagesOutOfRangeAreClamped() throws {
        let sites = try shippedSites()
        let last = sites.page(for: url("https://reader.handoffsim.example/night-markets?page=99"))
        #expect(
            last.blocks.first == .quote("“\(last.title)” has 5 pages; page 99 was asked for: showing the last page."))
        #expect(last.blocks[1] == .quote("Page 5 of 5 · the web version of the Reader"))
        let first = sites.page(for: url("https://reader.handoffsim.example/night-markets?page=two"))
        #expect(first.blocks.first == .quote("“two” is not a page number: showing page 1."))
        let noPage = sites.page(for: url("https://reader.handoffsim.example/night-markets"))
        #expect(noPage.blocks.first == .quote("Page 1 of 5 · the web version of the Reader"))
        #expect(!noPage.blocks.contains(.paragraph(noPage.title)), "the title line is not repeated")
    }

    @Test func anUnknownDocumentSaysWhichDocumentAndPage() throws {
        let page = try shippedSites().page(for: url("https://reader.handoffsim.example/my%20notes?page=7"))
        #expect(page.kind == .notFound)
        #expect(page.title == "“my notes”, page 7")
        #expect(page.plainText.contains("no document named “my notes” (page 7 was asked for)"))
    }

    @Test func withoutTheReadersDocumentsTheSiteSaysSo() throws {
        let resources = try browserResources()
        let sites = SiteLibrary(folder: resources.sites, readerDocuments: nil)
        let page = sites.page(for: url("https://reader.handoffsim.example/handoff-guide?page=2"))
        #expect(page.title == "“handoff-guide”, page 2")
        #expect(
            page.plainText.contains("not installed with this Browser, so page 2 of “handoff-guide” cannot be shown"))
        let home = sites.page(for: url("https://reader.handoffsim.example/"))
        #expect(home.plainText.contains("The Reader's documents are not installed"))
    }

    @Test func theReaderHomeListsTheDocuments() throws {
        let page = try shippedSites().page(for: url("https://reader.handoffsim.example/"))
        #expect(page.title == "The Reader, on the web")
        #expect(page.links.map(\.target) == ["/handoff-guide", "/harrow-point", "/night-markets"])
        #expect(page.links.map(\.label).contains("A Short Guide to Handoff"))
    }

    @Test func readerPagingMatchesTheReadersRules() {
        #expect(ReaderSite.pages(of: "").count == 1)
        #expect(ReaderSite.pages(of: "A\u{0C}\u{0C}B\n\n\u{0C}") == [["A"], ["B"]])
        let long = (1...100).map { "Line \($0)" }.joined(separator: "\n")
        let pages = ReaderSite.pages(of: long)
        #expect(pages.map(\.count) == [40, 40, 20])
    }

    // MARK: Site approval

    @Test func theShippedSitesApproveTheirApps() throws {
        let sites = try browserResources().sites
        var approvals: [String: Set<String>] = [:]
        for host in SiteLibrary.hosts(in: sites) {
            let data = try Data(
                contentsOf: sites.appendingPathComponent(host).appendingPathComponent(SiteAssociationFile.fileName))
            approvals[host] = try SiteAssociationFile(host: host, data: data).approvedApplicationIdentifiers
        }
        #expect(
            approvals == [
                "handoffsim.example": [],
                "maps.handoffsim.example": ["SIMTEAM001.com.handoffsim.map"],
                "reader.handoffsim.example": ["SIMTEAM001.com.handoffsim.reader"],
            ])
    }

    @Test func badAssociationFilesAreErrorsNamingTheHostNotCrashes() throws {
        let cases: [(String, SiteAssociationError.Problem, String)] = [
            ("not json", .notJSON, "a.example/.well-known/apple-app-site-association: not JSON (it starts “not json”)"),
            (
                "[1, 2]", .malformed,
                "a.example/.well-known/apple-app-site-association: the top level is not a JSON object"
            ),
            (
                #"{"activitycontinuation": {"apps": "no-team"}}"#, .malformed,
                "a.example/.well-known/apple-app-site-association: \"activitycontinuation\" must be an object with an \"apps\" array"
            ),
        ]
        for (text, problem, message) in cases {
            let error = try #require(throws: SiteAssociationError.self) {
                try SiteAssociationFile(host: "a.example", data: Data(text.utf8))
            }
            #expect(
                error
                    == SiteAssociationError(
                        host: "a.example", problem, String(message.split(separator: ": ", maxSplits: 1)[1])))
            // The message names the host and the file.
            #expect(error.description == message)
        }
        #expect(
            (try? SiteAssociationFile(host: "d.example", data: Data(#"{"applinks": {}}"#.utf8)))
                == SiteAssociationFile(host: "d.example", approvedApplicationIdentifiers: []))
        // An entry that is no app ID voids nothing: it is listed as ignored.
        #expect(
            (try? SiteAssociationFile(
                host: "a.example", data: Data(#"{"activitycontinuation": {"apps": ["no-team"]}}"#.utf8)))?
                .ignoredEntries == [#"apps[0] holds "no-team", not an app ID (TEAMID.bundle.id)"#])
    }

    @Test func theAssociationFileIsServed() throws {
        let page = try shippedSites().page(
            for: url("https://maps.handoffsim.example/.well-known/apple-app-site-association"))
        #expect(page.kind == .site)
        #expect(
            page.blocks.first
                == .paragraph(
                    "This site approves these apps for Handoff (activity continuation): SIMTEAM001.com.handoffsim.map.")
        )
    }
}
