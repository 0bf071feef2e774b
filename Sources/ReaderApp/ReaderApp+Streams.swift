import DeviceAppKit
import Foundation
import HandoffCore

// The document over continuation streams: the origin serves the document of its activity, the
// continuing Reader asks for it when it cannot find it. Bytes flow in tasks, off the run loop;
// progress and results come back through `AppEnvironment.perform`.

extension ReaderApp: UserActivityDelegate {
    /// The origin's half: a continuing Reader opened streams to an open document's activity.
    /// Its document is served (``DocumentServer``), whatever the request names.
    package func userActivity(_ userActivity: UserActivity, didReceive streams: ContinuationStreams) {
        guard let environment else { return }
        let perform = environment.perform
        let reference = Confined(weak: self)
        guard
            let session = windows.lazy.compactMap(\.session).first(where: { $0.document.userActivity === userActivity })
        else {
            environment.log("Reader: streams opened to an activity that is no longer open; refusing")
            Task.detached {
                try? await streams.output.write(DocumentRefusal(.notFound, "the document is no longer open").encoded())
                await streams.output.close()
            }
            return
        }
        let server = DocumentServer(documentURL: session.url, senderName: environment.deviceName)
        let title = session.title
        environment.log("Reader: serving “\(session.url.lastPathComponent)” over continuation streams")
        Task.detached {
            let outcome = await server.serve(
                streams,
                progress: { progress in
                    perform { reference.value.object?.servingProgressed(progress, title: title) }
                })
            perform { reference.value.object?.servingEnded(outcome, title: title) }
        }
    }

    /// On the run loop: what is leaving, to whom and how fast, e.g. "Sending “A Long Book” to
    /// Phone 1… 0.6 MB of 2.0 MB · 256.0 kB/s".
    private func servingProgressed(_ progress: DocumentServer.Progress, title: String) {
        guard progress.sentBytes < progress.totalBytes else { return }
        let to = progress.requesterName.isEmpty ? "the device that continued it" : progress.requesterName
        message = ReaderMessage(
            .info,
            "Sending “\(title)” to \(to) over continuation streams… "
                + "\(ByteCount.text(progress.sentBytes)) of \(ByteCount.text(progress.totalBytes))"
                + (progress.rate.map { " · \($0)" } ?? ""))
        environment?.setNeedsDisplay()
    }

    /// On the run loop: says what the origin did; a document sent is shown, e.g. "Sent “A Short
    /// Guide to Handoff” to Phone 1 · 5.2 MB in 0.8 s".
    private func servingEnded(_ outcome: DocumentServer.Outcome, title: String) {
        switch outcome {
        case .served(let served):
            let header = served.header
            let to = served.requesterName.isEmpty ? "the device that continued it" : served.requesterName
            environment?.log(
                "Reader: sent “\(header.documentName)” (\(header.size) bytes) to \(to) over continuation streams "
                    + "in \(DurationText.describe(served.elapsed))")
            message = ReaderMessage(
                .info,
                "Sent “\(title)” to \(to) over continuation streams · "
                    + DurationText.describe(bytes: header.size, in: served.elapsed))
        case .refused(let refusal):
            environment?.log("Reader: refused a document request: \(refusal.message)")
        case .failed(let why):
            environment?.log("Reader: serving a document failed: \(why)")
        }
        environment?.setNeedsDisplay()
    }

    /// The continuing half: asks the origin for the document `state` names and, once it arrived
    /// whole, stores it in the local folder and opens it at the state's position in `window`.
    /// Until then the Reader shows ``transfer`` and, as soon as the first bytes are there, the
    /// document as far as it arrived (``TransferPreview``: the first page, then the state's page
    /// once it is there); what the window showed stays underneath. On failure it says why.
    func receiveDocument(for state: ReadingState, from activity: UserActivity, into window: ReaderWindow) {
        cancelTransfer()
        guard let environment else { return }
        let id = UUID()
        transferID = id
        transferWindow = window
        transfer = TransferProgress(documentName: state.documentName)
        message = nil
        let perform = environment.perform
        let localFolder = environment.localFolder
        let reference = Confined(weak: self)
        let receiver = DocumentReceiver(
            documentName: state.documentName, requesterName: environment.deviceName,
            limit: min(DocumentLibrary.maximumFileSize, DocumentTransferProtocol.maximumDocumentSize),
            idleTimeout: transferIdleTimeout)
        environment.log(
            "Reader: “\(state.documentName)” is not on this device; asking the origin over continuation streams")
        // The transports time out an open that fails; this also ends one that is never answered.
        let timeout = transferIdleTimeout
        Task.detached {
            try? await Task.sleep(for: timeout)
            perform { reference.value.object?.streamsDidNotOpen(id, state: state, after: timeout) }
        }
        activity.getContinuationStreams { [weak self] streams, error in
            guard let self, self.transferID == id else {
                streams?.input.cancel()
                return
            }
            guard let streams else {
                let why = error.map { "\($0)" } ?? "no streams"
                self.transferEnded(
                    id, state: state, result: .failure(.streams("the streams could not be opened (\(why))")))
                return
            }
            self.transferTask = Task.detached {
                let result: Result<StoredDocument, DocumentTransferError>
                do throws(DocumentTransferError) {
                    let received = try await receiver.receive(
                        over: streams,
                        progress: { progress in
                            perform { reference.value.object?.transferProgressed(id, progress) }
                        },
                        arrived: { bytes, header in
                            perform {
                                reference.value.object?.transferArrived(
                                    id, bytes, size: header.size, target: state.position)
                            }
                        })
                    result = .success(try StoredDocument.store(received, in: localFolder))
                } catch {
                    result = .failure(error)
                }
                perform { reference.value.object?.transferEnded(id, state: state, result: result) }
            }
        }
    }

