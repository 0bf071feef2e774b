import Crypto
import Foundation
import HandoffCore

/// Which end of a pair of continuation streams a device holds.
package enum StreamSide: String, Sendable, Hashable, CaseIterable {
    /// The continuing device: it opened the streams with `getContinuationStreams`.
    case continuing
    /// The originating device: its activity delegate received them.
    case origin
}

/// What the originating side does with the streams its activity delegate receives.
package enum OriginStreamMode: String, Sendable, Hashable, CaseIterable {
    /// Writes back everything it reads, and closes its output when the input ends.
    case echo
    /// Reads everything (reporting its size and SHA-256) and leaves its output to commands.
    case sink
}

/// The deterministic bytes `stream-send {"bytes": N, "seed": S}` sends: SplitMix64 seeded with S,
/// each 64-bit output written little-endian, the last one cut to length. Any tool can regenerate
/// them to check what arrived.
package struct PseudoRandomBytes: Sendable {
    private var generator: SplitMix64
    private var buffered: [UInt8] = []

    package init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    package mutating func nextWord() -> UInt64 { generator.next() }

    /// The next `count` bytes of the sequence (however it is cut into calls, the bytes are the same).
    package mutating func next(_ count: Int) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        let fromBuffer = min(count, buffered.count)
        bytes += buffered.prefix(fromBuffer)
        buffered.removeFirst(fromBuffer)
        while bytes.count < count {
            let word = nextWord()
            for shift in stride(from: 0, to: 64, by: 8) {
                let byte = UInt8(truncatingIfNeeded: word >> UInt64(shift))
                if bytes.count < count { bytes.append(byte) } else { buffered.append(byte) }
            }
        }
        return bytes
    }

    /// `count` bytes from the start of the sequence for `seed`.
    package static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = PseudoRandomBytes(seed: seed)
        return generator.next(count)
    }
}

/// What a stream's sending task is told to do, in order.
enum SendCommand: Sendable {
    case bytes([UInt8])
    case pseudoRandom(count: Int, seed: UInt64)
    case close
}

/// One end of a pair of continuation streams held by the controller (device thread only).
final class StreamEndpoint {
    let id: Int
    let side: StreamSide
    let streams: ContinuationStreams
    /// The origin's mode when the streams arrived (nil on the continuing side).
    let mode: OriginStreamMode?
    /// Feeds the sending task (nil when echo mode owns the output).
    let sender: AsyncStream<SendCommand>.Continuation?
    var closed = false
    var queuedBytes = 0

    init(
        id: Int, side: StreamSide, streams: ContinuationStreams, mode: OriginStreamMode?,
        sender: AsyncStream<SendCommand>.Continuation?
    ) {
        self.id = id
        self.side = side
        self.streams = streams
        self.mode = mode
        self.sender = sender
    }
}

/// The stream I/O, run in tasks off the device thread; they touch nothing but the streams and
/// the ``LineWriter``.
enum StreamIO {
    static let chunkSize = 64 * 1024
    /// Received streams up to this size are also reported as text, when they are UTF-8.
    static let textPreviewLimit = 4096

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    static func emit(_ output: LineWriter, _ event: String, _ fields: [String: JSONValue]) {
        var object = fields
        object["event"] = .string(event)
        output.write(.object(object))
    }

