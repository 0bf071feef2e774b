import Foundation
import HandoffCore
import Synchronization

/// How far a document transfer got, for the progress shown in the Reader.
package struct TransferProgress: Hashable, Sendable {
    /// The document asked for.
    package var documentName: String
    /// The sending device, once its header arrived.
    package var senderName: String?
    /// Document bytes received so far.
    package var receivedBytes: Int
    /// The document's size, once the header arrived.
    package var totalBytes: Int?
    /// Since the request left.
    package var elapsed: Duration

    package init(
        documentName: String, senderName: String? = nil, receivedBytes: Int = 0, totalBytes: Int? = nil,
        elapsed: Duration = .zero
    ) {
        self.documentName = documentName
        self.senderName = senderName
        self.receivedBytes = receivedBytes
        self.totalBytes = totalBytes
        self.elapsed = elapsed
    }

    /// How fast the bytes came so far, e.g. "256.0 kB/s" (nil before any arrived).
    package var rate: String? {
        receivedBytes > 0 ? ByteCount.rate(receivedBytes, in: DurationText.seconds(elapsed)) : nil
    }

    /// From 0 to 1, once the size is known.
    package var fraction: Double? {
        guard let totalBytes else { return nil }
        return totalBytes == 0 ? 1 : min(1, Double(receivedBytes) / Double(totalBytes))
    }
}

/// The origin's half: answers one request on the streams with the activity's document.
///
/// Only the document the activity is about is served, whatever the request names, so a peer
/// cannot read other files of the device.
package struct DocumentServer: Sendable {
    /// The document of the activity whose streams were opened.
    package var documentURL: URL
    /// This device's name, sent in the header.
    package var senderName: String
    /// The size of the chunks written.
    package var chunkSize = 64 << 10

    package init(documentURL: URL, senderName: String) {
        self.documentURL = documentURL
        self.senderName = senderName
    }

    /// A document sent whole.
    package struct Served: Hashable, Sendable {
        /// What was sent.
        package var header: DocumentHeader
        /// The device that asked for it, as its request names it (may be empty).
        package var requesterName: String
        /// From the request's arrival until the last byte was handed to the stream.
        package var elapsed: Duration
    }

    /// How far sending got, for the origin's screen.
    package struct Progress: Hashable, Sendable {
        package var documentName: String
        /// The device that asked, as its request names it (may be empty).
        package var requesterName: String
        package var sentBytes: Int
        package var totalBytes: Int
        /// Since the request arrived.
        package var elapsed: Duration

        /// How fast the bytes left so far, e.g. "256.0 kB/s" (nil before any left).
        package var rate: String? {
            sentBytes > 0 ? ByteCount.rate(sentBytes, in: DurationText.seconds(elapsed)) : nil
        }
    }

    /// What happened, for the origin's log and message.
    package enum Outcome: Hashable, Sendable {
        case served(Served)
        case refused(DocumentRefusal)
        case failed(String)
    }

    /// Reads the request, then writes the response and closes the output. Never throws: a bad
    /// request is answered with a refusal, a broken stream ends the work.
    package func serve(
        _ streams: ContinuationStreams, progress: @Sendable (Progress) -> Void = { _ in }
    ) async -> Outcome {
        let clock = ContinuousClock()
        var start = clock.now
        var decoder = DocumentRequestDecoder()
        var request: DocumentRequest?
        do {
            for try await chunk in streams.input {
                if let complete = try decoder.consume(chunk) {
                    request = complete
                    start = clock.now
                    break
                }
            }
        } catch let error as DocumentTransferError {
            return await refuse(DocumentRefusal(.badRequest, "the request could not be read: \(error)"), on: streams)
        } catch {
            await streams.output.close(with: error)
            return .failed("the request did not arrive: \(error)")
        }
        guard let request else {
            return await refuse(DocumentRefusal(.badRequest, "the request ended before it was complete"), on: streams)
        }
        let name = documentURL.lastPathComponent
        guard request.documentName == name else {
            return await refuse(
                DocumentRefusal(.notThisDocument, "the activity is about “\(name)”, not “\(request.documentName)”"),
                on: streams)
        }
        // The file is read a chunk at a time as it is sent: the first bytes leave at once,
        // whatever the document's size.
        let handle: FileHandle
        let size: Int
        do {
            handle = try FileHandle(forReadingFrom: documentURL)
            size = Int(try handle.seekToEnd())
            try handle.seek(toOffset: 0)
        } catch {
            let exists = FileManager.default.fileExists(atPath: documentURL.path)
            return await refuse(
                DocumentRefusal(
                    exists ? .unreadable : .notFound,
                    exists ? "“\(name)” could not be read" : "“\(name)” is no longer there"), on: streams)
        }
        defer { try? handle.close() }
        guard size <= DocumentTransferProtocol.maximumDocumentSize else {
            return await refuse(
                DocumentRefusal(
                    .tooLarge,
                    "“\(name)” is larger than \(ByteCount.text(DocumentTransferProtocol.maximumDocumentSize))"),
                on: streams)
        }
        let header = DocumentHeader(documentName: name, size: size, senderName: senderName)
        do {
            try await streams.output.write(header.encoded())
            var sent = 0
            while sent < size {
                guard let chunk = try handle.read(upToCount: min(chunkSize, size - sent)), !chunk.isEmpty else {
                    throw DocumentTransferError.streams("“\(name)” became shorter while it was sent")
                }
                try await streams.output.write(Array(chunk))
                sent += chunk.count
                progress(
                    Progress(
                        documentName: name, requesterName: request.requesterName, sentBytes: sent, totalBytes: size,
                        elapsed: clock.now - start))
            }
            await streams.output.close()
            return .served(Served(header: header, requesterName: request.requesterName, elapsed: clock.now - start))
        } catch {
            await streams.output.close(with: error)
            return .failed("sending “\(name)” failed: \(error)")
        }
    }

    private func refuse(_ refusal: DocumentRefusal, on streams: ContinuationStreams) async -> Outcome {
        do {
            try await streams.output.write(refusal.encoded())
            await streams.output.close()
        } catch {
            await streams.output.close(with: error)
        }
        return .refused(refusal)
    }
}

