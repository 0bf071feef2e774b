import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

/// The README's "A document over streams" demo: a 2 MB book crosses the lab's slow link in
/// about 8 s while both devices say how far it got and how fast, inside and outside tmux, at
/// 80x24 and 120x40.
@Suite(
    "README: a document over streams", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil && TmuxSession.isAvailable))
struct StreamsWalkthroughTests {
    @Test(arguments: [WalkthroughSetup.insideSmall, .plainLarge])
    func aDocumentOverStreams(_ setup: WalkthroughSetup) throws {
        let run = try DemoRun("streams", setup, devices: 2)
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
            "The laptop sends over the lab's slow link (`--slow-link 256:20`: 256 KiB a second, its status bar says `⚠ slow-link`), so the transfer takes about 8 s and can be watched."
        ) {
            try run.see(laptop, "⚠ slow-link")
        }

        try run.step(
            "Open the book on the laptop (Enter on the Reader, then choose it under \"On this device\"), then Ctrl-O on the phone:"
        ) {
            try run.press(laptop, "Enter")
            try run.see(laptop, "On this device", "A Long Book", "2.0 MB")
            // The cloud's three documents come first.
            try run.press(laptop, "Down", "Down", "Down")
            try run.see("the book chosen", [(laptop, "▸ A Long Book", { $0.contains("▸ A Long Book") })])
            try run.press(laptop, "Enter")
            try run.see(laptop, "page 1 of 1201")
            try run.see(phone, "↩ ▤")
        }

        try run.step(
            "The book is not in iCloud, so the system makes no activity for it (Apple's automatic document activities are for iCloud documents only): the Reader makes its own, of its reading type, with continuation streams (the laptop's log shows `activityCreated com.handoffsim.reader.reading`)."
        ) {
            let lines = try run.fileLogLines("Laptop 1")
            let opened = try #require(
                lines.last { $0.hasPrefix("documentOpened") }, "the laptop logged no documentOpened: \(lines)")
            #expect(opened == "documentOpened a-long-book.txt", "a local document opens without an activity type")
            #expect(
                lines.contains {
                    $0.hasPrefix("activityCreated com.handoffsim.reader.reading in com.handoffsim.reader")
                },
                "\(lines)")
            #expect(
                !lines.contains { $0.hasPrefix("activityCreated com.handoffsim.reader.document") },
                "no automatic activity for a local document: \(lines)")
            try run.press(phone, "C-o")
        }

        try run.step(
            "the Reader opens continuation streams back to the laptop, asks for the document and shows the transfer's progress (\"Receiving … from Laptop 1… 458.8 kB of 2.0 MB · 237.3 kB/s\" above a bar); the laptop says what is leaving, to whom and how fast (\"Sending “A Long Book” to Phone 1 over continuation streams… 655.4 kB of 2.0 MB · 239.7 kB/s\"),"
        ) {
            let receiving = try Regex(
                #"Receiving “a-long-book\.txt” from Laptop 1… [\d.]+ kB of 2\.0 MB · [\d.]+ kB/s"#)
            let sending = try Regex(
                #"Sending “A Long Book” to Phone 1 over continuation streams… [\d.]+ kB of 2\.0 MB · [\d.]+ kB/s"#)
            try run.see(
                "the transfer under way on both devices",
                [
                    (
                        phone, "\"Receiving … from Laptop 1… … kB of 2.0 MB · … kB/s\" above a bar on the phone",
                        { screen in
                            DemoRun.unframed(screen).contains(receiving) && screen.contains("[█")
                                && screen.contains("░]")
                        }
                    ),
                    (
                        laptop, "\"Sending “A Long Book” to Phone 1 over continuation streams… … kB/s\" on the laptop",
                        { DemoRun.unframed($0).contains(sending) }
                    ),
                ])
        }
        try run.step("then \"Sent … · 2.0 MB in 8.3 s (240.5 kB/s)\".") {
            let sent = try Regex(
                #"Sent “A Long Book” to Phone 1 over continuation streams · 2\.0 MB in [\d.]+ s \([\d.]+ kB/s\)"#)
            let received = try Regex(
                #"Received “a-long-book\.txt” from Laptop 1 over continuation streams · 2\.0 MB in [\d.]+ s \([\d.]+ kB/s\)"#
            )
            try run.see(
                "the transfer done on both devices", timeout: .seconds(30),
                [
                    (
                        laptop, "\"Sent … · 2.0 MB in … s (… kB/s)\" on the laptop",
                        { DemoRun.unframed($0).contains(sent) }
                    ),
                    (
                        phone, "\"Received … · 2.0 MB in … s (… kB/s)\" on the phone",
                        { DemoRun.unframed($0).contains(received) }
                    ),
                ])
            try run.see(phone, "page 1 of 1201")
        }

        try run.step("Watch `streamsOpened` in both logs.") {
            let laptopKinds = try run.logKinds(laptop)
            #expect(laptopKinds.containsInOrder(["payloadSent", "streamsOpened"]), "\(laptopKinds)")
            let phoneKinds = try run.logKinds(phone)
            #expect(phoneKinds.containsInOrder(["payloadReceived", "streamsOpened"]), "\(phoneKinds)")
        }
    }
}