    /// Reads `streams.input` to its end, reporting `stream-finished` (or `stream-error`). With
    /// `echo`, writes every chunk back and closes the output at the end (`stream-closed`).
    static func startReader(_ streams: ContinuationStreams, side: StreamSide, id: Int, echo: Bool, output: LineWriter) {
        Task {
            var hasher = SHA256()
            var count = 0
            var preview: [UInt8] = []
            let base: [String: JSONValue] = ["side": .string(side.rawValue), "stream": .integer(Int64(id))]
            do {
                for try await chunk in streams.input {
                    hasher.update(data: chunk)
                    count += chunk.count
                    if preview.count <= textPreviewLimit {
                        preview += chunk.prefix(textPreviewLimit + 1 - preview.count)
                    }
                    if echo {
                        do {
                            try await streams.output.write(chunk)
                        } catch {
                            var fields = base
                            fields["stage"] = "echo"
                            fields["error"] = .string("\(error)")
                            fields["bytes"] = .integer(Int64(count))
                            emit(output, "stream-error", fields)
                            streams.input.cancel()
                            return
                        }
                    }
                }
            } catch {
                var fields = base
                fields["stage"] = "receive"
                fields["error"] = .string("\(error)")
                fields["bytes"] = .integer(Int64(count))
                emit(output, "stream-error", fields)
                if echo { await streams.output.close(with: error) }
                return
            }
            let digest = hex(hasher.finalize())
            var fields = base
            fields["bytes"] = .integer(Int64(count))
            fields["sha256"] = .string(digest)
            if count <= textPreviewLimit, let text = String(bytes: preview, encoding: .utf8) {
                fields["text"] = .string(text)
            }
            emit(output, "stream-finished", fields)
            if echo {
                await streams.output.close()
                var closed = base
                closed["bytes"] = .integer(Int64(count))
                closed["sha256"] = .string(digest)
                emit(output, "stream-closed", closed)
            }
        }
    }

    /// Starts the task that carries out `stream-send` and `stream-close` in order.
    static func startSender(
        _ stream: ContinuationOutputStream, side: StreamSide, id: Int,
        output: LineWriter
    ) -> AsyncStream<SendCommand>.Continuation {
        let (commands, continuation) = AsyncStream.makeStream(of: SendCommand.self, bufferingPolicy: .unbounded)
        Task {
            var total = SHA256()
            var totalBytes = 0
            var failure: String?
            let base: [String: JSONValue] = ["side": .string(side.rawValue), "stream": .integer(Int64(id))]
            for await command in commands {
                switch command {
                case .close:
                    if failure == nil { await stream.close() }
                    var fields = base
                    fields["bytes"] = .integer(Int64(totalBytes))
                    fields["sha256"] = .string(hex(total.finalize()))
                    emit(output, "stream-closed", fields)
                    return
                case .bytes, .pseudoRandom:
                    if let failure {
                        var fields = base
                        fields["stage"] = "send"
                        fields["error"] = .string("not sent: the stream failed earlier: \(failure)")
                        emit(output, "stream-error", fields)
                        continue
                    }
                    var hasher = SHA256()
                    var sent = 0
                    do {
                        switch command {
                        case .bytes(let bytes):
                            var offset = 0
                            while offset < bytes.count {
                                let chunk = Array(bytes[offset..<min(offset + chunkSize, bytes.count)])
                                try await stream.write(chunk)
                                hasher.update(data: chunk)
                                total.update(data: chunk)
                                sent += chunk.count
                                totalBytes += chunk.count
                                offset += chunkSize
                            }
                        case .pseudoRandom(let count, let seed):
                            var generator = PseudoRandomBytes(seed: seed)
                            while sent < count {
                                let chunk = generator.next(min(chunkSize, count - sent))
                                try await stream.write(chunk)
                                hasher.update(data: chunk)
                                total.update(data: chunk)
                                sent += chunk.count
                                totalBytes += chunk.count
                            }
                        case .close:
                            break
                        }
                        var fields = base
                        fields["bytes"] = .integer(Int64(sent))
                        fields["sha256"] = .string(hex(hasher.finalize()))
                        fields["totalBytes"] = .integer(Int64(totalBytes))
                        fields["totalSha256"] = .string(hex(total.finalize()))
                        emit(output, "stream-sent", fields)
                    } catch {
                        failure = "\(error)"
                        var fields = base
                        fields["stage"] = "send"
                        fields["error"] = .string("\(error)")
                        fields["bytes"] = .integer(Int64(sent))
                        emit(output, "stream-error", fields)
                    }
                }
            }
        }
        return continuation
    }
}