    /// Stops the transfer in progress, if any (its result will be ignored).
    func cancelTransfer() {
        transferTask?.cancel()
        transferTask = nil
        transferID = nil
        transferWindow = nil
        transfer = nil
        transferPreview = nil
    }

    /// The document being received, when it is shown: in the window it opens in, when that is
    /// the window shown.
    var shownPreview: TransferPreview? {
        guard let transferPreview, transferWindow == nil || transferWindow === frontWindow else { return nil }
        return transferPreview
    }

    /// On the run loop: the next `bytes` of the document of transfer `id` (of `size` bytes in
    /// all) arrived; the preview shows them (`target` is the place the activity names).
    func transferArrived(_ id: UUID, _ bytes: [UInt8], size: Int, target: ReadingPosition) {
        guard transferID == id else { return }
        if transferPreview == nil {
            transferPreview = TransferPreview(size: size, target: target, width: viewport.width)
        }
        transferPreview?.arrived(bytes, width: viewport.width)
        environment?.setNeedsDisplay()
    }

    private func streamsDidNotOpen(_ id: UUID, state: ReadingState, after timeout: Duration) {
        guard transferID == id, transferTask == nil else { return }
        transferEnded(id, state: state, result: .failure(.timedOut(timeout)))
    }

    private func transferProgressed(_ id: UUID, _ progress: TransferProgress) {
        guard transferID == id else { return }
        transfer = progress
        environment?.setNeedsDisplay()
    }

    private func transferEnded(_ id: UUID, state: ReadingState, result: Result<StoredDocument, DocumentTransferError>) {
        guard transferID == id else { return }
        let sender = transfer?.senderName
        let preview = transferPreview
        let window = transferWindow.flatMap { window in windows.contains { $0 === window } ? window : nil }
        transferID = nil
        transferTask = nil
        transferWindow = nil
        transfer = nil
        transferPreview = nil
        defer { environment?.setNeedsDisplay() }
        let name = state.documentName
        switch result {
        case .success(let stored):
            environment?.log("Reader: received “\(name)” (\(stored.size) bytes) into \(stored.url.path)")
            do throws(ReadingRestoreError) {
                // Where the user moved to while it arrived, or the place the activity names.
                try open(stored.url, at: preview?.userMoved == true ? preview!.position : state.position, in: window)
                reloadDocuments()
                guard message == nil else { return }
                let from = stored.senderName.isEmpty ? "" : " from \(stored.senderName)"
                let savedAs =
                    stored.url.lastPathComponent == name
                    ? ""
                    : " as “\(stored.url.lastPathComponent)” (a different “\(name)” was already there)"
                message = ReaderMessage(
                    .info,
                    "Received “\(name)”\(from) over continuation streams · "
                        + "\(DurationText.describe(bytes: stored.size, in: stored.elapsed)), saved on this device\(savedAs)."
                )
            } catch {
                message = ReaderMessage(.error, error.description)
            }
        case .failure(let error):
            environment?.log("Reader: receiving “\(name)” failed: \(error)")
            let from = sender.map { " from \($0)" } ?? ""
            message = ReaderMessage(.error, "Could not receive “\(name)”\(from): \(error). Nothing changed here.")
        }
    }
}

/// A document being received over continuation streams, as far as it arrived: what the Reader
/// shows in its window until it is stored and opened. It shows the place the continued activity
/// names once that page arrived, the top of the first page until then.
struct TransferPreview {
    private(set) var text: DocumentText
    /// The place the continued activity names.
    let target: ReadingPosition
    /// What is shown.
    private(set) var position = ReadingPosition.start
    /// The page shown, wrapped at the reading view's width.
    private(set) var layout: PageLayout
    /// Whether the target's page arrived and is shown (nothing changes after that).
    private(set) var showsTarget = false
    /// Whether the user moved in the preview: what arrives then never moves the view, and the
    /// document opens where the user is.
    private(set) var userMoved = false

    /// A preview of a document of `size` bytes, none of which arrived yet.
    init(size: Int, target: ReadingPosition, width: Int) {
        text = DocumentText(bytes: Data(), isFinal: false, expectedSize: size)
        self.target = target
        layout = PageLayout(lines: [], width: width)
    }

