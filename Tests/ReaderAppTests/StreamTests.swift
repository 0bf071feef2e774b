import Foundation
import HandoffCore
import HandoffTestSupport
import Synchronization
import TerminalCells
import Testing

@testable import ReaderApp

@Suite("Document transfer codec")
struct DocumentTransferCodecTests {
    @Test func aRequestRoundTripsByteByByte() throws {
        let sent = DocumentRequest(documentName: "harrow point ✦.txt", requesterName: "Phone 1")
        let bytes = sent.encoded()
        #expect(Array(bytes.prefix(5)) == Array("RDRQ".utf8) + [2])
        #expect(Array(bytes.suffix(9)) == [0, 7] + Array("Phone 1".utf8), "the requesting device comes last")
        var decoder = DocumentRequestDecoder()
        for (index, byte) in bytes.enumerated() {
            let request = try decoder.consume([byte])
            #expect((request != nil) == (index == bytes.count - 1))
        }
        #expect(decoder.request == sent)
        #expect(throws: DocumentTransferError.malformed("bytes after the request")) { try decoder.consume([0]) }
        // An anonymous request (no device name) is allowed.
        var anonymous = DocumentRequestDecoder()
        #expect(
            try anonymous.consume(DocumentRequest(documentName: "a.txt").encoded())
                == DocumentRequest(documentName: "a.txt"))
    }

    @Test func aResponseRoundTripsByteByByteAndInChunks() throws {
        let document = Array(String(repeating: "The clock at Harrow Point struck thirteen. ", count: 400).utf8)
        let header = DocumentHeader(documentName: "harrow-point.txt", size: document.count, senderName: "Laptop")
        let bytes = header.encoded() + document
        var single = DocumentResponseDecoder()
        for byte in bytes {
            #expect(!single.isComplete)
            try single.consume([byte])
        }
        #expect(single.isComplete)
        #expect(try single.finish() == ReceivedDocument(header: header, bytes: document))
        for size in [1, 7, 1000, bytes.count] {
            var chunked = DocumentResponseDecoder()
            for start in stride(from: 0, to: bytes.count, by: size) {
                try chunked.consume(bytes[start..<min(start + size, bytes.count)])
            }
            #expect(try chunked.finish().bytes == document)
        }
    }

    @Test func aRefusalIsReportedWithItsMessage() {
        let refusal = DocumentRefusal(.notFound, "“a.txt” is no longer there")
        var decoder = DocumentResponseDecoder()
        let bytes = refusal.encoded()
        #expect(throws: DocumentTransferError.refused(refusal)) {
            for byte in bytes { try decoder.consume([byte]) }
        }
    }

    @Test func hostileRequestsAreRejectedEarly() {
        func decode(_ bytes: [UInt8]) throws(DocumentTransferError) {
            var decoder = DocumentRequestDecoder()
            for byte in bytes { try decoder.consume([byte]) }
        }
        // "GET …"
        #expect(throws: DocumentTransferError.malformed("it does not start with RDRQ")) { try decode([0x47]) }
        #expect(throws: DocumentTransferError.unsupportedVersion(1)) { try decode(Array("RDRQ".utf8) + [1]) }
        #expect(throws: DocumentTransferError.unsupportedVersion(3)) { try decode(Array("RDRQ".utf8) + [3]) }
        // A name length over the limit fails on the length, before any name byte arrives.
        #expect(throws: DocumentTransferError.malformed("the document name is longer than 255 bytes")) {
            try decode(Array("RDRQ".utf8) + [2, 0xFF, 0xFF])
        }
        #expect(throws: DocumentTransferError.malformed("the document name is not UTF-8")) {
            try decode(Array("RDRQ".utf8) + [2, 0, 2, 0xC0, 0xAF])
        }
        // So does the requesting device's name.
        #expect(throws: DocumentTransferError.malformed("the device name is longer than 255 bytes")) {
            try decode(Array("RDRQ".utf8) + [2, 0, 5] + Array("a.txt".utf8) + [0x01, 0x00])
        }
        #expect(throws: DocumentTransferError.malformed("the device name contains control characters")) {
            try decode(DocumentRequest(documentName: "a.txt", requesterName: "Phone\u{1B}[2J").encoded())
        }
        for name in ["../etc/passwd", ".hidden.txt", "", "a\u{0}b.txt"] {
            #expect(throws: DocumentTransferError.self, "\(name)") {
                try decode(DocumentRequest(documentName: name).encoded())
            }
        }
    }

    @Test func hostileResponsesAreRejected() throws {
        func decode(
            _ bytes: [UInt8], limit: Int = DocumentTransferProtocol.maximumDocumentSize
        ) throws(DocumentTransferError) -> ReceivedDocument {
            var decoder = DocumentResponseDecoder(limit: limit)
            try decoder.consume(bytes)
            return try decoder.finish()
        }
        let header = DocumentHeader(documentName: "a.txt", size: 3, senderName: "Laptop")
        #expect(throws: DocumentTransferError.malformed("it does not start with RDRS")) {
            try decode(Array("HTTP/1.1".utf8))
        }
        #expect(throws: DocumentTransferError.malformed("unknown status 9")) {
            try decode(Array("RDRS".utf8) + [2, 9])
        }
        // A size over the limit fails as soon as the size is read.
        var huge = Array("RDRS".utf8) + [2, 0]
        huge.appendInteger(UInt64.max)
        #expect(throws: DocumentTransferError.tooLarge(size: .max, limit: 64 << 20)) { try decode(huge) }
        let big = DocumentHeader(documentName: "a.txt", size: 2_000_000, senderName: "Laptop").encoded()
        #expect(throws: DocumentTransferError.tooLarge(size: 2_000_000, limit: 1_000_000)) {
            try decode(big, limit: 1_000_000)
        }
        #expect(DocumentResponseDecoder(limit: .max).limit == 64 << 20, "the protocol's cap bounds every receiver")
        #expect(throws: DocumentTransferError.malformed("more bytes than the header announced")) {
            try decode(header.encoded() + [1, 2, 3, 4])
        }
        #expect(throws: DocumentTransferError.truncated(received: 2, expected: 3)) {
            try decode(header.encoded() + [1, 2])
        }
        #expect(throws: DocumentTransferError.truncated(received: 6, expected: nil)) {
            try decode(Array(header.encoded().prefix(6)))
        }
        let sneaky = DocumentHeader(documentName: "../../.ssh/id.txt", size: 0, senderName: "Laptop").encoded()
        #expect(throws: DocumentTransferError.malformed("the document name is not a plain file name")) {
            try decode(sneaky)
        }
    }

    @Test func sizesReadNaturally() {
        #expect(ByteCount.text(812) == "812 bytes")
        #expect(ByteCount.text(1_200_000) == "1.2 MB")
        #expect(ByteCount.text(5_000_000) == "5.0 MB")
    }

    @Test func durationsReadNaturally() {
        #expect(DurationText.describe(.zero) == "under 1 ms")
        #expect(DurationText.describe(.microseconds(600)) == "1 ms")
        #expect(DurationText.describe(.microseconds(12_400)) == "12 ms")
        #expect(DurationText.describe(.milliseconds(999)) == "999 ms")
        #expect(DurationText.describe(.milliseconds(800) + .milliseconds(200)) == "1.0 s")
        #expect(DurationText.describe(.milliseconds(12_340)) == "12.3 s")
    }
}