/// The continuing half: asks for a document and receives it, with progress and an idle timeout.
package struct DocumentReceiver: Sendable {
    /// The document to ask for.
    package var documentName: String
    /// This device's name, sent in the request.
    package var requesterName: String
    /// The largest document accepted.
    package var limit: Int
    /// The longest wait for the next bytes (from the start, then between chunks).
    package var idleTimeout: Duration

    package init(
        documentName: String, requesterName: String = "", limit: Int = DocumentTransferProtocol.maximumDocumentSize,
        idleTimeout: Duration = .seconds(30)
    ) {
        self.documentName = documentName
        self.requesterName = requesterName
        self.limit = limit
        self.idleTimeout = idleTimeout
    }

    /// Sends the request and reads the response to its end. `progress` is called (off the run
    /// loop) when the header arrives and then every few percent; `arrived` is given the document's
    /// bytes as they come (each byte once, in order): the first ones as soon as they are there,
    /// then at each progress report, so that the first page can be shown while the rest arrives.
    ///
    /// - Throws: ``DocumentTransferError``; on any failure both streams are closed.
    package func receive(
        over streams: ContinuationStreams,
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in },
        arrived: @escaping @Sendable (_ bytes: [UInt8], _ header: DocumentHeader) -> Void = { _, _ in }
    )
        async throws(DocumentTransferError) -> ReceivedDocument
    {
        let watch = IdleWatch()
        let timeout = idleTimeout
        do {
            return try await withThrowingTaskGroup(of: ReceivedDocument?.self) { group in
                group.addTask { try await transfer(over: streams, watch: watch, progress: progress, arrived: arrived) }
                group.addTask {
                    let step = min(timeout / 4, .milliseconds(500))
                    while true {
                        try await Task.sleep(for: step)
                        if watch.idleTime > timeout { throw DocumentTransferError.timedOut(timeout) }
                    }
                }
                defer {
                    group.cancelAll()
                    streams.input.cancel()
                }
                guard let first = try await group.next(), let document = first else {
                    throw DocumentTransferError.streams("the transfer stopped")
                }
                return document
            }
        } catch let error as DocumentTransferError {
            await streams.output.close(with: error)
            throw error
        } catch is CancellationError {
            await streams.output.close(with: CancellationError())
            throw .streams("the transfer was cancelled")
        } catch {
            await streams.output.close(with: error)
            throw .streams("the connection failed: \(error)")
        }
    }

    private func transfer(
        over streams: ContinuationStreams, watch: IdleWatch, progress: @Sendable (TransferProgress) -> Void,
        arrived: @Sendable ([UInt8], DocumentHeader) -> Void
    ) async throws -> ReceivedDocument {
        let start = ContinuousClock.now
        try await streams.output.write(
            DocumentRequest(documentName: documentName, requesterName: requesterName).encoded())
        await streams.output.close()
        watch.touch()
        var decoder = DocumentResponseDecoder(limit: limit)
        var reported = -1
        var handedOver = 0
        for try await chunk in streams.input {
            try Task.checkCancellation()
            watch.touch()
            let hadHeader = decoder.header != nil
            try decoder.consume(chunk)
            guard let header = decoder.header else { continue }
            if !hadHeader, header.documentName != documentName {
                throw DocumentTransferError.malformed("it sends “\(header.documentName)”, not “\(documentName)”")
            }
            let step = max(64 << 10, header.size / 50)
            let count = decoder.bytes.count
            if reported < 0 || count - reported >= step || decoder.isComplete || (handedOver == 0 && count > 0) {
                reported = count
                if count > handedOver {
                    arrived(Array(decoder.bytes[handedOver..<count]), header)
                    handedOver = count
                }
                progress(
                    TransferProgress(
                        documentName: documentName, senderName: header.senderName,
                        receivedBytes: count, totalBytes: header.size, elapsed: ContinuousClock.now - start))
            }
        }
        try Task.checkCancellation()
        var document = try decoder.finish()
        document.elapsed = ContinuousClock.now - start
        return document
    }
}

/// When bytes last arrived (shared by a transfer and its watchdog).
private final class IdleWatch: Sendable {
    private let last = Mutex(ContinuousClock.now)

    func touch() { last.withLock { $0 = .now } }
    var idleTime: Duration { last.withLock { ContinuousClock.now - $0 } }
}
