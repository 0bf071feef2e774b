import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// The README's "Web ↔ native over a local web" walkthrough (steps 1–4, the rehearsal of a
/// broken site included) and the "Web → native" bullet of "More demos", with the keys and
/// commands they give in the order they give them. It waits out a 10 s cache, so it runs in
/// two setups that cover both terminals and both sizes.
@Suite(
    "README: web ↔ native", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct WebWalkthroughTests {
    @Test(arguments: [WalkthroughSetup.insideSmall, .plainLarge])
    func webToNative(_ setup: WalkthroughSetup) throws {
        let run = try DemoRun("web", setup, devices: 2)
        let (laptop, phone) = (0, 1)
        try run.see(
            "both devices, each listing the other", timeout: .seconds(40),
            [
                (
                    laptop, "the laptop, listing the phone",
                    { $0.contains("Laptop 1 · laptop") && $0.contains("Phone 1") }
                ),
                (phone, "the phone, listing the laptop", { $0.contains("Phone 1 · phone") && $0.contains("Laptop 1") }),
            ])

        try run.step(
            "On the laptop open the Browser (Enter), press `g`, type `maps.handoffsim.example/?lat=38.7&lon=-9.1&z=6`, Enter: the Map's page on the web."
        ) {
            try run.press(laptop, "Enter")
            try run.see(laptop, "◀ ▶ https://handoffsim.example/")
            try run.press(laptop, "g")
            try run.type(laptop, "maps.handoffsim.example/?lat=38.7&lon=-9.1&z=6")
            try run.press(laptop, "Enter")
            try run.see(laptop, "The Map, on the web", "Map of 38.7°N 9.1°W at zoom 6")
        }

        try run.step(
            "The phone's Nearby shows the offer with, under it, what each app's site said (\"✓ Map: approved\", maps.handoffsim.example)."
        ) {
            // A web offer is named "web page" while an app here has an approved domain.
            try run.see(phone, "↩ web page from Laptop 1")
            try run.press(phone, "Tab")
            try run.see(phone, "✓ Map: approved", "maps.handoffsim.example", "Laptop 1")
            try run.press(phone, "Escape")
            try run.see("the sidebar closed", [(phone, "no sidebar", { !$0.contains("✓ Map: approved") })])
        }
        try run.step(
            "Press Ctrl-O: the Map app opens at 38.7°N 9.1°W, zoom 6, from the page's address alone (an empty `userInfo`)."
        ) {
            try run.press(phone, "C-o")
            try run.see(phone, "Continued from Laptop 1", "38.7°N 9.1°W · zoom 6")
        }
        var kinds: [String] = []
        try run.step("F2 shows `siteAssociationChecked` (approved, fetched over HTTPS) and `webRouted`.") {
            kinds = try run.logKinds(phone)
            #expect(
                kinds.containsInOrder(["siteAssociationChecked", "continueChosen", "webRouted", "continued"]),
                "\(kinds)")
        }
        try run.step(
            "`webRouted` comes before `applicationLaunched` and `fetchStarted`, and the Map is asked `willContinue` before anything is fetched"
        ) {
            // The app is chosen by the host before the fetch: launched and asked first.
            #expect(
                kinds.containsInOrder([
                    "continueChosen", "webRouted", "applicationLaunched", "fetchStarted", "payloadReceived",
                    "continued",
                ]),
                "\(kinds)")
        }

        try run.step(
            "The other way, web fallback: a phone with only the Browser (`handoff device --apps browser`) continues the laptop's map in the Browser, at the activity's `webpageURL`."
        ) {
            // The laptop opens its Map from the dock; its offer becomes the map's region.
            try run.press(laptop, "F4")
            try run.see(laptop, "◍ Map")
            try run.press(laptop, "Right", "Enter")
            try run.see(
                "the laptop's Map",
                [
                    (
                        laptop, "the Map in front",
                        { screen in
                            screen.split(separator: "\n").contains { $0.hasPrefix(" │ Map ") }
                        }
                    )
                ])
            let browserOnly = try run.openTerminal(
                "browser-only",
                command: "handoff device --apps browser --account \(run.account) --port \(run.port)")
            // Its Nearby lists the laptop's map, which no app of its own claims (Tab focuses it).
            try run.see(browserOnly, "Laptop 1", "in the browser", timeout: .seconds(30))
            try run.press(browserOnly, "Tab")
            try run.see(browserOnly, "▸ Laptop 1")
            try run.press(browserOnly, "Enter")
            try run.see(
                browserOnly, "Continued from Laptop 1", "The Map, on the web", "https://maps.handoffsim.example/?lat=")
            try run.press(browserOnly, "C-q")
            try run.see(browserOnly, "EXIT=")
        }

        try run.step(
            "Rehearse a broken site: stop the demo (`handoff demo --stop`) and serve the sites yourself, wrong on purpose, in three terminals"
        ) {
            let stopped = try run.stopDemo()
            #expect(stopped.contains("Stopped the web demo"), "\(stopped)")
        }
        // The README's three commands, each in a terminal of its own; the run's private account
        // and discovery port keep it apart from anything else on the machine, and the web takes
        // free ports (what it chose is in the shared folder, where the devices read it).
        #expect(Readme.says("handoff web serve --max-age 10 --rehearse maps.handoffsim.example=redirect"))
        let web = try run.openTerminal(
            "web",
            command: "handoff web serve --max-age 10 --rehearse maps.handoffsim.example=redirect --port 0 --http-port 0"
        )
        try run.see(web, "maps.handoffsim.example/  (association file: a 301 redirect", "Ctrl-C stops.")
        #expect(Readme.says("handoff device --kind laptop --apps browser,map"))
        let laptop2 = try run.openTerminal(
            "laptop",
            command: "handoff device --kind laptop --apps browser,map --account \(run.account) --port \(run.port)")
        #expect(Readme.says("handoff device --kind phone"))
        let phone2 = try run.openTerminal(
            "phone", command: "handoff device --kind phone --account \(run.account) --port \(run.port)")
        try run.see(
            "the two devices, each listing the other", timeout: .seconds(40),
            [
                (
                    laptop2, "the laptop, listing the phone",
                    { $0.contains("Laptop 1 · laptop") && $0.contains("Phone 1") }
                ),
                (
                    phone2, "the phone, listing the laptop",
                    { $0.contains("Phone 1 · phone") && $0.contains("Laptop 1") }
                ),
            ])
        try run.press(laptop2, "Enter")
        try run.see(laptop2, "◀ ▶ https://handoffsim.example/")
        try run.press(laptop2, "g")
        try run.type(laptop2, "maps.handoffsim.example/?lat=38.7&lon=-9.1&z=6")
        try run.press(laptop2, "Enter")
        try run.see(laptop2, "Map of 38.7°N 9.1°W at zoom 6")

        try run.step(
            "The same page now opens in the phone's Browser, and Nearby and the log say why: \"✗ Map: redirected\" (Apple follows no redirects for this file)."
        ) {
            try run.see(phone2, "✗ Map: redirected")
            try run.press(phone2, "C-o")
            try run.see(phone2, "Opened in the Browser", "redirected", "follows no redirects")
            try run.press(phone2, "Enter")
            try run.see(phone2, "Browser — The Map, on the web")
            let kinds = try run.logKinds(phone2)
            #expect(
                kinds.containsInOrder(["siteAssociationChecked", "continueChosen", "webRouted", "continued"]),
                "\(kinds)")
            // In a terminal with no room for both, the log took the screen: F2 brings the device back.
            if !(try run.screen(phone2)).contains("Phone 1 · phone") { try run.press(phone2, "F2") }
            try run.see(phone2, "Phone 1 · phone", "Nearby")
        }

        try run.step(
            "`handoff manifest lint demos/apps/Map/Info.plist --check-sites` fetches the same files for a manifest and reports the outcome per domain."
        ) {
            let plist = Readme.root.appendingPathComponent("demos/apps/Map/Info.plist").path
            let (status, output) = try run.handoff(["manifest", "lint", plist, "--check-sites"])
            #expect(status == 1, "the redirect is an error: \(output)")
            #expect(output.contains("Association files (over the local web):"), "\(output)")
            #expect(output.contains("activitycontinuation:maps.handoffsim.example: redirected (301 to"), "\(output)")
        }

        try run.step(
            "Stop the server: once the cached answer expires (`--max-age`), the device fetches again, the site is unreachable, and pages go to the Browser with that reason."
        ) {
            try run.press(web, "C-c")
            try run.see(web, "EXIT=")
            try run.see(phone2, "✗ Map: unreachable", timeout: .seconds(40))
            try run.press(phone2, "C-o")
            try run.see(phone2, "Opened in the Browser", "unreachable")
        }
    }
}