@Suite("Serving and receiving over streams")
struct DocumentStreamTests {
    @Test func theServerSendsOnlyItsDocumentAndTheReceiverGetsIt() async throws {
        let folder = TemporaryFolder()
        let url = folder.url.appendingPathComponent("notes.txt")
        let text = String(repeating: "A line of notes.\n", count: 20_000)
        try text.write(to: url, atomically: true, encoding: .utf8)
        let server = DocumentServer(documentURL: url, senderName: "Laptop")

        let (mine, theirs) = ContinuationStreams.makePipe()
        let sending = ProgressLog<DocumentServer.Progress>()
        async let served = server.serve(mine) { sending.append($0) }
        let reports = ProgressLog<TransferProgress>()
        let received = try await DocumentReceiver(documentName: "notes.txt", requesterName: "Phone 1").receive(
            over: theirs
        ) {
            reports.append($0)
        }
        guard case .served(let served) = await served else {
            Issue.record("the document was not served")
            return
        }
        #expect(served.header == DocumentHeader(documentName: "notes.txt", size: text.utf8.count, senderName: "Laptop"))
        #expect(served.requesterName == "Phone 1", "the origin knows whom it sent the document to")
        #expect(served.elapsed > .zero && served.elapsed < .seconds(60))
        #expect(received.bytes == Array(text.utf8))
        #expect(
            received.elapsed >= served.elapsed / 2 && received.elapsed < .seconds(60),
            "the receiver timed the transfer too")
        let seen = reports.all
        #expect(seen.count >= 2, "progress while the bytes arrive")
        let last = try #require(seen.last)
        #expect(
            last.documentName == "notes.txt" && last.senderName == "Laptop"
                && last.receivedBytes == text.utf8.count && last.totalBytes == text.utf8.count)
        #expect(seen.map(\.receivedBytes) == seen.map(\.receivedBytes).sorted())
        #expect(
            last.elapsed > .zero && last.rate?.hasSuffix("B/s") == true, "how fast it came: \(last.rate ?? "no rate")")
        // The origin's side: each chunk that left, to whom, and how fast.
        let sent = sending.all
        #expect(sent.count == (text.utf8.count + (64 << 10) - 1) / (64 << 10), "one report per 64 KiB chunk")
        #expect(sent.map(\.sentBytes) == sent.map(\.sentBytes).sorted() && sent.last?.sentBytes == text.utf8.count)
        #expect(sent.allSatisfy { $0.requesterName == "Phone 1" && $0.totalBytes == text.utf8.count })
        #expect(sent.last?.rate?.hasSuffix("B/s") == true)

        // Another name is refused: the streams of an activity give its document only.
        let (mine2, theirs2) = ContinuationStreams.makePipe()
        async let refused = server.serve(mine2)
        await #expect(
            throws: DocumentTransferError.refused(
                DocumentRefusal(
                    .notThisDocument,
                    "the activity is about “notes.txt”, not “secrets.txt”"))
        ) {
            _ = try await DocumentReceiver(documentName: "secrets.txt").receive(over: theirs2)
        }
        _ = await refused
    }

    @Test func theProgressSaysWhatFromWhomHowMuchAndHowFast() {
        let progress = TransferProgress(
            documentName: "A Long Book", senderName: "Laptop 1", receivedBytes: 512_000,
            totalBytes: 2_000_000, elapsed: .seconds(2))
        let lines = ReaderApp.progressLines(progress, width: 80)
        #expect(lines.first?.text == "Receiving “A Long Book” from Laptop 1… 512.0 kB of 2.0 MB · 256.0 kB/s")
        #expect(DurationText.describe(bytes: 2_000_000, in: .seconds(8)) == "2.0 MB in 8.0 s (250.0 kB/s)")
    }

    @Test func fiveMegabytesArriveWithProgress() async throws {
        let folder = TemporaryFolder()
        let url = folder.url.appendingPathComponent("atlas.txt")
        let line = "Every road on this page leads somewhere the map has not been drawn yet.\n"
        let text = String(repeating: line, count: 5_000_000 / line.utf8.count + 1)
        try text.write(to: url, atomically: true, encoding: .utf8)
        let (mine, theirs) = ContinuationStreams.makePipe()
        async let served = DocumentServer(documentURL: url, senderName: "Alpha").serve(mine)
        let reports = ProgressLog<TransferProgress>()
        let started = ContinuousClock.now
        let received = try await DocumentReceiver(documentName: "atlas.txt", limit: DocumentLibrary.maximumFileSize)
            .receive(over: theirs) { reports.append($0) }
        let elapsed = ContinuousClock.now - started
        _ = await served
        #expect(received.bytes.count == text.utf8.count)
        #expect(received.bytes.elementsEqual(text.utf8))
        #expect(reports.all.count >= 20, "progress every few percent")
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "Reader stream transfer in process: \(received.bytes.count) bytes in \(elapsed) (\(Double(received.bytes.count) / 1e6 / seconds) MB/s)"
        )
    }

    @Test func aSilentOriginTimesOut() async {
        let (_, mine) = ContinuationStreams.makePipe()  // nobody serves the other end
        let receiver = DocumentReceiver(documentName: "notes.txt", idleTimeout: .milliseconds(200))
        // The request is taken by nobody: the write waits, the watchdog ends the transfer (the
        // test checks the outcome, not how long a busy machine took to get there).
        await #expect(throws: DocumentTransferError.timedOut(.milliseconds(200))) {
            _ = try await receiver.receive(over: mine)
        }
    }

    @Test func aBrokenStreamIsReported() async {
        let (mine, theirs) = ContinuationStreams.makePipe()
        async let breaking: Void = {
            var decoder = DocumentRequestDecoder()
            for try await chunk in mine.input where try decoder.consume(chunk) != nil { break }
            try await mine.output.write(
                DocumentHeader(documentName: "n.txt", size: 10, senderName: "L").encoded() + [1, 2])
            await mine.output.close(with: ContinuationStreamError.closed)
        }()
        await #expect(throws: DocumentTransferError.streams("the connection failed: the stream is closed")) {
            _ = try await DocumentReceiver(documentName: "n.txt").receive(over: theirs)
        }
        try? await breaking
    }

    @Test func storingNeverOverwritesADifferentFile() throws {
        let folder = TemporaryFolder()
        let local = folder.folder("local")
        let header = DocumentHeader(documentName: "notes.txt", size: 5, senderName: "Laptop")
        let first = try StoredDocument.store(ReceivedDocument(header: header, bytes: Array("hello".utf8)), in: local)
        #expect(first.url.lastPathComponent == "notes.txt" && !first.reused)
        let again = try StoredDocument.store(ReceivedDocument(header: header, bytes: Array("hello".utf8)), in: local)
        #expect(again.url == first.url && again.reused)
        let other = try StoredDocument.store(ReceivedDocument(header: header, bytes: Array("world".utf8)), in: local)
        #expect(other.url.lastPathComponent == "notes (2).txt")
        #expect(try String(contentsOf: first.url, encoding: .utf8) == "hello")
        #expect(try String(contentsOf: other.url, encoding: .utf8) == "world")
        #expect(throws: DocumentTransferError.malformed("the document is not UTF-8 text")) {
            try StoredDocument.store(ReceivedDocument(header: header, bytes: [0xFF, 0xFE, 0, 1, 2]), in: local)
        }
    }
}

/// Progress reports collected from a transfer's task.
final class ProgressLog<Report: Sendable>: Sendable {
    private let reports = Mutex<[Report]>([])

    func append(_ progress: Report) { reports.withLock { $0.append(progress) } }
    var all: [Report] { reports.withLock { $0 } }
}