    var title: String { text.title ?? "" }

    /// "page 1 of about 900" (the pages are counted as the bytes arrive).
    var pageLabel: String { "page \(position.page) of about \(text.estimatedPageCount)" }

    /// More bytes arrived: their pages are found, and the target's page is shown as soon as it
    /// is there.
    mutating func arrived(_ bytes: [UInt8], width: Int) {
        text.append(bytes)
        text.findAllPages()  // the new lines only: the count and its estimate follow the bytes
        guard !showsTarget, !userMoved else { return }
        let page = max(target.page, 1)
        if text.knownPageCount >= page {
            let lines = text.lines(ofPage: page)
            position = ReadingPosition(
                page: page, line: min(target.line, max(lines.count - 1, 0)), character: target.character)
            layout = PageLayout(lines: lines, width: width)
            showsTarget = true
        } else if layout.rows.isEmpty || layout.width != width {
            layout = PageLayout(lines: text.lines(ofPage: position.page), width: width)
        }
    }

    /// Moves in what arrived so far, as the reading view moves in a document (the pages not there
    /// yet are out of reach; End goes to the last page that arrived). Returns whether the view moved.
    mutating func move(_ movement: ReadingSession.Movement, height: Int, width: Int) -> Bool {
        if layout.width != width { resize(width: width) }
        let known = text.knownPageCount
        var target: ReadingPosition
        switch movement {
        case .lineDown, .lineUp:
            // Within the page, as in the reading view.
            guard
                let row = layout.rowScrolled(from: topRow(height: height), down: movement == .lineDown, height: height)
            else { return false }
            target = ReadingPosition(page: position.page, line: row.line, character: row.character)
        case .nextPage:
            guard position.page < known else { return false }
            target = ReadingPosition(page: position.page + 1)
        case .previousPage:
            target = ReadingPosition(page: max(position.page - 1, 1))
        case .start:
            target = .start
        case .end:
            target = ReadingPosition(page: max(known, 1))
        }
        target.page = min(max(target.page, 1), max(known, 1))
        guard target != position else { return false }
        if target.page != position.page || layout.rows.isEmpty {
            layout = PageLayout(lines: text.lines(ofPage: target.page), width: width)
        }
        position = target
        userMoved = true
        return true
    }

    /// The reading view is now `width` cells wide.
    mutating func resize(width: Int) {
        guard width != layout.width else { return }
        layout = PageLayout(lines: text.lines(ofPage: position.page), width: width)
    }

    /// The row shown at the top of a view `height` rows high.
    func topRow(height: Int) -> Int {
        min(layout.rowIndex(line: position.line, character: position.character), layout.lastTopRow(height: height))
    }
}

/// A received document written to the local folder.
struct StoredDocument: Hashable, Sendable {
    var url: URL
    var size: Int
    var senderName: String
    /// True when an identical file was there already.
    var reused: Bool
    /// How long the transfer took.
    var elapsed: Duration = .zero

    /// Writes `received` into `folder` under its name, never over a different file: an identical
    /// file is reused, a different one keeps its name and the document gets "NAME (2).txt" (and
    /// so on).
    ///
    /// - Throws: ``DocumentTransferError/malformed(_:)`` when the bytes are not UTF-8 text,
    ///   ``DocumentTransferError/streams(_:)`` when the file cannot be written.
    static func store(_ received: ReceivedDocument, in folder: URL) throws(DocumentTransferError) -> StoredDocument {
        let data = Data(received.bytes)
        guard String(data: data, encoding: .utf8) != nil else { throw .malformed("the document is not UTF-8 text") }
        let name = received.header.documentName
        let stem = (name as NSString).deletingPathExtension
        let suffix = (name as NSString).pathExtension.isEmpty ? "" : "." + (name as NSString).pathExtension
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .streams("the local folder \(folder.path) cannot be created")
        }
        for attempt in 1...100 {
            let candidate = folder.appendingPathComponent(
                attempt == 1 ? name : "\(stem) (\(attempt))\(suffix)", isDirectory: false)
            if FileManager.default.fileExists(atPath: candidate.path) {
                if (try? Data(contentsOf: candidate)) == data {
                    return StoredDocument(
                        url: candidate, size: data.count, senderName: received.header.senderName, reused: true,
                        elapsed: received.elapsed)
                }
                continue
            }
            do {
                try data.write(to: candidate, options: .withoutOverwriting)
                return StoredDocument(
                    url: candidate, size: data.count, senderName: received.header.senderName, reused: false,
                    elapsed: received.elapsed)
            } catch {
                if FileManager.default.fileExists(atPath: candidate.path) { continue }
                throw .streams("“\(candidate.lastPathComponent)” could not be written in \(folder.path)")
            }
        }
        throw .streams("the local folder already holds 100 different documents named like “\(name)”")
    }
}
