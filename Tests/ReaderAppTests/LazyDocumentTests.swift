import Foundation
import HandoffCore
import HandoffTestSupport
import Synchronization
import TerminalCells
import Testing

@testable import ReaderApp

@Suite("Documents found as far as they are shown")
struct LazyDocumentTests {
    /// Pieces that exercise every rule of the pages: line endings of each kind, form feeds,
    /// blank lines, trailing spaces, tabs, escape sequences, control characters, wide and
    /// combining characters, long lines that take several reference rows.
    static let pieces = [
        "a", "b", " ", "  ", "\n", "\n", "\n\n", "\r", "\r\n", "\u{0C}", "\t", "\u{1B}[2J", "\u{1B}]0;t\u{07}",
        "\u{1B}", "é", "京", "e\u{301}", "\u{FEFF}", "\u{07}", "\u{9B}1m", "word ",
        String(repeating: "long ", count: 30), "\u{3000}", "x",
    ]

    static func randomDocument(_ generator: inout SplitMix64) -> String {
        let count = Int.random(in: 0...300, using: &generator)
        return (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    @Test func lazyPagesAreTheFullLayoutsPages() throws {
        var generator = SplitMix64(seed: 13)
        var documents = (0..<400).map { _ in Self.randomDocument(&generator) }
        for name in ["handoff-guide.txt", "harrow-point.txt", "night-markets.txt"] {
            documents.append(
                try String(
                    contentsOf: try readerResources().sampleDocuments.appendingPathComponent(name), encoding: .utf8))
        }
        documents.append(LongBook.text(bytes: 60_000))
        for (index, document) in documents.enumerated() {
            let full = PagedText(document)
            let lazy = DocumentText(document)
            #expect(lazy.pages == full.pages, "document \(index): \(document.debugDescription.prefix(80))")
            #expect(lazy.title == full.title, "document \(index)")
            #expect(lazy.pageCount == full.pageCount, "document \(index)")
            // The same pages when the bytes arrive a few at a time, asked for page by page.
            let bytes = Array(document.utf8)
            var pieces = DocumentText(bytes: Data(), isFinal: false, expectedSize: bytes.count)
            var start = 0
            repeat {
                let end = min(bytes.count, start + Int.random(in: 1...9, using: &generator))
                pieces.append(bytes[start..<end], isFinal: end == bytes.count)
                pieces.findPages(through: pieces.knownPageCount + 1)
                start = end
            } while start < bytes.count
            pieces.findAllPages()
            #expect(pieces.pages == full.pages, "document \(index) in pieces")
        }
    }

    @Test func theFirstPageIsFoundWithoutReadingTheRest() throws {
        let book = Data(LongBook.text(bytes: 2_000_000).utf8)
        var text = DocumentText(bytes: book, isFinal: true)
        #expect(text.knownPageCount == 1)
        #expect(text.scanner.scannedBytes < 8_000, "only the first page's lines were read")
        #expect(text.title == LongBook.title)
        #expect(text.pageCount == nil)
        #expect(text.estimatedPageCount > 1)
        text.findPages(through: 10)
        #expect(text.knownPageCount == 10)
        text.findAllPages()
        #expect(text.pageCount == text.knownPageCount)
        #expect(text.knownPageCount > 500)
    }

    @Test func theEstimateIsClose() throws {
        let book = Data(LongBook.text(bytes: 1_000_000).utf8)
        var text = DocumentText(
            bytes: book.prefix(DocumentLibrary.openingReadSize), isFinal: false, expectedSize: book.count)
        text.findAllPages()
        let estimate = text.estimatedPageCount
        let exact = DocumentText(bytes: book, isFinal: true)
        var complete = exact
        complete.findAllPages()
        let count = try #require(complete.pageCount)
        #expect(abs(estimate - count) * 20 <= count, "within 5%: \(estimate) for \(count)")
        #expect(text.pageCount == nil)
    }

    /// A document larger than what opening reads, in the laptop's cloud folder.
    func worldWithBigDocument(bytes: Int = 1_200_000) throws -> (ReaderWorld, URL) {
        let world = try ReaderWorld()
        let url = world.cloudFolder.appendingPathComponent("aaa-long.txt")
        try LongBook.text(bytes: bytes).write(to: url, atomically: true, encoding: .utf8)
        world.laptop.press(.character("r"))
        return (world, url)
    }

    @Test func progressIsShownWhileThePagesAreCounted() async throws {
        let (world, url) = try worldWithBigDocument()
        let laptop = world.laptop
        laptop.open("aaa-long.txt")
        let session = try #require(laptop.reader.session)
        #expect(session.text.pageCount == nil, "only the start was read")
        let counting = laptop.render(width: 80, height: 24)
        #expect(counting.line(0).hasSuffix("page 1 of about \(session.text.estimatedPageCount)"), "\(counting.line(0))")
        #expect(counting.text().contains(LongBook.title))
        try await world.run { laptop.reader.session?.text.isComplete == true }
        let count = try DocumentLibrary.read(url).pageCount
        #expect(laptop.reader.session?.text.pageCount == count)
        #expect(laptop.render(width: 80, height: 24).line(0).hasSuffix("page 1 of \(count ?? 0)"))
        // End goes to the last page.
        laptop.press(.end)
        #expect(laptop.reader.session?.position.page == count)
    }

    @Test func endReadsTheWholeDocumentWhenTheCountIsNotDoneYet() throws {
        let (world, url) = try worldWithBigDocument()
        let laptop = world.laptop
        laptop.open("aaa-long.txt")
        laptop.press(.end)
        let count = try DocumentLibrary.read(url).pageCount
        #expect(laptop.reader.session?.position.page == count)
        #expect(laptop.render(width: 80, height: 24).line(0).hasSuffix("page \(count ?? 0) of \(count ?? 0)"))
    }

    @Test func aPlaceFarInRestoresExactlyAtAnotherWidth() throws {
        let (world, url) = try worldWithBigDocument(bytes: 4_000_000)
        let (laptop, phone) = (world.laptop, world.phone)
        laptop.open("aaa-long.txt")
        _ = laptop.render(width: 44, height: 14)
        for _ in 0..<300 { laptop.press(.character(" ")) }
        for _ in 0..<3 { laptop.press(.down) }
        world.hood.settle()
        let origin = try #require(laptop.reader.session?.position)
        #expect(origin.page == 301)
        #expect(origin.line == 0 && origin.character > 0, "inside the page's first paragraph: \(origin)")

        phone.press(.character("r"))
        _ = phone.render(width: 120, height: 12)
        phone.device.chooseOffer(from: laptop.device.info.id)
        world.hood.settle()
        let session = try #require(phone.reader.session)
        #expect(session.position == origin, "the same page, line and character")
        let size = try Data(contentsOf: url).count
        #expect(session.text.bytes.count < size / 2, "the text up to the place was read, not the whole file")
        // The row at the top of the wide view holds the character the narrow view started with.
        let layout = session.layout(width: phone.reader.viewport.width)
        let top = layout.rows[session.topRow(in: phone.reader.viewport)]
        let line = Array(session.text.lines(ofPage: origin.page)[origin.line])
        #expect(top.line == origin.line)
        #expect(top.character <= origin.character && origin.character < top.character + top.text.count + 1)
        #expect(top.character < origin.character, "a wider row starts earlier in the line")
        #expect(line.count > origin.character)
    }

    @Test func resizingKeepsThePlace() throws {
        let world = try ReaderWorld()
        let laptop = world.laptop
        laptop.open("harrow-point.txt")
        _ = laptop.render(width: 40, height: 16)
        laptop.press(.character(" "), .down, .down, .down)
        let place = try #require(laptop.reader.session?.position)
        let narrowTop = laptop.render(width: 40, height: 16).line(2).trimmingCharacters(in: .whitespaces)
        for (width, height) in [(140, 44), (60, 20), (40, 16)] {
            let grid = laptop.render(width: width, height: height)
            let session = try #require(laptop.reader.session)
            #expect(session.position == place, "\(width)x\(height) keeps the place")
            let top = session.layout(width: laptop.reader.viewport.width).rows[
                session.topRow(in: laptop.reader.viewport)]
            #expect(top.line == place.line && top.character <= place.character, "\(width)x\(height)")
            if width == 40 { #expect(grid.line(2).trimmingCharacters(in: .whitespaces) == narrowTop) }
        }
    }

    /// The place the continued activity names in the documents received below.
    static let handedOff = ReadingPosition(page: 40, line: 2)

    /// `phone` starts receiving `book` from Laptop over streams, and its first `firstBytes` arrive.
    static func startReceiving(_ book: [UInt8], firstBytes: Int, on phone: ReaderDevice) -> UUID {
        let id = UUID()
        phone.reader.transferID = id
        phone.reader.transfer = TransferProgress(
            documentName: LongBook.fileName, senderName: "Laptop", receivedBytes: firstBytes,
            totalBytes: book.count)
        phone.reader.transferArrived(id, Array(book.prefix(firstBytes)), size: book.count, target: handedOff)
        return id
    }

    @Test func aPartlyReceivedDocumentShowsItsFirstPage() throws {
        let world = try ReaderWorld(phoneHasCloud: false)
        let phone = world.phone
        let book = Array(LongBook.text(bytes: 500_000).utf8)
        // The first 20 kB of a 500 kB document arrived; the place handed off is on page 40.
        let id = Self.startReceiving(book, firstBytes: 20_000, on: phone)
        let grid = phone.render(width: 60, height: 20)
        let screen = grid.text()
        #expect(phone.reader.title == LongBook.title)
        #expect(grid.line(0).contains("page 1 of about "), "\(grid.line(0))")
        #expect(screen.contains("A document this size arrives over"), "the first page's text")
        #expect(screen.contains("Receiving “\(LongBook.fileName)” from Laptop"))
        #expect(phone.reader.keyHints.map(\.keys) == ["Esc", "Space/b", "↑ ↓"])
        // The rest arrives up to page 40: it is shown at the place handed off.
        phone.reader.transferArrived(id, Array(book[20_000..<200_000]), size: book.count, target: Self.handedOff)
        let preview = try #require(phone.reader.transferPreview)
        #expect(preview.position == ReadingPosition(page: 40, line: 2))
        #expect(phone.render(width: 60, height: 20).line(0).contains("page 40 of about "))
        // Esc stops it; nothing is left.
        phone.press(.escape)
        #expect(phone.reader.transferPreview == nil)
        #expect(phone.reader.session == nil)
    }

    @Test func thePagesThatArrivedCanBeReadWhileTheRestArrives() throws {
        let world = try ReaderWorld(phoneHasCloud: false)
        let phone = world.phone
        let book = Array(LongBook.text(bytes: 500_000).utf8)
        let id = Self.startReceiving(book, firstBytes: 60_000, on: phone)
        _ = phone.render(width: 60, height: 20)
        let known = try #require(phone.reader.transferPreview?.text.knownPageCount)
        #expect(known >= 3 && known < 40)
        // Space turns pages of what arrived, ↓ scrolls, b goes back.
        phone.press(.character(" "))
        phone.press(.character(" "))
        #expect(phone.reader.transferPreview?.position == ReadingPosition(page: 3))
        #expect(phone.render(width: 60, height: 20).line(0).contains("page 3 of about "))
        phone.press(.down)
        #expect(phone.reader.transferPreview?.position.page == 3)
        #expect(phone.reader.transferPreview?.position != ReadingPosition(page: 3))
        phone.press(.character("b"))
        #expect(phone.reader.transferPreview?.position == ReadingPosition(page: 2))
        // End goes to the last page there; a page not there yet is out of reach.
        phone.press(.end)
        #expect(phone.reader.transferPreview?.position == ReadingPosition(page: known))
        phone.press(.character(" "))
        #expect(phone.reader.transferPreview?.position == ReadingPosition(page: known))
        // Once the reader moved, what arrives (the handed-off page too) no longer moves the view.
        phone.press(.home)
        phone.reader.transferArrived(id, Array(book[60_000..<300_000]), size: book.count, target: Self.handedOff)
        #expect(phone.reader.transferPreview?.position == .start)
        #expect(phone.reader.session == nil, "the document opens only once it is all there")
    }

    @Test func aTruncatedStreamHandsOverItsFirstBytes() async throws {
        let (mine, theirs) = ContinuationStreams.makePipe()
        let book = Array(LongBook.text(bytes: 100_000).utf8)
        async let origin: Void = {
            var decoder = DocumentRequestDecoder()
            for try await chunk in mine.input where try decoder.consume(chunk) != nil { break }
            try await mine.output.write(
                DocumentHeader(documentName: LongBook.fileName, size: book.count, senderName: "L").encoded())
            try await mine.output.write(Array(book.prefix(30_000)))
            await mine.output.close()
        }()
        let arrived = ByteLog()
        await #expect(throws: DocumentTransferError.truncated(received: 30_000, expected: book.count)) {
            _ = try await DocumentReceiver(documentName: LongBook.fileName).receive(
                over: theirs, arrived: { bytes, _ in arrived.append(bytes) })
        }
        try? await origin
        #expect(!arrived.bytes.isEmpty && book.starts(with: arrived.bytes), "the first bytes, as they arrived")
        var preview = TransferPreview(size: book.count, target: .start, width: 50)
        preview.arrived(arrived.bytes, width: 50)
        #expect(preview.title == LongBook.title)
        #expect(preview.layout.rows.first?.text == LongBook.title)
        #expect(preview.pageLabel.hasPrefix("page 1 of about "))
    }

    @Test func theListReadsOnlyTheStartOfEachFile() throws {
        let world = try ReaderWorld()
        let folder = world.laptop.localFolder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A file longer than the list reads, whose end is not UTF-8: the list, reading only its
        // start, gives its title and size; reading all of it would find it unreadable.
        var long = Data(LongBook.text(bytes: DocumentLibrary.openingReadSize + DocumentLibrary.listingReadSize).utf8)
        long.append(contentsOf: [0xFF, 0xFE, 0xFD])
        try long.write(to: folder.appendingPathComponent("long.txt"))
        try "Short\n\nOne page.".write(
            to: folder.appendingPathComponent("short.txt"), atomically: true, encoding: .utf8)
        try Data([0xFF, 0x41]).write(to: folder.appendingPathComponent("binary.txt"))
        world.laptop.press(.character("r"))
        let entries = Dictionary(uniqueKeysWithValues: world.laptop.reader.documents.map { ($0.name, $0) })
        let longEntry = try #require(entries["long.txt"])
        #expect(longEntry.title == LongBook.title)
        #expect(longEntry.size == long.count)
        #expect(longEntry.pageCount == nil, "not counted: the list did not read it all")
        #expect(longEntry.isReadable)
        #expect(entries["short.txt"]?.pageCount == 1)
        #expect(entries["binary.txt"]?.isReadable == false)
        let screen = world.laptop.render(width: 100, height: 30).text()
        #expect(screen.contains(ByteCount.text(long.count)))
        #expect(screen.contains("unreadable"))
        // Opening it shows the first page; the bad bytes at the end are found while counting.
        world.laptop.open("long.txt")
        #expect(world.laptop.reader.session?.title == LongBook.title)
    }

    @Test func badTextFarInIsReportedOnceCounted() async throws {
        let world = try ReaderWorld()
        let url = world.cloudFolder.appendingPathComponent("aaa-bad.txt")
        var data = Data(LongBook.text(bytes: DocumentLibrary.openingReadSize * 2).utf8)
        let offset = data.count
        data.append(contentsOf: [0x0A, 0xC3, 0x28, 0x0A])
        try data.write(to: url)
        world.laptop.press(.character("r"))
        world.laptop.open("aaa-bad.txt")
        #expect(world.laptop.reader.session != nil, "the start is text: it opens")
        try await world.run { world.laptop.reader.message != nil }
        let message = try #require(world.laptop.reader.message)
        #expect(message.kind == .warning)
        #expect(message.text.hasPrefix("“aaa-bad.txt” is not UTF-8 text after byte \(offset + 1): "), "\(message.text)")
        #expect(world.laptop.reader.session?.text.isComplete == true)
    }
}

/// Bytes collected from a transfer's task.
final class ByteLog: Sendable {
    private let collected = Mutex<[UInt8]>([])

    func append(_ more: [UInt8]) { collected.withLock { $0 += more } }
    var bytes: [UInt8] { collected.withLock { $0 } }
}
